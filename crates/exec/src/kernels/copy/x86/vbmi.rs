//! AVX-512 VBMI: rows of 17 to 31 bytes of 1- or 2-byte elements with a
//! head each, a row a register, each placed by one byte permute across the
//! whole 32 bytes (`vpermb`) under a control its head picks.
//!
//! In AVX2 such a row takes its register twice, once with its lanes
//! swapped, and two in-lane shuffles and an `or` put it together; here one
//! permute does it. It has the 32-byte form only, which is all a row of
//! under 32 bytes fills.

use std::arch::x86_64::{_mm256_loadu_si256, _mm256_permutexvar_epi8, _mm256_storeu_si256};

use super::{Simd, Vbmi};

/// Writes the first `count` rows of `row` bytes (17 to 31, a multiple of
/// `N`, 1 or 2) of `src` into `dst`, row `r` with a head of as many
/// elements as the `r`-th of `heads` says (cut to `row / N`) reversed and
/// the rest in order; `only`, when given, is the head of every row, and
/// only its control is worked out. The 32 bytes at each row's start must
/// lie inside both slices (`count` is at most `narrow_rows_in`); each
/// store writes past its row into the next, which that row writes again,
/// and past the last row up to 32 bytes from its start. Returns the bytes
/// of the rows written, or 0 for other rows.
#[inline(always)]
pub(in crate::kernels::copy) fn byte_rows<const N: usize>(
    isa: Vbmi,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    count: usize,
    heads: impl Iterator<Item = usize>,
    only: Option<usize>,
) -> usize {
    if !(17..32).contains(&row) || !matches!(N, 1 | 2) || !row.is_multiple_of(N) {
        return 0;
    }
    let count = count.min(super::narrow_rows_in(src, dst, row, N));
    let most = row / N;
    // For a head of `h` elements, output byte `j` of the row: inside the
    // head, byte `j % N` of element `h - 1 - j / N`; past it, byte `j`.
    // The bytes past the row are never kept, so they take any.
    let mut controls = [[0u8; 32]; 32];
    for (h, control) in controls.iter_mut().enumerate().take(most + 1) {
        if only.is_some_and(|only| only != h) {
            continue;
        }
        for (j, byte) in control.iter_mut().enumerate() {
            let from = if j < h * N { (h - 1 - j / N) * N + j % N } else { j };
            *byte = from as u8;
        }
    }
    isa.run(
        #[inline(always)]
        move || {
            let mut done = 0;
            for (r, h) in heads.take(count).enumerate() {
                let Some(control) = controls.get(h.min(most)) else {
                    break;
                };
                // SAFETY: `r < count <= narrow_rows_in(..)`, so the 32 bytes
                // at `r * row` lie inside both `src` and `dst`; a control is
                // 32 bytes; the loads and the store take any address; the
                // token proves VBMI and VL, which the permute needs (and so
                // AVX, which the loads and the store need).
                unsafe {
                    let control = _mm256_loadu_si256(control.as_ptr().cast());
                    let v = _mm256_loadu_si256(src.as_ptr().add(r * row).cast());
                    _mm256_storeu_si256(
                        dst.as_mut_ptr().add(r * row).cast(),
                        _mm256_permutexvar_epi8(control, v),
                    );
                }
                done += row;
            }
            done
        },
    )
}
