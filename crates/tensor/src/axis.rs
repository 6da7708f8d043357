//! Axis numbers as OpenVINO's ops take them: an axis may count from the
//! end, so `-1` is the last one.

/// Maps an axis in `[-rank, rank-1]` to `[0, rank-1]`, counting negative
/// axes from the end; `None` when the axis is out of range.
///
/// Any integer type is accepted, so an axis read from a `u64` or `i64`
/// tensor is checked without first being narrowed.
///
/// ```
/// use ovir_tensor::normalize_axis;
/// assert_eq!(normalize_axis(-1, 3), Some(2));
/// assert_eq!(normalize_axis(2u64, 3), Some(2));
/// assert_eq!(normalize_axis(3, 3), None);
/// assert_eq!(normalize_axis(-4, 3), None);
/// assert_eq!(normalize_axis(0, 0), None);
/// ```
pub fn normalize_axis(axis: impl Into<i128>, rank: usize) -> Option<usize> {
    let axis = axis.into();
    let rank_i = i128::try_from(rank).ok()?;
    let axis = if axis < 0 { axis + rank_i } else { axis };
    usize::try_from(axis).ok().filter(|&a| a < rank)
}

#[cfg(test)]
mod tests {
    use super::normalize_axis;

    #[test]
    fn extreme_values_are_out_of_range_not_wrapped() {
        assert_eq!(normalize_axis(i64::MIN, 3), None);
        assert_eq!(normalize_axis(u64::MAX, 3), None);
        assert_eq!(normalize_axis(i128::MIN, usize::MAX), None);
        assert_eq!(normalize_axis(-1, usize::MAX), Some(usize::MAX - 1));
    }
}
