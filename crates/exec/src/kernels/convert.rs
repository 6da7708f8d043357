//! Convert-1: change a tensor's element type.

use half::{bf16, f16, slice::HalfFloatSliceExt};
use ovir_shape::ops::convert::check_conversion;
use ovir_tensor::{Element, ElementType, Tensor};

use super::checks::check_output;
use super::run_plan::{copy_all, STREAM_MIN_BYTES};
use super::{parallel, ExecOptions, KernelError};

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
mod portable;
pub(super) mod small_float;
#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
#[allow(unsafe_code)]
mod x86;

/// An integer type narrower than `i32` that reals convert into in a
/// vector loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Narrow {
    I8,
    U8,
    I16,
    U16,
}

/// The pairs with a vector loop: the x86 loops take them all (but the
/// `f16` ones without F16C), the portable loops some of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pair {
    /// `f32` to `i32`.
    F32ToI32,
    /// `f32` to a narrower integer.
    F32ToNarrow(Narrow),
    /// `f32` to `bf16`.
    F32ToBf16,
    /// `i32` to `f32`.
    I32ToF32,
    /// `f32` to `f16`.
    F32ToF16,
    /// `f16` to `f32`.
    F16ToF32,
}

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
    let stream = dst.len() >= STREAM_MIN_BYTES;
    let done = parallel::for_each_chunk(options, dst, dw, |start, part| {
        let input = src.get(start * sw..(start + part.len() / dw) * sw)?;
        convert_chunk(from, to, input, part, stream).ok()
    });
    done.ok_or(internal)
}

/// Converts `src` into `dst`; `stream` asks for streaming stores where a
/// vector loop takes the pair.
fn convert_chunk(
    from: ElementType,
    to: ElementType,
    src: &[u8],
    dst: &mut [u8],
    stream: bool,
) -> Result<(), KernelError> {
    if coded::applies(from, to) {
        // Both sides are whole bytes here (8-bit floats among them).
        let count = to.byte_width().map_or(0, |w| dst.len() / w);
        return coded::convert_elements(from, to, src, dst, count);
    }
    if let Some(taken) = vector_pair(from, to).and_then(|pair| vector_loop(pair, stream, src, dst)) {
        // The vector loop took whole groups; the typed loop below does the
        // rest, by the same rules.
        let done = taken / from.byte_width().unwrap_or(1) * to.byte_width().unwrap_or(1);
        let (Some(src), Some(dst)) = (src.get(taken..), dst.get_mut(done..)) else {
            return Err(KernelError::Internal {
                op: OP,
                what: "the vector conversion went past the buffers",
            });
        };
        return with_type!(from, S => with_type!(to, D => convert_bytes::<S, D>(src, dst)));
    }
    if let Some(done) = convert_f16_slices(from, to, src, dst) {
        return done;
    }
    with_type!(from, S => with_type!(to, D => convert_bytes::<S, D>(src, dst)))
}

/// Converts the whole groups at the start of `src` into `dst` for `pair`
/// with the x86 loop where it takes the pair, else with the portable one;
/// returns the bytes of `src` taken, or `None` when neither takes the pair.
fn vector_loop(pair: Pair, stream: bool, src: &[u8], dst: &mut [u8]) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    if let Some(taken) = x86::Isa::detect().convert(pair, stream, src, dst) {
        return Some(taken);
    }
    // The portable loops have no streaming stores.
    #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
    let _ = stream;
    portable::convert(pair, src, dst)
}

