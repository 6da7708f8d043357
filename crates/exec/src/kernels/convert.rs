//! Convert-1: change a tensor's element type.

use half::{bf16, f16, slice::HalfFloatSliceExt};
use ovir_shape::ops::convert::check_conversion;
use ovir_tensor::{Element, ElementType, Tensor};

use super::{check_output, copy_all, parallel, ExecOptions, KernelError};

const OP: &str = "Convert";

/// Converts every element of `data` to the element type `to`.
///
/// Every pair that OpenVINO's reference Convert defines is supported (see
/// [`check_conversion`]): `boolean`, the integers, `f16`, `bf16`, `f32`
/// and `f64` among themselves and with the packed integers (`u1`, `u2`,
/// `u3`, `u4`, `u6`, `i4`), `f8e4m3` and `f8e5m2`; and `f8e8m0`,
/// `f4e2m1` and `nf4` to and from the float types OpenVINO allows. A pair
/// it leaves undefined gives [`KernelError::Shape`] naming both types;
/// `string` and `dynamic` give [`KernelError::UnsupportedType`].
/// Converting to the same type returns `data` itself (a clone sharing its
/// storage).
///
/// The value rules:
/// - to `boolean`: `value != 0`, so NaN gives `true` and `-0.0` gives
///   `false`; from `boolean`: 0 or 1.
/// - integer to integer: the two's complement bits are truncated or
///   extended, as a C cast or Rust's `as` does (300 as `u8` is 44, -1 as
///   `u32` is 4294967295). OpenVINO's reference Convert is a plain
///   `static_cast`, which wraps the same way. The packed integers take the
///   low bits too (21 as `u4` is 5, 8 as `i4` is -8), and read as their
///   value (`i4` sign-extended).
/// - real to integer, the packed integers and the 8-bit floats as sources
///   included: truncation toward zero, saturating at the target's bounds,
///   with NaN giving 0 (Rust's `as`; 300.0 as `u4` is 15). In C++, and so
///   in OpenVINO, an out-of-range value is undefined behaviour whose
///   result depends on the machine; ovir picks the one result that is
///   defined everywhere.
/// - to `f16`, `bf16`, `f32`: rounding to nearest, ties to even, done once
///   from the exact source value. This holds for `i64`/`u64` sources and for
///   `f64` to `f16`/`bf16`, where converting through `f32` would round twice.
///   Values beyond the target's range become infinities.
/// - to `f64` from any real type: exact. From `i64`/`u64`: rounded to
///   nearest, ties to even.
/// - from `f8e4m3`, `f8e5m2`, `f8e8m0`, `f4e2m1`, `nf4`: the exact value
///   (`nf4` through its 16-entry table), then the rules above.
/// - to `f8e4m3` and `f8e5m2`: as OpenVINO 2026.4 does, the value is
///   rounded to `f32`, then to `f16`, then to the 8-bit format, each time
///   to nearest even. An `f8e4m3` overflow (above 464) gives NaN, an
///   `f8e5m2` one infinity.
/// - to `f8e8m0`: the nearest power of two, ties to the even exponent;
///   zero and negative values give 2^-127, +inf gives 2^127.
/// - to `f4e2m1`: nearest even, saturating at ±6 (NaN too).
/// - to `nf4` (from `f16` only): the nearest table value, a tie going to
///   the lower one; NaN gives code 0.
///
/// `docs/element-types.md` details the formats and where these rules
/// differ from OpenVINO's.
///
/// ```
/// use ovir_exec::kernels::convert;
/// use ovir_tensor::{ElementType, Tensor};
///
/// let t = Tensor::from_vec(&[4], vec![-2.7f32, 300.0, f32::NAN, 1e10])?;
/// let ints = convert(&t, ElementType::I16)?;
/// assert_eq!(ints.to_vec::<i16>()?, vec![-2, 300, 0, i16::MAX]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert(data: &Tensor, to: ElementType) -> Result<Tensor, KernelError> {
    check_types(data.element_type(), to)?;
    if data.element_type() == to {
        return Ok(data.clone());
    }
    let mut out = Tensor::zeros(to, data.shape())?;
    run(data, &mut out, &ExecOptions::single_thread())?;
    Ok(out)
}

