//! Slice: every `step`-th element between `start` and `stop` along some
//! axes, with Python's rules for negative and out-of-range bounds.

use ovir_shape::ops::slice::{slice_axes, slice_lengths, slice_range, slice_steps, SliceRange};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::Tensor;
use smallvec::SmallVec;

use super::checks::input_shape_error;
use super::integers::{read_ints, SmallInts, Wide};
use super::moves::{Step, View};
use super::{ExecOptions, KernelError};

const OP: &str = "Slice";

/// Per-axis values, on the stack up to 8 axes.
type PerAxis<T> = SmallVec<[T; 8]>;

/// The values of a 1-D integer input of Slice.
fn read(op: &'static str, input: &'static str, t: &Tensor) -> Result<SmallInts, KernelError> {
    let found = t.element_type();
    if !found.is_integral() {
        return Err(ShapeErrorKind::IntegerInput { op, input, found }.into());
    }
    if t.rank() != 1 {
        return Err(input_shape_error(op, input, "a 1-D tensor", t));
    }
    read_ints(t, Wide::Saturate).ok_or(ShapeErrorKind::UnreadableValues { element_type: found }.into())
}

/// What one Slice (or SliceScatter, named `op` in errors) takes from each
/// data axis (every element, in order, for the axes it does not list).
pub(crate) fn ranges(
    op: &'static str,
    shape: &[usize],
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
) -> Result<PerAxis<SliceRange>, KernelError> {
    let start = read(op, "start", start)?;
    let stop = read(op, "stop", stop)?;
    let step = read(op, "step", step)?;
    let axes = axes.map(|a| read(op, "axes", a)).transpose()?;
    slice_lengths(op, start.len(), stop.len(), step.len(), axes.as_ref().map(SmallVec::len))?;
    slice_steps(op, &step)?;
    let listed = slice_axes(op, shape.len(), start.len(), axes.as_deref())?;
    let mut out: PerAxis<SliceRange> =
        shape.iter().map(|&d| SliceRange { first: 0, step: 1, len: d as u64 }).collect();
    for (((&axis, &b), &e), &s) in listed.iter().zip(&start).zip(&stop).zip(&step) {
        let dim = shape
            .get(axis)
            .copied()
            .ok_or(KernelError::Internal { op, what: "a sliced axis lies outside the data" })?;
        let range = slice_range(dim as u64, b, e, s)
            .ok_or(KernelError::Internal { op, what: "a step of 0 reached the copy" })?;
        if let Some(r) = out.get_mut(axis) {
            *r = range;
        }
    }
    Ok(out)
}

/// The output shape for these ranges.
pub(crate) fn shape_of(ranges: &[SliceRange]) -> Result<Vec<usize>, KernelError> {
    ranges
        .iter()
        .map(|r| {
            usize::try_from(r.len).map_err(|_| KernelError::Internal {
                op: OP,
                what: "an output dimension does not fit a usize",
            })
        })
        .collect()
}

/// The axes to reverse when the slice takes every axis whole, either in
/// order or back to front (as PyTorch's flip is written); `None` otherwise.
pub(crate) fn reversal(dims: &[usize], ranges: &[SliceRange]) -> Option<Vec<bool>> {
    dims.iter()
        .zip(ranges)
        .map(|(&d, r)| {
            let d = d as u64;
            if r.len != d {
                None
            } else if r.step == 1 || d <= 1 {
                Some(false)
            } else if r.step == -1 && r.first + 1 == d {
                Some(true)
            } else {
                None
            }
        })
        .collect()
}

/// What a Slice does to data of one shape, worked out once: a plan whose
/// bounds are constant and whose data shape is static does this when the
/// model compiles, so that running it reads no bounds.
#[derive(Clone, Debug)]
pub(crate) enum Fixed {
    /// Every axis is taken whole, in order or back to front (PyTorch's
    /// `flip` is converted so): a Reverse with these flags.
    Reverse(Vec<bool>),
    /// The output is one contiguous stretch of the data: the elements from
    /// `first` on, as many as `shape` holds, taken as a view of whole-byte
    /// data without a copy (a slice along the outermost axis).
    Part { data_shape: Vec<usize>, first: usize, shape: Vec<usize>, copy: Box<SliceCopy> },
    /// Any other slice.
    Copy(Box<SliceCopy>),
}

/// The first element of the output when it is one contiguous stretch of
/// the data: every axis before some axis `k` takes one index, axis `k`
/// steps by 1, and every axis after it is taken whole and in order.
pub(crate) fn contiguous(dims: &[usize], ranges: &[SliceRange]) -> Option<usize> {
    let whole = |r: &SliceRange, d: usize| r.first == 0 && r.len == d as u64 && (r.step == 1 || d <= 1);
    let k = ranges.iter().zip(dims).rposition(|(r, &d)| !whole(r, d)).unwrap_or(0);
    let (before, at) = (ranges.get(..k)?, ranges.get(k)?);
    if before.iter().any(|r| r.len != 1) || !(at.step == 1 || at.len <= 1) {
        return None;
    }
    let mut first = 0u64;
    let mut stride = 1u64;
    for (r, &d) in ranges.iter().zip(dims).rev() {
        first = first.checked_add(r.first.checked_mul(stride)?)?;
        stride = stride.checked_mul(d as u64)?;
    }
    usize::try_from(first).ok()
}

