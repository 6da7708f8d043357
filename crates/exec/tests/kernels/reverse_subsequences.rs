//! ReverseSubsequences: DirectML's worked examples, clamping, zero
//! lengths, ranks 1 to 8, every element width, every integer type of
//! lengths, the errors, and properties against a naive reference and
//! against ReverseSequence.

use ovir_exec::kernels::{
    reverse_sequence, reverse_subsequences, reverse_subsequences_checked_into, reverse_subsequences_into,
    CheckedSubsequenceLengths, ExecOptions, KernelError, ReverseSubsequencesScratch,
};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{ElementType, PartialShape, Tensor};
use proptest::prelude::*;

use crate::common::{gather_reference, iota, ok, ravel, scrambled, tensor, zeros_like};

/// The reference: output element `index` reads position
/// `len - 1 - index[axis]` of its line while `index[axis] < len`, with
/// `len` the line's length clamped to the axis size.
fn naive(data: &Tensor, lengths: &[u64], axis: usize) -> Tensor {
    let shape = data.shape().to_vec();
    let mut lengths_shape = shape.clone();
    lengths_shape[axis] = 1;
    gather_reference(data, |index| {
        let mut line = index.to_vec();
        line[axis] = 0;
        let len = lengths[ravel(&line, &lengths_shape)].min(shape[axis] as u64) as usize;
        let mut from = index.to_vec();
        if index[axis] < len {
            from[axis] = len - 1 - index[axis];
        }
        from
    })
}

fn lengths_shape(shape: &[usize], axis: usize) -> Vec<usize> {
    shape.iter().enumerate().map(|(i, &d)| if i == axis { 1 } else { d }).collect()
}

/// Checks every form of the kernel against the reference.
fn check(data: &Tensor, lengths: &[u64], axis: usize) {
    let expected = naive(data, lengths, axis);
    let lens = tensor(&lengths_shape(data.shape(), axis), lengths.to_vec());
    assert_eq!(ok(reverse_subsequences(data, &lens, axis as i64)), expected);
    let negative = axis as i64 - data.rank() as i64;
    assert_eq!(ok(reverse_subsequences(data, &lens, negative)), expected);
    let mut out = zeros_like(data);
    ok(reverse_subsequences_into(
        data,
        &lens,
        axis as i64,
        &mut out,
        &ExecOptions::single_thread(),
        &mut ReverseSubsequencesScratch::new(),
    ));
    assert_eq!(out, expected);
}

#[test]
fn directml_example_1_reverses_each_row_by_its_own_length() {
    let data = tensor(&[1, 1, 3, 4], (1..=12).map(|v| v as f32).collect());
    let lengths = tensor(&[1, 1, 3, 1], vec![2u32, 4, 3]);
    let out = ok(reverse_subsequences(&data, &lengths, 3));
    assert_eq!(out.shape(), &[1, 1, 3, 4]);
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![2., 1., 3., 4., 8., 7., 6., 5., 11., 10., 9., 12.]);
}

#[test]
fn directml_example_2_reverses_each_column_by_its_own_length() {
    let data = tensor(&[1, 1, 3, 4], (1..=12).map(|v| v as f32).collect());
    let lengths = tensor(&[1, 1, 1, 4], vec![2u32, 3, 1, 0]);
    let out = ok(reverse_subsequences(&data, &lengths, 2));
    assert_eq!(out.shape(), &[1, 1, 3, 4]);
    // Lengths 1 and 0 leave their columns as they are.
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![5., 10., 3., 4., 1., 6., 7., 8., 9., 2., 11., 12.]);
}

#[test]
fn lengths_above_the_axis_size_are_clamped() {
    let data = iota(ElementType::I32, &[2, 3]);
    let lengths = tensor(&[2, 1], vec![4u64, u64::MAX]);
    let out = ok(reverse_subsequences(&data, &lengths, 1));
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![2, 1, 0, 5, 4, 3]);
    let lengths = tensor(&[1, 3], vec![i8::MAX, 3, 2]);
    let out = ok(reverse_subsequences(&data, &lengths, 0));
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![3, 4, 5, 0, 1, 2]);
}

