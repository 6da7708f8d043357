//! Kernel tests for ShapeOf, Gather, Broadcast, Reshape, Squeeze,
//! Unsqueeze, Concat and Slice: cases after OpenVINO's op_reference tests, the
//! errors the kernels share with shape inference, strings, and property
//! tests of Gather, Broadcast and Slice against naive references.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ovir_exec::kernels::{
    broadcast, broadcast_into, concat, gather, gather_into, reshape, shape_of, slice, slice_into, squeeze,
    unsqueeze, ExecOptions, GatherScratch, KernelError,
};
use ovir_shape::{BroadcastMode, ShapeErrorKind};
use ovir_tensor::{ElementType, Tensor};
use proptest::prelude::*;

fn t<T: ovir_tensor::Element>(shape: &[usize], values: Vec<T>) -> Tensor {
    Tensor::from_vec(shape, values).unwrap()
}

fn iota(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    t(shape, (0..n as i32).collect())
}

fn scalar(v: i64) -> Tensor {
    t(&[], vec![v])
}

#[test]
fn shape_of_writes_either_width() {
    let data = Tensor::zeros(ElementType::U8, &[2, 0, 7]).unwrap();
    assert_eq!(shape_of(&data, ElementType::I64).unwrap().to_vec::<i64>().unwrap(), vec![2, 0, 7]);
    assert_eq!(shape_of(&data, ElementType::I32).unwrap().to_vec::<i32>().unwrap(), vec![2, 0, 7]);
    let scalar = t(&[], vec![1.5f32]);
    assert_eq!(shape_of(&scalar, ElementType::I64).unwrap().shape(), &[0]);
    assert!(matches!(shape_of(&scalar, ElementType::F32), Err(KernelError::UnsupportedType { .. })));
}

