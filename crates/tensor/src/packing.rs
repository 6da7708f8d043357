//! How the sub-byte element types are laid out in bytes, and their codes
//! of one element per byte; the table is in the public [`packed`]
//! module's docs.
//!
//! [`packed`]: crate::packed

use std::ops::RangeInclusive;

use crate::element::ElementType;
use crate::error::TensorError;

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
    #[error("{ty} elements are exchanged as {expected}, but the tensor given is {found}")]
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
/// 8-bit floats, `u16` for `bf16` (its bit patterns, as ml_dtypes'
/// `view(np.uint16)` gives them); `None` for types that NumPy holds as
/// they are.
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
        ElementType::Bf16 => Some(ElementType::U16),
        _ => None,
    }
}

/// The values an exchanged element of `ty` may hold: `0..=2^bits - 1`
/// (every `u16` for `bf16`), and `-8..=7` for `i4`; `None` for types
/// without an exchange form.
pub fn exchange_range(ty: ElementType) -> Option<RangeInclusive<i64>> {
    exchange_type(ty)?;
    if ty == ElementType::I4 {
        return Some(-8..=7);
    }
    Some(0..=(1i64 << ty.bit_width()) - 1)
}

/// The exchange codes of `count` elements of `ty` stored in `bytes`: one
/// byte per element, sign-extended for `i4` so that each reads as the same
/// number as an `i8`; the bytes as they are for the 8-bit floats.
pub(crate) fn exchange_codes(bytes: &[u8], ty: ElementType, count: usize) -> Result<Vec<u8>, PackError> {
    let mut codes = if is_packed(ty) { unpack(bytes, ty, count)? } else { bytes.to_vec() };
    if ty == ElementType::I4 {
        sign_extend_i4(&mut codes);
    }
    Ok(codes)
}

/// Sign-extends `i4` codes in place, so that each reads as the same number
/// as an `i8`.
pub(crate) fn sign_extend_i4(codes: &mut [u8]) {
    for c in codes {
        *c = (((*c << 4) as i8) >> 4) as u8;
    }
}

