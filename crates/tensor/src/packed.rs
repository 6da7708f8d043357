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

pub use crate::exchange::{from_exchange, to_exchange, try_to_exchange};
pub use crate::packing::{
    code_at, exchange_range, exchange_type, is_packed, pack, pack_into, packed_bytes, set_code, unpack,
    unpack_into, PackError,
};
