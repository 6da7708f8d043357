//! The kernels against the definition, element by element, with the
//! portable copier (what the `no-simd` build runs) and the one the CPU
//! picks, on one thread and on chunks that cut blocks and rows.

use ovir_tensor::{ElementType, Tensor};

use super::ScatteredLines;
use crate::kernels::copy::ReverseCopier;
use crate::kernels::counts::Count;
use crate::kernels::ExecOptions;

/// Bytes that differ from their neighbours at every distance the tests
/// reach: a multiplicative hash of the index.
fn bytes(len: usize) -> Vec<u8> {
    (0..len as u64).map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8).collect()
}

/// Lengths that hit every case of a window: 0, 1, the whole axis, one
/// past it (clamped by the kernels' callers, kept here as the axis), and
/// everything between, from a fixed pseudo-random walk.
fn lengths(lines: usize, size: usize) -> Vec<u32> {
    let mut state = 0x2545_f491_u64 ^ (lines as u64) << 20 ^ size as u64;
    (0..lines)
        .map(|i| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            match i % 7 {
                0 => 0,
                1 => 1,
                2 => size as u32,
                _ => ((state >> 33) % (size as u64 + 1)) as u32,
            }
        })
        .collect()
}

/// The definition: output `(o, k, i)` of the `[outer, size, inner]` view
/// is input `(o, len - 1 - k, i)` while `k < len`, else `(o, k, i)`, for
/// `n`-byte elements.
fn expected(src: &[u8], (outer, size, inner): (usize, usize, usize), lens: &[u32], n: usize) -> Vec<u8> {
    let mut out = vec![0u8; src.len()];
    for o in 0..outer {
        for k in 0..size {
            for i in 0..inner {
                let len = (lens[o * inner + i] as usize).min(size);
                let from = if k < len { len - 1 - k } else { k };
                let (at, from) = (((o * size + k) * inner + i) * n, ((o * size + from) * inner + i) * n);
                out[at..at + n].copy_from_slice(&src[from..from + n]);
            }
        }
    }
    out
}

/// The element type of each width.
fn type_of(n: usize) -> ElementType {
    match n {
        1 => ElementType::U8,
        2 => ElementType::F16,
        4 => ElementType::F32,
        _ => ElementType::I64,
    }
}

/// Plays `[outer, size, inner]` of `n`-byte elements with `copier`, the
/// lengths as `C`, on one thread and on three chunks, against
/// [`expected`].
fn check_with<C: Count>(
    copier: ReverseCopier,
    view: (usize, usize, usize),
    n: usize,
    lens: &[C],
    given: &[u32],
) {
    let (outer, size, inner) = view;
    let ty = type_of(n);
    let src = bytes(outer * size * inner * n);
    let data = Tensor::from_bytes(ty, &[outer, size, inner], &src).unwrap();
    let want = expected(&src, view, given, n);
    let lines = ScatteredLines { size, inner, lens };
    for options in [ExecOptions::single_thread(), ExecOptions { threads: 3, min_bytes_per_thread: 1 }] {
        let mut out = Tensor::zeros(ty, &[outer, size, inner]).unwrap();
        lines.play_with(copier, "test", &data, &mut out, &options, None).unwrap();
        let got = out.bytes().unwrap();
        assert!(got == want.as_slice(), "{n}-byte elements, {view:?}, {copier:?}, {options:?}");
    }
}

/// [`check_with`] with the portable copier and the CPU's, lengths kept
/// in 32 bits and as `usize`.
fn check(view: (usize, usize, usize), n: usize) {
    let (outer, size, inner) = view;
    let given = lengths(outer * inner, size);
    let wide: Vec<usize> = given.iter().map(|&l| l as usize).collect();
    for copier in [ReverseCopier::portable(), ReverseCopier::detect()] {
        check_with(copier, view, n, &given, &given);
        check_with(copier, view, n, &wide, &given);
    }
}

#[test]
fn gathers_match_the_definition_on_every_width() {
    // Axes the stack's tile holds whole, from 2 rows on, and columns
    // around a cache line of them, blocks cut by the chunks.
    for n in [1, 2, 4, 8] {
        let line = 64 / n;
        for size in [2, 3, 9, 17, 300] {
            for inner in [line - 1, line, line + 1, 3 * line + 5] {
                check((3, size, inner), n);
            }
        }
    }
}

#[test]
fn gathers_of_long_axes_match_the_definition() {
    // Axes too long for the stack's tile of a cache line of columns
    // (over 2048 rows): without the vector gathers they are staged in
    // the thread's buffer, up to 1 MiB, in tiles of whole lines of
    // columns (48 `f32` columns on 4100 rows), with the columns past the
    // last whole line one at a time.
    for inner in [16, 17, 47, 48, 49, 100] {
        check((1, 4100, inner), 4);
    }
    check((2, 2049, 35), 4);
    check((1, 2100, 70), 1);
    check((1, 3000, 40), 2);
    check((1, 2100, 9), 8);
    // 16,384 rows of a line each is as long as the buffer takes; past
    // that, the axis is read in place.
    check((1, 16_384, 16), 4);
    check((1, 16_385, 16), 4);
}
