use ovir_exec::kernels::{
    reverse_sequence, reverse_sequence_checked_into, reverse_sequence_into, CheckedLengths, ExecOptions,
    KernelError, ReverseSequenceScratch,
};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{bf16, f16, Dim, ElementType, Tensor};

use crate::common::{iota, naive_reverse_sequence, ok, scrambled, tensor};

const TYPES: [ElementType; 6] = [
    ElementType::I8,
    ElementType::I32,
    ElementType::I64,
    ElementType::U8,
    ElementType::F16,
    ElementType::F32,
];

/// The lengths `[values]` as a tensor of each type ReverseSequence accepts.
fn lengths_as_every_type(values: &[u8]) -> Vec<Tensor> {
    let n = [values.len()];
    let v = values.iter().copied();
    vec![
        tensor(&n, v.clone().map(|x| x as i8).collect()),
        tensor(&n, v.clone().map(i16::from).collect()),
        tensor(&n, v.clone().map(i32::from).collect()),
        tensor(&n, v.clone().map(i64::from).collect()),
        tensor(&n, v.clone().collect::<Vec<u8>>()),
        tensor(&n, v.clone().map(u16::from).collect()),
        tensor(&n, v.clone().map(u32::from).collect()),
        tensor(&n, v.clone().map(u64::from).collect()),
        tensor(&n, v.clone().map(|x| f16::from_f32(f32::from(x))).collect()),
        tensor(&n, v.clone().map(|x| bf16::from_f32(f32::from(x))).collect()),
        tensor(&n, v.clone().map(f32::from).collect()),
        tensor(&n, v.map(f64::from).collect()),
    ]
}

/// OpenVINO's op_reference cases, with data 0..N-1.
#[test]
fn op_reference_cases() {
    let cases: [(&[usize], usize, usize, &[u8]); 6] = [
        (&[4, 4], 1, 0, &[4, 3, 2, 1]),
        (&[4, 4], 0, 1, &[1, 2, 3, 4]),
        (&[2, 3, 4, 2], 2, 1, &[1, 2, 1, 2]),
        (&[2, 3, 4, 2], 0, 2, &[1, 4]),
        (&[4, 2, 3, 2, 2], 0, 2, &[1, 2, 1, 2]),
        (&[2, 4, 2], 2, 1, &[0, 4]),
    ];
    for (shape, batch, seq, lens) in cases {
        let raw: Vec<usize> = lens.iter().map(|&x| usize::from(x)).collect();
        for ty in TYPES {
            let data = iota(ty, shape);
            let expected = naive_reverse_sequence(&data, &raw, batch, seq);
            for lengths in lengths_as_every_type(lens) {
                let got = ok(reverse_sequence(&data, &lengths, batch as i64, seq as i64));
                assert_eq!(got, expected, "{ty} {shape:?} batch {batch} seq {seq} {lengths:?}");
                let negative = (batch as i64 - shape.len() as i64, seq as i64 - shape.len() as i64);
                let got = ok(reverse_sequence(&data, &lengths, negative.0, negative.1));
                assert_eq!(got, expected, "negative axes {negative:?}");
            }
        }
    }
}

#[test]
fn hand_written_expectation() {
    let data = iota(ElementType::F32, &[4, 4]);
    let lengths = tensor(&[4], vec![4i32, 3, 2, 1]);
    let got = ok(reverse_sequence(&data, &lengths, 1, 0));
    let expected = [12.0f32, 9., 6., 3., 8., 5., 2., 7., 4., 1., 10., 11., 0., 13., 14., 15.];
    assert_eq!(got.to_vec::<f32>().ok(), Some(expected.to_vec()));
}

#[test]
fn real_lengths_truncate_toward_zero() {
    let data = iota(ElementType::I32, &[2, 4]);
    let lengths = tensor(&[2], vec![2.9f32, -0.5]);
    let got = ok(reverse_sequence(&data, &lengths, 0, 1));
    assert_eq!(got.to_vec::<i32>().ok(), Some(vec![1, 0, 2, 3, 4, 5, 6, 7]));
}

#[test]
fn short_lengths_are_zero_copy() {
    let data = iota(ElementType::U16, &[3, 5]);
    let lengths = tensor(&[3], vec![0i64, 1, 1]);
    assert!(ok(reverse_sequence(&data, &lengths, 0, 1)).shares_storage_with(&data));
}

/// The error of a broken rule of ReverseSequence, as the kernel gives it.
fn broken(kind: ShapeErrorKind) -> Option<KernelError> {
    Some(KernelError::Shape(kind))
}

/// A length out of range, as the load-time check reports it.
fn out_of_range(batch: usize, value: &str, max: u64) -> Option<KernelError> {
    broken(ShapeErrorKind::LengthOutOfRange { batch, value: value.to_string(), max })
}

#[test]
fn data_rank_must_be_two_or_more() {
    let data = iota(ElementType::I32, &[4]);
    let lengths = tensor(&[4], vec![1i32; 4]);
    let err = reverse_sequence(&data, &lengths, 0, 0).err();
    assert_eq!(err, broken(ShapeErrorKind::DataRankTooLow { shape: "4".parse().unwrap() }));
}

#[test]
fn axes_must_be_in_range() {
    let data = iota(ElementType::I32, &[2, 3]);
    let lengths = tensor(&[2], vec![1i32; 2]);
    let err = reverse_sequence(&data, &lengths, 2, 1).err();
    assert_eq!(err, broken(ShapeErrorKind::AxisOutOfRange { name: "batch_axis", axis: 2, rank: 2 }));
    assert_eq!(
        err.map(|e| e.to_string()).unwrap_or_default(),
        "`batch_axis` is 2, which is out of range for data of rank 2 (an axis must lie between -2 and 1)"
    );
    let err = reverse_sequence(&data, &lengths, 0, -3).err();
    assert_eq!(err, broken(ShapeErrorKind::AxisOutOfRange { name: "seq_axis", axis: -3, rank: 2 }));
    let err = reverse_sequence(&data, &lengths, i64::MIN, 1).err();
    assert!(matches!(
        err,
        Some(KernelError::Shape(ShapeErrorKind::AxisOutOfRange { name: "batch_axis", .. }))
    ));
}