#[test]
fn zero_and_one_reverse_nothing_and_share_the_input() {
    let data = iota(ElementType::F32, &[3, 4]);
    for lengths in [vec![0u32, 0, 0], vec![1, 0, 1]] {
        let out = ok(reverse_subsequences(&data, &tensor(&[3, 1], lengths), 1));
        assert_eq!(out, data);
        assert!(out.shares_storage_with(&data));
    }
}

#[test]
fn every_rank_from_1_to_8() {
    for rank in 1..=8usize {
        let shape: Vec<usize> = (0..rank).map(|i| 2 + (i % 3)).collect();
        let data = iota(ElementType::I32, &shape);
        for axis in 0..rank {
            let count: usize = lengths_shape(&shape, axis).iter().product();
            let lengths: Vec<u64> = (0..count).map(|i| (i * 7 % 6) as u64).collect();
            check(&data, &lengths, axis);
        }
    }
}

#[test]
fn ranks_outside_1_to_8_are_refused() {
    let scalar = tensor(&[], vec![1.0f32]);
    let err = reverse_subsequences(&scalar, &tensor(&[], vec![1u32]), 0).unwrap_err();
    assert_eq!(err, KernelError::Shape(ShapeErrorKind::SubsequencesRank { rank: 0, max: 8 }));
    let nine = iota(ElementType::U8, &[1; 9]);
    let err = reverse_subsequences(&nine, &iota(ElementType::U8, &[1; 9]), 0).unwrap_err();
    assert_eq!(err.to_string(), "ReverseSubsequences: the data must have rank 1 to 8, but it has rank 9");
}

#[test]
fn every_byte_width_and_strings_move_bit_for_bit() {
    let shape = [3, 5, 2];
    let lengths: Vec<u64> = vec![5, 1, 3, 2, 0, 9];
    for ty in [
        ElementType::Boolean,
        ElementType::I8,
        ElementType::U8,
        ElementType::I16,
        ElementType::U16,
        ElementType::F16,
        ElementType::Bf16,
        ElementType::I32,
        ElementType::U32,
        ElementType::F32,
        ElementType::I64,
        ElementType::U64,
        ElementType::F64,
        ElementType::String,
    ] {
        check(&iota(ty, &shape), &lengths, 1);
    }
    // Arbitrary bit patterns (NaNs included) survive.
    let bytes: Vec<u8> = (0..30 * 8).map(|i| (i * 37 % 256) as u8).collect();
    for ty in [ElementType::F32, ElementType::F64, ElementType::F16] {
        let width = ty.byte_width().unwrap();
        let data = Tensor::from_bytes(ty, &shape, &bytes[..30 * width]).unwrap();
        check(&data, &lengths, 1);
    }
}

#[test]
fn packed_elements_move_inside_their_bytes() {
    for ty in [ElementType::U4, ElementType::I4, ElementType::U1, ElementType::U3] {
        let range = ovir_tensor::packed::exchange_range(ty).unwrap();
        let span = range.end() - range.start() + 1;
        let codes: Vec<u8> = (0..12).map(|i| ((i % span) + range.start()) as u8).collect();
        let exchange = ovir_tensor::packed::exchange_type(ty).unwrap();
        let data =
            ovir_tensor::packed::from_exchange(&Tensor::from_bytes(exchange, &[3, 4], &codes).unwrap(), ty)
                .unwrap();
        let lengths = tensor(&[3, 1], vec![4u32, 2, 3]);
        let out = ok(reverse_subsequences(&data, &lengths, 1));
        let plain = Tensor::from_bytes(ElementType::U8, &[3, 4], &codes).unwrap();
        let expected = naive(&plain, &[4, 2, 3], 1);
        assert_eq!(ovir_tensor::packed::to_exchange(&out).bytes(), expected.bytes(), "{ty}");
        let mut into = zeros_like(&data);
        ok(reverse_subsequences_into(
            &data,
            &lengths,
            1,
            &mut into,
            &ExecOptions::single_thread(),
            &mut ReverseSubsequencesScratch::new(),
        ));
        assert_eq!(into, out, "{ty}");
    }
}

