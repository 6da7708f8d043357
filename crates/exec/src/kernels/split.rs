//! Split and VariadicSplit: the data cut along one axis into parts, one
//! output per part.
//!
//! Seen as `[outer, dim, inner]` around the cut axis, part `k` takes rows
//! `start_k .. start_k + len_k` of every outer block. Each part is one
//! strided copy of the data (`moves::View`); when the axes before the cut
//! are all of size 1 (`outer == 1`), a part is one contiguous stretch,
//! which a plan takes as a view of whole-byte data without a copy
//! ([`Tensor::elements_view`]).

use ovir_shape::ops::split::{split_axis, split_dim};
use ovir_shape::ops::variadic_split::split_dims_into;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{ByteCount, Dim, ElementType, Tensor, TensorError};

use super::checks::input_shape_error;
use super::moves::{Step, View};
use super::{ExecOptions, KernelError};

const SPLIT: &str = "Split";
const VARIADIC: &str = "VariadicSplit";

/// How many parts, and of what lengths: Split's equal parts or
/// VariadicSplit's lengths.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Lengths<'t> {
    /// Split-1: this many equal parts.
    Equal(u64),
    /// VariadicSplit-1: the lengths input (one -1 for what the others
    /// leave).
    Given(&'t Tensor),
}

impl Lengths<'_> {
    fn op(self) -> &'static str {
        if self.variadic() {
            VARIADIC
        } else {
            SPLIT
        }
    }

    /// Whether these are VariadicSplit's lengths.
    pub(crate) fn variadic(self) -> bool {
        matches!(self, Lengths::Given(_))
    }

    /// The number of parts.
    pub(crate) fn count(self) -> usize {
        match self {
            Lengths::Equal(n) => usize::try_from(n).unwrap_or(usize::MAX),
            Lengths::Given(t) => t.len(),
        }
    }
}

/// The axis a Split (or, `variadic`, a VariadicSplit) of data of rank
/// `rank` cuts: Split's must be an integer scalar, VariadicSplit's a
/// scalar or one element of integers or reals (truncated), as the ops'
/// inference requires.
pub(crate) fn cut_axis(variadic: bool, axis: &Tensor, rank: usize) -> Result<usize, KernelError> {
    let op = if variadic { VARIADIC } else { SPLIT };
    let ty = axis.element_type();
    if variadic {
        if !ty.is_integral() && !ty.is_real() {
            return Err(ShapeErrorKind::NumberInput { op, input: "axis", found: ty }.into());
        }
        if axis.rank() > 1 || axis.len() != 1 {
            return Err(input_shape_error(op, "axis", "a scalar or a tensor of one element", axis));
        }
    } else {
        if !ty.is_integral() {
            return Err(ShapeErrorKind::IntegerInput { op, input: "axis", found: ty }.into());
        }
        if axis.rank() != 0 {
            return Err(input_shape_error(op, "axis", "a scalar", axis));
        }
    }
    split_axis(axis, rank).map_err(|kind| match kind {
        ShapeErrorKind::OpAxisOutOfRange { what, axis, rank, .. } => {
            ShapeErrorKind::OpAxisOutOfRange { op, what, axis, rank }.into()
        }
        other => other.into(),
    })
}

