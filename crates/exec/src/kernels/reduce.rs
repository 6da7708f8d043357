//! The arithmetic of the scatters that combine an update with the element
//! it lands on (ScatterNDUpdate-15's `reduction`; ScatterElementsUpdate-12
//! will use it too): one element of the output and one of the updates
//! give the new output element, as OpenVINO's reference computes it.
//! Col2Im adds in the element type itself (`add_in_type`), as its
//! reference does, so that its narrow floats round after every addition.
//!
//! - Integers wrap, as C++ arithmetic on the type does.
//! - `f32` and `f64` compute in their type.
//! - `f16`, `bf16` and the 8-bit floats compute in `f32`, and the output
//!   is rounded back to its type once, after every update: OpenVINO's
//!   reference widens `f16` and `bf16` so (four updates of 1 into 2048 in
//!   `f16` give 2052, where rounding after each would keep 2048). It has
//!   no 8-bit floats, which follow the other narrow floats here.
//! - `min` is `a < b ? a : b` and `max` is `a > b ? a : b` with `a` the
//!   element already there, as the reference's Minimum and Maximum: a NaN
//!   in the update wins, one already there is replaced.
//! - Booleans: `sum` is OR, `sub` XOR, `prod` AND, `min` AND and `max` OR
//!   (the spec names the first three; OpenVINO's reference does all five
//!   so).

use half::{bf16, f16};
use ovir_tensor::ElementType;

use super::convert::small_float::{
    e4m3_from_f16, e5m2_from_f16, e8m0_from_f32, f16_bits, F8E4M3, F8E5M2, F8E8M0,
};
use super::KernelError;

/// How an update combines with the element it lands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// `a + b`.
    Sum,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Prod,
    /// The smaller of the two.
    Min,
    /// The larger of the two.
    Max,
}

/// Whether [`combine`] (or, for the narrow floats, [`combine_wide`])
/// takes elements of `ty`: every whole-byte number type and boolean.
pub(crate) fn reduces(ty: ElementType) -> bool {
    ovir_shape::ops::scatter_nd_update::reduces(ty)
}

/// Combines every element of `dst` (elements of `ty`, as bytes) with the
/// element of `src` at the same place: `dst[i] = reduction(dst[i],
/// src[i])`. The two must have the same length. The narrow floats, which
/// combine in `f32` ([`widens`]), go through [`combine_wide`] instead.
pub(crate) fn combine(
    op: &'static str,
    ty: ElementType,
    reduction: Reduction,
    dst: &mut [u8],
    src: &[u8],
) -> Result<(), KernelError> {
    use ElementType as E;
    if dst.len() != src.len() {
        return Err(KernelError::Internal { op, what: "a reduction was given slices of two lengths" });
    }
    match ty {
        E::Boolean => each::<u8>(dst, src, |a, b| u8::from(boolean(reduction, a != 0, b != 0))),
        E::I8 => each::<i8>(dst, src, |a, b| integer(reduction, a, b)),
        E::U8 => each::<u8>(dst, src, |a, b| integer(reduction, a, b)),
        E::I16 => each::<i16>(dst, src, |a, b| integer(reduction, a, b)),
        E::U16 => each::<u16>(dst, src, |a, b| integer(reduction, a, b)),
        E::I32 => each::<i32>(dst, src, |a, b| integer(reduction, a, b)),
        E::U32 => each::<u32>(dst, src, |a, b| integer(reduction, a, b)),
        E::I64 => each::<i64>(dst, src, |a, b| integer(reduction, a, b)),
        E::U64 => each::<u64>(dst, src, |a, b| integer(reduction, a, b)),
        E::F32 => each::<f32>(dst, src, |a, b| real(reduction, a, b)),
        E::F64 => each::<f64>(dst, src, |a, b| real(reduction, a, b)),
        _ => return Err(KernelError::UnsupportedType { op, ty }),
    }
    Ok(())
}

/// What [`add_in_type`] hands the addition of an element type to: a
/// kernel generic over the elements' storage type and how two add up.
pub(crate) trait Adder {
    /// What the kernel returns.
    type Out;

    /// Runs the kernel on elements stored as `T`, `add` giving the sum of
    /// two.
    fn add<T: bytemuck::Pod + Send + Sync, A: Fn(T, T) -> T + Copy + Send + Sync>(self, add: A) -> Self::Out;
}

