//! Element types: every name OpenVINO writes into an IR file.

use std::fmt;

use serde::Serialize;

/// The element type of a tensor, as OpenVINO names it.
///
/// Every type OpenVINO can write is recognised, including the packed
/// sub-byte types and `string`; whether an operation accepts a type is the
/// operation's business, not the reader's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(into = "&'static str")]
pub enum ElementType {
    /// Not known before shape inference (`dynamic`, `undefined`).
    Dynamic,
    /// `boolean`: one byte per element, 0 or 1.
    Boolean,
    /// `bf16`: bfloat16.
    Bf16,
    /// `f16`: IEEE 754 half precision.
    F16,
    /// `f32`: IEEE 754 single precision.
    F32,
    /// `f64`: IEEE 754 double precision.
    F64,
    /// `i4`: signed 4-bit integer, two per byte.
    I4,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `u1`: one bit per element.
    U1,
    /// `u2`: unsigned 2-bit integer.
    U2,
    /// `u3`: unsigned 3-bit integer.
    U3,
    /// `u4`: unsigned 4-bit integer, two per byte.
    U4,
    /// `u6`: unsigned 6-bit integer.
    U6,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `nf4`: 4-bit NormalFloat.
    Nf4,
    /// `f8e4m3`: 8-bit float, 4 exponent bits, 3 mantissa bits.
    F8e4m3,
    /// `f8e5m2`: 8-bit float, 5 exponent bits, 2 mantissa bits.
    F8e5m2,
    /// `f8e8m0`: 8-bit exponent-only float.
    F8e8m0,
    /// `f4e2m1`: 4-bit float.
    F4e2m1,
    /// `string`: UTF-8 strings of any length.
    String,
}

/// Every element type, in a fixed order (useful for tests and help texts).
pub const ALL_ELEMENT_TYPES: [ElementType; 26] = [
    ElementType::Dynamic,
    ElementType::Boolean,
    ElementType::Bf16,
    ElementType::F16,
    ElementType::F32,
    ElementType::F64,
    ElementType::I4,
    ElementType::I8,
    ElementType::I16,
    ElementType::I32,
    ElementType::I64,
    ElementType::U1,
    ElementType::U2,
    ElementType::U3,
    ElementType::U4,
    ElementType::U6,
    ElementType::U8,
    ElementType::U16,
    ElementType::U32,
    ElementType::U64,
    ElementType::Nf4,
    ElementType::F8e4m3,
    ElementType::F8e5m2,
    ElementType::F8e8m0,
    ElementType::F4e2m1,
    ElementType::String,
];

impl ElementType {
    /// Parses an `element_type` attribute value (`f32`, `boolean`, `u4`, …).
    ///
    /// Matching ignores ASCII case, as OpenVINO's does. `undefined` and
    /// `dynamic` both give [`ElementType::Dynamic`].
    pub fn from_ir_name(name: &str) -> Option<Self> {
        let lower = name.trim().to_ascii_lowercase();
        let ty = match lower.as_str() {
            "dynamic" | "undefined" => Self::Dynamic,
            "boolean" => Self::Boolean,
            other => return ALL_ELEMENT_TYPES.into_iter().find(|t| t.ir_name() == other),
        };
        Some(ty)
    }

    /// Parses a port `precision` attribute value (`FP32`, `BOOL`, `BIN`, …).
    pub fn from_precision(name: &str) -> Option<Self> {
        let upper = name.trim().to_ascii_uppercase();
        let ty = match upper.as_str() {
            "UNSPECIFIED" | "DYNAMIC" | "UNDEFINED" => Self::Dynamic,
            "BOOL" | "BOOLEAN" => Self::Boolean,
            "BIN" => Self::U1,
            "FP16" => Self::F16,
            "FP32" => Self::F32,
            "FP64" => Self::F64,
            "BF16" => Self::Bf16,
            _ => return Self::from_ir_name(&upper),
        };
        Some(ty)
    }

