//! The x86_64 loops of Convert, for the pairs a compiler leaves scalar or
//! narrow, or that have an instruction of their own:
//!
//! - reals into `i32`, `i16`, `u16`, `i8` and `u8`: truncation, saturation
//!   and NaN to 0 with no branch (Rust's `as` gives the same results one
//!   element at a time, and the compiler keeps it scalar: a conversion,
//!   two compares and two selects per element);
//! - `f32` to `bf16`: nearest even with NaNs kept, in integer arithmetic
//!   (AVX-512's `vcvtneps2bf16` flushes subnormals to zero, so it is not
//!   used);
//! - `i32` to `f32`, nearest even as `as` rounds;
//! - `f32` to and from `f16`: the F16C conversions, or AVX-512's.
//!
//! Each loop is written once, generic over [`Lanes`]: the few instructions
//! the conversions need at a register width, implemented on the tokens of
//! the kernels' SIMD layer (`kernels::simd`), whose [`Simd`] gives the
//! registers, loads, stores and the function the loop is compiled in: SSE2
//! (16 bytes, which every x86_64 CPU has), AVX2 with F16C (32 bytes) and
//! AVX-512 F (64 bytes). [`Isa::detect`] picks the widest the running CPU
//! has. SSE2 has no `f16` conversions, and leaves those pairs to the
//! caller.
//!
//! A loop converts the whole groups of registers at the start of its
//! buffers and returns how many bytes of input it took; the caller
//! converts the rest with the typed loop, which also decides the
//! results the loops are tested against. With streaming stores (lent and
//! fenced by `simd::streaming`), the output goes to memory without being
//! read into the cache first.

use std::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm256_and_si256, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_cmp_ps,
    _mm256_cmpgt_epi32, _mm256_cvtepi32_ps, _mm256_cvtph_ps, _mm256_cvtps_ph, _mm256_cvttps_epi32,
    _mm256_extracti128_si256, _mm256_max_ps, _mm256_min_ps, _mm256_or_si256, _mm256_packs_epi16,
    _mm256_packs_epi32, _mm256_packus_epi16, _mm256_packus_epi32, _mm256_permute4x64_epi64,
    _mm256_permutevar8x32_epi32, _mm256_set1_epi32, _mm256_set1_ps, _mm256_set_m128i, _mm256_setr_epi32,
    _mm256_srai_epi32, _mm256_xor_si256, _mm512_add_epi32, _mm512_and_si512, _mm512_castps_si512,
    _mm512_castsi128_si512, _mm512_castsi256_si512, _mm512_castsi512_ps, _mm512_cmp_ps_mask,
    _mm512_cmpgt_epi32_mask, _mm512_cvtepi32_epi16, _mm512_cvtepi32_epi8, _mm512_cvtepi32_ps,
    _mm512_cvtph_ps, _mm512_cvtps_ph, _mm512_extracti64x4_epi64, _mm512_inserti32x4, _mm512_inserti64x4,
    _mm512_mask_blend_epi32, _mm512_mask_mov_epi32, _mm512_maskz_cvttps_epi32, _mm512_max_ps, _mm512_min_ps,
    _mm512_or_si512, _mm512_set1_epi32, _mm512_set1_ps, _mm512_srai_epi32, _mm_add_epi32, _mm_and_si128,
    _mm_andnot_si128, _mm_castps_si128, _mm_castsi128_ps, _mm_cmpge_ps, _mm_cmpgt_epi32, _mm_cmpord_ps,
    _mm_cvtepi32_ps, _mm_cvttps_epi32, _mm_max_ps, _mm_min_ps, _mm_or_si128, _mm_packs_epi16,
    _mm_packs_epi32, _mm_packus_epi16, _mm_set1_epi16, _mm_set1_epi32, _mm_set1_ps, _mm_srai_epi32,
    _mm_sub_epi32, _mm_xor_si128, _CMP_GE_OQ, _CMP_ORD_Q, _MM_FROUND_TO_NEAREST_INT,
};

