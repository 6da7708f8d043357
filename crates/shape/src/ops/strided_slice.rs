//! StridedSlice-1: NumPy-style basic indexing, with masks for `:`, `...`,
//! `np.newaxis` and integer indices.
//!
//! Each of the `n` values of begin, end and strides is a slice index, and
//! the masks say what index `i` is: an ellipsis (the data axes no other
//! index takes, whole), a new axis of size 1, an integer index that
//! removes its axis (`shrink_axis_mask`), or a slice `begin:end:stride`
//! of the next data axis, whose begin or end a mask may leave open. Data
//! axes after the last index are taken whole.
//!
//! Where the witnesses disagree:
//! - The spec's prose says `begin == end` takes one element; the
//!   reference, the CPU plugin and NumPy take none, and so does ovir.
//! - With a negative stride, a begin below `-dim` is clamped to the first
//!   element, which is then taken: `x[-100:-100:-1]` of 5 elements is
//!   `[x[0]]` in OpenVINO's shape inference, its reference and its CPU
//!   plugin, where NumPy takes nothing. ovir follows OpenVINO.
//! - An index that is both an ellipsis and a new axis is an ellipsis in
//!   OpenVINO's shape inference and when its reference counts axes, but a
//!   new axis in the reference's main loop; ovir takes the ellipsis
//!   throughout. Likewise an ellipsis wins over a shrink.
//! - OpenVINO's shape inference drops a shrunk axis whatever its begin;
//!   the reference refuses a begin outside the axis when the model runs.
//!   ovir refuses it, at load time when begin and the dimension are known.
//! - OpenVINO counts every new-axis bit against the rank, even those past
//!   the last index; the reference counts only the indices, as ovir does.
//! - With an ellipsis, OpenVINO's shape inference does not count the
//!   slices and shrinks against the rank, and reads past the data's axes
//!   when they are too many (an ellipsis and three shrinks on a vector
//!   give a scalar); its reference refuses them, and so does ovir.
//! - OpenVINO checks the type of begin and end but not of strides, which
//!   the spec says are integers too; ovir requires integers for all three.

use ovir_ir::Layer;
use ovir_tensor::{Dim, PartialShape, Tensor};

use crate::dims::{dims_of, fact_with_dims, input_rank, integer_input, vector_len};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::ops::slice::SliceRange;
use crate::values::nth_integer;

/// Slices the data with begin, end and (optionally) strides inputs, as
/// the masks say; a mask holds one flag per slice index, and may be
/// shorter than the indices (the flags left out are unset) or empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StridedSlice {
    /// Index `i` starts at the first element (the last for a negative
    /// stride), whatever begin says.
    pub begin_mask: Vec<bool>,
    /// Index `i` runs to the end of its axis, whatever end says.
    pub end_mask: Vec<bool>,
    /// Index `i` inserts a new axis of size 1.
    pub new_axis_mask: Vec<bool>,
    /// Index `i` takes the single element at begin and removes the axis.
    pub shrink_axis_mask: Vec<bool>,
    /// Index `i` is the ellipsis: every data axis no other index takes.
    pub ellipsis_mask: Vec<bool>,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "StridedSlice",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (3, Some(4)),
    outputs: (1, Some(1)),
};

/// The mask attributes, in the order OpenVINO writes them.
const MASKS: [&str; 5] = ["begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"];

/// Reads a mask: comma-separated 0s and 1s, or nothing.
fn parse_mask(value: &str) -> Option<Vec<bool>> {
    if value.trim().is_empty() {
        return Some(Vec::new());
    }
    value
        .split(',')
        .map(|v| match v.trim().parse::<i64>().ok()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        })
        .collect()
}

/// A mask as OpenVINO writes it: `1, 0, 1`.
fn write_mask(mask: &[bool]) -> String {
    let flags: Vec<&str> = mask.iter().map(|&f| if f { "1" } else { "0" }).collect();
    flags.join(", ")
}

impl BuiltinOp for StridedSlice {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let mut masks: [Vec<bool>; 5] = Default::default();
        for (mask, name) in masks.iter_mut().zip(MASKS) {
            // An absent mask is empty, as OpenVINO's reader leaves it.
            let value = layer.attrs.value(name).unwrap_or("");
            match parse_mask(value) {
                Some(m) => *mask = m,
                None => problems.attr(name, ShapeErrorKind::InvalidMask { name, value: value.to_string() }),
            }
        }
        let [begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask] = masks;
        let op = StridedSlice { begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask };
        if problems.is_empty() {
            if let Err(kind) = op.check_masks() {
                problems.layer(kind);
            }
        }
        problems.or_ok(op)
    }

    fn write(&self) -> OpLayer {
        let mut layer = OpLayer::builtin(&SPEC, "opset1");
        for (name, mask) in MASKS.iter().zip(self.masks()) {
            layer = layer.attr(*name, write_mask(mask));
        }
        layer
    }

    fn examples() -> Vec<Self> {
        let m = |flags: &[u8]| flags.iter().map(|&f| f == 1).collect::<Vec<bool>>();
        vec![
            StridedSlice::default(),
            StridedSlice { begin_mask: m(&[1, 0]), end_mask: m(&[1, 0]), ..StridedSlice::default() },
            StridedSlice {
                begin_mask: m(&[0, 1, 0]),
                end_mask: m(&[0, 1, 0]),
                new_axis_mask: m(&[1, 0, 0]),
                shrink_axis_mask: m(&[0, 0, 1]),
                ellipsis_mask: m(&[0, 0, 0]),
            },
            StridedSlice {
                begin_mask: m(&[0, 0]),
                end_mask: m(&[0, 0]),
                new_axis_mask: Vec::new(),
                shrink_axis_mask: Vec::new(),
                ellipsis_mask: m(&[1, 0]),
            },
        ]
    }
}

/// What one slice index of a StridedSlice is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Index {
    /// Every data axis no other index takes.
    Ellipsis,
    /// A new axis of size 1.
    NewAxis,
    /// One element; the axis goes.
    Shrink,
    /// `begin:end:stride` of the next data axis.
    Slice,
}

impl StridedSlice {
    fn masks(&self) -> [&[bool]; 5] {
        [&self.begin_mask, &self.end_mask, &self.new_axis_mask, &self.shrink_axis_mask, &self.ellipsis_mask]
    }