/// Runs `adder` with the elements of `ty` and their sum as `out += x` on
/// the type computes it in OpenVINO's reference (Col2Im's): integers
/// wrap, booleans OR, `f32` and `f64` add in their type, and `f16`, `bf16`
/// and the 8-bit floats add in `f32` and round back after each addition
/// (where [`combine_wide`] rounds once after all). Other types are
/// refused.
pub(crate) fn add_in_type<V: Adder>(
    op: &'static str,
    ty: ElementType,
    adder: V,
) -> Result<V::Out, KernelError> {
    use ElementType as E;
    let e4m3 = |b: u8| f32::from_bits(F8E4M3[usize::from(b)]);
    let e5m2 = |b: u8| f32::from_bits(F8E5M2[usize::from(b)]);
    let e8m0 = |b: u8| f32::from_bits(F8E8M0[usize::from(b)]);
    Ok(match ty {
        E::Boolean => adder.add(|a: u8, b: u8| u8::from(a != 0 || b != 0)),
        E::I8 => adder.add(i8::wrapping_add),
        E::U8 => adder.add(u8::wrapping_add),
        E::I16 => adder.add(i16::wrapping_add),
        E::U16 => adder.add(u16::wrapping_add),
        E::I32 => adder.add(i32::wrapping_add),
        E::U32 => adder.add(u32::wrapping_add),
        E::I64 => adder.add(i64::wrapping_add),
        E::U64 => adder.add(u64::wrapping_add),
        E::F32 => adder.add(|a: f32, b: f32| a + b),
        E::F64 => adder.add(|a: f64, b: f64| a + b),
        E::F16 => {
            adder.add(|a: u16, b: u16| f16_bits(f16::from_bits(a).to_f32() + f16::from_bits(b).to_f32()))
        }
        E::Bf16 => adder.add(|a: u16, b: u16| {
            bf16::from_f32(bf16::from_bits(a).to_f32() + bf16::from_bits(b).to_f32()).to_bits()
        }),
        E::F8e4m3 => adder.add(move |a: u8, b: u8| e4m3_from_f16(f16_bits(e4m3(a) + e4m3(b)))),
        E::F8e5m2 => adder.add(move |a: u8, b: u8| e5m2_from_f16(f16_bits(e5m2(a) + e5m2(b)))),
        E::F8e8m0 => adder.add(move |a: u8, b: u8| e8m0_from_f32(e8m0(a) + e8m0(b))),
        _ => return Err(KernelError::UnsupportedType { op, ty }),
    })
}

/// Whether elements of `ty` combine in `f32`, the output widened before
/// the updates ([`widen`]) and rounded back after them ([`narrow`]):
/// `f16`, `bf16` and the 8-bit floats.
pub(crate) fn widens(ty: ElementType) -> bool {
    matches!(
        ty,
        ElementType::F16
            | ElementType::Bf16
            | ElementType::F8e4m3
            | ElementType::F8e5m2
            | ElementType::F8e8m0
    )
}

/// The `f32` value of each element of `src` (elements of a type that
/// [`widens`]) into `dst`, which has one place per element.
pub(crate) fn widen(
    op: &'static str,
    ty: ElementType,
    src: &[u8],
    dst: &mut [f32],
) -> Result<(), KernelError> {
    match ty {
        ElementType::F16 => widen_each::<2>(src, dst, |b| f16::from_le_bytes(b).to_f32()),
        ElementType::Bf16 => widen_each::<2>(src, dst, |b| bf16::from_le_bytes(b).to_f32()),
        ElementType::F8e4m3 => widen_each::<1>(src, dst, |[b]| f32::from_bits(F8E4M3[usize::from(b)])),
        ElementType::F8e5m2 => widen_each::<1>(src, dst, |[b]| f32::from_bits(F8E5M2[usize::from(b)])),
        ElementType::F8e8m0 => widen_each::<1>(src, dst, |[b]| f32::from_bits(F8E8M0[usize::from(b)])),
        _ => Err(()),
    }
    .map_err(|()| KernelError::UnsupportedType { op, ty })
}