struct GatherCase {
    name: &'static str,
    data: (&'static [usize], Vec<i32>),
    indices: (&'static [usize], Vec<i64>),
    axis: i64,
    batch_dims: i64,
    expect: Result<(&'static [usize], Vec<i32>), &'static str>,
}

#[test]
fn gather_cases() {
    let cases = vec![
        // op_reference gather.cpp: data {3,2}, indices {2,2}, axis 0.
        GatherCase {
            name: "axis_0",
            data: (&[3, 2], vec![10, 11, 20, 21, 30, 31]),
            indices: (&[2, 2], vec![0, 1, 1, 2]),
            axis: 0,
            batch_dims: 0,
            expect: Ok((&[2, 2, 2], vec![10, 11, 20, 21, 20, 21, 30, 31])),
        },
        GatherCase {
            name: "axis_1_negative_indices",
            data: (&[2, 3], vec![1, 2, 3, 4, 5, 6]),
            indices: (&[2], vec![-1, 0]),
            axis: -1,
            batch_dims: 0,
            expect: Ok((&[2, 2], vec![3, 1, 6, 4])),
        },
        GatherCase {
            name: "out_of_range_gives_zeros",
            data: (&[3], vec![7, 8, 9]),
            indices: (&[3], vec![3, -4, 1]),
            axis: 0,
            batch_dims: 0,
            expect: Ok((&[3], vec![0, 0, 8])),
        },
        GatherCase {
            name: "batch_dims_1",
            data: (&[2, 3], vec![1, 2, 3, 4, 5, 6]),
            indices: (&[2, 2], vec![2, 0, 1, 1]),
            axis: 1,
            batch_dims: 1,
            expect: Ok((&[2, 2], vec![3, 1, 5, 5])),
        },
        GatherCase {
            name: "scalar_index",
            data: (&[2, 2], vec![1, 2, 3, 4]),
            indices: (&[], vec![1]),
            axis: 0,
            batch_dims: 0,
            expect: Ok((&[2], vec![3, 4])),
        },
        GatherCase {
            name: "axis_out_of_range",
            data: (&[2, 2], vec![1, 2, 3, 4]),
            indices: (&[1], vec![0]),
            axis: 2,
            batch_dims: 0,
            expect: Err("Gather axis 2 is out of range for rank 2"),
        },
        GatherCase {
            name: "batch_mismatch",
            data: (&[2, 2], vec![1, 2, 3, 4]),
            indices: (&[3, 1], vec![0, 0, 0]),
            axis: 1,
            batch_dims: 1,
            expect: Err("must be equal"),
        },
    ];
    for c in cases {
        let data = t(c.data.0, c.data.1);
        let indices = t(c.indices.0, c.indices.1);
        let got = gather(&data, &indices, &scalar(c.axis), c.batch_dims);
        match (got, c.expect) {
            (Ok(out), Ok((shape, values))) => {
                assert_eq!(out.shape(), shape, "{}", c.name);
                assert_eq!(out.to_vec::<i32>().unwrap(), values, "{}", c.name);
            }
            (Err(e), Err(text)) => assert!(e.to_string().contains(text), "{}: {e}", c.name),
            (got, want) => panic!("{}: got {got:?}, expected {want:?}", c.name),
        }
    }
}

#[test]
fn gather_refuses_float_indices_and_moves_strings() {
    let data = Tensor::from_strings(&[3], vec!["a".into(), "b".into(), "c".into()]).unwrap();
    let floats = t(&[1], vec![0.0f32]);
    let err = gather(&data, &floats, &scalar(0), 0).unwrap_err();
    assert!(matches!(err, KernelError::Shape(ShapeErrorKind::IntegerInput { .. })), "{err}");
    let out = gather(&data, &t(&[3], vec![2i32, 5, 0]), &scalar(0), 0).unwrap();
    assert_eq!(out.strings().unwrap(), ["c", "", "a"]);
}

#[test]
fn gather_into_overwrites_a_reused_buffer() {
    let data = iota(&[4, 2]);
    let indices = t(&[2], vec![3i64, 9]);
    let mut out = t(&[2, 2], vec![-1i32; 4]);
    gather_into(&data, &indices, &scalar(0), 0, &mut out, &mut GatherScratch::new()).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![6, 7, 0, 0]);
}

#[test]
fn broadcast_cases() {
    let target = |v: &[i64]| t(&[v.len()], v.to_vec());
    // numpy: a column stretched along both sides.
    let out = broadcast(&t(&[2, 1], vec![1i32, 2]), &target(&[2, 2, 3]), None, BroadcastMode::Numpy).unwrap();
    assert_eq!(out.shape(), &[2, 2, 3]);
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2]);
    // explicit: data axis 0 lands on output axis 1.
    let mapping = t(&[1], vec![1i64]);
    let out =
        broadcast(&t(&[3], vec![1i32, 2, 3]), &target(&[2, 3, 2]), Some(&mapping), BroadcastMode::Explicit)
            .unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3]);
    // bidirectional: the output outgrows the target.
    let out =
        broadcast(&t(&[2, 1], vec![1i32, 2]), &target(&[1, 3]), None, BroadcastMode::Bidirectional).unwrap();
    assert_eq!(out.shape(), &[2, 3]);
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![1, 1, 1, 2, 2, 2]);
    // A scalar to an empty tensor.
    let out = broadcast(&t(&[], vec![5u8]), &target(&[0, 4]), None, BroadcastMode::Numpy).unwrap();
    assert_eq!(out.shape(), &[0, 4]);
    // Errors, in the words of shape inference.
    let err = broadcast(&t(&[2], vec![1i32, 2]), &target(&[3]), None, BroadcastMode::Numpy).unwrap_err();
    assert!(err.to_string().contains("cannot stretch a dimension of 2 to 3"), "{err}");
    let err = broadcast(&t(&[2], vec![1i32, 2]), &target(&[-2]), None, BroadcastMode::Numpy).unwrap_err();
    assert!(err.to_string().contains("negative value -2"), "{err}");
    let err = broadcast(&t(&[2], vec![1i32, 2]), &target(&[2]), None, BroadcastMode::Explicit).unwrap_err();
    assert!(err.to_string().contains("needs a third input"), "{err}");
}