    /// Checks what the masks alone decide: every mask is empty or as long
    /// as `begin_mask`, and at most one index is the ellipsis.
    pub fn check_masks(&self) -> Result<(), ShapeErrorKind> {
        let lengths = self.masks().map(<[bool]>::len);
        if lengths.iter().any(|&n| n != 0 && n != lengths[0]) {
            return Err(ShapeErrorKind::StridedSliceMaskLengths { lengths });
        }
        let ellipses = self.ellipsis_mask.iter().filter(|&&f| f).count();
        if ellipses > 1 {
            return Err(ShapeErrorKind::StridedSliceEllipses { count: ellipses });
        }
        Ok(())
    }

    fn flag(mask: &[bool], i: usize) -> bool {
        mask.get(i).copied().unwrap_or(false)
    }

    fn index(&self, i: usize) -> Index {
        if Self::flag(&self.ellipsis_mask, i) {
            Index::Ellipsis
        } else if Self::flag(&self.new_axis_mask, i) {
            Index::NewAxis
        } else if Self::flag(&self.shrink_axis_mask, i) {
            Index::Shrink
        } else {
            Index::Slice
        }
    }

    /// The number of data axes the ellipsis (or the implicit one after the
    /// last index) takes, for data of rank `rank` and `count` slice
    /// indices: what the slices and shrinks leave, which must not be less
    /// than 0.
    fn ellipsis_axes(&self, rank: usize, count: usize) -> Result<usize, ShapeErrorKind> {
        let real = self.count(count, |i| matches!(i, Index::Shrink | Index::Slice));
        rank.checked_sub(real).ok_or(ShapeErrorKind::StridedSliceTooManyAxes { count: real, rank })
    }

    /// How many of the first `count` indices are of a kind: those past
    /// every mask are slices, so a long begin costs no more than its
    /// masks.
    fn count(&self, count: usize, kind: impl Fn(Index) -> bool) -> usize {
        let flagged = self.masks().iter().map(|m| m.len()).max().unwrap_or(0).min(count);
        let past = if kind(Index::Slice) { count - flagged } else { 0 };
        (0..flagged).filter(|&i| kind(self.index(i))).count() + past
    }

    /// The rank of the output for data of rank `rank` and `count` slice
    /// indices: the data's, plus one per new axis, less one per shrunk
    /// axis.
    ///
    /// ```
    /// use ovir_shape::ops::StridedSlice;
    /// // x[np.newaxis, 1] of a matrix.
    /// let op = StridedSlice { new_axis_mask: vec![true, false], shrink_axis_mask: vec![false, true], ..StridedSlice::default() };
    /// assert_eq!(op.output_rank(2, 2), Ok(2));
    /// assert!(op.output_rank(0, 2).is_err());
    /// ```
    pub fn output_rank(&self, rank: usize, count: usize) -> Result<usize, ShapeErrorKind> {
        self.ellipsis_axes(rank, count)?;
        let new = self.count(count, |i| i == Index::NewAxis);
        let shrunk = self.count(count, |i| i == Index::Shrink);
        Ok(rank + new - shrunk)
    }