#[test]
fn lengths_of_every_integer_type() {
    let data = iota(ElementType::F32, &[2, 4]);
    let expected = naive(&data, &[3, 4], 1);
    let lengths: [Tensor; 8] = [
        tensor(&[2, 1], vec![3u8, 4]),
        tensor(&[2, 1], vec![3u16, 4]),
        tensor(&[2, 1], vec![3u32, 4]),
        tensor(&[2, 1], vec![3u64, 4]),
        tensor(&[2, 1], vec![3i8, 4]),
        tensor(&[2, 1], vec![3i16, 4]),
        tensor(&[2, 1], vec![3i32, 4]),
        tensor(&[2, 1], vec![3i64, 4]),
    ];
    for l in &lengths {
        assert_eq!(ok(reverse_subsequences(&data, l, 1)), expected, "{}", l.element_type());
    }
    let packed = ovir_tensor::packed::from_exchange(&tensor(&[2, 1], vec![3u8, 4]), ElementType::U4).unwrap();
    assert_eq!(ok(reverse_subsequences(&data, &packed, 1)), expected);
}

#[test]
fn negative_lengths_are_refused_with_their_position() {
    let data = iota(ElementType::F32, &[2, 3, 4]);
    let mut values = vec![1i32; 8];
    values[6] = -2;
    let err = reverse_subsequences(&data, &tensor(&[2, 1, 4], values), 1).unwrap_err();
    let negative = ShapeErrorKind::NegativeSubsequenceLength { position: vec![1, 0, 2], value: -2 };
    assert_eq!(err, KernelError::Shape(negative));
    assert_eq!(
        err.to_string(),
        "ReverseSubsequences: the length at index [1, 0, 2] of the lengths is -2, which is negative; a length \
         must be 0 or more"
    );
    // Packed lengths are read the general way, with the same rule.
    let lengths = ovir_tensor::packed::from_exchange(&tensor(&[1, 3], vec![1i8, 0, -3]), ElementType::I4);
    let err = reverse_subsequences(&iota(ElementType::U8, &[2, 3]), &lengths.unwrap(), 0).unwrap_err();
    let negative = ShapeErrorKind::NegativeSubsequenceLength { position: vec![0, 2], value: -3 };
    assert_eq!(err, KernelError::Shape(negative));
}

#[test]
fn lengths_that_are_not_integers_are_refused() {
    let data = iota(ElementType::F32, &[2, 3]);
    for lengths in [tensor(&[2, 1], vec![1.0f32, 2.0]), tensor(&[2, 1], vec![true, false])] {
        let err = reverse_subsequences(&data, &lengths, 1).unwrap_err();
        let found = lengths.element_type();
        assert_eq!(err, KernelError::Shape(ShapeErrorKind::SubsequenceLengthsType { found }));
    }
}

#[test]
fn lengths_of_the_wrong_shape_are_refused() {
    let data = iota(ElementType::F32, &[2, 3, 4]);
    let static_shape = |dims: &[usize]| PartialShape::from_static(dims);
    for shape in [vec![2, 3, 4], vec![2, 1, 3], vec![1, 1, 4], vec![2, 2, 4]] {
        let n: usize = shape.iter().product();
        let err = reverse_subsequences(&data, &tensor(&shape, vec![1u32; n]), 1).unwrap_err();
        let expected = ShapeErrorKind::SubsequenceLengthsShape {
            axis: 1,
            expected: static_shape(&[2, 1, 4]),
            lengths: static_shape(&shape),
            data: static_shape(&[2, 3, 4]),
        };
        assert_eq!(err, KernelError::Shape(expected));
    }
    let err = reverse_subsequences(&data, &tensor(&[2, 1], vec![1u32; 2]), 1).unwrap_err();
    let lengths = static_shape(&[2, 1]);
    assert_eq!(err, KernelError::Shape(ShapeErrorKind::SubsequenceLengthsRank { data: 3, lengths, rank: 2 }));
    let err = reverse_subsequences(&data, &tensor(&[2, 1, 4], vec![1u32; 8]), 3).unwrap_err();
    assert_eq!(err, KernelError::Shape(ShapeErrorKind::SubsequencesAxisOutOfRange { axis: 3, rank: 3 }));
    assert!(reverse_subsequences(&data, &tensor(&[2, 1, 4], vec![1u32; 8]), -4).is_err());
}

