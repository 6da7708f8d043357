//! AVX2 gathers for ReverseSubsequences: a few columns of a staged tile
//! down every output row, each element read from the row its line's length
//! picks.

use std::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_and_si256, _mm256_blendv_epi8, _mm256_castsi256_si128,
    _mm256_cmpgt_epi32, _mm256_i32gather_epi32, _mm256_loadu_si256, _mm256_min_epu32, _mm256_mullo_epi32,
    _mm256_packus_epi32, _mm256_permute4x64_epi64, _mm256_set1_epi32, _mm256_setr_epi32, _mm256_sub_epi32,
    _mm_storeu_si128,
};

use super::{Avx2, Plain, Simd, Stores, Streaming};

/// Columns per index register: eight 32-bit indices.
const LANES: usize = 8;

/// Writes output rows `k0..=k1` of columns `first..first + count` of a
/// staged ReverseSubsequences tile, elements of `N` bytes (2 or 4).
/// The tile holds `size` rows, `pitch` bytes apart from the start of
/// `tile`. Column `first + j` of output row `k` lands at `(k - k0) *
/// out_stride + j * N` in `out`, and is that column's element in row `len
/// - 1 - k` while `k < len = lens[j]`, and in row `k` after.
///
/// `count` is `lens.len()` rounded down to a multiple of 8; the function
/// returns it, or 0, having written nothing, when the arguments do not
/// fit. The caller writes the columns left over.
///
/// The columns go a cache line at a time (16 `f32` or 32 `f16`)
/// down all the rows, so that the lines a column group reads, one per row
/// of the tile, stay in the L1 cache from the first output row to the last,
/// however the lengths scatter its reads; row by row across a whole tile
/// of 128 KiB, four times the L1 cache, the lines gathered from could not
/// all stay in it. Rows an odd number of lines apart keep a group's lines
/// in different sets of the cache.
/// Each index is kept in the vector as it steps down the tile, the
/// reversed one up a row and the straight one down a row per output row,
/// and every length is first capped at `size`, so the indices stay inside
/// the tile whatever the lengths are.
///
/// With `stream`, where `out` and `out_stride` are multiples of 32 bytes,
/// the stores are streaming ones, fenced before it returns: each row of a
/// column group is one whole line, sent to memory without being read
/// first (the 16-byte stores of a last single register of 2-byte elements
/// go through the cache). Elsewhere they are ordinary stores.
#[allow(clippy::too_many_arguments)]
pub(in crate::kernels::copy) fn subsequence_columns<const N: usize>(
    isa: Avx2,
    stream: bool,
    tile: &[u8],
    shape: (usize, usize),
    first: usize,
    lens: &[u32],
    rows: (usize, usize),
    (out, out_stride): (&mut [u8], usize),
) -> usize {
    if stream && super::aligned(out.as_ptr(), 32) && out_stride.is_multiple_of(32) {
        // SAFETY: the fence follows the only call that stores with this
        // witness, which does not unwind: a misfit returns 0, and its only
        // indices are loop counters below the lengths of fixed arrays.
        let stores = unsafe { Streaming::new() };
        let done = columns_with::<N, _>(isa, stores, tile, shape, first, lens, rows, out, out_stride);
        stores.fence();
        done
    } else {
        columns_with::<N, _>(isa, Plain, tile, shape, first, lens, rows, out, out_stride)
    }
}

