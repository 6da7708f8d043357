//! Every data-movement kernel on every element type: whole-byte types,
//! strings, and the packed sub-byte types, whose elements share bytes.
//!
//! A kernel that only moves elements puts input element `p(j)` at output
//! element `j`. The same kernel run on a `u32` tensor holding each
//! element's position gives `p` (the `u32` path is checked against
//! OpenVINO's own outputs by the conformance samples), so each output here
//! is checked element by element against the input it came from.

use ovir_exec::kernels::{
    broadcast, concat, gather, reshape, reverse, reverse_sequence, shape_of, slice, squeeze, unsqueeze,
};
use ovir_shape::BroadcastMode;
use ovir_tensor::{packed, ElementType, Tensor, ALL_ELEMENT_TYPES};

use crate::common::{ok, tensor};

/// Every type a tensor can hold.
fn types() -> impl Iterator<Item = ElementType> {
    ALL_ELEMENT_TYPES.into_iter().filter(|t| t.is_static())
}

/// A tensor of `ty` whose elements differ from their neighbours; `seed`
/// varies the values between tensors.
fn sample(ty: ElementType, shape: &[usize], seed: usize) -> Tensor {
    let n: usize = shape.iter().product();
    if ty == ElementType::String {
        return Tensor::from_strings(shape, (0..n).map(|i| format!("s{seed}-{i}")).collect()).unwrap();
    }
    if packed::is_packed(ty) {
        let span = 1usize << ty.bit_width();
        let codes: Vec<u8> = (0..n).map(|i| ((i * 5 + seed) % span) as u8).collect();
        return Tensor::from_bytes(ty, shape, &packed::pack(&codes, ty).unwrap()).unwrap();
    }
    let width = ty.byte_width().unwrap();
    let bytes: Vec<u8> = (0..n * width).map(|i| (i * 37 + seed * 11 + 1) as u8).collect();
    Tensor::from_bytes(ty, shape, &bytes).unwrap()
}

/// The positions `first..first + n` as a `u32` tensor of `shape`.
fn positions(shape: &[usize], first: u32) -> Tensor {
    let n: usize = shape.iter().product();
    tensor(shape, (first..first + n as u32).collect())
}

/// Each element as bytes: its code, its `String`'s bytes, or its bytes.
fn elements(t: &Tensor) -> Vec<Vec<u8>> {
    if let Some(s) = t.strings() {
        return s.iter().map(|s| s.as_bytes().to_vec()).collect();
    }
    let ty = t.element_type();
    let bytes = t.bytes().unwrap();
    if packed::is_packed(ty) {
        return packed::unpack(bytes, ty, t.len()).unwrap().into_iter().map(|c| vec![c]).collect();
    }
    bytes.chunks(ty.byte_width().unwrap()).map(<[u8]>::to_vec).collect()
}

/// Checks that `out` holds, at each element, the element of `sources`
/// (their elements end to end) that `moved` names by position.
fn check_moved(what: &str, out: &Tensor, moved: &Tensor, sources: &[&Tensor]) {
    let ty = sources[0].element_type();
    assert_eq!(out.element_type(), ty, "{what} {ty}");
    assert_eq!(out.shape(), moved.shape(), "{what} {ty}");
    let all: Vec<Vec<u8>> = sources.iter().flat_map(|s| elements(s)).collect();
    let expected: Vec<Vec<u8>> =
        moved.to_vec::<u32>().unwrap().into_iter().map(|p| all[p as usize].clone()).collect();
    assert_eq!(elements(out), expected, "{what} {ty}");
}

fn i64s(shape: &[usize], values: Vec<i64>) -> Tensor {
    tensor(shape, values)
}

#[test]
fn gather_moves_every_type() {
    let indices = i64s(&[4], vec![2, 0, -1, 1]);
    let axis = i64s(&[], vec![1]);
    let at = positions(&[2, 3], 0);
    let moved = ok(gather(&at, &indices, &axis, 0));
    for ty in types() {
        let data = sample(ty, &[2, 3], 1);
        check_moved("Gather", &ok(gather(&data, &indices, &axis, 0)), &moved, &[&data]);
    }
}

#[test]
fn broadcast_moves_every_type() {
    let target = i64s(&[3], vec![2, 3, 5]);
    let at = positions(&[3, 1], 0);
    let moved = ok(broadcast(&at, &target, None, BroadcastMode::Numpy));
    for ty in types() {
        let data = sample(ty, &[3, 1], 2);
        check_moved(
            "Broadcast",
            &ok(broadcast(&data, &target, None, BroadcastMode::Numpy)),
            &moved,
            &[&data],
        );
    }
}

#[test]
fn concat_joins_every_type() {
    // Odd sizes, so that packed inputs end inside a byte.
    let (a, b) = (positions(&[3, 3], 0), positions(&[3, 2], 9));
    let moved = ok(concat(&[&a, &b], 1));
    for ty in types() {
        let (x, y) = (sample(ty, &[3, 3], 3), sample(ty, &[3, 2], 4));
        check_moved("Concat", &ok(concat(&[&x, &y], 1)), &moved, &[&x, &y]);
    }
}

#[test]
fn slice_moves_every_type() {
    let (start, stop, step) =
        (i64s(&[2], vec![1, -1]), i64s(&[2], vec![3, i64::MIN]), i64s(&[2], vec![1, -2]));
    let at = positions(&[3, 5], 0);
    let moved = ok(slice(&at, &start, &stop, &step, None));
    for ty in types() {
        let data = sample(ty, &[3, 5], 5);
        check_moved("Slice", &ok(slice(&data, &start, &stop, &step, None)), &moved, &[&data]);
    }
}

#[test]
fn reversals_move_every_type() {
    let at = positions(&[3, 5], 0);
    let lengths = i64s(&[3], vec![5, 2, 0]);
    for ty in types() {
        let data = sample(ty, &[3, 5], 6);
        let moved = ok(reverse(&at, &[true, true]));
        check_moved("Reverse", &ok(reverse(&data, &[true, true])), &moved, &[&data]);
        let moved = ok(reverse_sequence(&at, &lengths, 0, 1));
        check_moved("ReverseSequence", &ok(reverse_sequence(&data, &lengths, 0, 1)), &moved, &[&data]);
    }
}

#[test]
fn views_and_shapes_take_every_type() {
    for ty in types() {
        let data = sample(ty, &[2, 1, 3], 7);
        let flat = ok(reshape(&data, &i64s(&[1], vec![-1]), false));
        assert_eq!((flat.shape(), elements(&flat)), (&[6usize][..], elements(&data)), "Reshape {ty}");
        let narrow = ok(squeeze(&data, Some(&i64s(&[1], vec![1]))));
        assert_eq!((narrow.shape(), elements(&narrow)), (&[2usize, 3][..], elements(&data)), "Squeeze {ty}");
        let wide = ok(unsqueeze(&data, &i64s(&[1], vec![0])));
        assert_eq!(
            (wide.shape(), elements(&wide)),
            (&[1usize, 2, 1, 3][..], elements(&data)),
            "Unsqueeze {ty}"
        );
        let shape = ok(shape_of(&data, ElementType::I64));
        assert_eq!(shape.to_vec::<i64>().unwrap(), vec![2, 1, 3], "ShapeOf {ty}");
    }
}
