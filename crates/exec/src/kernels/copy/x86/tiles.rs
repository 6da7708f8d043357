//! Square blocks of elements transposed in registers, for the tiles of
//! `portable::transpose_lines`: 8 × 8 elements of 4 bytes and 4 × 4 of 8
//! bytes with AVX's 32-byte unpacks and lane permutes, 8 × 8 of 2 bytes and
//! 16 × 16 of 1 byte with SSE2's 16-byte unpacks (which every x86_64 CPU
//! has). Each block is its rows loaded, a network of unpacks that pairs
//! ever wider units, and its columns stored: 24 shuffles for 64 elements
//! of 2 or 4 bytes, 8 for 16 of 8 bytes, 64 for 256 bytes.

use std::arch::x86_64::{
    __m128i, _mm256_loadu_pd, _mm256_loadu_ps, _mm256_permute2f128_pd, _mm256_permute2f128_ps,
    _mm256_shuffle_ps, _mm256_storeu_pd, _mm256_storeu_ps, _mm256_unpackhi_pd, _mm256_unpackhi_ps,
    _mm256_unpacklo_pd, _mm256_unpacklo_ps, _mm_loadu_si128, _mm_storeu_si128, _mm_unpackhi_epi16,
    _mm_unpackhi_epi32, _mm_unpackhi_epi64, _mm_unpackhi_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32,
    _mm_unpacklo_epi64, _mm_unpacklo_epi8,
};

use super::super::portable::{transpose_lines, Block};
use super::{Avx2, Simd};

/// 8 × 8 blocks of 4-byte elements, with AVX2 (see [`block_8x8_4`]).
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels::copy) struct Floats(pub(in crate::kernels::copy) Avx2);

/// 4 × 4 blocks of 8-byte elements, with AVX2 (see [`block_4x4_8`]).
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels::copy) struct Doubles(pub(in crate::kernels::copy) Avx2);

/// 8 × 8 blocks of 2-byte elements, with SSE2 (see [`block_8x8_2`]).
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels::copy) struct Words;

/// 16 × 16 blocks of bytes, with SSE2 (see [`block_16x16_1`]).
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels::copy) struct Bytes;

impl Block for Floats {
    const SIDE: usize = 8;

    #[inline(always)]
    fn transpose(self, src: &[u8], src_pitch: usize, dst: &mut [u8], dst_pitch: usize) -> Option<()> {
        block_8x8_4(self.0, src, src_pitch, dst, dst_pitch)
    }
}

impl Block for Doubles {
    const SIDE: usize = 4;

    #[inline(always)]
    fn transpose(self, src: &[u8], src_pitch: usize, dst: &mut [u8], dst_pitch: usize) -> Option<()> {
        block_4x4_8(self.0, src, src_pitch, dst, dst_pitch)
    }
}

impl Block for Words {
    const SIDE: usize = 8;

    #[inline(always)]
    fn transpose(self, src: &[u8], src_pitch: usize, dst: &mut [u8], dst_pitch: usize) -> Option<()> {
        block_8x8_2(src, src_pitch, dst, dst_pitch)
    }
}

impl Block for Bytes {
    const SIDE: usize = 16;

    #[inline(always)]
    fn transpose(self, src: &[u8], src_pitch: usize, dst: &mut [u8], dst_pitch: usize) -> Option<()> {
        block_16x16_1(src, src_pitch, dst, dst_pitch)
    }
}

/// [`transpose_lines`] of `N`-byte elements with the blocks of this
/// module, compiled with AVX2 (so that every intrinsic is inlined).
pub(in crate::kernels::copy) fn transpose_with_avx2<const N: usize>(
    isa: Avx2,
    src: &[u8],
    src_pitch: usize,
    dst: &mut [u8],
    dst_pitch: usize,
    shape: (usize, usize),
) -> Option<()> {
    let (s, sp, d, dp) = (src, src_pitch, dst, dst_pitch);
    isa.run(
        #[inline(always)]
        || match N {
            1 => transpose_lines::<N, 64, _>(s, sp, d, dp, shape, Bytes),
            2 => transpose_lines::<N, 32, _>(s, sp, d, dp, shape, Words),
            4 => transpose_lines::<N, 16, _>(s, sp, d, dp, shape, Floats(isa)),
            _ => transpose_lines::<N, 8, _>(s, sp, d, dp, shape, Doubles(isa)),
        },
    )
}

/// [`transpose_lines`] of 1- or 2-byte elements with the SSE2 blocks of
/// this module; `None` for other widths.
pub(in crate::kernels::copy) fn transpose_with_sse2<const N: usize>(
    src: &[u8],
    src_pitch: usize,
    dst: &mut [u8],
    dst_pitch: usize,
    shape: (usize, usize),
) -> Option<()> {
    match N {
        1 => transpose_lines::<N, 64, _>(src, src_pitch, dst, dst_pitch, shape, Bytes),
        2 => transpose_lines::<N, 32, _>(src, src_pitch, dst, dst_pitch, shape, Words),
        _ => None,
    }
}

