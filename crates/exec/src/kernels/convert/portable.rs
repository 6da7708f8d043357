//! The portable loops of Convert: plain Rust with no intrinsics, written
//! so that the compiler turns each into vector instructions of the
//! baseline target (SSE2 on x86_64, NEON on aarch64). They run wherever
//! the x86 loops do not: in the `no-simd` build and on other
//! architectures.
//!
//! The pairs here are the ones whose `as` casts the compiler leaves
//! scalar: a saturating float-to-integer cast (`f32 as u8`) becomes a
//! conversion, two compares and two selects per element, since the
//! baseline instruction sets have no vector form of it. Instead each value
//! is clamped with `min`/`max`, which do vectorize, and truncated with
//! the "magic number" trick: adding 2^23 to a value in `0..2^23` leaves
//! its integer part, rounded to nearest, in the low mantissa bits, and
//! one compare steps a value that rounded up back down. NaN becomes 0
//! because `f32::max(NaN, 0.0)` is `0.0`. The results are the `as` casts'
//! (`half`'s rounding for `bf16`) for every input, which the tests check.
//!
//! The float-to-integer loops read whole chunks of 16 elements, so that
//! each narrows four registers into one before storing, and return how
//! many input bytes they took; the caller converts the rest with the
//! typed loop. `f32` to `bf16`, integer arithmetic only, is an element
//! loop, which the compiler vectorizes across elements (over chunks, it
//! gathers lanes from 16 elements apart instead).

use super::{bf16_from_f32, Narrow, Pair};

/// Elements in a chunk of the float-to-integer loops.
const CHUNK: usize = 16;

/// 2^23: adding it to a value in `0..2^23` rounds the value to an integer,
/// which the sum's low mantissa bits then hold.
const EXACT: f32 = 8_388_608.0;

/// 1.5 * 2^23: the same for values in `-2^22..2^22`, whose sums stay
/// between 2^23 and 2^24.
const SIGNED_EXACT: f32 = 12_582_912.0;

/// 2^32: the sum with a value in `0..2^31` keeps its multiple of 512
/// nearest to it, in the low mantissa bits.
const WIDE: f32 = 4_294_967_296.0;

/// 2^31, the first `f32` beyond `i32`'s range.
const I32_END: f32 = 2_147_483_648.0;

/// Converts the whole chunks at the start of `src` (`f32`s, for every
/// pair here) into `dst` for `pair`; returns the bytes of `src` taken, or
/// `None` for a pair with no loop here.
pub(super) fn convert(pair: Pair, src: &[u8], dst: &mut [u8]) -> Option<usize> {
    Some(match pair {
        Pair::F32ToI32 => chunks(src, dst, to_i32),
        Pair::F32ToNarrow(Narrow::U8) => chunks(src, dst, to_u8),
        Pair::F32ToNarrow(Narrow::U16) => chunks(src, dst, to_u16),
        Pair::F32ToNarrow(Narrow::I8) => chunks(src, dst, to_i8),
        Pair::F32ToNarrow(Narrow::I16) => chunks(src, dst, to_i16),
        Pair::F32ToBf16 => elements(src, dst, |v| bf16_from_f32(v).to_bits().to_le_bytes()),
        // The typed loop and `half` already vectorize these.
        Pair::I32ToF32 | Pair::F32ToF16 | Pair::F16ToF32 => return None,
    })
}

/// Runs `f` on each whole chunk of `f32`s at the start of `src`, storing
/// its `O` bytes at the matching place of `dst`; returns the bytes of
/// `src` taken.
#[inline(always)]
fn chunks<const O: usize>(src: &[u8], dst: &mut [u8], f: impl Fn([f32; CHUNK]) -> [u8; O]) -> usize {
    let (input, _) = src.as_chunks::<{ 4 * CHUNK }>();
    let (output, _) = dst.as_chunks_mut::<O>();
    let mut taken = 0;
    for (o, i) in output.iter_mut().zip(input) {
        let mut v = [0.0f32; CHUNK];
        for (v, b) in v.iter_mut().zip(i.as_chunks::<4>().0) {
            *v = f32::from_le_bytes(*b);
        }
        *o = f(v);
        taken += i.len();
    }
    taken
}

/// Runs `f` on every `f32` of `src`, storing its `O` bytes at the matching
/// place of `dst`; returns the bytes of `src` taken.
#[inline(always)]
fn elements<const O: usize>(src: &[u8], dst: &mut [u8], f: impl Fn(f32) -> [u8; O]) -> usize {
    let (input, _) = src.as_chunks::<4>();
    let (output, _) = dst.as_chunks_mut::<O>();
    let count = input.len().min(output.len());
    for (o, i) in output.iter_mut().zip(input) {
        *o = f(f32::from_le_bytes(*i));
    }
    count * 4
}

/// `a`, a whole or fractional value in `0..2^23`, truncated: its integer
/// part.
#[inline(always)]
fn truncate(a: f32) -> u32 {
    let sum = a + EXACT;
    let rounded = sum.to_bits().wrapping_sub(EXACT.to_bits());
    // Rounding went up when the whole value it kept is above `a`.
    rounded.wrapping_sub(u32::from(sum - EXACT > a))
}

/// `v` within `0..=bound`, NaN giving 0: `f32::max` takes the number
/// when one side is NaN (where `clamp` would keep the NaN), and the
/// baseline instructions have it.
#[inline(always)]
#[allow(clippy::manual_clamp)]
fn within(v: f32, bound: f32) -> f32 {
    v.max(0.0).min(bound)
}

