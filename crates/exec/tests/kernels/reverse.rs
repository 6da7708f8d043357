use std::sync::Arc;

use ovir_exec::kernels::{reverse, reverse_into, ExecOptions, KernelError, ReverseScratch};
use ovir_shape::{ReverseMode, ShapeErrorKind};
use ovir_tensor::{ElementType, Tensor};

use crate::common::{iota, naive_reverse, ok, tensor, REFERENCE_TYPES};

/// Reverse's second input read as the executor reads it at run time:
/// with `ovir_shape`'s rule, into flags it owns.
fn reverse_axes(axes: &Tensor, mode: ReverseMode, rank: usize) -> Result<Vec<bool>, ShapeErrorKind> {
    let mut flags = vec![true; rank];
    ovir_shape::reversed_axes_into(mode, axes, &mut flags).map(|()| flags)
}

fn index_axes(flags: &[bool], negative: bool) -> Vec<i64> {
    let rank = flags.len() as i64;
    (0..rank).filter(|&a| flags[a as usize]).map(|a| if negative { a - rank } else { a }).collect()
}

/// OpenVINO's op_reference table: shapes {8}, {4,3} and {2,4,3} with data
/// 0..N-1, every subset of axes, in index and mask mode, for ten types.
#[test]
fn op_reference_table_every_axis_subset() {
    for shape in [&[8usize][..], &[4, 3], &[2, 4, 3]] {
        let rank = shape.len();
        for subset in 0..1u32 << rank {
            let flags: Vec<bool> = (0..rank).map(|a| subset & (1 << a) != 0).collect();
            let index = tensor(&[index_axes(&flags, false).len()], index_axes(&flags, false));
            let negative = tensor(&[index.len()], index_axes(&flags, true));
            let mask = tensor(&[rank], flags.clone());
            for ty in REFERENCE_TYPES {
                let data = iota(ty, shape);
                let expected = naive_reverse(&data, &flags);
                for (mode, axes) in [
                    (ReverseMode::Index, &index),
                    (ReverseMode::Index, &negative),
                    (ReverseMode::Mask, &mask),
                ] {
                    let read = ok(reverse_axes(axes, mode, rank));
                    assert_eq!(read, flags, "{shape:?} {mode} {axes:?}");
                    let got = ok(reverse(&data, &read));
                    assert_eq!(got, expected, "{ty} {shape:?} axes {flags:?}");
                }
            }
        }
    }
}

/// A few rows written out by hand, so the naive reference is itself pinned.
#[test]
fn hand_written_expectations() {
    let data = iota(ElementType::I32, &[4, 3]);
    let rows = ok(reverse(&data, &[true, false]));
    assert_eq!(rows.to_vec::<i32>().ok(), Some(vec![9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 1, 2]));
    let cols = ok(reverse(&data, &[false, true]));
    assert_eq!(cols.to_vec::<i32>().ok(), Some(vec![2, 1, 0, 5, 4, 3, 8, 7, 6, 11, 10, 9]));
    let data = iota(ElementType::U8, &[2, 4, 3]);
    let mid = ok(reverse(&data, &[false, true, false]));
    assert_eq!(
        mid.to_vec::<u8>().ok(),
        Some(vec![9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 1, 2, 21, 22, 23, 18, 19, 20, 15, 16, 17, 12, 13, 14])
    );
}

#[test]
fn index_axes_of_every_integer_width_are_read() {
    let expected = vec![true, false, true];
    let cases = [
        tensor(&[2], vec![0i8, -1]),
        tensor(&[2], vec![0i16, 2]),
        tensor(&[2], vec![-3i32, 2]),
        tensor(&[2], vec![0i64, -1]),
        tensor(&[2], vec![0u8, 2]),
        tensor(&[2], vec![0u16, 2]),
        tensor(&[2], vec![0u32, 2]),
        tensor(&[2], vec![2u64, 0]),
    ];
    for axes in cases {
        assert_eq!(ok(reverse_axes(&axes, ReverseMode::Index, 3)), expected, "{axes:?}");
    }
}

#[test]
fn duplicate_axes_reverse_once() {
    let axes = tensor(&[3], vec![1i32, 1, -2]);
    assert_eq!(ok(reverse_axes(&axes, ReverseMode::Index, 3)), vec![false, true, false]);
}

#[test]
fn nothing_reversed_is_zero_copy() {
    let data = iota(ElementType::F32, &[2, 3, 4]);
    let empty = tensor::<i64>(&[0], vec![]);
    let flags = ok(reverse_axes(&empty, ReverseMode::Index, 3));
    assert!(ok(reverse(&data, &flags)).shares_storage_with(&data));
    let mask = tensor(&[3], vec![false; 3]);
    let flags = ok(reverse_axes(&mask, ReverseMode::Mask, 3));
    assert!(ok(reverse(&data, &flags)).shares_storage_with(&data));
    // Axes of size 1 move nothing either.
    let data = iota(ElementType::I16, &[1, 5, 1]);
    assert!(ok(reverse(&data, &[true, false, true])).shares_storage_with(&data));
    let strings = iota(ElementType::String, &[3]);
    assert!(ok(reverse(&strings, &[false])).shares_storage_with(&strings));
}