/// [`convert`] writing into `out`, which must already have element type `to`
/// and `data`'s shape (its buffer is reused when `out` holds it alone); a
/// large output is split across threads as `options` allow, with the same
/// result.
pub fn convert_into(
    data: &Tensor,
    to: ElementType,
    out: &mut Tensor,
    options: &ExecOptions,
) -> Result<(), KernelError> {
    check_types(data.element_type(), to)?;
    check_output(OP, to, data.shape(), out)?;
    if data.element_type() == to {
        return copy_all(OP, data, out, options);
    }
    run(data, out, options)
}

fn check_types(from: ElementType, to: ElementType) -> Result<(), KernelError> {
    for ty in [from, to] {
        if matches!(ty, ElementType::String | ElementType::Dynamic) {
            return Err(KernelError::UnsupportedType { op: OP, ty });
        }
    }
    check_conversion(from, to).map_err(KernelError::Shape)
}

/// Calls `$body` with `$t` bound to the Rust type of element type `$ty`.
macro_rules! with_type {
    ($ty:expr, $t:ident => $body:expr) => {{
        use ElementType as E;
        match $ty {
            E::Boolean => {
                type $t = bool;
                $body
            }
            E::I8 => {
                type $t = i8;
                $body
            }
            E::I16 => {
                type $t = i16;
                $body
            }
            E::I32 => {
                type $t = i32;
                $body
            }
            E::I64 => {
                type $t = i64;
                $body
            }
            E::U8 => {
                type $t = u8;
                $body
            }
            E::U16 => {
                type $t = u16;
                $body
            }
            E::U32 => {
                type $t = u32;
                $body
            }
            E::U64 => {
                type $t = u64;
                $body
            }
            E::F16 => {
                type $t = f16;
                $body
            }
            E::Bf16 => {
                type $t = bf16;
                $body
            }
            E::F32 => {
                type $t = f32;
                $body
            }
            E::F64 => {
                type $t = f64;
                $body
            }
            other => Err(KernelError::UnsupportedType { op: OP, ty: other }),
        }
    }};
}

mod coded;
mod small_float;

fn run(data: &Tensor, out: &mut Tensor, options: &ExecOptions) -> Result<(), KernelError> {
    let internal = KernelError::Internal {
        op: OP,
        what: "the output holds no fixed-width bytes, or a chunk left the input",
    };
    let from = data.element_type();
    let src = data.bytes().ok_or(KernelError::UnsupportedType { op: OP, ty: from })?;
    let to = out.element_type();
    let count = data.len();
    let dst = out.bytes_mut().ok_or_else(|| internal.clone())?;
    let (Some(sw), Some(dw)) = (from.byte_width(), to.byte_width()) else {
        // Packed data is mostly small constants, converted once when the
        // model compiles: one thread does.
        return coded::convert_elements(from, to, src, dst, count);
    };
    // Element k of the output depends on element k of the input only, so
    // each thread converts the input stretch matching its output chunk.
    // Chunks start at multiples of 64 elements, which keeps the typed
    // views below aligned whenever the whole buffers are.
    let done = parallel::for_each_chunk(options, dst, dw, |start, part| {
        let input = src.get(start * sw..(start + part.len() / dw) * sw)?;
        convert_chunk(from, to, input, part).ok()
    });
    done.ok_or(internal)
}

