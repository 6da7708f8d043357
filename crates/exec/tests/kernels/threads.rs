//! The `_into` kernels on several threads give the single-thread results,
//! wherever the chunk boundaries fall (inside reversed runs included).

use std::sync::Arc;

use ovir_exec::kernels::{
    convert, convert_into, reverse, reverse_into, reverse_sequence, reverse_sequence_into, ExecOptions,
    ReverseScratch, ReverseSequenceScratch,
};
use ovir_tensor::{ElementType, Tensor};
use proptest::prelude::*;

use crate::common::{naive_reverse, naive_reverse_sequence, ok, tensor, zeros_like};

const WIDTH_TYPES: [ElementType; 4] = [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::U64];

/// Splits every output, however small, into up to `threads` chunks.
fn split(threads: usize) -> ExecOptions {
    ExecOptions { threads, min_bytes_per_thread: 1 }
}

fn bytes_of(ty: ElementType, shape: &[usize], seed: usize) -> Tensor {
    let n = shape.iter().product::<usize>() * ty.byte_width().unwrap_or(1);
    let bytes: Vec<u8> = (0..n).map(|i| (i.wrapping_mul(131) ^ (i >> 8) ^ seed) as u8).collect();
    Tensor::from_bytes(ty, shape, &bytes).unwrap_or_else(|e| unreachable!("{e}"))
}

/// Reverse into a new output on `threads` threads.
fn reverse_on(data: &Tensor, flags: &[bool], threads: usize) -> Tensor {
    let mut out = zeros_like(data);
    ok(reverse_into(data, flags, &mut out, &split(threads), &mut ReverseScratch::new()));
    out
}

/// ReverseSequence into a new output on `threads` threads.
fn reverse_sequence_on(data: &Tensor, lengths: &Tensor, b: i64, s: i64, threads: usize) -> Tensor {
    let mut out = zeros_like(data);
    ok(reverse_sequence_into(
        data,
        lengths,
        b,
        s,
        &mut out,
        &split(threads),
        &mut ReverseSequenceScratch::new(),
    ));
    out
}

/// Convert into a new output on `threads` threads.
fn convert_on(data: &Tensor, to: ElementType, threads: usize) -> Tensor {
    let mut out = Tensor::zeros(to, data.shape()).unwrap_or_else(|e| unreachable!("{e}"));
    ok(convert_into(data, to, &mut out, &split(threads)));
    out
}

#[test]
fn reverse_splits_anywhere_for_every_width_and_axis_set() {
    // Long rows in few blocks, and many blocks of short rows, so that
    // chunks start inside a row, inside a block and at a block's start.
    for shape in [[3, 37, 41], [11, 5, 3]] {
        for ty in WIDTH_TYPES {
            let data = bytes_of(ty, &shape, 5);
            for mask in 0..8u32 {
                let flags: Vec<bool> = (0..3).map(|a| mask & (1 << a) != 0).collect();
                let expected = naive_reverse(&data, &flags);
                for threads in [2, 3, 7] {
                    let got = reverse_on(&data, &flags, threads);
                    assert_eq!(got, expected, "{ty} {shape:?} {flags:?} on {threads} threads");
                }
            }
        }
    }
}

#[test]
fn reverse_sequence_splits_anywhere_for_every_width_and_axis_pair() {
    let shape = [5, 9, 33];
    for ty in WIDTH_TYPES {
        let data = bytes_of(ty, &shape, 9);
        for batch in 0..3 {
            for seq in (0..3).filter(|&s| s != batch) {
                let lens: Vec<usize> = (0..shape[batch]).map(|b| (b * 7 + 3) % (shape[seq] + 1)).collect();
                let lengths = tensor(&[lens.len()], lens.iter().map(|&v| v as i32).collect());
                let expected = naive_reverse_sequence(&data, &lens, batch, seq);
                let (b, s) = (batch as i64, seq as i64);
                for threads in [2, 3, 7] {
                    let got = reverse_sequence_on(&data, &lengths, b, s, threads);
                    assert_eq!(got, expected, "{ty} batch {batch} seq {seq} on {threads} threads");
                }
            }
        }
    }
}