#[test]
fn scalar_and_empty_tensors() {
    let scalar = tensor(&[], vec![7u32]);
    assert!(ok(reverse(&scalar, &[])).shares_storage_with(&scalar));
    let empty = iota(ElementType::F64, &[3, 0, 2]);
    assert_eq!(ok(reverse(&empty, &[true, true, true])), empty);
    let err = reverse_axes(&tensor(&[1], vec![0i32]), ReverseMode::Index, 0);
    assert_eq!(err, Err(ShapeErrorKind::AxesOutOfBounds { axes: vec![0], rank: 0 }));
}

#[test]
fn axes_out_of_range_name_every_axis_and_the_rank() {
    let axes = tensor(&[3], vec![0i64, 3, -1]);
    let err = reverse_axes(&axes, ReverseMode::Index, 3);
    // The axes in range are normalised, as the set the model names.
    assert_eq!(err, Err(ShapeErrorKind::AxesOutOfBounds { axes: vec![0, 2, 3], rank: 3 }));
    let message = err.err().map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(
        message,
        "some of the axes {0, 2, 3} are out of bounds for data of rank 3 (an axis must lie between -3 and 2)"
    );
    let out = |axes: Vec<i128>| Err(ShapeErrorKind::AxesOutOfBounds { axes, rank: 3 });
    assert_eq!(reverse_axes(&tensor(&[1], vec![-4i8]), ReverseMode::Index, 3), out(vec![-4]));
    assert_eq!(
        reverse_axes(&tensor(&[1], vec![u64::MAX]), ReverseMode::Index, 3),
        out(vec![u64::MAX.into()])
    );
    assert_eq!(
        reverse_axes(&tensor(&[1], vec![i64::MIN]), ReverseMode::Index, 3),
        out(vec![i64::MIN.into()])
    );
}

#[test]
fn axes_input_must_be_one_dimensional() {
    let not_vector = |shape: &str| Err(ShapeErrorKind::AxesNotVector { shape: shape.parse().unwrap() });
    let scalar = tensor(&[], vec![0i32]);
    assert_eq!(reverse_axes(&scalar, ReverseMode::Index, 2), not_vector("[]"));
    let matrix = tensor(&[1, 1], vec![0i32]);
    assert_eq!(reverse_axes(&matrix, ReverseMode::Index, 2), not_vector("1,1"));
    let mask = tensor(&[1, 2], vec![true, false]);
    assert_eq!(reverse_axes(&mask, ReverseMode::Mask, 2), not_vector("1,2"));
}

#[test]
fn axes_type_must_match_the_mode() {
    let real = tensor(&[1], vec![0.0f32]);
    assert_eq!(
        reverse_axes(&real, ReverseMode::Index, 2),
        Err(ShapeErrorKind::IndexAxesType { found: ElementType::F32 })
    );
    let boolean = tensor(&[2], vec![true, false]);
    assert_eq!(
        reverse_axes(&boolean, ReverseMode::Index, 2),
        Err(ShapeErrorKind::IndexAxesType { found: ElementType::Boolean })
    );
    let ints = tensor(&[2], vec![1u8, 0]);
    let err = reverse_axes(&ints, ReverseMode::Mask, 2);
    assert_eq!(err, Err(ShapeErrorKind::MaskAxesType { found: ElementType::U8 }));
    let message = err.err().map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(message, "in mask mode the axes input of Reverse must be boolean, but it is u8");
}

#[test]
fn mask_length_must_equal_rank() {
    let mask = tensor(&[2], vec![true, false]);
    assert_eq!(
        reverse_axes(&mask, ReverseMode::Mask, 3),
        Err(ShapeErrorKind::MaskLength { length: ovir_tensor::Dim::fixed(2), rank: 3 })
    );
    let data = iota(ElementType::I32, &[2, 2]);
    let err = reverse(&data, &[true]).err();
    assert_eq!(err, Some(KernelError::FlagCount { found: 1, rank: 2 }));
    let message = err.map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(message, "Reverse was given 1 axis flags, but the data has rank 2; it needs one per axis");
}

