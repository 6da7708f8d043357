//! The packed sub-byte element types, laid out in bytes exactly as OpenVINO
//! lays them out, and their exchange form of one element per byte.
//!
//! Six element types take less than a byte: `u1`, `u2`, `u3`, `u4`, `u6`,
//! and the 4-bit `i4`, `nf4` and `f4e2m1`. Each element is a *code*, an
//! unsigned number of that many bits (for `i4` the two's-complement bit
//! pattern, for `nf4` and `f4e2m1` the index or bit pattern of the value).
//! OpenVINO 2026.4 stores them as follows, where element `i` of a tensor is
//! the `i`-th element in row-major order:
//!
//! | type | bytes | where element `i` lives |
//! |---|---|---|
//! | `u1` | ⌈n / 8⌉ | byte `i / 8`, bit `7 - i % 8` (the first element is the most significant bit) |
//! | `u2` | ⌈n / 4⌉ | byte `i / 4`, bits from `2 * (i % 4)` up (the first element is in the lowest bits) |
//! | `u4`, `i4`, `nf4`, `f4e2m1` | ⌈n / 2⌉ | byte `i / 2`; even elements in the low nibble, odd ones in the high nibble |
//! | `u3` | 3 × ⌈n / 8⌉ | groups of 8 elements in 3 bytes: bytes 0 and 1 hold the low 2 bits of elements 0–3 and 4–7, first element in the top two bits; byte 2 holds bit 2 of elements 0–7, first element in bit 7 |
//! | `u6` | 3 × ⌈n / 4⌉ | groups of 4 elements in 3 bytes: bytes 0 and 1 hold the low 4 bits of elements 0–1 and 2–3, first element in the high nibble; byte 2 holds bits 4–5 of elements 0–3, first element in the top two bits |
//!
//! Bits past the last element are written as zeros. These orders are the
//! ones OpenVINO's serializer writes into `.bin` files and its CPU plugin
//! reads back; a unit test pins them against bytes it wrote.
//!
//! Files and command lines exchange packed tensors *unpacked*: one code per
//! `u8`, or per `i8` for `i4`, whose codes are read as signed numbers
//! (−8 to 7). The 8-bit float formats (`f8e4m3`, `f8e5m2`, `f8e8m0`) have no
//! NumPy type either, so they are exchanged as `u8` bit patterns.
//!
//! ```
//! use ovir_tensor::packed::{pack, unpack};
//! use ovir_tensor::ElementType;
//!
//! let bytes = pack(&[1, 2, 3], ElementType::U4)?;
//! assert_eq!(bytes, vec![0x21, 0x03]);
//! assert_eq!(unpack(&bytes, ElementType::U4, 3)?, vec![1, 2, 3]);
//! # Ok::<(), ovir_tensor::packed::PackError>(())
//! ```

use std::ops::RangeInclusive;

use crate::element::ElementType;
use crate::tensor::{Tensor, TensorError};

/// Errors from packing and unpacking sub-byte elements.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PackError {
    /// The element type is not one of the packed sub-byte types.
    #[error("{ty} is not a packed sub-byte type")]
    NotPacked {
        /// The type given.
        ty: ElementType,
    },
    /// The element type has no unpacked exchange form (it is stored as it
    /// is exchanged, or is `string` or `dynamic`).
    #[error("{ty} has no unpacked form: it is exchanged as it is stored")]
    NoExchangeForm {
        /// The type given.
        ty: ElementType,
    },
    /// The packed bytes are not as many as the element count needs.
    #[error("{count} elements of {ty} take {expected} bytes, but {found} were given")]
    ByteLength {
        /// The element type.
        ty: ElementType,
        /// The number of elements.
        count: usize,
        /// Bytes the elements take.
        expected: usize,
        /// Bytes given.
        found: usize,
    },
    /// A value does not fit the element type.
    #[error("element {index} is {value}, outside the range {} to {} of {ty}", range.start(), range.end())]
    OutOfRange {
        /// The element type.
        ty: ElementType,
        /// Position of the value, in row-major order.
        index: usize,
        /// The value.
        value: i64,
        /// The values the type can hold.
        range: RangeInclusive<i64>,
    },
    /// An unpacked tensor has another element type than the exchange form.
    #[error("{ty} elements are exchanged as {expected}, but a {found} tensor was given")]
    ExchangeType {
        /// The packed type.
        ty: ElementType,
        /// The exchange type it takes.
        expected: ElementType,
        /// The type given.
        found: ElementType,
    },
    /// The tensor could not be built.
    #[error(transparent)]
    Tensor(#[from] TensorError),
}

