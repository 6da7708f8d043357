//! Broadcast: the data repeated to fill a target shape.

use ovir_shape::ops::broadcast::broadcast_shape;
use ovir_shape::{BroadcastMode, ShapeErrorKind};
use ovir_tensor::{Dim, PartialShape, Tensor};
use smallvec::SmallVec;

use super::checks::input_shape_error;
use super::integers::{read_ints, SmallInts, Wide};
use super::moves::{Step, View};
use super::{ExecOptions, KernelError};

const OP: &str = "Broadcast";

/// How one Broadcast runs on data of one shape: the output shape, and for
/// each output axis the step in the data per index along it (0 where the
/// data is repeated). A plan whose target shape is constant and whose data
/// shape is static works it out when the model compiles.
pub(crate) type Layout = View;

fn values(t: &Tensor, input: &'static str) -> Result<SmallInts, KernelError> {
    let values = read_ints(t, Wide::Refuse).ok_or(ShapeErrorKind::IntegerInput {
        op: OP,
        input,
        found: t.element_type(),
    })?;
    if t.rank() != 1 {
        return Err(input_shape_error(OP, input, "a 1-D tensor", t));
    }
    Ok(values)
}

/// The [`Layout`] of a Broadcast of data of shape `data`.
pub(crate) fn layout(
    data: &[usize],
    target: &Tensor,
    axes_mapping: Option<&Tensor>,
    mode: BroadcastMode,
) -> Result<Layout, KernelError> {
    let target = values(target, "target shape")?;
    if let Some((index, &value)) = target.iter().enumerate().find(|(_, &v)| v < 0) {
        return Err(ShapeErrorKind::NegativeValue { op: OP, input: "target shape", index, value }.into());
    }
    let target_dims: Vec<Dim> = target.iter().map(|&v| Dim::fixed(v as u64)).collect();
    let mapping = match (mode, axes_mapping) {
        (BroadcastMode::Explicit, Some(m)) => Some(values(m, "axes_mapping")?),
        (BroadcastMode::Explicit, None) => {
            return Err(ShapeErrorKind::AxesMappingInput { mode: mode.as_str(), explicit: true }.into())
        }
        _ => None,
    };
    let shape = broadcast_shape(
        mode,
        &PartialShape::from_static(data),
        Some(&target_dims),
        Some(target.len()),
        mapping.as_deref(),
    )?
    .to_static()
    .ok_or(KernelError::Internal { op: OP, what: "the broadcast of static shapes gave a dynamic shape" })?;
    // The data's dimensions placed on the output axes they line up with;
    // the other axes have size 1.
    let rank = shape.len();
    let mut aligned = vec![1usize; rank];
    match mapping {
        Some(m) => {
            for (&d, &axis) in data.iter().zip(&m) {
                if let Some(slot) = usize::try_from(axis).ok().and_then(|a| aligned.get_mut(a)) {
                    *slot = d;
                }
            }
        }
        None => {
            let start = rank
                .checked_sub(data.len())
                .ok_or(KernelError::Internal { op: OP, what: "the output has a lower rank than the data" })?;
            aligned[start..].copy_from_slice(data);
        }
    }
    let mut strides = vec![0usize; rank];
    let mut step = 1usize;
    for k in (0..rank).rev() {
        strides[k] = if aligned[k] == 1 { 0 } else { step };
        step = step.checked_mul(aligned[k]).ok_or(KernelError::Internal {
            op: OP,
            what: "the element count of the aligned data shape overflows",
        })?;
    }
    let wide = || KernelError::Internal { op: OP, what: "a stride of the data does not fit an isize" };
    let axes: SmallVec<[(usize, Step); 8]> = shape
        .iter()
        .zip(&strides)
        .map(|(&n, &s)| Ok((n, Step::Stride(isize::try_from(s).map_err(|_| wide())?))))
        .collect::<Result<_, KernelError>>()?;
    View::new(OP, data, shape, 0, &axes)
}

/// The output shape of [`broadcast`] for these inputs.
pub fn broadcast_output_shape(
    data: &Tensor,
    target: &Tensor,
    axes_mapping: Option<&Tensor>,
    mode: BroadcastMode,
) -> Result<Vec<usize>, KernelError> {
    Ok(layout(data.shape(), target, axes_mapping, mode)?.shape().to_vec())
}

/// Broadcast-1 and Broadcast-3: `data` repeated to fill the shape held by
/// `target` (a 1-D integer tensor). In numpy mode the axes line up from
/// the end and the output has the target shape; in explicit mode
/// `axes_mapping` says which output axis each data axis lands on; in
/// bidirectional mode the two shapes broadcast against each other.
///
/// ```
/// use ovir_exec::kernels::broadcast;
/// use ovir_shape::BroadcastMode;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[], vec![7i32])?;
/// let target = Tensor::from_vec(&[1], vec![3i64])?;
/// let out = broadcast(&data, &target, None, BroadcastMode::Numpy)?;
/// assert_eq!(out.to_vec::<i32>()?, vec![7, 7, 7]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn broadcast(
    data: &Tensor,
    target: &Tensor,
    axes_mapping: Option<&Tensor>,
    mode: BroadcastMode,
) -> Result<Tensor, KernelError> {
    let shape = broadcast_output_shape(data, target, axes_mapping, mode)?;
    let mut out = Tensor::zeros(data.element_type(), &shape)?;
    broadcast_into(data, target, axes_mapping, mode, &mut out)?;
    Ok(out)
}

/// [`broadcast`] into an output of the right type and shape.
pub fn broadcast_into(
    data: &Tensor,
    target: &Tensor,
    axes_mapping: Option<&Tensor>,
    mode: BroadcastMode,
    out: &mut Tensor,
) -> Result<(), KernelError> {
    layout(data.shape(), target, axes_mapping, mode)?.run(data, out, &ExecOptions::single_thread())
}