/// Each of `src` rounded to `ty` (a type that [`widens`]), as OpenVINO
/// converts `f32` to it, into `dst`.
pub(crate) fn narrow(
    op: &'static str,
    ty: ElementType,
    src: &[f32],
    dst: &mut [u8],
) -> Result<(), KernelError> {
    match ty {
        ElementType::F16 => narrow_each::<2>(src, dst, |x| f16_bits(x).to_le_bytes()),
        ElementType::Bf16 => narrow_each::<2>(src, dst, |x| bf16::from_f32(x).to_le_bytes()),
        ElementType::F8e4m3 => narrow_each::<1>(src, dst, |x| [e4m3_from_f16(f16_bits(x))]),
        ElementType::F8e5m2 => narrow_each::<1>(src, dst, |x| [e5m2_from_f16(f16_bits(x))]),
        ElementType::F8e8m0 => narrow_each::<1>(src, dst, |x| [e8m0_from_f32(x)]),
        _ => Err(()),
    }
    .map_err(|()| KernelError::UnsupportedType { op, ty })
}

/// [`combine`] for a type that [`widens`]: `dst` holds the output's
/// elements widened to `f32`, `src` the updates' elements as bytes.
pub(crate) fn combine_wide(
    op: &'static str,
    ty: ElementType,
    reduction: Reduction,
    dst: &mut [f32],
    src: &[u8],
) -> Result<(), KernelError> {
    let width = ty.byte_width().ok_or(KernelError::UnsupportedType { op, ty })?;
    if src.len() != dst.len().saturating_mul(width) {
        return Err(KernelError::Internal { op, what: "a reduction was given slices of two lengths" });
    }
    for (d, s) in dst.iter_mut().zip(src.chunks_exact(width)) {
        let mut b = [0f32; 1];
        widen(op, ty, s, &mut b)?;
        *d = real(reduction, *d, b[0]);
    }
    Ok(())
}

fn widen_each<const N: usize>(src: &[u8], dst: &mut [f32], f: impl Fn([u8; N]) -> f32) -> Result<(), ()> {
    if src.len() != dst.len().saturating_mul(N) {
        return Err(());
    }
    for (d, s) in dst.iter_mut().zip(src.chunks_exact(N)) {
        let mut b = [0u8; N];
        b.copy_from_slice(s);
        *d = f(b);
    }
    Ok(())
}

fn narrow_each<const N: usize>(src: &[f32], dst: &mut [u8], f: impl Fn(f32) -> [u8; N]) -> Result<(), ()> {
    if dst.len() != src.len().saturating_mul(N) {
        return Err(());
    }
    for (d, &s) in dst.chunks_exact_mut(N).zip(src) {
        d.copy_from_slice(&f(s));
    }
    Ok(())
}

/// A number type [`each`] reads from and writes to little-endian bytes.
trait Bytes: Copy {
    const N: usize;
    fn get(b: &[u8]) -> Self;
    fn put(self, b: &mut [u8]);
}