#[test]
fn an_output_of_the_wrong_type_or_shape_is_refused() {
    let data = iota(ElementType::F32, &[2, 3]);
    let lengths = tensor(&[2, 1], vec![2u32, 3]);
    let mut out = Tensor::zeros(ElementType::I32, &[2, 3]).unwrap();
    let err = reverse_subsequences_into(
        &data,
        &lengths,
        1,
        &mut out,
        &ExecOptions::single_thread(),
        &mut ReverseSubsequencesScratch::new(),
    )
    .unwrap_err();
    assert!(matches!(err, KernelError::OutputMismatch { .. }), "{err}");
}

#[test]
fn empty_data_passes_through() {
    let data = iota(ElementType::F32, &[2, 0, 3]);
    assert_eq!(ok(reverse_subsequences(&data, &tensor(&[2, 1, 3], vec![5u32; 6]), 1)), data);
    let data = iota(ElementType::F32, &[0, 3]);
    assert_eq!(ok(reverse_subsequences(&data, &tensor(&[1, 3], vec![2u32; 3]), 0)).shape(), &[0, 3]);
    // No line along axis 1, so no length at all.
    assert_eq!(ok(reverse_subsequences(&data, &tensor(&[0, 1], Vec::<u32>::new()), 1)).shape(), &[0, 3]);
}

