//! Concat: tensors joined along one axis.

use ovir_shape::rules::concat_shape;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{PartialShape, Tensor};

use super::blocks::{count, Source, Target};
use super::KernelError;

const OP: &str = "Concat";

/// The output shape of [`concat`] and the normalised axis.
fn layout(inputs: &[&Tensor], axis: i64) -> Result<(Vec<usize>, usize), KernelError> {
    let first = inputs.first().ok_or(KernelError::Internal { op: OP })?;
    for (k, t) in inputs.iter().enumerate() {
        if t.element_type() != first.element_type() {
            return Err(ShapeErrorKind::InputTypes {
                op: OP,
                input: k,
                found: t.element_type(),
                expected: first.element_type(),
            }
            .into());
        }
    }
    let shapes: Vec<PartialShape> = inputs.iter().map(|t| PartialShape::from_static(t.shape())).collect();
    let (shape, a) = concat_shape(&shapes, axis)?;
    match (shape.to_static(), a) {
        (Some(s), Some(a)) => Ok((s, a)),
        _ => Err(KernelError::Internal { op: OP }),
    }
}

/// The output shape of [`concat`] for these inputs.
pub fn concat_output_shape(inputs: &[&Tensor], axis: i64) -> Result<Vec<usize>, KernelError> {
    Ok(layout(inputs, axis)?.0)
}

/// Concat-1: the inputs, which share their element type and every
/// dimension but `axis` (negative counts from the end), joined along
/// `axis`.
///
/// ```
/// use ovir_exec::kernels::concat;
/// use ovir_tensor::Tensor;
/// let a = Tensor::from_vec(&[1], vec![4i64])?;
/// let b = Tensor::from_vec(&[2], vec![5i64, 6])?;
/// assert_eq!(concat(&[&a, &b], 0)?.to_vec::<i64>()?, vec![4, 5, 6]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn concat(inputs: &[&Tensor], axis: i64) -> Result<Tensor, KernelError> {
    let (shape, _) = layout(inputs, axis)?;
    let ty = inputs.first().map(|t| t.element_type()).ok_or(KernelError::Internal { op: OP })?;
    let mut out = Tensor::zeros(ty, &shape)?;
    concat_into(inputs, axis, &mut out)?;
    Ok(out)
}

/// [`concat`] into an output of the right type and shape.
pub fn concat_into(inputs: &[&Tensor], axis: i64, out: &mut Tensor) -> Result<(), KernelError> {
    let (shape, a) = layout(inputs, axis)?;
    let ty = inputs.first().map(|t| t.element_type()).ok_or(KernelError::Internal { op: OP })?;
    super::check_output(OP, ty, &shape, out)?;
    let outer = count(&shape[..a]);
    let sources = inputs.iter().map(|t| Source::of(OP, t)).collect::<Result<Vec<_>, _>>()?;
    // Each input contributes, per index before the axis, one block of its
    // axis length times the size of the axes after it.
    let blocks: Vec<usize> = inputs.iter().map(|t| count(t.shape().get(a..).unwrap_or_default())).collect();
    let mut dst = Target::of(OP, out)?;
    let mut at = 0usize;
    for o in 0..outer {
        for (src, &block) in sources.iter().zip(&blocks) {
            dst.copy(at, src, o * block, block).ok_or(KernelError::Internal { op: OP })?;
            at += block;
        }
    }
    Ok(())
}