#[test]
fn packed_types_reverse_inside_the_byte() {
    // u4 keeps its first element in the low nibble: 1, 2, 3, 4, 5 are
    // 0x21 0x43 0x05, and reversed they are 5, 4, 3, 2, 1.
    let data = Tensor::from_bytes(ElementType::U4, &[5], &[0x21, 0x43, 0x05])
        .unwrap_or_else(|e| unreachable!("{e}"));
    assert_eq!(ok(reverse(&data, &[true])).bytes(), Some(&[0x45, 0x23, 0x01][..]));
    // u1 keeps its first element in the top bit.
    let data = Tensor::from_bytes(ElementType::U1, &[10], &[0b1100_0000, 0b0100_0000])
        .unwrap_or_else(|e| unreachable!("{e}"));
    assert_eq!(ok(reverse(&data, &[true])).bytes(), Some(&[0b1000_0000, 0b1100_0000][..]));
    // u3 packs 8 elements into 3 bytes; 1..=7, 0 reversed is 0, 7..=1.
    let data = Tensor::from_bytes(ElementType::U3, &[8], &[0x6c, 0x6c, 0x1e])
        .unwrap_or_else(|e| unreachable!("{e}"));
    let codes = ovir_tensor::packed::to_exchange(&ok(reverse(&data, &[true]))).to_vec::<u8>();
    assert_eq!(codes.ok(), Some(vec![0, 7, 6, 5, 4, 3, 2, 1]));
    let mut out = Tensor::zeros(ElementType::U3, &[8]).unwrap_or_else(|e| unreachable!("{e}"));
    ok(reverse_into(&data, &[true], &mut out, &ExecOptions::single_thread(), &mut ReverseScratch::new()));
    assert_eq!(out.bytes(), Some(&[0x39, 0x39, 0x78][..]));
}

#[test]
fn packed_no_op_shares_storage() {
    let data =
        Tensor::from_bytes(ElementType::I4, &[2, 2], &[0x21, 0x43]).unwrap_or_else(|e| unreachable!("{e}"));
    assert!(ok(reverse(&data, &[false, false])).shares_storage_with(&data));
    assert!(ok(reverse(&data, &[true, false])).bytes() == Some(&[0x43, 0x21][..]));
}

#[test]
fn eight_bit_floats_move_as_bytes() {
    for ty in [ElementType::F8e4m3, ElementType::F8e5m2, ElementType::F8e8m0] {
        let data = Tensor::from_bytes(ty, &[2, 2], &[0x00, 0x7f, 0x80, 0xff])
            .unwrap_or_else(|e| unreachable!("{e}"));
        let got = ok(reverse(&data, &[true, true]));
        assert_eq!((got.element_type(), got.bytes()), (ty, Some(&[0xff, 0x80, 0x7f, 0x00][..])));
    }
}

#[test]
fn strings_move_whole() {
    let data = iota(ElementType::String, &[2, 3]);
    let got = ok(reverse(&data, &[true, true]));
    let strings: Vec<&str> = got.strings().unwrap_or_default().iter().map(String::as_str).collect();
    assert_eq!(strings, ["s5", "s4", "s3", "s2", "s1", "s0"]);
}

#[test]
fn values_survive_bit_for_bit() {
    let big = (1u64 << 53) + 1;
    let data = tensor(&[3], vec![big, u64::MAX, big + 2]);
    assert_eq!(ok(reverse(&data, &[true])).to_vec::<u64>().ok(), Some(vec![big + 2, u64::MAX, big]));
    let data = tensor(&[2], vec![-(big as i64), i64::MIN]);
    assert_eq!(ok(reverse(&data, &[true])).to_vec::<i64>().ok(), Some(vec![i64::MIN, -(big as i64)]));
    let data = tensor(&[2], vec![(1u32 << 24) + 1, u32::MAX]);
    assert_eq!(ok(reverse(&data, &[true])).to_vec::<u32>().ok(), Some(vec![u32::MAX, (1 << 24) + 1]));
    let precise = 0.1f64;
    let data = tensor(&[2], vec![precise, 1.0 + f64::EPSILON]);
    assert_eq!(ok(reverse(&data, &[true])).to_vec::<f64>().ok(), Some(vec![1.0 + f64::EPSILON, precise]));
    let payload = f32::from_bits(0x7fc0_1234);
    let signalling = f64::from_bits(0x7ff0_0000_0000_0001);
    let data = tensor(&[2], vec![payload, 1.0]);
    let got = ok(reverse(&data, &[true])).to_vec::<f32>().unwrap_or_default();
    assert_eq!(got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), vec![1.0f32.to_bits(), 0x7fc0_1234]);
    let data = tensor(&[2], vec![signalling, -0.0]);
    let got = ok(reverse(&data, &[true])).to_vec::<f64>().unwrap_or_default();
    assert_eq!(
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        vec![(-0.0f64).to_bits(), 0x7ff0_0000_0000_0001]
    );
}

