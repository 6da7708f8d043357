//! Slice: every `step`-th element between `start` and `stop` along some
//! axes, with Python's rules for negative and out-of-range bounds.

use ovir_shape::rules::{saturated_ints, slice_axes, slice_lengths, slice_range, slice_steps, SliceRange};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{PartialShape, Tensor};

use super::blocks::{Source, Target};
use super::{ExecOptions, KernelError};

const OP: &str = "Slice";

/// The values of a 1-D integer input of Slice.
fn read(input: &'static str, t: &Tensor) -> Result<Vec<i64>, KernelError> {
    let found = t.element_type();
    if !found.is_integral() {
        return Err(ShapeErrorKind::IntegerInput { op: OP, input, found }.into());
    }
    if t.rank() != 1 {
        return Err(ShapeErrorKind::InputShape {
            op: OP,
            input,
            expected: "a 1-D tensor",
            shape: PartialShape::from_static(t.shape()),
        }
        .into());
    }
    saturated_ints(t).ok_or(ShapeErrorKind::UnreadableValues { element_type: found }.into())
}

/// What one Slice takes from each data axis (every element, in order, for
/// the axes it does not list).
fn ranges(
    shape: &[usize],
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
) -> Result<Vec<SliceRange>, KernelError> {
    let start = read("start", start)?;
    let stop = read("stop", stop)?;
    let step = read("step", step)?;
    let axes = axes.map(|a| read("axes", a)).transpose()?;
    slice_lengths(start.len(), stop.len(), step.len(), axes.as_ref().map(Vec::len))?;
    slice_steps(&step)?;
    let listed = slice_axes(shape.len(), start.len(), axes.as_deref())?;
    let mut out: Vec<SliceRange> =
        shape.iter().map(|&d| SliceRange { first: 0, step: 1, len: d as u64 }).collect();
    for (((&axis, &b), &e), &s) in listed.iter().zip(&start).zip(&stop).zip(&step) {
        let dim = shape.get(axis).copied().ok_or(KernelError::Internal { op: OP })?;
        let range = slice_range(dim as u64, b, e, s).ok_or(KernelError::Internal { op: OP })?;
        if let Some(r) = out.get_mut(axis) {
            *r = range;
        }
    }
    Ok(out)
}

/// The output shape for these ranges.
fn shape_of(ranges: &[SliceRange]) -> Result<Vec<usize>, KernelError> {
    ranges.iter().map(|r| usize::try_from(r.len).map_err(|_| KernelError::Internal { op: OP })).collect()
}

