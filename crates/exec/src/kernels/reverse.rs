//! Reverse-1: reverse a tensor along a set of axes.

use ovir_tensor::{ElementType, Tensor};

use std::ops::Range;

use super::{
    check_movable, check_output, copy_all, play, product, ExecOptions, Joiner, KernelError, ReverseMode, Run,
    RunPlan,
};

const OP: &str = "Reverse";

/// Turns Reverse's second input in `index` mode into one flag per data axis.
///
/// `axes` must be 1-D and hold any whole-byte integer type (`i8` to `u64`).
/// A negative axis counts from the end (`-1` is the last axis); an axis
/// outside `[-rank, rank - 1]` is an error. Axes form a set, as in
/// OpenVINO: naming an axis twice reverses it once.
pub fn reverse_axes_from_index(axes: &Tensor, rank: usize) -> Result<Vec<bool>, KernelError> {
    let ty = axes.element_type();
    if axes.rank() != 1 {
        return Err(KernelError::AxesRank { rank: axes.rank() });
    }
    if !ty.is_integral() {
        return Err(KernelError::AxesType { ty, mode: ReverseMode::Index });
    }
    let values = axes.integer_values().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
    let signed_rank = i128::try_from(rank).unwrap_or(i128::MAX);
    let mut flags = vec![false; rank];
    for axis in values {
        let normalised = if axis < 0 { axis + signed_rank } else { axis };
        let slot = usize::try_from(normalised).ok().and_then(|i| flags.get_mut(i));
        match slot {
            Some(flag) => *flag = true,
            None => return Err(KernelError::AxisOutOfRange { axis, rank }),
        }
    }
    Ok(flags)
}

/// Turns Reverse's second input in `mask` mode into one flag per data axis.
///
/// `mask` must be a 1-D `boolean` tensor with exactly `rank` elements.
pub fn reverse_axes_from_mask(mask: &Tensor, rank: usize) -> Result<Vec<bool>, KernelError> {
    let ty = mask.element_type();
    if mask.rank() != 1 {
        return Err(KernelError::AxesRank { rank: mask.rank() });
    }
    if ty != ElementType::Boolean {
        return Err(KernelError::AxesType { ty, mode: ReverseMode::Mask });
    }
    if mask.len() != rank {
        return Err(KernelError::MaskLength { len: mask.len(), rank });
    }
    Ok(mask.to_vec::<bool>()?)
}

/// Reads Reverse's second input in the given mode; see
/// [`reverse_axes_from_index`] and [`reverse_axes_from_mask`].
pub fn reverse_axes(axes: &Tensor, mode: ReverseMode, rank: usize) -> Result<Vec<bool>, KernelError> {
    match mode {
        ReverseMode::Index => reverse_axes_from_index(axes, rank),
        ReverseMode::Mask => reverse_axes_from_mask(axes, rank),
    }
}

/// Reverses `data` along every axis whose flag in `axes` is `true`
/// (one flag per data axis).
///
/// Works on every whole-byte element type and on strings; elements are moved
/// bit for bit, never converted. When nothing needs to move (no flag set, or
/// only axes of size 1 flagged), the result is `data` itself: a clone that
/// shares its storage, with no copy made.
///
/// ```
/// use ovir_exec::kernels::reverse;
/// use ovir_tensor::Tensor;
///
/// let data = Tensor::from_vec(&[2, 2], vec![1u8, 2, 3, 4])?;
/// assert_eq!(reverse(&data, &[true, false])?.to_vec::<u8>()?, vec![3, 4, 1, 2]);
/// assert!(reverse(&data, &[false, false])?.shares_storage_with(&data));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reverse(data: &Tensor, axes: &[bool]) -> Result<Tensor, KernelError> {
    reverse_with(data, axes, &ExecOptions::single_thread())
}

/// [`reverse`] that may split a large output across threads as `options`
/// allow; the result is the same.
pub fn reverse_with(data: &Tensor, axes: &[bool], options: &ExecOptions) -> Result<Tensor, KernelError> {
    let plan = prepare(data, axes)?;
    let Some(plan) = plan else {
        return Ok(data.clone());
    };
    let mut out = Tensor::zeros(data.element_type(), data.shape())?;
    play(OP, &plan, data, &mut out, options)?;
    Ok(out)
}

/// [`reverse`] writing into `out`, which must already have `data`'s element
/// type and shape; its buffer is reused when `out` holds it alone.
pub fn reverse_into(data: &Tensor, axes: &[bool], out: &mut Tensor) -> Result<(), KernelError> {
    reverse_into_with(data, axes, out, &ExecOptions::single_thread())
}

/// [`reverse_into`] that may split a large output across threads as
/// `options` allow.
pub fn reverse_into_with(
    data: &Tensor,
    axes: &[bool],
    out: &mut Tensor,
    options: &ExecOptions,
) -> Result<(), KernelError> {
    check_output(OP, data.element_type(), data.shape(), out)?;
    match prepare(data, axes)? {
        Some(plan) => play(OP, &plan, data, out, options),
        None => copy_all(OP, data, out, options),
    }
}

/// Validates the inputs and builds the plan; `None` when the output equals
/// the input.
fn prepare(data: &Tensor, axes: &[bool]) -> Result<Option<ReversePlan>, KernelError> {
    if axes.len() != data.rank() {
        return Err(KernelError::MaskLength { len: axes.len(), rank: data.rank() });
    }
    check_movable(OP, data.element_type())?;
    if data.is_empty() {
        return Ok(None);
    }
    Ok(ReversePlan::new(data.shape(), axes))
}