/// Whether `B` rows of `bytes` bytes, `pitch` bytes apart from the start
/// of `buf`, lie inside it.
#[inline(always)]
fn holds(buf: &[u8], pitch: usize, b: usize, bytes: usize) -> bool {
    (b - 1).checked_mul(pitch).and_then(|s| s.checked_add(bytes)).is_some_and(|end| end <= buf.len())
}

/// Transposes 8 × 8 elements of 4 bytes: row `i` at byte `i * src_pitch` of
/// `src` becomes column `i` of the rows at bytes `j * dst_pitch` of `dst`.
/// `None`, with nothing written, when a row leaves its slice.
#[inline(always)]
fn block_8x8_4(_: Avx2, src: &[u8], src_pitch: usize, dst: &mut [u8], dst_pitch: usize) -> Option<()> {
    if !holds(src, src_pitch, 8, 32) || !holds(dst, dst_pitch, 8, 32) {
        return None;
    }
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    // SAFETY: the eight 32-byte rows of each side lie inside their slices,
    // checked just above, and the loads and stores take any alignment; the
    // token proves the CPU has AVX2, which includes AVX.
    unsafe {
        // Written out, not as closures: a closure is compiled without the
        // token's instructions, and its intrinsics would be calls.
        let r0 = _mm256_loadu_ps(s.cast());
        let r1 = _mm256_loadu_ps(s.add(src_pitch).cast());
        let r2 = _mm256_loadu_ps(s.add(2 * src_pitch).cast());
        let r3 = _mm256_loadu_ps(s.add(3 * src_pitch).cast());
        let r4 = _mm256_loadu_ps(s.add(4 * src_pitch).cast());
        let r5 = _mm256_loadu_ps(s.add(5 * src_pitch).cast());
        let r6 = _mm256_loadu_ps(s.add(6 * src_pitch).cast());
        let r7 = _mm256_loadu_ps(s.add(7 * src_pitch).cast());
        // Pairs of rows interleaved, in each 16-byte lane.
        let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
        let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
        let (t4, t5) = (_mm256_unpacklo_ps(r4, r5), _mm256_unpackhi_ps(r4, r5));
        let (t6, t7) = (_mm256_unpacklo_ps(r6, r7), _mm256_unpackhi_ps(r6, r7));
        // Four rows of a column in each lane: columns j and j + 4.
        let (u0, u1) = (_mm256_shuffle_ps::<0x44>(t0, t2), _mm256_shuffle_ps::<0xEE>(t0, t2));
        let (u2, u3) = (_mm256_shuffle_ps::<0x44>(t1, t3), _mm256_shuffle_ps::<0xEE>(t1, t3));
        let (u4, u5) = (_mm256_shuffle_ps::<0x44>(t4, t6), _mm256_shuffle_ps::<0xEE>(t4, t6));
        let (u6, u7) = (_mm256_shuffle_ps::<0x44>(t5, t7), _mm256_shuffle_ps::<0xEE>(t5, t7));
        _mm256_storeu_ps(d.cast(), _mm256_permute2f128_ps::<0x20>(u0, u4));
        _mm256_storeu_ps(d.add(dst_pitch).cast(), _mm256_permute2f128_ps::<0x20>(u1, u5));
        _mm256_storeu_ps(d.add(2 * dst_pitch).cast(), _mm256_permute2f128_ps::<0x20>(u2, u6));
        _mm256_storeu_ps(d.add(3 * dst_pitch).cast(), _mm256_permute2f128_ps::<0x20>(u3, u7));
        _mm256_storeu_ps(d.add(4 * dst_pitch).cast(), _mm256_permute2f128_ps::<0x31>(u0, u4));
        _mm256_storeu_ps(d.add(5 * dst_pitch).cast(), _mm256_permute2f128_ps::<0x31>(u1, u5));
        _mm256_storeu_ps(d.add(6 * dst_pitch).cast(), _mm256_permute2f128_ps::<0x31>(u2, u6));
        _mm256_storeu_ps(d.add(7 * dst_pitch).cast(), _mm256_permute2f128_ps::<0x31>(u3, u7));
    }
    Some(())
}

/// [`block_8x8_4`] for 4 × 4 elements of 8 bytes.
#[inline(always)]
fn block_4x4_8(_: Avx2, src: &[u8], src_pitch: usize, dst: &mut [u8], dst_pitch: usize) -> Option<()> {
    if !holds(src, src_pitch, 4, 32) || !holds(dst, dst_pitch, 4, 32) {
        return None;
    }
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    // SAFETY: as in `block_8x8_4`, for four rows of 32 bytes.
    unsafe {
        let r0 = _mm256_loadu_pd(s.cast());
        let r1 = _mm256_loadu_pd(s.add(src_pitch).cast());
        let r2 = _mm256_loadu_pd(s.add(2 * src_pitch).cast());
        let r3 = _mm256_loadu_pd(s.add(3 * src_pitch).cast());
        let (t0, t1) = (_mm256_unpacklo_pd(r0, r1), _mm256_unpackhi_pd(r0, r1));
        let (t2, t3) = (_mm256_unpacklo_pd(r2, r3), _mm256_unpackhi_pd(r2, r3));
        _mm256_storeu_pd(d.cast(), _mm256_permute2f128_pd::<0x20>(t0, t2));
        _mm256_storeu_pd(d.add(dst_pitch).cast(), _mm256_permute2f128_pd::<0x20>(t1, t3));
        _mm256_storeu_pd(d.add(2 * dst_pitch).cast(), _mm256_permute2f128_pd::<0x31>(t0, t2));
        _mm256_storeu_pd(d.add(3 * dst_pitch).cast(), _mm256_permute2f128_pd::<0x31>(t1, t3));
    }
    Some(())
}