/// Lengths that change from one line to the next go, with AVX2 on axes of
/// up to 8 rows, through lines in registers (one blend of two rows on 2
/// rows), with AVX2 and 8-byte elements in blocks larger than 128 KiB,
/// 1- and 2-byte ones on axes of over 255 rows or 4-byte ones on axes of
/// over 2048 (or over 64 of 1024 columns or more), through lines staged in
/// a buffer, else through strips or the row
/// shifter (1-byte elements, and
/// 2-byte ones without AVX2) or through a 128 KiB buffer (wider ones, and axes too long for the shifter; 2- and
/// 4-byte elements 8 at a time with AVX2, down the tile a cache line of
/// columns at a time, the rest of a row one by one, row by row),
/// or in place (axes too long for the buffer), the columns in tiles. The
/// shapes make several tiles per block, the last one partial and not a
/// whole number of vectors; axes of 2 and 3 rows, of a power of two and one
/// past it, and of 256 rows (where the shifter recounts how far each line's
/// reversed part reaches, on lines too few for a group of staged lines);
/// rows narrower than a register; and the chunks
/// of three threads start inside a tile and inside a row.
#[test]
fn lengths_that_change_every_line_match_the_reference_across_tiles_and_threads() {
    let cases: [(ElementType, [usize; 3]); 48] = [
        // Strips: the longest axis they take, and a last strip of a block
        // narrower than a register.
        (ElementType::U8, [2, 255, 70]),
        (ElementType::F16, [3, 17, 45]),
        // With AVX-512, 8-byte elements in strips too: lines of 560 bytes
        // (eight whole strips read in place and 48 bytes staged), and of
        // 512 on the longest axis.
        (ElementType::I64, [3, 100, 70]),
        (ElementType::U64, [3, 255, 64]),
        // Tiles of 240 (`f32`) and 480 (`i16`) columns; 3632 on 9 rows.
        (ElementType::F32, [2, 129, 600]),
        (ElementType::I16, [2, 129, 1100]),
        (ElementType::F32, [3, 9, 5000]),
        (ElementType::F32, [3, 8, 5000]),
        // 8-byte elements staged as lines in tiles of 8 columns and 1
        // left over, on axes of 2100 and 4200 rows.
        (ElementType::U64, [2, 2100, 9]),
        (ElementType::U64, [2, 4200, 9]),
        // 4-byte elements staged as lines where the gathers cannot stage
        // the axis (over 2048 rows): a tile of 8 columns and 1 left over;
        // tiles of 64, 64 and 16 columns, 6 left over. Then 2048 rows,
        // which the gathers stage.
        (ElementType::F32, [2, 2049, 9]),
        (ElementType::I32, [1, 2100, 150]),
        (ElementType::F32, [2, 2048, 20]),
        // 4-byte elements staged on a shorter axis of rows of over 1024
        // columns, with two indices before it.
        (ElementType::F32, [2, 70, 1030]),
        // 2-byte elements past the axes the strips take, in blocks past
        // 128 KiB: tiles of 192 and 48 columns, 10 left over.
        (ElementType::F16, [1, 300, 250]),
        // And 1-byte ones: a tile of 64 columns, 6 left over.
        (ElementType::U8, [2, 300, 70]),
        (ElementType::F16, [2, 3, 41]),
        (ElementType::U8, [2, 32, 200]),
        (ElementType::U8, [2, 16, 600]),
        (ElementType::U8, [2, 8, 1100]),
        (ElementType::I16, [2, 16, 600]),
        (ElementType::U8, [3, 2, 64]),
        // 256 rows of 1-byte elements: lines with 32 columns or more, the
        // shifter with fewer.
        (ElementType::U8, [2, 256, 40]),
        (ElementType::U8, [2, 256, 20]),
        // An axis whose blocks have too few columns for a group of lines,
        // read in place one element at a time.
        (ElementType::U64, [2, 5000, 3]),
        (ElementType::U64, [2, 1024, 20]),
        // 2-byte lines in a tile of 64 columns, 6 left over.
        (ElementType::U16, [2, 2048, 70]),
        (ElementType::U8, [3, 5, 7]),
        (ElementType::U8, [3, 200, 100]),
        (ElementType::U8, [2, 600, 9]),
        (ElementType::U8, [4, 2, 33]),
        (ElementType::F32, [3, 3, 17]),
        (ElementType::F32, [2, 129, 50]),
        (ElementType::I16, [2, 64, 300]),
        (ElementType::I64, [2, 64, 40]),
        (ElementType::I64, [5, 8, 1000]),
        (ElementType::U8, [2, 128, 3]),
        // Transposed in registers: axes of up to 8 rows, a register's width
        // of columns or more, with columns left over.
        (ElementType::I64, [3, 4, 45]),
        (ElementType::F16, [2, 8, 77]),
        (ElementType::U8, [2, 7, 95]),
        (ElementType::F32, [3, 2, 100]),
        // Three and four rows of 1- and 2-byte elements: four registers.
        (ElementType::U8, [3, 4, 70]),
        (ElementType::U8, [2, 3, 100]),
        (ElementType::F16, [3, 4, 40]),
        // Just past them: the shifter and the one-by-one moves.
        (ElementType::U8, [2, 12, 600]),
        (ElementType::I64, [5, 9, 1000]),
        // 8-byte elements staged as lines, blocks larger than the buffer:
        // tiles of 680 and 1024 columns, the last ones partial (with
        // AVX-512, the first goes in strips).
        (ElementType::I64, [2, 20, 1000]),
        (ElementType::U64, [2, 9, 2000]),
    ];
    for (ty, shape) in cases {
        let data = scrambled(ty, &shape);
        let size = shape[1] as u64;
        // A spread of lengths from 0 to past the axis size, a new one on
        // almost every line; in the second block, zeros but for every
        // 40th line, so that whole tiles move nothing.
        let lens: Vec<u64> = (0..(shape[0] * shape[2]) as u64)
            .map(|l| {
                let len = (l * 2_654_435_761) % (size + 3);
                if l / shape[2] as u64 == 1 && l % 40 != 0 {
                    0
                } else {
                    len
                }
            })
            .collect();
        let expected = naive(&data, &lens, 1);
        let lengths = tensor(&lengths_shape(&shape, 1), lens.clone());
        check(&data, &lens, 1);
        // The same lengths as `i32` and `u32`, capped at the axis size so
        // that they are used where they are stored, 1s and all; and as
        // `u32` past it, read and clamped instead.
        let capped: Vec<u64> = lens.iter().map(|&l| l.min(size)).collect();
        let narrow = |ty: ElementType, values: &[u64]| {
            let words: Vec<u8> = values.iter().flat_map(|&v| (v as u32).to_le_bytes()).collect();
            Tensor::from_bytes(ty, &lengths_shape(&shape, 1), &words).unwrap()
        };
        let all = [
            lengths,
            narrow(ElementType::I32, &capped),
            narrow(ElementType::U32, &capped),
            narrow(ElementType::U32, &lens),
        ];
        for (lengths, threads) in all.iter().flat_map(|l| [(l, 1), (l, 2), (l, 3)]) {
            let options = ExecOptions { threads, min_bytes_per_thread: 1 };
            let mut out = zeros_like(&data);
            ok(reverse_subsequences_into(
                &data,
                lengths,
                1,
                &mut out,
                &options,
                &mut ReverseSubsequencesScratch::new(),
            ));
            assert_eq!(
                out,
                expected,
                "{ty:?} {shape:?}, {:?} lengths, {threads} threads",
                lengths.element_type()
            );
        }
    }
}