use super::{Narrow, Pair};
use crate::kernels::simd::{streaming, Avx2, Avx512, Plain, Simd, Sse2, Stores};

// Every x86_64 target enables SSE2 for all code; the SSE2 loops' `unsafe`
// rests on it.
const _: () = assert!(cfg!(target_feature = "sse2"));

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

    /// Whether the type is unsigned.
    fn unsigned(self) -> bool {
        matches!(self, Narrow::U8 | Narrow::U16)
    }
}

/// The widest instruction set the running CPU has for the conversions.
#[derive(Clone, Copy, Debug)]
pub(super) enum Isa {
    /// 16 bytes, which every x86_64 CPU has.
    Sse2(Sse2),
    /// 32 bytes, with AVX2 and F16C.
    Avx2(Avx2),
    /// 64 bytes, with AVX-512 F (the token also proves BW).
    Avx512(Avx512),
}

impl Isa {
    /// The widest set the running CPU has.
    pub(super) fn detect() -> Isa {
        let [sse2, avx2, avx512] = Isa::available();
        avx512.or(avx2).or(sse2).unwrap_or(Isa::Sse2(Sse2::new()))
    }

    /// Bytes in a register of this set.
    #[cfg(test)]
    pub(super) fn bytes(self) -> usize {
        match self {
            Isa::Sse2(_) => Sse2::BYTES,
            Isa::Avx2(_) => Avx2::BYTES,
            Isa::Avx512(_) => Avx512::BYTES,
        }
    }

    /// Each set, SSE2, AVX2 and AVX-512, where the running CPU has it (for
    /// the tests too, which check each against the typed loop).
    pub(super) fn available() -> [Option<Isa>; 3] {
        [Some(Isa::Sse2(Sse2::new())), Avx2::detect().map(Isa::Avx2), Avx512::detect().map(Isa::Avx512)]
    }

    /// Converts the whole groups at the start of `src` into `dst` for
    /// `pair`, streaming the stores when `stream` holds and `dst` starts on
    /// a register's boundary; returns the bytes of `src` taken, or `None`
    /// for the `f16` pairs in SSE2, which has no `f16` instructions (the
    /// caller's `half` slice routines then do better than a lane at a
    /// time).
    pub(super) fn convert(self, pair: Pair, stream: bool, src: &[u8], dst: &mut [u8]) -> Option<usize> {
        let half = match pair {
            Pair::F32ToF16 => Some(Half::To),
            Pair::F16ToF32 => Some(Half::From),
            _ => None,
        };
        Some(match (self, half) {
            (Isa::Sse2(_), Some(_)) => return None,
            (Isa::Sse2(l), None) => stores(l, pair, stream, src, dst),
            (Isa::Avx2(l), None) => stores(l, pair, stream, src, dst),
            (Isa::Avx2(l), Some(h)) => stores(l, h, stream, src, dst),
            (Isa::Avx512(l), None) => stores(l, pair, stream, src, dst),
            (Isa::Avx512(l), Some(h)) => stores(l, h, stream, src, dst),
        })
    }
}

/// A conversion loop for registers of `L`.
trait Loop<L: Lanes>: Copy {
    /// Converts the whole groups at the start of `src` into `dst`, storing
    /// as `S` says; returns the bytes of `src` taken. It is inlined into
    /// [`Simd::run`]'s function: every closure in it is
    /// `#[inline(always)]`, and no generic function of the standard
    /// library gets one (such as `array::map`), since a closure compiled
    /// apart from that function would call the intrinsics instead of
    /// holding them. Streaming, it takes nothing unless `dst` starts on a
    /// register's boundary.
    fn run<S: Stores>(self, l: L, s: S, src: &[u8], dst: &mut [u8]) -> usize;
}