#[test]
fn lengths_must_be_a_vector_of_numbers() {
    let data = iota(ElementType::I32, &[2, 3]);
    let matrix = tensor(&[1, 2], vec![1i32; 2]);
    assert_eq!(
        reverse_sequence(&data, &matrix, 0, 1).err(),
        broken(ShapeErrorKind::LengthsNotVector { shape: "1,2".parse().unwrap() })
    );
    let boolean = tensor(&[2], vec![true, false]);
    assert_eq!(
        reverse_sequence(&data, &boolean, 0, 1).err(),
        broken(ShapeErrorKind::LengthsType { found: ElementType::Boolean })
    );
    let strings = iota(ElementType::String, &[2]);
    assert_eq!(
        reverse_sequence(&data, &strings, 0, 1).err(),
        broken(ShapeErrorKind::LengthsType { found: ElementType::String })
    );
}

#[test]
fn lengths_count_must_match_the_batch_axis() {
    let data = iota(ElementType::I32, &[4, 3, 2]);
    let lengths = tensor(&[3], vec![1i32; 3]);
    let err = reverse_sequence(&data, &lengths, 0, 1).err();
    let (three, four) = (Dim::fixed(3), Dim::fixed(4));
    assert_eq!(err, broken(ShapeErrorKind::LengthsCount { lengths: three, batch: four, batch_axis: 0 }));
    assert_eq!(
        err.map(|e| e.to_string()).unwrap_or_default(),
        "the sequence lengths input has 3 elements, but the data's batch axis (0) has size 4; they must be equal"
    );
}

#[test]
fn length_above_the_sequence_axis_is_refused() {
    let data = iota(ElementType::I32, &[3, 4]);
    let lengths = tensor(&[3], vec![1i32, 4, 5]);
    let err = reverse_sequence(&data, &lengths, 0, 1).err();
    assert_eq!(err, out_of_range(2, "5", 4));
    assert_eq!(
        err.map(|e| e.to_string()).unwrap_or_default(),
        "sequence length 5 at batch index 2 is out of range: it must lie between 0 and 4, the size of the \
         sequence axis"
    );
    let huge = tensor(&[3], vec![u64::MAX, 0, 0]);
    assert_eq!(reverse_sequence(&data, &huge, 0, 1).err(), out_of_range(0, &u64::MAX.to_string(), 4));
    let infinite = tensor(&[3], vec![0.0f32, f32::INFINITY, 0.0]);
    assert_eq!(reverse_sequence(&data, &infinite, 0, 1).err(), out_of_range(1, "inf", 4));
    // A real length is reported as stored, before it is truncated.
    let fractional = tensor(&[3], vec![4.99f64, 0.0, 5.5]);
    assert_eq!(reverse_sequence(&data, &fractional, 0, 1).err(), out_of_range(2, "5.5", 4));
}

#[test]
fn negative_and_nan_lengths_are_refused() {
    let data = iota(ElementType::I32, &[3, 4]);
    let lengths = tensor(&[3], vec![1i8, -1, 2]);
    let err = reverse_sequence(&data, &lengths, 0, 1).err();
    assert_eq!(err, out_of_range(1, "-1", 4));
    let lengths = tensor(&[3], vec![1.0f32, 2.0, -1.5]);
    assert_eq!(reverse_sequence(&data, &lengths, 0, 1).err(), out_of_range(2, "-1.5", 4));
    // -0.5 truncates to 0, which is in range.
    let lengths = tensor(&[3], vec![1.0f32, 2.0, -0.5]);
    assert!(reverse_sequence(&data, &lengths, 0, 1).is_ok());
    let lengths = tensor(&[3], vec![1.0f32, f32::NAN, 2.0]);
    assert_eq!(reverse_sequence(&data, &lengths, 0, 1).err(), out_of_range(1, "NaN", 4));
}

#[test]
fn same_axes_only_with_lengths_up_to_one() {
    let data = iota(ElementType::I32, &[3, 4]);
    let lengths = tensor(&[3], vec![1i32, 0, 1]);
    assert!(ok(reverse_sequence(&data, &lengths, 0, 0)).shares_storage_with(&data));
    assert!(ok(reverse_sequence(&data, &lengths, -2, 0)).shares_storage_with(&data));
    let lengths = tensor(&[3], vec![1i32, 2, 1]);
    let err = reverse_sequence(&data, &lengths, 0, 0).err();
    assert_eq!(err, broken(ShapeErrorKind::SameSequenceAxes { axis: 0, batch: 1, value: 2 }));
}

#[test]
fn packed_types_reverse_inside_the_byte() {
    // i4 rows [1, 2, 3, 4] and [5, 6, 7, -1]: the low nibble comes first.
    let data = Tensor::from_bytes(ElementType::I4, &[2, 4], &[0x21, 0x43, 0x65, 0xf7])
        .unwrap_or_else(|e| unreachable!("{e}"));
    let lengths = tensor(&[2], vec![3i32, 4]);
    let got = ok(reverse_sequence(&data, &lengths, 0, 1));
    // [3, 2, 1, 4] and [-1, 7, 6, 5].
    assert_eq!(got.bytes(), Some(&[0x23, 0x41, 0x7f, 0x56][..]));
    let mut out = Tensor::zeros(ElementType::I4, &[2, 4]).unwrap_or_else(|e| unreachable!("{e}"));
    ok(reverse_sequence_into(
        &data,
        &lengths,
        0,
        1,
        &mut out,
        &ExecOptions::single_thread(),
        &mut ReverseSequenceScratch::new(),
    ));
    assert_eq!(out, got);
    // Lengths of a packed integer type work too.
    let lengths = Tensor::from_bytes(ElementType::U4, &[2], &[0x43]).unwrap_or_else(|e| unreachable!("{e}"));
    assert_eq!(ok(reverse_sequence(&data, &lengths, 0, 1)), got);
}

#[test]
fn eight_bit_floats_move_as_bytes() {
    let data = Tensor::from_bytes(ElementType::F8e4m3, &[1, 3], &[0x01, 0x7f, 0x80])
        .unwrap_or_else(|e| unreachable!("{e}"));
    let got = ok(reverse_sequence(&data, &tensor(&[1], vec![3u8]), 0, 1));
    assert_eq!(got.bytes(), Some(&[0x80, 0x7f, 0x01][..]));
}

#[test]
fn strings_move_whole() {
    let data = iota(ElementType::String, &[2, 3]);
    let lengths = tensor(&[2], vec![3i64, 2]);
    let got = ok(reverse_sequence(&data, &lengths, 0, 1));
    assert_eq!(got.strings().map(|s| s.join(",")), Some("s2,s1,s0,s4,s3,s5".to_owned()));
}