    /// The name OpenVINO writes in `element_type` attributes.
    pub const fn ir_name(self) -> &'static str {
        match self {
            Self::Dynamic => "dynamic",
            Self::Boolean => "boolean",
            Self::Bf16 => "bf16",
            Self::F16 => "f16",
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::I4 => "i4",
            Self::I8 => "i8",
            Self::I16 => "i16",
            Self::I32 => "i32",
            Self::I64 => "i64",
            Self::U1 => "u1",
            Self::U2 => "u2",
            Self::U3 => "u3",
            Self::U4 => "u4",
            Self::U6 => "u6",
            Self::U8 => "u8",
            Self::U16 => "u16",
            Self::U32 => "u32",
            Self::U64 => "u64",
            Self::Nf4 => "nf4",
            Self::F8e4m3 => "f8e4m3",
            Self::F8e5m2 => "f8e5m2",
            Self::F8e8m0 => "f8e8m0",
            Self::F4e2m1 => "f4e2m1",
            Self::String => "string",
        }
    }

    /// Bits per element; 0 for `dynamic` and `string`.
    pub const fn bit_width(self) -> usize {
        match self {
            Self::Dynamic | Self::String => 0,
            Self::U1 => 1,
            Self::U2 => 2,
            Self::U3 => 3,
            Self::I4 | Self::U4 | Self::Nf4 | Self::F4e2m1 => 4,
            Self::U6 => 6,
            Self::Boolean | Self::I8 | Self::U8 | Self::F8e4m3 | Self::F8e5m2 | Self::F8e8m0 => 8,
            Self::Bf16 | Self::F16 | Self::I16 | Self::U16 => 16,
            Self::F32 | Self::I32 | Self::U32 => 32,
            Self::F64 | Self::I64 | Self::U64 => 64,
        }
    }

    /// Bytes per element when elements are whole bytes; `None` for packed
    /// sub-byte types, `string` and `dynamic`.
    pub const fn byte_width(self) -> Option<usize> {
        match self.bit_width() {
            8 | 16 | 32 | 64 => Some(self.bit_width() / 8),
            _ => None,
        }
    }

    /// Bytes needed by `count` elements, packed the way OpenVINO packs them
    /// (`u3` and `u6` in whole groups of three bytes; see
    /// [`packed`](crate::packed)); `None` on overflow, or for `string` and
    /// `dynamic`, which have no fixed width.
    pub fn storage_bytes(self, count: usize) -> Option<usize> {
        match (self, self.bit_width()) {
            (_, 0) => None,
            // Whole groups of three bytes: 8 elements of u3, 4 of u6.
            (ElementType::U3, _) => count.div_ceil(8).checked_mul(3),
            (ElementType::U6, _) => count.div_ceil(4).checked_mul(3),
            (_, bits @ 1..=7) => count.checked_mul(bits).map(|b| b.div_ceil(8)),
            (_, bits) => count.checked_mul(bits / 8),
        }
    }

    /// `true` for the real (floating-point) types, the 8-bit and 4-bit
    /// float formats included.
    pub const fn is_real(self) -> bool {
        matches!(
            self,
            Self::Bf16
                | Self::F16
                | Self::F32
                | Self::F64
                | Self::Nf4
                | Self::F8e4m3
                | Self::F8e5m2
                | Self::F8e8m0
                | Self::F4e2m1
        )
    }

    /// `true` for the signed and unsigned integer types of any width
    /// (`boolean` is not an integer type).
    pub const fn is_integral(self) -> bool {
        matches!(
            self,
            Self::I4
                | Self::I8
                | Self::I16
                | Self::I32
                | Self::I64
                | Self::U1
                | Self::U2
                | Self::U3
                | Self::U4
                | Self::U6
                | Self::U8
                | Self::U16
                | Self::U32
                | Self::U64
        )
    }

    /// `true` for the signed integer types.
    pub const fn is_signed_integral(self) -> bool {
        matches!(self, Self::I4 | Self::I8 | Self::I16 | Self::I32 | Self::I64)
    }

    /// `true` when the type is known (not `dynamic`).
    pub const fn is_static(self) -> bool {
        !matches!(self, Self::Dynamic)
    }

    /// OpenVINO's type merge: `dynamic` merges with anything, otherwise the
    /// two types must be equal.
    pub fn merge(self, other: Self) -> Option<Self> {
        match (self, other) {
            (Self::Dynamic, t) | (t, Self::Dynamic) => Some(t),
            (a, b) if a == b => Some(a),
            _ => None,
        }
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ir_name())
    }
}

impl From<ElementType> for &'static str {
    fn from(t: ElementType) -> Self {
        t.ir_name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ir_name_round_trips() {
        for t in ALL_ELEMENT_TYPES {
            assert_eq!(ElementType::from_ir_name(t.ir_name()), Some(t), "{t}");
        }
        assert_eq!(ElementType::from_ir_name("undefined"), Some(ElementType::Dynamic));
        assert_eq!(ElementType::from_ir_name("F32"), Some(ElementType::F32));
        assert_eq!(ElementType::from_ir_name("float"), None);
    }

    #[test]
    fn port_precisions_map_to_types() {
        let cases = [
            ("FP16", ElementType::F16),
            ("FP32", ElementType::F32),
            ("BF16", ElementType::Bf16),
            ("FP64", ElementType::F64),
            ("I4", ElementType::I4),
            ("I64", ElementType::I64),
            ("U64", ElementType::U64),
            ("BIN", ElementType::U1),
            ("BOOL", ElementType::Boolean),
            ("NF4", ElementType::Nf4),
            ("F8E4M3", ElementType::F8e4m3),
            ("F8E5M2", ElementType::F8e5m2),
            ("F8E8M0", ElementType::F8e8m0),
            ("F4E2M1", ElementType::F4e2m1),
            ("STRING", ElementType::String),
            ("UNSPECIFIED", ElementType::Dynamic),
        ];
        for (name, ty) in cases {
            assert_eq!(ElementType::from_precision(name), Some(ty), "{name}");
        }
        assert_eq!(ElementType::from_precision("FP8"), None);
    }

    #[test]
    fn packed_storage_rounds_up_to_whole_bytes() {
        assert_eq!(ElementType::U1.storage_bytes(9), Some(2));
        assert_eq!(ElementType::I4.storage_bytes(3), Some(2));
        assert_eq!(ElementType::U3.storage_bytes(10), Some(6));
        assert_eq!(ElementType::U6.storage_bytes(5), Some(6));
        assert_eq!(ElementType::F32.storage_bytes(3), Some(12));
        assert_eq!(ElementType::String.storage_bytes(3), None);
        assert_eq!(ElementType::U64.storage_bytes(usize::MAX), None);
    }
}
