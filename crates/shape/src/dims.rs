//! Small integer tensors that hold dimensions: reading their values, and
//! carrying what is known of each element through the ops that take
//! shapes apart and put them together (see [`PortFact::value_dims`]).

use ovir_tensor::{Dim, ElementType, PartialShape, Tensor};

use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::Problems;

/// The values of an integer tensor as `i64`; `None` for other element
/// types, or when a value does not fit an `i64`.
pub(crate) fn int_values(t: &Tensor) -> Option<Vec<i64>> {
    if !t.element_type().is_integral() {
        return None;
    }
    t.integer_values()?.into_iter().map(|v| i64::try_from(v).ok()).collect()
}

/// The values of an integer tensor as `i64`, with values beyond the `i64`
/// range (large `u64`s) saturated; `None` for other element types.
pub(crate) fn saturated_ints(t: &Tensor) -> Option<Vec<i64>> {
    if !t.element_type().is_integral() {
        return None;
    }
    let values = t.integer_values()?;
    Some(values.into_iter().map(|v| v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64).collect())
}

/// What is known of the value of a 0-D or 1-D integer fact, element by
/// element, as dimensions: from [`PortFact::value_dims`], or from the value
/// itself when every element is non-negative.
pub(crate) fn dims_of(fact: &PortFact) -> Option<Vec<Dim>> {
    if let Some(dims) = &fact.value_dims {
        return Some(dims.clone());
    }
    let value = fact.value.as_ref()?;
    if value.rank() > 1 {
        return None;
    }
    int_values(value)?.into_iter().map(|v| u64::try_from(v).ok().map(Dim::fixed)).collect()
}

/// The integer values of a fact, when its value is known.
pub(crate) fn ints_of(fact: &PortFact) -> Option<Vec<i64>> {
    fact.value.as_ref().and_then(int_values)
}

/// The integer values of an input that passed its checks (`ok`).
pub(crate) fn checked_ints(ok: bool, fact: &PortFact) -> Option<Vec<i64>> {
    if ok {
        ints_of(fact)
    } else {
        None
    }
}

/// An integer tensor of type `ty` holding `values` with `shape`; `None`
/// for types other than the 32- and 64-bit integers, or a value that does
/// not fit.
pub(crate) fn int_tensor(ty: ElementType, shape: &[usize], values: &[u64]) -> Option<Tensor> {
    let t = match ty {
        ElementType::I32 => {
            let v: Option<Vec<i32>> = values.iter().map(|&x| i32::try_from(x).ok()).collect();
            Tensor::from_vec(shape, v?)
        }
        ElementType::I64 => {
            let v: Option<Vec<i64>> = values.iter().map(|&x| i64::try_from(x).ok()).collect();
            Tensor::from_vec(shape, v?)
        }
        ElementType::U32 => {
            let v: Option<Vec<u32>> = values.iter().map(|&x| u32::try_from(x).ok()).collect();
            Tensor::from_vec(shape, v?)
        }
        ElementType::U64 => Tensor::from_vec(shape, values.to_vec()),
        _ => return None,
    };
    t.ok()
}

/// Checks that an input holds integers, when its type is known.
pub(crate) fn integer_input(
    problems: &mut Problems,
    op: &'static str,
    input: &'static str,
    fact: &PortFact,
) -> bool {
    let ty = fact.element_type;
    if ty.is_static() && !ty.is_integral() {
        problems.layer(ShapeErrorKind::IntegerInput { op, input, found: ty });
        return false;
    }
    true
}

/// Checks that an input's rank is one of `ranks`, when it is known.
pub(crate) fn input_rank(
    problems: &mut Problems,
    op: &'static str,
    input: &'static str,
    fact: &PortFact,
    ranks: &[usize],
    expected: &'static str,
) -> bool {
    match fact.shape.rank() {
        Some(r) if !ranks.contains(&r) => {
            problems.layer(ShapeErrorKind::InputShape { op, input, expected, shape: fact.shape.clone() });
            false
        }
        _ => true,
    }
}

/// The length of a 1-D input, when its shape says it.
pub(crate) fn vector_len(fact: &PortFact) -> Option<usize> {
    match fact.shape.dims() {
        Some([n]) => n.get().and_then(|n| usize::try_from(n).ok()),
        _ => None,
    }
}

/// Whether a tensor of this shape holds exactly one element.
pub(crate) fn holds_one(fact: &PortFact) -> bool {
    fact.shape.to_static().is_some_and(|s| s.iter().product::<usize>() == 1)
}

/// The fact of a shape-only output, with the value's dimensions carried
/// over when the output is a 0-D or 1-D list of them.
pub(crate) fn fact_with_dims(ty: ElementType, shape: PartialShape, dims: Option<Vec<Dim>>) -> PortFact {
    let fits = shape.rank().is_some_and(|r| r <= 1)
        && match (shape.dims(), &dims) {
            (Some([]), Some(d)) => d.len() == 1,
            (Some([n]), Some(d)) => n.get() == Some(d.len() as u64) || !n.is_static(),
            _ => false,
        };
    let mut fact = PortFact::of(ty, shape);
    if fits && ty.is_integral() {
        fact.value_dims = dims;
    }
    fact
}

/// A dimension divided by `divisor` as OpenVINO divides the dimensions of
/// the block ops: a static size must be a multiple, and an interval keeps
/// the multiples it holds (its bounds rounded inward); `None` when there
/// are none.
pub(crate) fn divide_dim(dim: Dim, divisor: u64) -> Option<Dim> {
    if divisor == 0 {
        return None;
    }
    let min = dim.min().div_ceil(divisor);
    match dim.max() {
        Some(max) => Dim::interval(min, Some(max / divisor)),
        None => Dim::interval(min, None),
    }
}

/// A dimension times `factor`, each bound; `None` when a bound overflows.
pub(crate) fn multiply_dim(dim: Dim, factor: u64) -> Option<Dim> {
    let min = dim.min().checked_mul(factor)?;
    let max = match dim.max() {
        Some(m) => Some(m.checked_mul(factor)?),
        None if factor == 0 => Some(0),
        None => None,
    };
    Dim::interval(min, max)
}

/// The rank of a shape given only by a length read from another input's
/// declared shape (a Transpose order's, Tile's repeats'): that many
/// unknown dimensions, unless it is beyond any rank a tensor could hold
/// in memory, which leaves the rank unknown rather than allocating the
/// list.
pub(crate) fn rank_of_length(n: u64) -> PartialShape {
    match usize::try_from(n) {
        Ok(n) if n <= 1 << 16 => PartialShape::with_rank(n),
        _ => PartialShape::dynamic(),
    }
}