/// `true` for the types that pack several elements into a byte: `u1`,
/// `u2`, `u3`, `u4`, `u6`, `i4`, `nf4` and `f4e2m1`.
pub const fn is_packed(ty: ElementType) -> bool {
    matches!(ty.bit_width(), 1..=7)
}

/// The element type a tensor of `ty` is exchanged as in `.npy` files and on
/// the command line: `i8` for `i4`, `u8` for the other packed types and the
/// 8-bit floats; `None` for types that NumPy holds as they are.
pub const fn exchange_type(ty: ElementType) -> Option<ElementType> {
    match ty {
        ElementType::I4 => Some(ElementType::I8),
        ElementType::U1
        | ElementType::U2
        | ElementType::U3
        | ElementType::U4
        | ElementType::U6
        | ElementType::Nf4
        | ElementType::F4e2m1
        | ElementType::F8e4m3
        | ElementType::F8e5m2
        | ElementType::F8e8m0 => Some(ElementType::U8),
        _ => None,
    }
}

/// The values an exchanged element of `ty` may hold: `0..=2^bits - 1`, and
/// `-8..=7` for `i4`; `None` for types without an exchange form.
pub fn exchange_range(ty: ElementType) -> Option<RangeInclusive<i64>> {
    exchange_type(ty)?;
    if ty == ElementType::I4 {
        return Some(-8..=7);
    }
    Some(0..=(1i64 << ty.bit_width()) - 1)
}

/// Bytes that `count` packed elements of `ty` take; `None` when `ty` is not
/// packed or the size overflows.
///
/// `u3` and `u6` are stored in whole groups of three bytes (8 and 4
/// elements), the others bit after bit.
pub fn packed_bytes(ty: ElementType, count: usize) -> Option<usize> {
    match ty {
        ElementType::U3 => count.div_ceil(8).checked_mul(3),
        ElementType::U6 => count.div_ceil(4).checked_mul(3),
        _ if is_packed(ty) => count.checked_mul(ty.bit_width()).map(|bits| bits.div_ceil(8)),
        _ => None,
    }
}

/// The codes of the first `count` elements of packed `bytes`, one per byte,
/// in element order.
pub fn unpack(bytes: &[u8], ty: ElementType, count: usize) -> Result<Vec<u8>, PackError> {
    let mut codes = vec![0; count];
    unpack_into(bytes, ty, &mut codes)?;
    Ok(codes)
}

/// [`unpack`] into `codes`, one element per byte of it.
///
/// Walks the data a group of bytes at a time. Each call reads all of
/// `bytes`, so unpacking is a full pass over the tensor.
pub fn unpack_into(bytes: &[u8], ty: ElementType, codes: &mut [u8]) -> Result<(), PackError> {
    check_len(ty, codes.len(), bytes.len())?;
    match ty {
        ElementType::U1 => {
            for (group, &b) in codes.chunks_mut(8).zip(bytes) {
                for (k, c) in group.iter_mut().enumerate() {
                    *c = (b >> (7 - k)) & 1;
                }
            }
        }
        ElementType::U2 => {
            for (group, &b) in codes.chunks_mut(4).zip(bytes) {
                for (k, c) in group.iter_mut().enumerate() {
                    *c = (b >> (2 * k)) & 3;
                }
            }
        }
        ElementType::U3 => {
            for (group, b) in codes.chunks_mut(8).zip(bytes.chunks_exact(3)) {
                let &[b0, b1, high] = b else { continue };
                let low = u16::from_be_bytes([b0, b1]);
                for (k, c) in group.iter_mut().enumerate() {
                    let lo = (low >> (2 * (7 - k))) & 3;
                    let hi = (high >> (7 - k)) & 1;
                    *c = (lo as u8) | (hi << 2);
                }
            }
        }
        ElementType::U6 => {
            for (group, b) in codes.chunks_mut(4).zip(bytes.chunks_exact(3)) {
                let &[b0, b1, high] = b else { continue };
                let low = u16::from_be_bytes([b0, b1]);
                for (k, c) in group.iter_mut().enumerate() {
                    let lo = (low >> (4 * (3 - k))) & 0xf;
                    let hi = (high >> (2 * (3 - k))) & 3;
                    *c = (lo as u8) | (hi << 4);
                }
            }
        }
        _ => {
            // The 4-bit types: the low nibble comes first.
            for (pair, &b) in codes.chunks_mut(2).zip(bytes) {
                for (k, c) in pair.iter_mut().enumerate() {
                    *c = (b >> (4 * k)) & 0xf;
                }
            }
        }
    }
    Ok(())
}

