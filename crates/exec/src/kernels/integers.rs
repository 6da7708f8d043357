//! The small integer inputs kernels read at run time: target shapes,
//! axes and slice bounds.

use ovir_tensor::Tensor;

/// Values of a small integer input (a target shape, axes, slice bounds) on
/// the stack, up to 8 of them.
pub(super) type SmallInts = smallvec::SmallVec<[i64; 8]>;

/// What [`read_ints`] does with a value outside the `i64` range (a large
/// `u64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Wide {
    /// Clamps it to `i64::MIN` or `i64::MAX`.
    Saturate,
    /// Refuses the whole input.
    Refuse,
}

/// The values of an integer tensor of any shape, in element order, as
/// `i64`s; `None` when the tensor is not of an integer type, or, with
/// [`Wide::Refuse`], when a value does not fit an `i64`. Up to 8 values
/// take no heap memory.
pub(super) fn read_ints(t: &Tensor, wide: Wide) -> Option<SmallInts> {
    let mut out = SmallInts::new();
    let (low, high) = (i128::from(i64::MIN), i128::from(i64::MAX));
    let read = ovir_shape::try_for_each_integer(t, |v| {
        let v = if wide == Wide::Saturate { v.clamp(low, high) } else { v };
        i64::try_from(v).map(|v| out.push(v))
    })?;
    read.ok().map(|()| out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_values_saturate_or_refuse() {
        let t = Tensor::from_vec(&[3], vec![u64::MAX, 7, 1 << 63]).unwrap();
        assert_eq!(read_ints(&t, Wide::Saturate).as_deref(), Some(&[i64::MAX, 7, i64::MAX][..]));
        assert_eq!(read_ints(&t, Wide::Refuse), None);
        let t = Tensor::from_vec(&[2], vec![-3i64, i64::MIN]).unwrap();
        assert_eq!(read_ints(&t, Wide::Refuse).as_deref(), Some(&[-3, i64::MIN][..]));
    }
}
