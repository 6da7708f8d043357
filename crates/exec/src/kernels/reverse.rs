//! Reverse-1: reverse a tensor along a set of axes.

use ovir_tensor::Tensor;
use smallvec::SmallVec;

use std::ops::Range;

use super::checks::{check_movable, check_output};
use super::packed::{KeepsUnpacked, Unpacked};
use super::run_plan::{copy_all, play, play_as, product, Joiner, Run, RunPlan};
use super::{packed, ExecOptions, KernelError};

const OP: &str = "Reverse";

/// Ranks up to this many axes keep their per-axis bookkeeping on the
/// stack, so that a call allocates nothing; higher ranks (rare) spill to
/// the heap.
const INLINE_RANK: usize = 8;

/// Per-axis values, on the stack up to [`INLINE_RANK`] axes.
type PerAxis<T> = SmallVec<[T; INLINE_RANK]>;

/// What [`reverse_into`] keeps between calls: packed sub-byte data
/// unpacked to a byte per element, and moved. Other types need none of
/// it, and an empty one allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct ReverseScratch {
    unpacked: Option<Box<Unpacked>>,
}

impl ReverseScratch {
    /// An empty scratch; it allocates on first use and then keeps its
    /// memory.
    pub const fn new() -> ReverseScratch {
        ReverseScratch { unpacked: None }
    }
}

impl KeepsUnpacked for ReverseScratch {
    fn unpacked(&mut self) -> &mut Option<Box<Unpacked>> {
        &mut self.unpacked
    }
}

/// Reverses `data` along every axis whose flag in `axes` is `true`
/// (one flag per data axis, as
/// [`reversed_axes`](ovir_shape::reversed_axes) reads them from Reverse's
/// second input).
///
/// Works on every element type OpenVINO defines: whole-byte types, the
/// packed sub-byte types and strings; elements are moved bit for bit, never
/// converted. When nothing needs to move (no flag set, or
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
    let options = ExecOptions::single_thread();
    if packed::applies(data.element_type()) {
        return packed::run(OP, data, |codes| reverse(codes, axes));
    }
    let Some(plan) = prepare(data, axes)? else {
        return Ok(data.clone());
    };
    let mut out = Tensor::zeros(data.element_type(), data.shape())?;
    play_plan(&plan, data, &mut out, &options)?;
    Ok(out)
}

/// [`reverse`] writing into `out`, which must already have `data`'s element
/// type and shape (its buffer is reused when `out` holds it alone). A
/// large output is split across threads as `options` allow. Packed
/// sub-byte data is moved unpacked, one element per byte, and `scratch`
/// keeps those bytes between calls, so that running it again on data of
/// the same shape allocates nothing; other types need no scratch. The
/// result does not depend on what the scratch held before.
///
/// ```
/// use ovir_exec::kernels::{reverse_into, ExecOptions, ReverseScratch};
/// use ovir_tensor::Tensor;
///
/// let data = Tensor::from_vec(&[2, 3], vec![0u8, 1, 2, 3, 4, 5])?;
/// let mut out = Tensor::zeros(data.element_type(), data.shape())?;
/// reverse_into(&data, &[false, true], &mut out, &ExecOptions::with_threads(2), &mut ReverseScratch::new())?;
/// assert_eq!(out.to_vec::<u8>()?, vec![2, 1, 0, 5, 4, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reverse_into(
    data: &Tensor,
    axes: &[bool],
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut ReverseScratch,
) -> Result<(), KernelError> {
    if packed::applies(data.element_type()) {
        return packed::run_into(OP, data, out, scratch, |codes, moved, scratch| {
            reverse_into(codes, axes, moved, options, scratch)
        });
    }
    check_output(OP, data.element_type(), data.shape(), out)?;
    match prepare(data, axes)? {
        Some(plan) => play_plan(&plan, data, out, options),
        None => copy_all(OP, data, out, options),
    }
}

/// Plays `plan` from `data` into `out`. Elements after the last reversed
/// axis move together: when they make 2, 4, 8 or 16 bytes (the pixels of
/// an image flipped left to right, say), they are played as one element
/// of that width, and each row becomes a plain reversed run.
fn play_plan(
    plan: &ReversePlan,
    data: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
) -> Result<(), KernelError> {
    match data.element_type().byte_width().and_then(|width| plan.widened(width)) {
        Some((wide, width)) => play_as(OP, &wide, data, out, options, Some(width)),
        None => play(OP, plan, data, out, options),
    }
}

