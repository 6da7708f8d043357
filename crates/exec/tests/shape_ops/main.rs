//! Kernel tests for ShapeOf, Gather, Broadcast, Reshape, Squeeze,
//! Unsqueeze and Concat: cases after OpenVINO's op_reference tests, the
//! errors the kernels share with shape inference, strings, and property
//! tests of Gather and Broadcast against naive references.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ovir_exec::kernels::{
    broadcast, broadcast_into, concat, gather, gather_into, reshape, shape_of, squeeze, unsqueeze,
    KernelError,
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
    gather_into(&data, &indices, &scalar(0), 0, &mut out).unwrap();
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
