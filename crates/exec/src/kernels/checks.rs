//! Checks that every kernel makes of its inputs and output.

use ovir_tensor::packed::is_packed;
use ovir_tensor::{ElementType, Tensor};

use super::KernelError;

/// Checks that `op` can move elements of `ty`: whole-byte types, strings,
/// and the packed sub-byte types (which reach the run plans unpacked, one
/// code per byte; see `packed`, which the checks themselves serve).
pub(super) fn check_movable(op: &'static str, ty: ElementType) -> Result<(), KernelError> {
    if ty == ElementType::String || matches!(ty.byte_width(), Some(1 | 2 | 4 | 8)) || is_packed(ty) {
        Ok(())
    } else {
        Err(KernelError::UnsupportedType { op, ty })
    }
}

/// Checks that an `_into` output has the type and shape the kernel
/// produces.
pub(super) fn check_output(
    op: &'static str,
    ty: ElementType,
    shape: &[usize],
    out: &Tensor,
) -> Result<(), KernelError> {
    if out.element_type() == ty && out.shape() == shape {
        Ok(())
    } else {
        Err(KernelError::OutputMismatch {
            op,
            expected_ty: ty,
            expected_shape: shape.to_vec(),
            found_ty: out.element_type(),
            found_shape: out.shape().to_vec(),
        })
    }
}

/// The error for input `input` of `op` whose shape `t` has is not what the
/// operation accepts, `expected`, said in words.
pub(super) fn input_shape_error(
    op: &'static str,
    input: &'static str,
    expected: &'static str,
    t: &Tensor,
) -> KernelError {
    let shape = ovir_tensor::PartialShape::from_static(t.shape());
    ovir_shape::ShapeErrorKind::InputShape { op, input, expected, shape }.into()
}