/// Outputs of 4 MiB and more go through the strips with streaming stores
/// (1- and 2-byte elements with AVX2, on axes of 16 to 255 rows, and
/// 8-byte ones too with AVX-512): rows whose stretches start on and off a
/// cache line, a last strip narrower than a register, and the chunks of
/// three threads starting inside a row. Rows of a whole number of cache
/// lines, where AVX-512's strips stream their rows straight into the
/// output, as well.
#[test]
fn strips_and_gathers_that_stream_their_stores_match_the_reference() {
    // `f32` goes to the vector gathers, whose rows must be a multiple of
    // 32 bytes long for streaming stores, and at most 2 KiB.
    let cases = [
        (ElementType::U8, [1, 64, 65_576]),
        (ElementType::F16, [2, 20, 53_003]),
        (ElementType::I64, [2, 40, 8_003]),
        (ElementType::U8, [1, 64, 65_536]),
        (ElementType::I64, [2, 40, 8_192]),
        (ElementType::F32, [256, 40, 104]),
    ];
    for (ty, shape) in cases {
        let bytes = shape.iter().product::<usize>() * ty.byte_width().unwrap_or(1);
        assert!(bytes >= 4 << 20, "{ty:?} {shape:?} is below the size that streams");
        let data = scrambled(ty, &shape);
        let size = shape[1] as u64;
        let lens: Vec<u64> =
            (0..(shape[0] * shape[2]) as u64).map(|l| (l * 2_654_435_761) % (size + 2)).collect();
        let expected = naive(&data, &lens, 1);
        let lengths = tensor(&lengths_shape(&shape, 1), lens);
        for threads in [1, 3] {
            let options = ExecOptions { threads, min_bytes_per_thread: 1 };
            let mut out = zeros_like(&data);
            ok(reverse_subsequences_into(
                &data,
                &lengths,
                1,
                &mut out,
                &options,
                &mut ReverseSubsequencesScratch::new(),
            ));
            assert!(out == expected, "{ty:?} {shape:?}, {threads} threads");
        }
    }
}

/// Data of rank 1 to 5 with arbitrary bytes of one of the four widths, an
/// axis, and lengths from 0 to two past the axis size.
fn subsequence_case() -> impl Strategy<Value = (Tensor, usize, Vec<u64>)> {
    (prop::collection::vec(1usize..=4, 1..=5), 0usize..4).prop_flat_map(|(shape, t)| {
        let ty = [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::U64][t];
        let n: usize = shape.iter().product::<usize>() * ty.byte_width().unwrap_or(1);
        let rank = shape.len();
        (prop::collection::vec(any::<u8>(), n), 0..rank).prop_flat_map(move |(bytes, axis)| {
            let data = Tensor::from_bytes(ty, &shape, &bytes).unwrap();
            let count: usize = lengths_shape(&shape, axis).iter().product();
            let max = shape[axis] as u64 + 2;
            prop::collection::vec(0..=max, count).prop_map(move |lens| (data.clone(), axis, lens))
        })
    })
}

