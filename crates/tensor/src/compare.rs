//! Comparing two tensors: bit for bit, or within a [`Tolerance`].
//!
//! [`Tolerance::EXACT`], the default, accepts only the same bits: `-0` and
//! `+0` differ, and a NaN matches only a NaN of the same bits. A
//! tolerance accepts more, for outputs of runtimes that are not bit-exact:
//!
//! - **`atol` and `rtol`** combine as NumPy's `isclose` does: an actual
//!   value `a` matches an expected value `e` when
//!   `|a − e| ≤ atol + rtol · |e|`. A missing one counts as 0. The sum is
//!   taken in `f64`, from the values of the tensor's own type.
//! - **`ulp`** counts the floats of the tensor's own type between the
//!   two values: 1.0 and the next `f32` are 1 ulp apart, and so are `+0`
//!   (or `-0`) and the smallest positive subnormal. An `f16` is measured in
//!   `f16` steps, an `f8e4m3` in `f8e4m3` steps.
//! - A value passes when it passes **any** of the tolerances given: within
//!   `atol + rtol · |e|`, or within `ulp` ulps.
//!
//! In every mode NaN matches only NaN (in the tolerance modes, of any
//! bits), an infinity matches only the same infinity, and `-0` equals
//! `+0` in the tolerance modes only. The float types are `f64`, `f32`,
//! `f16`, `bf16`, `f8e4m3`, `f8e5m2`, `f8e8m0` and `f4e2m1`. Integers of
//! every width, the packed ones included, compare exactly unless `atol` is
//! given, and then by the same `|a − e| ≤ atol + rtol · |e|` (`ulp` does
//! not apply to them). Booleans, strings and `nf4` codes compare exactly
//! in every mode.
//!
//! A tensor in its exchange form (one `u8` code per element, as `.npy`
//! files hold packed and 8-bit float values; see
//! [`packed::to_exchange`](crate::packed::to_exchange)) is read as the type
//! of the other tensor, so an expected array read from a file compares
//! with a model's `f8e4m3` or `u4` output as the values they are.
//!
//! ```
//! use ovir_tensor::compare::Tolerance;
//! use ovir_tensor::Tensor;
//!
//! let expected = Tensor::from_vec(&[3], vec![1.0f32, -0.0, 100.0])?;
//! let next = f32::from_bits(1.0f32.to_bits() + 1);
//! let actual = Tensor::from_vec(&[3], vec![next, 0.0, 100.0])?;
//!
//! let why = Tolerance::EXACT.compare(&expected, &actual).unwrap_err();
//! assert_eq!(
//!     why.to_string(),
//!     "2 of 3 elements differ; first at [0]: expected 1, got 1.0000001; largest absolute difference 1.1920929e-7"
//! );
//! assert!(Tolerance::EXACT.with_ulp(1).compare(&expected, &actual).is_ok());
//! assert!(Tolerance::EXACT.with_atol(1e-6)?.compare(&expected, &actual).is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;
use std::fmt;

use crate::element::ElementType;
use crate::packing::{code_at, exchange_type, PackError};
use crate::tensor::Tensor;
use crate::text::{small_float_value, write_f32, write_f64};

/// How close an actual value must be to the expected one (see the
/// [module docs](self) for the rules).
///
/// ```
/// use ovir_tensor::compare::Tolerance;
///
/// let t = Tolerance::EXACT.with_atol(1e-5)?.with_rtol(1e-3)?.with_ulp(2);
/// assert_eq!(t.to_string(), "atol=1e-5, rtol=0.001, ulp=2");
/// assert_eq!(Tolerance::EXACT.to_string(), "bit-exact");
/// assert!(Tolerance::EXACT.with_atol(-1.0).is_err());
/// # Ok::<(), ovir_tensor::compare::ToleranceError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tolerance {
    atol: Option<f64>,
    rtol: Option<f64>,
    ulp: Option<u64>,
}

/// A tolerance that is not a finite number of at least 0.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToleranceError {
    /// The absolute tolerance.
    #[error("atol must be a finite number of at least 0, not {0}")]
    Atol(f64),
    /// The relative tolerance.
    #[error("rtol must be a finite number of at least 0, not {0}")]
    Rtol(f64),
}

