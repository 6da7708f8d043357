//! AVX2 gathers for ReverseSubsequences: one output row of a tile, each
//! element read from the row its line's length picks.

use std::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_and_si256, _mm256_blendv_epi8, _mm256_cmpgt_epi32,
    _mm256_i32gather_epi32, _mm256_loadu_si256, _mm256_min_epu32, _mm256_mullo_epi32, _mm256_packus_epi32,
    _mm256_permute4x64_epi64, _mm256_set1_epi32, _mm256_setr_epi32, _mm256_storeu_si256, _mm256_sub_epi32,
};

use super::{Avx2, Width};

/// Writes output row `k` of a tile of ReverseSubsequences: element `j` of
/// `out` (elements of `N` bytes, 2 or 4) is element `first + j` of the
/// tile's row `source`, where `source` is `len - 1 - k` while `k < len`
/// (`len = lens[j]`) and `k` after. The tile holds `size` rows of `width`
/// elements, one after another, from the start of `tile`; `tile` must be
/// at least 4 bytes longer than that, as 2-byte elements are read 4 bytes
/// at a time.
///
/// Returns how many elements it wrote, from the start of `out`: a
/// multiple of 8 (4-byte) or 16 (2-byte) elements, 0 when the arguments do
/// not fit. The caller writes the rest.
///
/// AVX2 gathers 8 elements an instruction, which on a 32 KiB tile measured
/// about a third faster than moving them one by one. Every index is
/// computed in the vector and kept inside the tile whatever the lengths,
/// so the lengths need not be trusted.
pub(in crate::kernels::copy) fn subsequence_row<const N: usize>(
    isa: Avx2,
    tile: &[u8],
    (width, size): (usize, usize),
    k: usize,
    first: usize,
    lens: &[u32],
    out: &mut [u8],
) -> usize {
    let count = lens.len().min(out.len() / N);
    let elems = size.saturating_mul(width);
    let fits = (N == 2 || N == 4)
        && k < size
        && first.checked_add(count).is_some_and(|end| end <= width)
        && elems.checked_mul(N).and_then(|b| b.checked_add(4)).is_some_and(|b| b <= tile.len())
        && i32::try_from(elems).is_ok();
    if !fits {
        return 0;
    }
    let step = 32 / N;
    isa.run(
        #[inline(always)]
        || {
            // SAFETY: the token proves AVX2 (every intrinsic here). Indices:
            // `source` is at most `size - 1` (the minimum below) and the
            // column `first + j + lane` is below `first + count <= width`,
            // so an index is below `size * width = elems`, which fits an
            // `i32`; the gather reads 4 bytes at `N * index`, which ends at
            // most `N * elems + 4 - N <= tile.len()` bytes into `tile`.
            // Loads of `lens` and stores to `out` cover elements `j..j +
            // step`, with `j + step <= count`, inside both.
            unsafe {
                let k_lanes = _mm256_set1_epi32(k as i32);
                let last = _mm256_set1_epi32((size - 1) as i32);
                let one = _mm256_set1_epi32(1);
                let width_lanes = _mm256_set1_epi32(width as i32);
                let iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
                let base = tile.as_ptr().cast::<i32>();
                // The indices into the tile of columns `$j..$j + 8`; a macro,
                // as a closure here would be compiled on its own, without
                // AVX2, and would call the intrinsics instead of inlining
                // them.
                macro_rules! indices {
                    ($j:expr) => {{
                        let j: usize = $j;
                        let len = _mm256_loadu_si256(lens.as_ptr().add(j).cast::<__m256i>());
                        // A length above `i32::MAX` compares as negative and
                        // reads row `k`; the minimum keeps any other row in
                        // the tile.
                        let reversed = _mm256_cmpgt_epi32(len, k_lanes);
                        let from = _mm256_sub_epi32(_mm256_sub_epi32(len, one), k_lanes);
                        let source = _mm256_min_epu32(_mm256_blendv_epi8(k_lanes, from, reversed), last);
                        let column = _mm256_add_epi32(_mm256_set1_epi32((first + j) as i32), iota);
                        _mm256_add_epi32(_mm256_mullo_epi32(source, width_lanes), column)
                    }};
                }
                let mut j = 0;
                while j + step <= count {
                    let o = out.as_mut_ptr().add(j * N).cast::<__m256i>();
                    if N == 4 {
                        _mm256_storeu_si256(o, _mm256_i32gather_epi32::<4>(base, indices!(j)));
                    } else {
                        // Two gathers of 4 bytes at 2-byte steps, each
                        // element in the low half of its lane: packed to
                        // 16 bits, whose lane order the permute restores.
                        let low = _mm256_set1_epi32(0xffff);
                        let a = _mm256_and_si256(_mm256_i32gather_epi32::<2>(base, indices!(j)), low);
                        let b = _mm256_and_si256(_mm256_i32gather_epi32::<2>(base, indices!(j + 8)), low);
                        _mm256_storeu_si256(
                            o,
                            _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(a, b)),
                        );
                    }
                    j += step;
                }
                j
            }
        },
    )
}