fn convert_chunk(from: ElementType, to: ElementType, src: &[u8], dst: &mut [u8]) -> Result<(), KernelError> {
    if coded::applies(from, to) {
        // Both sides are whole bytes here (8-bit floats among them).
        let count = to.byte_width().map_or(0, |w| dst.len() / w);
        return coded::convert_elements(from, to, src, dst, count);
    }
    if let Some(done) = convert_f16_slices(from, to, src, dst) {
        return done;
    }
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    if (from, to) == (ElementType::F32, ElementType::I32) {
        // The compiler keeps the saturating cast scalar (a conversion, two
        // compares and two selects per element), which made this pair 4-5
        // times slower than a copy; the vector form below is as exact.
        let done = x86::f32_to_i32(src, dst);
        let (Some(src), Some(dst)) = (src.get(done..), dst.get_mut(done..)) else {
            return Err(KernelError::Internal {
                op: OP,
                what: "the vector conversion went past the buffers",
            });
        };
        return convert_bytes::<f32, i32>(src, dst);
    }
    with_type!(from, S => with_type!(to, D => convert_bytes::<S, D>(src, dst)))
}

/// The `f32`/`f16` pairs, the ones decompression of saved models uses, go
/// through `half`'s slice routines, which use the CPU's conversion
/// instructions (correctly rounded) when it has them. `None` when the pair
/// is another one or the bytes cannot be viewed in place.
fn convert_f16_slices(
    from: ElementType,
    to: ElementType,
    src: &[u8],
    dst: &mut [u8],
) -> Option<Result<(), KernelError>> {
    if cfg!(target_endian = "big") {
        return None;
    }
    let same_len = |a: usize, b: usize| {
        if a == b {
            Ok(())
        } else {
            Err(KernelError::Internal { op: OP, what: "the input and output hold other numbers of elements" })
        }
    };
    match (from, to) {
        (ElementType::F32, ElementType::F16) => {
            let s: &[f32] = bytemuck::try_cast_slice(src).ok()?;
            let d: &mut [f16] = bytemuck::try_cast_slice_mut(dst).ok()?;
            Some(same_len(s.len(), d.len()).map(|()| d.convert_from_f32_slice(s)))
        }
        (ElementType::F16, ElementType::F32) => {
            let s: &[f16] = bytemuck::try_cast_slice(src).ok()?;
            let d: &mut [f32] = bytemuck::try_cast_slice_mut(dst).ok()?;
            Some(same_len(s.len(), d.len()).map(|()| s.convert_to_f32_slice(d)))
        }
        (ElementType::Bf16, ElementType::F32) => {
            // A bf16 is the high half of an f32: widening is a shift, which
            // keeps NaN payloads (quiet or not), as OpenVINO's does.
            let s: &[u16] = bytemuck::try_cast_slice(src).ok()?;
            let d: &mut [u32] = bytemuck::try_cast_slice_mut(dst).ok()?;
            Some(
                same_len(s.len(), d.len())
                    .map(|()| d.iter_mut().zip(s).for_each(|(o, &b)| *o = u32::from(b) << 16)),
            )
        }
        _ => None,
    }
}

fn convert_one<S: Scalar, D: Scalar>(v: S) -> D {
    if let Some(v) = v.as_f32() {
        // An `f32` converts directly: the same value as through `f64`
        // (which holds it exactly), and a cast that the compiler
        // vectorises, where the detour through `f64` halves the lanes.
        D::from_f32(v)
    } else if S::IS_REAL {
        D::from_real(v.to_real())
    } else {
        D::from_integer(v.to_integer())
    }
}

