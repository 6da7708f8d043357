//! Packed and 8-bit float tensors in their exchange form of one code per
//! byte, `bf16` tensors as their 16-bit patterns, and back.

use crate::element::ElementType;
use crate::packing::{
    exchange_range, exchange_type, is_packed, pack_into, sign_extend_i4, unpack_into, PackError,
};
use crate::tensor::Tensor;

/// A tensor in its exchange form: packed types become one `u8` code per
/// element (`i8` for `i4`, sign-extended), the 8-bit floats become their
/// `u8` bit patterns, `bf16` its `u16` ones, and every other tensor is
/// returned as it is (a clone sharing its storage).
///
/// ```
/// use ovir_tensor::packed::{pack, to_exchange};
/// use ovir_tensor::{ElementType, Tensor};
///
/// let t = Tensor::from_bytes(ElementType::I4, &[3], &pack(&[0xf, 7, 8], ElementType::I4)?)?;
/// assert_eq!(to_exchange(&t).to_vec::<i8>()?, vec![-1, 7, -8]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn to_exchange(tensor: &Tensor) -> Tensor {
    // A tensor's bytes always have the length its type and shape need, so
    // unpacking cannot fail; the fallback keeps this function total when
    // there is no memory for the result, which
    // [`try_to_exchange`] reports instead.
    try_to_exchange(tensor).unwrap_or_else(|_| tensor.clone())
}

/// [`to_exchange`], failing with [`TensorError::OutOfMemory`]
/// (as a [`PackError::Tensor`]) when there is no memory for the result.
///
/// [`TensorError::OutOfMemory`]: crate::TensorError::OutOfMemory
pub fn try_to_exchange(tensor: &Tensor) -> Result<Tensor, PackError> {
    let ty = tensor.element_type();
    let (Some(to), Some(bytes)) = (exchange_type(ty), tensor.bytes()) else {
        return Ok(tensor.clone());
    };
    // The codes are made straight in the result, with no copy between.
    let mut out = Tensor::zeros(to, tensor.shape())?;
    let codes = out.try_bytes_mut()?;
    if is_packed(ty) {
        unpack_into(bytes, ty, codes)?;
    } else {
        codes.copy_from_slice(bytes);
    }
    if ty == ElementType::I4 {
        sign_extend_i4(codes);
    }
    Ok(out)
}

/// A tensor of element type `ty` from its exchange form (see
/// [`to_exchange`]); every value must lie in [`exchange_range`] of `ty`.
///
/// When `ty` has no exchange form or `tensor` already has type `ty`, the
/// tensor is returned as it is.
pub fn from_exchange(tensor: &Tensor, ty: ElementType) -> Result<Tensor, PackError> {
    let (Some(expected), Some(range)) = (exchange_type(ty), exchange_range(ty)) else {
        return Ok(tensor.clone());
    };
    let found = tensor.element_type();
    if found == ty {
        return Ok(tensor.clone());
    }
    if found != expected {
        return Err(PackError::ExchangeType { ty, expected, found });
    }
    let bytes = tensor.bytes().ok_or(PackError::ExchangeType { ty, expected, found })?;
    // Every 16-bit pattern is a `bf16`: its bytes are its value.
    if expected.byte_width() == ty.byte_width() {
        return Ok(Tensor::from_bytes(ty, tensor.shape(), bytes)?);
    }
    let signed = expected == ElementType::I8;
    if let Some((index, value)) = bytes
        .iter()
        .map(|&b| if signed { i64::from(b as i8) } else { i64::from(b) })
        .enumerate()
        .find(|(_, v)| !range.contains(v))
    {
        return Err(PackError::OutOfRange { ty, index, value, range });
    }
    // Two's-complement codes keep only the type's own bits.
    let mask = ((1u16 << ty.bit_width()) - 1) as u8;
    let mut out = Tensor::zeros(ty, tensor.shape())?;
    if is_packed(ty) {
        // The masked codes need a buffer of their own, one byte each; a
        // tensor is one whose allocation can fail without aborting.
        let mut codes = Tensor::zeros(ElementType::U8, tensor.shape())?;
        let masked = codes.try_bytes_mut()?;
        masked.iter_mut().zip(bytes).for_each(|(c, &b)| *c = b & mask);
        pack_into(masked, ty, out.try_bytes_mut()?)?;
    } else {
        out.try_bytes_mut()?.iter_mut().zip(bytes).for_each(|(c, &b)| *c = b & mask);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exchange_checks_the_range() {
        let ok = Tensor::from_vec(&[3], vec![-8i8, 0, 7]).unwrap_or_else(|e| unreachable!("{e}"));
        let t = from_exchange(&ok, ElementType::I4).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(t.bytes(), Some(&[0x08, 0x07][..]));
        assert_eq!(to_exchange(&t), ok);
        let bad = Tensor::from_vec(&[2], vec![1u8, 16]).unwrap_or_else(|e| unreachable!("{e}"));
        let err = from_exchange(&bad, ElementType::U4).err().map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("element 1 is 16, outside the range 0 to 15 of u4"));
        let wrong = Tensor::from_vec(&[1], vec![1i8]).unwrap_or_else(|e| unreachable!("{e}"));
        assert!(matches!(from_exchange(&wrong, ElementType::U4), Err(PackError::ExchangeType { .. })));
        let f8 = Tensor::from_vec(&[2], vec![0x7fu8, 0x80]).unwrap_or_else(|e| unreachable!("{e}"));
        let t = from_exchange(&f8, ElementType::F8e4m3).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!((t.element_type(), t.bytes()), (ElementType::F8e4m3, Some(&[0x7f, 0x80][..])));
    }

    #[test]
    fn bf16_is_exchanged_as_its_bit_patterns() {
        // 1.0, -2.0 and a quiet NaN in bf16 (ml_dtypes' `view(np.uint16)`).
        let codes =
            Tensor::from_vec(&[3], vec![0x3f80u16, 0xc000, 0x7fc1]).unwrap_or_else(|e| unreachable!("{e}"));
        let t = from_exchange(&codes, ElementType::Bf16).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(t.element_type(), ElementType::Bf16);
        assert_eq!(t.bytes(), Some(&[0x80, 0x3f, 0x00, 0xc0, 0xc1, 0x7f][..]));
        assert_eq!(try_to_exchange(&t), Ok(codes));
        let wrong = Tensor::from_vec(&[1], vec![1u8]).unwrap_or_else(|e| unreachable!("{e}"));
        assert!(matches!(from_exchange(&wrong, ElementType::Bf16), Err(PackError::ExchangeType { .. })));
    }
}
