//! Checks on the values of axes and sequence lengths.
//!
//! Analysis runs them on constant inputs; the executor runs the same
//! functions on run-time inputs, so both report the same errors.

use std::collections::BTreeSet;

use ovir_tensor::{Dim, ElementType, PartialShape, Tensor};

use crate::error::ShapeErrorKind;
use crate::op::{normalize_axis, ReverseMode};

/// The axes a `Reverse` reverses: one flag per data axis.
///
/// In index mode, negative axes count from the end and repeated axes are
/// reversed once; every axis must lie in `[-rank, rank-1]`. In mask mode the
/// mask must be boolean with one element per data axis.
///
/// ```
/// use ovir_shape::{reversed_axes, ReverseMode};
/// use ovir_tensor::Tensor;
/// let axes = Tensor::from_vec(&[3], vec![0i64, -1, 2])?;
/// assert_eq!(reversed_axes(ReverseMode::Index, &axes, 3)?, vec![true, false, true]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reversed_axes(mode: ReverseMode, axes: &Tensor, rank: usize) -> Result<Vec<bool>, ShapeErrorKind> {
    if axes.rank() != 1 {
        return Err(ShapeErrorKind::AxesNotVector { shape: PartialShape::from_static(axes.shape()) });
    }
    let ty = axes.element_type();
    match mode {
        ReverseMode::Mask => {
            if ty != ElementType::Boolean {
                return Err(ShapeErrorKind::MaskAxesType { found: ty });
            }
            if axes.len() != rank {
                return Err(ShapeErrorKind::MaskLength { length: Dim::fixed(axes.len() as u64), rank });
            }
            let flags = axes.integer_values().ok_or(ShapeErrorKind::UnreadableValues { element_type: ty })?;
            Ok(flags.into_iter().map(|f| f != 0).collect())
        }
        ReverseMode::Index => {
            if !ty.is_integral() {
                return Err(ShapeErrorKind::IndexAxesType { found: ty });
            }
            let values =
                axes.integer_values().ok_or(ShapeErrorKind::UnreadableValues { element_type: ty })?;
            let mut set = BTreeSet::new();
            let mut out_of_bounds = false;
            let mut flags = vec![false; rank];
            for v in values {
                match i64::try_from(v).ok().and_then(|a| normalize_axis(a, rank)) {
                    Some(axis) => {
                        set.insert(axis as i128);
                        if let Some(flag) = flags.get_mut(axis) {
                            *flag = true;
                        }
                    }
                    None => {
                        set.insert(v);
                        out_of_bounds = true;
                    }
                }
            }
            if out_of_bounds {
                return Err(ShapeErrorKind::AxesOutOfBounds { axes: set.into_iter().collect(), rank });
            }
            Ok(flags)
        }
    }
}

/// The sequence lengths of a `ReverseSequence`, checked against the size of
/// the sequence axis: each must lie in `[0, seq_len]`. Real lengths are
/// truncated toward zero; a length of 0 reverses nothing, like 1.
///
/// ```
/// use ovir_shape::sequence_lengths;
/// use ovir_tensor::Tensor;
/// let lengths = Tensor::from_vec(&[3], vec![2.9f32, 0.0, 4.0])?;
/// assert_eq!(sequence_lengths(&lengths, 4)?, vec![2, 0, 4]);
/// assert!(sequence_lengths(&lengths, 3).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sequence_lengths(lengths: &Tensor, seq_len: usize) -> Result<Vec<usize>, ShapeErrorKind> {
    let ty = lengths.element_type();
    let max = seq_len as u64;
    let out_of_range = |batch: usize, value: String| ShapeErrorKind::LengthOutOfRange { batch, value, max };
    if ty.is_integral() {
        let values = lengths.integer_values().ok_or(ShapeErrorKind::UnreadableValues { element_type: ty })?;
        values
            .into_iter()
            .enumerate()
            .map(|(batch, v)| match usize::try_from(v) {
                Ok(n) if n <= seq_len => Ok(n),
                _ => Err(out_of_range(batch, v.to_string())),
            })
            .collect()
    } else if ty.is_real() {
        let values = lengths.real_values().ok_or(ShapeErrorKind::UnreadableValues { element_type: ty })?;
        values
            .into_iter()
            .enumerate()
            .map(|(batch, v)| {
                let t = v.trunc();
                // `t >= 0.0` also refuses NaN; -0.5 truncates to -0.0, which passes.
                if t >= 0.0 && t <= seq_len as f64 {
                    Ok(t as usize)
                } else {
                    Err(out_of_range(batch, real_text(ty, v)))
                }
            })
            .collect()
    } else {
        Err(ShapeErrorKind::LengthsType { found: ty })
    }
}

/// A real value as its own type prints it, so an f32 2.7 reads `2.7`
/// rather than its f64 widening.
fn real_text(ty: ElementType, v: f64) -> String {
    if ty == ElementType::F64 {
        v.to_string()
    } else {
        (v as f32).to_string()
    }
}
