//! GatherND: slices of the data picked by tuples of indices.

use ovir_shape::ops::gather_elements::index_in;
use ovir_shape::ops::gather_nd::gather_nd_shape;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{ElementType, PartialShape, Tensor};
use smallvec::SmallVec;

use super::indexed::{IndexScratch, OffsetGather};
use super::{ExecOptions, KernelError};

const OP: &str = "GatherND";

/// How a GatherND runs on data and indices of given shapes. A plan whose
/// shapes are static works it out when the model compiles; the indices
/// are read on every run.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    data_shape: Vec<usize>,
    indices_shape: Vec<usize>,
    shape: Vec<usize>,
    /// Tuples in all.
    tuples: usize,
    /// Tuples per batch.
    per_batch: usize,
    /// Data elements per batch.
    batch_stride: usize,
    /// Elements of the slice each tuple picks.
    slice: usize,
    /// For each index of a tuple, the size of the data dimension it picks
    /// from and that dimension's stride.
    picks: SmallVec<[(u64, usize); 8]>,
    /// Negative indices count from the end (both versions, as OpenVINO
    /// runs them).
    negative: bool,
}

/// The [`Layout`] of a GatherND-`version` with `batch_dims` of data of
/// shape `data` by indices of type `indices_type` and shape `indices`.
pub(crate) fn layout(
    data: &[usize],
    indices_type: ElementType,
    indices: &[usize],
    batch_dims: u64,
    version: u32,
) -> Result<Layout, KernelError> {
    if !indices_type.is_integral() {
        return Err(ShapeErrorKind::IntegerInput { op: OP, input: "indices", found: indices_type }.into());
    }
    let shape = gather_nd_shape(
        &PartialShape::from_static(data),
        &PartialShape::from_static(indices),
        batch_dims,
        version,
    )?;
    let internal =
        || KernelError::Internal { op: OP, what: "the shapes of static inputs left the output unknown" };
    let shape = shape.to_static().ok_or_else(internal)?;
    let count = |s: Option<&[usize]>| s.and_then(ovir_tensor::element_count).ok_or_else(internal);
    let batch = usize::try_from(batch_dims).map_err(|_| internal())?;
    let length = indices.last().copied().ok_or_else(internal)?;
    let rest = batch.checked_add(length).ok_or_else(internal)?;
    let mut picks = SmallVec::new();
    for k in batch..rest {
        let size = data.get(k).copied().ok_or_else(internal)?;
        picks.push((size as u64, count(data.get(k + 1..))?));
    }
    Ok(Layout {
        tuples: count(indices.get(..indices.len() - 1))?,
        per_batch: count(indices.get(batch..indices.len() - 1))?,
        batch_stride: count(data.get(batch..))?,
        slice: count(data.get(rest..))?,
        picks,
        negative: true,
        data_shape: data.to_vec(),
        indices_shape: indices.to_vec(),
        shape,
    })
}

/// The output shape of [`gather_nd`] for these inputs.
pub fn gather_nd_output_shape(
    data: &Tensor,
    indices: &Tensor,
    batch_dims: u64,
    version: u32,
) -> Result<Vec<usize>, KernelError> {
    Ok(layout(data.shape(), indices.element_type(), indices.shape(), batch_dims, version)?.shape)
}

/// GatherND-5 (`version` 5) and GatherND-8 (`version` 8): for each tuple
/// along the last axis of `indices` (any integer type), the slice of
/// `data` it picks, after `batch_dims` leading dimensions that data and
/// indices share. GatherND-8 keeps the batch dimensions in the output;
/// GatherND-5 folds two or more batch dimensions into one. Both take
/// indices in `[-s, s)`, counting negative ones from the end (GatherND-5's
/// spec asks for `[0, s)`, but OpenVINO's reference and CPU plugin both
/// count them). An index out of range is an error naming it and its
/// position.
///
/// ```
/// use ovir_exec::kernels::gather_nd;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4])?;
/// // Elements by [row, column] pairs, and rows by one index.
/// let pairs = Tensor::from_vec(&[2, 2], vec![0i64, 0, 1, 0])?;
/// assert_eq!(gather_nd(&data, &pairs, 0, 8)?.to_vec::<i32>()?, vec![1, 3]);
/// let rows = Tensor::from_vec(&[2, 1], vec![-1i64, 0])?;
/// assert_eq!(gather_nd(&data, &rows, 0, 8)?.to_vec::<i32>()?, vec![3, 4, 1, 2]);
/// assert_eq!(gather_nd(&data, &rows, 0, 5)?.to_vec::<i32>()?, vec![3, 4, 1, 2]);
/// let past = Tensor::from_vec(&[1, 1], vec![2i64])?;
/// assert!(gather_nd(&data, &past, 0, 5).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn gather_nd(
    data: &Tensor,
    indices: &Tensor,
    batch_dims: u64,
    version: u32,
) -> Result<Tensor, KernelError> {
    let shape = gather_nd_output_shape(data, indices, batch_dims, version)?;
    let mut out = Tensor::zeros(data.element_type(), &shape)?;
    let options = ExecOptions::single_thread();
    gather_nd_into(data, indices, batch_dims, version, &mut out, &options, &mut GatherNdScratch::new())?;
    Ok(out)
}