/// [`subsequence_columns`] with the stores `S`; with
/// [`Streaming`](super::Streaming) ones, `out` and `out_stride` must be
/// multiples of 32 bytes, or nothing is written.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn columns_with<const N: usize, S: Stores>(
    isa: Avx2,
    stores: S,
    tile: &[u8],
    (pitch, size): (usize, usize),
    first: usize,
    lens: &[u32],
    (k0, k1): (usize, usize),
    out: &mut [u8],
    out_stride: usize,
) -> usize {
    let count = lens.len() / LANES * LANES;
    // The bytes the last element's read ends at: 2-byte elements are
    // gathered 4 bytes at a time.
    let read = if N == 2 { 4 } else { N };
    let tile_end = (size.wrapping_sub(1))
        .checked_mul(pitch)
        .and_then(|rows| rows.checked_add(first.checked_add(count)?.checked_sub(1)?.checked_mul(N)?))
        .and_then(|end| end.checked_add(read));
    let out_end = (k1.wrapping_sub(k0)).checked_mul(out_stride).and_then(|rows| rows.checked_add(count * N));
    let fits = matches!(N, 2 | 4)
        && count > 0
        && k0 <= k1
        && k1 < size
        && tile_end.is_some_and(|end| end <= tile.len() && i32::try_from(end).is_ok())
        && out_end.is_some_and(|end| end <= out.len())
        && (!S::STREAMING || (super::aligned(out.as_ptr(), 32) && out_stride.is_multiple_of(32)));
    if !fits {
        return 0;
    }
    // Index registers per group of a cache line.
    let group = 64 / (LANES * N);
    isa.run(
        #[inline(always)]
        || {
            // SAFETY: the token proves AVX2 (every intrinsic here).
            // Indices: every length is capped at `size`, so a lane whose
            // `len > k` reads row `len - 1 - k < size` and any other lane
            // row `k <= k1 < size`; its column `first + j + lane` is below
            // `first + count`. The index `row * pitch + column * N` is at
            // most `tile_end - read`, which fits an `i32`, and the read
            // ends inside `tile`. Lengths are loaded 8 at a time from `j
            // + 8 <= count <= lens.len()`; the stores of row `k` cover
            // `(k - k0) * out_stride + j * N` up to `(k - k0) * out_stride
            // + (j + 8 * regs) * N`, with `j + 8 * regs <= count`: at most
            // `out_end <= out.len()`. The row's pointer is made for the
            // rows `k0..=k1` only. Streaming stores: `out` and
            // `out_stride` are multiples of 32, and so is every 32-byte
            // store's offset: `j * N + 32 * r` for 4-byte elements, with
            // `j` a multiple of 8, and `j * N + 16 * r` with `r` even for
            // 2-byte ones, where `j` is a multiple of 32 while there are
            // two registers or more (the one-register tail stores 16
            // bytes, through the cache).
            unsafe {
                let base = tile.as_ptr();
                let out = out.as_mut_ptr();
                let step = _mm256_set1_epi32(pitch as i32);
                let cap = _mm256_set1_epi32(size as i32);
                let n = N as i32;
                let offsets = _mm256_setr_epi32(0, n, 2 * n, 3 * n, 4 * n, 5 * n, 6 * n, 7 * n);
                let start = _mm256_set1_epi32(k0 as i32);
                let next = _mm256_add_epi32(start, _mm256_set1_epi32(1));
                let low = _mm256_set1_epi32(0xffff);
                // Columns `$j..$j + 8 * $regs` down rows `k0..=k1`, with
                // `$regs` index registers (a literal, so that the arrays
                // below live in registers).
                macro_rules! columns {
                    ($j:expr, $regs:literal) => {{
                        let j: usize = $j;
                        let mut len = [step; $regs];
                        let mut straight = [step; $regs];
                        let mut reversed = [step; $regs];
                        for r in 0..$regs {
                            let l = _mm256_loadu_si256(lens.as_ptr().add(j + r * LANES).cast::<__m256i>());
                            len[r] = _mm256_min_epu32(l, cap);
                            let column = _mm256_add_epi32(
                                _mm256_set1_epi32(((first + j + r * LANES) * N) as i32),
                                offsets,
                            );
                            straight[r] = _mm256_add_epi32(_mm256_mullo_epi32(start, step), column);
                            // Wraps where `len <= k0`, a lane the row
                            // `k` of `straight` takes.
                            reversed[r] = _mm256_add_epi32(
                                _mm256_mullo_epi32(_mm256_sub_epi32(len[r], next), step),
                                column,
                            );
                        }
                        let mut k_lanes = start;
                        for row in 0..=k1 - k0 {
                            let o = out.add(row * out_stride + j * N);
                            let mut index = [step; $regs];
                            for r in 0..$regs {
                                let flip = _mm256_cmpgt_epi32(len[r], k_lanes);
                                index[r] = _mm256_blendv_epi8(straight[r], reversed[r], flip);
                                straight[r] = _mm256_add_epi32(straight[r], step);
                                reversed[r] = _mm256_sub_epi32(reversed[r], step);
                            }
                            match N {
                                4 => {
                                    for r in 0..$regs {
                                        let v = _mm256_i32gather_epi32::<1>(base.cast(), index[r]);
                                        isa.store(stores, o.add(32 * r), v);
                                    }
                                }
                                _ => {
                                    // 4 bytes gathered per 2-byte element,
                                    // kept in the low half of its lane and
                                    // packed to 16 bits, whose lane order
                                    // the permute restores.
                                    macro_rules! gather {
                                        ($index:expr) => {
                                            _mm256_and_si256(
                                                _mm256_i32gather_epi32::<1>(base.cast(), $index),
                                                low,
                                            )
                                        };
                                    }
                                    let mut r = 0;
                                    while r + 2 <= $regs {
                                        let (a, b) = (gather!(index[r]), gather!(index[r + 1]));
                                        let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(
                                            _mm256_packus_epi32(a, b),
                                        );
                                        isa.store(stores, o.add(16 * r), v);
                                        r += 2;
                                    }
                                    if r < $regs {
                                        let a = gather!(index[r]);
                                        let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(
                                            _mm256_packus_epi32(a, a),
                                        );
                                        _mm_storeu_si128(o.add(16 * r).cast(), _mm256_castsi256_si128(v));
                                    }
                                }
                            }
                            k_lanes = _mm256_add_epi32(k_lanes, _mm256_set1_epi32(1));
                        }
                    }};
                }
                let mut j = 0;
                while j + group * LANES <= count {
                    if group == 4 {
                        columns!(j, 4);
                    } else {
                        columns!(j, 2);
                    }
                    j += group * LANES;
                }
                while j < count {
                    columns!(j, 1);
                    j += LANES;
                }
                count
            }
        },
    )
}