#[test]
fn broadcast_strings_and_reused_buffers() {
    let data = Tensor::from_strings(&[2], vec!["x".into(), "y".into()]).unwrap();
    let target = t(&[2], vec![2i64, 2]);
    let out = broadcast(&data, &target, None, BroadcastMode::Numpy).unwrap();
    assert_eq!(out.strings().unwrap(), ["x", "y", "x", "y"]);
    let mut buf = t(&[2, 2], vec![9i16; 4]);
    broadcast_into(&t(&[2, 1], vec![1i16, 2]), &target, None, BroadcastMode::Numpy, &mut buf).unwrap();
    assert_eq!(buf.to_vec::<i16>().unwrap(), vec![1, 1, 2, 2]);
    let mut wrong = t(&[4], vec![0i16; 4]);
    assert!(matches!(
        broadcast_into(&t(&[2, 1], vec![1i16, 2]), &target, None, BroadcastMode::Numpy, &mut wrong),
        Err(KernelError::OutputMismatch { .. })
    ));
}

#[test]
fn reshaping_kernels_share_storage() {
    let data = iota(&[2, 3, 4]);
    let out = reshape(&data, &t(&[2], vec![0i64, -1]), true).unwrap();
    assert_eq!(out.shape(), &[2, 12]);
    assert!(out.shares_storage_with(&data));
    let out = unsqueeze(&data, &t(&[2], vec![0i64, -1])).unwrap();
    assert_eq!(out.shape(), &[1, 2, 3, 4, 1]);
    let ones = iota(&[1, 3, 1]);
    assert_eq!(squeeze(&ones, None).unwrap().shape(), &[3]);
    assert_eq!(squeeze(&ones, Some(&t(&[1], vec![0i32]))).unwrap().shape(), &[3, 1]);
    assert_eq!(squeeze(&ones, Some(&t(&[1], vec![1i32]))).unwrap().shape(), &[1, 3, 1]);
    let err = reshape(&data, &t(&[1], vec![5i64]), false).unwrap_err();
    assert!(err.to_string().contains("the element counts differ"), "{err}");
    let err = unsqueeze(&data, &t(&[0], Vec::<i64>::new())).unwrap_err();
    assert!(err.to_string().contains("at least one axis"), "{err}");
    let err = squeeze(&data, Some(&t(&[1], vec![3i64]))).unwrap_err();
    assert!(err.to_string().contains("out of range for rank 3"), "{err}");
}

#[test]
fn concat_cases() {
    let a = iota(&[2, 1]);
    let b = t(&[2, 2], vec![10i32, 11, 12, 13]);
    let out = concat(&[&a, &b], -1).unwrap();
    assert_eq!(out.shape(), &[2, 3]);
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![0, 10, 11, 1, 12, 13]);
    let out = concat(&[&b, &b], 0).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![10, 11, 12, 13, 10, 11, 12, 13]);
    let empty = Tensor::zeros(ElementType::I32, &[2, 0]).unwrap();
    assert_eq!(concat(&[&empty, &a], 1).unwrap().to_vec::<i32>().unwrap(), vec![0, 1]);
    let err = concat(&[&a, &t(&[2, 1], vec![1i64, 2])], 0).unwrap_err();
    assert!(err.to_string().contains("all must have one element type"), "{err}");
    let err = concat(&[&a, &iota(&[3, 2])], 0).unwrap_err();
    assert!(err.to_string().contains("does not fit the shape"), "{err}");
    let s = Tensor::from_strings(&[1], vec!["p".into()]).unwrap();
    assert_eq!(concat(&[&s, &s], 0).unwrap().strings().unwrap(), ["p", "p"]);
}