#[test]
fn values_survive_bit_for_bit() {
    let big = (1i64 << 53) + 1;
    let data = tensor(&[1, 3], vec![big, i64::MAX, -big]);
    let lengths = tensor(&[1], vec![3i32]);
    let got = ok(reverse_sequence(&data, &lengths, 0, 1));
    assert_eq!(got.to_vec::<i64>().ok(), Some(vec![-big, i64::MAX, big]));
    let data = tensor(&[1, 2], vec![(1u32 << 24) + 1, (1 << 24) + 3]);
    let got = ok(reverse_sequence(&data, &tensor(&[1], vec![2u8]), 0, 1));
    assert_eq!(got.to_vec::<u32>().ok(), Some(vec![(1 << 24) + 3, (1 << 24) + 1]));
    let data = tensor(&[2, 1], vec![0.1f64, f64::from_bits(0x7ff8_0000_0000_00ff)]);
    let got = ok(reverse_sequence(&data, &tensor(&[1], vec![2u8]), 1, 0));
    let bits: Vec<u64> = got.to_vec::<f64>().unwrap_or_default().iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, vec![0x7ff8_0000_0000_00ff, 0.1f64.to_bits()]);
}

#[test]
fn into_checks_the_output_and_reuses_its_buffer() {
    let data = iota(ElementType::I16, &[2, 3]);
    let lengths = tensor(&[2], vec![3i32, 0]);
    let mut wrong = Tensor::zeros(ElementType::I16, &[6]).unwrap_or_else(|e| unreachable!("{e}"));
    assert!(matches!(
        reverse_sequence_into(
            &data,
            &lengths,
            0,
            1,
            &mut wrong,
            &ExecOptions::single_thread(),
            &mut ReverseSequenceScratch::new()
        ),
        Err(KernelError::OutputMismatch { .. })
    ));
    let mut out = Tensor::zeros(ElementType::I16, &[2, 3]).unwrap_or_else(|e| unreachable!("{e}"));
    let before = out.bytes().map(<[u8]>::as_ptr);
    ok(reverse_sequence_into(
        &data,
        &lengths,
        0,
        1,
        &mut out,
        &ExecOptions::single_thread(),
        &mut ReverseSequenceScratch::new(),
    ));
    assert_eq!(out.bytes().map(<[u8]>::as_ptr), before);
    assert_eq!(out.to_vec::<i16>().ok(), Some(vec![2, 1, 0, 3, 4, 5]));
    let ones = tensor(&[2], vec![1i32, 1]);
    ok(reverse_sequence_into(
        &data,
        &ones,
        0,
        1,
        &mut out,
        &ExecOptions::single_thread(),
        &mut ReverseSequenceScratch::new(),
    ));
    assert_eq!(out, data);
}

#[test]
fn rows_of_different_lengths_match_the_reference() {
    // Batch 0, sequence 1: every row has its own length, so the kernel
    // writes all rows as one stretch with a head length per row; rows of
    // whole 16-byte blocks take the SIMD path, the others the general one.
    for ty in [ElementType::U8, ElementType::F16, ElementType::F32, ElementType::I64] {
        for row in [3usize, 4, 8, 16, 24, 128] {
            let rows = 67;
            let data = iota(ty, &[rows, row]);
            let values: Vec<usize> = (0..rows).map(|r| (r * 5 + r / 4) % (row + 1)).collect();
            let lengths = tensor(&[rows], values.iter().map(|&v| v as i64).collect());
            let expected = naive_reverse_sequence(&data, &values, 0, 1);
            assert_eq!(ok(reverse_sequence(&data, &lengths, 0, 1)), expected, "{ty} row {row}");
            // Split across threads at any element: a chunk boundary may
            // fall inside a row.
            let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
            let mut out = Tensor::zeros(ty, &[rows, row]).unwrap_or_else(|e| unreachable!("{e}"));
            ok(reverse_sequence_into(
                &data,
                &lengths,
                0,
                1,
                &mut out,
                &options,
                &mut ReverseSequenceScratch::new(),
            ));
            assert_eq!(out, expected, "{ty} row {row}, 3 threads");
        }
    }
}

#[test]
fn a_reused_scratch_gives_the_same_results() {
    let data = iota(ElementType::F32, &[5, 8]);
    let mut scratch = ReverseSequenceScratch::new();
    let mut out = Tensor::zeros(ElementType::F32, &[5, 8]).unwrap_or_else(|e| unreachable!("{e}"));
    let options = ExecOptions::single_thread();
    // A longer batch first, then a shorter one: nothing of the first may
    // leak into the second.
    let long = tensor(&[8], vec![5u8; 8]);
    let swapped = iota(ElementType::F32, &[8, 5]);
    let mut wide = Tensor::zeros(ElementType::F32, &[8, 5]).unwrap_or_else(|e| unreachable!("{e}"));
    ok(reverse_sequence_into(&swapped, &long, 0, 1, &mut wide, &options, &mut scratch));
    assert_eq!(wide, naive_reverse_sequence(&swapped, &[5; 8], 0, 1));
    let short = tensor(&[5], vec![2.9f32, 8.0, 0.0, 1.0, 7.5]);
    ok(reverse_sequence_into(&data, &short, 0, 1, &mut out, &options, &mut scratch));
    assert_eq!(out, naive_reverse_sequence(&data, &[2, 8, 0, 1, 7], 0, 1));
    // Errors are the same as without a scratch.
    let negative = tensor(&[5], vec![1i8, -3, 0, 0, 0]);
    assert!(matches!(
        reverse_sequence_into(&data, &negative, 0, 1, &mut out, &options, &mut scratch),
        Err(KernelError::Shape(ShapeErrorKind::LengthOutOfRange { batch: 1, .. }))
    ));
}