impl Tolerance {
    /// Bit for bit: no tolerance at all.
    pub const EXACT: Tolerance = Tolerance { atol: None, rtol: None, ulp: None };

    /// With the absolute tolerance `atol`, which also lets integers differ
    /// by up to `atol`.
    pub fn with_atol(self, atol: f64) -> Result<Tolerance, ToleranceError> {
        if atol.is_finite() && atol >= 0.0 {
            Ok(Tolerance { atol: Some(atol), ..self })
        } else {
            Err(ToleranceError::Atol(atol))
        }
    }

    /// With the relative tolerance `rtol`, a share of the expected value's
    /// magnitude.
    pub fn with_rtol(self, rtol: f64) -> Result<Tolerance, ToleranceError> {
        if rtol.is_finite() && rtol >= 0.0 {
            Ok(Tolerance { rtol: Some(rtol), ..self })
        } else {
            Err(ToleranceError::Rtol(rtol))
        }
    }

    /// With a distance of up to `ulp` floats of the tensor's own type.
    pub fn with_ulp(self, ulp: u64) -> Tolerance {
        Tolerance { ulp: Some(ulp), ..self }
    }

    /// The absolute tolerance, if given.
    pub fn atol(&self) -> Option<f64> {
        self.atol
    }

    /// The relative tolerance, if given.
    pub fn rtol(&self) -> Option<f64> {
        self.rtol
    }

    /// The distance in ulps, if given.
    pub fn ulp(&self) -> Option<u64> {
        self.ulp
    }

    /// `true` when no tolerance is given: values must match bit for bit.
    pub fn is_exact(&self) -> bool {
        *self == Tolerance::EXACT
    }

    /// Compares `actual` with `expected`: `Ok` when they have one type and
    /// shape and every element matches; otherwise what differs.
    pub fn compare(&self, expected: &Tensor, actual: &Tensor) -> Result<(), Mismatch> {
        let (te, ta) = (expected.element_type(), actual.element_type());
        if te != ta && exchange_type(ta) != Some(te) && exchange_type(te) != Some(ta) {
            return Err(Mismatch::ElementType { expected: te, actual: ta });
        }
        if expected.shape() != actual.shape() {
            return Err(Mismatch::Shape {
                expected: expected.shape().to_vec(),
                actual: actual.shape().to_vec(),
            });
        }
        let expected = as_type(expected, ta, Side::Expected)?;
        let actual = as_type(actual, te, Side::Actual)?;
        match (expected.strings(), actual.strings()) {
            (Some(e), Some(a)) => self.compare_strings(&expected, &actual, e, a),
            _ => self.compare_values(&expected, &actual),
        }
    }

    fn compare_strings(
        &self,
        expected: &Tensor,
        actual: &Tensor,
        e: &[String],
        a: &[String],
    ) -> Result<(), Mismatch> {
        let mut differ = e.iter().zip(a).enumerate().filter(|(_, (x, y))| x != y).map(|(i, _)| i);
        let Some(first) = differ.next() else { return Ok(()) };
        Err(Mismatch::Values(Box::new(ValueMismatch {
            count: 1 + differ.count(),
            total: e.len(),
            first: Differing::at(expected, actual, first),
            largest_difference: None,
            largest_ulps: None,
            tolerance: *self,
        })))
    }

    fn compare_values(&self, expected: &Tensor, actual: &Tensor) -> Result<(), Mismatch> {
        let ty = expected.element_type();
        let kind = Kind::of(ty);
        let mut count = 0usize;
        let mut first = None;
        let mut largest = Largest::default();
        for i in 0..expected.len() {
            let (Some(x), Some(y)) = (bits_at(expected, i), bits_at(actual, i)) else {
                count += 1;
                first.get_or_insert(i);
                continue;
            };
            let same = match kind {
                _ if x == y => true,
                _ if self.is_exact() => false,
                Kind::Real => self.accepts_reals(real(ty, x), real(ty, y)),
                Kind::Integer => self.accepts_integers(integer(ty, x), integer(ty, y)),
                Kind::Boolean | Kind::Code => false,
            };
            largest.add(ty, kind, x, y);
            if !same {
                count += 1;
                first.get_or_insert(i);
            }
        }
        let Some(first) = first else { return Ok(()) };
        Err(Mismatch::Values(Box::new(ValueMismatch {
            count,
            total: expected.len(),
            first: Differing::at(expected, actual, first),
            largest_difference: largest.difference_text(ty),
            largest_ulps: largest.ulps,
            tolerance: *self,
        })))
    }

