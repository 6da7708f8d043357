//! AVX-512 (F and BW): 64-byte registers whose byte-wise selects take a
//! mask register (`k`) of one bit a byte, for ReverseSubsequences' strips.
//!
//! A 64-byte strip is a cache line of columns, and each select in it is
//! one instruction under a mask worked out once per strip. In AVX2 a strip
//! is half a line, and each select (`vpblendvb`) takes its mask as a
//! vector: on recent Intel cores three micro-operations where
//! `vpblendmb` takes one.

use std::arch::x86_64::{
    __m512i, __mmask64, _mm512_and_si512, _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_mask_blend_epi8,
    _mm512_min_epu8, _mm512_set1_epi8, _mm512_storeu_si512, _mm512_stream_si512, _mm512_subs_epu8,
    _mm512_testn_epi8_mask,
};

use super::strips::Selects;
use super::Stores;

/// Proof that the running CPU has AVX-512 F and BW: only
/// [`Avx512::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels::copy) struct Avx512 {
    _proof: (),
}

impl Avx512 {
    /// The token, when the running CPU has AVX-512 F and BW.
    pub(in crate::kernels::copy) fn detect() -> Option<Avx512> {
        let has =
            std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512bw");
        has.then_some(Avx512 { _proof: () })
    }
}

// SAFETY: an `Avx512` is only made by `detect`, after the CPU reported
// AVX-512 F and BW, and `run` enables those two alone (which include AVX2
// and below).
unsafe impl Selects for Avx512 {
    type Reg = __m512i;
    type Mask = __mmask64;
    const BYTES: usize = 64;

    #[inline(always)]
    fn run<R>(self, f: impl FnOnce() -> R) -> R {
        #[target_feature(enable = "avx512f,avx512bw")]
        fn enabled<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        // SAFETY: this token proves the CPU has AVX-512 F and BW.
        unsafe { enabled(f) }
    }

    #[inline(always)]
    unsafe fn load(self, p: *const u8) -> __m512i {
        // SAFETY: the caller guarantees 64 readable bytes; the load takes
        // any address; the token proves AVX-512 F.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }

    #[inline(always)]
    unsafe fn store<S: Stores>(self, _: S, p: *mut u8, v: __m512i) {
        if S::STREAMING {
            // SAFETY: the caller guarantees a valid destination, 64-byte
            // aligned as the streaming store needs; the `Streaming` witness
            // `S` promises the fence; the token proves AVX-512 F.
            unsafe { _mm512_stream_si512(p.cast(), v) }
        } else {
            // SAFETY: the caller guarantees a valid destination; this store
            // takes any address; the token proves AVX-512 F.
            unsafe { _mm512_storeu_si512(p.cast(), v) }
        }
    }

    #[inline(always)]
    fn splat(self, v: u8) -> __m512i {
        // SAFETY: this token proves the CPU has AVX-512 BW.
        unsafe { _mm512_set1_epi8(v as i8) }
    }

    #[inline(always)]
    fn select(self, near: __m512i, far: __m512i, mask: __mmask64) -> __m512i {
        // SAFETY: this token proves the CPU has AVX-512 BW.
        unsafe { _mm512_mask_blend_epi8(mask, near, far) }
    }

    #[inline(always)]
    fn has_bits(self, a: __m512i, b: __m512i) -> __mmask64 {
        // SAFETY: this token proves the CPU has AVX-512 F and BW.
        unsafe { _mm512_cmpeq_epi8_mask(_mm512_and_si512(a, b), b) }
    }

    #[inline(always)]
    fn is_zero(self, v: __m512i) -> __mmask64 {
        // SAFETY: this token proves the CPU has AVX-512 BW.
        unsafe { _mm512_testn_epi8_mask(v, v) }
    }

    #[inline(always)]
    fn sub_saturating(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: this token proves the CPU has AVX-512 BW.
        unsafe { _mm512_subs_epu8(a, b) }
    }

    #[inline(always)]
    fn min(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: this token proves the CPU has AVX-512 BW.
        unsafe { _mm512_min_epu8(a, b) }
    }

    #[inline(always)]
    fn any(self, mask: __mmask64) -> bool {
        mask != 0
    }
}
