//! The x86_64 loops of Convert, for the pairs a compiler leaves scalar or
//! that have an instruction of their own.
//!
//! - Reals into `i32`, `i16`, `u16`, `i8` and `u8`: truncation, saturation
//!   and NaN to 0 with no branch, in SSE2, which every x86_64 CPU has.
//!   Rust's `as` gives the same results one element at a time; the
//!   compiler keeps it scalar (a conversion, two compares and two selects
//!   per element).
//! - `f32` to `bf16`: nearest even with NaNs kept, in SSE2 integer
//!   arithmetic.
//! - `f32` to and from `f16`: the F16C conversions, eight at a time, when
//!   the running CPU has them. The [`F16c`] token proves it.
//!
//! Each routine converts the whole groups at the start of its buffers and
//! returns how many bytes of input it took; the caller converts the rest
//! with the portable loop, which also decides the results the routines are
//! tested against. Registers are read from and written to byte arrays by
//! value, so no routine holds a pointer, and any alignment works.

use std::arch::x86_64::{
    __m128, __m128i, __m256, _mm256_cvtph_ps, _mm256_cvtps_ph, _mm_add_epi32, _mm_and_si128,
    _mm_andnot_si128, _mm_castps_si128, _mm_cmpge_ps, _mm_cmpgt_epi32, _mm_cmpord_ps, _mm_cvttps_epi32,
    _mm_max_ps, _mm_min_ps, _mm_or_si128, _mm_packs_epi16, _mm_packs_epi32, _mm_packus_epi16, _mm_set1_epi16,
    _mm_set1_epi32, _mm_set1_ps, _mm_srai_epi32, _mm_srli_epi32, _mm_sub_epi32, _mm_xor_si128,
    _MM_FROUND_TO_NEAREST_INT,
};

// Every x86_64 target enables SSE2 for all code; the SSE2 routines'
// `unsafe` rests on it.
const _: () = assert!(cfg!(target_feature = "sse2"));

/// An integer type narrower than `i32` that reals convert into here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Narrow {
    I8,
    U8,
    I16,
    U16,
}

impl Narrow {
    /// The smallest and largest value, as `f32`s (exact for these types).
    fn bounds(self) -> (f32, f32) {
        match self {
            Narrow::I8 => (-128.0, 127.0),
            Narrow::U8 => (0.0, 255.0),
            Narrow::I16 => (-32768.0, 32767.0),
            Narrow::U16 => (0.0, 65535.0),
        }
    }
}