/// The vector loop of a pair, for the pairs that have one.
fn vector_pair(from: ElementType, to: ElementType) -> Option<Pair> {
    Some(match (from, to) {
        (ElementType::F32, ElementType::I32) => Pair::F32ToI32,
        (ElementType::F32, ElementType::I16) => Pair::F32ToNarrow(Narrow::I16),
        (ElementType::F32, ElementType::U16) => Pair::F32ToNarrow(Narrow::U16),
        (ElementType::F32, ElementType::I8) => Pair::F32ToNarrow(Narrow::I8),
        (ElementType::F32, ElementType::U8) => Pair::F32ToNarrow(Narrow::U8),
        (ElementType::F32, ElementType::Bf16) => Pair::F32ToBf16,
        (ElementType::I32, ElementType::F32) => Pair::I32ToF32,
        (ElementType::F32, ElementType::F16) => Pair::F32ToF16,
        (ElementType::F16, ElementType::F32) => Pair::F16ToF32,
        _ => return None,
    })
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
    } else if let Some(v) = v.as_i64() {
        // Integers up to 64 bits convert from `i64`, which the compiler
        // vectorises; `i128` arithmetic is a library call per element.
        D::from_i64(v)
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
    /// `Some(self)` for the integers whose every value is an `i64` (all
    /// but `u64`), which convert through [`Scalar::from_i64`]; `None` for
    /// the others.
    fn as_i64(self) -> Option<i64> {
        None
    }
    /// The value of an `i64`, by the rules of [`Scalar::from_integer`].
    fn from_i64(v: i64) -> Self {
        Self::from_integer(i128::from(v))
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
            fn as_i64(self) -> Option<i64> {
                // Infallible but for `u64` above `i64::MAX`, which goes
                // through `i128`.
                i64::try_from(self).ok()
            }
            fn from_i64(v: i64) -> Self {
                // The same two's complement truncation as `from_integer`.
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
    fn from_i64(v: i64) -> Self {
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
    fn from_i64(v: i64) -> Self {
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
    ($($t:ty => $from_f32:expr),*) => {$(
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
            fn from_f32(v: f32) -> Self {
                // An `f32` is its own exact value: one rounding.
                $from_f32(v)
            }
        }
    )*};
}

half_scalar!(f16 => f16::from_f32, bf16 => bf16_from_f32);

/// `v` as a `bf16`, as `half`'s `bf16::from_f32` gives it (nearest even; a
/// NaN stays NaN with the top of its payload and the quiet bit set), with
/// selects in place of branches, so that a loop of them vectorises.
fn bf16_from_f32(v: f32) -> bf16 {
    // The bits as an `i32`, whose sign-extending shift and truncation to
    // 16 bits the baseline vector instructions have (SSE2 narrows 32-bit
    // lanes with a signed saturating pack only).
    let x = v.to_bits() as i32;
    // Adding just under half a unit, plus the kept part's lowest bit,
    // carries into the kept part exactly when nearest-even rounds up. Only
    // a NaN is large enough for the sum to wrap.
    let rounded = x.wrapping_add(0x7fff + ((x >> 16) & 1));
    let quiet = x | 0x0040_0000;
    let bits = if x & 0x7fff_ffff > 0x7f80_0000 { quiet } else { rounded };
    bf16::from_bits((bits >> 16) as u16)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// `f32`s around every edge the conversions have: zeros, halves,
    /// the integer types' bounds and one past them, the largest and
    /// smallest values, infinities and NaNs (quiet, signalling, negative),
    /// subnormals, then a spread of ordinary values.
    fn edge_f32s() -> Vec<f32> {
        let mut v = vec![0.0f32, -0.0, 0.5, -0.5, 0.9, -0.9, 1.5, -2.5, f32::MIN_POSITIVE, 1e-40, -1e-40];
        for bound in [128.0f32, 256.0, 32768.0, 65536.0, 2_147_483_648.0] {
            for b in [bound, -bound] {
                v.extend([b - 1.0, b - 0.5, b, b + 0.5, b + 1.0]);
            }
        }
        v.extend([2_147_483_520.0, -2_147_483_904.0, f32::MAX, f32::MIN, f32::INFINITY, f32::NEG_INFINITY]);
        v.extend([f32::NAN, -f32::NAN, f32::from_bits(0x7f80_0001), f32::from_bits(0xffa0_0001)]);
        // Values f16 rounds at: ties, its largest finite, its subnormals.
        v.extend([
            65504.0,
            65519.99,
            65520.0,
            6.1e-5,
            5.96e-8,
            2.98e-8,
            1.0 + 2f32.powi(-11),
            1.0 + 3.0 * 2f32.powi(-11),
        ]);
        // bf16 ties, below and above them, and rounding into infinity.
        let bf16_half = 2f32.powi(-8);
        v.extend([
            1.0 + bf16_half,
            1.0 + 3.0 * bf16_half,
            1.0 + bf16_half * 1.0001,
            -(1.0 + 3.0 * bf16_half),
        ]);
        v.extend([f32::from_bits(0x7f7f_8000), f32::from_bits(0x7f7f_7fff), f32::from_bits(0x3f80_7fff)]);
        v.extend((0..300).map(|i| (i as f32 - 150.0) * 1.37e3 + 0.25));
        v.extend((0..100).map(|i| (i as f32 - 50.0) * 1.37e7));
        v
    }

    /// 64 bytes on a 64-byte boundary.
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C, align(64))]
    struct Line([u8; 64]);

    /// Each vector loop, in every instruction set the CPU has and with
    /// ordinary and streaming stores, against the typed loop (`half`'s
    /// software conversions for `f16`), on the edge values, at every
    /// alignment and every length up to a few groups, so that the part the
    /// vector loop leaves is checked too, with the bytes past the output
    /// left alone.
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    #[test]
    fn vector_conversions_match_the_typed_loop() {
        let values = edge_f32s();
        let f32_bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        // Every f16, NaNs and subnormals included, for f16 to f32.
        let f16_bytes: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        // The i32 bounds, the edges of f32's exact integers and ties
        // between them, and a spread.
        let mut ints = vec![0i32, 1, -1, i32::MIN, i32::MAX, i32::MIN + 1, i32::MAX - 1];
        for edge in [1i32 << 24, 1 << 25, 1 << 30] {
            ints.extend([edge - 1, edge, edge + 1, edge + 2, edge + 3, -edge - 1, -edge - 3]);
        }
        ints.extend((0..400).map(|i: i32| i.wrapping_mul(0x2f6b_5a3d)));
        let i32_bytes: Vec<u8> = ints.iter().flat_map(|v| v.to_le_bytes()).collect();
        let sets = x86::Isa::available();
        assert!(sets[0].is_some(), "SSE2 is on every x86_64 CPU");
        for (from, to) in [
            (ElementType::F32, ElementType::I32),
            (ElementType::F32, ElementType::I16),
            (ElementType::F32, ElementType::U16),
            (ElementType::F32, ElementType::I8),
            (ElementType::F32, ElementType::U8),
            (ElementType::F32, ElementType::Bf16),
            (ElementType::I32, ElementType::F32),
            (ElementType::F32, ElementType::F16),
            (ElementType::F16, ElementType::F32),
        ] {
            let pair = vector_pair(from, to).unwrap();
            let src = match from {
                ElementType::F16 => &f16_bytes,
                ElementType::I32 => &i32_bytes,
                _ => &f32_bytes,
            };
            let (sw, dw) = (from.byte_width().unwrap(), to.byte_width().unwrap());
            let lengths = (0..70).chain([src.len() / sw]);
            for (skew, count) in [0, 1, 3, 64].into_iter().flat_map(|k| lengths.clone().map(move |n| (k, n)))
            {
                let input = [vec![0u8; skew], src[..count * sw].to_vec()].concat();
                let mut expected = vec![0u8; count * dw];
                match (from, to) {
                    (ElementType::F32, ElementType::F16) => {
                        for (o, i) in expected.chunks_exact_mut(2).zip(input[skew..].chunks_exact(4)) {
                            let v = f32::from_le_bytes(i.try_into().unwrap());
                            o.copy_from_slice(&f16::from_f32_const(v).to_le_bytes());
                        }
                    }
                    (ElementType::F16, ElementType::F32) => {
                        for (o, i) in expected.chunks_exact_mut(4).zip(input[skew..].chunks_exact(2)) {
                            let v = f16::from_le_bytes(i.try_into().unwrap());
                            o.copy_from_slice(&v.to_f32_const().to_le_bytes());
                        }
                    }
                    _ => with_type!(from, S => with_type!(to, D => convert_bytes::<S, D>(&input[skew..], &mut expected)))
                        .unwrap(),
                }
                for (isa, stream) in sets.iter().flatten().flat_map(|&isa| [(isa, false), (isa, true)]) {
                    // Room around the output, which must stay as it was,
                    // in lines of 64 bytes, so that the output starts `skew`
                    // bytes past a line's start.
                    let mut lines = vec![Line([0xA5; 64]); (count * dw + skew).div_ceil(64) + 1];
                    let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut lines);
                    let out = &mut buf[skew..skew + count * dw];
                    let streamed = x86::STREAMED.with(std::cell::Cell::get);
                    let Some(taken) = isa.convert(pair, stream, &input[skew..], out) else {
                        // Only SSE2 leaves a pair, the f16 ones, to `half`.
                        assert!(matches!(isa, x86::Isa::Sse2(_)) && [from, to].contains(&ElementType::F16));
                        continue;
                    };
                    // Streaming wherever asked for and the output starts on
                    // a register's boundary.
                    let streams = stream && skew % isa.bytes() == 0;
                    assert_eq!(x86::STREAMED.with(std::cell::Cell::get) - streamed, usize::from(streams));
                    assert_eq!(taken % sw, 0);
                    let done = taken / sw * dw;
                    with_type!(from, S => with_type!(to, D => convert_bytes::<S, D>(&input[skew + taken..], &mut out[done..])))
                        .unwrap();
                    let what =
                        format!("{from} to {to}, {count} elements, skew {skew}, {isa:?}, streaming {stream}");
                    assert_eq!(buf[skew..skew + count * dw], expected[..], "{what}");
                    assert!(
                        buf[..skew].iter().chain(&buf[skew + count * dw..]).all(|&b| b == 0xA5),
                        "{what}"
                    );
                }
                // And through the kernel's own path.
                let mut out = vec![0u8; count * dw];
                convert_chunk(from, to, &input[skew..], &mut out, true).unwrap();
                assert_eq!(out, expected, "{from} to {to}, {count} elements, skew {skew}");
            }
        }
    }

    /// The pairs the portable loops take.
    const PORTABLE_PAIRS: [(ElementType, Pair); 6] = [
        (ElementType::I32, Pair::F32ToI32),
        (ElementType::I16, Pair::F32ToNarrow(Narrow::I16)),
        (ElementType::U16, Pair::F32ToNarrow(Narrow::U16)),
        (ElementType::I8, Pair::F32ToNarrow(Narrow::I8)),
        (ElementType::U8, Pair::F32ToNarrow(Narrow::U8)),
        (ElementType::Bf16, Pair::F32ToBf16),
    ];

    /// `src`'s `f32`s converted to `to` by the portable loop, the typed
    /// loop converting what it leaves, as the kernel does.
    fn through_portable_loop(to: ElementType, pair: Pair, src: &[u8]) -> Vec<u8> {
        let dw = to.byte_width().unwrap();
        let mut out = vec![0u8; src.len() / 4 * dw];
        let taken = portable::convert(pair, src, &mut out).unwrap();
        assert_eq!(taken % 4, 0);
        // Every chunk of 16 elements, at least.
        assert!(taken >= src.len() / 64 * 64, "{to}: {taken} of {} bytes", src.len());
        with_type!(to, D => convert_bytes::<f32, D>(&src[taken..], &mut out[taken / 4 * dw..])).unwrap();
        out
    }

    /// `v` converted to `to` one element at a time: Rust's `as` for the
    /// integers (the typed loop's rule), `half`'s conversion for `bf16`.
    fn scalar_bytes(to: ElementType, v: f32) -> Vec<u8> {
        match to {
            ElementType::Bf16 => bf16::from_f32(v).to_le_bytes().to_vec(),
            _ => {
                let mut out = vec![0u8; to.byte_width().unwrap()];
                with_type!(to, D => {
                    convert_one::<f32, D>(v).write_le(&mut out);
                    Ok::<_, KernelError>(())
                })
                .unwrap();
                out
            }
        }
    }

    /// Each portable loop against the scalar conversion, on the edge
    /// values, random bit patterns (every exponent, NaNs among them) and
    /// values of every size, at lengths around the chunk's and at an odd
    /// byte offset (the loops read bytes, with no alignment needed).
    #[test]
    fn portable_loops_match_the_scalar_conversion() {
        let mut values = edge_f32s();
        let mut state = 0x9e37_79b9u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        values.extend((0..20_000).map(|_| f32::from_bits(next())));
        values.extend((0..20_000).map(|_| (next() as i32) as f32 / (1 << (next() % 32)) as f32));
        // Chunks of values below 2^23 only, which `i32` converts with the
        // short arithmetic, ties and halves among them.
        values.extend((0..4096).map(|i| (i as f32 - 2048.0) * 0.25));
        values.extend((0..64).map(|i| 8_388_607.5 - i as f32));
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        for (to, pair) in PORTABLE_PAIRS {
            let dw = to.byte_width().unwrap();
            let expected: Vec<u8> = values.iter().flat_map(|&v| scalar_bytes(to, v)).collect();
            for (skew, count) in
                [0, 1].into_iter().flat_map(|k| (0..70).chain([values.len()]).map(move |n| (k, n)))
            {
                let input = [vec![0u8; skew], bytes[..count * 4].to_vec()].concat();
                let out = through_portable_loop(to, pair, &input[skew..]);
                let want = &expected[..count * dw];
                if out != want {
                    let k = (0..count)
                        .find(|&k| out[k * dw..(k + 1) * dw] != want[k * dw..(k + 1) * dw])
                        .unwrap();
                    panic!(
                        "{to}, {count} elements, skew {skew}: {:e} ({:#010x}) gave {:?}, not {:?}",
                        values[k],
                        values[k].to_bits(),
                        &out[k * dw..(k + 1) * dw],
                        &want[k * dw..(k + 1) * dw]
                    );
                }
            }
        }
    }

    /// The portable loops on values whose results are worked out by hand
    /// from the rules (truncation toward zero, saturation, NaN to 0; `bf16`
    /// to nearest even with NaNs quieted), each repeated so that it lands
    /// both in a whole chunk and in the part the typed loop converts.
    #[test]
    fn portable_loops_give_the_hand_worked_values() {
        fn check<T: Copy + PartialEq + std::fmt::Debug>(
            to: ElementType,
            pair: Pair,
            cases: &[(f32, T)],
            read: fn(&[u8]) -> T,
        ) {
            let dw = to.byte_width().unwrap();
            // Three rounds and five more: at least two whole chunks, and a
            // length that is not a multiple of 16.
            let count = 3 * cases.len() + 5;
            let input: Vec<u8> = (0..count).flat_map(|k| cases[k % cases.len()].0.to_le_bytes()).collect();
            let out = through_portable_loop(to, pair, &input);
            for (k, o) in out.chunks_exact(dw).enumerate() {
                let (v, want) = cases[k % cases.len()];
                assert_eq!(read(o), want, "{v:e} ({:#010x}) to {to} at {k}", v.to_bits());
            }
        }
        let nan = f32::NAN;
        let below_one = f32::from_bits(1.0f32.to_bits() - 1);
        check(
            ElementType::U8,
            Pair::F32ToNarrow(Narrow::U8),
            &[
                (nan, 0u8),
                (-nan, 0),
                (f32::INFINITY, 255),
                (f32::NEG_INFINITY, 0),
                (-0.0, 0),
                (-0.99, 0),
                (-1.0, 0),
                (0.5, 0),
                (below_one, 0),
                (1.0, 1),
                (2.5, 2),
                (3.5, 3),
                (254.99998, 254),
                (255.0, 255),
                (255.5, 255),
                (256.0, 255),
                (1e30, 255),
            ],
            |b| b[0],
        );
        check(
            ElementType::I8,
            Pair::F32ToNarrow(Narrow::I8),
            &[
                (nan, 0i8),
                (-nan, 0),
                (f32::INFINITY, 127),
                (f32::NEG_INFINITY, -128),
                (-0.9, 0),
                (-below_one, 0),
                (-1.5, -1),
                (-2.5, -2),
                (1e-40, 0),
                (-1e-40, 0),
                (126.99999, 126),
                (127.5, 127),
                (128.0, 127),
                (-128.0, -128),
                (-128.99, -128),
                (-129.0, -128),
                (-1e30, -128),
            ],
            |b| b[0] as i8,
        );
        let u16_of = |b: &[u8]| u16::from_le_bytes([b[0], b[1]]);
        check(
            ElementType::U16,
            Pair::F32ToNarrow(Narrow::U16),
            &[
                (nan, 0u16),
                (f32::INFINITY, 65535),
                (-5.0, 0),
                (-0.5, 0),
                (12345.678, 12345),
                (65534.996, 65534),
                (65535.0, 65535),
                (65535.5, 65535),
                (65536.0, 65535),
                (4e9, 65535),
            ],
            u16_of,
        );
        check(
            ElementType::I16,
            Pair::F32ToNarrow(Narrow::I16),
            &[
                (nan, 0i16),
                (f32::NEG_INFINITY, -32768),
                (-12345.678, -12345),
                (-0.5, 0),
                (0.75, 0),
                (32767.99, 32767),
                (32768.0, 32767),
                (-32768.5, -32768),
                (-32769.0, -32768),
                (1e9, 32767),
            ],
            |b| i16::from_le_bytes([b[0], b[1]]),
        );
        let i32_of = |b: &[u8]| i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let i32_cases = [
            (nan, 0i32),
            (-nan, 0),
            (f32::INFINITY, i32::MAX),
            (f32::NEG_INFINITY, i32::MIN),
            (-0.5, 0),
            (-3.99, -3),
            (8_388_607.5, 8_388_607),
            (-8_388_607.5, -8_388_607),
            (8_388_608.0, 8_388_608),
            // 123456789 is not an `f32`; the nearest is 123456792.
            (123_456_789.0, 123_456_792),
            (-123_456_789.0, -123_456_792),
            (2_147_483_520.0, 2_147_483_520),
            (2_147_483_648.0, i32::MAX),
            (-2_147_483_648.0, i32::MIN),
            (-2_147_483_904.0, i32::MIN),
            (1e10, i32::MAX),
            (-1e10, i32::MIN),
        ];
        check(ElementType::I32, Pair::F32ToI32, &i32_cases, i32_of);
        // Whole chunks of values below 2^23 take the short arithmetic.
        check(
            ElementType::I32,
            Pair::F32ToI32,
            &[
                (0.0, 0i32),
                (-0.0, 0),
                (0.5, 0),
                (-below_one, 0),
                (2.5, 2),
                (-2.5, -2),
                (1e-40, 0),
                (8_388_607.5, 8_388_607),
                (-8_388_607.0, -8_388_607),
            ],
            i32_of,
        );
        check(
            ElementType::Bf16,
            Pair::F32ToBf16,
            &[
                (1.0, 0x3f80u16),
                (-2.0, 0xc000),
                (-0.0, 0x8000),
                // Ties: 1 + 2^-8 goes down to the even 1.0, 1 + 3 * 2^-8
                // up to the even 1 + 2^-6; just above a tie goes up.
                (1.0 + 2f32.powi(-8), 0x3f80),
                (1.0 + 3.0 * 2f32.powi(-8), 0x3f82),
                (1.0 + 2f32.powi(-8) + 2f32.powi(-20), 0x3f81),
                (f32::INFINITY, 0x7f80),
                (f32::NEG_INFINITY, 0xff80),
                // The largest `f32` rounds up into infinity.
                (f32::MAX, 0x7f80),
                (f32::from_bits(0x7f7f_7fff), 0x7f7f),
                // A subnormal keeps its top bits.
                (f32::from_bits(0x0001_16c2), 0x0001),
                // NaNs keep the top of their payload and become quiet.
                (f32::from_bits(0x7fc0_0000), 0x7fc0),
                (f32::from_bits(0x7f80_0001), 0x7fc0),
                (f32::from_bits(0xffa0_0001), 0xffe0),
            ],
            u16_of,
        );
    }

    #[test]
    fn bf16_rounding_matches_half() {
        // Every sign, exponent and kept mantissa, with the dropped half
        // below, at, and above a tie, and NaNs of every payload.
        for high in 0..=u32::from(u16::MAX) {
            for low in [0u32, 1, 0x7fff, 0x8000, 0x8001, 0xffff] {
                let v = f32::from_bits(high << 16 | low);
                assert_eq!(bf16_from_f32(v).to_bits(), bf16::from_f32(v).to_bits(), "{:#010x}", v.to_bits());
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
