//! Reshape, Squeeze and Unsqueeze: the same elements under a new shape.
//!
//! None of them moves an element: the output shares the input's storage,
//! so they cost no copy, whatever the size of the data.

use ovir_shape::rules::{int_values, reshape_shape, squeeze_shape, unsqueeze_shape};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{PartialShape, Tensor};

use super::KernelError;

/// The integer values of a 0-D or 1-D input.
fn values(op: &'static str, input: &'static str, t: &Tensor) -> Result<Vec<i64>, KernelError> {
    if t.rank() > 1 {
        return Err(ShapeErrorKind::InputShape {
            op,
            input,
            expected: "a scalar or a 1-D tensor",
            shape: PartialShape::from_static(t.shape()),
        }
        .into());
    }
    Ok(int_values(t).ok_or(ShapeErrorKind::IntegerInput { op, input, found: t.element_type() })?)
}

/// `data` viewed with the static form of `shape`.
fn view(op: &'static str, data: &Tensor, shape: PartialShape) -> Result<Tensor, KernelError> {
    shape.to_static().and_then(|s| data.reshaped(&s)).ok_or(KernelError::Internal { op })
}

/// Reshape-1: `data` with the shape held by `pattern` (a 0-D or 1-D
/// integer tensor). One -1 is inferred from the element count; with
/// `special_zero`, a 0 copies the input dimension at the same position.
///
/// ```
/// use ovir_exec::kernels::reshape;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[2, 3], vec![0u8, 1, 2, 3, 4, 5])?;
/// let pattern = Tensor::from_vec(&[2], vec![-1i64, 2])?;
/// assert_eq!(reshape(&data, &pattern, false)?.shape(), &[3, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reshape(data: &Tensor, pattern: &Tensor, special_zero: bool) -> Result<Tensor, KernelError> {
    let pattern = values("Reshape", "target shape", pattern)?;
    let shape = reshape_shape(&PartialShape::from_static(data.shape()), &pattern, special_zero)?;
    view("Reshape", data, shape)
}

/// Unsqueeze-1: `data` with an axis of size 1 inserted at each of `axes`
/// (a 0-D or 1-D integer tensor, counted against the output rank).
pub fn unsqueeze(data: &Tensor, axes: &Tensor) -> Result<Tensor, KernelError> {
    let axes = values("Unsqueeze", "axes", axes)?;
    let shape = unsqueeze_shape(&PartialShape::from_static(data.shape()), &axes)?;
    view("Unsqueeze", data, shape)
}

/// Squeeze-1: `data` without the listed axes of size 1 (listed axes of
/// another size stay), or without every axis of size 1 when `axes` is
/// `None` or empty.
pub fn squeeze(data: &Tensor, axes: Option<&Tensor>) -> Result<Tensor, KernelError> {
    let axes = axes.map(|a| values("Squeeze", "axes", a)).transpose()?;
    let shape = squeeze_shape(&PartialShape::from_static(data.shape()), axes.as_deref())?;
    view("Squeeze", data, shape)
}
