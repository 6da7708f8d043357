//! The error every kernel returns: what only a kernel can meet (an output
//! of the wrong size, a missing input, a type it has no loop for, memory
//! it cannot get, a failing extension), and, as [`KernelError::Shape`],
//! every rule of an operation's inputs, in the words of the load-time
//! checks, which are the same functions of `ovir_shape`.

use ovir_shape::ShapeErrorKind;
use ovir_tensor::{ElementType, TensorError};

/// Why a kernel refused its inputs.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum KernelError {
    /// The axis flags given to a Reverse kernel are not one per data axis.
    #[error("Reverse was given {found} axis flags, but the data has rank {rank}; it needs one per axis")]
    FlagCount {
        /// Flags given.
        found: usize,
        /// The data rank.
        rank: usize,
    },
    /// The operation has no kernel for this element type.
    #[error("{op} does not support element type {ty}")]
    UnsupportedType {
        /// The operation.
        op: &'static str,
        /// The element type refused.
        ty: ElementType,
    },
    /// The output tensor given to an `_into` kernel has the wrong type or
    /// shape.
    #[error(
        "the output tensor is {found_ty} {found_shape:?}, but {op} produces {expected_ty} {expected_shape:?}"
    )]
    OutputMismatch {
        /// The operation.
        op: &'static str,
        /// The type the kernel produces.
        expected_ty: ElementType,
        /// The shape the kernel produces.
        expected_shape: Vec<usize>,
        /// The output tensor's type.
        found_ty: ElementType,
        /// The output tensor's shape.
        found_shape: Vec<usize>,
    },
    /// A kernel was given another number of inputs than its operation
    /// takes.
    #[error("{op} takes {expected} inputs, but the kernel was given {found}")]
    InputCount {
        /// The operation.
        op: &'static str,
        /// The inputs it takes (the fewest, for an op with optional ones).
        expected: usize,
        /// The inputs given.
        found: usize,
    },
    /// Something that checked inputs cannot cause went wrong inside a
    /// kernel or the plan: a bug in ovir.
    #[error("internal error in {op}: {what}")]
    Internal {
        /// The operation (or `plan`).
        op: &'static str,
        /// What went wrong.
        what: &'static str,
    },
    /// Valid inputs that ovir does not run, which the message names.
    #[error("{op} does not run {what}")]
    Unsupported {
        /// The operation.
        op: &'static str,
        /// What it does not run.
        what: &'static str,
    },
    /// A BatchToSpace or SpaceToBatch block on the batch axis other than
    /// 1: the spec asks for 1, and OpenVINO's reference and CPU plugin
    /// give no consistent answer for others.
    #[error("{op}'s block_shape[0] must be 1 (the batch axis takes no block), but it is {value}")]
    BatchBlock {
        /// The operation.
        op: &'static str,
        /// The block given for the batch axis.
        value: i64,
    },
    /// A dimension does not fit the integer type a shape is written in.
    #[error("{op} cannot write the dimension {dim} as {ty}")]
    DimTooLarge {
        /// The operation.
        op: &'static str,
        /// The dimension.
        dim: usize,
        /// The element type of the output.
        ty: ElementType,
    },
    /// An operation added by an extension refused its inputs or failed.
    #[error("{op}: {message}")]
    Extension {
        /// The operation's type.
        op: String,
        /// What the extension said.
        message: String,
    },
    /// The inputs break a rule of the operation's shape inference: the
    /// same rule, and the same words, as when the model is loaded.
    #[error(transparent)]
    Shape(#[from] ShapeErrorKind),
    /// Building or reading a tensor failed.
    #[error(transparent)]
    Tensor(#[from] TensorError),
    /// The allocator had no memory for a kernel's working list (the
    /// lengths or indices it reads its input into).
    #[error("{op} cannot allocate {bytes} bytes for its {what}: out of memory")]
    OutOfMemory {
        /// The operation.
        op: &'static str,
        /// What the memory was for.
        what: &'static str,
        /// Bytes that were asked for.
        bytes: usize,
    },
}

/// Makes room for `more` elements in `list` without aborting when the
/// allocator refuses: the lists kernels fill are as long as an input, which
/// an untrusted model makes as large as it likes.
pub(crate) fn try_reserve<T>(
    list: &mut Vec<T>,
    more: usize,
    op: &'static str,
    what: &'static str,
) -> Result<(), KernelError> {
    list.try_reserve(more).map_err(|_| KernelError::OutOfMemory {
        op,
        what,
        bytes: more.saturating_mul(std::mem::size_of::<T>()),
    })
}
