//! ShapeOf: the shape of a tensor as a 1-D integer tensor.

use ovir_tensor::{ElementType, Tensor};

use super::KernelError;

/// The shape of `data` as a 1-D tensor of `output_type`, which must be
/// `i32` or `i64`. A dimension that does not fit an `i32` is an error.
///
/// ```
/// use ovir_exec::kernels::shape_of;
/// use ovir_tensor::{ElementType, Tensor};
/// let data = Tensor::zeros(ElementType::F32, &[2, 3, 4])?;
/// assert_eq!(shape_of(&data, ElementType::I32)?.to_vec::<i32>()?, vec![2, 3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn shape_of(data: &Tensor, output_type: ElementType) -> Result<Tensor, KernelError> {
    let mut out = Tensor::zeros(output_type, &[data.rank()])?;
    shape_of_into(data, output_type, &mut out)?;
    Ok(out)
}

/// [`shape_of`] into an output of type `output_type` and shape `[rank]`.
pub fn shape_of_into(data: &Tensor, output_type: ElementType, out: &mut Tensor) -> Result<(), KernelError> {
    const OP: &str = "ShapeOf";
    super::checks::check_output(OP, output_type, &[data.rank()], out)?;
    let bytes = out.bytes_mut().ok_or(KernelError::Internal { op: OP, what: "the output holds no bytes" })?;
    match output_type {
        ElementType::I64 => {
            for (chunk, &d) in bytes.chunks_exact_mut(8).zip(data.shape()) {
                let v = i64::try_from(d).map_err(|_| KernelError::DimTooLarge {
                    op: OP,
                    dim: d,
                    ty: output_type,
                })?;
                chunk.copy_from_slice(&v.to_le_bytes());
            }
        }
        ElementType::I32 => {
            for (chunk, &d) in bytes.chunks_exact_mut(4).zip(data.shape()) {
                let v = i32::try_from(d).map_err(|_| KernelError::DimTooLarge {
                    op: OP,
                    dim: d,
                    ty: output_type,
                })?;
                chunk.copy_from_slice(&v.to_le_bytes());
            }
        }
        ty => return Err(KernelError::UnsupportedType { op: OP, ty }),
    }
    Ok(())
}
