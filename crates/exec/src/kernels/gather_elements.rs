//! GatherElements: one data element per index, along an axis.

use ovir_shape::ops::gather_elements::{gather_elements_shape, index_in};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{ElementType, PartialShape, Tensor};

use super::indexed::{IndexScratch, OffsetGather};
use super::{ExecOptions, KernelError};

const OP: &str = "GatherElements";

/// How a GatherElements runs on data and indices of given shapes. A plan
/// whose shapes are static works it out when the model compiles; the
/// indices are read on every run.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    data_shape: Vec<usize>,
    /// The indices' shape, which is the output's.
    shape: Vec<usize>,
    /// The size of the data axis gathered along.
    axis_len: usize,
    /// Indices along the axis.
    count: usize,
    /// Product of the dimensions after the axis.
    inner: usize,
}

/// The [`Layout`] of a GatherElements along `axis` of data of shape
/// `data` by indices of type `indices_type` and shape `indices`.
pub(crate) fn layout(
    data: &[usize],
    indices_type: ElementType,
    indices: &[usize],
    axis: i64,
) -> Result<Layout, KernelError> {
    if !matches!(indices_type, ElementType::I32 | ElementType::I64) {
        return Err(ShapeErrorKind::IndexType { op: OP, input: "indices", found: indices_type }.into());
    }
    let (shape, axis) =
        gather_elements_shape(&PartialShape::from_static(data), &PartialShape::from_static(indices), axis)?;
    let internal =
        || KernelError::Internal { op: OP, what: "the shapes of static inputs left the output unknown" };
    let (Some(shape), Some(axis)) = (shape.to_static(), axis) else {
        return Err(internal());
    };
    Ok(Layout {
        data_shape: data.to_vec(),
        axis_len: data.get(axis).copied().ok_or_else(internal)?,
        count: shape.get(axis).copied().ok_or_else(internal)?,
        inner: shape.get(axis + 1..).and_then(ovir_tensor::element_count).ok_or_else(internal)?,
        shape,
    })
}

/// The output shape of [`gather_elements`] for these inputs.
pub fn gather_elements_output_shape(
    data: &Tensor,
    indices: &Tensor,
    axis: i64,
) -> Result<Vec<usize>, KernelError> {
    Ok(layout(data.shape(), indices.element_type(), indices.shape(), axis)?.shape)
}

/// GatherElements-6: for each index (i32 or i64), the data element at that
/// index along `axis` (negative counts from the end) and at the index's
/// own position along every other axis, as NumPy's `take_along_axis`.
/// The output has the indices' shape; an index outside `[0, size)` of the
/// axis is an error naming it and its position.
///
/// ```
/// use ovir_exec::kernels::gather_elements;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4])?;
/// let indices = Tensor::from_vec(&[2, 2], vec![0i32, 1, 0, 0])?;
/// assert_eq!(gather_elements(&data, &indices, 0)?.to_vec::<i32>()?, vec![1, 4, 1, 2]);
/// let bad = Tensor::from_vec(&[2, 2], vec![0i32, 1, 2, 0])?;
/// let err = gather_elements(&data, &bad, 0).unwrap_err().to_string();
/// assert!(err.contains("index 2 at position [1, 0]"), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn gather_elements(data: &Tensor, indices: &Tensor, axis: i64) -> Result<Tensor, KernelError> {
    let shape = gather_elements_output_shape(data, indices, axis)?;
    let mut out = Tensor::zeros(data.element_type(), &shape)?;
    gather_elements_into(
        data,
        indices,
        axis,
        &mut out,
        &ExecOptions::single_thread(),
        &mut GatherElementsScratch::new(),
    )?;
    Ok(out)
}

/// What [`gather_elements_into`] keeps between calls: the source offset
/// of every index and the copy they make, so that running it again on
/// indices of the same size allocates nothing.
pub type GatherElementsScratch = IndexScratch;

/// [`gather_elements`] into an output of the data's type and the indices'
/// shape, on several threads when it is large, keeping its working
/// memory in `scratch`.
pub fn gather_elements_into(
    data: &Tensor,
    indices: &Tensor,
    axis: i64,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut GatherElementsScratch,
) -> Result<(), KernelError> {
    layout(data.shape(), indices.element_type(), indices.shape(), axis)?
        .run(data, indices, out, options, scratch)
}

impl OffsetGather for Layout {
    const OP: &'static str = OP;

    fn data_shape(&self) -> &[usize] {
        &self.data_shape
    }

    fn indices_shape(&self) -> &[usize] {
        &self.shape
    }

    fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// One output element a unit.
    fn unit(&self) -> usize {
        1
    }

