//! Reverse and ReverseSequence on the packed sub-byte types, checked
//! against an unpacked reference on random shapes.
//!
//! The reference reads and writes each element's bits with its own
//! per-element formulas (taken from OpenVINO's element iterator), shares no
//! code with `ovir_tensor::packed`, and moves the codes with the naive
//! one-byte references of `common`.

use ovir_exec::kernels::{
    reverse, reverse_into, reverse_sequence, reverse_sequence_into, ExecOptions, ReverseScratch,
    ReverseSequenceScratch,
};
use ovir_tensor::{ElementType, Tensor};
use proptest::prelude::*;

use crate::common::{naive_reverse, naive_reverse_sequence, zeros_like};

const PACKED_TYPES: [ElementType; 8] = [
    ElementType::U1,
    ElementType::U2,
    ElementType::U3,
    ElementType::U4,
    ElementType::U6,
    ElementType::I4,
    ElementType::Nf4,
    ElementType::F4e2m1,
];

/// Byte and shift of each part of element `i`: `(byte, shift, bits, at)`
/// puts `bits` bits of the code, from code bit `at` on, at `shift` in
/// `byte`.
fn parts(ty: ElementType, i: usize) -> Vec<(usize, usize, usize, usize)> {
    match ty {
        ElementType::U1 => vec![(i / 8, 7 - i % 8, 1, 0)],
        ElementType::U2 => vec![(i / 4, 2 * (i % 4), 2, 0)],
        ElementType::U3 => {
            let (g, k) = (3 * (i / 8), i % 8);
            vec![(g + k / 4, 2 * (3 - k % 4), 2, 0), (g + 2, 7 - k, 1, 2)]
        }
        ElementType::U6 => {
            let (g, k) = (3 * (i / 4), i % 4);
            vec![(g + k / 2, 4 * (1 - k % 2), 4, 0), (g + 2, 2 * (3 - k), 2, 4)]
        }
        _ => vec![(i / 2, 4 * (i % 2), 4, 0)],
    }
}

fn put_code(ty: ElementType, bytes: &mut [u8], i: usize, code: u8) {
    for (byte, shift, bits, at) in parts(ty, i) {
        let mask = ((1u8 << bits) - 1) << shift;
        bytes[byte] = (bytes[byte] & !mask) | (((code >> at) << shift) & mask);
    }
}

fn code_at(ty: ElementType, bytes: &[u8], i: usize) -> u8 {
    parts(ty, i)
        .into_iter()
        .fold(0, |c, (byte, shift, bits, at)| c | (((bytes[byte] >> shift) & ((1 << bits) - 1)) << at))
}

fn packed_tensor(ty: ElementType, shape: &[usize], codes: &[u8]) -> Tensor {
    let len = ty.storage_bytes(codes.len()).unwrap_or_else(|| unreachable!());
    let mut bytes = vec![0u8; len];
    for (i, &c) in codes.iter().enumerate() {
        put_code(ty, &mut bytes, i, c);
    }
    Tensor::from_bytes(ty, shape, &bytes).unwrap_or_else(|e| unreachable!("{e}"))
}

/// The codes of a moved `u8` reference, packed back into `ty`.
fn repack(ty: ElementType, moved: &Tensor) -> Tensor {
    packed_tensor(ty, moved.shape(), moved.bytes().unwrap_or_else(|| unreachable!()))
}

/// A packed tensor of random codes, with its codes one per `u8`.
fn data(min_rank: usize) -> impl Strategy<Value = (Tensor, Tensor)> {
    (prop::collection::vec(0usize..=5, min_rank..=5), 0usize..PACKED_TYPES.len()).prop_flat_map(
        |(shape, t)| {
            let ty = PACKED_TYPES[t];
            let n: usize = shape.iter().product();
            let max = (1u16 << ty.bit_width()) - 1;
            prop::collection::vec(0..=max as u8, n).prop_map(move |codes| {
                let unpacked =
                    Tensor::from_vec(&shape, codes.clone()).unwrap_or_else(|e| unreachable!("{e}"));
                (packed_tensor(ty, &shape, &codes), unpacked)
            })
        },
    )
}

#[test]
fn the_reference_layout_reads_openvino_bytes() {
    // Written by OpenVINO 2026.4's serializer for u3 [1, 2, …, 7, 0, 5, 3]
    // and u6 [1, 2, 63, 4, 33].
    let u3 = [0x6c, 0x6c, 0x1e, 0x70, 0x00, 0x80];
    let codes: Vec<u8> = (0..10).map(|i| code_at(ElementType::U3, &u3, i)).collect();
    assert_eq!(codes, vec![1, 2, 3, 4, 5, 6, 7, 0, 5, 3]);
    let u6 = [0x12, 0xf4, 0x0c, 0x10, 0x00, 0x80];
    let codes: Vec<u8> = (0..5).map(|i| code_at(ElementType::U6, &u6, i)).collect();
    assert_eq!(codes, vec![1, 2, 63, 4, 33]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn packed_reverse_matches_the_unpacked_reference(
        (data, codes) in data(1),
        flags in prop::collection::vec(any::<bool>(), 5),
    ) {
        let flags = &flags[..data.rank()];
        let ty = data.element_type();
        let expected = repack(ty, &naive_reverse(&codes, flags));
        let got = reverse(&data, flags);
        prop_assert_eq!(got.as_ref().ok(), Some(&expected));
        let mut out = zeros_like(&data);
        prop_assert!(reverse_into(&data, flags, &mut out, &ExecOptions::single_thread(), &mut ReverseScratch::new()).is_ok());
        prop_assert_eq!(&out, &expected);
    }

    #[test]
    fn packed_reverse_sequence_matches_the_unpacked_reference(
        ((data, codes), batch, seq, lens) in data(2).prop_flat_map(|(data, codes)| {
            let rank = data.rank();
            let shape = data.shape().to_vec();
            (Just((data, codes)), 0..rank, 1..rank).prop_flat_map(move |(pair, batch, step)| {
                let seq = (batch + step) % rank;
                prop::collection::vec(0..=shape[seq], shape[batch])
                    .prop_map(move |lens| (pair.clone(), batch, seq, lens))
            })
        }),
    ) {
        let ty = data.element_type();
        let expected = repack(ty, &naive_reverse_sequence(&codes, &lens, batch, seq));
        let lengths = Tensor::from_vec(&[lens.len()], lens.iter().map(|&v| v as i32).collect())
            .unwrap_or_else(|e| unreachable!("{e}"));
        let (b, s) = (batch as i64, seq as i64);
        let got = reverse_sequence(&data, &lengths, b, s);
        prop_assert_eq!(got.as_ref().ok(), Some(&expected));
        let mut out = zeros_like(&data);
        prop_assert!(reverse_sequence_into(&data, &lengths, b, s, &mut out, &ExecOptions::single_thread(), &mut ReverseSequenceScratch::new()).is_ok());
        prop_assert_eq!(&out, &expected);
    }
}
