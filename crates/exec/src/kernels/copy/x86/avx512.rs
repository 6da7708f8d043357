//! AVX-512 (F and BW): 64-byte registers whose byte-wise selects take a
//! mask register (`k`) of one bit a byte, for ReverseSubsequences' strips.
//!
//! A 64-byte strip is a cache line of columns, and each select in it is
//! one instruction under a mask worked out once per strip. In AVX2 a strip
//! is half a line, and each select (`vpblendvb`) takes its mask as a
//! vector: on recent Intel cores three micro-operations where
//! `vpblendmb` takes one.

use std::arch::x86_64::{
    __m512i, __mmask64, _mm512_and_si512, _mm512_cmpeq_epi8_mask, _mm512_mask_blend_epi8, _mm512_min_epu8,
    _mm512_set1_epi8, _mm512_subs_epu8, _mm512_testn_epi8_mask,
};

use super::strips::Selects;
use super::Avx512;

// SAFETY: an `Avx512` is only made by `detect`, after the CPU reported
// AVX-512 F and BW, which its `Simd::run` enables.
unsafe impl Selects for Avx512 {
    type Mask = __mmask64;

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