/// What [`gather_nd_into`] keeps between calls: the source offset of each
/// tuple's slice and the copy they make, so that running it again on
/// indices of the same size allocates nothing.
pub type GatherNdScratch = IndexScratch;

/// [`gather_nd`] into an output of the right type and shape, on several
/// threads when it is large, keeping its working memory in `scratch`.
pub fn gather_nd_into(
    data: &Tensor,
    indices: &Tensor,
    batch_dims: u64,
    version: u32,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut GatherNdScratch,
) -> Result<(), KernelError> {
    layout(data.shape(), indices.element_type(), indices.shape(), batch_dims, version)?
        .run(data, indices, out, options, scratch)
}

impl OffsetGather for Layout {
    const OP: &'static str = OP;

    fn data_shape(&self) -> &[usize] {
        &self.data_shape
    }

    fn indices_shape(&self) -> &[usize] {
        &self.indices_shape
    }

    fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// One tuple's slice a unit.
    fn unit(&self) -> usize {
        self.slice
    }

    fn offsets(&self, indices: &Tensor, offsets: &mut Vec<isize>) -> Result<(), KernelError> {
        let internal = || KernelError::Internal { op: OP, what: "an offset overflows" };
        let tuples = self.tuples;
        offsets.clear();
        super::error::try_reserve(offsets, tuples, OP, "indices")?;
        let wide = |n: usize| isize::try_from(n).map_err(|_| internal());
        let batch_stride = wide(self.batch_stride)?;
        let (mut tuple, mut k, mut offset) = (0usize, 0usize, 0isize);
        let mut flat = 0usize;
        let negative = self.negative;
        let read = ovir_shape::try_for_each_integer(indices, |i| {
            let &(size, stride) = self.picks.get(k).ok_or_else(internal)?;
            let at = index_in(OP, i, size, negative, flat, indices.shape())?;
            let step = isize::try_from(at).ok().and_then(|a| a.checked_mul(wide(stride).ok()?));
            offset = step.and_then(|s| offset.checked_add(s)).ok_or_else(internal)?;
            flat += 1;
            k += 1;
            if k == self.picks.len() {
                let base =
                    wide(tuple / self.per_batch.max(1))?.checked_mul(batch_stride).ok_or_else(internal)?;
                offsets.push(base.checked_add(offset).ok_or_else(internal)?);
                (k, offset) = (0, 0);
                tuple += 1;
            }
            Ok::<(), KernelError>(())
        });
        read.ok_or(ShapeErrorKind::IntegerInput {
            op: OP,
            input: "indices",
            found: indices.element_type(),
        })??;
        // Tuples of no index pick their whole batch.
        if self.picks.is_empty() {
            for t in 0..tuples {
                offsets
                    .push(wide(t / self.per_batch.max(1))?.checked_mul(batch_stride).ok_or_else(internal)?);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GatherND-8 from its definition: for batch `b` and tuple `t`, the
    /// slice `data[b][t[0]][t[1]]…`, written out element by element.
    fn naive(data: &[i32], dims: &[usize], indices: &[i64], ishape: &[usize], batch: usize) -> Vec<i32> {
        let length = *ishape.last().unwrap();
        let batches: usize = dims[..batch].iter().product();
        let per_batch: usize = ishape[batch..ishape.len() - 1].iter().product();
        let batch_size: usize = dims[batch..].iter().product();
        let slice: usize = dims[batch + length..].iter().product();
        let mut out = Vec::new();
        for b in 0..batches {
            for t in 0..per_batch {
                let tuple = &indices[(b * per_batch + t) * length..][..length];
                let mut at = 0usize;
                for (k, &i) in tuple.iter().enumerate() {
                    let size = dims[batch + k] as i64;
                    at = at * dims[batch + k] + (if i < 0 { i + size } else { i }) as usize;
                }
                let start = b * batch_size + at * slice;
                out.extend_from_slice(&data[start..start + slice]);
            }
        }
        out
    }

    #[test]
    fn every_tuple_length_and_batch_matches_the_definition() {
        let dims = [2usize, 3, 4, 5];
        let data: Vec<i32> = (0..120).collect();
        let t = Tensor::from_vec(&dims, data.clone()).unwrap();
        for batch in 0..3usize {
            for length in 0..=(4 - batch) {
                let mut ishape: Vec<usize> = dims[..batch].to_vec();
                ishape.extend([2, length]);
                let n: usize = ishape.iter().product();
                let indices: Vec<i64> = (0..n)
                    .map(|i| {
                        let size = dims[batch + i % length.max(1)] as i64;
                        let v = (i as i64 * 7 + 1) % size;
                        if i % 3 == 0 {
                            v - size
                        } else {
                            v
                        }
                    })
                    .collect();
                let want = naive(&data, &dims, &indices, &ishape, batch);
                let it = Tensor::from_vec(&ishape, indices.clone()).unwrap();
                let got = gather_nd(&t, &it, batch as u64, 8).unwrap();
                assert_eq!(got.to_vec::<i32>().unwrap(), want, "batch {batch} length {length}");
                let mut shape = ishape[..ishape.len() - 1].to_vec();
                shape.extend(&dims[batch + length..]);
                assert_eq!(got.shape(), &shape[..]);
                // GatherND-5: the same elements, two or more batch
                // dimensions folded into one, and no negative index.
                let positive: Vec<i64> = indices
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| if v < 0 { v + dims[batch + i % length.max(1)] as i64 } else { v })
                    .collect();
                let got =
                    gather_nd(&t, &Tensor::from_vec(&ishape, positive).unwrap(), batch as u64, 5).unwrap();
                assert_eq!(got.to_vec::<i32>().unwrap(), want);
                if batch > 1 {
                    assert_eq!(got.shape()[0], dims[..batch].iter().product::<usize>());
                    assert_eq!(got.shape()[1..], shape[batch..]);
                }
            }
        }
    }

    /// The spec's examples 1 to 7.
    #[test]
    fn the_specs_examples() {
        let square = Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4]).unwrap();
        let i = |shape: &[usize], v: Vec<i64>| Tensor::from_vec(shape, v).unwrap();
        let run = |data: &Tensor, idx: Tensor, b: u64, v: u32| {
            let out = gather_nd(data, &idx, b, v).unwrap();
            (out.shape().to_vec(), out.to_vec::<i32>().unwrap())
        };
        assert_eq!(run(&square, i(&[2, 2], vec![0, 0, 1, 0]), 0, 8), (vec![2], vec![1, 3]));
        assert_eq!(run(&square, i(&[2, 1], vec![1, 0]), 0, 8), (vec![2, 2], vec![3, 4, 1, 2]));
        assert_eq!(run(&square, i(&[2, 1, 1], vec![1, 0]), 0, 8), (vec![2, 1, 2], vec![3, 4, 1, 2]));
        assert_eq!(run(&square, i(&[2, 1], vec![1, 0]), 1, 8), (vec![2], vec![2, 3]));
        let cube = Tensor::from_vec(&[2, 3, 4], (1..=24).collect::<Vec<i32>>()).unwrap();
        assert_eq!(run(&cube, i(&[2, 1], vec![1, 0]), 1, 8), (vec![2, 4], vec![5, 6, 7, 8, 13, 14, 15, 16]));
        let six = i(&[2, 3, 1, 1], vec![1, 0, 2, 0, 2, 2]);
        assert_eq!(run(&cube, six.clone(), 2, 8), (vec![2, 3, 1], vec![2, 5, 11, 13, 19, 23]));
        assert_eq!(run(&cube, six, 2, 5), (vec![6, 1], vec![2, 5, 11, 13, 19, 23]));
        let four = Tensor::from_vec(&[1, 2, 2, 4], (1..=16).collect::<Vec<i32>>()).unwrap();
        assert_eq!(run(&four, i(&[1, 2, 2, 1], vec![1, 0, 3, 2]), 3, 8), (vec![1, 2, 2], vec![2, 5, 12, 15]));
    }

