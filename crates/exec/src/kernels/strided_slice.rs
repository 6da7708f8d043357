//! StridedSlice: NumPy's basic indexing (`x[1:-1, ::-2, np.newaxis, 3,
//! ...]`) with begin, end and strides inputs and the op's five masks.
//!
//! `StridedSlice::slice_into` of `ovir_shape` resolves the inputs into
//! what each data axis takes (first, step, count; begin and end clamped
//! as OpenVINO clamps them) and the output shape. New axes (size 1) and
//! shrunk axes (one element, removed) do not change the order of the
//! elements, so the copy is the data's axes walked as taken, strides
//! negative where the slice steps backwards: one strided view
//! (`moves::View`).

use ovir_shape::ops::slice::SliceRange;
use ovir_shape::ops::StridedSlice;
use ovir_tensor::Tensor;
use smallvec::SmallVec;

use super::moves::{KeptView, View};
use super::slice::strided_copy;
use super::{ExecOptions, KernelError};

const OP: &str = "StridedSlice";

/// What a StridedSlice takes of its data: per data axis its range, and the
/// output shape, on the stack up to rank 8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Taken {
    pub(crate) ranges: SmallVec<[SliceRange; 8]>,
    pub(crate) shape: SmallVec<[usize; 8]>,
}

/// What `masks` take of data of shape `shape` with these begin, end and
/// strides (`None`: all 1).
pub(crate) fn taken(
    masks: &StridedSlice,
    shape: &[usize],
    begin: &Tensor,
    end: &Tensor,
    strides: Option<&Tensor>,
) -> Result<Taken, KernelError> {
    let rank = shape.len();
    let out_rank = match masks.output_rank(rank, begin.len()) {
        Ok(n) => n,
        Err(e) => {
            // Inputs of the wrong kind or length say so first.
            masks.slice_into(shape, begin, end, strides, &mut [], &mut [])?;
            return Err(e.into());
        }
    };
    let empty = SliceRange { first: 0, step: 1, len: 0 };
    let mut taken =
        Taken { ranges: smallvec::smallvec![empty; rank], shape: smallvec::smallvec![0; out_rank] };
    masks.slice_into(shape, begin, end, strides, &mut taken.ranges, &mut taken.shape)?;
    Ok(taken)
}

/// The copy that takes `taken` from data of shape `shape`.
pub(crate) fn layout(shape: &[usize], taken: &Taken) -> Result<View, KernelError> {
    strided_copy(OP, shape, &taken.ranges, taken.shape.to_vec())
}

/// The output shape of [`strided_slice`] for these inputs.
pub fn strided_slice_output_shape(
    data: &Tensor,
    begin: &Tensor,
    end: &Tensor,
    strides: Option<&Tensor>,
    masks: &StridedSlice,
) -> Result<Vec<usize>, KernelError> {
    Ok(taken(masks, data.shape(), begin, end, strides)?.shape.to_vec())
}

/// What [`strided_slice_into`] keeps between calls: the copy worked out
/// for the last data shape and the ranges it took, so that running it
/// again on the same ones allocates nothing.
#[derive(Debug, Default)]
pub struct StridedSliceScratch {
    last: KeptView<Taken>,
}

impl StridedSliceScratch {
    /// An empty scratch.
    pub fn new() -> StridedSliceScratch {
        StridedSliceScratch::default()
    }
}

/// StridedSlice-1: the data sliced as NumPy's basic indexing does, each of
/// the `n` values of `begin`, `end` and `strides` (1-D integer tensors of
/// one length; no strides: all 1) one index, which `masks` make a slice
/// `begin:end:stride` of the next data axis (begin or end left open by
/// `begin_mask` and `end_mask`), a new axis of size 1, a single element
/// whose axis goes (`shrink_axis_mask`), or the ellipsis. Negative bounds
/// count from the end and bounds past the axis are clamped as OpenVINO
/// clamps them; `begin == end` takes nothing; a stride of 0 and a shrunk
/// index outside its axis are errors.
///
/// ```
/// use ovir_exec::kernels::strided_slice;
/// use ovir_shape::ops::StridedSlice;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6])?;
/// let v = |x: [i64; 2]| Tensor::from_vec(&[2], x.to_vec());
/// // data[1, ::-1]
/// let masks = StridedSlice {
///     end_mask: vec![false, true],
///     shrink_axis_mask: vec![true, false],
///     ..StridedSlice::default()
/// };
/// let out = strided_slice(&data, &v([1, -1])?, &v([2, 0])?, Some(&v([1, -1])?), &masks)?;
/// assert_eq!(out.shape(), &[3]);
/// assert_eq!(out.to_vec::<i32>()?, vec![6, 5, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn strided_slice(
    data: &Tensor,
    begin: &Tensor,
    end: &Tensor,
    strides: Option<&Tensor>,
    masks: &StridedSlice,
) -> Result<Tensor, KernelError> {
    let view = layout(data.shape(), &taken(masks, data.shape(), begin, end, strides)?)?;
    let mut out = Tensor::zeros(data.element_type(), view.shape())?;
    view.run(data, &mut out, &ExecOptions::single_thread())?;
    Ok(out)
}