/// Converts whole groups of sixteen little-endian `f32`s at the start of
/// `src` into `i32`s in `dst` by the rules of Rust's `as`: truncation
/// toward zero, saturation, NaN to 0. Returns the bytes of `src` taken.
pub(super) fn f32_to_i32(src: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: the loop needs SSE2, which every x86_64 CPU has (the target
    // enables it, as checked above).
    unsafe { f32_to_i32_sse2(src, dst) }
}

#[target_feature(enable = "sse2")]
fn f32_to_i32_sse2(src: &[u8], dst: &mut [u8]) -> usize {
    let groups = dst.as_chunks_mut::<64>().0.iter_mut().zip(src.as_chunks::<64>().0);
    let mut taken = 0;
    for (o, i) in groups {
        let v: [__m128; 4] = bytemuck::cast(*i);
        let r = v.map(|v| {
            // In range the conversion is exact; out of range and for NaN
            // it gives `i32::MIN`, right for large negative values.
            let r = _mm_cvttps_epi32(v);
            // Values of 2^31 and up turn `i32::MIN` into `i32::MAX`...
            let over = _mm_castps_si128(_mm_cmpge_ps(v, _mm_set1_ps(2_147_483_648.0)));
            // ...and NaN becomes 0.
            _mm_and_si128(_mm_xor_si128(r, over), ordered(v))
        });
        *o = bytemuck::cast(r);
        taken += 64;
    }
    taken
}

/// All ones in the lanes of `v` that are not NaN.
#[inline(always)]
fn ordered(v: __m128) -> __m128i {
    // SAFETY: SSE2 is enabled for all x86_64 code (checked above).
    unsafe { _mm_castps_si128(_mm_cmpord_ps(v, v)) }
}

/// Converts whole groups of sixteen little-endian `f32`s at the start of
/// `src` into `to` in `dst` by the rules of Rust's `as`. Returns the bytes
/// of `src` taken.
pub(super) fn f32_to_narrow(to: Narrow, src: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: as in `f32_to_i32`.
    unsafe {
        match to {
            Narrow::I8 | Narrow::U8 => f32_to_bytes_sse2(to, src, dst),
            Narrow::I16 | Narrow::U16 => f32_to_halves_sse2(to, src, dst),
        }
    }
}

/// Four registers of `f32` clamped to `to`'s range and truncated, NaN
/// giving 0: in range, so every lane is exact as an `i32`.
#[inline(always)]
fn clamped(to: Narrow, v: [__m128; 4]) -> [__m128i; 4] {
    let (lo, hi) = to.bounds();
    // SAFETY: SSE2 is enabled for all x86_64 code (checked above).
    unsafe {
        let (lo, hi) = (_mm_set1_ps(lo), _mm_set1_ps(hi));
        // `max` gives its second operand for NaN; the mask then makes it 0.
        v.map(|v| _mm_and_si128(_mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(v, lo), hi)), ordered(v)))
    }
}