/// Lengths checked once, as a plan does for constant lengths, give what
/// reading them on every run gives: OpenVINO's cases with lengths of every
/// type (those used where they are stored and those read), packed data,
/// rows of a length each on three threads, and data of other sizes, which
/// read the lengths again.
#[test]
fn lengths_checked_once_give_what_reading_them_gives() {
    let cases: [(&[usize], usize, usize, &[u8]); 5] = [
        (&[4, 4], 1, 0, &[4, 3, 2, 1]),
        (&[4, 4], 0, 1, &[1, 2, 3, 4]),
        (&[2, 3, 4, 2], 2, 1, &[1, 2, 1, 2]),
        (&[4, 2, 3, 2, 2], 0, 2, &[1, 2, 1, 2]),
        (&[2, 4, 2], 2, 1, &[0, 0]),
    ];
    let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
    for (shape, batch, seq, lens) in cases {
        let raw: Vec<usize> = lens.iter().map(|&x| usize::from(x)).collect();
        for ty in [ElementType::I8, ElementType::F32, ElementType::I64, ElementType::String] {
            let data = iota(ty, shape);
            let expected = naive_reverse_sequence(&data, &raw, batch, seq);
            for lengths in lengths_as_every_type(lens) {
                let checked = ok(CheckedLengths::new(&lengths, shape, batch as i64, seq as i64)).unwrap();
                let mut out = Tensor::zeros(ty, shape).unwrap_or_else(|e| unreachable!("{e}"));
                let (b, s) = (batch as i64, seq as i64);
                ok(reverse_sequence_checked_into(
                    &data,
                    &checked,
                    b,
                    s,
                    &mut out,
                    &options,
                    &mut ReverseSequenceScratch::new(),
                ));
                assert_eq!(out, expected, "{ty} {shape:?} batch {batch} seq {seq} {lengths:?}");
            }
        }
    }
    // Packed `i4` rows [1, 2, 3, 4] and [5, 6, 7, -1], the low nibble
    // first: [3, 2, 1, 4] and [-1, 7, 6, 5].
    let data = Tensor::from_bytes(ElementType::I4, &[2, 4], &[0x21, 0x43, 0x65, 0xf7])
        .unwrap_or_else(|e| unreachable!("{e}"));
    let checked = ok(CheckedLengths::new(&tensor(&[2], vec![3i32, 4]), &[2, 4], 0, 1)).unwrap();
    let mut out = Tensor::zeros(ElementType::I4, &[2, 4]).unwrap_or_else(|e| unreachable!("{e}"));
    ok(reverse_sequence_checked_into(
        &data,
        &checked,
        0,
        1,
        &mut out,
        &options,
        &mut ReverseSequenceScratch::new(),
    ));
    assert_eq!(out.bytes(), Some(&[0x23, 0x41, 0x7f, 0x56][..]));
    for ty in [ElementType::U8, ElementType::F32] {
        let (rows, row) = (67, 24);
        let data = iota(ty, &[rows, row]);
        let values: Vec<usize> = (0..rows).map(|r| (r * 5 + r / 4) % (row + 1)).collect();
        let expected = naive_reverse_sequence(&data, &values, 0, 1);
        for lengths in [
            tensor(&[rows], values.iter().map(|&v| v as i32).collect()),
            tensor(&[rows], values.iter().map(|&v| v as i64).collect()),
        ] {
            let checked = ok(CheckedLengths::new(&lengths, &[rows, row], 0, 1)).unwrap();
            let mut out = Tensor::zeros(ty, &[rows, row]).unwrap_or_else(|e| unreachable!("{e}"));
            ok(reverse_sequence_checked_into(
                &data,
                &checked,
                0,
                1,
                &mut out,
                &options,
                &mut ReverseSequenceScratch::new(),
            ));
            assert_eq!(out, expected, "{ty} rows of {row}, {lengths:?}");
            // Longer rows than checked for: the lengths are read again.
            let longer = iota(ty, &[rows, row + 3]);
            let mut out = Tensor::zeros(ty, &[rows, row + 3]).unwrap_or_else(|e| unreachable!("{e}"));
            ok(reverse_sequence_checked_into(
                &longer,
                &checked,
                0,
                1,
                &mut out,
                &options,
                &mut ReverseSequenceScratch::new(),
            ));
            assert_eq!(out, naive_reverse_sequence(&longer, &values, 0, 1), "{ty} rows of {}", row + 3);
            // Shorter ones, where some lengths no longer fit, are refused
            // as they would be when read.
            let shorter = iota(ty, &[rows, row - 1]);
            let mut out = Tensor::zeros(ty, &[rows, row - 1]).unwrap_or_else(|e| unreachable!("{e}"));
            let err = reverse_sequence_checked_into(
                &shorter,
                &checked,
                0,
                1,
                &mut out,
                &options,
                &mut ReverseSequenceScratch::new(),
            );
            assert!(
                matches!(err, Err(KernelError::Shape(ShapeErrorKind::LengthOutOfRange { .. }))),
                "{err:?}"
            );
        }
    }
    // Rows of 2 to 16 bytes, a power of two, and of 17 to 31, which read
    // the checked lengths a byte each: thousands of rows, on three
    // threads, with every length.
    for (ty, row) in [
        (ElementType::U8, 2),
        (ElementType::U8, 4),
        (ElementType::U8, 8),
        (ElementType::U8, 16),
        (ElementType::F16, 8),
        (ElementType::F32, 4),
        (ElementType::I64, 2),
        (ElementType::U8, 17),
        (ElementType::U8, 24),
        (ElementType::U8, 31),
        (ElementType::F16, 10),
        (ElementType::F32, 6),
        (ElementType::F32, 7),
        (ElementType::I64, 3),
    ] {
        let rows = 3001;
        let data = iota(ty, &[rows, row]);
        let values: Vec<usize> = (0..rows).map(|r| (r * 7 + r / 5) % (row + 1)).collect();
        let expected = naive_reverse_sequence(&data, &values, 0, 1);
        let lengths = tensor(&[rows], values.iter().map(|&v| v as i64).collect());
        let checked = ok(CheckedLengths::new(&lengths, &[rows, row], 0, 1)).unwrap();
        let mut out = Tensor::zeros(ty, &[rows, row]).unwrap_or_else(|e| unreachable!("{e}"));
        ok(reverse_sequence_checked_into(
            &data,
            &checked,
            0,
            1,
            &mut out,
            &options,
            &mut ReverseSequenceScratch::new(),
        ));
        assert_eq!(out, expected, "{ty} rows of {row}");
    }
}