/// [`Fixed`] for data of shape `shape` and these bounds.
pub(crate) fn fixed(
    shape: &[usize],
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
) -> Result<Fixed, KernelError> {
    let ranges = ranges(OP, shape, start, stop, step, axes)?;
    if let Some(flags) = reversal(shape, &ranges) {
        return Ok(Fixed::Reverse(flags));
    }
    let copy = Box::new(slice_copy(shape, &ranges)?);
    Ok(match contiguous(shape, &ranges) {
        Some(first) if !copy.shape().contains(&0) => {
            Fixed::Part { data_shape: shape.to_vec(), first, shape: copy.shape().to_vec(), copy }
        }
        _ => Fixed::Copy(copy),
    })
}

/// The output shape of [`slice()`] for these inputs.
pub fn slice_output_shape(
    data: &Tensor,
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
) -> Result<Vec<usize>, KernelError> {
    shape_of(&ranges(OP, data.shape(), start, stop, step, axes)?)
}

/// Slice-8: along each axis in `axes` (by default the first ones, one per
/// value of `start`), the elements from `start` up to, not including,
/// `stop`, every `step`-th. Negative bounds count from the end, and
/// bounds outside the axis are clamped as in Python slicing, for negative
/// steps too; a step of 0 is an error.
///
/// ```
/// use ovir_exec::kernels::slice;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6])?;
/// let v = |x: i64| Tensor::from_vec(&[1], vec![x]);
/// // data[:, ::-2]
/// let out = slice(&data, &v(-1)?, &v(i64::MIN)?, &v(-2)?, Some(&v(1)?))?;
/// assert_eq!(out.shape(), &[2, 2]);
/// assert_eq!(out.to_vec::<i32>()?, vec![3, 1, 6, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn slice(
    data: &Tensor,
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
) -> Result<Tensor, KernelError> {
    let ranges = ranges(OP, data.shape(), start, stop, step, axes)?;
    if let Some(flags) = reversal(data.shape(), &ranges) {
        return super::reverse(data, &flags);
    }
    let copy = slice_copy(data.shape(), &ranges)?;
    let mut out = Tensor::zeros(data.element_type(), copy.shape())?;
    copy.run(data, &mut out, &ExecOptions::single_thread())?;
    Ok(out)
}

/// [`slice()`] into an output of the right type and shape; a reversal of
/// whole axes is split across threads as `options` allow.
pub fn slice_into(
    data: &Tensor,
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
    out: &mut Tensor,
    options: &ExecOptions,
) -> Result<(), KernelError> {
    let ranges = ranges(OP, data.shape(), start, stop, step, axes)?;
    super::checks::check_output(OP, data.element_type(), &shape_of(&ranges)?, out)?;
    if let Some(flags) = reversal(data.shape(), &ranges) {
        return super::reverse_into(data, &flags, out, options, &mut super::ReverseScratch::new());
    }
    slice_copy(data.shape(), &ranges)?.run(data, out, options)
}

/// What a Slice that is not a pure reversal copies from data of one shape:
/// every axis a strided walk of the data.
pub(crate) type SliceCopy = View;

/// The copy that takes `ranges` (one per axis) from data of shape `dims`.
fn slice_copy(dims: &[usize], ranges: &[SliceRange]) -> Result<SliceCopy, KernelError> {
    strided_copy(OP, dims, ranges, shape_of(ranges)?)
}

/// The copy of `op` that takes `ranges` (one per axis) from data of shape
/// `dims` into an output of shape `shape`, which holds as many elements
/// in the same order (StridedSlice's adds and removes axes of size 1).
pub(crate) fn strided_copy(
    op: &'static str,
    dims: &[usize],
    ranges: &[SliceRange],
    shape: Vec<usize>,
) -> Result<View, KernelError> {
    let internal = || KernelError::Internal { op, what: "the copy left the data or the output" };
    let mut base = 0isize;
    let mut stride = 1isize;
    let mut axes: PerAxis<(usize, Step)> = PerAxis::new();
    for (r, &d) in ranges.iter().zip(dims).rev() {
        let first = isize::try_from(r.first).map_err(|_| internal())?;
        let step = isize::try_from(r.step).map_err(|_| internal())?;
        let len = usize::try_from(r.len).map_err(|_| internal())?;
        base = first.checked_mul(stride).and_then(|o| base.checked_add(o)).ok_or_else(internal)?;
        axes.push((len, Step::Stride(step.checked_mul(stride).ok_or_else(internal)?)));
        stride = isize::try_from(d).ok().and_then(|d| stride.checked_mul(d)).ok_or_else(internal)?;
    }
    axes.reverse();
    View::new(op, dims, shape, base, &axes)
}