#[target_feature(enable = "sse2")]
fn f32_to_bytes_sse2(to: Narrow, src: &[u8], dst: &mut [u8]) -> usize {
    let groups = dst.as_chunks_mut::<16>().0.iter_mut().zip(src.as_chunks::<64>().0);
    let mut taken = 0;
    for (o, i) in groups {
        let [a, b, c, d] = clamped(to, bytemuck::cast(*i));
        // Lanes within the target's range pass both packs unchanged.
        let (ab, cd) = (_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
        let r = if to == Narrow::U8 { _mm_packus_epi16(ab, cd) } else { _mm_packs_epi16(ab, cd) };
        *o = bytemuck::cast(r);
        taken += 64;
    }
    taken
}

#[target_feature(enable = "sse2")]
fn f32_to_halves_sse2(to: Narrow, src: &[u8], dst: &mut [u8]) -> usize {
    let groups = dst.as_chunks_mut::<32>().0.iter_mut().zip(src.as_chunks::<64>().0);
    let mut taken = 0;
    for (o, i) in groups {
        let mut r = clamped(to, bytemuck::cast(*i));
        if to == Narrow::U16 {
            // SSE2 packs to signed 16 bits only: move [0, 65535] down to
            // [-32768, 32767], pack, and flip the top bit back.
            r = r.map(|v| _mm_sub_epi32(v, _mm_set1_epi32(32768)));
        }
        let mut pair = [_mm_packs_epi32(r[0], r[1]), _mm_packs_epi32(r[2], r[3])];
        if to == Narrow::U16 {
            pair = pair.map(|v| _mm_xor_si128(v, _mm_set1_epi16(i16::MIN)));
        }
        *o = bytemuck::cast(pair);
        taken += 64;
    }
    taken
}

/// Converts whole groups of sixteen little-endian `f32`s at the start of
/// `src` into `bf16`s in `dst`, rounding to nearest even; a NaN keeps the
/// top of its payload and gets the quiet bit, as `half` does. Returns the
/// bytes of `src` taken.
pub(super) fn f32_to_bf16(src: &[u8], dst: &mut [u8]) -> usize {
    // SAFETY: as in `f32_to_i32`.
    unsafe { f32_to_bf16_sse2(src, dst) }
}

#[target_feature(enable = "sse2")]
fn f32_to_bf16_sse2(src: &[u8], dst: &mut [u8]) -> usize {
    let groups = dst.as_chunks_mut::<32>().0.iter_mut().zip(src.as_chunks::<64>().0);
    let mut taken = 0;
    for (o, i) in groups {
        let x: [__m128i; 4] = bytemuck::cast(*i);
        let halves = x.map(|x| {
            // Just under half a unit plus the kept part's lowest bit
            // carries into the kept part exactly when nearest-even rounds
            // up; only a NaN is large enough for the sum to wrap.
            let lowest = _mm_and_si128(_mm_srli_epi32::<16>(x), _mm_set1_epi32(1));
            let rounded = _mm_add_epi32(x, _mm_add_epi32(lowest, _mm_set1_epi32(0x7fff)));
            let quiet = _mm_or_si128(x, _mm_set1_epi32(0x0040_0000));
            let magnitude = _mm_and_si128(x, _mm_set1_epi32(0x7fff_ffff));
            let nan = _mm_cmpgt_epi32(magnitude, _mm_set1_epi32(0x7f80_0000));
            let bits = _mm_or_si128(_mm_and_si128(nan, quiet), _mm_andnot_si128(nan, rounded));
            // The arithmetic shift leaves each top half sign-extended, which
            // the signed pack then keeps unchanged.
            _mm_srai_epi32::<16>(bits)
        });
        let r = [_mm_packs_epi32(halves[0], halves[1]), _mm_packs_epi32(halves[2], halves[3])];
        *o = bytemuck::cast(r);
        taken += 64;
    }
    taken
}

/// Proof that the running CPU has AVX and F16C.
#[derive(Clone, Copy, Debug)]
pub(super) struct F16c {
    _proof: (),
}

impl F16c {
    /// The token, when the running CPU has both features.
    pub(super) fn detect() -> Option<F16c> {
        let has = std::arch::is_x86_feature_detected!("avx") && std::arch::is_x86_feature_detected!("f16c");
        has.then_some(F16c { _proof: () })
    }

    /// Converts whole groups of sixteen little-endian `f32`s at the start
    /// of `src` into `f16`s in `dst`, rounding to nearest even (NaNs stay
    /// NaN, quieted, with the top of their payload). Returns the bytes of
    /// `src` taken.
    pub(super) fn f32_to_f16(self, src: &[u8], dst: &mut [u8]) -> usize {
        // SAFETY: the token exists only when the CPU has AVX and F16C.
        unsafe { f32_to_f16_f16c(src, dst) }
    }

    /// Converts whole groups of sixteen little-endian `f16`s at the start
    /// of `src` into `f32`s in `dst` (exact; NaNs are quieted). Returns
    /// the bytes of `src` taken.
    pub(super) fn f16_to_f32(self, src: &[u8], dst: &mut [u8]) -> usize {
        // SAFETY: as above.
        unsafe { f16_to_f32_f16c(src, dst) }
    }
}

#[target_feature(enable = "avx,f16c")]
fn f32_to_f16_f16c(src: &[u8], dst: &mut [u8]) -> usize {
    let groups = dst.as_chunks_mut::<32>().0.iter_mut().zip(src.as_chunks::<64>().0);
    let mut taken = 0;
    for (o, i) in groups {
        let v: [__m256; 2] = bytemuck::cast(*i);
        let r: [__m128i; 2] = v.map(|v| _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v));
        *o = bytemuck::cast(r);
        taken += 64;
    }
    taken
}

#[target_feature(enable = "avx,f16c")]
fn f16_to_f32_f16c(src: &[u8], dst: &mut [u8]) -> usize {
    let groups = dst.as_chunks_mut::<64>().0.iter_mut().zip(src.as_chunks::<32>().0);
    let mut taken = 0;
    for (o, i) in groups {
        let v: [__m128i; 2] = bytemuck::cast(*i);
        let r: [__m256; 2] = v.map(|v| _mm256_cvtph_ps(v));
        *o = bytemuck::cast(r);
        taken += 32;
    }
    taken
}
