//! ReverseSubsequences on axes of up to 8 rows, transposed in registers:
//! with AVX2, once the rows of a register's width of columns are turned
//! into lines, a line of 1- or 2-byte elements fits in one 16-byte lane, a
//! line of 4-byte ones in a register and one of 8-byte ones in two, so that
//! one shuffle (two, and a blend, for 8 bytes), its control computed from
//! the line's length, reverses its head. It has one width because the
//! 32-bit and 64-bit lines need AVX2's lane-crossing permutes. On 3 and 4
//! rows of 1- and 2-byte elements, four registers make the network. On longer
//! axes, every width goes through lines staged in a buffer, each
//! output row built from windows of them (`subsequence_lines`).

use std::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_add_epi8, _mm256_and_si256, _mm256_blendv_epi8,
    _mm256_broadcastsi128_si256, _mm256_castsi128_si256, _mm256_cmpgt_epi16, _mm256_cmpgt_epi32,
    _mm256_cmpgt_epi64, _mm256_cmpgt_epi8, _mm256_cvtepi32_epi64, _mm256_cvtepu8_epi16, _mm256_cvtepu8_epi32,
    _mm256_loadu_si256, _mm256_min_epu32, _mm256_min_epu8, _mm256_packs_epi16, _mm256_packs_epi32,
    _mm256_packus_epi16, _mm256_packus_epi32, _mm256_permute2x128_si256, _mm256_permute4x64_epi64,
    _mm256_permutevar8x32_epi32, _mm256_set1_epi16, _mm256_set1_epi32, _mm256_set1_epi64x, _mm256_set1_epi8,
    _mm256_setr_epi16, _mm256_setr_epi32, _mm256_setr_epi64x, _mm256_setr_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_storeu_si256, _mm256_sub_epi32, _mm256_unpackhi_epi16, _mm256_unpackhi_epi32,
    _mm256_unpackhi_epi64, _mm256_unpackhi_epi8, _mm256_unpacklo_epi16, _mm256_unpacklo_epi32,
    _mm256_unpacklo_epi64, _mm256_unpacklo_epi8, _mm_cmpgt_epi32, _mm_cvtepu8_epi32, _mm_cvtsi32_si128,
    _mm_loadl_epi64, _mm_loadu_si128, _mm_min_epu32, _mm_set1_epi32,
};

use super::{Avx2, Simd};
use crate::kernels::copy::{line_group, line_pitch, TRANSPOSED_ROWS};
use crate::kernels::counts::Count;

/// Rows a group holds: the register count of the transposing network.
const ROWS: usize = TRANSPOSED_ROWS;

/// Registers of the buffer [`subsequence_lines`] copies a group of rows
/// into before turning them into lines (8 KiB).
const STAGE_REGISTERS: usize = 256;

/// Row `r`'s register once the network has turned the lines back into
/// rows: its three bits in reverse order.
const fn reversed_bits(r: usize) -> usize {
    (r & 1) << 2 | (r & 2) | (r >> 2 & 1)
}

/// The constant controls of the shuffle that reverses each line's head,
/// for `N`-byte elements.
///
/// For 1 and 2 bytes, byte `y` of each lane of that shuffle's output holds
/// row `r` of half `z` of the lane, where `r`'s bits are `y`'s bits 3, 2
/// and 1, lowest first, and `z` is `y`'s bit 0: the order in which the
/// network back to rows wants them. `z` is the line (of two in a lane) for
/// 1-byte elements, and the byte of the element for 2-byte ones. For 4
/// bytes, a line is a register and element `y` holds row `y`; for 8 bytes,
/// 32-bit lane `d` of a register belongs to row `d / 2` of the first half
/// of a line, or row `4 + d / 2` of the second.
struct Controls<const N: usize>;

impl<const N: usize> Controls<N> {
    /// Bytes from one line to the next in a lane, and from one row to the
    /// next in a line, once the rows are lines: for 4- and 8-byte elements,
    /// a row is one step of the permutes' indices.
    const LINE_STEP: i8 = if N == 1 { 8 } else { 1 };
    const ROW_STEP: i8 = if N >= 4 { 1 } else { N as i8 };

    /// The row of byte `y` of a lane (1- and 2-byte elements).
    const fn row(y: usize) -> i8 {
        ((y >> 3 & 1) | (y >> 2 & 1) << 1 | (y >> 1 & 1) << 2) as i8
    }

    /// The constant whose byte `y` (or, for 4- and 8-byte elements, 32-bit
    /// lane `y / 4`) is `at(y)`, where `line` is `y`'s half of its lane and
    /// `row` its row: `at` is `line * line_step + row * row_step + add`.
    const fn make(line_step: i8, row_step: i8, add: i8) -> [i8; 32] {
        let mut c = [0i8; 32];
        let mut y = 0;
        while y < 32 {
            // For 8-byte elements, the row of the element 32-bit lane
            // `y / 4` belongs to.
            let element = if N == 8 { y / 8 } else { y / 4 };
            c[y] = if N >= 4 {
                if y % 4 == 0 {
                    row_step * element as i8 + add
                } else if row_step * element as i8 + add < 0 {
                    -1
                } else {
                    0
                }
            } else {
                (y & 1) as i8 * line_step + row_step * Self::row(y % 16) + add
            };
            y += 1;
        }
        c
    }

    /// For 8-byte elements, per 32-bit lane `d`: the row `4 + d / 2` of
    /// the element it belongs to in the second half of a line.
    const RANK_HIGH: [i8; 32] = {
        let mut c = [0i8; 32];
        let mut d = 0;
        while d < 8 {
            c[4 * d] = 4 + (d / 2) as i8;
            d += 1;
        }
        c
    };