/// Converts little-endian elements of `S` into elements of `D`.
fn convert_bytes<S: Scalar, D: Scalar>(src: &[u8], dst: &mut [u8]) -> Result<(), KernelError> {
    let (sw, dw) = (S::WIDTH, D::WIDTH);
    if src.len() / sw != dst.len() / dw {
        return Err(KernelError::Internal {
            op: OP,
            what: "the input and output hold other numbers of elements",
        });
    }
    // Typed slices let the compiler vectorise the loop; they need aligned
    // bytes in native (little-endian) order.
    if cfg!(target_endian = "little") {
        if let (Some(s), Some(d)) = (S::view(src), D::view_mut(dst)) {
            // Fixed blocks of 8 give the compiler a body with no bounds or
            // length checks, which it turns into whole-register
            // conversions.
            let mut d_blocks = d.chunks_exact_mut(8);
            let mut s_blocks = s.chunks_exact(8);
            for (o, i) in (&mut d_blocks).zip(&mut s_blocks) {
                for (o, &i) in o.iter_mut().zip(i) {
                    *o = convert_one(i);
                }
            }
            for (o, &i) in d_blocks.into_remainder().iter_mut().zip(s_blocks.remainder()) {
                *o = convert_one(i);
            }
            return Ok(());
        }
    }
    // A tensor borrowed from a weights file may not be aligned for `S`, so
    // the general path reads byte chunks.
    for (i, o) in src.chunks_exact(sw).zip(dst.chunks_exact_mut(dw)) {
        convert_one::<S, D>(S::read_le(i)).write_le(o);
    }
    Ok(())
}

/// An element type Convert handles, seen through one of two exact
/// intermediate forms: every integer (and `bool`) fits `i128`, every real
/// value fits `f64`.
trait Scalar: Element {
    const WIDTH: usize = std::mem::size_of::<Self>();
    const IS_REAL: bool;
    fn to_integer(self) -> i128;
    fn to_real(self) -> f64;
    fn from_integer(v: i128) -> Self;
    fn from_real(v: f64) -> Self;
    /// `Some(self)` for `f32`, which every type converts from directly
    /// (see [`Scalar::from_f32`]); `None` for the others.
    fn as_f32(self) -> Option<f32> {
        None
    }
    /// The value of an `f32`, by the rules of [`Scalar::from_real`].
    fn from_f32(v: f32) -> Self {
        Self::from_real(f64::from(v))
    }
    /// The bytes as a slice of `Self`, when they are aligned for it and
    /// every bit pattern is a valid `Self` (not so for `bool`).
    fn view(bytes: &[u8]) -> Option<&[Self]>;
    /// Mutable form of [`Scalar::view`].
    fn view_mut(bytes: &mut [u8]) -> Option<&mut [Self]>;
}

macro_rules! pod_view {
    () => {
        fn view(bytes: &[u8]) -> Option<&[Self]> {
            bytemuck::try_cast_slice(bytes).ok()
        }
        fn view_mut(bytes: &mut [u8]) -> Option<&mut [Self]> {
            bytemuck::try_cast_slice_mut(bytes).ok()
        }
    };
}

impl Scalar for bool {
    const IS_REAL: bool = false;
    fn to_integer(self) -> i128 {
        i128::from(self)
    }
    fn to_real(self) -> f64 {
        f64::from(u8::from(self))
    }
    fn from_integer(v: i128) -> Self {
        v != 0
    }
    fn from_real(v: f64) -> Self {
        v != 0.0
    }
    fn view(_: &[u8]) -> Option<&[Self]> {
        None
    }
    fn view_mut(_: &mut [u8]) -> Option<&mut [Self]> {
        None
    }
}

macro_rules! integer_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const IS_REAL: bool = false;
            pod_view!();
            fn to_integer(self) -> i128 {
                i128::from(self)
            }
            fn to_real(self) -> f64 {
                self as f64
            }
            fn from_integer(v: i128) -> Self {
                // Truncates the two's complement bits: wrap-around.
                v as $t
            }
            fn from_real(v: f64) -> Self {
                // Truncates toward zero, saturates, NaN gives 0.
                v as $t
            }
            fn from_f32(v: f32) -> Self {
                // As `from_real`: every `f32` is exactly an `f64`, and
                // both casts truncate the exact value.
                v as $t
            }
        }
    )*};
}