    fn accepts_reals(&self, e: Real, a: Real) -> bool {
        if e.value.is_nan() || a.value.is_nan() {
            return e.value.is_nan() && a.value.is_nan();
        }
        if e.value == a.value {
            return true;
        }
        if e.value.is_infinite() || a.value.is_infinite() {
            return false;
        }
        if self.atol.is_some() || self.rtol.is_some() {
            let bound = self.atol.unwrap_or(0.0) + self.rtol.unwrap_or(0.0) * e.value.abs();
            if (a.value - e.value).abs() <= bound {
                return true;
            }
        }
        self.ulp.is_some_and(|ulp| e.ulps_to(a) <= ulp)
    }

    fn accepts_integers(&self, e: i128, a: i128) -> bool {
        match self.atol {
            Some(atol) => {
                let bound = atol + self.rtol.unwrap_or(0.0) * (e as f64).abs();
                (a.abs_diff(e) as f64) <= bound
            }
            None => e == a,
        }
    }
}

impl fmt::Display for Tolerance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_exact() {
            return f.write_str("bit-exact");
        }
        let mut sep = "";
        for (name, value) in [("atol", self.atol), ("rtol", self.rtol)] {
            if let Some(v) = value {
                write!(f, "{sep}{name}=")?;
                write_f64(f, v)?;
                sep = ", ";
            }
        }
        if let Some(ulp) = self.ulp {
            write!(f, "{sep}ulp={ulp}")?;
        }
        Ok(())
    }
}

/// Which of the two tensors compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The expected tensor.
    Expected,
    /// The actual tensor.
    Actual,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Expected => "expected",
            Side::Actual => "actual",
        })
    }
}

/// How two tensors differ.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Mismatch {
    /// The element types differ (and neither is the other's exchange
    /// form).
    ElementType {
        /// The expected tensor's type.
        expected: ElementType,
        /// The actual tensor's type.
        actual: ElementType,
    },
    /// The shapes differ.
    Shape {
        /// The expected shape.
        expected: Vec<usize>,
        /// The actual shape.
        actual: Vec<usize>,
    },
    /// One tensor is in the exchange form of the other's type, but holds a
    /// code outside that type's range.
    Codes {
        /// The tensor holding the code.
        side: Side,
        /// What is wrong with it.
        error: PackError,
    },
    /// Some elements differ.
    Values(Box<ValueMismatch>),
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::ElementType { expected, actual } => {
                write!(f, "element type {expected} was expected, got {actual}")?;
                if let Some(codes) = exchange_type(*actual) {
                    write!(f, " (whose codes an array holds as {codes})")?;
                }
                Ok(())
            }
            Mismatch::Shape { expected, actual } => {
                write!(f, "shape {expected:?} was expected, got {actual:?}")
            }
            Mismatch::Codes { side, error } => write!(f, "the {side} array's codes: {error}"),
            Mismatch::Values(v) => v.fmt(f),
        }
    }
}

impl std::error::Error for Mismatch {}

/// Which elements of two tensors of one type and shape differ, and by how
/// much.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueMismatch {
    /// How many elements differ.
    pub count: usize,
    /// How many elements each tensor has.
    pub total: usize,
    /// The first element that differs.
    pub first: Differing,
    /// The largest absolute difference between two elements, NaNs left
    /// out, in the text format's digits (in `f32`'s when the difference is
    /// an `f32` and the type is narrower than `f64`); `None` for strings,
    /// `nf4` codes and an unknown type.
    pub largest_difference: Option<String>,
    /// The largest distance in ulps between two elements of a float type
    /// that are not NaN; `None` for other types.
    pub largest_ulps: Option<u64>,
    /// The tolerance the elements were compared with.
    pub tolerance: Tolerance,
}