    /// A byte's (or element's) row times the row step, compared with the
    /// length times the row step to tell the bytes in a line's reversed
    /// head.
    const RANK: [i8; 32] = Self::make(0, Self::ROW_STEP, 0);

    /// What a byte takes outside the head: its own row.
    const STRAIGHT: [i8; 32] = Self::make(Self::LINE_STEP, Self::ROW_STEP, 0);

    /// What a byte takes inside the head, less the length times the row
    /// step: row `len - 1 - r`.
    const REVERSED: [i8; 32] = Self::make(Self::LINE_STEP, -Self::ROW_STEP, -Self::ROW_STEP);

    /// For register `m` of the lines: per byte, where its line's length
    /// lies in each lane of the lengths register (1- and 2-byte elements).
    const SPREAD: [[i8; 32]; ROWS] = {
        let mut c = [[0i8; 32]; ROWS];
        let mut m = 0;
        while m < ROWS {
            let mut y = 0;
            while y < 32 {
                c[m][y] =
                    if N == 1 { (reversed_bits(m) << 1 | (y & 1)) as i8 } else { reversed_bits(m) as i8 };
                y += 1;
            }
            m += 1;
        }
        c
    };
}

/// The constant controls of [`subsequence_transposed`] on axes of 3 and 4
/// rows, for 1- and 2-byte elements, where four registers make the
/// network. Two rounds of interleaves leave each 32-bit (1 byte) or 64-bit
/// (2 bytes) piece of a lane holding one line, rows 0 to 3 in order, and
/// register `m` holding the lines of columns `base(m)` on, `base(m)` being
/// `4 / N` times `m`'s two bits in reverse order. The shuffle that reverses
/// the heads also turns each register's block of lines into rows: byte
/// `4 r + N c + z` of a lane takes byte `z` of row `r`'s element of line
/// `c`, so that 32-bit piece `r` of register `m` is row `r` of its block.
struct Controls4<const N: usize>;

impl<const N: usize> Controls4<N> {
    /// The table whose byte `4 r + N c + z` of each lane is `line * c +
    /// row * r + add + z`, or the length's place for `spread`.
    const fn make(line: i8, row: i8, add: i8, spread: Option<usize>) -> [i8; 32] {
        let n = if N == 0 { 1 } else { N };
        let mut t = [0i8; 32];
        let mut y = 0;
        while y < 32 {
            let pos = y % 16;
            let (r, c, z) = ((pos / 4) as i8, ((pos % 4) / n) as i8, (pos % n) as i8);
            t[y] = match spread {
                Some(m) => (4 / n * ((m & 1) << 1 | m >> 1)) as i8 + c,
                None => line * c + row * r + add + z,
            };
            y += 1;
        }
        t
    }

    /// A byte's row times `N`, compared with the length times `N`.
    const RANK: [i8; 32] = Self::make(0, N as i8, 0, None);

    /// What a byte takes outside the head: its own row.
    const STRAIGHT: [i8; 32] = Self::make(4 * N as i8, N as i8, 0, None);

    /// What a byte takes inside the head, less the length times `N`: row
    /// `len - 1 - r`.
    const REVERSED: [i8; 32] = Self::make(4 * N as i8, -(N as i8), -(N as i8), None);

    /// For register `m`: per byte, where its line's length lies in the
    /// lane of the lengths register.
    const SPREAD: [[i8; 32]; 4] = [
        Self::make(0, 0, 0, Some(0)),
        Self::make(0, 0, 0, Some(1)),
        Self::make(0, 0, 0, Some(2)),
        Self::make(0, 0, 0, Some(3)),
    ];
}

/// Whether reading columns `first..first + count` of `size` rows, `stride`
/// bytes apart, stays inside an input of `input` bytes, and writing rows
/// `k0..=k1` of them, `out_stride` bytes apart, inside an output of `out`
/// bytes, for `n`-byte elements: the rows in order and inside the axis, and
/// no end past `usize`. The bounds the kernels' pointers rest on.
fn within(
    n: usize,
    (input, stride, size): (usize, usize, usize),
    first: usize,
    count: usize,
    (k0, k1): (usize, usize),
    (out, out_stride): (usize, usize),
) -> bool {
    let ends = || {
        let in_end = size
            .checked_sub(1)?
            .checked_mul(stride)?
            .checked_add(first.checked_add(count)?.checked_mul(n)?)?;
        let out_end = k1.checked_sub(k0)?.checked_mul(out_stride)?.checked_add(count.checked_mul(n)?)?;
        Some((in_end, out_end))
    };
    k1 < size && ends().is_some_and(|(in_end, out_end)| in_end <= input && out_end <= out)
}

