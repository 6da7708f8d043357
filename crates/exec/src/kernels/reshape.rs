//! Reshape, Squeeze and Unsqueeze: the same elements under a new shape.
//!
//! None of them moves an element: the output shares the input's storage,
//! so they cost no copy, whatever the size of the data.

use ovir_shape::ops::reshape::reshape_shape;
use ovir_shape::ops::squeeze::squeeze_shape;
use ovir_shape::ops::unsqueeze::unsqueeze_shape;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{PartialShape, Tensor};

use super::checks::input_shape_error;
use super::integers::{read_ints, SmallInts, Wide};
use super::KernelError;

/// The three kernels of this module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum View {
    /// Reshape, with its `special_zero` attribute.
    Reshape {
        /// Whether a 0 in the target shape copies the input dimension.
        special_zero: bool,
    },
    /// Squeeze.
    Squeeze,
    /// Unsqueeze.
    Unsqueeze,
}

impl View {
    /// The operation's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            View::Reshape { .. } => "Reshape",
            View::Squeeze => "Squeeze",
            View::Unsqueeze => "Unsqueeze",
        }
    }
}

/// The output shape of `view` for data of shape `data`; `arg` is the
/// second input (the target shape, or the axes), which only Squeeze may
/// go without. A plan whose second input is constant and whose data
/// shape is static works it out when the model compiles.
pub(crate) fn view_shape(
    view: View,
    data: &[usize],
    arg: Option<&Tensor>,
) -> Result<Vec<usize>, KernelError> {
    let op = view.name();
    let data = PartialShape::from_static(data);
    let shape = match (view, arg) {
        (View::Reshape { special_zero }, Some(pattern)) => {
            reshape_shape(&data, &values(op, "target shape", pattern)?, special_zero)?
        }
        (View::Unsqueeze, Some(axes)) => unsqueeze_shape(&data, &values(op, "axes", axes)?)?,
        (View::Squeeze, axes) => {
            let axes = axes.map(|a| values(op, "axes", a)).transpose()?;
            squeeze_shape(&data, axes.as_deref())?
        }
        (View::Reshape { .. } | View::Unsqueeze, None) => {
            return Err(KernelError::Internal { op, what: "the second input is missing" })
        }
    };
    shape
        .to_static()
        .ok_or(KernelError::Internal { op, what: "the view of a static shape gave a dynamic shape" })
}

/// The integer values of a 0-D or 1-D input.
fn values(op: &'static str, input: &'static str, t: &Tensor) -> Result<SmallInts, KernelError> {
    if t.rank() > 1 {
        return Err(input_shape_error(op, input, "a scalar or a 1-D tensor", t));
    }
    Ok(read_ints(t, Wide::Refuse).ok_or(ShapeErrorKind::IntegerInput {
        op,
        input,
        found: t.element_type(),
    })?)
}

/// `data` viewed as `view` with second input `arg` makes it.
pub(crate) fn view(view: View, data: &Tensor, arg: Option<&Tensor>) -> Result<Tensor, KernelError> {
    let shape = view_shape(view, data.shape(), arg)?;
    data.reshaped(&shape).ok_or(KernelError::Internal {
        op: view.name(),
        what: "the view's shape has another element count than the data",
    })
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
    view(View::Reshape { special_zero }, data, Some(pattern))
}

/// Unsqueeze-1: `data` with an axis of size 1 inserted at each of `axes`
/// (a 0-D or 1-D integer tensor, counted against the output rank).
pub fn unsqueeze(data: &Tensor, axes: &Tensor) -> Result<Tensor, KernelError> {
    view(View::Unsqueeze, data, Some(axes))
}

/// Squeeze-1: `data` without the listed axes of size 1 (listed axes of
/// another size stay), or without every axis of size 1 when `axes` is
/// `None` or empty.
pub fn squeeze(data: &Tensor, axes: Option<&Tensor>) -> Result<Tensor, KernelError> {
    view(View::Squeeze, data, axes)
}
