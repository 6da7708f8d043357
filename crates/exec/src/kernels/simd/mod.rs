//! The kernels' one SIMD layer: the feature tokens every vector routine
//! takes, how a routine is compiled with a token's instructions enabled,
//! and the register loads and stores they all make.
//!
//! On x86_64 (without the crate's `no-simd` feature) a token is a
//! zero-sized value that only its `detect` makes, after the running CPU
//! reported the features it stands for: [`Sse2`] (every x86_64 CPU),
//! [`Ssse3`], [`Avx2`] (with F16C, and carrying the AVX-512 tokens the
//! CPU also has), [`Avx512`] (F and BW) and [`Vbmi`] (AVX-512 VBMI and
//! VL). Holding one proves the instructions are there; the `unsafe` left
//! in the routines that take it is about memory only.
//!
//! A routine is written once, generic over a trait implemented on the
//! tokens: [`Simd`] gives every token its register, its width, its loads
//! and stores ([`Plain`] or [`Streaming`], the latter lent by
//! [`streaming`], which fences after the call), and [`Simd::run`], which
//! compiles a closure in a function with the token's features enabled.
//! Each user adds the operations it needs as a trait of its own on the
//! same tokens: `copy` its byte shuffles and selects (`Width`,
//! `Selects`), `convert` its 32-bit lane arithmetic (`Lanes`, `Halves`).
//! A kernel picks its token once per call, with `detect`, and passes it
//! down.
//!
//! Everything a routine calls inside [`Simd::run`] must be
//! `#[inline(always)]` (closures too): a function compiled on its own
//! lacks the token's features, and the intrinsics in it become calls.

#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
#[allow(unsafe_code)]
mod x86;

#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
pub(super) use x86::{streaming, Avx2, Avx512, Plain, Simd, Sse2, Ssse3, Stores, Streaming, Vbmi};