/// [`Isa::convert`] for one register width and loop: picks the stores,
/// and fences streaming ones before returning.
fn stores<L: Lanes, P: Loop<L>>(l: L, pair: P, stream: bool, src: &[u8], dst: &mut [u8]) -> usize {
    if stream && dst.as_ptr().align_offset(L::BYTES) == 0 {
        #[cfg(test)]
        STREAMED.with(|n| n.set(n.get() + 1));
        return streaming(
            #[inline(always)]
            |s| {
                l.run(
                    #[inline(always)]
                    || pair.run(l, s, src, dst),
                )
            },
        );
    }
    l.run(
        #[inline(always)]
        || pair.run(l, Plain, src, dst),
    )
}

#[cfg(test)]
thread_local! {
    /// Calls on this thread that took the streaming stores, for the tests
    /// to check that they did.
    pub(super) static STREAMED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The two `f16` loops, for the widths that have [`Halves`].
#[derive(Clone, Copy, Debug)]
enum Half {
    /// `f32` to `f16`.
    To,
    /// `f16` to `f32`.
    From,
}

impl<L: Halves> Loop<L> for Half {
    #[inline(always)]
    fn run<S: Stores>(self, l: L, s: S, src: &[u8], dst: &mut [u8]) -> usize {
        match self {
            Half::To => groups::<L, S, 2, 1>(
                l,
                s,
                (src, dst),
                #[inline(always)]
                |v| [l.f32_to_f16(v)],
            ),
            Half::From => groups::<L, S, 1, 2>(
                l,
                s,
                (src, dst),
                #[inline(always)]
                |[v]| l.f16_to_f32(v),
            ),
        }
    }
}

/// Every pair but the `f16` ones ([`Half`]), which [`Isa::convert`] sends
/// there.
impl<L: Lanes> Loop<L> for Pair {
    #[inline(always)]
    fn run<S: Stores>(self, l: L, s: S, src: &[u8], dst: &mut [u8]) -> usize {
        match self {
            Pair::F32ToI32 => groups::<L, S, 1, 1>(
                l,
                s,
                (src, dst),
                #[inline(always)]
                |[v]| [l.truncate(v)],
            ),
            Pair::F32ToNarrow(to @ (Narrow::I8 | Narrow::U8)) => groups::<L, S, 4, 1>(
                l,
                s,
                (src, dst),
                #[inline(always)]
                |v| [l.bytes(within(l, v, to), to.unsigned())],
            ),
            Pair::F32ToNarrow(to) => groups::<L, S, 2, 1>(
                l,
                s,
                (src, dst),
                #[inline(always)]
                |v| [l.halves(within(l, v, to), to.unsigned())],
            ),
            Pair::F32ToBf16 => groups::<L, S, 2, 1>(
                l,
                s,
                (src, dst),
                #[inline(always)]
                |[a, b]| [l.halves([bf16_bits(l, a), bf16_bits(l, b)], false)],
            ),
            Pair::I32ToF32 => groups::<L, S, 1, 1>(
                l,
                s,
                (src, dst),
                #[inline(always)]
                |[v]| [l.to_f32(v)],
            ),
            // Sent to `Half` by `Isa::convert`; nothing taken here.
            Pair::F32ToF16 | Pair::F16ToF32 => 0,
        }
    }
}

/// Each `f32` of `v` clamped to `to`'s range and truncated, NaN giving 0.
#[inline(always)]
fn within<L: Lanes, const N: usize>(l: L, mut v: [L::Reg; N], to: Narrow) -> [L::Reg; N] {
    let (lo, hi) = to.bounds();
    for r in &mut v {
        *r = l.truncate_within(*r, lo, hi);
    }
    v
}

/// Runs `f` over the whole groups of `I` registers at the start of `src`,
/// storing its `O` registers at the matching place of `dst`; returns the
/// bytes of `src` taken, none when streaming into a `dst` that does not
/// start on a register's boundary.
#[inline(always)]
fn groups<L: Lanes, S: Stores, const I: usize, const O: usize>(
    l: L,
    s: S,
    (src, dst): (&[u8], &mut [u8]),
    f: impl Fn([L::Reg; I]) -> [L::Reg; O],
) -> usize {
    if S::STREAMING && dst.as_ptr().align_offset(L::BYTES) != 0 {
        // Streaming stores need it; `stores` never asks for them here.
        return 0;
    }
    let (take, give) = (I * L::BYTES, O * L::BYTES);
    let count = (src.len() / take).min(dst.len() / give);
    let (i, o) = (src.as_ptr(), dst.as_mut_ptr());
    for g in 0..count {
        // SAFETY: group `g` reads `take` bytes at `g * take` and writes
        // `give` at `g * give`, inside `src` and `dst` as `count` is the
        // number of whole groups both hold. Streaming, `dst` starts on a
        // register's boundary (checked above), and so does every group's
        // output, a whole number of registers further on.
        unsafe {
            let mut regs = [l.splat(0); I];
            for (k, r) in regs.iter_mut().enumerate() {
                *r = l.load(i.add(g * take + k * L::BYTES));
            }
            for (k, r) in f(regs).into_iter().enumerate() {
                l.store(s, o.add(g * give + k * L::BYTES), r);
            }
        }
    }
    count * take
}

/// The `bf16` of each `f32` in `x`, rounded to nearest even (a NaN keeps
/// the top of its payload and gets the quiet bit, as `half` does),
/// sign-extended to 32 bits.
#[inline(always)]
fn bf16_bits<L: Lanes>(l: L, x: L::Reg) -> L::Reg {
    // Just under half a unit plus the kept part's lowest bit carries into
    // the kept part exactly when nearest-even rounds up; only a NaN is
    // large enough for the sum to wrap.
    let lowest = l.and(l.shift_right_16(x), l.splat(1));
    let rounded = l.add(x, l.add(lowest, l.splat(0x7fff)));
    let quiet = l.or(x, l.splat(0x0040_0000));
    let magnitude = l.and(x, l.splat(0x7fff_ffff));
    l.shift_right_16(l.pick_greater(magnitude, l.splat(0x7f80_0000), quiet, rounded))
}

/// A register width and the instructions the conversions need at it. A
/// register holds 32-bit lanes, read as `f32` or `i32` as each method
/// says.
///
/// # Safety
/// A value of an implementing type must exist only when the running CPU
/// has every instruction its methods use, and the features [`Simd::run`]
/// enables: the methods' `unsafe` blocks rely on that.
unsafe trait Lanes: Simd {
    /// `v` in every lane.
    fn splat(self, v: i32) -> Self::Reg;

    /// The bits of both.
    fn and(self, a: Self::Reg, b: Self::Reg) -> Self::Reg;

    /// The bits of either.
    fn or(self, a: Self::Reg, b: Self::Reg) -> Self::Reg;

    /// The `i32` sums, wrapping.
    fn add(self, a: Self::Reg, b: Self::Reg) -> Self::Reg;

    /// Each `i32` shifted right 16 bits, its sign bit copied in.
    fn shift_right_16(self, v: Self::Reg) -> Self::Reg;

    /// `then`'s lanes where the `i32` of `a` is greater than that of `b`,
    /// `otherwise`'s elsewhere.
    fn pick_greater(self, a: Self::Reg, b: Self::Reg, then: Self::Reg, otherwise: Self::Reg) -> Self::Reg;

    /// Each `f32` truncated to an `i32` as Rust's `as` does: saturating,
    /// NaN giving 0.
    fn truncate(self, v: Self::Reg) -> Self::Reg;

    /// Each `f32` clamped to `lo..=hi` (whole numbers that are exact
    /// `i32`s) and truncated, NaN giving 0.
    fn truncate_within(self, v: Self::Reg, lo: f32, hi: f32) -> Self::Reg;

    /// Each `i32` as the nearest `f32`, ties to even.
    fn to_f32(self, v: Self::Reg) -> Self::Reg;

    /// The low bytes of the `i32` lanes of all four, in order, each of
    /// which is an `i8` (`u8` when `unsigned`).
    fn bytes(self, v: [Self::Reg; 4], unsigned: bool) -> Self::Reg;

    /// The low halves of the `i32` lanes of both, in order, each of which
    /// is an `i16` (`u16` when `unsigned`).
    fn halves(self, v: [Self::Reg; 2], unsigned: bool) -> Self::Reg;
}

/// A register width with `f16` conversions.
///
/// # Safety
/// As for [`Lanes`].
unsafe trait Halves: Lanes {
    /// The `f16`s of the `f32`s of both, in order, to nearest even (NaNs
    /// stay NaN, quieted, with the top of their payload).
    fn f32_to_f16(self, v: [Self::Reg; 2]) -> Self::Reg;

    /// The `f32`s of the `f16`s of `v`, in order (exact; NaNs are
    /// quieted).
    fn f16_to_f32(self, v: Self::Reg) -> [Self::Reg; 2];
}

// SAFETY: SSE2 is enabled for all x86_64 code (checked above), and there
// is an `Sse2` token on every x86_64 CPU.
unsafe impl Lanes for Sse2 {
    #[inline(always)]
    fn splat(self, v: i32) -> __m128i {
        // SAFETY: SSE2 is always there.
        unsafe { _mm_set1_epi32(v) }
    }

    #[inline(always)]
    fn and(self, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is always there.
        unsafe { _mm_and_si128(a, b) }
    }

    #[inline(always)]
    fn or(self, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is always there.
        unsafe { _mm_or_si128(a, b) }
    }

    #[inline(always)]
    fn add(self, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is always there.
        unsafe { _mm_add_epi32(a, b) }
    }

    #[inline(always)]
    fn shift_right_16(self, v: __m128i) -> __m128i {
        // SAFETY: SSE2 is always there.
        unsafe { _mm_srai_epi32::<16>(v) }
    }

    #[inline(always)]
    fn pick_greater(self, a: __m128i, b: __m128i, then: __m128i, otherwise: __m128i) -> __m128i {
        // SAFETY: SSE2 is always there.
        unsafe {
            let mask = _mm_cmpgt_epi32(a, b);
            _mm_or_si128(_mm_and_si128(mask, then), _mm_andnot_si128(mask, otherwise))
        }
    }

    #[inline(always)]
    fn truncate(self, v: __m128i) -> __m128i {
        // SAFETY: SSE2 is always there.
        unsafe {
            let v = _mm_castsi128_ps(v);
            // In range the conversion is exact; out of range and for NaN
            // it gives `i32::MIN`, right for large negative values. Values
            // of 2^31 and up turn it into `i32::MAX`, and NaN becomes 0.
            let r = _mm_cvttps_epi32(v);
            let over = _mm_castps_si128(_mm_cmpge_ps(v, _mm_set1_ps(2_147_483_648.0)));
            _mm_and_si128(_mm_xor_si128(r, over), _mm_castps_si128(_mm_cmpord_ps(v, v)))
        }
    }

    #[inline(always)]
    fn truncate_within(self, v: __m128i, lo: f32, hi: f32) -> __m128i {
        // SAFETY: SSE2 is always there.
        unsafe {
            let v = _mm_castsi128_ps(v);
            // `max` gives its second operand for NaN; the mask then makes
            // it 0.
            let r = _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(v, _mm_set1_ps(lo)), _mm_set1_ps(hi)));
            _mm_and_si128(r, _mm_castps_si128(_mm_cmpord_ps(v, v)))
        }
    }

    #[inline(always)]
    fn to_f32(self, v: __m128i) -> __m128i {
        // SAFETY: SSE2 is always there.
        unsafe { _mm_castps_si128(_mm_cvtepi32_ps(v)) }
    }

    #[inline(always)]
    fn bytes(self, [a, b, c, d]: [__m128i; 4], unsigned: bool) -> __m128i {
        // SAFETY: SSE2 is always there.
        unsafe {
            // Lanes within the target's range pass both packs unchanged.
            let (ab, cd) = (_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
            if unsigned {
                _mm_packus_epi16(ab, cd)
            } else {
                _mm_packs_epi16(ab, cd)
            }
        }
    }

    #[inline(always)]
    fn halves(self, [a, b]: [__m128i; 2], unsigned: bool) -> __m128i {
        // SAFETY: SSE2 is always there.
        unsafe {
            if unsigned {
                // SSE2 packs to signed 16 bits only: move [0, 65535] down
                // to [-32768, 32767], pack, and flip the top bit back.
                let down = _mm_set1_epi32(32768);
                let packed = _mm_packs_epi32(_mm_sub_epi32(a, down), _mm_sub_epi32(b, down));
                _mm_xor_si128(packed, _mm_set1_epi16(i16::MIN))
            } else {
                _mm_packs_epi32(a, b)
            }
        }
    }
}