/// The length of each part of the axis of size `dim` (axis `axis`),
/// written into `lens`; `dims` is room for VariadicSplit's rule to work in.
/// Neither allocates once they have room for every part.
pub(crate) fn part_lengths(
    lengths: Lengths<'_>,
    dim: usize,
    axis: usize,
    dims: &mut Vec<Dim>,
    lens: &mut Vec<usize>,
) -> Result<(), KernelError> {
    lens.clear();
    match lengths {
        Lengths::Equal(n) => {
            let part = split_dim(Dim::fixed(dim as u64), n, axis)?;
            let part = part.get().and_then(|p| usize::try_from(p).ok());
            let part = part
                .ok_or(KernelError::Internal { op: SPLIT, what: "a part of a static axis is not static" })?;
            // A Split of an empty axis has as many empty parts as asked
            // for; a count no list can hold is refused, not aborted on.
            let count = lengths.count();
            lens.try_reserve(count).map_err(|_| {
                let bytes = ByteCount((count as u128).checked_mul(std::mem::size_of::<usize>() as u128));
                TensorError::OutOfMemory { ty: ElementType::U64, shape: vec![count], bytes }
            })?;
            lens.resize(count, part);
        }
        Lengths::Given(t) => {
            dims.clear();
            dims.resize(t.len(), Dim::DYNAMIC);
            split_dims_into(t, Dim::fixed(dim as u64), axis, dims)?;
            for d in dims.iter() {
                let len = d.get().and_then(|p| usize::try_from(p).ok());
                lens.push(len.ok_or(KernelError::Internal {
                    op: VARIADIC,
                    what: "a part of a static axis is not static",
                })?);
            }
        }
    }
    Ok(())
}

/// The data seen around the cut axis: `outer` blocks of `dim` rows of
/// `inner` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Around {
    pub(crate) outer: usize,
    pub(crate) dim: usize,
    pub(crate) inner: usize,
}

impl Around {
    /// Data of shape `shape` around axis `axis` (which it has).
    pub(crate) fn new(shape: &[usize], axis: usize) -> Around {
        let (before, rest) = shape.split_at(axis.min(shape.len()));
        let (dim, after) = rest.split_first().map_or((1, &[][..]), |(&d, a)| (d, a));
        Around { outer: before.iter().product(), dim, inner: after.iter().product() }
    }
}

/// What a Split or VariadicSplit makes of data of one shape: per part, its
/// shape, the element of the data it starts at, and its copy.
#[derive(Clone, Debug)]
pub(crate) struct Parts {
    op: &'static str,
    data_shape: Vec<usize>,
    axis: usize,
    lens: Vec<usize>,
    around: Around,
    starts: Vec<usize>,
    views: Vec<View>,
}

impl Parts {
    /// The parts of lengths `lens` (adding up to the axis) of data of
    /// shape `data_shape` along `axis`.
    pub(crate) fn new(
        op: &'static str,
        data_shape: &[usize],
        axis: usize,
        lens: &[usize],
    ) -> Result<Parts, KernelError> {
        let internal = || KernelError::Internal { op, what: "a part does not fit the data" };
        let around = Around::new(data_shape, axis);
        let block = around.dim.checked_mul(around.inner).ok_or_else(internal)?;
        let (mut row, mut starts, mut views) =
            (0usize, Vec::with_capacity(lens.len()), Vec::with_capacity(lens.len()));
        for &len in lens {
            let mut shape = data_shape.to_vec();
            if let Some(d) = shape.get_mut(axis) {
                *d = len;
            }
            let first = row.checked_mul(around.inner).ok_or_else(internal)?;
            let src = isize::try_from(first).map_err(|_| internal())?;
            let stride = |s: usize| isize::try_from(s).map_err(|_| internal());
            let axes = [
                (around.outer, Step::Stride(stride(block)?)),
                (len, Step::Stride(stride(around.inner)?)),
                (around.inner, Step::Stride(1)),
            ];
            views.push(View::new(op, data_shape, shape, src, &axes)?);
            starts.push(first);
            row = row.checked_add(len).ok_or_else(internal)?;
        }
        if row != around.dim {
            return Err(internal());
        }
        Ok(Parts { op, data_shape: data_shape.to_vec(), axis, lens: lens.to_vec(), around, starts, views })
    }

    /// The data shape these parts were worked out for.
    pub(crate) fn data_shape(&self) -> &[usize] {
        &self.data_shape
    }

    /// The number of parts.
    pub(crate) fn len(&self) -> usize {
        self.views.len()
    }