    /// What a StridedSlice takes of data of shape `shape`: for each data
    /// axis, the elements it takes (`ranges`, as long as the rank), and
    /// the output shape (`out`, of [`StridedSlice::output_rank`]
    /// dimensions). Begin, end and strides are 1-D integer tensors of one
    /// length (no strides: all 1); begin and end are clamped into their
    /// axis as OpenVINO clamps them ([`strided_range`]), except that a
    /// shrunk axis's begin must lie in `[-dim, dim)`. `ranges` and `out`
    /// of other lengths are refused. It allocates nothing unless the
    /// inputs are wrong, so the executor runs it on values that arrive at
    /// run time.
    ///
    /// ```
    /// use ovir_shape::ops::slice::SliceRange;
    /// use ovir_shape::ops::StridedSlice;
    /// use ovir_tensor::Tensor;
    ///
    /// // x[:, ::-2] of a [2, 5] tensor.
    /// let op = StridedSlice { begin_mask: vec![true, true], end_mask: vec![true, true], ..StridedSlice::default() };
    /// let begin = Tensor::from_vec(&[2], vec![0i64, 0])?;
    /// let strides = Tensor::from_vec(&[2], vec![1i64, -2])?;
    /// let (mut ranges, mut out) = ([SliceRange { first: 0, step: 1, len: 0 }; 2], [0; 2]);
    /// op.slice_into(&[2, 5], &begin, &begin, Some(&strides), &mut ranges, &mut out)?;
    /// assert_eq!(ranges[1], SliceRange { first: 4, step: -2, len: 3 });
    /// assert_eq!(out, [2, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn slice_into(
        &self,
        shape: &[usize],
        begin: &Tensor,
        end: &Tensor,
        strides: Option<&Tensor>,
        ranges: &mut [SliceRange],
        out: &mut [usize],
    ) -> Result<(), ShapeErrorKind> {
        let count = index_count(begin, end, strides)?;
        let rank = shape.len();
        let hidden = self.ellipsis_axes(rank, count)?;
        let out_rank = self.output_rank(rank, count)?;
        if ranges.len() != rank || out.len() != out_rank {
            return Err(ShapeErrorKind::StridedSliceTooManyAxes { count, rank });
        }
        let (mut axis, mut o) = (0usize, 0usize);
        let whole = |axis: &mut usize, o: &mut usize, ranges: &mut [SliceRange], out: &mut [usize]| {
            let dim = shape.get(*axis).copied().unwrap_or(0);
            if let Some(r) = ranges.get_mut(*axis) {
                *r = SliceRange { first: 0, step: 1, len: dim as u64 };
            }
            if let Some(d) = out.get_mut(*o) {
                *d = dim;
            }
            *axis += 1;
            *o += 1;
        };
        let mut ellipsis_seen = false;
        for i in 0..count {
            match self.index(i) {
                Index::Ellipsis => {
                    ellipsis_seen = true;
                    for _ in 0..hidden {
                        whole(&mut axis, &mut o, ranges, out);
                    }
                }
                Index::NewAxis => {
                    if let Some(d) = out.get_mut(o) {
                        *d = 1;
                    }
                    o += 1;
                }
                Index::Shrink => {
                    let dim = shape.get(axis).copied().unwrap_or(0) as u64;
                    let b = value_at(begin, i)?;
                    let first = shrink_index(b, dim).ok_or(ShapeErrorKind::StridedSliceShrinkIndex {
                        index: i,
                        begin: b,
                        dim,
                    })?;
                    if let Some(r) = ranges.get_mut(axis) {
                        *r = SliceRange { first, step: 1, len: 1 };
                    }
                    axis += 1;
                }
                Index::Slice => {
                    let dim = shape.get(axis).copied().unwrap_or(0) as u64;
                    let stride = match strides {
                        Some(s) => value_at(s, i)?,
                        None => 1,
                    };
                    if stride == 0 {
                        return Err(ShapeErrorKind::StridedSliceStrideZero { index: i });
                    }
                    let b = (!Self::flag(&self.begin_mask, i)).then(|| value_at(begin, i)).transpose()?;
                    let e = (!Self::flag(&self.end_mask, i)).then(|| value_at(end, i)).transpose()?;
                    let r = strided_range(dim, b, e, stride);
                    if let Some(slot) = ranges.get_mut(axis) {
                        *slot = r;
                    }
                    if let Some(d) = out.get_mut(o) {
                        *d = r.len as usize;
                    }
                    axis += 1;
                    o += 1;
                }
            }
        }
        if !ellipsis_seen {
            for _ in 0..hidden {
                whole(&mut axis, &mut o, ranges, out);
            }
        }
        Ok(())
    }

    /// The output shape for data of a partial shape, as OpenVINO infers it,
    /// from the values of begin and end where known, and `strides`: `None`
    /// without a strides input, `Some(None)` when its value is not known.
    /// `count` is their length.
    fn infer_shape(
        &self,
        dims: &[Dim],
        count: usize,
        begin: Option<&Tensor>,
        end: Option<&Tensor>,
        strides: Option<Option<&Tensor>>,
    ) -> Result<PartialShape, ShapeErrorKind> {
        let rank = dims.len();
        let hidden = self.ellipsis_axes(rank, count)?;
        let mut out = Vec::with_capacity(self.output_rank(rank, count)?);
        let mut axis = 0usize;
        let mut ellipsis_seen = false;
        let value = |t: Option<&Tensor>, i: usize| t.map(|t| value_at(t, i)).transpose();
        for i in 0..count {
            match self.index(i) {
                Index::Ellipsis => {
                    ellipsis_seen = true;
                    out.extend(dims.iter().skip(axis).take(hidden));
                    axis += hidden;
                }
                Index::NewAxis => out.push(Dim::fixed(1)),
                Index::Shrink => {
                    let dim = dims.get(axis).copied().unwrap_or(Dim::DYNAMIC);
                    if let (Some(b), Some(d)) = (value(begin, i)?, dim.get()) {
                        if shrink_index(b, d).is_none() {
                            return Err(ShapeErrorKind::StridedSliceShrinkIndex {
                                index: i,
                                begin: b,
                                dim: d,
                            });
                        }
                    }
                    axis += 1;
                }
                Index::Slice => {
                    let dim = dims.get(axis).copied().unwrap_or(Dim::DYNAMIC);
                    // With strides unknown, no bound is.
                    let stride = match strides {
                        Some(s) => value(s, i)?,
                        None => Some(1),
                    };
                    if stride == Some(0) {
                        return Err(ShapeErrorKind::StridedSliceStrideZero { index: i });
                    }
                    let b =
                        if Self::flag(&self.begin_mask, i) { Some(None) } else { value(begin, i)?.map(Some) };
                    let e = if Self::flag(&self.end_mask, i) { Some(None) } else { value(end, i)?.map(Some) };
                    out.push(match (b, e, stride) {
                        (Some(b), Some(e), Some(s)) => strided_dim(dim, b, e, s),
                        _ => Dim::interval(0, dim.max()).unwrap_or(Dim::DYNAMIC),
                    });
                    axis += 1;
                }
            }
        }
        if !ellipsis_seen {
            out.extend(dims.iter().skip(axis).take(hidden));
        }
        Ok(PartialShape::new(out))
    }
}

/// The number of slice indices: the length of begin, end and strides,
/// which must agree.
fn index_count(begin: &Tensor, end: &Tensor, strides: Option<&Tensor>) -> Result<usize, ShapeErrorKind> {
    for (t, input) in [(Some(begin), "begin"), (Some(end), "end"), (strides, "strides")] {
        let Some(t) = t else { continue };
        if t.rank() != 1 {
            return Err(ShapeErrorKind::InputShape {
                op: "StridedSlice",
                input,
                expected: "a 1-D tensor",
                shape: PartialShape::from_static(t.shape()),
            });
        }
        if !t.element_type().is_integral() {
            return Err(ShapeErrorKind::IntegerInput { op: "StridedSlice", input, found: t.element_type() });
        }
    }
    Ok(strided_slice_lengths(Some(begin.len()), Some(end.len()), strides.map(Tensor::len))?.unwrap_or(0))
}

/// Checks that StridedSlice's begin, end and strides (those whose length
/// is known) are equally long, and gives that length when one is known.
pub fn strided_slice_lengths(
    begin: Option<usize>,
    end: Option<usize>,
    strides: Option<usize>,
) -> Result<Option<usize>, ShapeErrorKind> {
    let first = begin.or(end).or(strides);
    if [begin, end, strides].iter().flatten().any(|&n| Some(n) != first) {
        return Err(ShapeErrorKind::StridedSliceLengths { begin, end, strides });
    }
    Ok(first)
}

/// Value `i` of begin, end or strides.
fn value_at(t: &Tensor, i: usize) -> Result<i64, ShapeErrorKind> {
    nth_integer(t, i).ok_or(ShapeErrorKind::UnreadableValues { element_type: t.element_type() })
}

/// The element a shrunk axis of `dim` elements takes at `begin` (negative
/// counts from the end), when it lies in the axis.
fn shrink_index(begin: i64, dim: u64) -> Option<u64> {
    let b = i128::from(begin);
    let b = if b < 0 { b + i128::from(dim) } else { b };
    u64::try_from(b).ok().filter(|&b| b < dim)
}