impl fmt::Display for ValueMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} of {} elements differ", self.count, self.total)?;
        if !self.tolerance.is_exact() {
            write!(f, " beyond {}", self.tolerance)?;
        }
        let d = &self.first;
        write!(f, "; first at {:?}: expected {}, got {}", d.index, d.expected, d.actual)?;
        if let Some(largest) = &self.largest_difference {
            write!(f, "; largest absolute difference {largest}")?;
        }
        if let (Some(_), Some(ulps)) = (self.tolerance.ulp, self.largest_ulps) {
            write!(f, "; largest distance {ulps} ulp")?;
        }
        Ok(())
    }
}

/// One element that differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Differing {
    /// Its row-major index.
    pub flat: usize,
    /// Its index along each axis.
    pub index: Vec<usize>,
    /// The expected value, in the [`text`](crate::text) format.
    pub expected: String,
    /// The actual value, in the [`text`](crate::text) format.
    pub actual: String,
}

impl Differing {
    fn at(expected: &Tensor, actual: &Tensor, flat: usize) -> Differing {
        let text = |t: &Tensor| t.value_text(flat).unwrap_or_else(|| "?".to_string());
        Differing {
            flat,
            index: unravel(flat, expected.shape()),
            expected: text(expected),
            actual: text(actual),
        }
    }
}

/// The index along each axis of the row-major index `flat`.
///
/// ```
/// assert_eq!(ovir_tensor::compare::unravel(5, &[2, 3]), vec![1, 2]);
/// ```
pub fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (i, &d) in shape.iter().enumerate().rev() {
        if d > 0 {
            index[i] = flat % d;
            flat /= d;
        }
    }
    index
}

/// `tensor` as type `ty` when it is in `ty`'s exchange form; as it is
/// otherwise.
fn as_type(tensor: &Tensor, ty: ElementType, side: Side) -> Result<Cow<'_, Tensor>, Mismatch> {
    if tensor.element_type() != ty && exchange_type(ty) == Some(tensor.element_type()) {
        let typed =
            crate::exchange::from_exchange(tensor, ty).map_err(|error| Mismatch::Codes { side, error })?;
        return Ok(Cow::Owned(typed));
    }
    Ok(Cow::Borrowed(tensor))
}

/// How the elements of a type compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Real,
    Integer,
    Boolean,
    /// Compared by their codes alone: `nf4`, and anything unknown.
    Code,
}

impl Kind {
    fn of(ty: ElementType) -> Kind {
        use ElementType as E;
        match ty {
            E::F64 | E::F32 | E::F16 | E::Bf16 | E::F8e4m3 | E::F8e5m2 | E::F8e8m0 | E::F4e2m1 => Kind::Real,
            E::Boolean => Kind::Boolean,
            _ if ty.is_integral() => Kind::Integer,
            _ => Kind::Code,
        }
    }
}

/// The bits of element `i`: its little-endian bytes, or its code for a
/// packed type.
fn bits_at(t: &Tensor, i: usize) -> Option<u64> {
    let ty = t.element_type();
    let bytes = t.bytes()?;
    match ty.byte_width() {
        Some(w) => {
            let b = bytes.get(i.checked_mul(w)?..i.checked_add(1)?.checked_mul(w)?)?;
            let mut raw = [0u8; 8];
            raw.get_mut(..w)?.copy_from_slice(b);
            Some(u64::from_le_bytes(raw))
        }
        None => code_at(bytes, ty, i).map(u64::from),
    }
}

/// An integer element's value.
fn integer(ty: ElementType, bits: u64) -> i128 {
    let width = ty.bit_width() as u32;
    if ty.is_signed_integral() && (1..128).contains(&width) {
        let shift = 128 - width;
        (i128::from(bits) << shift) >> shift
    } else {
        i128::from(bits)
    }
}

/// A float element's value, and its place among the values of its type.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Real {
    value: f64,
    /// The magnitude's bits, negated for a negative value, so that
    /// neighbouring floats are neighbouring numbers and both zeros are 0.
    ordinal: i128,
}

impl Real {
    fn ulps_to(self, other: Real) -> u64 {
        u64::try_from(self.ordinal.abs_diff(other.ordinal)).unwrap_or(u64::MAX)
    }
}

