//! What can go wrong with a tensor, and the byte counts the messages
//! show. A leaf module: every other module may use it.

use std::fmt;

use crate::element::ElementType;

/// Errors from building or reading a [`Tensor`](crate::Tensor).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TensorError {
    /// The tensor holds another element type than the one asked for.
    #[error("element type mismatch: the tensor holds {found}, but {expected} was asked for")]
    TypeMismatch {
        /// The type asked for.
        expected: ElementType,
        /// The tensor's type.
        found: ElementType,
    },
    /// The byte or element count of a shape does not fit in memory.
    #[error("the {ty} tensor of shape {shape:?} is too large: its size overflows")]
    TooLarge {
        /// The element type.
        ty: ElementType,
        /// The shape.
        shape: Vec<usize>,
    },
    /// The tensor would take more memory than the limit allows.
    #[error(
        "the {ty} tensor of shape {shape:?} needs {needed}, more than the memory limit of {limit} bytes"
    )]
    OverLimit {
        /// The element type.
        ty: ElementType,
        /// The shape.
        shape: Vec<usize>,
        /// Bytes the tensor needs.
        needed: ByteCount,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The allocator had no memory for the tensor's bytes.
    #[error("cannot allocate {bytes} for the {ty} tensor of shape {shape:?}: out of memory")]
    OutOfMemory {
        /// The element type.
        ty: ElementType,
        /// The shape.
        shape: Vec<usize>,
        /// Bytes that were asked for.
        bytes: ByteCount,
    },
    /// The bytes given do not match the shape and element type.
    #[error("the {ty} tensor of shape {shape:?} needs {expected} bytes, but {found} were given")]
    ByteLength {
        /// The element type.
        ty: ElementType,
        /// The shape.
        shape: Vec<usize>,
        /// Bytes the shape needs.
        expected: usize,
        /// Bytes given.
        found: usize,
    },
    /// The number of strings given does not match the shape.
    #[error("a string tensor of shape {shape:?} needs {expected} strings, but {found} were given")]
    StringCount {
        /// The shape.
        shape: Vec<usize>,
        /// Strings the shape needs.
        expected: usize,
        /// Strings given.
        found: usize,
    },
    /// A `dynamic` element type cannot hold data.
    #[error("a tensor cannot have the dynamic element type")]
    DynamicType,
    /// The tensor's bytes are not aligned for a typed view.
    #[error("the tensor's bytes are not aligned for a view of {ty}; use `to_array` or `to_owned_aligned`")]
    Misaligned {
        /// The element type.
        ty: ElementType,
    },
}

/// A byte count for messages; `None` stands for one too large to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteCount(pub Option<u128>);

impl fmt::Display for ByteCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n} bytes{}", human(n)),
            None => write!(f, "more than 2^128 bytes"),
        }
    }
}

/// " (1.5 GiB)" for sizes of a KiB or more, so large numbers read at a
/// glance.
fn human(n: u128) -> String {
    const UNITS: [&str; 9] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"];
    if n < 1024 {
        return String::new();
    }
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!(" ({value:.1} {})", UNITS.get(unit).copied().unwrap_or("B"))
}