    /// Whether every part is one contiguous stretch of the data.
    pub(crate) fn contiguous(&self) -> bool {
        self.around.outer == 1
    }

    /// Part `k`: its shape, and the element of the data it starts at.
    pub(crate) fn part(&self, k: usize) -> Option<(&[usize], usize)> {
        Some((self.views.get(k)?.shape(), *self.starts.get(k)?))
    }

    /// The copy of part `k`.
    pub(crate) fn view(&self, k: usize) -> Result<&View, KernelError> {
        self.views.get(k).ok_or(KernelError::Internal { op: self.op, what: "a part past the last" })
    }
}

/// The parts of data of shape `shape` for these inputs, worked out anew.
pub(crate) fn parts(shape: &[usize], axis: &Tensor, lengths: Lengths<'_>) -> Result<Parts, KernelError> {
    let a = cut_axis(lengths.variadic(), axis, shape.len())?;
    let dim = shape.get(a).copied().unwrap_or(1);
    let (mut dims, mut lens) = (Vec::new(), Vec::new());
    part_lengths(lengths, dim, a, &mut dims, &mut lens)?;
    Parts::new(lengths.op(), shape, a, &lens)
}

/// What [`split_into`] and [`variadic_split_into`] keep between calls: the
/// parts worked out for the last data shape and lengths, so that running
/// again on the same ones allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct SplitScratch {
    dims: Vec<Dim>,
    lens: Vec<usize>,
    last: Option<Parts>,
}

impl SplitScratch {
    /// An empty scratch.
    pub fn new() -> SplitScratch {
        SplitScratch::default()
    }

    /// The parts for these inputs: the kept ones when the data shape and
    /// the lengths are those of the last call.
    pub(crate) fn parts(
        &mut self,
        data: &Tensor,
        axis: &Tensor,
        lengths: Lengths<'_>,
    ) -> Result<&Parts, KernelError> {
        let a = cut_axis(lengths.variadic(), axis, data.rank())?;
        let dim = data.shape().get(a).copied().unwrap_or(1);
        part_lengths(lengths, dim, a, &mut self.dims, &mut self.lens)?;
        let kept = self
            .last
            .as_ref()
            .is_some_and(|p| p.data_shape == data.shape() && p.axis == a && p.lens == self.lens);
        if !kept {
            self.last = Some(Parts::new(lengths.op(), data.shape(), a, &self.lens)?);
        }
        self.last.as_ref().ok_or(KernelError::Internal { op: lengths.op(), what: "the parts were not kept" })
    }
}

/// Copies every part into `outs`, one tensor per part of its type and
/// shape.
fn copy_parts(
    parts: &Parts,
    data: &Tensor,
    outs: &mut [Tensor],
    options: &ExecOptions,
) -> Result<(), KernelError> {
    if outs.len() != parts.len() {
        return Err(
            ShapeErrorKind::OutputCount { op: parts.op, expected: parts.len(), found: outs.len() }.into()
        );
    }
    for (k, out) in outs.iter_mut().enumerate() {
        parts.view(k)?.run(data, out, options)?;
    }
    Ok(())
}

/// Each part as a new tensor: a view of the data where the part is a
/// contiguous stretch of whole-byte data, else a copy.
pub(crate) fn made_parts(parts: &Parts, data: &Tensor) -> Result<Vec<Tensor>, KernelError> {
    (0..parts.len())
        .map(|k| {
            let (shape, first) =
                parts.part(k).ok_or(KernelError::Internal { op: parts.op, what: "a part past the last" })?;
            if parts.contiguous() {
                if let Some(view) = data.elements_view(first, shape) {
                    return Ok(view);
                }
            }
            let mut out = Tensor::zeros(data.element_type(), shape)?;
            parts.view(k)?.run(data, &mut out, &ExecOptions::single_thread())?;
            Ok(out)
        })
        .collect()
}