// SAFETY: an `Avx2` is only made after the CPU reported AVX2 and F16C,
// and its `Simd::run` enables those two.
unsafe impl Lanes for Avx2 {
    #[inline(always)]
    fn splat(self, v: i32) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_set1_epi32(v) }
    }

    #[inline(always)]
    fn and(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_and_si256(a, b) }
    }

    #[inline(always)]
    fn or(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_or_si256(a, b) }
    }

    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { std::arch::x86_64::_mm256_add_epi32(a, b) }
    }

    #[inline(always)]
    fn shift_right_16(self, v: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_srai_epi32::<16>(v) }
    }

    #[inline(always)]
    fn pick_greater(self, a: __m256i, b: __m256i, then: __m256i, otherwise: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { std::arch::x86_64::_mm256_blendv_epi8(otherwise, then, _mm256_cmpgt_epi32(a, b)) }
    }

    #[inline(always)]
    fn truncate(self, v: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe {
            let v = _mm256_castsi256_ps(v);
            // As in SSE2: `i32::MIN` for what does not fit, turned into
            // `i32::MAX` from 2^31 up, and NaN into 0.
            let r = _mm256_cvttps_epi32(v);
            let over = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GE_OQ>(v, _mm256_set1_ps(2_147_483_648.0)));
            let ordered = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_ORD_Q>(v, v));
            _mm256_and_si256(_mm256_xor_si256(r, over), ordered)
        }
    }

    #[inline(always)]
    fn truncate_within(self, v: __m256i, lo: f32, hi: f32) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe {
            let v = _mm256_castsi256_ps(v);
            let r =
                _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(lo)), _mm256_set1_ps(hi)));
            _mm256_and_si256(r, _mm256_castps_si256(_mm256_cmp_ps::<_CMP_ORD_Q>(v, v)))
        }
    }

    #[inline(always)]
    fn to_f32(self, v: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_castps_si256(_mm256_cvtepi32_ps(v)) }
    }

    #[inline(always)]
    fn bytes(self, [a, b, c, d]: [__m256i; 4], unsigned: bool) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe {
            // The packs work within 16-byte lanes: the bytes come out as
            // a, b, c, d's first four lanes, then their last four; one
            // permute of 32-bit words puts them in order.
            let (ab, cd) = (_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
            let packed = if unsigned { _mm256_packus_epi16(ab, cd) } else { _mm256_packs_epi16(ab, cd) };
            _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))
        }
    }

    #[inline(always)]
    fn halves(self, [a, b]: [__m256i; 2], unsigned: bool) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe {
            // Within 16-byte lanes again: a's first four, b's first four,
            // a's last four, b's last four; the permute swaps the middle.
            let packed = if unsigned { _mm256_packus_epi32(a, b) } else { _mm256_packs_epi32(a, b) };
            _mm256_permute4x64_epi64::<0b11_01_10_00>(packed)
        }
    }
}