    fn offsets(&self, indices: &Tensor, offsets: &mut Vec<isize>) -> Result<(), KernelError> {
        let internal = || KernelError::Internal { op: OP, what: "an offset overflows" };
        let wide = |n: usize| isize::try_from(n).map_err(|_| internal());
        let (inner, count) = (self.inner, self.count);
        let block = wide(self.axis_len.checked_mul(inner).ok_or_else(internal)?)?;
        let inner_step = wide(inner)?;
        let size = self.axis_len as u64;
        offsets.clear();
        super::error::try_reserve(offsets, indices.len(), OP, "indices")?;
        // The output element's position: `o` blocks of the data's axis and
        // inner dimensions, `j` along the inner ones.
        let (mut base, mut j, mut along) = (0isize, 0usize, 0usize);
        let mut flat = 0usize;
        let read = ovir_shape::try_for_each_integer(indices, |i| {
            let k = index_in(OP, i, size, false, flat, indices.shape())?;
            let k = isize::try_from(k).map_err(|_| internal())?;
            let offset = k.checked_mul(inner_step).and_then(|o| o.checked_add(base)).ok_or_else(internal)?;
            offsets.push(offset.checked_add(j as isize).ok_or_else(internal)?);
            flat += 1;
            j += 1;
            if j == inner {
                j = 0;
                along += 1;
                if along == count {
                    along = 0;
                    base = base.checked_add(block).ok_or_else(internal)?;
                }
            }
            Ok::<(), KernelError>(())
        });
        read.ok_or(ShapeErrorKind::IntegerInput {
            op: OP,
            input: "indices",
            found: indices.element_type(),
        })??;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `np.take_along_axis(data, indices, axis)` written out element by
    /// element.
    fn naive(data: &[i32], dims: &[usize], indices: &[i64], shape: &[usize], axis: usize) -> Vec<i32> {
        let mut out = Vec::new();
        for (flat, &index) in indices.iter().enumerate() {
            let mut rest = flat;
            let mut at = vec![0; shape.len()];
            for a in (0..shape.len()).rev() {
                at[a] = rest % shape[a];
                rest /= shape[a];
            }
            at[axis] = index as usize;
            out.push(data[at.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i)]);
        }
        out
    }

    #[test]
    fn every_axis_matches_take_along_axis() {
        let dims = [3usize, 4, 5];
        let data: Vec<i32> = (0..60).collect();
        let t = Tensor::from_vec(&dims, data.clone()).unwrap();
        for axis in 0..3 {
            for along in [1usize, 2, 7] {
                let mut shape = dims.to_vec();
                shape[axis] = along;
                let n: usize = shape.iter().product();
                let indices: Vec<i64> = (0..n).map(|i| ((i * 7 + 3) % dims[axis]) as i64).collect();
                let want = naive(&data, &dims, &indices, &shape, axis);
                let got =
                    gather_elements(&t, &Tensor::from_vec(&shape, indices.clone()).unwrap(), axis as i64)
                        .unwrap();
                assert_eq!(
                    (got.shape(), got.to_vec::<i32>().unwrap()),
                    (&shape[..], want.clone()),
                    "{axis} {along}"
                );
                // The axis counted from the end, and i32 indices.
                let i32s: Vec<i32> = indices.iter().map(|&i| i as i32).collect();
                let got =
                    gather_elements(&t, &Tensor::from_vec(&shape, i32s).unwrap(), axis as i64 - 3).unwrap();
                assert_eq!(got.to_vec::<i32>().unwrap(), want);
            }
        }
    }

    #[test]
    fn an_index_out_of_range_names_itself_and_its_position() {
        let data = Tensor::from_vec(&[2, 3], vec![1u8, 2, 3, 4, 5, 6]).unwrap();
        for (bad, at) in [(3i64, [1usize, 0]), (-1, [0, 1])] {
            let mut values = vec![0i64, 2, 1, 0];
            values[at[0] * 2 + at[1]] = bad;
            let indices = Tensor::from_vec(&[2, 2], values).unwrap();
            let err = gather_elements(&data, &indices, 1).unwrap_err();
            assert_eq!(
                err,
                KernelError::Shape(ShapeErrorKind::IndexOutOfRange {
                    op: OP,
                    position: at.to_vec(),
                    index: bad.into(),
                    size: 3,
                    negative: false,
                })
            );
            assert!(err.to_string().contains("an index must lie between 0 and 2"), "{err}");
        }
    }

    #[test]
    fn indices_of_other_types_are_refused() {
        let data = Tensor::from_vec(&[2], vec![1u8, 2]).unwrap();
        for indices in
            [Tensor::from_vec(&[1], vec![0u32]).unwrap(), Tensor::from_vec(&[1], vec![0f32]).unwrap()]
        {
            let ty = indices.element_type();
            assert_eq!(
                gather_elements(&data, &indices, 0).unwrap_err(),
                KernelError::Shape(ShapeErrorKind::IndexType { op: OP, input: "indices", found: ty })
            );
        }
    }

    #[test]
    fn strings_and_packed_types_move_element_by_element() {
        let words = Tensor::from_strings(&[3], ["a", "bc", ""].map(String::from).to_vec()).unwrap();
        let indices = Tensor::from_vec(&[4], vec![2i32, 0, 1, 1]).unwrap();
        let out = gather_elements(&words, &indices, 0).unwrap();
        assert_eq!(out.strings().unwrap(), ["", "a", "bc", "bc"]);
        let values = Tensor::from_vec(&[5], vec![1i64, 2, 3, 4, 15]).unwrap();
        let codes = super::super::convert(&values, ElementType::U4).unwrap();
        let indices = Tensor::from_vec(&[6], vec![4i64, 0, 3, 1, 1, 2]).unwrap();
        let out = gather_elements(&codes, &indices, 0).unwrap();
        let back = super::super::convert(&out, ElementType::I64).unwrap();
        assert_eq!(back.to_vec::<i64>().unwrap(), [15, 1, 4, 2, 2, 3]);
    }

    #[test]
    fn empty_indices_give_an_empty_output() {
        let data = Tensor::from_vec(&[2, 3], vec![1f32; 6]).unwrap();
        let indices = Tensor::from_vec(&[2, 0], Vec::<i64>::new()).unwrap();
        assert_eq!(gather_elements(&data, &indices, 1).unwrap().shape(), [2, 0]);
    }
}