/// The output shapes of [`split`] for these inputs.
pub fn split_output_shapes(
    data: &Tensor,
    axis: &Tensor,
    num_splits: u64,
) -> Result<Vec<Vec<usize>>, KernelError> {
    let parts = parts(data.shape(), axis, Lengths::Equal(num_splits))?;
    Ok(parts.views.iter().map(|v| v.shape().to_vec()).collect())
}

/// The output shapes of [`variadic_split`] for these inputs.
pub fn variadic_split_output_shapes(
    data: &Tensor,
    axis: &Tensor,
    lengths: &Tensor,
) -> Result<Vec<Vec<usize>>, KernelError> {
    let parts = parts(data.shape(), axis, Lengths::Given(lengths))?;
    Ok(parts.views.iter().map(|v| v.shape().to_vec()).collect())
}

/// Split-1: the data cut into `num_splits` equal parts along `axis` (an
/// integer scalar; negative counts from the end), which must divide
/// evenly. A part that is a contiguous stretch of whole-byte data shares
/// the data's storage.
///
/// ```
/// use ovir_exec::kernels::split;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[2, 4], (1..=8).collect::<Vec<i32>>())?;
/// let parts = split(&data, &Tensor::from_vec(&[], vec![-1i64])?, 2)?;
/// assert_eq!(parts[0].to_vec::<i32>()?, vec![1, 2, 5, 6]);
/// assert_eq!(parts[1].to_vec::<i32>()?, vec![3, 4, 7, 8]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn split(data: &Tensor, axis: &Tensor, num_splits: u64) -> Result<Vec<Tensor>, KernelError> {
    made_parts(&parts(data.shape(), axis, Lengths::Equal(num_splits))?, data)
}

/// VariadicSplit-1: the data cut along `axis` into parts of the lengths
/// `lengths` lists (a 1-D tensor; one length may be -1, for what the
/// others leave; they add up to the axis). A part that is a contiguous
/// stretch of whole-byte data shares the data's storage.
///
/// ```
/// use ovir_exec::kernels::variadic_split;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[6], (1..=6).collect::<Vec<i32>>())?;
/// let lengths = Tensor::from_vec(&[3], vec![1i64, -1, 0])?;
/// let parts = variadic_split(&data, &Tensor::from_vec(&[], vec![0i64])?, &lengths)?;
/// assert_eq!(parts[1].to_vec::<i32>()?, vec![2, 3, 4, 5, 6]);
/// assert_eq!(parts[2].shape(), &[0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn variadic_split(data: &Tensor, axis: &Tensor, lengths: &Tensor) -> Result<Vec<Tensor>, KernelError> {
    made_parts(&parts(data.shape(), axis, Lengths::Given(lengths))?, data)
}

/// [`split`] into outputs of the right types and shapes, one per part,
/// copied on several threads when large, keeping the parts it works out
/// in `scratch`.
pub fn split_into(
    data: &Tensor,
    axis: &Tensor,
    num_splits: u64,
    outs: &mut [Tensor],
    options: &ExecOptions,
    scratch: &mut SplitScratch,
) -> Result<(), KernelError> {
    copy_parts(scratch.parts(data, axis, Lengths::Equal(num_splits))?, data, outs, options)
}