#[test]
fn unaligned_borrowed_bytes_are_read_on_threads() {
    // The bytes start one past an aligned address, as a Const in a weights
    // file may.
    let raw: Vec<u8> = (0..(4 * 3 * 50 + 1)).map(|i| (i * 13) as u8).collect();
    let owner: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(raw);
    let data = Tensor::from_shared(ElementType::F32, &[3, 50], owner, 1..601)
        .unwrap_or_else(|e| unreachable!("{e}"));
    let expected = naive_reverse(&data, &[true, true]);
    assert_eq!(reverse_on(&data, &[true, true], 3), expected);
    let expected = naive_reverse(&data, &[false, true]);
    assert_eq!(reverse_on(&data, &[false, true], 3), expected);
    let halves = convert_on(&data, ElementType::F16, 3);
    assert_eq!(halves, ok(convert(&data, ElementType::F16)));
}

#[test]
fn nothing_to_move_is_zero_copy_and_copied_on_threads() {
    let data = bytes_of(ElementType::F32, &[4, 6, 8], 1);
    assert!(ok(reverse(&data, &[false, false, false])).shares_storage_with(&data));
    let lengths = tensor(&[4], vec![0i64, 1, 1, 0]);
    assert!(ok(reverse_sequence(&data, &lengths, 0, 1)).shares_storage_with(&data));
    assert!(ok(reverse_sequence(&data, &lengths, 0, 2)).shares_storage_with(&data));
    assert!(ok(convert(&data, ElementType::F32)).shares_storage_with(&data));
    // The `_into` forms copy the input when nothing moves, on threads too.
    assert_eq!(reverse_sequence_on(&data, &lengths, 0, 1, 3), data);
    assert_eq!(reverse_on(&data, &[false, false, false], 4), data);
    assert_eq!(convert_on(&data, ElementType::F32, 4), data);
}

#[test]
fn convert_on_threads_matches_one_thread() {
    let types = [
        ElementType::Boolean,
        ElementType::I8,
        ElementType::U16,
        ElementType::I32,
        ElementType::U64,
        ElementType::F16,
        ElementType::Bf16,
        ElementType::F32,
        ElementType::F64,
    ];
    let values: Vec<f64> = (0..1001).map(|i| (i as f64 - 500.0) * 3.7).collect();
    let source = tensor(&[7, 143], values);
    for from in types {
        let data = ok(convert(&source, from));
        for to in types {
            let expected = ok(convert(&data, to));
            for threads in [2, 5] {
                assert_eq!(convert_on(&data, to, threads), expected, "{from} to {to}");
            }
        }
    }
}

#[test]
fn default_options_use_one_thread() {
    assert_eq!(ExecOptions::default(), ExecOptions::single_thread());
    assert_eq!(ExecOptions::default().threads, 1);
    assert!(ExecOptions::all_cores().threads >= 1);
}

fn data(min_rank: usize) -> impl Strategy<Value = Tensor> {
    (prop::collection::vec(1usize..=7, min_rank..=4), 0usize..4, any::<usize>())
        .prop_map(|(shape, t, seed)| bytes_of(WIDTH_TYPES[t], &shape, seed))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn threaded_reverse_matches_the_naive_reference(
        data in data(1),
        flags in prop::collection::vec(any::<bool>(), 4),
        threads in 2usize..6,
    ) {
        let flags = &flags[..data.rank()];
        prop_assert_eq!(reverse_on(&data, flags, threads), naive_reverse(&data, flags));
    }

    #[test]
    fn threaded_reverse_sequence_matches_the_naive_reference(
        (data, batch, seq, lens) in data(2).prop_flat_map(|data| {
            let rank = data.rank();
            (0..rank, 1..rank).prop_flat_map(move |(batch, step)| {
                let seq = (batch + step) % rank;
                let (b, s) = (data.shape()[batch], data.shape()[seq]);
                let data = data.clone();
                prop::collection::vec(0..=s, b).prop_map(move |lens| (data.clone(), batch, seq, lens))
            })
        }),
        threads in 2usize..6,
    ) {
        let lengths = tensor(&[lens.len()], lens.iter().map(|&v| v as u32).collect());
        let got = reverse_sequence_on(&data, &lengths, batch as i64, seq as i64, threads);
        prop_assert_eq!(got, naive_reverse_sequence(&data, &lens, batch, seq));
    }
}