/// What a slice `begin:end:stride` takes of an axis of `dim` elements, as
/// OpenVINO resolves it: `None` for a bound a mask leaves
/// open (the first element, or the last for a negative stride; the end of
/// the axis in the stride's direction); negative bounds count from the
/// end; then both are clamped into the axis. `begin == end` takes
/// nothing, and so does a stride of 0, which the op refuses before.
///
/// ```
/// use ovir_shape::ops::slice::SliceRange;
/// use ovir_shape::ops::strided_slice::strided_range;
/// assert_eq!(strided_range(5, Some(-100), Some(100), 1), SliceRange { first: 0, step: 1, len: 5 });
/// assert_eq!(strided_range(5, None, None, -2), SliceRange { first: 4, step: -2, len: 3 });
/// assert_eq!(strided_range(5, Some(1), Some(1), 1).len, 0);
/// ```
pub fn strided_range(dim: u64, begin: Option<i64>, end: Option<i64>, stride: i64) -> SliceRange {
    if stride == 0 {
        return SliceRange { first: 0, step: stride, len: 0 };
    }
    // In i128 no sum of a bound and a dimension can overflow.
    let d = i128::from(dim);
    let reverse = stride < 0;
    let resolve = |v: i64| {
        let v = i128::from(v);
        if v < 0 {
            v + d
        } else {
            v
        }
    };
    let b = match begin {
        None if reverse => d - 1,
        None => 0,
        Some(v) => resolve(v),
    };
    // Clipped as OpenVINO's shape inference clips, the upper limit last,
    // so that a reversed slice of an empty axis takes nothing.
    let b = b.max(0).min(d - i128::from(reverse));
    let e = match end {
        None if reverse => -1,
        None => d,
        Some(v) => resolve(v),
    };
    let e = e.max(if reverse { -1 } else { 0 }).min(d);
    let span = if reverse { b - e } else { e - b };
    let step = i128::from(stride).abs();
    let len = if span > 0 { (span - 1) / step + 1 } else { 0 };
    let first = if len > 0 { b } else { 0 };
    SliceRange { first: first as u64, step: stride, len: len as u64 }
}

/// The size of a slice of a dimension that may be an interval, as
/// OpenVINO infers it: each bound of the interval sliced on its own, an
/// unbounded one as the largest size there is. `begin` and `end` are
/// `None` where a mask leaves them open. A static dimension gives the
/// exact size [`strided_range`] takes.
///
/// ```
/// use ovir_shape::ops::strided_slice::strided_dim;
/// use ovir_tensor::Dim;
/// let d = Dim::interval(3, Some(8)).unwrap();
/// assert_eq!(strided_dim(d, Some(1), Some(-1), 1), Dim::interval(1, Some(6)).unwrap());
/// assert_eq!(strided_dim(Dim::DYNAMIC, Some(1), Some(5), 2), Dim::interval(0, Some(2)).unwrap());
/// ```
pub fn strided_dim(dim: Dim, begin: Option<i64>, end: Option<i64>, stride: i64) -> Dim {
    if stride == 0 {
        return Dim::fixed(0);
    }
    if let Some(n) = dim.get() {
        return Dim::fixed(strided_range(n, begin, end, stride).len);
    }
    // OpenVINO's open bounds for a dimension whose largest size is `norm`.
    let norm = dim.max().and_then(|m| i64::try_from(m).ok()).unwrap_or(i64::MAX);
    let start = begin.unwrap_or(if stride < 0 { norm } else { 0 });
    let stop = end.unwrap_or(if stride < 0 { -1i64 - norm } else { norm });
    let lo = sliced_size(Some(dim.min()), start, stop, stride);
    let hi = sliced_size(dim.max(), start, stop, stride);
    match lo {
        Some(lo) => Dim::interval(lo, hi).unwrap_or(Dim::DYNAMIC),
        None => Dim::DYNAMIC,
    }
}

/// OpenVINO's size of a slice of a dimension of `dim` elements (`None`:
/// unbounded, as the upper bound of `?`): `None` when the slice of an
/// unbounded dimension is unbounded too. `step` is not 0.
fn sliced_size(dim: Option<u64>, start: i64, stop: i64, step: i64) -> Option<u64> {
    let reverse = step < 0;
    let norm = dim.and_then(|d| i64::try_from(d).ok()).unwrap_or(i64::MAX);
    let unbounded = norm == i64::MAX;
    let start_negative = start < 0;
    let start_limit = start == i64::MAX || start == i64::MIN;
    let any_max = start == i64::MAX || stop == i64::MAX;
    // As OpenVINO computes it, -1 standing for an unbounded end.
    let (lb, ub): (i128, i128) = if unbounded && (start_negative != (stop < 0) || any_max || start_limit) {
        let ub = if reverse {
            if start_negative || any_max {
                -1
            } else {
                -1 - i128::from(start)
            }
        } else if start_negative && !start_limit {
            if stop == i64::MAX {
                -i128::from(start)
            } else {
                i128::from(stop)
            }
        } else {
            -1
        };
        (0, ub)
    } else {
        let n = i128::from(norm);
        let normalize = |v: i64| if v < 0 { i128::from(v) + n } else { i128::from(v) };
        let lower_max = if reverse { n - 1 } else { n };
        let upper_min = if reverse { -1 } else { 0 };
        // Clipped as OpenVINO clips, the upper limit last: a begin of a
        // reversed empty axis is -1.
        (normalize(start).max(0).min(lower_max), normalize(stop).max(upper_min).min(n))
    };
    if unbounded && lb == 0 && ub == -1 {
        return None;
    }
    let span = if reverse { (lb - ub).max(0) } else { (ub - lb).max(0) };
    let k = i128::from(step).abs().max(1);
    let len = if span == 0 { 0 } else { (span - 1) / k + 1 };
    u64::try_from(len).ok()
}