/// A ReverseSequence case: data of rank 2 to 5, distinct batch and
/// sequence axes, and one length per batch index.
fn sequence_case() -> impl Strategy<Value = (Tensor, usize, usize, Vec<u64>)> {
    (prop::collection::vec(1usize..=4, 2..=5), 0usize..4).prop_flat_map(|(shape, t)| {
        let ty = [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::U64][t];
        let n: usize = shape.iter().product::<usize>() * ty.byte_width().unwrap_or(1);
        let rank = shape.len();
        (prop::collection::vec(any::<u8>(), n), 0..rank, 1..rank).prop_flat_map(
            move |(bytes, batch, step)| {
                let seq = (batch + step) % rank;
                let data = Tensor::from_bytes(ty, &shape, &bytes).unwrap();
                prop::collection::vec(0..=shape[seq] as u64, shape[batch])
                    .prop_map(move |lens| (data.clone(), batch, seq, lens))
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn reverse_subsequences_matches_the_naive_reference((data, axis, lens) in subsequence_case()) {
        let expected = naive(&data, &lens, axis);
        let lengths = tensor(&lengths_shape(data.shape(), axis), lens.clone());
        prop_assert_eq!(&ok(reverse_subsequences(&data, &lengths, axis as i64)), &expected);
        let mut out = zeros_like(&data);
        let mut scratch = ReverseSubsequencesScratch::new();
        // Twice through one scratch: what it held before does not matter.
        for _ in 0..2 {
            let options = ExecOptions::single_thread();
            ok(reverse_subsequences_into(&data, &lengths, axis as i64, &mut out, &options, &mut scratch));
            prop_assert_eq!(&out, &expected);
        }
        let threads = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        let mut out = zeros_like(&data);
        ok(reverse_subsequences_into(&data, &lengths, axis as i64, &mut out, &threads, &mut ReverseSubsequencesScratch::new()));
        prop_assert_eq!(&out, &expected);
    }

    /// ReverseSequence is the special case whose lengths vary along one
    /// batch axis only.
    #[test]
    fn reverse_subsequences_equals_reverse_sequence_when_lengths_follow_one_batch_axis(
        (data, batch, seq, lens) in sequence_case()
    ) {
        let shape = lengths_shape(data.shape(), seq);
        let count: usize = shape.iter().product();
        let spread: Vec<u64> = (0..count)
            .map(|flat| {
                let index = crate::common::unravel(flat, &shape);
                lens[index[batch]]
            })
            .collect();
        let sequence = ok(reverse_sequence(&data, &tensor(&[lens.len()], lens.clone()), batch as i64, seq as i64));
        let subsequences = ok(reverse_subsequences(&data, &tensor(&shape, spread), seq as i64));
        prop_assert_eq!(subsequences, sequence);
    }
}

/// Lengths checked once, as a plan does for constant lengths, give what
/// reading them on every run gives: scattered lengths of 32 bits (used
/// where they are stored) and of 64 (read), lengths in stretches (runs),
/// the innermost axis, strings, packed data, one to three threads, and
/// data of another shape, which reads the lengths again.
#[test]
fn lengths_checked_once_give_what_reading_them_gives() {
    let cases: [(ElementType, &[usize], usize); 11] = [
        // Axes of up to 8 rows, whose scattered lengths are kept a byte
        // each for the lines transposed in registers: 8, 4, 3 and 2 rows.
        (ElementType::U8, &[3, 8, 100], 1),
        (ElementType::F16, &[2, 4, 70], 1),
        (ElementType::F32, &[3, 3, 50], 1),
        (ElementType::U8, &[2, 2, 150], 1),
        (ElementType::F32, &[2, 129, 50], 1),
        (ElementType::U8, &[2, 32, 200], 1),
        (ElementType::F16, &[3, 17, 45], 1),
        (ElementType::I64, &[5, 8, 40], 0),
        (ElementType::U8, &[4, 6, 33], 2),
        (ElementType::String, &[2, 5, 7], 1),
        (ElementType::I4, &[3, 4, 8], 1),
    ];
    for (ty, shape, axis) in cases {
        let data = if ty == ElementType::I4 {
            let bytes: Vec<u8> =
                (0..shape.iter().product::<usize>() / 2).map(|i| (i * 37 + 11) as u8).collect();
            Tensor::from_bytes(ty, shape, &bytes).unwrap()
        } else if ty == ElementType::String {
            iota(ty, shape)
        } else {
            scrambled(ty, shape)
        };
        let size = shape[axis] as u64;
        let line_shape = lengths_shape(shape, axis);
        let lines: usize = line_shape.iter().product();
        // Scattered, within the axis and past it; and in stretches of 20.
        let scattered: Vec<u64> = (0..lines as u64).map(|l| (l * 2_654_435_761) % (size + 1)).collect();
        let past: Vec<u64> = (0..lines as u64).map(|l| (l * 7) % (size + 3)).collect();
        let stretches: Vec<u64> = (0..lines as u64).map(|l| (l / 20) % (size + 1)).collect();
        for lens in [scattered, past, stretches] {
            let words: Vec<u8> = lens.iter().flat_map(|&v| (v as u32).to_le_bytes()).collect();
            let all = [
                Tensor::from_bytes(ElementType::I32, &line_shape, &words).unwrap(),
                tensor(&line_shape, lens.clone()),
            ];
            for lengths in &all {
                let expected = ok(reverse_subsequences(&data, lengths, axis as i64));
                let checked = ok(CheckedSubsequenceLengths::new(lengths, ty, shape, axis as i64)).unwrap();
                for threads in [1, 2, 3] {
                    let options = ExecOptions { threads, min_bytes_per_thread: 1 };
                    let mut out = zeros_like(&data);
                    let mut scratch = ReverseSubsequencesScratch::new();
                    ok(reverse_subsequences_checked_into(
                        &data,
                        &checked,
                        axis as i64,
                        &mut out,
                        &options,
                        &mut scratch,
                    ));
                    assert_eq!(
                        out,
                        expected,
                        "{ty:?} {shape:?} axis {axis}, {:?}, {threads} threads",
                        lengths.element_type()
                    );
                }
                // The same axis counted from the end is another spelling:
                // the lengths are read again, with the same result.
                let from_end = axis as i64 - shape.len() as i64;
                let mut out = zeros_like(&data);
                let options = ExecOptions::single_thread();
                ok(reverse_subsequences_checked_into(
                    &data,
                    &checked,
                    from_end,
                    &mut out,
                    &options,
                    &mut ReverseSubsequencesScratch::new(),
                ));
                assert_eq!(out, expected, "{ty:?} {shape:?} axis {from_end}");
            }
        }
    }
    // Data of another shape reads the lengths again, and is refused when
    // they no longer fit it.
    let lengths = tensor(&[2, 1, 3], vec![2u32, 3, 1, 0, 4, 2]);
    let checked = ok(CheckedSubsequenceLengths::new(&lengths, ElementType::F32, &[2, 4, 3], 1)).unwrap();
    let longer = iota(ElementType::F32, &[2, 6, 3]);
    let mut out = zeros_like(&longer);
    let options = ExecOptions::single_thread();
    ok(reverse_subsequences_checked_into(
        &longer,
        &checked,
        1,
        &mut out,
        &options,
        &mut ReverseSubsequencesScratch::new(),
    ));
    assert_eq!(out, ok(reverse_subsequences(&longer, &lengths, 1)));
    let wider = iota(ElementType::F32, &[2, 4, 4]);
    let mut out = zeros_like(&wider);
    let err = reverse_subsequences_checked_into(
        &wider,
        &checked,
        1,
        &mut out,
        &options,
        &mut ReverseSubsequencesScratch::new(),
    );
    assert!(
        matches!(err, Err(KernelError::Shape(ShapeErrorKind::SubsequenceLengthsShape { .. }))),
        "{err:?}"
    );
}

#[test]
fn lengths_checked_once_are_refused_as_when_read() {
    let negative = tensor(&[1, 3], vec![1i32, -2, 0]);
    let err = CheckedSubsequenceLengths::new(&negative, ElementType::F32, &[4, 3], 0).unwrap_err();
    let negative = ShapeErrorKind::NegativeSubsequenceLength { position: vec![0, 1], value: -2 };
    assert_eq!(err, KernelError::Shape(negative));
    let shape = tensor(&[3], vec![1i32, 2, 0]);
    let err = CheckedSubsequenceLengths::new(&shape, ElementType::F32, &[4, 3], 0).unwrap_err();
    assert!(matches!(err, KernelError::Shape(ShapeErrorKind::SubsequenceLengthsRank { .. })), "{err:?}");
    // Nothing moves: the output is the input.
    let ones = tensor(&[1, 3], vec![1i32, 0, 1]);
    let checked = ok(CheckedSubsequenceLengths::new(&ones, ElementType::F32, &[4, 3], 0)).unwrap();
    let data = iota(ElementType::F32, &[4, 3]);
    let mut out = zeros_like(&data);
    let options = ExecOptions::single_thread();
    ok(reverse_subsequences_checked_into(
        &data,
        &checked,
        0,
        &mut out,
        &options,
        &mut ReverseSubsequencesScratch::new(),
    ));
    assert_eq!(out, data);
}