/// [`block_8x8_4`] for 8 × 8 elements of 2 bytes, in 16-byte registers:
/// units of 2, 4 and 8 bytes paired in turn.
#[inline(always)]
fn block_8x8_2(src: &[u8], src_pitch: usize, dst: &mut [u8], dst_pitch: usize) -> Option<()> {
    if !holds(src, src_pitch, 8, 16) || !holds(dst, dst_pitch, 8, 16) {
        return None;
    }
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    // SAFETY: the eight 16-byte rows of each side lie inside their slices,
    // checked just above; the loads and stores take any alignment, and
    // SSE2 is part of x86_64.
    unsafe {
        let r: [__m128i; 8] = std::array::from_fn(|i| _mm_loadu_si128(s.add(i * src_pitch).cast()));
        // Columns 0–3 and 4–7 of each pair of rows.
        let t: [__m128i; 8] = std::array::from_fn(|k| {
            let (a, b) = (r[k / 2 * 2], r[k / 2 * 2 + 1]);
            if k % 2 == 0 {
                _mm_unpacklo_epi16(a, b)
            } else {
                _mm_unpackhi_epi16(a, b)
            }
        });
        // Two columns of four rows each: (0, 1), (2, 3), (4, 5), (6, 7)
        // of rows 0–3, then of rows 4–7.
        let u: [__m128i; 8] = std::array::from_fn(|k| {
            let (half, m) = (k / 4, k % 4);
            let (a, b) = (t[half * 4 + m / 2], t[half * 4 + 2 + m / 2]);
            if m % 2 == 0 {
                _mm_unpacklo_epi32(a, b)
            } else {
                _mm_unpackhi_epi32(a, b)
            }
        });
        for j in 0..8 {
            let (a, b) = (u[j / 2], u[4 + j / 2]);
            let column = if j % 2 == 0 { _mm_unpacklo_epi64(a, b) } else { _mm_unpackhi_epi64(a, b) };
            _mm_storeu_si128(d.add(j * dst_pitch).cast(), column);
        }
    }
    Some(())
}

/// [`block_8x8_4`] for 16 × 16 bytes: units of 1, 2, 4 and 8 bytes paired
/// in turn.
#[inline(always)]
fn block_16x16_1(src: &[u8], src_pitch: usize, dst: &mut [u8], dst_pitch: usize) -> Option<()> {
    if !holds(src, src_pitch, 16, 16) || !holds(dst, dst_pitch, 16, 16) {
        return None;
    }
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    // SAFETY: as in `block_8x8_2`, for sixteen rows of 16 bytes.
    unsafe {
        let r: [__m128i; 16] = std::array::from_fn(|i| _mm_loadu_si128(s.add(i * src_pitch).cast()));
        // Rows 2i and 2i + 1: columns 0–7, then 8–15.
        let a: [__m128i; 16] = std::array::from_fn(|k| {
            let (x, y) = (r[k / 2 * 2], r[k / 2 * 2 + 1]);
            if k % 2 == 0 {
                _mm_unpacklo_epi8(x, y)
            } else {
                _mm_unpackhi_epi8(x, y)
            }
        });
        // Rows 4g to 4g + 3: columns 0–3, 4–7, 8–11 and 12–15.
        let b: [__m128i; 16] = std::array::from_fn(|k| {
            let (g, m) = (k / 4, k % 4);
            let (x, y) = (a[4 * g + m / 2], a[4 * g + 2 + m / 2]);
            if m % 2 == 0 {
                _mm_unpacklo_epi16(x, y)
            } else {
                _mm_unpackhi_epi16(x, y)
            }
        });
        // Rows 8h to 8h + 7: columns (0, 1), (2, 3), … (14, 15).
        let c: [__m128i; 16] = std::array::from_fn(|k| {
            let (h, m) = (k / 8, k % 8);
            let (x, y) = (b[8 * h + m / 2], b[8 * h + 4 + m / 2]);
            if m % 2 == 0 {
                _mm_unpacklo_epi32(x, y)
            } else {
                _mm_unpackhi_epi32(x, y)
            }
        });
        for j in 0..16 {
            let (x, y) = (c[j / 2], c[8 + j / 2]);
            let column = if j % 2 == 0 { _mm_unpacklo_epi64(x, y) } else { _mm_unpackhi_epi64(x, y) };
            _mm_storeu_si128(d.add(j * dst_pitch).cast(), column);
        }
    }
    Some(())
}