macro_rules! bytes {
    ($($t:ty),*) => {$(
        impl Bytes for $t {
            const N: usize = std::mem::size_of::<$t>();
            fn get(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::N]);
                <$t>::from_le_bytes(a)
            }
            fn put(self, b: &mut [u8]) {
                b[..Self::N].copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
bytes!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

fn each<T: Bytes>(dst: &mut [u8], src: &[u8], f: impl Fn(T, T) -> T) {
    for (d, s) in dst.chunks_exact_mut(T::N).zip(src.chunks_exact(T::N)) {
        f(T::get(d), T::get(s)).put(d);
    }
}

fn boolean(reduction: Reduction, a: bool, b: bool) -> bool {
    match reduction {
        Reduction::Sum | Reduction::Max => a | b,
        Reduction::Sub => a ^ b,
        Reduction::Prod | Reduction::Min => a & b,
    }
}

/// The integer types' arithmetic, wrapping.
trait Wrapping: Copy + PartialOrd {
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
}

macro_rules! wrapping {
    ($($t:ty),*) => {$(
        impl Wrapping for $t {
            fn add(self, b: Self) -> Self { self.wrapping_add(b) }
            fn sub(self, b: Self) -> Self { self.wrapping_sub(b) }
            fn mul(self, b: Self) -> Self { self.wrapping_mul(b) }
        }
    )*};
}
wrapping!(u8, i8, u16, i16, u32, i32, u64, i64);

fn integer<T: Wrapping>(reduction: Reduction, a: T, b: T) -> T {
    match reduction {
        Reduction::Sum => a.add(b),
        Reduction::Sub => a.sub(b),
        Reduction::Prod => a.mul(b),
        Reduction::Min => pick_min(a, b),
        Reduction::Max => pick_max(a, b),
    }
}

fn real<
    T: Copy + PartialOrd + std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T>,
>(
    reduction: Reduction,
    a: T,
    b: T,
) -> T {
    match reduction {
        Reduction::Sum => a + b,
        Reduction::Sub => a - b,
        Reduction::Prod => a * b,
        Reduction::Min => pick_min(a, b),
        Reduction::Max => pick_max(a, b),
    }
}

fn pick_min<T: PartialOrd>(a: T, b: T) -> T {
    if a < b {
        a
    } else {
        b
    }
}

fn pick_max<T: PartialOrd>(a: T, b: T) -> T {
    if a > b {
        a
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use ovir_tensor::Tensor;

    use super::*;

    const ALL: [Reduction; 5] =
        [Reduction::Sum, Reduction::Sub, Reduction::Prod, Reduction::Min, Reduction::Max];

    /// `a` combined with `b` element by element, for tensors of one type.
    fn run(r: Reduction, a: &Tensor, b: &Tensor) -> Tensor {
        let mut out = a.clone();
        let src = b.bytes().unwrap().to_vec();
        combine("test", a.element_type(), r, out.bytes_mut().unwrap(), &src).unwrap();
        out
    }

    #[test]
    fn integers_wrap() {
        let a = Tensor::from_vec(&[4], vec![100i8, -100, 7, -3]).unwrap();
        let b = Tensor::from_vec(&[4], vec![100i8, 100, -2, -3]).unwrap();
        let want: [[i8; 4]; 5] = [
            [-56, 0, 5, -6],   // 200 wraps to -56
            [0, 56, 9, 0],     // -200 wraps to 56
            [16, -16, -14, 9], // 10000 = 39*256 + 16
            [100, -100, -2, -3],
            [100, 100, 7, -3],
        ];
        for (r, want) in ALL.into_iter().zip(want) {
            assert_eq!(run(r, &a, &b).to_vec::<i8>().unwrap(), want, "{r:?}");
        }
        let a = Tensor::from_vec(&[2], vec![3u32, u32::MAX]).unwrap();
        let b = Tensor::from_vec(&[2], vec![5u32, 2]).unwrap();
        assert_eq!(run(Reduction::Sub, &a, &b).to_vec::<u32>().unwrap(), [u32::MAX - 1, u32::MAX - 2]);
        assert_eq!(run(Reduction::Sum, &a, &b).to_vec::<u32>().unwrap(), [8, 1]);
        let a = Tensor::from_vec(&[1], vec![i64::MAX]).unwrap();
        let b = Tensor::from_vec(&[1], vec![2i64]).unwrap();
        assert_eq!(run(Reduction::Prod, &a, &b).to_vec::<i64>().unwrap(), [-2]);
    }

    #[test]
    fn booleans_are_logic() {
        let a = Tensor::from_vec(&[4], vec![false, false, true, true]).unwrap();
        let b = Tensor::from_vec(&[4], vec![false, true, false, true]).unwrap();
        let want = [
            [false, true, true, true],   // sum: OR
            [false, true, true, false],  // sub: XOR
            [false, false, false, true], // prod: AND
            [false, false, false, true], // min: AND
            [false, true, true, true],   // max: OR
        ];
        for (r, want) in ALL.into_iter().zip(want) {
            assert_eq!(run(r, &a, &b).to_vec::<bool>().unwrap(), want, "{r:?}");
        }
    }

    /// The bytes of `a` (elements of a type that widens) after each of
    /// `updates` in turn, rounded back once.
    fn wide(ty: ElementType, r: Reduction, a: &[u8], updates: &[&[u8]]) -> Vec<u8> {
        let n = a.len() / ty.byte_width().unwrap();
        let mut acc = vec![0f32; n];
        widen("test", ty, a, &mut acc).unwrap();
        for u in updates {
            combine_wide("test", ty, r, &mut acc, u).unwrap();
        }
        let mut out = vec![0u8; a.len()];
        narrow("test", ty, &acc, &mut out).unwrap();
        out
    }

    #[test]
    fn narrow_floats_round_once_after_all_updates() {
        // f16: 2048 + 1, four times, is 2052, as OpenVINO's reference
        // gives; rounding after each (the spacing there is 2, and 2049
        // ties to 2048) would keep 2048.
        let bytes = |v: f32| f16::from_f32(v).to_le_bytes();
        let one = bytes(1.0);
        let got = wide(ElementType::F16, Reduction::Sum, &bytes(2048.0), &[&one, &one, &one, &one]);
        assert_eq!(got, bytes(2052.0));
        // bf16: 256 + 1 four times is 260, as the reference gives.
        let bytes = |v: f32| bf16::from_f32(v).to_le_bytes();
        let one = bytes(1.0);
        let got = wide(ElementType::Bf16, Reduction::Sum, &bytes(256.0), &[&one, &one, &one, &one]);
        assert_eq!(got, bytes(260.0));
        // 3 * 1.5 is exact; a product past the range is infinite.
        let got = wide(ElementType::Bf16, Reduction::Prod, &bytes(3.0), &[&bytes(1.5)]);
        assert_eq!(got, bytes(4.5));
        let got = wide(
            ElementType::F16,
            Reduction::Prod,
            &f16::from_f32(60000.0).to_le_bytes(),
            &[&f16::from_f32(2.0).to_le_bytes()],
        );
        assert_eq!(got, f16::INFINITY.to_le_bytes());
        // f8e4m3: 0x38 is 1.0, 0x40 2.0, 0x44 3.0, 0x48 4.0; 448 (0x7E)
        // times 2 overflows to NaN (0x7F).
        assert_eq!(wide(ElementType::F8e4m3, Reduction::Sum, &[0x38], &[&[0x40]]), [0x44]);
        assert_eq!(wide(ElementType::F8e4m3, Reduction::Prod, &[0x40, 0x7E], &[&[0x40, 0x40]]), [0x48, 0x7F]);
        // f8e5m2: 0x3C is 1.0, 0x40 2.0; 1 - 2 = -1 (0xBC).
        assert_eq!(wide(ElementType::F8e5m2, Reduction::Sub, &[0x3C], &[&[0x40]]), [0xBC]);
        // f8e8m0: 0x7F is 1.0, 0x80 2.0. Their product is 2.0; their sum
        // 3.0 = 1.5 * 2^1 lies halfway between 2 and 4 and goes to the
        // even exponent field, 0x80.
        assert_eq!(wide(ElementType::F8e8m0, Reduction::Prod, &[0x7F], &[&[0x80]]), [0x80]);
        assert_eq!(wide(ElementType::F8e8m0, Reduction::Sum, &[0x7F], &[&[0x80]]), [0x80]);
        // Min and max compare the widened values.
        assert_eq!(wide(ElementType::F8e4m3, Reduction::Max, &[0x38, 0x48], &[&[0x40, 0x40]]), [0x40, 0x48]);
    }

    #[test]
    fn nan_follows_the_references_comparisons() {
        let a = Tensor::from_vec(&[3], vec![f32::NAN, 1.0, 2.0]).unwrap();
        let b = Tensor::from_vec(&[3], vec![1.0f32, f32::NAN, -0.5]).unwrap();
        let min = run(Reduction::Min, &a, &b).to_vec::<f32>().unwrap();
        assert_eq!(min[0], 1.0);
        assert!(min[1].is_nan());
        assert_eq!(min[2], -0.5);
        let max = run(Reduction::Max, &a, &b).to_vec::<f32>().unwrap();
        assert_eq!(max[0], 1.0);
        assert!(max[1].is_nan());
        assert_eq!(max[2], 2.0);
        let a = Tensor::from_vec(&[2], vec![0.1f64, 1e308]).unwrap();
        let b = Tensor::from_vec(&[2], vec![0.2f64, 10.0]).unwrap();
        let sum = run(Reduction::Sum, &a, &b).to_vec::<f64>().unwrap();
        assert_eq!(sum[0], 0.1 + 0.2);
        assert_eq!(run(Reduction::Prod, &a, &b).to_vec::<f64>().unwrap()[1], f64::INFINITY);
    }

    #[test]
    fn other_types_are_refused() {
        for ty in [ElementType::String, ElementType::U4, ElementType::I4, ElementType::U1, ElementType::Nf4] {
            assert!(!reduces(ty));
            assert_eq!(
                combine("op", ty, Reduction::Sum, &mut [0], &[0]),
                Err(KernelError::UnsupportedType { op: "op", ty })
            );
        }
    }
}
