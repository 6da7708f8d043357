//! Gather: slices of the data along one axis, picked by indices.

use ovir_shape::ops::gather::gather_shape;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{ElementType, PartialShape, Tensor};

use super::blocks::{count, Source, Target};
use super::checks::input_shape_error;
use super::integers::{read_ints, Wide};
use super::KernelError;

const OP: &str = "Gather";

/// How one Gather runs on data and indices of given shapes: the output
/// shape and the flattened sizes. A plan whose axis is constant and whose
/// data and indices shapes are static works it out when the model
/// compiles; the indices themselves are read on every run.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    data_shape: Vec<usize>,
    indices_shape: Vec<usize>,
    shape: Vec<usize>,
    /// Product of the first `batch_dims` dimensions.
    batches: usize,
    /// Product of the data dimensions between `batch_dims` and the axis.
    outer: usize,
    /// The size of the data axis.
    axis_len: usize,
    /// Product of the data dimensions after the axis.
    inner: usize,
    /// Indices per batch.
    per_batch: usize,
}

/// The [`Layout`] of a Gather of data of shape `data` by indices of type
/// `indices_type` and shape `indices`.
pub(crate) fn layout(
    data: &[usize],
    indices_type: ElementType,
    indices: &[usize],
    axis: &Tensor,
    batch_dims: i64,
) -> Result<Layout, KernelError> {
    if !indices_type.is_integral() {
        return Err(ShapeErrorKind::IntegerInput { op: OP, input: "indices", found: indices_type }.into());
    }
    let axis_type = axis.element_type();
    let axis_value = match read_ints(axis, Wide::Refuse).as_deref() {
        Some([a]) => *a,
        Some(_) => return Err(input_shape_error(OP, "axis", "a scalar or a tensor of one element", axis)),
        None => return Err(ShapeErrorKind::IntegerInput { op: OP, input: "axis", found: axis_type }.into()),
    };
    let g = gather_shape(
        &PartialShape::from_static(data),
        &PartialShape::from_static(indices),
        Some(axis_value),
        batch_dims,
    )?;
    let internal = KernelError::Internal {
        op: OP,
        what: "the layout of static shapes left the shape, axis or batch_dims unknown",
    };
    let (Some(shape), Some(a), Some(b)) = (g.shape.to_static(), g.axis, g.batch_dims) else {
        return Err(internal);
    };
    let d = data;
    Ok(Layout {
        data_shape: data.to_vec(),
        indices_shape: indices.to_vec(),
        shape,
        batches: d.get(..b).and_then(count).ok_or_else(|| internal.clone())?,
        outer: d.get(b..a).and_then(count).ok_or_else(|| internal.clone())?,
        axis_len: d.get(a).copied().ok_or_else(|| internal.clone())?,
        inner: d.get(a + 1..).and_then(count).ok_or_else(|| internal.clone())?,
        per_batch: indices.get(b..).and_then(count).ok_or(internal)?,
    })
}

/// The output shape of [`gather`] for these inputs.
pub fn gather_output_shape(
    data: &Tensor,
    indices: &Tensor,
    axis: &Tensor,
    batch_dims: i64,
) -> Result<Vec<usize>, KernelError> {
    Ok(layout(data.shape(), indices.element_type(), indices.shape(), axis, batch_dims)?.shape)
}

/// Gather-8: for each index along `axis` (the value of a one-element
/// integer tensor), the slice of `data` at that index. Negative indices
/// count from the end of the axis; an index outside the axis gives a slice
/// of zeros (empty strings), as OpenVINO's reference does. The first
/// `batch_dims` dimensions of data and indices are matched one to one.
///
/// ```
/// use ovir_exec::kernels::gather;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[3, 2], vec![1i32, 2, 3, 4, 5, 6])?;
/// let indices = Tensor::from_vec(&[2], vec![-1i64, 0])?;
/// let axis = Tensor::from_vec(&[], vec![0i32])?;
/// assert_eq!(gather(&data, &indices, &axis, 0)?.to_vec::<i32>()?, vec![5, 6, 1, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn gather(
    data: &Tensor,
    indices: &Tensor,
    axis: &Tensor,
    batch_dims: i64,
) -> Result<Tensor, KernelError> {
    let shape = gather_output_shape(data, indices, axis, batch_dims)?;
    let mut out = Tensor::zeros(data.element_type(), &shape)?;
    gather_into(data, indices, axis, batch_dims, &mut out, &mut GatherScratch::new())?;
    Ok(out)
}

/// What [`gather_into`] keeps between calls: the indices, as read, so
/// that running it again on indices of the same size allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct GatherScratch {
    indices: Vec<i128>,
}

impl GatherScratch {
    /// An empty scratch; it allocates on first use and then keeps its
    /// memory.
    pub const fn new() -> GatherScratch {
        GatherScratch { indices: Vec::new() }
    }
}

/// [`gather`] into an output of the right type and shape, reading the
/// indices into `scratch`, so that running it again on indices of the same
/// size allocates nothing.
pub fn gather_into(
    data: &Tensor,
    indices: &Tensor,
    axis: &Tensor,
    batch_dims: i64,
    out: &mut Tensor,
    scratch: &mut GatherScratch,
) -> Result<(), KernelError> {
    layout(data.shape(), indices.element_type(), indices.shape(), axis, batch_dims)?
        .run(data, indices, out, scratch)
}

impl Layout {
    /// Whether this layout was worked out for data and indices of these
    /// shapes.
    pub(crate) fn fits(&self, data: &Tensor, indices: &Tensor) -> bool {
        data.shape() == self.data_shape.as_slice() && indices.shape() == self.indices_shape.as_slice()
    }

    /// The output shape.
    pub(crate) fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Gathers from `data` by `indices`, which must fit this layout, into
    /// `out`, reading the indices into `scratch`.
    pub(crate) fn run(
        &self,
        data: &Tensor,
        indices: &Tensor,
        out: &mut Tensor,
        scratch: &mut GatherScratch,
    ) -> Result<(), KernelError> {
        let internal =
            || KernelError::Internal { op: OP, what: "the indices do not fit the layout or the output" };
        if !self.fits(data, indices) {
            return Err(internal());
        }
        super::checks::check_output(OP, data.element_type(), &self.shape, out)?;
        let index_values = &mut scratch.indices;
        index_values.clear();
        super::error::try_reserve(index_values, indices.len(), OP, "indices")?;
        let read = ovir_shape::try_for_each_integer(indices, |i| {
            index_values.push(i);
            Ok::<(), KernelError>(())
        });
        read.ok_or_else(internal)??;
        let src = Source::of(OP, data)?;
        let mut dst = Target::of(OP, out)?;
        let axis_len = self.axis_len as i128;
        let mut at = 0usize;
        for batch in 0..self.batches {
            let batch_indices = index_values
                .get(batch * self.per_batch..(batch + 1) * self.per_batch)
                .ok_or_else(internal)?;
            for o in 0..self.outer {
                let base = (batch * self.outer + o) * self.axis_len;
                for &i in batch_indices {
                    let k = if i < 0 { i + axis_len } else { i };
                    let done = if (0..axis_len).contains(&k) {
                        dst.copy(at, &src, (base + k as usize) * self.inner, self.inner)
                    } else {
                        dst.zero(at, self.inner)
                    };
                    done.ok_or_else(internal)?;
                    at += self.inner;
                }
            }
        }
        Ok(())
    }
}