// SAFETY: as for the `Lanes` impl above.
unsafe impl Halves for Avx2 {
    #[inline(always)]
    fn f32_to_f16(self, [a, b]: [__m256i; 2]) -> __m256i {
        // SAFETY: the token proves F16C and AVX2.
        unsafe {
            let low = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_castsi256_ps(a));
            let high = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_castsi256_ps(b));
            _mm256_set_m128i(high, low)
        }
    }

    #[inline(always)]
    fn f16_to_f32(self, v: __m256i) -> [__m256i; 2] {
        // SAFETY: the token proves F16C and AVX2.
        unsafe {
            let low: __m128i = std::arch::x86_64::_mm256_castsi256_si128(v);
            let high = _mm256_extracti128_si256::<1>(v);
            [_mm256_castps_si256(_mm256_cvtph_ps(low)), _mm256_castps_si256(_mm256_cvtph_ps(high))]
        }
    }
}

// SAFETY: an `Avx512` is only made after the CPU reported AVX-512 F (and
// BW), and its `Simd::run` enables those two.
unsafe impl Lanes for Avx512 {
    #[inline(always)]
    fn splat(self, v: i32) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_set1_epi32(v) }
    }

    #[inline(always)]
    fn and(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_and_si512(a, b) }
    }

    #[inline(always)]
    fn or(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_or_si512(a, b) }
    }

    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_add_epi32(a, b) }
    }

    #[inline(always)]
    fn shift_right_16(self, v: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_srai_epi32::<16>(v) }
    }

    #[inline(always)]
    fn pick_greater(self, a: __m512i, b: __m512i, then: __m512i, otherwise: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_mask_blend_epi32(_mm512_cmpgt_epi32_mask(a, b), otherwise, then) }
    }

    #[inline(always)]
    fn truncate(self, v: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe {
            let v = _mm512_castsi512_ps(v);
            // NaN lanes are zeroed by the conversion's mask; what does not
            // fit gives `i32::MIN`, replaced by `i32::MAX` from 2^31 up.
            let ordered = _mm512_cmp_ps_mask::<_CMP_ORD_Q>(v, v);
            let over = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(v, _mm512_set1_ps(2_147_483_648.0));
            let r = _mm512_maskz_cvttps_epi32(ordered, v);
            _mm512_mask_mov_epi32(r, over, _mm512_set1_epi32(i32::MAX))
        }
    }

    #[inline(always)]
    fn truncate_within(self, v: __m512i, lo: f32, hi: f32) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe {
            let v = _mm512_castsi512_ps(v);
            let ordered = _mm512_cmp_ps_mask::<_CMP_ORD_Q>(v, v);
            let clamped = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
            _mm512_maskz_cvttps_epi32(ordered, clamped)
        }
    }

    #[inline(always)]
    fn to_f32(self, v: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_castps_si512(_mm512_cvtepi32_ps(v)) }
    }

    #[inline(always)]
    fn bytes(self, [a, b, c, d]: [__m512i; 4], _: bool) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe {
            // Every lane is within the target's range, so taking its low
            // byte keeps it, signed or not.
            let r = _mm512_castsi128_si512(_mm512_cvtepi32_epi8(a));
            let r = _mm512_inserti32x4::<1>(r, _mm512_cvtepi32_epi8(b));
            let r = _mm512_inserti32x4::<2>(r, _mm512_cvtepi32_epi8(c));
            _mm512_inserti32x4::<3>(r, _mm512_cvtepi32_epi8(d))
        }
    }

    #[inline(always)]
    fn halves(self, [a, b]: [__m512i; 2], _: bool) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe {
            // As for the bytes: the low half keeps every lane.
            _mm512_inserti64x4::<1>(
                _mm512_castsi256_si512(_mm512_cvtepi32_epi16(a)),
                _mm512_cvtepi32_epi16(b),
            )
        }
    }
}

// SAFETY: as for the `Lanes` impl above.
unsafe impl Halves for Avx512 {
    #[inline(always)]
    fn f32_to_f16(self, [a, b]: [__m512i; 2]) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe {
            let low = _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm512_castsi512_ps(a));
            let high = _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm512_castsi512_ps(b));
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high)
        }
    }

    #[inline(always)]
    fn f16_to_f32(self, v: __m512i) -> [__m512i; 2] {
        // SAFETY: the token proves AVX-512F.
        unsafe {
            let low = _mm512_extracti64x4_epi64::<0>(v);
            let high = _mm512_extracti64x4_epi64::<1>(v);
            [_mm512_castps_si512(_mm512_cvtph_ps(low)), _mm512_castps_si512(_mm512_cvtph_ps(high))]
        }
    }
}