/// Writes output rows `k0..=k1` of columns `first..first + count` of one
/// block of ReverseSubsequences on an axis of `size` rows (2 to 8), with
/// elements of `N` bytes (1, 2, 4 or 8). Row `r` of the block's input
/// starts at `r * stride` in `input`. Column `first + j` of output row `k` lands at
/// `(k - k0) * out_stride + j * N` in `out`, and is that column's element in
/// row `len - 1 - k` while `k < len = lens[j]`, and in row `k` after.
///
/// `count` is `lens.len()` rounded down to a multiple of a register's
/// elements; the function returns it, or 0, having written nothing, when
/// the arguments do not fit. The caller writes the columns left over.
///
/// On 2 rows, a line of length 2 swaps them and any other keeps them, so
/// each output row is one blend of the two input rows. On more, a register
/// of columns is read from all the rows (8 registers, zeros past the axis),
/// turned into lines by rounds of interleaves (three, or two for 8-byte
/// elements), each line's head reversed by a shuffle whose control comes
/// from its length by a compare and a blend, and turned back into rows by
/// as many rounds:
/// - 1- and 2-byte elements: each lane then holds two lines of 8 bytes, or
///   one of 8 two-byte elements, and the in-lane shuffle also puts the
///   bytes in the order the rounds back want.
/// - 4-byte elements: a register holds a line, reversed by one permute.
/// - 8-byte elements: two rounds on each half of the registers leave a
///   register with half a line, and each half of the output takes two
///   permutes and a blend.
///
/// On 3 and 4 rows, 1- and 2-byte elements go through a network of four
/// registers instead ([`Controls4`]): two rounds of interleaves leave a
/// line in each 32- or 64-bit piece, the shuffle that reverses the heads
/// also turns each register's lines into rows, and a 4×4 transpose of
/// 32-bit pieces puts the rows together; half the work of the eight
/// registers, half of them empty.
///
/// No row is staged in memory, and no line is read twice; every length is
/// first capped at `size`, so no line reads a row past the axis. On 8 rows
/// this is 13 to 18 instructions per register written, where the shifter
/// makes `log2(size)` passes over a buffer and a gather takes about a cycle
/// an element.
#[allow(clippy::too_many_arguments)]
pub(in crate::kernels::copy) fn subsequence_transposed<const N: usize, C: Count>(
    isa: Avx2,
    input: &[u8],
    (stride, size): (usize, usize),
    first: usize,
    lens: &[C],
    (k0, k1): (usize, usize),
    out: &mut [u8],
    out_stride: usize,
) -> usize {
    let per = 32 / N.max(1);
    let count = lens.len() / per * per;
    // Lengths of 4 bytes, or of one.
    let bytes = std::mem::size_of::<C>() == 1;
    let fits = matches!(N, 1 | 2 | 4 | 8)
        && matches!(std::mem::size_of::<C>(), 1 | 4)
        && count > 0
        && (2..=ROWS).contains(&size)
        && within(N, (input.len(), stride, size), first, count, (k0, k1), (out.len(), out_stride));
    if !fits {
        return 0;
    }
    isa.run(
        #[inline(always)]
        || {
            // SAFETY: the token proves AVX2 (every intrinsic here). With
            // `in_end = (size - 1) * stride + (first + count) * N` and
            // `out_end = (k1 - k0) * out_stride + count * N`, which `within`
            // has checked against the slices' lengths. Loads: row `r <
            // size` of columns `j..j + per`, with `j + per <= count`, ends
            // at `r * stride + (first + j + per) * N <= in_end`; lengths
            // are read 4 to 32 at a time, of 4 bytes or of one, never past
            // `j + per <= count <= lens.len()` (`per` is 32, 16, 8 or 4
            // columns).
            // Stores: row `k` in `k0..=k1` of the same columns ends at
            // `(k - k0) * out_stride + (j + per) * N <= out_end`. The
            // constants are 32 bytes each.
            unsafe {
                let input = input.as_ptr();
                let out = out.as_mut_ptr();
                macro_rules! constant {
                    ($c:expr) => {
                        _mm256_loadu_si256($c.as_ptr().cast::<__m256i>())
                    };
                }
                let rank = constant!(Controls::<N>::RANK);
                let straight = constant!(Controls::<N>::STRAIGHT);
                let reversed = constant!(Controls::<N>::REVERSED);
                let cap32 = _mm256_set1_epi32(size as i32);
                let zero = _mm256_setzero_si256();
                // Lengths `$at..$at + 8` as `u32`s, capped at `size`.
                macro_rules! load {
                    ($at:expr) => {
                        _mm256_min_epu32(
                            if bytes {
                                _mm256_cvtepu8_epi32(_mm_loadl_epi64(lens.as_ptr().add($at).cast()))
                            } else {
                                _mm256_loadu_si256(lens.as_ptr().add($at).cast())
                            },
                            cap32,
                        )
                    };
                }
                // Lengths `$at..$at + 4` as `u32`s, not capped.
                macro_rules! load4 {
                    ($at:expr) => {
                        if bytes {
                            _mm_cvtepu8_epi32(_mm_cvtsi32_si128(
                                lens.as_ptr().add($at).cast::<i32>().read_unaligned(),
                            ))
                        } else {
                            _mm_loadu_si128(lens.as_ptr().add($at).cast())
                        }
                    };
                }
                if size == 2 {
                    // Two rows: a line of length 2 swaps them, and any
                    // other keeps them, so each output row is a blend of
                    // the two under a mask of the lines that swap.
                    let one = _mm256_set1_epi32(1);
                    for j in (0..count).step_by(per) {
                        let swap = match N {
                            // Lengths of a byte: one load, as wide as the
                            // elements.
                            1 if bytes => _mm256_cmpgt_epi8(
                                _mm256_min_epu8(
                                    _mm256_loadu_si256(lens.as_ptr().add(j).cast()),
                                    _mm256_set1_epi8(2),
                                ),
                                _mm256_set1_epi8(1),
                            ),
                            2 if bytes => _mm256_cmpgt_epi16(
                                _mm256_cvtepu8_epi16(_mm_loadu_si128(lens.as_ptr().add(j).cast())),
                                _mm256_set1_epi16(1),
                            ),
                            1 => {
                                let a = _mm256_packs_epi32(
                                    _mm256_cmpgt_epi32(load!(j), one),
                                    _mm256_cmpgt_epi32(load!(j + 8), one),
                                );
                                let b = _mm256_packs_epi32(
                                    _mm256_cmpgt_epi32(load!(j + 16), one),
                                    _mm256_cmpgt_epi32(load!(j + 24), one),
                                );
                                _mm256_permutevar8x32_epi32(
                                    _mm256_packs_epi16(a, b),
                                    _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7),
                                )
                            }
                            2 => _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi32(
                                _mm256_cmpgt_epi32(load!(j), one),
                                _mm256_cmpgt_epi32(load!(j + 8), one),
                            )),
                            4 => _mm256_cmpgt_epi32(load!(j), one),
                            _ => _mm256_cvtepi32_epi64(_mm_cmpgt_epi32(
                                _mm_min_epu32(load4!(j), _mm_set1_epi32(2)),
                                _mm_set1_epi32(1),
                            )),
                        };
                        let at = input.add((first + j) * N);
                        let (top, bottom) =
                            (_mm256_loadu_si256(at.cast()), _mm256_loadu_si256(at.add(stride).cast()));
                        for (k, (near, far)) in [(top, bottom), (bottom, top)].into_iter().enumerate() {
                            if k0 <= k && k <= k1 {
                                let v = _mm256_blendv_epi8(near, far, swap);
                                _mm256_storeu_si256(out.add((k - k0) * out_stride + j * N).cast(), v);
                            }
                        }
                    }
                    return count;
                }
                // Lengths `j..j + per` a byte each, times the row step
                // (`N`): for 1-byte elements column `c` of the register at
                // byte `c`, for 2-byte ones column `c` of lane `l` at byte
                // `c - 8 l` of lane `l`.
                macro_rules! byte_lengths {
                    ($j:expr) => {
                        if bytes {
                            // Already a byte each: capped, and for 2-byte
                            // elements each lane's 8 put at its start.
                            let cap = _mm256_set1_epi8(size as i8);
                            if N == 1 {
                                _mm256_min_epu8(_mm256_loadu_si256(lens.as_ptr().add($j).cast()), cap)
                            } else {
                                let l = _mm256_min_epu8(
                                    _mm256_permute4x64_epi64::<0b01_01_00_00>(_mm256_castsi128_si256(
                                        _mm_loadu_si128(lens.as_ptr().add($j).cast()),
                                    )),
                                    cap,
                                );
                                _mm256_add_epi8(l, l)
                            }
                        } else if N == 1 {
                            let a = _mm256_packus_epi32(load!($j), load!($j + 8));
                            let b = _mm256_packus_epi32(load!($j + 16), load!($j + 24));
                            _mm256_permutevar8x32_epi32(
                                _mm256_packus_epi16(a, b),
                                _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7),
                            )
                        } else {
                            let a = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(
                                load!($j),
                                load!($j + 8),
                            ));
                            let l = _mm256_packus_epi16(a, a);
                            _mm256_add_epi8(l, l)
                        }
                    };
                }
                if N <= 2 && size <= 4 {
                    // Three or four rows: a network of four registers, its
                    // lines in 32- or 64-bit pieces (see `Controls4`).
                    let rank = constant!(Controls4::<N>::RANK);
                    let straight = constant!(Controls4::<N>::STRAIGHT);
                    let reversed = constant!(Controls4::<N>::REVERSED);
                    for j in (0..count).step_by(per) {
                        let mut v = [zero; 4];
                        for (r, v) in v.iter_mut().enumerate().take(size) {
                            *v = _mm256_loadu_si256(input.add(r * stride + (first + j) * N).cast());
                        }
                        let lengths = byte_lengths!(j);
                        let (a, b) = if N == 1 {
                            (
                                [_mm256_unpacklo_epi8(v[0], v[1]), _mm256_unpackhi_epi8(v[0], v[1])],
                                [_mm256_unpacklo_epi8(v[2], v[3]), _mm256_unpackhi_epi8(v[2], v[3])],
                            )
                        } else {
                            (
                                [_mm256_unpacklo_epi16(v[0], v[1]), _mm256_unpackhi_epi16(v[0], v[1])],
                                [_mm256_unpacklo_epi16(v[2], v[3]), _mm256_unpackhi_epi16(v[2], v[3])],
                            )
                        };
                        let lines = if N == 1 {
                            [
                                _mm256_unpacklo_epi16(a[0], b[0]),
                                _mm256_unpacklo_epi16(a[1], b[1]),
                                _mm256_unpackhi_epi16(a[0], b[0]),
                                _mm256_unpackhi_epi16(a[1], b[1]),
                            ]
                        } else {
                            [
                                _mm256_unpacklo_epi32(a[0], b[0]),
                                _mm256_unpacklo_epi32(a[1], b[1]),
                                _mm256_unpackhi_epi32(a[0], b[0]),
                                _mm256_unpackhi_epi32(a[1], b[1]),
                            ]
                        };
                        // Each head reversed, each block of lines turned
                        // into rows; `blocks[q]` holds the columns `q * 4 /
                        // N` on of each lane.
                        let mut blocks = [zero; 4];
                        for (m, line) in lines.into_iter().enumerate() {
                            let len = _mm256_shuffle_epi8(lengths, constant!(Controls4::<N>::SPREAD[m]));
                            let head = _mm256_cmpgt_epi8(len, rank);
                            let control = _mm256_blendv_epi8(straight, _mm256_add_epi8(len, reversed), head);
                            blocks[(m & 1) << 1 | m >> 1] = _mm256_shuffle_epi8(line, control);
                        }
                        // A 4×4 transpose of 32-bit pieces: row `r` is
                        // piece `r` of every block.
                        let (lo, hi) = (
                            [
                                _mm256_unpacklo_epi32(blocks[0], blocks[1]),
                                _mm256_unpacklo_epi32(blocks[2], blocks[3]),
                            ],
                            [
                                _mm256_unpackhi_epi32(blocks[0], blocks[1]),
                                _mm256_unpackhi_epi32(blocks[2], blocks[3]),
                            ],
                        );
                        let rows = [
                            _mm256_unpacklo_epi64(lo[0], lo[1]),
                            _mm256_unpackhi_epi64(lo[0], lo[1]),
                            _mm256_unpacklo_epi64(hi[0], hi[1]),
                            _mm256_unpackhi_epi64(hi[0], hi[1]),
                        ];
                        for (k, row) in rows.into_iter().enumerate() {
                            if k0 <= k && k <= k1 {
                                _mm256_storeu_si256(out.add((k - k0) * out_stride + j * N).cast(), row);
                            }
                        }
                    }
                    return count;
                }
                let mut j = 0;
                while j < count {
                    let mut v = [zero; ROWS];
                    for (r, v) in v.iter_mut().enumerate() {
                        if r < size {
                            *v = _mm256_loadu_si256(input.add(r * stride + (first + j) * N).cast());
                        }
                    }
                    // An interleave of registers whose numbers differ in
                    // `$bit`: the low halves of each lane (or the low lanes)
                    // into the first, the high ones into the second.
                    macro_rules! round {
                        ($bit:literal, $lo:expr, $hi:expr) => {
                            for x in 0..ROWS {
                                if x & $bit == 0 {
                                    let (a, b) = (v[x], v[x | $bit]);
                                    v[x] = $lo(a, b);
                                    v[x | $bit] = $hi(a, b);
                                }
                            }
                        };
                    }
                    if N == 8 {
                        // Rows into lines, half a line a register: 4
                        // columns of the 4 rows of registers 0 to 3 (and 4
                        // to 7), by interleaves of elements, then of lanes.
                        // Register `m` then holds rows `4 h..4 h + 4` of
                        // column `c`, with `h` and `c` `m`'s bit 2 and bits
                        // 0 and 1.
                        round!(1, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64);
                        round!(2, _mm256_permute2x128_si256::<0x20>, _mm256_permute2x128_si256::<0x31>);
                        let lengths = _mm256_min_epu32(_mm256_broadcastsi128_si256(load4!(j)), cap32);
                        let (low, high, odd, three) = (
                            constant!(Controls::<N>::RANK),
                            constant!(Controls::<N>::RANK_HIGH),
                            _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1),
                            _mm256_set1_epi32(3),
                        );
                        for c in 0..4 {
                            let len = _mm256_permutevar8x32_epi32(lengths, _mm256_set1_epi32(c as i32));
                            let (near, far) = (v[c], v[c + 4]);
                            for (h, rank) in [(0, low), (1, high)] {
                                // Per 32-bit half of each element: the row
                                // it reads, then where that row lies.
                                let head = _mm256_cmpgt_epi32(len, rank);
                                let reversed =
                                    _mm256_sub_epi32(_mm256_sub_epi32(len, rank), _mm256_set1_epi32(1));
                                let from = _mm256_blendv_epi8(rank, reversed, head);
                                let within = _mm256_and_si256(from, three);
                                let control = _mm256_add_epi32(_mm256_add_epi32(within, within), odd);
                                v[c + 4 * h] = _mm256_blendv_epi8(
                                    _mm256_permutevar8x32_epi32(near, control),
                                    _mm256_permutevar8x32_epi32(far, control),
                                    _mm256_cmpgt_epi32(from, three),
                                );
                            }
                        }
                        // Lines into rows, each in the register of its
                        // number.
                        round!(2, _mm256_permute2x128_si256::<0x20>, _mm256_permute2x128_si256::<0x31>);
                        round!(1, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64);
                    } else if N == 4 {
                        // Rows into lines, a line a register: interleaves
                        // of 1 and 2 elements, then of lanes.
                        round!(1, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32);
                        round!(2, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64);
                        round!(4, _mm256_permute2x128_si256::<0x20>, _mm256_permute2x128_si256::<0x31>);
                        // Register `m` holds column `4 m2 + 2 m0 + m1` (`m`'s
                        // bits); each head reversed across the register.
                        let lengths = load!(j);
                        for (m, v) in v.iter_mut().enumerate() {
                            let column = (m >> 2) * 4 + (m & 1) * 2 + (m >> 1 & 1);
                            let len = _mm256_permutevar8x32_epi32(lengths, _mm256_set1_epi32(column as i32));
                            let head = _mm256_cmpgt_epi32(len, rank);
                            let control = _mm256_blendv_epi8(straight, _mm256_add_epi32(len, reversed), head);
                            *v = _mm256_permutevar8x32_epi32(*v, control);
                        }
                        // Lines into rows, each in the register of its
                        // number.
                        round!(2, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32);
                        round!(1, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64);
                        round!(4, _mm256_permute2x128_si256::<0x20>, _mm256_permute2x128_si256::<0x31>);
                    } else {
                        // The lengths, a byte each, times the row step: for
                        // 1-byte elements column `c` of the register at byte
                        // `c`, for 2-byte ones column `c` of lane `l` at byte
                        // `c - 8 l` of lane `l`.
                        let lengths = byte_lengths!(j);
                        // Rows into lines: interleaves of 1, 2 and 4
                        // elements.
                        if N == 1 {
                            round!(1, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8);
                            round!(2, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16);
                            round!(4, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32);
                        } else {
                            round!(1, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16);
                            round!(2, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32);
                            round!(4, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64);
                        }
                        // Each line's head reversed, its bytes put in the
                        // order the way back wants.
                        for (m, v) in v.iter_mut().enumerate() {
                            let len = _mm256_shuffle_epi8(lengths, constant!(Controls::<N>::SPREAD[m]));
                            let head = _mm256_cmpgt_epi8(len, rank);
                            let control = _mm256_blendv_epi8(straight, _mm256_add_epi8(len, reversed), head);
                            *v = _mm256_shuffle_epi8(*v, control);
                        }
                        // Lines into rows: interleaves of 2, 4 and 8 bytes,
                        // between registers whose numbers differ in bit 2, 1
                        // and 0; row `k` lands in register `reversed_bits(k)`.
                        round!(4, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16);
                        round!(2, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32);
                        round!(1, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64);
                    }
                    for k in 0..ROWS {
                        if k0 <= k && k <= k1 {
                            let row = if N >= 4 { k } else { reversed_bits(k) };
                            _mm256_storeu_si256(out.add((k - k0) * out_stride + j * N).cast(), v[row]);
                        }
                    }
                    j += per;
                }
                count
            }
        },
    )
}