/// The data shape with adjacent axes of equal flag merged: reversing two
/// neighbouring axes of a row-major block is the same as reversing the
/// block flattened, and leaving both alone is a plain copy. So the plan has
/// at most one more axis than there are changes of flag.
#[derive(Debug)]
struct ReversePlan {
    dims: Vec<usize>,
    flags: Vec<bool>,
}

impl ReversePlan {
    /// `None` when nothing moves. `shape` must have no zero dimension.
    fn new(shape: &[usize], axes: &[bool]) -> Option<ReversePlan> {
        let mut dims: Vec<usize> = Vec::with_capacity(shape.len());
        let mut flags: Vec<bool> = Vec::with_capacity(shape.len());
        for (&d, &f) in shape.iter().zip(axes) {
            // Reversing an axis of one element moves nothing, and such an
            // axis must not stop its neighbours from merging.
            if d == 1 {
                continue;
            }
            match (dims.last_mut(), flags.last()) {
                (Some(last), Some(&lf)) if lf == f => *last *= d,
                _ => {
                    dims.push(d);
                    flags.push(f);
                }
            }
        }
        flags.iter().any(|&f| f).then_some(ReversePlan { dims, flags })
    }
}

impl RunPlan for ReversePlan {
    fn unit_len(&self) -> usize {
        self.dims.last().copied().unwrap_or(1).max(1)
    }

    fn units(&self) -> usize {
        self.dims.split_last().map_or(0, |(_, outer)| product(outer))
    }

    /// One unit per output row (the last collapsed axis).
    fn for_each_run<F: FnMut(Run) -> Option<()>>(&self, rows: Range<usize>, emit: F) -> Option<()> {
        let (&row, outer_dims) = self.dims.split_last()?;
        let (&row_reversed, outer_flags) = self.flags.split_last()?;
        // Element strides of the outer axes in the (collapsed) input.
        let mut strides = vec![0usize; outer_dims.len()];
        let mut stride = row;
        for (s, &d) in strides.iter_mut().zip(outer_dims).rev() {
            *s = stride;
            stride *= d;
        }
        // The odometer over the outer axes starts at the first row asked
        // for; `src` is that row's source offset, where a reversed axis at
        // index i reads its item d - 1 - i.
        let mut index = vec![0usize; outer_dims.len()];
        let mut rest = rows.start;
        for (i, &d) in index.iter_mut().zip(outer_dims).rev() {
            *i = rest % d;
            rest /= d;
        }
        let mut src: usize = index
            .iter()
            .zip(outer_dims)
            .zip(outer_flags)
            .zip(&strides)
            .map(|(((&i, &d), &f), &s)| if f { (d - 1 - i) * s } else { i * s })
            .sum();
        // A reversed row goes out as a one-row rows run: the innermost
        // outer axis then has the other flag (equal neighbours were merged),
        // so the rows along it follow one another in the input and join
        // into one run. Forward rows never join: the row before a forward
        // row in the output is the one after it in the input.
        let mut out = Joiner::new(emit);
        for _ in rows {
            if row_reversed && !outer_dims.is_empty() {
                out.push(Run::rows(src, row, row, 1))?;
            } else if row_reversed {
                out.push(Run { src, len: row, reversed: true, rows: None })?;
            } else {
                out.push(Run { src, len: row, reversed: false, rows: None })?;
            }
            for (((i, &d), &f), &s) in index.iter_mut().zip(outer_dims).zip(outer_flags).zip(&strides).rev() {
                *i += 1;
                if *i < d {
                    if f {
                        src -= s;
                    } else {
                        src += s;
                    }
                    break;
                }
                *i = 0;
                let span = (d - 1) * s;
                if f {
                    src += span;
                } else {
                    src -= span;
                }
            }
        }
        out.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(shape: &[usize], axes: &[bool]) -> Option<Vec<Run>> {
        let plan = ReversePlan::new(shape, axes)?;
        let mut all = Vec::new();
        plan.for_each_run(0..plan.units(), |r| {
            all.push(r);
            Some(())
        });
        Some(all)
    }

    #[test]
    fn leading_axis_becomes_one_block_per_item() {
        let r = runs(&[2, 3, 4, 5], &[true, false, false, false]);
        assert_eq!(
            r,
            Some(vec![
                Run { src: 60, len: 60, reversed: false, rows: None },
                Run { src: 0, len: 60, reversed: false, rows: None }
            ])
        );
    }

    #[test]
    fn adjacent_reversed_axes_merge_into_one_run() {
        // [3, 4, 5] reversing the last two axes is three reversed rows of
        // 20, which follow one another and so form one rows run.
        let r = runs(&[3, 4, 5], &[false, true, true]);
        assert_eq!(r, Some(vec![Run::rows(0, 20, 20, 3)]));
    }

    #[test]
    fn size_one_axes_neither_move_nor_split() {
        assert_eq!(runs(&[1, 4, 1], &[true, false, true]), None);
        let r = runs(&[2, 1, 3], &[true, true, true]);
        assert_eq!(r, Some(vec![Run { src: 0, len: 6, reversed: true, rows: None }]));
    }
}