/// The axes to reverse when the slice takes every axis whole, either in
/// order or back to front (as PyTorch's flip is written); `None` otherwise.
fn reversal(dims: &[usize], ranges: &[SliceRange]) -> Option<Vec<bool>> {
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

/// For data of this static shape, the axes to reverse when the slice is a
/// pure reversal (every axis taken whole, in order or back to front, as
/// PyTorch's `flip` is converted); `None` when it is any other slice. A
/// plan uses this to run such a Slice as a Reverse, with no work per
/// inference beyond the copy.
pub fn slice_as_reverse(
    shape: &[usize],
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
) -> Result<Option<Vec<bool>>, KernelError> {
    Ok(reversal(shape, &ranges(shape, start, stop, step, axes)?))
}

/// The output shape of [`slice`] for these inputs.
pub fn slice_output_shape(
    data: &Tensor,
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
) -> Result<Vec<usize>, KernelError> {
    shape_of(&ranges(data.shape(), start, stop, step, axes)?)
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
    slice_with(data, start, stop, step, axes, &ExecOptions::single_thread())
}

/// [`slice`] that may split a reversal of whole axes across threads as
/// `options` allow; the result is the same.
pub fn slice_with(
    data: &Tensor,
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
    options: &ExecOptions,
) -> Result<Tensor, KernelError> {
    let ranges = ranges(data.shape(), start, stop, step, axes)?;
    if let Some(flags) = reversal(data.shape(), &ranges) {
        return super::reverse_with(data, &flags, options);
    }
    let mut out = Tensor::zeros(data.element_type(), &shape_of(&ranges)?)?;
    copy_ranges(data, &ranges, &mut out)?;
    Ok(out)
}

/// [`slice`] into an output of the right type and shape.
pub fn slice_into(
    data: &Tensor,
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
    out: &mut Tensor,
) -> Result<(), KernelError> {
    slice_into_with(data, start, stop, step, axes, out, &ExecOptions::single_thread())
}

/// [`slice_into`] that may split a reversal of whole axes across threads
/// as `options` allow.
pub fn slice_into_with(
    data: &Tensor,
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
    out: &mut Tensor,
    options: &ExecOptions,
) -> Result<(), KernelError> {
    let ranges = ranges(data.shape(), start, stop, step, axes)?;
    super::check_output(OP, data.element_type(), &shape_of(&ranges)?, out)?;
    if let Some(flags) = reversal(data.shape(), &ranges) {
        return super::reverse_into_with(data, &flags, out, options);
    }
    copy_ranges(data, &ranges, out)
}

/// One axis walked by the copy loop.
struct Walk {
    first: i128,
    step: i128,
    len: u64,
    /// Elements between neighbours along the axis, in the input.
    stride: i128,
}

/// Copies the selected elements in output order. Trailing axes taken
/// whole and in order, and the axis before them when it steps by 1, form
/// one contiguous block per copy; the axes before that are walked like an
/// odometer.
fn copy_ranges(data: &Tensor, ranges: &[SliceRange], out: &mut Tensor) -> Result<(), KernelError> {
    let internal = || KernelError::Internal { op: OP };
    if ranges.iter().any(|r| r.len == 0) {
        return Ok(());
    }
    let dims = data.shape();
    let mut strides = vec![1i128; dims.len()];
    let mut acc = 1i128;
    for (s, &d) in strides.iter_mut().zip(dims).rev() {
        *s = acc;
        acc *= d as i128;
    }
    let mut walked = ranges.len();
    let mut block = 1usize;
    for (r, &d) in ranges.iter().zip(dims).rev() {
        if r.step == 1 && r.first == 0 && r.len == d as u64 {
            block *= d;
            walked -= 1;
        } else {
            break;
        }
    }
    // The offset of the elements not walked: the first element of a
    // forward axis that extends the block.
    let mut base = 0i128;
    if let Some((r, &stride)) = walked.checked_sub(1).and_then(|k| Some((ranges.get(k)?, strides.get(k)?))) {
        if r.step == 1 {
            block *= usize::try_from(r.len).map_err(|_| internal())?;
            base = i128::from(r.first) * stride;
            walked -= 1;
        }
    }
    let walks: Vec<Walk> = ranges
        .iter()
        .zip(&strides)
        .take(walked)
        .map(|(r, &stride)| Walk { first: i128::from(r.first), step: i128::from(r.step), len: r.len, stride })
        .collect();
    let src = Source::of(OP, data)?;
    let mut dst = Target::of(OP, out)?;
    let mut index = vec![0u64; walks.len()];
    let mut at = 0usize;
    loop {
        let offset = walks
            .iter()
            .zip(&index)
            .fold(base, |o, (w, &i)| o + (w.first + i128::from(i) * w.step) * w.stride);
        let from = usize::try_from(offset).map_err(|_| internal())?;
        dst.copy(at, &src, from, block).ok_or_else(internal)?;
        at += block;
        // The next output position: the last walked axis moves fastest.
        let mut carried = true;
        for (i, w) in index.iter_mut().zip(&walks).rev() {
            *i += 1;
            if *i < w.len {
                carried = false;
                break;
            }
            *i = 0;
        }
        if carried {
            return Ok(());
        }
    }
}