/// A scratch kept from call to call, as a compiled model keeps one, keeps
/// the heads or line lengths written from checked lengths for the next
/// call with the same lengths and layout. A call with other lengths, or
/// with the same ones laid out otherwise (the axes elsewhere, other
/// elements after them, which may move as one wider element), must write
/// its own: every call of a series on one scratch gives the naive copy.
/// Sequences of 8 positions take the byte heads and line lengths, of 300
/// the 32-bit ones.
#[test]
fn what_is_kept_from_checked_lengths_follows_the_lengths_and_the_layout() {
    for (seq_size, batches) in [(8, 40), (300, 40)] {
        let first: Vec<usize> = (0..batches).map(|b| (b * 7 + b / 3) % (seq_size + 1)).collect();
        let second: Vec<usize> = (0..batches).map(|b| (b * 5 + 3) % (seq_size + 1)).collect();
        let checked = |values: &[usize]| {
            let lengths = tensor(&[batches], values.iter().map(|&v| v as i32).collect());
            ok(CheckedLengths::new(&lengths, &[batches, seq_size], 0, 1)).unwrap()
        };
        let (a, b) = (checked(&first), checked(&second));
        // (type, shape, batch axis, sequence axis). Time-major: lines of
        // 1, 2, 4 and 8 bytes, from one element or from a block that moves
        // as one or as several (`u8` [T, B, 2] and `i16` [T, B] share their
        // layout; on 300 positions, blocks of 16 bytes move as two of 8
        // through the lines with AVX2, and blocks of 12 as three of 4 a
        // block at a time); 3 bytes after the batch axis, then 3 indices
        // between the axes, which make as many lines of one length; an
        // axis before. Then the batch axis first: runs of 2 rows sharing
        // a length, then of 3, and rows with a length each, which keep
        // nothing.
        let layouts: [(ElementType, &[usize], usize, usize); 13] = [
            (ElementType::U8, &[seq_size, batches, 2], 1, 0),
            (ElementType::I16, &[seq_size, batches], 1, 0),
            (ElementType::U8, &[seq_size, batches], 1, 0),
            (ElementType::U8, &[seq_size, batches, 4], 1, 0),
            (ElementType::U8, &[seq_size, batches, 16], 1, 0),
            (ElementType::U8, &[seq_size, batches, 12], 1, 0),
            (ElementType::U8, &[seq_size, batches, 3], 1, 0),
            (ElementType::U8, &[seq_size, 3, batches], 2, 0),
            (ElementType::F32, &[2, seq_size, batches], 2, 1),
            (ElementType::I8, &[batches, 2, seq_size], 0, 2),
            (ElementType::I8, &[batches, 3, seq_size], 0, 2),
            (ElementType::U8, &[batches, seq_size, 2], 0, 1),
            (ElementType::F32, &[batches, seq_size], 0, 1),
        ];
        let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        let scratch = &mut ReverseSequenceScratch::new();
        for (ty, shape, batch, seq) in layouts {
            let data = iota(ty, shape);
            for (checked, values, name) in
                [(&a, &first, "a"), (&a, &first, "a"), (&b, &second, "b"), (&a, &first, "a")]
            {
                let mut out = Tensor::zeros(ty, shape).unwrap_or_else(|e| unreachable!("{e}"));
                let (bx, sx) = (batch as i64, seq as i64);
                ok(reverse_sequence_checked_into(&data, checked, bx, sx, &mut out, &options, scratch));
                let expected = naive_reverse_sequence(&data, values, batch, seq);
                assert_eq!(out, expected, "{ty} {shape:?} batch {batch} seq {seq}, lengths {name}");
            }
        }
    }
}

#[test]
fn lengths_checked_once_are_refused_as_when_read() {
    let negative = tensor(&[3], vec![1i32, -2, 0]);
    let err = |lengths: &Tensor, shape: &[usize]| CheckedLengths::new(lengths, shape, 0, 1).err();
    assert_eq!(err(&negative, &[3, 4]), out_of_range(1, "-2", 4));
    let long = tensor(&[3], vec![1i64, 5, 0]);
    assert_eq!(err(&long, &[3, 4]), out_of_range(1, "5", 4));
    let count = tensor(&[2], vec![1i32, 2]);
    let (two, three) = (Dim::fixed(2), Dim::fixed(3));
    assert_eq!(
        err(&count, &[3, 4]),
        broken(ShapeErrorKind::LengthsCount { lengths: two, batch: three, batch_axis: 0 })
    );
    // The axes are checked against the shape the lengths are checked for.
    assert_eq!(err(&count, &[2]), broken(ShapeErrorKind::DataRankTooLow { shape: "2".parse().unwrap() }));
    assert_eq!(
        CheckedLengths::new(&count, &[2, 4], 0, 2).err(),
        broken(ShapeErrorKind::AxisOutOfRange { name: "seq_axis", axis: 2, rank: 2 })
    );
    // Sequences too long for 32-bit counts read their lengths every run.
    assert!(ok(CheckedLengths::new(&count, &[2, usize::MAX], 0, 1)).is_none());
}

