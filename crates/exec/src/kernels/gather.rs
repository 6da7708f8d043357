//! Gather: slices of the data along one axis, picked by indices.

use ovir_shape::rules::{gather_shape, int_values};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{PartialShape, Tensor};

use super::blocks::{count, Source, Target};
use super::KernelError;

const OP: &str = "Gather";

/// How one Gather runs: the output shape and the flattened sizes.
struct Layout {
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

fn layout(data: &Tensor, indices: &Tensor, axis: &Tensor, batch_dims: i64) -> Result<Layout, KernelError> {
    if !indices.element_type().is_integral() {
        return Err(
            ShapeErrorKind::IntegerInput { op: OP, input: "indices", found: indices.element_type() }.into()
        );
    }
    let axis_type = axis.element_type();
    let axis_value = match int_values(axis).as_deref() {
        Some([a]) => *a,
        Some(_) => {
            return Err(ShapeErrorKind::InputShape {
                op: OP,
                input: "axis",
                expected: "a scalar or a tensor of one element",
                shape: PartialShape::from_static(axis.shape()),
            }
            .into())
        }
        None => return Err(ShapeErrorKind::IntegerInput { op: OP, input: "axis", found: axis_type }.into()),
    };
    let g = gather_shape(
        &PartialShape::from_static(data.shape()),
        &PartialShape::from_static(indices.shape()),
        Some(axis_value),
        batch_dims,
    )?;
    let internal = KernelError::Internal { op: OP };
    let (Some(shape), Some(a), Some(b)) = (g.shape.to_static(), g.axis, g.batch_dims) else {
        return Err(internal);
    };
    let d = data.shape();
    Ok(Layout {
        shape,
        batches: count(d.get(..b).ok_or_else(|| internal.clone())?),
        outer: count(d.get(b..a).ok_or_else(|| internal.clone())?),
        axis_len: d.get(a).copied().ok_or_else(|| internal.clone())?,
        inner: count(d.get(a + 1..).ok_or_else(|| internal.clone())?),
        per_batch: count(indices.shape().get(b..).ok_or(internal)?),
    })
}

/// The output shape of [`gather`] for these inputs.
pub fn gather_output_shape(
    data: &Tensor,
    indices: &Tensor,
    axis: &Tensor,
    batch_dims: i64,
) -> Result<Vec<usize>, KernelError> {
    Ok(layout(data, indices, axis, batch_dims)?.shape)
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
    gather_into(data, indices, axis, batch_dims, &mut out)?;
    Ok(out)
}

/// [`gather`] into an output of the right type and shape.
pub fn gather_into(
    data: &Tensor,
    indices: &Tensor,
    axis: &Tensor,
    batch_dims: i64,
    out: &mut Tensor,
) -> Result<(), KernelError> {
    let l = layout(data, indices, axis, batch_dims)?;
    super::check_output(OP, data.element_type(), &l.shape, out)?;
    let index_values = indices.integer_values().ok_or(KernelError::Internal { op: OP })?;
    let src = Source::of(OP, data)?;
    let mut dst = Target::of(OP, out)?;
    let axis_len = l.axis_len as i128;
    let mut at = 0usize;
    for batch in 0..l.batches {
        let batch_indices = index_values
            .get(batch * l.per_batch..(batch + 1) * l.per_batch)
            .ok_or(KernelError::Internal { op: OP })?;
        for o in 0..l.outer {
            let base = (batch * l.outer + o) * l.axis_len;
            for &i in batch_indices {
                let k = if i < 0 { i + axis_len } else { i };
                let done = if (0..axis_len).contains(&k) {
                    dst.copy(at, &src, (base + k as usize) * l.inner, l.inner)
                } else {
                    dst.zero(at, l.inner)
                };
                done.ok_or(KernelError::Internal { op: OP })?;
                at += l.inner;
            }
        }
    }
    Ok(())
}