integer_scalar!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Scalar for f32 {
    const IS_REAL: bool = true;
    pod_view!();
    fn as_f32(self) -> Option<f32> {
        Some(self)
    }
    fn from_f32(v: f32) -> Self {
        v
    }
    fn to_integer(self) -> i128 {
        self as i128
    }
    fn to_real(self) -> f64 {
        f64::from(self)
    }
    fn from_integer(v: i128) -> Self {
        // Rust rounds integer-to-float casts once, to nearest even.
        v as f32
    }
    fn from_real(v: f64) -> Self {
        v as f32
    }
}

impl Scalar for f64 {
    const IS_REAL: bool = true;
    pod_view!();
    fn from_f32(v: f32) -> Self {
        f64::from(v)
    }
    fn to_integer(self) -> i128 {
        self as i128
    }
    fn to_real(self) -> f64 {
        self
    }
    fn from_integer(v: i128) -> Self {
        v as f64
    }
    fn from_real(v: f64) -> Self {
        v
    }
}

// `half`'s own `from_f64` is not usable here: it drops the low 32 bits of
// the mantissa before rounding, and on x86 it goes through `f32` with a
// second rounding. Both misround values just above a tie. Instead the value
// is first rounded to `f32` with round-to-odd, which keeps enough
// information (24 bits ≥ 11 + 2) for the final nearest-even step from
// `f32`, which `half` does correctly, to give the correctly rounded result.
macro_rules! half_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const IS_REAL: bool = true;
            pod_view!();
            fn to_integer(self) -> i128 {
                self.to_f64() as i128
            }
            fn to_real(self) -> f64 {
                self.to_f64()
            }
            fn from_integer(v: i128) -> Self {
                <$t>::from_f32(integer_to_f32_odd(v))
            }
            fn from_real(v: f64) -> Self {
                <$t>::from_f32(f64_to_f32_odd(v))
            }
        }
    )*};
}

half_scalar!(f16, bf16);