// The bits of a row's register are their own inverse.
const _: () = {
    let mut r = 0;
    while r < ROWS {
        assert!(reversed_bits(reversed_bits(r)) == r);
        r += 1;
    }
};

/// Writes output rows `k0..=k1` of columns `first..first + count` of one
/// block of ReverseSubsequences with 1-, 2-, 4- or 8-byte elements on an axis of
/// any length, with the same arguments as [`subsequence_transposed`], and
/// `lines` as scratch of [`line_pitch`] bytes for each of the `count`
/// columns. `count` is `lens.len()` rounded down to a whole number of
/// groups ([`line_group`]: 32 columns of 1 byte, 16 of 2 bytes, 8 of 4, 4
/// of 8).
///
/// The columns are staged as lines: the rows of each group of rows are
/// copied in order into a buffer on the stack ([`STAGE_REGISTERS`]), up to
/// 256 columns at a time, the next group's rows asked for ahead, and every
/// group of columns there is turned into line segments by a square
/// transpose in registers. Read in place, a group's rows often lie a power
/// of two apart and fall into the same few sets of the L1 cache, which
/// the buffer's contiguous rows do not. Then every group of output rows is
/// built as lines and turned back into rows by the same transpose. Where
/// no line's head ends inside the group, each line is one window: inside
/// its reversed head, the line itself read backwards (one unaligned load
/// and a lane-crossing permute), and past it its own elements, the two
/// told apart by the length without a branch. The one group of rows
/// where a line's head ends loads both windows and blends them by the
/// length. For 8-byte elements that is about 18 instructions for 4
/// elements, against about 40 to move them one at a time; narrower
/// elements take about as many per register, which holds 8, 16 or 32 of
/// them, where a gather loads each element from a row of its own.
#[allow(clippy::too_many_arguments)]
pub(in crate::kernels::copy) fn subsequence_lines<const N: usize>(
    isa: Avx2,
    input: &[u8],
    (stride, size): (usize, usize),
    first: usize,
    lens: &[u32],
    lines: &mut [u8],
    (k0, k1): (usize, usize),
    out: &mut [u8],
    out_stride: usize,
) -> usize {
    let group = line_group(N);
    // `line_pitch` is `None` for widths other than 1, 2, 4 and 8, whose
    // group is 0.
    let Some(pitch) = line_pitch::<N>(size) else {
        return 0;
    };
    let count = lens.len() / group * group;
    let groups = size.div_ceil(group);
    let fits = count > 0
        && size >= 2
        && i32::try_from(pitch).is_ok()
        && count.checked_mul(pitch).is_some_and(|bytes| bytes <= lines.len())
        && within(N, (input.len(), stride, size), first, count, (k0, k1), (out.len(), out_stride));
    if !fits {
        return 0;
    }
    isa.run(
        #[inline(always)]
        || {
            // SAFETY: the token proves AVX2 (every intrinsic here). `in_end`
            // and `out_end` as in `subsequence_transposed`, checked by
            // `within`. Input: row `r < size` of the bytes `j0..j0 + w` of
            // the columns, with `j0 + w <= count * N`, ends at `r * stride +
            // first * N + j0 + w <= in_end`; a staged row is `b group +
            // min(e, rows - 1)` with `rows >= 1` the rows of group `b <
            // groups` inside the axis, so below `size`; the prefetches take
            // any address. Stage, on the stack and so apart from the input:
            // row `e < group` of it ends at `e * stage_row + w <= (e + 1) *
            // stage_row <= group * stage_row`, its `STAGE_REGISTERS * 32`
            // bytes. Lines: line `j + c` spans `(j + c) * pitch` to `(j + c
            // + 1) * pitch`, inside `lines` as `count * pitch <=
            // lines.len()`; its group `b < groups` lies at `(group + group
            // b) * N`, and a window at `(group + from) * N` with `from`
            // clamped to `-group..=group (groups - 1)` (the upper end never
            // binds, as `len - top - group <= size - group`); a straight
            // window at group `a <= k1 / group < groups`. A single window is
            // one of those two: at `from = len - top - group` in `0..=size -
            // group` where `len >= top + group`, else at `top`. A length is
            // read at `j + c < count <= lens.len()`. Output: row `k` in
            // `k0..=k1` of columns `j..j + group` ends at `(k - k0) *
            // out_stride + (j + group) * N <= out_end`. `size`, and so every
            // length and row, fits `i32`, as `pitch` does.
            unsafe {
                // Known when compiled, which a value captured from outside
                // the enabled function is not.
                let group = const { line_group(N) };
                let input = input.as_ptr();
                let base = lines.as_mut_ptr();
                let out = out.as_mut_ptr();
                let zero = _mm256_setzero_si256();
                let rank = match N {
                    8 => _mm256_setr_epi64x(0, 1, 2, 3),
                    4 => _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                    2 => _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                    _ => _mm256_setr_epi8(
                        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
                        24, 25, 26, 27, 28, 29, 30, 31,
                    ),
                };
                // Element orders for the windows, straight (0) or turned
                // round (1): for 4- and 8-byte elements a permute across
                // the register; for 1- and 2-byte ones each lane's
                // elements in reverse, then the lanes swapped.
                let across = if N == 8 {
                    [_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_setr_epi32(6, 7, 4, 5, 2, 3, 0, 1)]
                } else if N == 4 {
                    [_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)]
                } else {
                    [_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_setr_epi32(4, 5, 6, 7, 0, 1, 2, 3)]
                };
                let in_lanes = [
                    _mm256_setr_epi8(
                        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                        10, 11, 12, 13, 14, 15,
                    ),
                    if N == 1 {
                        _mm256_setr_epi8(
                            15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9,
                            8, 7, 6, 5, 4, 3, 2, 1, 0,
                        )
                    } else {
                        _mm256_setr_epi8(
                            14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 12, 13, 10, 11, 8,
                            9, 6, 7, 4, 5, 2, 3, 0, 1,
                        )
                    },
                ];
                macro_rules! reverse {
                    ($window:expr, $flip:expr) => {{
                        let window = if N >= 4 {
                            $window
                        } else {
                            _mm256_shuffle_epi8($window, *in_lanes.get_unchecked($flip))
                        };
                        _mm256_permutevar8x32_epi32(window, *across.get_unchecked($flip))
                    }};
                }
                // A square transpose of a group: interleaves of elements
                // (bytes, 2-byte ones, 4-byte ones, then pairs of them),
                // then of lanes. Its own inverse; the first `group` registers hold
                // the rows, then the lines.
                macro_rules! transpose {
                    ($v:ident) => {
                        if N == 1 {
                            // Each half of the rows (`h` = 0 or 16) is
                            // transposed within each lane by four rounds
                            // of interleaving the bytes of register `x`
                            // with those of `x + 8` into `2 x` and `2 x +
                            // 1`: register `h + i` then holds byte `i` of
                            // those rows in its low lane and byte `16 + i`
                            // in its high one.
                            for h in [0, 16] {
                                for _ in 0..4 {
                                    let mut t = [zero; 16];
                                    for x in 0..8 {
                                        t[2 * x] = _mm256_unpacklo_epi8($v[h + x], $v[h + x + 8]);
                                        t[2 * x + 1] = _mm256_unpackhi_epi8($v[h + x], $v[h + x + 8]);
                                    }
                                    for (x, t) in t.into_iter().enumerate() {
                                        $v[h + x] = t;
                                    }
                                }
                            }
                            let mut t = [zero; 32];
                            for x in 0..16 {
                                t[x] = _mm256_permute2x128_si256::<0x20>($v[x], $v[x + 16]);
                                t[x + 16] = _mm256_permute2x128_si256::<0x31>($v[x], $v[x + 16]);
                            }
                            $v = t;
                        } else if N == 2 {
                            // Within each lane, rows `8 h..8 h + 8` (`h`
                            // = 0 or 1) become register `8 h + i` holding
                            // element `i` of those rows in its low lane and
                            // element `8 + i` in its high one.
                            let mut t = [zero; 16];
                            for x in (0..16).step_by(2) {
                                t[x] = _mm256_unpacklo_epi16($v[x], $v[x + 1]);
                                t[x + 1] = _mm256_unpackhi_epi16($v[x], $v[x + 1]);
                            }
                            let mut u = [zero; 16];
                            for h in [0, 8] {
                                for x in [0, 1] {
                                    u[h + 2 * x] = _mm256_unpacklo_epi32(t[h + x], t[h + x + 2]);
                                    u[h + 2 * x + 1] = _mm256_unpackhi_epi32(t[h + x], t[h + x + 2]);
                                    u[h + 2 * x + 4] = _mm256_unpacklo_epi32(t[h + x + 4], t[h + x + 6]);
                                    u[h + 2 * x + 5] = _mm256_unpackhi_epi32(t[h + x + 4], t[h + x + 6]);
                                }
                            }
                            for h in [0, 8] {
                                for x in 0..4 {
                                    t[h + 2 * x] = _mm256_unpacklo_epi64(u[h + x], u[h + x + 4]);
                                    t[h + 2 * x + 1] = _mm256_unpackhi_epi64(u[h + x], u[h + x + 4]);
                                }
                            }
                            for x in 0..8 {
                                $v[x] = _mm256_permute2x128_si256::<0x20>(t[x], t[x + 8]);
                                $v[x + 8] = _mm256_permute2x128_si256::<0x31>(t[x], t[x + 8]);
                            }
                        } else if N == 8 {
                            for x in [0, 2] {
                                let (a, b) = ($v[x], $v[x + 1]);
                                $v[x] = _mm256_unpacklo_epi64(a, b);
                                $v[x + 1] = _mm256_unpackhi_epi64(a, b);
                            }
                            for x in [0, 1] {
                                let (a, b) = ($v[x], $v[x + 2]);
                                $v[x] = _mm256_permute2x128_si256::<0x20>(a, b);
                                $v[x + 2] = _mm256_permute2x128_si256::<0x31>(a, b);
                            }
                        } else {
                            let mut t = [zero; 8];
                            for x in [0, 2, 4, 6] {
                                t[x] = _mm256_unpacklo_epi32($v[x], $v[x + 1]);
                                t[x + 1] = _mm256_unpackhi_epi32($v[x], $v[x + 1]);
                            }
                            // Per half of the rows (`h` = 0 or 4),
                            // register `h + i` holds element `i` of those
                            // 4 rows in its low lane and element `i + 4`
                            // in its high one.
                            let mut u = [zero; 8];
                            for (h, x) in [(0, 0), (4, 4)] {
                                u[h] = _mm256_unpacklo_epi64(t[x], t[x + 2]);
                                u[h + 1] = _mm256_unpackhi_epi64(t[x], t[x + 2]);
                                u[h + 2] = _mm256_unpacklo_epi64(t[x + 1], t[x + 3]);
                                u[h + 3] = _mm256_unpackhi_epi64(t[x + 1], t[x + 3]);
                            }
                            for x in 0..4 {
                                $v[x] = _mm256_permute2x128_si256::<0x20>(u[x], u[x + 4]);
                                $v[x + 4] = _mm256_permute2x128_si256::<0x31>(u[x], u[x + 4]);
                            }
                        }
                    };
                }
                let line = |c: usize| base.add(c * pitch + group * N);
                // Stage the lines, a group of rows at a time across all the
                // columns, so that each row is read in order, the next
                // group's rows asked for ahead.
                let ahead = group * stride;
                // A group's registers, as rows and then as lines, kept from
                // one group to the next: each fills the first `group` of
                // them before it reads them.
                let mut v = [zero; 32];
                let mut stage = [zero; STAGE_REGISTERS];
                let stage = stage.as_mut_ptr().cast::<u8>();
                // Bytes of each row a pass copies into `stage`.
                let stage_row = STAGE_REGISTERS * 32 / group;
                let width = count * N;
                for b in 0..groups {
                    let rows = (size - b * group).min(group);
                    let at = input.add(b * group * stride + first * N);
                    for j0 in (0..width).step_by(stage_row) {
                        let w = (width - j0).min(stage_row);
                        // The last group's rows past the axis repeat its
                        // last row: no output row reads them.
                        for e in 0..group {
                            let row = at.add(e.min(rows - 1) * stride + j0);
                            std::ptr::copy_nonoverlapping(row, stage.add(e * stage_row), w);
                            for k in (0..w).step_by(64) {
                                super::prefetch(row.wrapping_add(ahead + k));
                            }
                        }
                        for jj in (0..w).step_by(32) {
                            for (e, v) in v.iter_mut().enumerate().take(group) {
                                *v = _mm256_loadu_si256(stage.add(e * stage_row + jj).cast());
                            }
                            transpose!(v);
                            let j = (j0 + jj) / N;
                            for (c, v) in v.iter().enumerate().take(group) {
                                _mm256_storeu_si256(line(j + c).add(b * group * N).cast(), *v);
                            }
                        }
                    }
                }
                // Every group of output rows the part covers, as lines,
                // across all the columns, so that each row is written in
                // order.
                let last = ((groups - 1) * group) as isize;
                let wide = group as isize;
                for a in k0 / group..=k1 / group {
                    let top = (a * group) as isize;
                    let whole = k0 <= a * group && (a + 1) * group <= k1 + 1;
                    for j in (0..count).step_by(group) {
                        let len = |c: usize| (*lens.get_unchecked(j + c)).min(size as u32) as isize;
                        // Whether a line's head ends inside this group of
                        // rows, which happens once along each line.
                        let ends = (0..group).any(|c| top < len(c) && len(c) < top + wide);
                        // Rows `top..top + group` of line `c`: from both
                        // windows, blended by rank where its head ends
                        // here; else from one window, turned round inside
                        // the head.
                        let mixed = |c: usize| {
                            let len = len(c);
                            let line = line(j + c);
                            let straight = _mm256_loadu_si256(line.add(a * group * N).cast());
                            // Rows `top..top + group` read rows `len - 1 -
                            // top` on down where inside the head.
                            let from = (len - top - wide).clamp(-wide, last);
                            let window = _mm256_loadu_si256(line.offset(from * N as isize).cast());
                            // The group's rows inside the head: those whose
                            // rank is below `len - top`.
                            let inside = (len - top).clamp(-1, wide);
                            let head = match N {
                                8 => _mm256_cmpgt_epi64(_mm256_set1_epi64x(inside as i64), rank),
                                4 => _mm256_cmpgt_epi32(_mm256_set1_epi32(inside as i32), rank),
                                2 => _mm256_cmpgt_epi16(_mm256_set1_epi16(inside as i16), rank),
                                _ => _mm256_cmpgt_epi8(_mm256_set1_epi8(inside as i8), rank),
                            };
                            _mm256_blendv_epi8(straight, reverse!(window, 1), head)
                        };
                        let single = |c: usize| {
                            let len = len(c);
                            let flip = usize::from(len >= top + wide);
                            let from = (len - top - wide).max(0);
                            let at = top + ((from - top) & (flip as isize).wrapping_neg());
                            reverse!(_mm256_loadu_si256(line(j + c).offset(at * N as isize).cast()), flip)
                        };
                        if ends {
                            for (c, v) in v.iter_mut().enumerate().take(group) {
                                *v = mixed(c);
                            }
                        } else {
                            for (c, v) in v.iter_mut().enumerate().take(group) {
                                *v = single(c);
                            }
                        }
                        transpose!(v);
                        if whole {
                            let at = out.add((a * group - k0) * out_stride + j * N);
                            for (e, v) in v.iter().enumerate().take(group) {
                                _mm256_storeu_si256(at.add(e * out_stride).cast(), *v);
                            }
                        } else {
                            for (e, v) in v.iter().enumerate().take(group) {
                                let k = a * group + e;
                                if k0 <= k && k <= k1 {
                                    _mm256_storeu_si256(out.add((k - k0) * out_stride + j * N).cast(), *v);
                                }
                            }
                        }
                    }
                }
                count
            }
        },
    )
}