/// Bytes that `count` packed elements of `ty` take; `None` when `ty` is not
/// packed or the size overflows.
///
/// `u3` and `u6` are stored in whole groups of three bytes (8 and 4
/// elements), the others bit after bit.
pub fn packed_bytes(ty: ElementType, count: usize) -> Option<usize> {
    if is_packed(ty) {
        ty.storage_bytes(count)
    } else {
        None
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

/// One piece of an element's bits: the byte, the shift of the piece's
/// lowest bit in it, and the piece's mask.
type Piece = (usize, u8, u8);

/// Where element `index` of a packed tensor of `ty` keeps its bits: one or
/// two pieces, each a byte, the shift of the piece's lowest bit in it, and
/// the piece's mask, with the first piece holding the code's low bits.
/// `u3` and `u6` split an element across bytes (its low bits in the first
/// two bytes of a 3-byte group, read big-endian, its high bits in the
/// third); the others keep it whole in one byte.
fn pieces(ty: ElementType, index: usize) -> Option<([Piece; 2], usize)> {
    // A piece at `shift` in the big-endian pair of bytes from `first`.
    let in_pair = |first: usize, shift: u8, mask: u8| {
        if shift >= 8 {
            (first, shift - 8, mask)
        } else {
            (first + 1, shift, mask)
        }
    };
    let none = (0, 0, 0);
    Some(match ty {
        ElementType::U1 => ([(index / 8, 7 - (index % 8) as u8, 1), none], 1),
        ElementType::U2 => ([(index / 4, 2 * (index % 4) as u8, 3), none], 1),
        ElementType::U3 => {
            let (group, k) = (3 * (index / 8), (index % 8) as u8);
            ([in_pair(group, 2 * (7 - k), 3), (group + 2, 7 - k, 1)], 2)
        }
        ElementType::U6 => {
            let (group, k) = (3 * (index / 4), (index % 4) as u8);
            ([in_pair(group, 4 * (3 - k), 0xf), (group + 2, 2 * (3 - k), 3)], 2)
        }
        ty if is_packed(ty) => ([(index / 2, 4 * (index % 2) as u8, 0xf), none], 1),
        _ => return None,
    })
}

/// The code of element `index` of packed `bytes` of type `ty`; `None` when
/// `ty` is not packed or the element lies past the bytes.
///
/// ```
/// use ovir_tensor::packed::{code_at, pack};
/// use ovir_tensor::ElementType;
/// let bytes = pack(&[5, 0, 7, 3, 1, 2, 6, 4, 7], ElementType::U3)?;
/// assert_eq!(code_at(&bytes, ElementType::U3, 8), Some(7));
/// assert_eq!(code_at(&bytes, ElementType::U3, 2), Some(7));
/// # Ok::<(), ovir_tensor::packed::PackError>(())
/// ```
pub fn code_at(bytes: &[u8], ty: ElementType, index: usize) -> Option<u8> {
    let (parts, n) = pieces(ty, index)?;
    let mut code = 0u8;
    let mut low_bits = 0u32;
    for &(byte, shift, mask) in parts.get(..n)? {
        code |= ((bytes.get(byte)? >> shift) & mask) << low_bits;
        low_bits += mask.count_ones();
    }
    Some(code)
}

/// Sets element `index` of packed `bytes` of type `ty` to `code` (which
/// must fit the type's bits), leaving every other element as it was;
/// `None` when `ty` is not packed, the code does not fit, or the element
/// lies past the bytes.
pub fn set_code(bytes: &mut [u8], ty: ElementType, index: usize, code: u8) -> Option<()> {
    if u16::from(code) >= 1u16 << ty.bit_width() {
        return None;
    }
    let (parts, n) = pieces(ty, index)?;
    let mut rest = code;
    for &(byte, shift, mask) in parts.get(..n)? {
        let b = bytes.get_mut(byte)?;
        *b = (*b & !(mask << shift)) | ((rest & mask) << shift);
        rest >>= mask.count_ones();
    }
    Some(())
}

fn check_len(ty: ElementType, count: usize, found: usize) -> Result<(), PackError> {
    let expected = packed_bytes(ty, count).ok_or(PackError::NotPacked { ty })?;
    if expected != found {
        return Err(PackError::ByteLength { ty, count, expected, found });
    }
    Ok(())
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
    fn one_element_reads_and_writes_as_whole_tensors_pack() {
        for ty in [
            ElementType::U1,
            ElementType::U2,
            ElementType::U3,
            ElementType::U4,
            ElementType::U6,
            ElementType::I4,
            ElementType::Nf4,
            ElementType::F4e2m1,
        ] {
            let max = (1u16 << ty.bit_width()) as usize;
            for n in [1usize, 3, 7, 8, 9, 17, 24] {
                let codes: Vec<u8> = (0..n).map(|i| ((i * 7 + 3) % max) as u8).collect();
                let bytes = pack(&codes, ty).unwrap();
                for (i, &c) in codes.iter().enumerate() {
                    assert_eq!(code_at(&bytes, ty, i), Some(c), "{ty} {n} read {i}");
                }
                // Writing each element's code into zeroed bytes, one at a
                // time, gives the packed bytes.
                let mut built = vec![0u8; bytes.len()];
                for (i, &c) in codes.iter().enumerate().rev() {
                    set_code(&mut built, ty, i, c).unwrap();
                }
                assert_eq!(built, bytes, "{ty} {n}");
                // Overwriting one element leaves the others.
                let mut changed = bytes.clone();
                let new = ((codes[n / 2] as usize + 1) % max) as u8;
                set_code(&mut changed, ty, n / 2, new).unwrap();
                let mut expected = codes.clone();
                expected[n / 2] = new;
                assert_eq!(unpack(&changed, ty, n).unwrap(), expected, "{ty} {n} write");
            }
            assert_eq!(set_code(&mut [0u8; 8], ty, 0, max as u8), None, "{ty} refuses a code too wide");
        }
        assert_eq!(code_at(&[0u8; 4], ElementType::U8, 0), None);
        assert_eq!(code_at(&[0u8; 1], ElementType::U4, 2), None);
    }
}