/// Packs one code per byte into OpenVINO's layout for `ty`; every code must
/// fit in the type's bits.
pub fn pack(codes: &[u8], ty: ElementType) -> Result<Vec<u8>, PackError> {
    let len = packed_bytes(ty, codes.len()).ok_or(PackError::NotPacked { ty })?;
    let mut bytes = vec![0; len];
    pack_into(codes, ty, &mut bytes)?;
    Ok(bytes)
}

/// [`pack`] into `bytes`, which must have exactly the packed length; bits
/// past the last element are cleared.
pub fn pack_into(codes: &[u8], ty: ElementType, bytes: &mut [u8]) -> Result<(), PackError> {
    check_len(ty, codes.len(), bytes.len())?;
    let max = (1u16 << ty.bit_width()) - 1;
    if let Some((index, &code)) = codes.iter().enumerate().find(|(_, &c)| u16::from(c) > max) {
        return Err(PackError::OutOfRange { ty, index, value: i64::from(code), range: 0..=i64::from(max) });
    }
    match ty {
        ElementType::U1 => {
            for (b, group) in bytes.iter_mut().zip(codes.chunks(8)) {
                *b = group.iter().enumerate().fold(0, |acc, (k, &c)| acc | (c << (7 - k)));
            }
        }
        ElementType::U2 => {
            for (b, group) in bytes.iter_mut().zip(codes.chunks(4)) {
                *b = group.iter().enumerate().fold(0, |acc, (k, &c)| acc | (c << (2 * k)));
            }
        }
        ElementType::U3 => {
            for (b, group) in bytes.chunks_exact_mut(3).zip(codes.chunks(8)) {
                let (mut low, mut high) = (0u16, 0u8);
                for (k, &c) in group.iter().enumerate() {
                    low |= u16::from(c & 3) << (2 * (7 - k));
                    high |= (c >> 2) << (7 - k);
                }
                let [b0, b1] = low.to_be_bytes();
                b.copy_from_slice(&[b0, b1, high]);
            }
        }
        ElementType::U6 => {
            for (b, group) in bytes.chunks_exact_mut(3).zip(codes.chunks(4)) {
                let (mut low, mut high) = (0u16, 0u8);
                for (k, &c) in group.iter().enumerate() {
                    low |= u16::from(c & 0xf) << (4 * (3 - k));
                    high |= (c >> 4) << (2 * (3 - k));
                }
                let [b0, b1] = low.to_be_bytes();
                b.copy_from_slice(&[b0, b1, high]);
            }
        }
        _ => {
            for (b, pair) in bytes.iter_mut().zip(codes.chunks(2)) {
                *b = pair.iter().enumerate().fold(0, |acc, (k, &c)| acc | (c << (4 * k)));
            }
        }
    }
    Ok(())
}

fn check_len(ty: ElementType, count: usize, found: usize) -> Result<(), PackError> {
    let expected = packed_bytes(ty, count).ok_or(PackError::NotPacked { ty })?;
    if expected != found {
        return Err(PackError::ByteLength { ty, count, expected, found });
    }
    Ok(())
}

/// A tensor in its exchange form: packed types become one `u8` code per
/// element (`i8` for `i4`, sign-extended), the 8-bit floats become their
/// `u8` bit patterns, and every other tensor is returned as it is (a clone
/// sharing its storage).
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
    // neither unpacking nor building the result can fail; the fallback
    // only keeps this function total.
    exchange_of(tensor).unwrap_or_else(|_| tensor.clone())
}