/// Naive Gather: output element by output element.
fn naive_gather(
    data: &[i32],
    dshape: &[usize],
    idx: &[i64],
    ishape: &[usize],
    axis: usize,
    b: usize,
) -> Vec<i32> {
    let out_shape: Vec<usize> =
        dshape[..axis].iter().chain(&ishape[b..]).chain(&dshape[axis + 1..]).copied().collect();
    let n: usize = out_shape.iter().product();
    let strides = |s: &[usize]| -> Vec<usize> {
        let mut st = vec![1; s.len()];
        for k in (0..s.len().saturating_sub(1)).rev() {
            st[k] = st[k + 1] * s[k + 1];
        }
        st
    };
    let (ds, is, os) = (strides(dshape), strides(ishape), strides(&out_shape));
    (0..n)
        .map(|flat| {
            let o: Vec<usize> = os.iter().zip(&out_shape).map(|(&st, &d)| flat / st % d).collect();
            let ipos: Vec<usize> = o[..b].iter().chain(&o[axis..axis + ishape.len() - b]).copied().collect();
            let i = idx[ipos.iter().zip(&is).map(|(a, s)| a * s).sum::<usize>()];
            let size = dshape[axis] as i64;
            let k = if i < 0 { i + size } else { i };
            if !(0..size).contains(&k) {
                return 0;
            }
            let mut dpos: Vec<usize> = o[..axis].to_vec();
            dpos.push(k as usize);
            dpos.extend(&o[axis + ishape.len() - b..]);
            data[dpos.iter().zip(&ds).map(|(a, s)| a * s).sum::<usize>()]
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn gather_matches_a_naive_reference(
        dshape in prop::collection::vec(1usize..4, 1..4),
        extra in prop::collection::vec(0usize..3, 0..3),
        axis_pick in 0usize..4,
        b_pick in 0usize..3,
        seed in any::<u64>(),
    ) {
        let axis = axis_pick % dshape.len();
        let b = b_pick % (axis + 1);
        let ishape: Vec<usize> = dshape[..b].iter().copied().chain(extra).collect();
        let n_idx: usize = ishape.iter().product();
        let size = dshape[axis] as i64;
        let idx: Vec<i64> = (0..n_idx).map(|k| ((seed >> (k % 60)) as i64 % (2 * size + 2)) - size - 1).collect();
        let data = iota(&dshape);
        let got = gather(&data, &t(&ishape, idx.clone()), &scalar(axis as i64), b as i64).unwrap();
        let want = naive_gather(&data.to_vec::<i32>().unwrap(), &dshape, &idx, &ishape, axis, b);
        prop_assert_eq!(got.to_vec::<i32>().unwrap(), want);
    }

    #[test]
    fn broadcast_matches_a_naive_reference(
        out_shape in prop::collection::vec(1usize..4, 0..5),
        keep in prop::collection::vec(any::<bool>(), 5),
        drop_lead in 0usize..3,
    ) {
        // Data: a suffix of the output shape, with some axes set to 1.
        let start = drop_lead.min(out_shape.len());
        let dshape: Vec<usize> =
            out_shape[start..].iter().zip(&keep).map(|(&d, &k)| if k { d } else { 1 }).collect();
        let data = iota(&dshape);
        let target = t(&[out_shape.len()], out_shape.iter().map(|&d| d as i64).collect());
        let got = broadcast(&data, &target, None, BroadcastMode::Numpy).unwrap();
        let values = data.to_vec::<i32>().unwrap();
        let n: usize = out_shape.iter().product();
        let want: Vec<i32> = (0..n)
            .map(|flat| {
                let mut rem = flat;
                let mut pos = vec![0; out_shape.len()];
                for k in (0..out_shape.len()).rev() {
                    pos[k] = rem % out_shape[k];
                    rem /= out_shape[k];
                }
                let mut off = 0;
                for (k, &d) in dshape.iter().enumerate() {
                    let p = if d == 1 { 0 } else { pos[start + k] };
                    off = off * d + p;
                }
                values[off]
            })
            .collect();
        prop_assert_eq!(got.shape(), &out_shape[..]);
        prop_assert_eq!(got.to_vec::<i32>().unwrap(), want);
    }
}

fn v(values: &[i64]) -> Tensor {
    t(&[values.len()], values.to_vec())
}

/// One Slice: data shape, start, stop, step, axes, and the expected shape
/// and values (of an iota) or an error's words.
type SliceCase = (
    &'static str,
    &'static [usize],
    [&'static [i64]; 3],
    Option<&'static [i64]>,
    Result<(&'static [usize], Vec<i32>), &'static str>,
);

#[test]
fn slice_cases() {
    let all16: Vec<i32> = (0..16).collect();
    let cases: Vec<SliceCase> = vec![
        // After op_reference slice.cpp: a whole 1-D tensor, forwards and back.
        ("1d_full", &[16], [&[0], &[16], &[1]], None, Ok((&[16], all16.clone()))),
        (
            "1d_reversed",
            &[16],
            [&[15], &[-100], &[-1]],
            None,
            Ok((&[16], all16.iter().rev().copied().collect())),
        ),
        ("1d_out_of_range_start", &[16], [&[20], &[100], &[1]], None, Ok((&[0], vec![]))),
        (
            "1d_clamped_step_3",
            &[16],
            [&[-100], &[100], &[3]],
            Some(&[0]),
            Ok((&[6], vec![0, 3, 6, 9, 12, 15])),
        ),
        ("1d_empty_backwards", &[16], [&[3], &[-3], &[-1]], None, Ok((&[0], vec![]))),
        ("1d_negative_bounds_step_-4", &[16], [&[-3], &[3], &[-4]], None, Ok((&[3], vec![13, 9, 5]))),
        ("1d_clamped_step_-7", &[16], [&[100], &[-100], &[-7]], None, Ok((&[3], vec![15, 8, 1]))),
        // x[:, 2:0:-1, ::-3]
        (
            "3d_two_axes_backwards",
            &[2, 3, 4],
            [&[2, -1], &[0, i64::MIN], &[-1, -3]],
            Some(&[1, 2]),
            Ok((&[2, 2, 2], vec![11, 8, 7, 4, 23, 20, 19, 16])),
        ),
        // x[-1:, :, 1:3], with the axes out of order.
        (
            "3d_axes_out_of_order",
            &[2, 3, 4],
            [&[1, -1], &[3, i64::MAX], &[1, 1]],
            Some(&[-1, 0]),
            Ok((&[1, 3, 2], vec![13, 14, 17, 18, 21, 22])),
        ),
        // torch.flip(x, [0, -1]) as the PyTorch front end writes it.
        (
            "flip_is_a_reverse",
            &[2, 3],
            [&[-1, -1], &[i64::MIN, i64::MIN], &[-1, -1]],
            Some(&[0, -1]),
            Ok((&[2, 3], vec![5, 4, 3, 2, 1, 0])),
        ),
        ("step_zero", &[4], [&[0], &[4], &[0]], None, Err("step 0 of Slice is 0")),
        ("lengths_differ", &[4], [&[0], &[4, 4], &[1]], None, Err("must have one length")),
        (
            "axis_out_of_range",
            &[4],
            [&[0], &[4], &[1]],
            Some(&[1]),
            Err("Slice axes value 1 is out of range"),
        ),
        ("axis_repeated", &[4, 4], [&[0, 0], &[4, 4], &[1, 1]], Some(&[1, -1]), Err("more than once")),
        ("too_many_axes", &[4], [&[0, 0], &[4, 4], &[1, 1]], None, Err("at most one per axis")),
    ];
    for (name, shape, [b, e, s], axes, expect) in cases {
        let data = iota(shape);
        let axes = axes.map(v);
        let got = slice(&data, &v(b), &v(e), &v(s), axes.as_ref());
        match (got, expect) {
            (Ok(out), Ok((shape, values))) => {
                assert_eq!(out.shape(), shape, "{name}");
                assert_eq!(out.to_vec::<i32>().unwrap(), values, "{name}");
            }
            (Err(err), Err(words)) => assert!(err.to_string().contains(words), "{name}: {err}"),
            (got, expect) => panic!("{name}: got {got:?}, expected {expect:?}"),
        }
    }
}

#[test]
fn slice_checks_inputs_and_moves_every_width() {
    let data = iota(&[4]);
    let err = slice(&data, &t(&[1], vec![0.0f32]), &v(&[4]), &v(&[1]), None).unwrap_err();
    assert!(matches!(err, KernelError::Shape(ShapeErrorKind::IntegerInput { .. })), "{err}");
    let err = slice(&data, &t(&[], vec![0i64]), &v(&[4]), &v(&[1]), None).unwrap_err();
    assert!(err.to_string().contains("must be a 1-D tensor"), "{err}");
    // u64 bounds beyond i64 clamp like any large bound.
    let out =
        slice(&data, &t(&[1], vec![1u64]), &t(&[1], vec![u64::MAX]), &t(&[1], vec![2u64]), None).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![1, 3]);
    let strings =
        Tensor::from_strings(&[2, 2], vec!["a".into(), "b".into(), "c".into(), "d".into()]).unwrap();
    let out = slice(&strings, &v(&[-1]), &v(&[i64::MIN]), &v(&[-1]), Some(&v(&[1]))).unwrap();
    assert_eq!(out.strings().unwrap(), ["b", "a", "d", "c"]);
    let out = slice(&strings, &v(&[1]), &v(&[2]), &v(&[1]), None).unwrap();
    assert_eq!(out.strings().unwrap(), ["c", "d"]);
    for ty in [ElementType::U8, ElementType::F16, ElementType::F32, ElementType::F64] {
        let data = Tensor::zeros(ty, &[3, 4]).unwrap();
        let out = slice(&data, &v(&[3]), &v(&[0]), &v(&[-2]), Some(&v(&[1]))).unwrap();
        assert_eq!((out.element_type(), out.shape()), (ty, &[3usize, 2][..]));
    }
    let mut buf = t(&[2], vec![-1i32; 2]);
    slice_into(&data, &v(&[3]), &v(&[0]), &v(&[-2]), None, &mut buf, &ExecOptions::single_thread()).unwrap();
    assert_eq!(buf.to_vec::<i32>().unwrap(), vec![3, 1]);
    let mut wrong = t(&[3], vec![0i32; 3]);
    assert!(matches!(
        slice_into(&data, &v(&[3]), &v(&[0]), &v(&[-2]), None, &mut wrong, &ExecOptions::single_thread()),
        Err(KernelError::OutputMismatch { .. })
    ));
}

/// Naive Slice: Python's rules written out, output element by element.
fn naive_slice(data: &[i32], shape: &[usize], bounds: &[(usize, i64, i64, i64)]) -> (Vec<usize>, Vec<i32>) {
    let mut picks: Vec<Vec<usize>> = shape.iter().map(|&d| (0..d).collect()).collect();
    for &(axis, b, e, s) in bounds {
        let d = shape[axis] as i64;
        let norm = |x: i64, lo: i64, hi: i64| (if x < 0 { x + d } else { x }).clamp(lo, hi);
        let mut list = Vec::new();
        if s > 0 {
            let (mut i, e) = (norm(b, 0, d), norm(e, 0, d));
            while i < e {
                list.push(i as usize);
                i += s;
            }
        } else {
            let (mut i, e) = (norm(b, -1, d - 1), norm(e, -1, d - 1));
            while i > e {
                list.push(i as usize);
                i += s;
            }
        }
        picks[axis] = list;
    }
    let out_shape: Vec<usize> = picks.iter().map(Vec::len).collect();
    let mut strides = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1];
    }
    let n: usize = out_shape.iter().product();
    let mut out = Vec::with_capacity(n);
    for flat in 0..n {
        let mut rest = flat;
        let mut src = 0;
        for k in (0..shape.len()).rev() {
            let i = rest % out_shape[k];
            rest /= out_shape[k];
            src += picks[k][i] * strides[k];
        }
        out.push(data[src]);
    }
    (out_shape, out)
}

proptest! {
    #[test]
    fn slice_matches_naive(
        shape in prop::collection::vec(0usize..5, 1..4),
        raw in prop::collection::vec((0usize..4, -7i64..7, -7i64..7, prop_oneof![-3i64..0, 1i64..4]), 0..4),
    ) {
        let rank = shape.len();
        let mut seen = Vec::new();
        let bounds: Vec<(usize, i64, i64, i64)> =
            raw.into_iter().map(|(a, b, e, s)| (a % rank, b, e, s)).filter(|x| {
                let fresh = !seen.contains(&x.0);
                seen.push(x.0);
                fresh
            }).collect();
        let data = iota(&shape);
        let values = data.to_vec::<i32>().unwrap();
        let pick = |f: fn(&(usize, i64, i64, i64)) -> i64| v(&bounds.iter().map(f).collect::<Vec<_>>());
        let axes = v(&bounds.iter().map(|x| x.0 as i64 - rank as i64).collect::<Vec<_>>());
        let out = slice(&data, &pick(|x| x.1), &pick(|x| x.2), &pick(|x| x.3), Some(&axes)).unwrap();
        let (expect_shape, expect) = naive_slice(&values, &shape, &bounds);
        prop_assert_eq!(out.shape(), &expect_shape[..]);
        prop_assert_eq!(out.to_vec::<i32>().unwrap(), expect);
    }
}