    #[test]
    fn an_index_out_of_range_names_itself_and_its_position() {
        let data = Tensor::from_vec(&[2, 3], vec![1u8, 2, 3, 4, 5, 6]).unwrap();
        let indices = Tensor::from_vec(&[2, 2], vec![1i32, 2, 1, 3]).unwrap();
        let err = gather_nd(&data, &indices, 0, 8).unwrap_err();
        let want = ShapeErrorKind::IndexOutOfRange {
            op: OP,
            position: vec![1, 1],
            index: 3,
            size: 3,
            negative: true,
        };
        assert_eq!(err, KernelError::Shape(want));
        assert!(err.to_string().contains("between -3 and 2"), "{err}");
        // Both versions count a negative index from the end, down to -s.
        let indices = Tensor::from_vec(&[1, 2], vec![-1i64, 0]).unwrap();
        for version in [5, 8] {
            assert_eq!(gather_nd(&data, &indices, 0, version).unwrap().to_vec::<u8>().unwrap(), [4]);
        }
        let indices = Tensor::from_vec(&[1, 2], vec![-3i64, 0]).unwrap();
        assert!(gather_nd(&data, &indices, 0, 5).is_err());
        assert!(gather_nd(&data, &indices, 0, 8).is_err());
    }

    #[test]
    fn every_integer_type_indexes_and_floats_are_refused() {
        let data = Tensor::from_vec(&[3], vec![10i16, 11, 12]).unwrap();
        let want = [12i16, 10];
        let idx = [2i64, 0];
        for ty in [
            ElementType::I8,
            ElementType::U8,
            ElementType::I16,
            ElementType::U16,
            ElementType::I32,
            ElementType::U32,
            ElementType::U64,
            ElementType::U4,
            ElementType::I4,
        ] {
            let indices =
                super::super::convert(&Tensor::from_vec(&[2, 1], idx.to_vec()).unwrap(), ty).unwrap();
            assert_eq!(gather_nd(&data, &indices, 0, 8).unwrap().to_vec::<i16>().unwrap(), want, "{ty}");
        }
        let floats = Tensor::from_vec(&[1, 1], vec![0f32]).unwrap();
        let err = gather_nd(&data, &floats, 0, 8).unwrap_err();
        assert_eq!(
            err,
            KernelError::Shape(ShapeErrorKind::IntegerInput {
                op: OP,
                input: "indices",
                found: ElementType::F32
            })
        );
    }