fn real(ty: ElementType, bits: u64) -> Real {
    use ElementType as E;
    let sign: u64 = match ty {
        E::F64 => 1 << 63,
        E::F32 => 1 << 31,
        E::F16 | E::Bf16 => 1 << 15,
        E::F8e4m3 | E::F8e5m2 => 1 << 7,
        E::F4e2m1 => 1 << 3,
        _ => 0,
    };
    let value = match ty {
        E::F64 => f64::from_bits(bits),
        E::F32 => f64::from(f32::from_bits(bits as u32)),
        _ => small_float_value(ty, bits as u32).unwrap_or(f64::NAN),
    };
    let magnitude = i128::from(bits & !sign);
    Real { value, ordinal: if bits & sign != 0 { -magnitude } else { magnitude } }
}

/// The largest differences seen so far.
#[derive(Default)]
struct Largest {
    integer: Option<u128>,
    real: Option<f64>,
    ulps: Option<u64>,
}

impl Largest {
    fn add(&mut self, ty: ElementType, kind: Kind, x: u64, y: u64) {
        match kind {
            Kind::Real => {
                let (e, a) = (real(ty, x), real(ty, y));
                let d = (a.value - e.value).abs();
                let largest = self.real.get_or_insert(0.0);
                if d > *largest {
                    *largest = d;
                }
                if !e.value.is_nan() && !a.value.is_nan() {
                    let u = e.ulps_to(a);
                    self.ulps = Some(self.ulps.map_or(u, |v| v.max(u)));
                }
            }
            Kind::Integer | Kind::Boolean => {
                let (e, a) = if kind == Kind::Boolean {
                    (i128::from(x != 0), i128::from(y != 0))
                } else {
                    (integer(ty, x), integer(ty, y))
                };
                let d = e.abs_diff(a);
                self.integer = Some(self.integer.map_or(d, |v| v.max(d)));
            }
            Kind::Code => {}
        }
    }