/// Validates the inputs and builds the plan; `None` when the output equals
/// the input.
fn prepare(data: &Tensor, axes: &[bool]) -> Result<Option<ReversePlan>, KernelError> {
    if axes.len() != data.rank() {
        return Err(KernelError::FlagCount { found: axes.len(), rank: data.rank() });
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
    dims: PerAxis<usize>,
    flags: PerAxis<bool>,
}

impl ReversePlan {
    /// `None` when nothing moves. `shape` must have no zero dimension.
    fn new(shape: &[usize], axes: &[bool]) -> Option<ReversePlan> {
        let mut dims: PerAxis<usize> = PerAxis::new();
        let mut flags: PerAxis<bool> = PerAxis::new();
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

    /// The plan with its last axis, which is not reversed, taken into the
    /// element, for elements of `width` bytes, and the new element's
    /// width; `None` when the last axis is reversed, or the elements it
    /// holds do not make 2, 4, 8 or 16 bytes. (A plan reverses some axis,
    /// and neighbours of one flag are merged, so the axis before a forward
    /// last one is reversed: the widened plan reverses it still.)
    fn widened(&self, width: usize) -> Option<(ReversePlan, usize)> {
        let (&row, dims) = self.dims.split_last()?;
        let (&reversed, flags) = self.flags.split_last()?;
        let wide = row.checked_mul(width)?;
        if reversed || !matches!(wide, 2 | 4 | 8 | 16) {
            return None;
        }
        Some((ReversePlan { dims: dims.into(), flags: flags.into() }, wide))
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
    fn for_each_run<'s, F: FnMut(Run<'s>) -> Option<()>>(
        &'s self,
        rows: Range<usize>,
        emit: F,
    ) -> Option<()> {
        let (&row, outer_dims) = self.dims.split_last()?;
        let (&row_reversed, outer_flags) = self.flags.split_last()?;
        // Element strides of the outer axes in the (collapsed) input.
        let mut strides: PerAxis<usize> = smallvec::smallvec![0; outer_dims.len()];
        let mut stride = row;
        for (s, &d) in strides.iter_mut().zip(outer_dims).rev() {
            *s = stride;
            stride *= d;
        }
        // The odometer over the outer axes starts at the first row asked
        // for; `src` is that row's source offset, where a reversed axis at
        // index i reads its item d - 1 - i.
        let mut index: PerAxis<usize> = smallvec::smallvec![0; outer_dims.len()];
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
        // The innermost outer axis has the other flag than the row (equal
        // neighbours were merged). So reversed rows along it follow one
        // another in the input, and forward rows along it precede one
        // another: either way the rows up to the end of that axis make one
        // run, so a tensor of many short rows costs one run per outer row,
        // not one per row.
        // The axis outside the innermost outer one, when there is one: it
        // runs forward when the innermost outer axis is reversed.
        let next_out = outer_dims.len().checked_sub(2);
        let mut out = Joiner::new(emit);
        let mut left = rows.len();
        while left > 0 {
            // Rows listed at once, all along the innermost outer axis, or
            // whole blocks of them along the next axis out as well.
            let mut step = 1;
            let mut blocks = 1;
            match (row_reversed, index.last(), outer_dims.last(), outer_flags.last()) {
                (true, Some(&i), Some(&d), _) => {
                    step = (d - i).min(left);
                    out.push(Run::rows(src, row, row, step))?;
                }
                (false, Some(&i), Some(&d), Some(true)) => {
                    // From the start of a block, the whole blocks left
                    // along a forward axis outside follow one another in
                    // the input and make one run.
                    let forward_out = next_out.filter(|&a| outer_flags.get(a) == Some(&false));
                    if let (0, Some(a)) = (i, forward_out) {
                        blocks = outer_dims.get(a)?.checked_sub(*index.get(a)?)?.min(left / d).max(1);
                    }
                    step = if blocks > 1 { blocks * d } else { (d - i).min(left) };
                    // `src` is the first row written, the highest in its
                    // block; the others lie below it, one row apart.
                    let low = src.checked_sub((step / blocks - 1) * row)?;
                    out.push(Run::descending_blocks(low, row, step / blocks, blocks))?;
                }
                (true, ..) => out.push(Run { src, len: row, reversed: true, rows: None })?,
                (false, ..) => out.push(Run { src, len: row, reversed: false, rows: None })?,
            }
            left -= step;
            // Whole blocks also move the next axis out to the last block
            // listed.
            if let (true, Some(a)) = (blocks > 1, next_out) {
                *index.get_mut(a)? += blocks - 1;
                src += (blocks - 1) * strides.get(a)?;
            }
            // All but the last of the rows listed (of the last block) move
            // only the innermost index, which stays inside its axis; the
            // odometer below then takes the last step.
            let step = step / blocks;
            if let (Some(i), Some(&f), Some(&s)) = (index.last_mut(), outer_flags.last(), strides.last()) {
                let more = step - 1;
                *i += more;
                if f {
                    src -= more * s;
                } else {
                    src += more * s;
                }
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

    fn runs(shape: &[usize], axes: &[bool]) -> Option<Vec<Run<'static>>> {
        let plan = ReversePlan::new(shape, axes)?;
        let mut all = Vec::new();
        plan.for_each_run(0..plan.units(), |r| {
            // Reverse only ever gives rows the same head, which borrows
            // nothing from the plan.
            let rows = match r.rows {
                Some(super::super::run_plan::Rows {
                    row,
                    heads: super::super::run_plan::Heads::Same(n),
                    block,
                }) => Some(super::super::run_plan::Rows {
                    row,
                    heads: super::super::run_plan::Heads::Same(n),
                    block,
                }),
                Some(_) => panic!("rows with a head per row in a Reverse plan"),
                None => None,
            };
            all.push(Run { src: r.src, len: r.len, reversed: r.reversed, rows });
            Some(())
        });
        Some(all)
    }

    #[test]
    fn leading_axis_becomes_one_block_per_item() {
        let r = runs(&[2, 3, 4, 5], &[true, false, false, false]);
        assert_eq!(r, Some(vec![Run::descending_rows(0, 60, 2)]));
    }

    #[test]
    fn middle_axis_gives_one_run_of_descending_blocks() {
        // [2, 3, 4] reversing the middle axis: for each of the 2 outer
        // items, its 3 rows of 4 taken last to first; the two blocks
        // follow one another and make one run.
        let r = runs(&[2, 3, 4], &[false, true, false]);
        assert_eq!(r, Some(vec![Run::descending_blocks(0, 4, 3, 2)]));
        // Both outer axes reversed merge, so all six rows make one block.
        let r = runs(&[2, 3, 4], &[true, true, false]);
        assert_eq!(r, Some(vec![Run::descending_rows(0, 4, 6)]));
        // Reversed blocks inside a reversed outer axis: a run of blocks
        // per outer item, the last item's first.
        let r = runs(&[2, 2, 3, 4], &[true, false, true, false]);
        assert_eq!(r, Some(vec![Run::descending_blocks(24, 4, 3, 2), Run::descending_blocks(0, 4, 3, 2)]));
    }

    #[test]
    fn descending_runs_start_at_any_row() {
        let plan = ReversePlan::new(&[2, 5, 3], &[false, true, false]);
        let Some(plan) = plan else { panic!("nothing to reverse") };
        let mut whole = Vec::new();
        plan.for_each_run(0..plan.units(), |r| {
            whole.push(r);
            Some(())
        });
        // From output row 3 on, the first item has two rows left: the
        // two lowest in the input.
        let mut part = Vec::new();
        plan.for_each_run(3..plan.units(), |r| {
            part.push(r);
            Some(())
        });
        assert_eq!(whole, vec![Run::descending_blocks(0, 3, 5, 2)]);
        // The cut block is a block of its own.
        assert_eq!(part, vec![Run::descending_rows(0, 3, 2), Run::descending_rows(15, 3, 5)]);
        // From a block's start to inside a later block: the whole blocks,
        // then the first rows of the cut one, which lie at its top.
        let plan = ReversePlan::new(&[4, 3, 2], &[false, true, false]);
        let Some(plan) = plan else { panic!("nothing to reverse") };
        let mut cut = Vec::new();
        plan.for_each_run(3..11, |r| {
            cut.push(r);
            Some(())
        });
        assert_eq!(cut, vec![Run::descending_blocks(6, 2, 3, 2), Run::descending_rows(20, 2, 2)]);
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