#[test]
fn unaligned_borrowed_bytes_are_read() {
    let mut raw = vec![0xAAu8];
    for v in [1u64, 2, 3] {
        raw.extend_from_slice(&v.to_le_bytes());
    }
    let owner: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(raw);
    let data =
        Tensor::from_shared(ElementType::U64, &[3], owner, 1..25).unwrap_or_else(|e| unreachable!("{e}"));
    assert_eq!(ok(reverse(&data, &[true])).to_vec::<u64>().ok(), Some(vec![3, 2, 1]));
}

#[test]
fn into_checks_the_output_and_reuses_its_buffer() {
    let data = iota(ElementType::I32, &[2, 3]);
    let mut wrong = Tensor::zeros(ElementType::F32, &[2, 3]).unwrap_or_else(|e| unreachable!("{e}"));
    let err = reverse_into(
        &data,
        &[true, false],
        &mut wrong,
        &ExecOptions::single_thread(),
        &mut ReverseScratch::new(),
    );
    assert!(matches!(err, Err(KernelError::OutputMismatch { found_ty: ElementType::F32, .. })), "{err:?}");
    let mut wrong = Tensor::zeros(ElementType::I32, &[3, 2]).unwrap_or_else(|e| unreachable!("{e}"));
    assert!(matches!(
        reverse_into(
            &data,
            &[true, false],
            &mut wrong,
            &ExecOptions::single_thread(),
            &mut ReverseScratch::new()
        ),
        Err(KernelError::OutputMismatch { .. })
    ));

    let mut out = Tensor::zeros(ElementType::I32, &[2, 3]).unwrap_or_else(|e| unreachable!("{e}"));
    let before = out.bytes().map(<[u8]>::as_ptr);
    ok(reverse_into(
        &data,
        &[true, true],
        &mut out,
        &ExecOptions::single_thread(),
        &mut ReverseScratch::new(),
    ));
    assert_eq!(out.bytes().map(<[u8]>::as_ptr), before);
    assert_eq!(out.to_vec::<i32>().ok(), Some(vec![5, 4, 3, 2, 1, 0]));
    ok(reverse_into(
        &data,
        &[false, false],
        &mut out,
        &ExecOptions::single_thread(),
        &mut ReverseScratch::new(),
    ));
    assert_eq!(out, data);
    assert!(!out.shares_storage_with(&data));

    let strings = iota(ElementType::String, &[3]);
    let mut out = Tensor::zeros(ElementType::String, &[3]).unwrap_or_else(|e| unreachable!("{e}"));
    ok(reverse_into(&strings, &[true], &mut out, &ExecOptions::single_thread(), &mut ReverseScratch::new()));
    assert_eq!(out.strings().map(|s| s.join(",")), Some("s2,s1,s0".to_owned()));
}

/// Where the elements after the last reversed axis make 2, 4, 8 or 16
/// bytes (the pixels of an image flipped left to right, say), they move
/// as one wider element: every element width, such blocks made of one
/// axis or of several (with an axis of one between them), reversed axes
/// before them alone, with forward ones between, or two apart, rows of 3
/// and 8 wide elements (the short rows' loops) and rows long enough for
/// the reversal loops, through `reverse` and through `reverse_into` on
/// one thread and split across three (chunks that start inside a row),
/// give what the naive copy gives.
#[test]
fn blocks_after_the_last_reversed_axis_move_as_one_element() {
    for ty in [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::U64] {
        let width = ty.byte_width().unwrap_or(1);
        for block in [2, 4, 8, 16] {
            let k = block / width;
            if k < 2 {
                continue;
            }
            let cases: [(Vec<usize>, Vec<bool>); 8] = [
                (vec![100, 3, k], vec![false, true, false]),
                (vec![50, 8, k], vec![false, true, false]),
                (vec![300, k], vec![true, false]),
                (vec![5, 300, k], vec![false, true, false]),
                (vec![3, 4, 50, k], vec![true, false, true, false]),
                (vec![7, 90, 2, k / 2], vec![true, true, false, false]),
                (vec![40, 2, 1, k / 2], vec![true, false, true, false]),
                (vec![2, 1000, k], vec![false, true, false]),
            ];
            for (shape, flags) in cases {
                let data = iota(ty, &shape);
                let expected = naive_reverse(&data, &flags);
                assert_eq!(ok(reverse(&data, &flags)), expected, "{ty} {shape:?} {flags:?}");
                for threads in [1, 3] {
                    let options = ExecOptions { threads, min_bytes_per_thread: 1 };
                    let mut out = Tensor::zeros(ty, &shape).unwrap_or_else(|e| unreachable!("{e}"));
                    ok(reverse_into(&data, &flags, &mut out, &options, &mut ReverseScratch::new()));
                    assert_eq!(out, expected, "{ty} {shape:?} {flags:?} on {threads} threads");
                }
            }
        }
    }
}