/// Where ReverseSequence's own runs would be short it plays the data
/// otherwise: rows along the sequence axis that share their batch index's
/// length in runs of a few rows (axes between the batch and sequence
/// axes) with a head per row, and a few elements after the sequence axis
/// as ReverseSubsequences' lines or a block at a time. Every shape,
/// element width, kind of lengths (stored 32-bit, read, checked once),
/// single and uniform lengths, and thread split gives what the naive copy
/// gives:
/// - runs of 2, 3 and 4 rows and of other counts, heads kept a byte each
///   (rows of 2 to 16 bytes) and 32-bit, several outer indices, and long
///   runs (which keep one run a batch index);
/// - the sequence axis first (a length per block of a few elements),
///   with axes before, between and after, on up to 8 rows (line lengths
///   kept a byte each) and more, as lines (with 2, 4 or 8 bytes after the
///   batch axis as one element) and a block at a time;
/// - the batch axis before the sequence axis with a few elements after it,
///   a block at a time, a group of registers at a time where the blocks
///   are whole 4-byte words (one sequence of 64 or 96 bytes, two of 48,
///   four of 24, some left over, or one of 36 to 92 bytes spilling into
///   the next), a register at a time from windows where blocks of 12,
///   20, 24 or 28 bytes make sequences longer than 96 bytes, a move per
///   block for the other blocks of up to 64 bytes in rows of up to 256
///   (all such rows without the x86 loops), and with 2, 4, 8 or 16 bytes
///   after it, which move as one element.
#[test]
fn short_runs_of_rows_sharing_a_length_match_the_naive_copy() {
    let cases: [(ElementType, &[usize], usize, usize); 117] = [
        (ElementType::F32, &[1500, 2, 6], 0, 2),
        (ElementType::U8, &[2, 700, 2, 8], 1, 3),
        (ElementType::I16, &[3, 400, 4, 4], 1, 3),
        (ElementType::I8, &[900, 5, 12], 0, 2),
        (ElementType::I64, &[1000, 3, 3], 0, 2),
        (ElementType::U8, &[600, 7, 16], 0, 2),
        (ElementType::I32, &[2, 300, 2, 3, 5], 1, 4),
        (ElementType::U8, &[40, 2, 1, 9], 0, 3),
        (ElementType::F32, &[20, 300, 6], 0, 2),
        (ElementType::F32, &[300, 40], 1, 0),
        (ElementType::U8, &[6, 200, 3], 1, 0),
        (ElementType::I16, &[3, 5, 64, 2], 2, 1),
        (ElementType::F16, &[7, 3, 40, 2], 2, 0),
        (ElementType::F32, &[500, 8, 3], 0, 1),
        (ElementType::I8, &[2, 300, 4, 2], 1, 2),
        (ElementType::I64, &[2, 50, 3, 6, 2], 1, 3),
        (ElementType::F32, &[40, 3, 5, 2], 0, 2),
        (ElementType::I16, &[300, 4, 4], 0, 1),
        (ElementType::I8, &[1000, 2, 8], 0, 1),
        (ElementType::U8, &[700, 16, 3], 0, 1),
        (ElementType::I8, &[500, 3, 4, 2], 0, 2),
        (ElementType::F32, &[1, 4, 6], 0, 2),
        (ElementType::F32, &[40, 1, 3], 1, 0),
        (ElementType::I32, &[2, 7, 3, 40, 2], 3, 1),
        (ElementType::F32, &[9, 1000], 1, 0),
        // The sequence axis first with longer stretches: a block at a
        // time, with axes before and between (80, 100 and 24 bytes); and
        // runs fetched ahead, with more runs than the writer holds back
        // (stretches of 300 bytes, axes before and between).
        (ElementType::F32, &[70, 30, 20], 1, 0),
        (ElementType::U8, &[9, 50, 100], 1, 0),
        (ElementType::I16, &[3, 80, 4, 5, 12], 3, 1),
        (ElementType::I16, &[2, 30, 3, 5, 150], 3, 1),
        // Either side of the lines' limits, the rest a block at a time:
        // 64-byte stretches on 8 positions (lines) and on 9 (blocks);
        // 16-byte ones on 64 (lines) and 65 (blocks); 8-byte ones on 100
        // (lines) and 12- and 20-byte ones (blocks).
        (ElementType::U8, &[8, 40, 63], 1, 0),
        (ElementType::U8, &[9, 40, 64], 1, 0),
        (ElementType::F32, &[64, 30, 4], 1, 0),
        (ElementType::F32, &[65, 30, 4], 1, 0),
        (ElementType::F32, &[100, 30, 2], 1, 0),
        (ElementType::F32, &[100, 30, 3], 1, 0),
        (ElementType::F32, &[100, 30, 5], 1, 0),
        // Blocks of 32 and 256 bytes; and positions of over 64 KiB, whose
        // blocks are asked for further along the same position.
        (ElementType::F32, &[300, 20, 8], 1, 0),
        (ElementType::F32, &[20, 9, 64], 1, 0),
        (ElementType::U8, &[3, 1100, 64], 1, 0),
        // Time-major with an element per batch index and position, on
        // axes the staged lines take: 4 bytes where the gathers cannot
        // stage the axis and on 100 positions of 1100 batch indices, 8
        // where the gathers cannot stage it, 2 and 1 past the strips;
        // half a group of columns left over (4, 4, 2, 8 and 16), and tiles
        // of 192 and 64 columns of 2 bytes.
        (ElementType::F32, &[2100, 36], 1, 0),
        (ElementType::F32, &[100, 1100], 1, 0),
        (ElementType::I64, &[2100, 14], 1, 0),
        (ElementType::F16, &[300, 264], 1, 0),
        (ElementType::U8, &[300, 80], 1, 0),
        // The batch axis first, a block at a time: blocks of sizes
        // compiled in (24, 7, 32 and 48 bytes) and not (11, 9 and 40), on
        // rows shorter than 256 bytes (one loop), of 256 bytes and longer
        // (the head read upwards), with axes before and between; and rows
        // of 32 KiB, the longest taken, and one block more, which goes as
        // runs. Blocks of 16 bytes move as one element instead: on rows
        // of 32, 48, 80, 128 and 256 bytes, of 1600 bytes, and of over
        // 32 KiB.
        (ElementType::F32, &[300, 8, 4], 0, 1),
        (ElementType::F32, &[200, 5, 6], 0, 1),
        (ElementType::U8, &[150, 20, 11], 0, 1),
        (ElementType::F32, &[100, 16, 4], 0, 1),
        (ElementType::F32, &[100, 8, 8], 0, 1),
        (ElementType::F32, &[300, 2, 4], 0, 1),
        (ElementType::F32, &[300, 3, 4], 0, 1),
        (ElementType::I64, &[200, 5, 2], 0, 1),
        (ElementType::U8, &[40, 100, 16], 0, 1),
        (ElementType::F32, &[5, 2100, 4], 0, 1),
        // The sequence axis first with 2, 4 or 8 bytes after the batch
        // axis, which move as one element through the lines: on up to 8
        // positions (lengths kept a byte each; 2-, 4- and 8-byte
        // elements), on up to 64, on 100 (2-byte elements in strips) and
        // on more (staged lines of 2 and 4 bytes, gathers), with axes
        // before and between.
        (ElementType::U8, &[8, 40, 4], 1, 0),
        (ElementType::U8, &[8, 40, 2], 1, 0),
        (ElementType::I16, &[50, 30, 2], 1, 0),
        (ElementType::U8, &[300, 40, 2], 1, 0),
        (ElementType::U8, &[6, 30, 8], 1, 0),
        (ElementType::F16, &[2, 70, 3, 20, 2], 3, 1),
        (ElementType::I8, &[3, 100, 60, 4], 2, 1),
        (ElementType::U8, &[100, 40, 2], 1, 0),
        (ElementType::U8, &[300, 300, 2], 1, 0),
        (ElementType::I16, &[2100, 36, 2], 1, 0),
        (ElementType::U8, &[100, 30, 7], 0, 1),
        (ElementType::U8, &[200, 40, 9], 0, 1),
        (ElementType::I16, &[4, 3, 70, 24], 1, 2),
        (ElementType::F32, &[3, 20, 2, 30, 10], 1, 3),
        (ElementType::F32, &[6, 512, 16], 0, 1),
        (ElementType::F32, &[6, 513, 16], 0, 1),
        // Time-major blocks of 12 and 16 bytes on axes the staged lines
        // take: 12 bytes over more than 2048 positions as 4-byte lines
        // (from `f32`, `i16` and `u8`, and with axes before and between),
        // 16 bytes over 100 as 8-byte lines (from `u8`, `f32`, and `i16`
        // with axes between); and 20 bytes of `f32` and 24 of `i64` on the
        // same axes, a block at a time.
        (ElementType::F32, &[2100, 12, 3], 1, 0),
        (ElementType::I16, &[2100, 8, 6], 1, 0),
        (ElementType::U8, &[2100, 10, 12], 1, 0),
        (ElementType::F32, &[2, 2100, 4, 3], 2, 1),
        (ElementType::U8, &[100, 90, 16], 1, 0),
        (ElementType::F32, &[100, 90, 4], 1, 0),
        (ElementType::I16, &[100, 3, 30, 8], 2, 0),
        (ElementType::F32, &[2100, 6, 5], 1, 0),
        (ElementType::I64, &[100, 90, 3], 1, 0),
        // The same blocks of narrower elements on 9 to 64 positions: 12
        // bytes of `u8` and 16 of `u8` and `i16`, as 4- and 8-byte lines.
        (ElementType::U8, &[16, 40, 12], 1, 0),
        (ElementType::U8, &[12, 30, 16], 1, 0),
        (ElementType::I16, &[32, 20, 8], 1, 0),
        // The batch axis first, sequences of 64 or 96 bytes of blocks of
        // whole 4-byte words, a row at a time: blocks of 12 bytes from
        // `i16` and `u8`, of 24, 32 and 48 bytes in rows of 96, of 32 in
        // rows of 64 (from `i8` too), and with axes before and between,
        // five rows to a batch index, where the threads' chunks start
        // inside a batch index's rows (12-byte blocks) and inside a row
        // (32-byte blocks; chunks are whole multiples of 64 blocks, so
        // they start inside a row only where the sequence does not divide
        // 64). Sequences of 48 and 24 bytes of 12-byte blocks, two and four
        // at a time, with a row or three left over (from `f32`, `u8` and
        // `i16`), and groups that straddle batch indices. Sequences of 60,
        // 72 and 84 bytes, one at a time in the registers they reach into
        // (12-byte blocks from `f32`, `u8` and `i16`, 20-byte ones),
        // chunks starting inside them, and with axes before and between.
        (ElementType::I16, &[300, 8, 6], 0, 1),
        (ElementType::U8, &[250, 8, 12], 0, 1),
        (ElementType::F32, &[300, 4, 6], 0, 1),
        (ElementType::F32, &[300, 3, 8], 0, 1),
        (ElementType::F32, &[300, 2, 12], 0, 1),
        (ElementType::F32, &[300, 2, 8], 0, 1),
        (ElementType::I8, &[300, 2, 32], 0, 1),
        (ElementType::F32, &[3, 70, 5, 8, 3], 1, 3),
        (ElementType::F32, &[2, 40, 5, 3, 8], 1, 3),
        (ElementType::F32, &[301, 4, 3], 0, 1),
        (ElementType::U8, &[251, 4, 12], 0, 1),
        (ElementType::F32, &[303, 2, 3], 0, 1),
        (ElementType::I16, &[301, 2, 6], 0, 1),
        (ElementType::F32, &[2, 35, 3, 2, 3], 1, 3),
        (ElementType::F32, &[301, 5, 3], 0, 1),
        (ElementType::F32, &[299, 7, 3], 0, 1),
        (ElementType::U8, &[251, 6, 12], 0, 1),
        (ElementType::F32, &[301, 3, 5], 0, 1),
        (ElementType::I16, &[2, 40, 3, 5, 6], 1, 3),
        // Sequences longer than 96 bytes of blocks of 12, 20, 24 and 28
        // bytes, a register at a time from windows: 192 bytes of `f32`
        // (whole registers), 108 of `u8` (spilling into the next, chunks
        // starting inside them), 1200 (more than 16 registers), 140 of
        // 20- and 28-byte blocks, 288 of 24-byte blocks of `i16`, and 132
        // with axes before and between.
        (ElementType::F32, &[200, 16, 3], 0, 1),
        (ElementType::U8, &[150, 9, 12], 0, 1),
        (ElementType::F32, &[40, 100, 3], 0, 1),
        (ElementType::F32, &[150, 7, 5], 0, 1),
        (ElementType::F32, &[100, 5, 7], 0, 1),
        (ElementType::I16, &[120, 12, 12], 0, 1),
        (ElementType::F32, &[2, 30, 3, 11, 3], 1, 3),
        // Rows the portable loop moves a block at a time, where the x86
        // word loops do not take them (and all of them in the portable
        // build): blocks of 3, 5, 6 and 7 bytes (`u8`, and 6 of `f16`),
        // of 20 bytes in rows of 80, of 64 in rows of 192, and of 32 in
        // rows of 256 (the longest) and 288 (the block walk), chunks
        // starting inside them, with axes before and between.
        (ElementType::U8, &[301, 8, 3], 0, 1),
        (ElementType::U8, &[250, 6, 5], 0, 1),
        (ElementType::F16, &[299, 8, 3], 0, 1),
        (ElementType::U8, &[300, 3, 7], 0, 1),
        (ElementType::F32, &[301, 4, 5], 0, 1),
        (ElementType::F32, &[101, 3, 16], 0, 1),
        (ElementType::I16, &[97, 8, 16], 0, 1),
        (ElementType::F32, &[100, 9, 8], 0, 1),
        (ElementType::U8, &[2, 60, 3, 17, 3], 1, 3),
    ];
    // One scratch for every call that reads its lengths, as a plan keeps
    // one: shapes larger and smaller, and lengths of every kind, after
    // one another.
    let reused = &mut ReverseSequenceScratch::new();
    for (ty, shape, batch, seq) in cases {
        let data = iota(ty, shape);
        let (batches, seq_size) = (shape[batch], shape[seq]);
        let spread: Vec<usize> = (0..batches).map(|b| (b * 7 + b / 3) % (seq_size + 1)).collect();
        // Stretches of 50 batch indices with one length.
        let stretches: Vec<usize> = (0..batches).map(|b| (b / 50 * 3) % (seq_size + 1)).collect();
        let all = |n: usize| vec![n.min(seq_size); batches];
        for values in [spread, stretches, all(seq_size), all(1), all(2)] {
            let expected = naive_reverse_sequence(&data, &values, batch, seq);
            let first: Vec<usize> = values.iter().copied().take(4).collect();
            let what = format!("{ty} {shape:?} batch {batch} seq {seq} lengths {first:?}");
            for threads in [1, 3] {
                let options = ExecOptions { threads, min_bytes_per_thread: 1 };
                for lengths in [
                    tensor(&[batches], values.iter().map(|&v| v as i32).collect()),
                    tensor(&[batches], values.iter().map(|&v| v as i64).collect()),
                ] {
                    let mut out = Tensor::zeros(ty, shape).unwrap_or_else(|e| unreachable!("{e}"));
                    let (b, s) = (batch as i64, seq as i64);
                    ok(reverse_sequence_into(&data, &lengths, b, s, &mut out, &options, reused));
                    assert_eq!(
                        out,
                        expected,
                        "{what}, {} lengths, {threads} threads",
                        lengths.element_type()
                    );
                    let checked = ok(CheckedLengths::new(&lengths, &[batches, seq_size], 0, 1)).unwrap();
                    let mut out = Tensor::zeros(ty, shape).unwrap_or_else(|e| unreachable!("{e}"));
                    let scratch = &mut ReverseSequenceScratch::new();
                    ok(reverse_sequence_checked_into(&data, &checked, b, s, &mut out, &options, scratch));
                    assert_eq!(out, expected, "{what}, checked, {threads} threads");
                }
            }
        }
    }
}