fn exchange_of(tensor: &Tensor) -> Result<Tensor, PackError> {
    let ty = tensor.element_type();
    let (Some(to), Some(bytes)) = (exchange_type(ty), tensor.bytes()) else {
        return Ok(tensor.clone());
    };
    let mut codes = if is_packed(ty) { unpack(bytes, ty, tensor.len())? } else { bytes.to_vec() };
    if ty == ElementType::I4 {
        // Sign-extend the 4-bit pattern so that the i8 reads as the same
        // number.
        for c in &mut codes {
            *c = (((*c << 4) as i8) >> 4) as u8;
        }
    }
    Ok(Tensor::from_bytes(to, tensor.shape(), &codes)?)
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
    let signed = expected == ElementType::I8;
    let mut codes = Vec::with_capacity(bytes.len());
    for (index, &b) in bytes.iter().enumerate() {
        let value = if signed { i64::from(b as i8) } else { i64::from(b) };
        if !range.contains(&value) {
            return Err(PackError::OutOfRange { ty, index, value, range });
        }
        // Two's-complement codes keep only the type's own bits.
        let mask = ((1u16 << ty.bit_width()) - 1) as u8;
        codes.push(b & mask);
    }
    let bytes = if is_packed(ty) { pack(&codes, ty)? } else { codes };
    Ok(Tensor::from_bytes(ty, tensor.shape(), &bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes OpenVINO 2026.4's `ov.save_model` wrote into a `.bin` for
    /// Constants built from these values.
    #[test]
    fn orders_match_bytes_written_by_openvino() {
        let cases: [(ElementType, &[u8], &[u8]); 6] = [
            (ElementType::U1, &[1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1], &[0x80, 0x60]),
            (ElementType::U2, &[1, 2, 3, 0, 2], &[0x39, 0x02]),
            (ElementType::U3, &[1, 2, 3, 4, 5, 6, 7, 0, 5, 3], &[0x6c, 0x6c, 0x1e, 0x70, 0x00, 0x80]),
            (ElementType::U4, &[1, 2, 3, 4, 5], &[0x21, 0x43, 0x05]),
            // -1, 2, -8, 7, 3 as 4-bit two's complement.
            (ElementType::I4, &[0xf, 2, 8, 7, 3], &[0x2f, 0x78, 0x03]),
            (ElementType::U6, &[1, 2, 63, 4, 33], &[0x12, 0xf4, 0x0c, 0x10, 0x00, 0x80]),
        ];
        for (ty, codes, bytes) in cases {
            assert_eq!(pack(codes, ty).ok().as_deref(), Some(bytes), "{ty}");
            assert_eq!(unpack(bytes, ty, codes.len()).ok().as_deref(), Some(codes), "{ty}");
        }
    }

    #[test]
    fn every_code_round_trips_at_every_position() {
        for ty in [ElementType::U1, ElementType::U2, ElementType::U3, ElementType::U4, ElementType::U6] {
            let max = (1u16 << ty.bit_width()) as usize;
            for n in 0..20 {
                let codes: Vec<u8> = (0..n).map(|i| ((i * 7 + 3) % max) as u8).collect();
                let bytes = pack(&codes, ty).unwrap_or_default();
                assert_eq!(Some(bytes.len()), packed_bytes(ty, n));
                assert_eq!(unpack(&bytes, ty, n).ok(), Some(codes), "{ty} n={n}");
            }
        }
    }

    #[test]
    fn split_types_use_whole_groups_of_three_bytes() {
        assert_eq!(packed_bytes(ElementType::U3, 1), Some(3));
        assert_eq!(packed_bytes(ElementType::U3, 9), Some(6));
        assert_eq!(packed_bytes(ElementType::U6, 4), Some(3));
        assert_eq!(packed_bytes(ElementType::U6, 5), Some(6));
        assert_eq!(packed_bytes(ElementType::U1, 9), Some(2));
        assert_eq!(packed_bytes(ElementType::U8, 9), None);
    }

    #[test]
    fn bad_codes_and_lengths_are_errors() {
        assert!(matches!(pack(&[4], ElementType::U2), Err(PackError::OutOfRange { value: 4, .. })));
        assert!(matches!(unpack(&[0], ElementType::U4, 3), Err(PackError::ByteLength { .. })));
        assert!(matches!(pack(&[1], ElementType::F32), Err(PackError::NotPacked { .. })));
    }

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
}