    fn difference_text(&self, ty: ElementType) -> Option<String> {
        if let Some(d) = self.integer {
            return Some(d.to_string());
        }
        let d = self.real?;
        // The difference is taken in f64. When the values are narrower and
        // the difference is an f32, it is shown in f32's shortest digits
        // (1e-45, not 1.401298464324817e-45).
        let mut text = String::new();
        let narrow = d as f32;
        if ty != ElementType::F64 && f64::from(narrow) == d {
            write_f32(&mut text, narrow).ok()?;
        } else {
            write_f64(&mut text, d).ok()?;
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packed::pack;
    use half::{bf16, f16};

    fn f32s(v: &[f32]) -> Tensor {
        Tensor::from_vec(&[v.len()], v.to_vec()).unwrap()
    }

    fn ulps(ty: ElementType, a: u64, b: u64) -> u64 {
        real(ty, a).ulps_to(real(ty, b))
    }

    #[test]
    fn ulps_count_the_floats_of_the_type_between_two_values() {
        let one = 1.0f32.to_bits();
        assert_eq!(ulps(ElementType::F32, one.into(), (one + 1).into()), 1);
        // Across the zeros: +0 and -0 are 0 apart, the smallest subnormals
        // of either sign 2.
        let (pz, nz) = (0u64, 0x8000_0000u64);
        assert_eq!(ulps(ElementType::F32, pz, nz), 0);
        assert_eq!(ulps(ElementType::F32, nz, 1), 1);
        assert_eq!(ulps(ElementType::F32, 0x8000_0001, 1), 2);
        // f32::MAX and infinity are neighbours.
        assert_eq!(ulps(ElementType::F32, f32::MAX.to_bits().into(), f32::INFINITY.to_bits().into()), 1);
        // f16: 1.0 is 0x3c00, the next is 1 + 2^-10.
        let h = |x: f32| u64::from(f16::from_f32(x).to_bits());
        assert_eq!(ulps(ElementType::F16, h(1.0), h(1.0 + 1.0 / 1024.0)), 1);
        // Below 1 the steps halve: 1 - 2^-11 is one step down.
        assert_eq!(ulps(ElementType::F16, h(1.0), h(1.0 - 1.0 / 2048.0)), 1);
        assert_eq!(ulps(ElementType::F16, h(-1.0), h(1.0)), 2 * 0x3c00);
        // bf16 keeps f32's exponent: 1 + 2^-7 is next to 1.
        let b = |x: f32| u64::from(bf16::from_f32(x).to_bits());
        assert_eq!(ulps(ElementType::Bf16, b(1.0), b(1.0 + 1.0 / 128.0)), 1);
        // f8e4m3: 0x38 is 1, 0x39 is 1.125; f8e5m2: 0x3c is 1, 0x3d 1.25.
        assert_eq!(real(ElementType::F8e4m3, 0x39).value, 1.125);
        assert_eq!(ulps(ElementType::F8e4m3, 0x38, 0x39), 1);
        assert_eq!(real(ElementType::F8e5m2, 0x3d).value, 1.25);
        assert_eq!(ulps(ElementType::F8e4m3, 0x80, 0x01), 1);
        // f8e8m0 has no sign: 2^0 and 2^1 are neighbours.
        assert_eq!(ulps(ElementType::F8e8m0, 127, 128), 1);
        // f4e2m1: 0x2 is 1, 0xa is -1; 0.5 sits between each and 0.
        assert_eq!(ulps(ElementType::F4e2m1, 0x2, 0xa), 4);
        // f64.
        assert_eq!(ulps(ElementType::F64, 1.0f64.to_bits(), 1.0f64.to_bits() + 3), 3);
        assert_eq!(ulps(ElementType::F64, 0x8000_0000_0000_0000, 0), 0);
    }

    #[test]
    fn differences_show_values_in_their_own_width() {
        let t = Tolerance::EXACT;
        let e = t.compare(&f32s(&[1.0, 1e-45]), &f32s(&[1.0, 0.0])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 of 2 elements differ; first at [1]: expected 1e-45, got 0; largest absolute difference 1e-45"
        );
        let nan = f32::from_bits(0x7fc0_0001);
        let e = t.compare(&f32s(&[0.1, 2.0]), &f32s(&[nan, 2.0])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 of 2 elements differ; first at [0]: expected 0.1, got nan:0x7fc00001; largest absolute difference 0"
        );
        let f64s = |v: f64| Tensor::from_vec(&[1], vec![v]).unwrap();
        let e = t.compare(&f64s(1e-300), &f64s(2e-300)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 of 1 elements differ; first at [0]: expected 1e-300, got 2e-300; largest absolute difference 1e-300"
        );
        // f16 0.2 - 0.1 is 0.0999755859375, an f32 of shortest digits
        // 0.099975586.
        let f16s = |v: f32| Tensor::from_vec(&[1], vec![f16::from_f32(v)]).unwrap();
        let e = t.compare(&f16s(0.1), &f16s(0.2)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 of 1 elements differ; first at [0]: expected 0.1, got 0.2; largest absolute difference 0.099975586"
        );
    }

    #[test]
    fn exact_mode_tells_every_bit() {
        let t = Tolerance::EXACT;
        assert!(t.compare(&f32s(&[1.0, -0.0]), &f32s(&[1.0, -0.0])).is_ok());
        let e = t.compare(&f32s(&[0.0]), &f32s(&[-0.0])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 of 1 elements differ; first at [0]: expected 0, got -0; largest absolute difference 0"
        );
        let (n1, n2) = (f32::from_bits(0x7fc0_0000), f32::from_bits(0x7fc0_0001));
        assert!(t.compare(&f32s(&[n1]), &f32s(&[n1])).is_ok());
        assert!(t.compare(&f32s(&[n1]), &f32s(&[n2])).is_err());
    }

    #[test]
    fn atol_and_rtol_combine_as_numpy_isclose() {
        // |a - e| <= atol + rtol * |e|: 100 and 100.5 with atol 0.25 and
        // rtol 0.0025 (bound 0.5) pass; 100.75 does not.
        let t = Tolerance::EXACT.with_atol(0.25).unwrap().with_rtol(0.0025).unwrap();
        assert!(t.compare(&f32s(&[100.0]), &f32s(&[100.5])).is_ok());
        let e = t.compare(&f32s(&[100.0, 1.0]), &f32s(&[100.75, 1.0])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 of 2 elements differ beyond atol=0.25, rtol=0.0025; first at [0]: expected 100, got 100.75; largest absolute difference 0.75"
        );
        // rtol scales by the expected value, not the actual one.
        let r = Tolerance::EXACT.with_rtol(0.5).unwrap();
        assert!(r.compare(&f32s(&[2.0]), &f32s(&[3.0])).is_ok());
        assert!(r.compare(&f32s(&[3.0]), &f32s(&[2.0])).is_ok());
        assert!(r.compare(&f32s(&[1.0]), &f32s(&[2.0])).is_err());
        // The zeros are equal, NaN matches any NaN and nothing else,
        // infinities only themselves.
        let nan = f32::from_bits(0x7fc0_0001);
        assert!(t
            .compare(&f32s(&[0.0, nan, f32::INFINITY]), &f32s(&[-0.0, f32::NAN, f32::INFINITY]))
            .is_ok());
        assert!(t.compare(&f32s(&[nan]), &f32s(&[0.0])).is_err());
        assert!(t.compare(&f32s(&[0.0]), &f32s(&[nan])).is_err());
        let huge = Tolerance::EXACT.with_atol(f64::MAX).unwrap();
        assert!(huge.compare(&f32s(&[f32::INFINITY]), &f32s(&[f32::MAX])).is_err());
        assert!(huge.compare(&f32s(&[f32::INFINITY]), &f32s(&[f32::NEG_INFINITY])).is_err());
    }

    #[test]
    fn a_value_passes_when_it_passes_any_tolerance() {
        let next = f32::from_bits(1.0f32.to_bits() + 2);
        let atol = Tolerance::EXACT.with_atol(1e-9).unwrap();
        assert!(atol.compare(&f32s(&[1.0]), &f32s(&[next])).is_err());
        assert!(atol.with_ulp(2).compare(&f32s(&[1.0]), &f32s(&[next])).is_ok());
        let e = atol.with_ulp(1).compare(&f32s(&[1.0, 5.0]), &f32s(&[next, 5.0])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 of 2 elements differ beyond atol=1e-9, ulp=1; first at [0]: expected 1, got 1.0000002; largest absolute difference 2.3841858e-7; largest distance 2 ulp"
        );
        // A 2-ulp f16 difference is 2 ulp in f16, not in f32.
        let h =
            |v: &[u16]| Tensor::from_vec(&[v.len()], v.iter().map(|&b| f16::from_bits(b)).collect()).unwrap();
        let ulp2 = Tolerance::EXACT.with_ulp(2);
        assert!(ulp2.compare(&h(&[0x3c00]), &h(&[0x3c02])).is_ok());
        assert!(ulp2.compare(&h(&[0x3c00]), &h(&[0x3c03])).is_err());
        // Across zero: the smallest positive and negative subnormals are 2
        // apart.
        assert!(ulp2.compare(&h(&[0x0001]), &h(&[0x8001])).is_ok());
        assert!(Tolerance::EXACT.with_ulp(1).compare(&h(&[0x0001]), &h(&[0x8001])).is_err());
    }

    #[test]
    fn integers_compare_exactly_unless_atol_is_given() {
        let ints = |v: &[i64]| Tensor::from_vec(&[v.len()], v.to_vec()).unwrap();
        let loose = Tolerance::EXACT.with_rtol(0.5).unwrap().with_ulp(100);
        let e = loose.compare(&ints(&[10, i64::MIN]), &ints(&[11, i64::MIN])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 of 2 elements differ beyond rtol=0.5, ulp=100; first at [0]: expected 10, got 11; largest absolute difference 1"
        );
        let atol = Tolerance::EXACT.with_atol(1.0).unwrap();
        assert!(atol.compare(&ints(&[10, -3]), &ints(&[11, -4])).is_ok());
        assert!(atol.compare(&ints(&[10]), &ints(&[12])).is_err());
        // With atol, rtol joins in: 100 may be 5 + 1 away.
        assert!(atol.with_rtol(0.05).unwrap().compare(&ints(&[100]), &ints(&[106])).is_ok());
        // Packed integers are integers: i4 codes 0xf and 0x0 are -1 and 0.
        let i4 = |codes: &[u8]| {
            Tensor::from_bytes(ElementType::I4, &[codes.len()], &pack(codes, ElementType::I4).unwrap())
                .unwrap()
        };
        assert!(atol.compare(&i4(&[0xf]), &i4(&[0x0])).is_ok());
        assert!(atol.compare(&i4(&[0x7]), &i4(&[0x8])).is_err());
        // Booleans never take a tolerance.
        let b = |v: bool| Tensor::from_vec(&[1], vec![v]).unwrap();
        assert!(Tolerance::EXACT.with_atol(5.0).unwrap().compare(&b(true), &b(false)).is_err());
    }

    #[test]
    fn exchange_codes_compare_as_the_values_they_stand_for() {
        // The expected array holds f8e4m3 codes as u8: 0x38 is 1, 0x39
        // 1.125 (shown as 1.1, the shortest decimal that reads back as it).
        let codes = Tensor::from_vec(&[2], vec![0x38u8, 0x40]).unwrap();
        let actual = Tensor::from_bytes(ElementType::F8e4m3, &[2], &[0x39, 0x40]).unwrap();
        let e = Tolerance::EXACT.compare(&codes, &actual).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 of 2 elements differ; first at [0]: expected 1, got 1.1; largest absolute difference 0.125"
        );
        assert!(Tolerance::EXACT.with_ulp(1).compare(&codes, &actual).is_ok());
        // A code outside the type's range is named.
        let bad = Tensor::from_vec(&[1], vec![100i8]).unwrap();
        let i4 = Tensor::from_bytes(ElementType::I4, &[1], &[0]).unwrap();
        let e = Tolerance::EXACT.compare(&bad, &i4).unwrap_err();
        assert!(matches!(e, Mismatch::Codes { side: Side::Expected, .. }), "{e}");
        assert_eq!(
            e.to_string(),
            "the expected array's codes: element 0 is 100, outside the range -8 to 7 of i4"
        );
    }

    #[test]
    fn types_and_shapes_must_agree() {
        let f = f32s(&[1.0]);
        let d = Tensor::from_vec(&[1], vec![1.0f64]).unwrap();
        assert_eq!(
            Tolerance::EXACT.compare(&d, &f).unwrap_err().to_string(),
            "element type f64 was expected, got f32"
        );
        let f8 = Tensor::from_bytes(ElementType::F8e5m2, &[1], &[0x3c]).unwrap();
        assert_eq!(
            Tolerance::EXACT.compare(&f, &f8).unwrap_err().to_string(),
            "element type f32 was expected, got f8e5m2 (whose codes an array holds as u8)"
        );
        let two = Tensor::from_vec(&[1, 1], vec![1.0f32]).unwrap();
        assert_eq!(
            Tolerance::EXACT.compare(&f, &two).unwrap_err().to_string(),
            "shape [1] was expected, got [1, 1]"
        );
    }

    #[test]
    fn strings_compare_exactly() {
        let words = |v: &str| Tensor::from_strings(&[1], vec![v.to_string()]).unwrap();
        let e = Tolerance::EXACT
            .with_atol(1.0)
            .unwrap()
            .compare(&words("say \"hi\""), &words("é\n"))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"1 of 1 elements differ beyond atol=1; first at [0]: expected "say \"hi\"", got "é\n""#
        );
        assert!(Tolerance::EXACT.compare(&words("a"), &words("a")).is_ok());
    }

    #[test]
    fn the_position_is_given_flat_and_per_axis() {
        let e = Tensor::from_vec(&[2, 3], vec![0i32; 6]).unwrap();
        let a = Tensor::from_vec(&[2, 3], vec![0i32, 0, 0, 0, 0, 7]).unwrap();
        let Err(Mismatch::Values(v)) = Tolerance::EXACT.compare(&e, &a) else { panic!("a mismatch") };
        assert_eq!(
            v.first,
            Differing { flat: 5, index: vec![1, 2], expected: "0".into(), actual: "7".into() }
        );
        assert_eq!((v.count, v.total, v.largest_difference.as_deref()), (1, 6, Some("7")));
    }

    #[test]
    fn tolerances_must_be_finite_and_not_negative() {
        assert_eq!(
            Tolerance::EXACT.with_atol(f64::NAN).unwrap_err().to_string(),
            "atol must be a finite number of at least 0, not NaN"
        );
        assert!(Tolerance::EXACT.with_rtol(-0.1).is_err());
        assert!(Tolerance::EXACT.with_rtol(f64::INFINITY).is_err());
        assert!(Tolerance::EXACT.with_atol(0.0).unwrap().compare(&f32s(&[0.0]), &f32s(&[-0.0])).is_ok());
    }
}