/// Outputs of 16 MiB and more are written with streaming stores. Blocks
/// of 16 bytes after the sequence axis (batch axis first) move as one
/// element: rows of 48, 80 and 1040 bytes through the short rows' loops
/// and the reversed runs, and rows of over 256 KiB. Blocks of 12 bytes in
/// rows of 96, and of 32 in rows of 64, go a row at a time, each register
/// permuted from the row's; blocks of 12 bytes in rows of 192, a register
/// at a time from windows. All on one thread, and on three, whose chunks
/// (whole multiples of 64 blocks) start inside the rows of 16-byte blocks,
/// and on a row for the others (64 blocks make 8 rows of 96 bytes, 32 of
/// 64, or 4 of 192). The expected bytes are the blocks copied one by one.
#[test]
fn blocks_that_stream_match_a_block_by_block_copy() {
    let cases: [(ElementType, [usize; 3]); 7] = [
        (ElementType::U8, [349_526, 3, 16]),
        (ElementType::F32, [209_716, 5, 4]),
        (ElementType::I64, [16_384, 65, 2]),
        (ElementType::F32, [64, 16_385, 4]),
        (ElementType::F32, [174_763, 8, 3]),
        (ElementType::F32, [262_144, 2, 8]),
        (ElementType::F32, [87_382, 16, 3]),
    ];
    for (ty, shape) in cases {
        streamed_blocks_match(ty, shape, (0, 1));
    }
}