impl Operation for StridedSlice {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, begin, end, rest @ ..] = inputs else {
            return Err(Problems::one(ShapeErrorKind::InputCountRange {
                op: SPEC.name,
                min: 3,
                max: Some(4),
                found: inputs.len(),
            }));
        };
        let strides = rest.first();
        let mut problems = Problems::new();
        let mut values: [Option<&Tensor>; 3] = [None; 3];
        let mut lengths: [Option<usize>; 3] = [None; 3];
        let named = [(Some(begin), "begin"), (Some(end), "end"), (strides, "strides")];
        for (k, (input, name)) in named.into_iter().enumerate() {
            let Some(input) = input else { continue };
            let ok = integer_input(&mut problems, "StridedSlice", name, input.fact)
                & input_rank(&mut problems, "StridedSlice", name, input.fact, &[1], "a 1-D tensor");
            if ok {
                if let (Some(v), Some(l)) = (values.get_mut(k), lengths.get_mut(k)) {
                    *v = input.fact.value.as_ref();
                    *l = vector_len(input.fact);
                }
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let [begin_len, end_len, strides_len] = lengths;
        let count = strided_slice_lengths(begin_len, end_len, strides_len).map_err(Problems::one)?;
        let ty = data.fact.element_type;
        let (Some(dims), Some(count)) = (data.fact.shape.dims(), count) else {
            return Ok(vec![PortFact::of(ty, PartialShape::dynamic())]);
        };
        let [b, e, s] = values;
        // Without a strides input every stride is 1.
        let shape = self.infer_shape(dims, count, b, e, strides.map(|_| s)).map_err(Problems::one)?;
        // Part of a list of dimensions stays known.
        let picked = match (dims_of(data.fact), data.fact.shape.to_static().as_deref(), b, e) {
            (Some(list), Some(&[n]), Some(b), Some(e)) if strides.is_none() || s.is_some() => {
                let mut range = [SliceRange { first: 0, step: 1, len: 0 }];
                let mut out = vec![0; shape.rank().unwrap_or(0)];
                self.slice_into(&[n], b, e, s, &mut range, &mut out).ok().map(|()| {
                    let [r] = range;
                    (0..r.len)
                        .filter_map(|j| {
                            let at = i128::from(r.first) + i128::from(j) * i128::from(r.step);
                            usize::try_from(at).ok().and_then(|at| list.get(at).copied())
                        })
                        .collect::<Vec<Dim>>()
                })
            }
            _ => None,
        };
        Ok(vec![fact_with_dims(ty, shape, picked)])
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match input {
            // A shrunk axis takes one element, which index 0 always is.
            1 if self.shrink_axis_mask.contains(&true) => ValueDomain::Indices { size: None, negative: true },
            // Any other begin and end are clamped into the axis.
            3 => ValueDomain::NonZero,
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // Begin, end and strides are equally long: as long as one of them
        // is known to be, or as the masks, or else one per data axis.
        if !(1..=3).contains(&input) || inputs.get(input).is_some_and(|f| vector_len(f).is_some()) {
            return None;
        }
        let known = inputs.iter().skip(1).find_map(|f| vector_len(f)).or_else(|| {
            let n = self.begin_mask.len();
            (n > 0).then_some(n)
        });
        Some(vec![Some(known.map_or(Size::RankOf { input: 0 }, |n| Size::Known(n as u64)))])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    fn flags(m: &[u8]) -> Vec<bool> {
        m.iter().map(|&f| f == 1).collect()
    }

    /// An op with its masks as 0s and 1s, in the attributes' order.
    fn op(masks: [&[u8]; 5]) -> StridedSlice {
        let [begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask] = masks.map(flags);
        StridedSlice { begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask }
    }

    fn ints(values: &[i64]) -> PortFact {
        PortFact::known(Tensor::from_vec(&[values.len()], values.to_vec()).unwrap())
    }

    fn run(
        op: &StridedSlice,
        data: PortFact,
        bounds: [PortFact; 3],
    ) -> Result<PortFact, Vec<ShapeErrorKind>> {
        let [b, e, s] = bounds;
        let inputs = [Input::new(&data), Input::new(&b), Input::new(&e), Input::new(&s)];
        op.infer(&inputs)
            .map(|mut f| f.remove(0))
            .map_err(|p| p.into_vec().into_iter().map(|p| p.kind).collect())
    }

    fn shape(
        data: &str,
        b: &[i64],
        e: &[i64],
        s: &[i64],
        masks: [&[u8]; 5],
    ) -> Result<String, Vec<ShapeErrorKind>> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        run(&op(masks), data, [ints(b), ints(e), ints(s)]).map(|f| f.shape.to_string())
    }

    const NONE: &[u8] = &[];

    // OpenVINO 2026.4's answers, and the cases of its
    // type_prop/strided_slice.cpp.
    #[test]
    fn slices_clamp_as_openvino_clamps() {
        let z3: &[u8] = &[0, 0, 0];
        assert_eq!(
            shape("2,3,4", &[0, 1, 0], &[2, 3, 4], &[1, 1, 1], [z3, z3, z3, z3, z3]).unwrap(),
            "[2,2,4]"
        );
        // begin == end takes nothing.
        assert_eq!(shape("2,3,4", &[1], &[1], &[1], [&[0], &[0], NONE, NONE, NONE]).unwrap(), "[0,3,4]");
        assert_eq!(shape("2,3,4", &[-100], &[100], &[1], [NONE; 5]).unwrap(), "[2,3,4]");
        assert_eq!(shape("2,3,4", &[100], &[-100], &[-1], [NONE; 5]).unwrap(), "[2,3,4]");
        let all: &[u8] = &[1, 1, 1];
        assert_eq!(
            shape("2,3,4", &[0, 0, 0], &[0, 0, 0], &[1, 1, -1], [all, all, NONE, NONE, NONE]).unwrap(),
            "[2,3,4]"
        );
        assert_eq!(shape("5", &[1], &[0], &[1], [&[0], &[1], NONE, NONE, NONE]).unwrap(), "[4]");
    }

    #[test]
    fn masks_add_remove_and_expand_axes() {
        let z2: &[u8] = &[0, 0];
        let z4: &[u8] = &[0, 0, 0, 0];
        assert_eq!(
            shape("2,3,4", &[0, 0], &[0, 0], &[1, 1], [z2, z2, &[1, 0], z2, z2]).unwrap(),
            "[1,0,3,4]"
        );
        assert_eq!(shape("2,3,4", &[0, 1], &[0, 2], &[1, 1], [z2, z2, z2, &[0, 1], z2]).unwrap(), "[0,4]");
        assert_eq!(shape("2,3,4", &[0, 1], &[0, 2], &[1, 1], [z2, z2, z2, z2, &[1, 0]]).unwrap(), "[2,3,1]");
        let z3: &[u8] = &[0, 0, 0];
        assert_eq!(
            shape("2,3,4", &[0, 1, 0], &[0, 2, 0], &[1, 1, 1], [z3, z3, &[0, 0, 1], z3, &[1, 0, 0]]).unwrap(),
            "[2,3,1,1]"
        );
        assert_eq!(shape("2,3,4", &[1, 0], &[0, 0], &[1, 1], [z2, z2, z2, z2, &[0, 1]]).unwrap(), "[0,3,4]");
        let ones: &[u8] = &[1, 1, 1, 1];
        assert_eq!(
            shape("2,3,4", &[0; 4], &[0; 4], &[1; 4], [ones, ones, &[1, 0, 0, 0], z4, z4]).unwrap(),
            "[1,2,3,4]"
        );
        assert_eq!(
            shape("2,3,4", &[-1, 0], &[0, 0], &[1, -1], [&[0, 1], &[0, 1], z2, &[1, 0], z2]).unwrap(),
            "[3,4]"
        );
        assert_eq!(
            shape("2,3,4", &[0; 3], &[0; 3], &[1; 3], [z3, z3, &[1, 1, 1], z3, z3]).unwrap(),
            "[1,1,1,2,3,4]"
        );
        assert_eq!(
            shape("2,3,4", &[0; 4], &[0; 4], &[1; 4], [z4, z4, ones, z4, z4]).unwrap(),
            "[1,1,1,1,2,3,4]"
        );
        // The ellipsis wins over a new axis at the same index.
        assert_eq!(
            shape("2,3,4", &[0, 0], &[0, 0], &[1, 1], [z2, z2, &[1, 0], z2, &[0, 1]]).unwrap(),
            "[1,2,3,4]"
        );
        assert_eq!(
            shape("2,3,4", &[0, 0], &[0, 0], &[1, 1], [z2, z2, &[1, 1], z2, &[0, 1]]).unwrap(),
            "[1,2,3,4]"
        );
        assert_eq!(shape("2,3,4", &[0], &[0], &[1], [&[0], &[0], &[1], &[0], &[1]]).unwrap(), "[2,3,4]");
        assert_eq!(shape("5", &[2], &[0], &[1], [&[0], &[0], NONE, &[1], NONE]).unwrap(), "[]");
        assert_eq!(shape("5", &[-1], &[0], &[1], [&[0], &[1], &[1], NONE, NONE]).unwrap(), "[1,5]");
        assert_eq!(
            shape("2,2..5,4", &[0, 0], &[0, 0], &[1, 1], [&[1, 1], &[1, 1], z2, &[0, 1], z2]).unwrap(),
            "[2,4]"
        );
    }

    #[test]
    fn intervals_are_sliced_bound_by_bound() {
        let m10: &[u8] = &[1, 0];
        let m11: &[u8] = &[1, 1];
        let z2: &[u8] = &[0, 0];
        let case = |data: &str, b: &[i64], e: &[i64], s: &[i64], bm: &[u8], em: &[u8]| {
            shape(data, b, e, s, [bm, em, z2, z2, z2]).unwrap()
        };
        assert_eq!(case("2,?,4", &[0, 1], &[0, -1], &[1, 1], m10, m10), "[2,?,4]");
        assert_eq!(case("2,3..8,4", &[0, 1], &[0, -1], &[1, 1], m10, m10), "[2,1..6,4]");
        assert_eq!(case("2,3..8,4", &[0, -1], &[0, 0], &[1, -1], m11, m11), "[2,3..8,4]");
        assert_eq!(case("2,3..8,4", &[0, -2], &[0, -9], &[1, -2], m10, m10), "[2,1..4,4]");
        assert_eq!(case("2,?,4", &[0, 0], &[0, 0], &[1, -1], m11, m11), "[2,?,4]");
        assert_eq!(case("2,?,4", &[0, 2], &[0, 0], &[1, -1], m10, m11), "[2,..3,4]");
        assert_eq!(case("2,?,4", &[0, -3], &[0, 0], &[1, 1], m10, m11), "[2,..3,4]");
        assert_eq!(case("2,?,4", &[0, 0], &[0, 0], &[1, 2], m11, m11), "[2,?,4]");
        assert_eq!(case("2,1..,4", &[0, 0], &[0, 0], &[1, 2], m11, m11), "[2,1..,4]");
        assert_eq!(case("2,1..,4", &[0, 1], &[0, 3], &[1, 1], m10, m10), "[2,..2,4]");
        assert_eq!(case("2,..5,4", &[0, -2], &[0, 9], &[1, 1], m10, m10), "[2,..2,4]");
        assert_eq!(case("2,?,4", &[0, 1], &[0, 5], &[1, 2], m10, m10), "[2,..2,4]");
    }

    #[test]
    fn unknown_values_leave_the_rank_or_the_axes_open() {
        let data = || PortFact::of(ElementType::F32, "2,3,4".parse().unwrap());
        let unknown = |s: &str| PortFact::of(ElementType::I64, s.parse().unwrap());
        let plain = StridedSlice::default();
        let out = |d: PortFact, b: PortFact| {
            run(&plain, d, [b, ints(&[0, 5]), ints(&[1, 2])]).unwrap().shape.to_string()
        };
        assert_eq!(out(data(), unknown("2")), "[..2,..3,4]");
        assert_eq!(out(data(), unknown("?")), "[..2,..3,4]");
        assert_eq!(out(PortFact::of(ElementType::F32, "...".parse().unwrap()), ints(&[0, 1])), "[...]");
        let all_unknown = [unknown("?"), unknown("?"), unknown("?")];
        assert_eq!(run(&plain, data(), all_unknown).unwrap().shape.to_string(), "[...]");
        // A begin of a length no data could have is refused without
        // walking it.
        let long = || PortFact::of(ElementType::I64, "1000000000000".parse().unwrap());
        let refused = run(&plain, data(), [long(), long(), long()]).unwrap_err();
        assert_eq!(refused, [ShapeErrorKind::StridedSliceTooManyAxes { count: 1_000_000_000_000, rank: 3 }]);
        // Strides unknown: no axis the slice touches is known.
        let s = run(&plain, data(), [ints(&[0]), ints(&[1]), unknown("1")]).unwrap();
        assert_eq!(s.shape.to_string(), "[..2,3,4]");
    }

    #[test]
    fn what_openvino_refuses_is_refused() {
        let z2: &[u8] = &[0, 0];
        let err =
            |data: &str, b: &[i64], e: &[i64], s: &[i64], masks| shape(data, b, e, s, masks).unwrap_err();
        assert_eq!(
            err("2,3,4", &[0, 1], &[0, 2], &[1, 0], [NONE; 5]),
            [ShapeErrorKind::StridedSliceStrideZero { index: 1 }]
        );
        assert_eq!(
            err("2,3,4", &[0, 1], &[0, 2, 3], &[1, 1], [NONE; 5]),
            [ShapeErrorKind::StridedSliceLengths { begin: Some(2), end: Some(3), strides: Some(2) }]
        );
        assert_eq!(
            err("2,3,4", &[0, 1, 2, 0], &[0; 4], &[1; 4], [NONE; 5]),
            [ShapeErrorKind::StridedSliceTooManyAxes { count: 4, rank: 3 }]
        );
        assert_eq!(
            err("2,3,4", &[5], &[6], &[1], [&[0], &[0], NONE, &[1], NONE]),
            [ShapeErrorKind::StridedSliceShrinkIndex { index: 0, begin: 5, dim: 2 }]
        );
        assert_eq!(
            err("2,3,4", &[0, -4], &[0, 0], &[1, 1], [z2, z2, z2, &[0, 1], z2]),
            [ShapeErrorKind::StridedSliceShrinkIndex { index: 1, begin: -4, dim: 3 }]
        );
        let data = PortFact::of(ElementType::F32, "2,3,4".parse().unwrap());
        let floats = PortFact::known(Tensor::from_vec(&[2], vec![0f32, 1.0]).unwrap());
        assert_eq!(
            run(&StridedSlice::default(), data.clone(), [floats, ints(&[0, 5]), ints(&[1, 2])]).unwrap_err(),
            [ShapeErrorKind::IntegerInput { op: "StridedSlice", input: "begin", found: ElementType::F32 }]
        );
        let matrix = PortFact::known(Tensor::from_vec(&[1, 2], vec![0i64, 1]).unwrap());
        assert!(matches!(
            run(&StridedSlice::default(), data, [matrix, ints(&[0, 5]), ints(&[1, 2])]).unwrap_err()[..],
            [ShapeErrorKind::InputShape { input: "begin", .. }]
        ));
    }

    #[test]
    fn masks_are_read_and_written_as_openvino_writes_them() {
        let layer = |attrs: &[(&str, &str)]| {
            let mut l = OpLayer::builtin(&SPEC, "opset1");
            for (n, v) in attrs {
                l = l.attr(*n, v);
            }
            StridedSlice::build(&l.to_layer_with(4), 1).map_err(|p| p.into_vec().remove(0).kind)
        };
        assert_eq!(
            layer(&[("begin_mask", "1, 0"), ("end_mask", "1,0"), ("ellipsis_mask", "")]),
            Ok(op([&[1, 0], &[1, 0], NONE, NONE, NONE]))
        );
        assert_eq!(layer(&[]), Ok(StridedSlice::default()));
        assert_eq!(
            layer(&[("begin_mask", "1, 2")]),
            Err(ShapeErrorKind::InvalidMask { name: "begin_mask", value: "1, 2".into() })
        );
        assert_eq!(
            layer(&[("begin_mask", "1,0,1,0"), ("end_mask", "1,0,1,0"), ("new_axis_mask", "1,0,1,0,1")]),
            Err(ShapeErrorKind::StridedSliceMaskLengths { lengths: [4, 4, 5, 0, 0] })
        );
        assert_eq!(
            layer(&[("begin_mask", "0,0"), ("end_mask", "0,0"), ("ellipsis_mask", "1,1")]),
            Err(ShapeErrorKind::StridedSliceEllipses { count: 2 })
        );
        let written = op([&[1, 0], &[0, 1], &[0, 0], &[0, 0], &[0, 0]]).write();
        assert_eq!(written.attrs[0], ("begin_mask".to_string(), "1, 0".to_string()));
        assert_eq!(StridedSlice::default().write().attrs[4], ("ellipsis_mask".to_string(), String::new()));
        crate::ops::check_round_trips::<StridedSlice>();
    }

    /// What the run-time rule takes, as `(first, step, len)` per axis, and
    /// the output shape.
    fn plan(
        op: &StridedSlice,
        shape: &[usize],
        b: &[i64],
        e: &[i64],
        s: &[i64],
    ) -> (Vec<(u64, i64, u64)>, Vec<usize>) {
        let t = |v: &[i64]| Tensor::from_vec(&[v.len()], v.to_vec()).unwrap();
        let (bt, et, st) = (t(b), t(e), t(s));
        let mut ranges = vec![SliceRange { first: 0, step: 1, len: 0 }; shape.len()];
        let mut out = vec![0; op.output_rank(shape.len(), b.len()).unwrap()];
        op.slice_into(shape, &bt, &et, Some(&st), &mut ranges, &mut out).unwrap();
        (ranges.iter().map(|r| (r.first, r.step, r.len)).collect(), out)
    }

    // NumPy's answers: x[1:, ::-1], x[..., np.newaxis, -1], x[-1, 1:100:2].
    #[test]
    fn the_run_time_rule_indexes_as_numpy_does() {
        let z2: &[u8] = &[0, 0];
        let (r, out) = plan(&op([&[0, 1], &[1, 1], z2, z2, z2]), &[3, 4], &[1, 0], &[0, 0], &[1, -1]);
        assert_eq!((r, out), (vec![(1, 1, 2), (3, -1, 4)], vec![2, 4]));
        let z3: &[u8] = &[0, 0, 0];
        let (r, out) = plan(
            &op([z3, z3, &[0, 1, 0], &[0, 0, 1], &[1, 0, 0]]),
            &[2, 3, 4],
            &[0, 0, -1],
            &[0, 0, 0],
            &[1, 1, 1],
        );
        assert_eq!((r, out), (vec![(0, 1, 2), (0, 1, 3), (3, 1, 1)], vec![2, 3, 1]));
        let (r, out) = plan(&op([z2, z2, z2, &[1, 0], z2]), &[2, 5], &[-1, 1], &[0, 100], &[1, 2]);
        assert_eq!((r, out), (vec![(1, 1, 1), (1, 2, 2)], vec![2]));
        // Reversed with a step that does not divide: x[::-3] of 5 is 4, 1.
        let (r, _) = plan(&StridedSlice::default(), &[5], &[-1], &[-100], &[-3]);
        assert_eq!(r, vec![(4, -3, 2)]);
        // A negative stride from below the axis takes its first element,
        // as OpenVINO does (NumPy takes nothing).
        let (r, out) = plan(&StridedSlice::default(), &[5], &[-100], &[-100], &[-1]);
        assert_eq!((r, out), (vec![(0, -1, 1)], vec![1]));
        let interval = strided_dim(Dim::interval(5, Some(8)).unwrap(), Some(-100), Some(-100), -1);
        assert_eq!(interval, Dim::fixed(1));
        // A stride of 0, refused by the op, takes nothing from the rules.
        assert_eq!(strided_range(5, Some(0), Some(5), 0).len, 0);
        assert_eq!(strided_dim(Dim::DYNAMIC, Some(0), Some(5), 0), Dim::fixed(0));
        // A zero-sized axis takes nothing either way.
        let (r, out) = plan(&StridedSlice::default(), &[0, 2], &[0], &[5], &[-1]);
        assert_eq!((r, out), (vec![(0, -1, 0), (0, 1, 2)], vec![0, 2]));
    }

    /// 400 random slices of one axis (static, interval and dynamic sizes,
    /// bounds in and out of range, masks), as OpenVINO answers them.
    #[test]
    fn every_slice_of_one_axis_is_sized_as_openvino_sizes_it() {
        let table =
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/strided_slice_openvino.txt"));
        let mut checked = 0;
        for line in table.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split(' ').collect();
            let [dim, b, e, s, bm, em, want] = f[..] else { panic!("{line}") };
            let op = op([&[bm.parse().unwrap()], &[em.parse().unwrap()], NONE, NONE, NONE]);
            let got = shape(
                dim,
                &[b.parse().unwrap()],
                &[e.parse().unwrap()],
                &[s.parse().unwrap()],
                [
                    &op.begin_mask.iter().map(|&f| f as u8).collect::<Vec<_>>(),
                    &op.end_mask.iter().map(|&f| f as u8).collect::<Vec<_>>(),
                    NONE,
                    NONE,
                    NONE,
                ],
            );
            assert_eq!(got.as_deref().map(|s| s.trim_matches(['[', ']'])), Ok(want), "{line}");
            checked += 1;
        }
        assert_eq!(checked, 400);
    }

    /// 300 random slices of up to 4 indices with every mask, as OpenVINO
    /// answers them (the output shape, or an error).
    #[test]
    fn every_masked_slice_is_shaped_as_openvino_shapes_it() {
        let table =
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/strided_slice_masks_openvino.txt"));
        let list = |s: &str| -> Vec<i64> { s.split(',').map(|v| v.parse().unwrap()).collect() };
        let flags = |s: &str| -> Vec<u8> { s.split(',').map(|v| v.parse().unwrap()).collect() };
        let mut checked = 0;
        for line in table.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split(' ').collect();
            let [data, b, e, s, bm, em, nm, sm, el, want] = f[..] else { panic!("{line}") };
            let masks = [flags(bm), flags(em), flags(nm), flags(sm), flags(el)];
            let masks = [&masks[0][..], &masks[1], &masks[2], &masks[3], &masks[4]];
            let got = shape(data, &list(b), &list(e), &list(s), masks);
            match (want, &got) {
                ("error", _) => assert!(got.is_err() || op(masks).check_masks().is_err(), "{line}: {got:?}"),
                // More slices and shrinks than axes beside an ellipsis:
                // OpenVINO's shape inference reads past the data's axes,
                // its reference refuses them, and so does ovir.
                (_, Err(e)) if matches!(e[..], [ShapeErrorKind::StridedSliceTooManyAxes { .. }]) => {
                    assert!(el.contains('1'), "{line}")
                }
                (want, _) => assert_eq!(got.as_deref(), Ok(want), "{line}"),
            }
            checked += 1;
        }
        assert_eq!(checked, 300);
    }

    #[test]
    fn a_shape_taken_apart_keeps_its_dimensions() {
        // ShapeOf → StridedSlice [1:3], and [0] shrunk to a scalar.
        let mut dims = PortFact::of(ElementType::I64, "4".parse().unwrap());
        dims.value_dims = Some(vec![Dim::fixed(8), Dim::DYNAMIC, Dim::fixed(3), Dim::fixed(5)]);
        let sliced =
            run(&StridedSlice::default(), dims.clone(), [ints(&[1]), ints(&[3]), ints(&[1])]).unwrap();
        assert_eq!(sliced.shape.to_string(), "[2]");
        assert_eq!(sliced.value_dims, Some(vec![Dim::DYNAMIC, Dim::fixed(3)]));
        let first =
            run(&op([&[0], &[0], &[0], &[1], &[0]]), dims, [ints(&[0]), ints(&[1]), ints(&[1])]).unwrap();
        assert_eq!(first.shape.to_string(), "[]");
        assert_eq!(first.value_dims, Some(vec![Dim::fixed(8)]));
    }

    #[test]
    fn example_inputs_suit_the_masks() {
        let data = PortFact::of(ElementType::F32, "2,3".parse().unwrap());
        let open = PortFact::of(ElementType::I64, "?".parse().unwrap());
        let facts = [&data, &open, &open, &open];
        let shrink = op([&[0, 0], &[0, 0], &[0, 0], &[0, 1], &[0, 0]]);
        assert_eq!(shrink.input_values(1, &facts), ValueDomain::Indices { size: None, negative: true });
        assert_eq!(shrink.input_values(3, &facts), ValueDomain::NonZero);
        assert_eq!(shrink.input_shape(2, &facts), Some(vec![Some(Size::Known(2))]));
        assert_eq!(
            StridedSlice::default().input_shape(1, &facts),
            Some(vec![Some(Size::RankOf { input: 0 })])
        );
        assert_eq!(StridedSlice::default().input_values(1, &facts), ValueDomain::Any);
    }
}
