use ovir_exec::kernels::{
    reverse, reverse_into, reverse_sequence, reverse_sequence_into, ExecOptions, ReverseScratch,
    ReverseSequenceScratch,
};
use ovir_tensor::{ElementType, Tensor};
use proptest::prelude::*;

use crate::common::{naive_reverse, naive_reverse_sequence, zeros_like};

const WIDTH_TYPES: [ElementType; 4] = [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::U64];

/// A tensor of one of the four widths with arbitrary bytes (so NaN
/// patterns and huge integers appear too).
fn data(min_rank: usize) -> impl Strategy<Value = Tensor> {
    (prop::collection::vec(0usize..=5, min_rank..=6), 0usize..4).prop_flat_map(|(shape, t)| {
        let ty = WIDTH_TYPES[t];
        let n: usize = shape.iter().product::<usize>() * ty.byte_width().unwrap_or(1);
        prop::collection::vec(any::<u8>(), n).prop_map(move |bytes| {
            Tensor::from_bytes(ty, &shape, &bytes).unwrap_or_else(|e| unreachable!("{e}"))
        })
    })
}

fn strings(min_rank: usize) -> impl Strategy<Value = Tensor> {
    prop::collection::vec(0usize..=4, min_rank..=4).prop_map(|shape| {
        let n: usize = shape.iter().product();
        Tensor::from_strings(&shape, (0..n).map(|i| "x".repeat(i % 5)).collect())
            .unwrap_or_else(|e| unreachable!("{e}"))
    })
}

fn check_reverse(data: &Tensor, flags: &[bool]) -> Result<(), TestCaseError> {
    let flags = &flags[..data.rank()];
    let expected = naive_reverse(data, flags);
    let got = reverse(data, flags);
    prop_assert_eq!(got.as_ref().ok(), Some(&expected));
    let mut out = zeros_like(data);
    prop_assert!(reverse_into(
        data,
        flags,
        &mut out,
        &ExecOptions::single_thread(),
        &mut ReverseScratch::new()
    )
    .is_ok());
    prop_assert_eq!(&out, &expected);
    Ok(())
}

/// Picks distinct batch and seq axes and legal lengths for `data`.
fn sequence_case(data: Tensor) -> impl Strategy<Value = (Tensor, usize, usize, Vec<usize>)> {
    let rank = data.rank();
    (0..rank, 1..rank).prop_flat_map(move |(batch, step)| {
        let seq = (batch + step) % rank;
        let (b, s) = (data.shape()[batch], data.shape()[seq]);
        let data = data.clone();
        prop::collection::vec(0..=s, b).prop_map(move |lens| (data.clone(), batch, seq, lens))
    })
}

fn check_sequence(
    data: &Tensor,
    batch: usize,
    seq: usize,
    lens: &[usize],
    negative: bool,
) -> Result<(), TestCaseError> {
    let lengths = Tensor::from_vec(&[lens.len()], lens.iter().map(|&v| v as i64).collect())
        .unwrap_or_else(|e| unreachable!("{e}"));
    let expected = naive_reverse_sequence(data, lens, batch, seq);
    let rank = data.rank() as i64;
    let (b, s) = if negative { (batch as i64 - rank, seq as i64 - rank) } else { (batch as i64, seq as i64) };
    let got = reverse_sequence(data, &lengths, b, s);
    prop_assert_eq!(got.as_ref().ok(), Some(&expected));
    let mut out = zeros_like(data);
    prop_assert!(reverse_sequence_into(
        data,
        &lengths,
        b,
        s,
        &mut out,
        &ExecOptions::single_thread(),
        &mut ReverseSequenceScratch::new()
    )
    .is_ok());
    prop_assert_eq!(&out, &expected);
    // 32-bit lengths are used where they lie rather than read into counts,
    // 1s and all: the same output.
    let narrow = [
        Tensor::from_vec(&[lens.len()], lens.iter().map(|&v| v as i32).collect()),
        Tensor::from_vec(&[lens.len()], lens.iter().map(|&v| v as u32).collect()),
    ];
    for lengths in narrow {
        let lengths = lengths.unwrap_or_else(|e| unreachable!("{e}"));
        let mut out = zeros_like(data);
        let options = ExecOptions::single_thread();
        prop_assert!(reverse_sequence_into(
            data,
            &lengths,
            b,
            s,
            &mut out,
            &options,
            &mut ReverseSequenceScratch::new()
        )
        .is_ok());
        prop_assert_eq!(&out, &expected);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn reverse_matches_the_naive_reference(data in data(1), flags in prop::collection::vec(any::<bool>(), 6)) {
        check_reverse(&data, &flags)?;
    }

    #[test]
    fn reverse_moves_strings_like_bytes(data in strings(1), flags in prop::collection::vec(any::<bool>(), 4)) {
        check_reverse(&data, &flags)?;
    }

    #[test]
    fn reverse_sequence_matches_the_naive_reference(
        (data, batch, seq, lens) in data(2).prop_flat_map(sequence_case),
        negative in any::<bool>(),
    ) {
        check_sequence(&data, batch, seq, &lens, negative)?;
    }

    #[test]
    fn reverse_sequence_moves_strings_like_bytes((data, batch, seq, lens) in strings(2).prop_flat_map(sequence_case)) {
        check_sequence(&data, batch, seq, &lens, false)?;
    }
}