/// `magnitude` given the sign of `v`: negated when `v` is negative.
#[inline(always)]
fn with_sign(magnitude: u32, v: f32) -> i32 {
    // All ones for a negative `v`, zeros otherwise; (m ^ s) - s is then -m
    // or m.
    let sign = (v.to_bits() as i32) >> 31;
    ((magnitude as i32) ^ sign).wrapping_sub(sign)
}

/// `v` truncated toward zero as a magnitude of at most `bound` (a whole
/// number below 2^23) with `v`'s sign, NaN giving 0.
#[inline(always)]
fn truncate_signed(v: f32, bound: f32) -> i32 {
    with_sign(truncate(within(v.abs(), bound)), v)
}

/// `v as u8` for each `f32` of the chunk.
#[inline(always)]
fn to_u8(v: [f32; CHUNK]) -> [u8; CHUNK] {
    let mut out = [0u8; CHUNK];
    for (o, &v) in out.iter_mut().zip(&v) {
        *o = truncate(within(v, u8::MAX.into())) as u8;
    }
    out
}

/// `v as u16` for each `f32` of the chunk, in little-endian bytes.
#[inline(always)]
fn to_u16(v: [f32; CHUNK]) -> [u8; 2 * CHUNK] {
    let mut out = [0u8; 2 * CHUNK];
    for (o, &v) in out.as_chunks_mut::<2>().0.iter_mut().zip(&v) {
        *o = (truncate(within(v, u16::MAX.into())) as u16).to_le_bytes();
    }
    out
}

/// `v as i8` for each `f32` of the chunk.
#[inline(always)]
fn to_i8(v: [f32; CHUNK]) -> [u8; CHUNK] {
    // Magnitudes up to 128 and signs as bytes, then each magnitude takes
    // its sign, positive ones capped at 127, in byte arithmetic: one
    // register for the chunk. (Truncating to `i32`s, with the sign, and
    // narrowing them with saturating packs gave a loop at 1.7 times a
    // memcpy here, this one 1.3 times.)
    let mut magnitudes = [0u8; CHUNK];
    for (m, &v) in magnitudes.iter_mut().zip(&v) {
        *m = truncate(within(v.abs(), 128.0)) as u8;
    }
    let mut signs = [0u8; CHUNK];
    for (s, &v) in signs.iter_mut().zip(&v) {
        // All ones for a negative `v`, zeros otherwise.
        *s = ((v.to_bits() as i32) >> 31) as u8;
    }
    let mut out = [0u8; CHUNK];
    for ((o, &m), &s) in out.iter_mut().zip(&magnitudes).zip(&signs) {
        // The cap is 127 for a positive `v`, 128 for a negative one; then
        // (m ^ s) - s is m or -m.
        *o = (m.min(127u8.wrapping_sub(s)) ^ s).wrapping_sub(s);
    }
    out
}

/// `v as i16` for each `f32` of the chunk, in little-endian bytes.
#[inline(always)]
fn to_i16(v: [f32; CHUNK]) -> [u8; 2 * CHUNK] {
    // Magnitudes up to 32768 with their signs, which the clamp brings into
    // the type's range, so that the compiler narrows with saturating packs.
    let mut halves = [0i16; CHUNK];
    for (h, &v) in halves.iter_mut().zip(&v) {
        *h = truncate_signed(v, 32768.0).clamp(i16::MIN.into(), i16::MAX.into()) as i16;
    }
    let mut out = [0u8; 2 * CHUNK];
    for (o, h) in out.as_chunks_mut::<2>().0.iter_mut().zip(&halves) {
        *o = h.to_le_bytes();
    }
    out
}

/// `v as i32` for each `f32` of the chunk, in little-endian bytes.
#[inline(always)]
fn to_i32(v: [f32; CHUNK]) -> [u8; 4 * CHUNK] {
    // Chunks of values below 2^23, which most tensors hold, take the short
    // arithmetic of the narrow types; NaN fails the test.
    let mut small = true;
    for &v in &v {
        small &= v.abs() < EXACT;
    }
    let mut ints = [0i32; CHUNK];
    if small {
        for (i, &v) in ints.iter_mut().zip(&v) {
            *i = with_sign(truncate(v.abs()), v);
        }
    } else {
        for (i, &v) in ints.iter_mut().zip(&v) {
            *i = to_i32_wide(v);
        }
    }
    let mut out = [0u8; 4 * CHUNK];
    for (o, i) in out.as_chunks_mut::<4>().0.iter_mut().zip(&ints) {
        *o = i.to_le_bytes();
    }
    out
}

/// `v as i32`, for any `v`.
#[inline(always)]
fn to_i32_wide(v: f32) -> i32 {
    // The magnitude, NaN giving 0 and the rest at most 2^31, is split into
    // a multiple of 512 and a remainder in -256..=256, both exact: the sum
    // with 2^32 rounds the magnitude to the multiple and holds it divided
    // by 512 in its low bits; the remainder, possibly fractional, is
    // truncated toward minus infinity with the signed magic number, which
    // together give the magnitude's integer part (wrapping at 2^31).
    let a = within(v.abs(), I32_END);
    let sum = a + WIDE;
    let rest = a - (sum - WIDE);
    let low = rest + SIGNED_EXACT;
    let high = sum.to_bits().wrapping_sub(WIDE.to_bits()) << 9;
    let rest =
        low.to_bits().wrapping_sub(SIGNED_EXACT.to_bits()).wrapping_sub(u32::from(low - SIGNED_EXACT > rest));
    let t = with_sign(high.wrapping_add(rest), v);
    // A magnitude of 2^31 or more gives `i32::MIN`, right for negative
    // values; positive ones flip it to `i32::MAX`.
    t ^ -i32::from(v >= I32_END)
}