/// `v` rounded to `f32` toward zero, with the lowest mantissa bit set when
/// the result is inexact ("round to odd"). Finite values beyond `f32`'s
/// range give `±f32::MAX`, which is also what round-to-odd yields.
fn f64_to_f32_odd(v: f64) -> f32 {
    let nearest = v as f32;
    if !nearest.is_finite() {
        return if v.is_finite() { f32::MAX.copysign(nearest) } else { nearest };
    }
    if f64::from(nearest) == v {
        return nearest;
    }
    let mut bits = nearest.to_bits();
    // Step back toward zero when rounding went away from zero. Both values
    // have the same sign, so the magnitude is the low 31 bits and one step
    // is one unit of the bit pattern.
    if f64::from(nearest).abs() > v.abs() {
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

/// `v` rounded to `f32` with round-to-odd (see [`f64_to_f32_odd`]).
fn integer_to_f32_odd(v: i128) -> f32 {
    let magnitude = v.unsigned_abs();
    let bits = 128 - magnitude.leading_zeros();
    let odd = if bits <= 24 {
        magnitude as f32
    } else {
        let shift = bits - 24;
        let mut kept = magnitude >> shift;
        if magnitude & ((1u128 << shift) - 1) != 0 {
            kept |= 1;
        }
        // `kept` has 24 bits, so both factors and the product are exact.
        let scale = f32::from_bits((127 + shift) << 23);
        kept as f32 * scale
    };
    if v < 0 {
        -odd
    } else {
        odd
    }
}

#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
#[allow(unsafe_code)]
mod x86 {
    use std::arch::x86_64::{
        __m128, _mm_and_si128, _mm_castps_si128, _mm_cmpge_ps, _mm_cmpord_ps, _mm_cvttps_epi32, _mm_set1_ps,
        _mm_xor_si128,
    };

    // Every x86_64 target enables SSE2 for all code; the `unsafe` below
    // rests on it.
    const _: () = assert!(cfg!(target_feature = "sse2"));

    /// Converts the whole groups of four little-endian `f32`s at the start
    /// of `src` into `i32`s in `dst`, by the rules of Rust's `as`
    /// (truncation toward zero, saturation, NaN to 0); returns how many
    /// bytes of each it handled, for the caller to finish the rest. Any
    /// alignment works.
    pub(super) fn f32_to_i32(src: &[u8], dst: &mut [u8]) -> usize {
        // SAFETY: the loop needs SSE2, which every x86_64 CPU has (the
        // target enables it, as checked above).
        unsafe { f32_to_i32_sse2(src, dst) }
    }

    /// [`f32_to_i32`], compiled with SSE2 named, which makes the
    /// intrinsics safe to call. The registers are read from and written
    /// to byte arrays by value, so no pointer is involved.
    #[target_feature(enable = "sse2")]
    fn f32_to_i32_sse2(src: &[u8], dst: &mut [u8]) -> usize {
        let mut done = 0;
        for (o, i) in dst.as_chunks_mut::<16>().0.iter_mut().zip(src.as_chunks::<16>().0) {
            let v: __m128 = bytemuck::cast(*i);
            // In range the conversion is exact; out of range and for NaN it
            // gives `i32::MIN`, right for large negative values.
            let r = _mm_cvttps_epi32(v);
            // Values of 2^31 and up turn `i32::MIN` into `i32::MAX`...
            let over = _mm_castps_si128(_mm_cmpge_ps(v, _mm_set1_ps(2_147_483_648.0)));
            // ...and NaN becomes 0.
            let ordered = _mm_castps_si128(_mm_cmpord_ps(v, v));
            *o = bytemuck::cast(_mm_and_si128(_mm_xor_si128(r, over), ordered));
            done += 16;
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    #[test]
    fn vector_f32_to_i32_matches_the_cast() {
        let edges = [
            0.0f32,
            -0.0,
            0.9,
            -0.9,
            1.5,
            -2.5,
            2_147_483_520.0,
            2_147_483_648.0,
            -2_147_483_648.0,
            -2_147_483_904.0,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7f80_0001),
            f32::MIN_POSITIVE,
            1e-40,
        ];
        let values: Vec<f32> =
            edges.iter().copied().chain((0..100).map(|i| (i as f32 - 50.0) * 1.37e7)).collect();
        let src: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        // Off by one byte too, so unaligned buffers are covered.
        for skew in [0, 1] {
            let input = [vec![0u8; skew], src.clone()].concat();
            let mut out = vec![0u8; src.len() + skew];
            let done = x86::f32_to_i32(&input[skew..], &mut out[skew..]);
            assert_eq!(done, src.len() / 16 * 16);
            for (k, v) in values.iter().enumerate().take(done / 4) {
                let got = i32::from_le_bytes(out[skew + 4 * k..skew + 4 * k + 4].try_into().unwrap());
                assert_eq!(got, *v as i32, "{v}");
            }
        }
    }

    #[test]
    fn round_to_odd_marks_inexact_results() {
        let tie = 1.0 + 2f64.powi(-24);
        assert_eq!(f64_to_f32_odd(tie).to_bits(), 1.0f32.to_bits() | 1);
        assert_eq!(f64_to_f32_odd(-tie).to_bits(), (-1.0f32).to_bits() | 1);
        assert_eq!(f64_to_f32_odd(1.5), 1.5);
        assert_eq!(f64_to_f32_odd(1e300), f32::MAX);
        assert_eq!(f64_to_f32_odd(f64::NEG_INFINITY), f32::NEG_INFINITY);
        assert!(f64_to_f32_odd(f64::NAN).is_nan());
        assert_eq!(integer_to_f32_odd((1 << 30) + 1).to_bits(), (2f32.powi(30)).to_bits() | 1);
        assert_eq!(integer_to_f32_odd(-(1 << 30)), -(2f32.powi(30)));
        let below_2_64 = f32::from_bits(2f32.powi(64).to_bits() - 1);
        assert_eq!(integer_to_f32_odd(i128::from(u64::MAX)), below_2_64);
    }
}