/// Runs ReverseSequence on `shape` (`[batches, seq, inner]` with the
/// batch axis first, `[seq, batches, inner]` with it second), 16 MiB or
/// more, a random length per batch index, on one thread and on three,
/// against the blocks after both axes copied one by one.
fn streamed_blocks_match(ty: ElementType, shape: [usize; 3], (batch, seq): (usize, usize)) {
    let (batches, seq_size, inner) = (shape[batch], shape[seq], shape[2]);
    let block = inner * ty.byte_width().unwrap_or(0);
    let bytes = batches * seq_size * block;
    assert!(bytes >= 16 << 20, "{ty} {shape:?}");
    let data = scrambled(ty, &shape);
    let src = data.bytes().unwrap_or_else(|| unreachable!("{ty} holds bytes"));
    let values: Vec<usize> = (0..batches).map(|b| (b * 2_654_435_761) % (seq_size + 1)).collect();
    // The block of batch index `b` at position `s`.
    let at = |b: usize, s: usize| (if batch == 0 { b * seq_size + s } else { s * batches + b }) * block;
    let mut expected = vec![0u8; bytes];
    for (b, &len) in values.iter().enumerate() {
        for s in 0..seq_size {
            let from = if s < len { len - 1 - s } else { s };
            expected[at(b, s)..at(b, s) + block].copy_from_slice(&src[at(b, from)..][..block]);
        }
    }
    let lengths = tensor(&[batches], values.iter().map(|&v| v as i64).collect());
    for threads in [1, 3] {
        let options = ExecOptions { threads, min_bytes_per_thread: 1 };
        let mut out = Tensor::zeros(ty, &shape).unwrap_or_else(|e| unreachable!("{e}"));
        let (b, s) = (batch as i64, seq as i64);
        ok(reverse_sequence_into(
            &data,
            &lengths,
            b,
            s,
            &mut out,
            &options,
            &mut ReverseSequenceScratch::new(),
        ));
        assert!(out.bytes() == Some(&expected[..]), "{ty} {shape:?}, {threads} threads");
    }
}

/// Time-major blocks of 128 bytes or more, whole lines, a block at a time
/// into outputs of 16 MiB and more, which stream them. Neighbouring batch
/// indices have lengths of their own, so each stretch is one block, and
/// 256 bytes is the longest stretch the block walk takes. With 100 batch
/// indices, three threads' parts (whole multiples of 64 blocks) start
/// inside a position's row.
#[test]
fn time_major_blocks_that_stream_match_a_block_by_block_copy() {
    let cases: [(ElementType, [usize; 3]); 4] = [
        (ElementType::U8, [1024, 64, 256]),
        (ElementType::F32, [2048, 64, 32]),
        (ElementType::U8, [1366, 64, 192]),
        (ElementType::U8, [1400, 100, 128]),
    ];
    for (ty, shape) in cases {
        streamed_blocks_match(ty, shape, (1, 0));
    }
}