/// [`variadic_split`] into outputs of the right types and shapes, one per
/// part, copied on several threads when large, keeping the parts it works
/// out in `scratch`.
pub fn variadic_split_into(
    data: &Tensor,
    axis: &Tensor,
    lengths: &Tensor,
    outs: &mut [Tensor],
    options: &ExecOptions,
    scratch: &mut SplitScratch,
) -> Result<(), KernelError> {
    copy_parts(scratch.parts(data, axis, Lengths::Given(lengths))?, data, outs, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(v: i64) -> Tensor {
        Tensor::from_vec(&[], vec![v]).unwrap()
    }

    fn i64s(values: &[i64]) -> Tensor {
        Tensor::from_vec(&[values.len()], values.to_vec()).unwrap()
    }

    /// `np.split(np.arange(n).reshape(dims), bounds, axis)` written out
    /// element by element: part `k` holds the elements whose index along
    /// `axis` lies in `[bounds[k], bounds[k+1])`, in order.
    fn naive(dims: &[usize], axis: usize, lens: &[usize]) -> Vec<Vec<i32>> {
        let n: usize = dims.iter().product();
        let mut starts = vec![0];
        for &l in lens {
            starts.push(starts.last().unwrap() + l);
        }
        let inner: usize = dims[axis + 1..].iter().product();
        let mut parts = vec![Vec::new(); lens.len()];
        for flat in 0..n {
            let i = (flat / inner) % dims[axis];
            let k = (0..lens.len()).find(|&k| starts[k] <= i && i < starts[k + 1]).unwrap();
            parts[k].push(flat as i32);
        }
        parts
    }

    #[test]
    fn equal_parts_along_every_axis_match_the_definition() {
        let dims = [2usize, 6, 4];
        let data = Tensor::from_vec(&dims, (0..48).collect::<Vec<i32>>()).unwrap();
        for (axis, n) in [(0i64, 2u64), (1, 3), (-1, 4), (-2, 2), (2, 1)] {
            let a = axis.rem_euclid(3) as usize;
            let parts = split(&data, &scalar(axis), n).unwrap();
            let want = naive(&dims, a, &vec![dims[a] / n as usize; n as usize]);
            assert_eq!(parts.len(), n as usize);
            for (k, (got, want)) in parts.iter().zip(&want).enumerate() {
                let mut shape = dims.to_vec();
                shape[a] /= n as usize;
                assert_eq!(got.shape(), shape.as_slice(), "axis {axis} part {k}");
                assert_eq!(&got.to_vec::<i32>().unwrap(), want, "axis {axis} part {k}");
            }
        }
    }

    #[test]
    fn parts_along_the_outermost_axis_share_the_data() {
        let data = Tensor::from_vec(&[1, 6, 2], (0..12).collect::<Vec<i32>>()).unwrap();
        let parts = variadic_split(&data, &scalar(1), &i64s(&[2, -1, 0, 1])).unwrap();
        assert_eq!(parts.iter().map(|p| p.shape()[1]).collect::<Vec<_>>(), [2, 3, 0, 1]);
        assert!(parts[0].is_view_of(&data, 0));
        assert!(parts[1].is_view_of(&data, 4));
        assert!(parts[3].is_view_of(&data, 10));
        assert_eq!(parts[1].to_vec::<i32>().unwrap(), [4, 5, 6, 7, 8, 9]);
        // Along an inner axis, a copy.
        let parts = split(&data, &scalar(2), 2).unwrap();
        assert!(!parts[0].shares_storage_with(&data));
        assert_eq!(parts[1].to_vec::<i32>().unwrap(), [1, 3, 5, 7, 9, 11]);
    }

    #[test]
    fn variadic_lengths_match_the_definition_and_bad_ones_are_refused() {
        let dims = [3usize, 7];
        let data = Tensor::from_vec(&dims, (0..21).collect::<Vec<i32>>()).unwrap();
        for lens in [[2i64, -1, 1], [0, 7, 0], [-1, 0, 0], [3, 3, 1]] {
            let parts = variadic_split(&data, &scalar(-1), &i64s(&lens)).unwrap();
            let known: i64 = lens.iter().filter(|&&l| l >= 0).sum();
            let resolved: Vec<usize> =
                lens.iter().map(|&l| if l < 0 { (7 - known) as usize } else { l as usize }).collect();
            let want = naive(&dims, 1, &resolved);
            for (got, want) in parts.iter().zip(&want) {
                assert_eq!(&got.to_vec::<i32>().unwrap(), want, "{lens:?}");
            }
        }
        for bad in [&[2i64, 2, 2][..], &[-1, -1, 7], &[8, -1, 0], &[-2, 9, 0], &[6]] {
            assert!(variadic_split(&data, &scalar(1), &i64s(bad)).is_err(), "{bad:?}");
        }
        // Reals are truncated, as OpenVINO reads them.
        let reals = Tensor::from_vec(&[2], vec![2.9f32, -1.0]).unwrap();
        let parts = variadic_split(&data, &Tensor::from_vec(&[1], vec![1.0f32]).unwrap(), &reals).unwrap();
        assert_eq!(parts[0].shape(), &[3, 2]);
    }

    #[test]
    fn bad_axes_and_uneven_splits_are_refused() {
        let data = Tensor::from_vec(&[2, 6], (0..12).collect::<Vec<i32>>()).unwrap();
        assert!(split(&data, &scalar(2), 2).is_err());
        assert!(split(&data, &scalar(-3), 2).is_err());
        assert!(split(&data, &scalar(1), 4).is_err());
        assert!(split(&data, &i64s(&[1]), 2).is_err(), "Split's axis is a scalar");
        assert!(split(&data, &Tensor::from_vec(&[], vec![1.0f32]).unwrap(), 2).is_err());
        let e = split(&data, &scalar(1), 5).unwrap_err();
        assert!(e.to_string().contains('5'), "{e}");
        // An empty axis splits into any number of empty parts, but not
        // into more than memory can list.
        let empty = Tensor::zeros(ElementType::F32, &[2, 0]).unwrap();
        assert_eq!(split(&empty, &scalar(1), 3).unwrap().len(), 3);
        assert!(split(&empty, &scalar(1), u64::MAX / 2).is_err());
    }

    #[test]
    fn strings_packed_codes_and_threads_are_cut_alike() {
        let words: Vec<String> = (0..6).map(|i| format!("w{i}")).collect();
        let data = Tensor::from_strings(&[1, 6], words).unwrap();
        let parts = variadic_split(&data, &scalar(1), &i64s(&[1, 5])).unwrap();
        assert_eq!(parts[1].strings().unwrap(), ["w1", "w2", "w3", "w4", "w5"]);
        let codes = Tensor::from_vec(&[2, 5], (0..10i64).collect::<Vec<_>>()).unwrap();
        let nibbles = crate::kernels::convert(&codes, ElementType::U4).unwrap();
        let parts = variadic_split(&nibbles, &scalar(0), &i64s(&[1, 1])).unwrap();
        let back = crate::kernels::convert(&parts[1], ElementType::I64).unwrap();
        assert_eq!(back.to_vec::<i64>().unwrap(), [5, 6, 7, 8, 9]);
        // Large parts on three threads, through the scratch twice.
        let dims = [64usize, 8, 48];
        let n: usize = dims.iter().product();
        let data = Tensor::from_vec(&dims, (0..n as i32).collect::<Vec<i32>>()).unwrap();
        let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        let mut scratch = SplitScratch::new();
        let mut outs: Vec<Tensor> =
            [3usize, 5].iter().map(|&l| Tensor::zeros(ElementType::I32, &[64, l, 48]).unwrap()).collect();
        for _ in 0..2 {
            variadic_split_into(&data, &scalar(1), &i64s(&[3, -1]), &mut outs, &options, &mut scratch)
                .unwrap();
            let want = naive(&dims, 1, &[3, 5]);
            assert_eq!(outs[0].to_vec::<i32>().unwrap(), want[0]);
            assert_eq!(outs[1].to_vec::<i32>().unwrap(), want[1]);
        }
        let mut outs = vec![Tensor::zeros(ElementType::I32, &[64, 4, 48]).unwrap()];
        assert!(
            split_into(&data, &scalar(1), 2, &mut outs, &options, &mut scratch).is_err(),
            "one output of two"
        );
    }
}
