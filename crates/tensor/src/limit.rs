//! Memory limits: how many bytes a tensor needs, and whether that fits.
//!
//! Shapes come from untrusted files, so a size is computed before anything
//! is allocated for it, with arithmetic that cannot overflow, and compared
//! with a limit the embedder chooses.

use crate::element::ElementType;
use crate::error::{ByteCount, TensorError};

/// The memory limit used when none is given: 16 GiB for any one tensor.
///
/// Large enough for any real model on a workstation, small enough that a
/// hostile shape fails with an error instead of exhausting the machine.
pub const DEFAULT_MAX_TENSOR_BYTES: u64 = 16 << 30;

/// The bytes a tensor of this type and shape takes in memory, computed in
/// 128 bits so that no shape of `usize` dimensions overflows it unnoticed;
/// `None` when even that overflows.
///
/// A `string` element counts as the size of its `String` handle (the text
/// itself comes on top); `dynamic` elements count as nothing.
pub fn memory_bytes(ty: ElementType, shape: &[usize]) -> Option<u128> {
    let count = shape.iter().try_fold(1u128, |acc, &d| acc.checked_mul(d as u128))?;
    let bits = match ty {
        ElementType::String => 8 * std::mem::size_of::<String>() as u128,
        _ => ty.bit_width() as u128,
    };
    count.checked_mul(bits)?.checked_add(7).map(|b| b / 8)
}

/// Checks that a tensor of this type and shape fits in `limit` bytes.
///
/// The error says how many bytes the tensor needs and what the limit is.
pub fn check_memory(ty: ElementType, shape: &[usize], limit: u64) -> Result<(), TensorError> {
    let needed = memory_bytes(ty, shape);
    match needed {
        Some(n) if n <= u128::from(limit) => Ok(()),
        _ => Err(TensorError::OverLimit { ty, shape: shape.to_vec(), needed: ByteCount(needed), limit }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_exact_and_never_overflow() {
        assert_eq!(memory_bytes(ElementType::F32, &[2, 3]), Some(24));
        assert_eq!(memory_bytes(ElementType::U4, &[3]), Some(2));
        assert_eq!(
            memory_bytes(ElementType::F32, &[1_000_000, 1_000_000, 1_000_000]),
            Some(4_000_000_000_000_000_000)
        );
        assert_eq!(memory_bytes(ElementType::F32, &[usize::MAX, usize::MAX, usize::MAX]), None);
    }

    #[test]
    fn the_error_names_the_bytes_needed_and_the_limit() {
        let err = check_memory(ElementType::F32, &[1_000_000, 1_000_000, 1_000_000], 1 << 30).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("4000000000000000000 bytes (3.5 EiB)"), "{text}");
        assert!(text.contains("limit of 1073741824 bytes"), "{text}");
        assert!(check_memory(ElementType::F32, &[256, 1024, 1024], 1 << 30).is_ok());
        let err = check_memory(ElementType::I8, &[usize::MAX, usize::MAX, 2], 1).unwrap_err();
        assert!(err.to_string().contains("more than 2^128 bytes"), "{err}");
    }
}