/// [`strided_slice`] into an output of the right type and shape, on several
/// threads when it is large, keeping the copy it works out in `scratch`.
#[allow(clippy::too_many_arguments)]
pub fn strided_slice_into(
    data: &Tensor,
    begin: &Tensor,
    end: &Tensor,
    strides: Option<&Tensor>,
    masks: &StridedSlice,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut StridedSliceScratch,
) -> Result<(), KernelError> {
    let taken = taken(masks, data.shape(), begin, end, strides)?;
    let shape = data.shape();
    let view = scratch.last.get(taken.clone(), shape, || layout(shape, &taken))?;
    view.run(data, out, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    fn i64s(values: &[i64]) -> Tensor {
        Tensor::from_vec(&[values.len()], values.to_vec()).unwrap()
    }

    fn mask(flags: &[u8]) -> Vec<bool> {
        flags.iter().map(|&f| f == 1).collect()
    }

    /// The elements of `np.arange(n).reshape(dims)` at every combination of
    /// the indices each data axis takes (`picks`, outermost first), in
    /// order: NumPy's basic indexing once new and shrunk axes, which hold
    /// one index or none, are set aside.
    fn naive(dims: &[usize], picks: &[Vec<usize>]) -> Vec<i32> {
        let mut out = vec![0usize];
        for (axis, pick) in picks.iter().enumerate() {
            out = out.iter().flat_map(|&base| pick.iter().map(move |&i| base * dims[axis] + i)).collect();
        }
        out.into_iter().map(|v| v as i32).collect()
    }

    fn check(
        masks: &StridedSlice,
        (begin, end, strides): (&[i64], &[i64], Option<&[i64]>),
        shape: &[usize],
        picks: &[Vec<usize>],
    ) {
        let dims = [3usize, 4, 5];
        let data = Tensor::from_vec(&dims, (0..60).collect::<Vec<i32>>()).unwrap();
        let strides = strides.map(i64s);
        let out = strided_slice(&data, &i64s(begin), &i64s(end), strides.as_ref(), masks).unwrap();
        assert_eq!(out.shape(), shape, "{begin:?} {end:?}");
        assert_eq!(out.to_vec::<i32>().unwrap(), naive(&dims, picks), "{begin:?} {end:?}");
    }

    #[test]
    fn numpy_indexing_with_every_mask_matches_the_definition() {
        // x[1:3, ::-2, np.newaxis, 2]
        let masks = StridedSlice {
            begin_mask: mask(&[0, 1, 0, 0]),
            end_mask: mask(&[0, 1, 0, 0]),
            new_axis_mask: mask(&[0, 0, 1, 0]),
            shrink_axis_mask: mask(&[0, 0, 0, 1]),
            ellipsis_mask: vec![],
        };
        let args = (&[1, 0, 0, 2][..], &[3, 0, 0, 3][..], Some(&[1, -2, 1, 1][..]));
        check(&masks, args, &[2, 2, 1], &[vec![1, 2], vec![3, 1], vec![2]]);
        // x[..., 1:4]
        let masks = StridedSlice { ellipsis_mask: mask(&[1, 0]), ..StridedSlice::default() };
        check(
            &masks,
            (&[0, 1], &[0, 4], None),
            &[3, 4, 3],
            &[vec![0, 1, 2], vec![0, 1, 2, 3], vec![1, 2, 3]],
        );
        // x[np.newaxis, -1, ..., ::-1] with the ellipsis between.
        let masks = StridedSlice {
            new_axis_mask: mask(&[1, 0, 0, 0]),
            shrink_axis_mask: mask(&[0, 1, 0, 0]),
            ellipsis_mask: mask(&[0, 0, 1, 0]),
            begin_mask: mask(&[0, 0, 0, 1]),
            end_mask: mask(&[0, 0, 0, 1]),
        };
        let args = (&[0, -1, 0, 0][..], &[0, 0, 0, 0][..], Some(&[1, 1, 1, -1][..]));
        check(&masks, args, &[1, 4, 5], &[vec![2], vec![0, 1, 2, 3], vec![4, 3, 2, 1, 0]]);
        // Fewer indices than axes: the others whole; x[-1:0:-2]
        let args = (&[-1][..], &[0][..], Some(&[-2][..]));
        check(&StridedSlice::default(), args, &[1, 4, 5], &[vec![2], vec![0, 1, 2, 3], vec![0, 1, 2, 3, 4]]);
    }

    #[test]
    fn bounds_are_clamped_as_openvino_clamps_them() {
        let none = StridedSlice::default();
        let all = |n: usize| (0..n).collect::<Vec<usize>>();
        // Out of range both ways: the whole axis.
        check(&none, (&[-100, 1], &[100, 1000], None), &[3, 3, 5], &[all(3), vec![1, 2, 3], all(5)]);
        // begin == end takes nothing (the spec's prose says one element).
        check(&none, (&[0, 2], &[3, 2], None), &[3, 0, 5], &[all(3), vec![], all(5)]);
        // A reversed slice whose begin is below -dim takes the first
        // element, as OpenVINO does (NumPy takes none).
        let args = (&[0, 0, -100][..], &[3, 4, -100][..], Some(&[1, 1, -1][..]));
        check(&none, args, &[3, 4, 1], &[all(3), all(4), vec![0]]);
        // Past the end with a negative stride: from the last element.
        let args = (&[7][..], &[-100][..], Some(&[-1][..]));
        check(&none, args, &[3, 4, 5], &[vec![2, 1, 0], all(4), all(5)]);
    }

    #[test]
    fn bad_inputs_are_refused() {
        let data = Tensor::from_vec(&[2, 3], (0..6).collect::<Vec<i32>>()).unwrap();
        let none = StridedSlice::default();
        let shrink = StridedSlice { shrink_axis_mask: mask(&[1]), ..StridedSlice::default() };
        let (b, e) = (i64s(&[0]), i64s(&[1]));
        assert!(strided_slice(&data, &b, &e, Some(&i64s(&[0])), &none).is_err(), "a stride of 0");
        assert!(strided_slice(&data, &i64s(&[2]), &e, None, &shrink).is_err(), "shrunk past the axis");
        assert!(strided_slice(&data, &i64s(&[-3]), &e, None, &shrink).is_err(), "shrunk before the axis");
        assert!(strided_slice(&data, &i64s(&[0, 0]), &e, None, &none).is_err(), "lengths differ");
        assert!(strided_slice(&data, &i64s(&[0, 0, 0]), &i64s(&[1, 1, 1]), None, &none).is_err(), "too many");
        let reals = Tensor::from_vec(&[1], vec![0.0f32]).unwrap();
        assert!(strided_slice(&data, &reals, &e, None, &none).is_err(), "begin of reals");
        let e = strided_slice(&data, &i64s(&[5]), &e, None, &shrink).unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
    }

    #[test]
    fn strings_packed_codes_and_threads_slice_alike() {
        let words: Vec<String> = (0..6).map(|i| format!("w{i}")).collect();
        let data = Tensor::from_strings(&[2, 3], words).unwrap();
        let masks =
            StridedSlice { begin_mask: mask(&[1, 1]), end_mask: mask(&[1, 1]), ..StridedSlice::default() };
        let (zeros, back) = (i64s(&[0, 0]), i64s(&[-1, -1]));
        let out = strided_slice(&data, &zeros, &zeros, Some(&back), &masks).unwrap();
        assert_eq!(out.strings().unwrap(), ["w5", "w4", "w3", "w2", "w1", "w0"]);
        let codes = Tensor::from_vec(&[2, 5], (0..10i64).collect::<Vec<_>>()).unwrap();
        let nibbles = crate::kernels::convert(&codes, ElementType::U4).unwrap();
        let out = strided_slice(
            &nibbles,
            &i64s(&[0, 4]),
            &i64s(&[2, 0]),
            Some(&i64s(&[1, -2])),
            &StridedSlice::default(),
        );
        let out = crate::kernels::convert(&out.unwrap(), ElementType::I64).unwrap();
        assert_eq!(out.to_vec::<i64>().unwrap(), [4, 2, 9, 7]);
        // A large flip on three threads, through the scratch twice.
        let dims = [64usize, 40, 30];
        let n: usize = dims.iter().product();
        let data = Tensor::from_vec(&dims, (0..n as i32).collect::<Vec<i32>>()).unwrap();
        let masks =
            StridedSlice { begin_mask: mask(&[1, 0]), end_mask: mask(&[1, 0]), ..StridedSlice::default() };
        let (begin, end, strides) = (i64s(&[0, 1]), i64s(&[0, 39]), i64s(&[-1, 3]));
        let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        let mut scratch = StridedSliceScratch::new();
        let mut out = Tensor::zeros(ElementType::I32, &[64, 13, 30]).unwrap();
        let picks = [(0..64).rev().collect(), (1..39).step_by(3).collect(), (0..30).collect()];
        for _ in 0..2 {
            strided_slice_into(&data, &begin, &end, Some(&strides), &masks, &mut out, &options, &mut scratch)
                .unwrap();
            assert_eq!(out.to_vec::<i32>().unwrap(), naive(&dims, &picks));
        }
    }
}