    #[test]
    fn strings_and_packed_types_move_element_by_element() {
        let words = Tensor::from_strings(&[2, 2], ["a", "bc", "", "d"].map(String::from).to_vec()).unwrap();
        let indices = Tensor::from_vec(&[3, 1], vec![1i32, 0, 1]).unwrap();
        let out = gather_nd(&words, &indices, 0, 8).unwrap();
        assert_eq!(out.strings().unwrap(), ["", "d", "a", "bc", "", "d"]);
        let values = Tensor::from_vec(&[2, 3], vec![1i64, 2, 3, 4, 5, 15]).unwrap();
        let codes = super::super::convert(&values, ElementType::U4).unwrap();
        let pairs = Tensor::from_vec(&[3, 2], vec![1i64, 2, 0, 0, 1, 1]).unwrap();
        let back =
            super::super::convert(&gather_nd(&codes, &pairs, 0, 8).unwrap(), ElementType::I64).unwrap();
        assert_eq!(back.to_vec::<i64>().unwrap(), [15, 1, 5]);
    }

    #[test]
    fn empty_slices_and_tuples_give_empty_outputs() {
        let data = Tensor::from_vec(&[2, 0], Vec::<f32>::new()).unwrap();
        let indices = Tensor::from_vec(&[3, 1], vec![1i64, 0, 1]).unwrap();
        assert_eq!(gather_nd(&data, &indices, 0, 8).unwrap().shape(), [3, 0]);
        let data = Tensor::from_vec(&[2, 2], vec![1f32; 4]).unwrap();
        let none = Tensor::from_vec(&[0, 1], Vec::<i64>::new()).unwrap();
        assert_eq!(gather_nd(&data, &none, 0, 8).unwrap().shape(), [0, 2]);
    }
}
