//! The error every kernel returns.

use ovir_shape::{ReverseMode, ShapeErrorKind};
use ovir_tensor::{ElementType, TensorError};

/// Why a kernel refused its inputs.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum KernelError {
    /// A Reverse axis lies outside `[-rank, rank - 1]`.
    #[error("axis {axis} is out of bounds for rank {rank} ({})", allowed_axes(*rank))]
    AxisOutOfRange {
        /// The axis as given (wide enough for every `i64` and `u64` value).
        axis: i128,
        /// The data rank.
        rank: usize,
    },
    /// An axis attribute (such as ReverseSequence's `batch_axis`) lies
    /// outside `[-rank, rank - 1]`.
    #[error("{attribute} {axis} is out of bounds for rank {rank} ({})", allowed_axes(*rank))]
    AttributeOutOfRange {
        /// The attribute's name.
        attribute: &'static str,
        /// The value as given.
        axis: i64,
        /// The data rank.
        rank: usize,
    },
    /// A Reverse mask (or axis flag list) does not have one entry per data
    /// axis.
    #[error("the axis mask has {len} entries, but the data has rank {rank}")]
    MaskLength {
        /// Entries in the mask.
        len: usize,
        /// The data rank.
        rank: usize,
    },
    /// The Reverse axes input is not 1-D.
    #[error("Reverse needs a 1-D axes input, but it has rank {rank}")]
    AxesRank {
        /// The rank of the axes input.
        rank: usize,
    },
    /// The Reverse axes input has a type its mode does not accept.
    #[error("Reverse in {mode} mode needs {} axes, but they are {ty}", expected_axes_type(*mode))]
    AxesType {
        /// The axes input's element type.
        ty: ElementType,
        /// The mode the axes were read in.
        mode: ReverseMode,
    },
    /// The data has fewer axes than the operation needs.
    #[error("{op} needs data of rank {min} or more, but it has rank {rank}")]
    RankTooSmall {
        /// The operation.
        op: &'static str,
        /// The data rank.
        rank: usize,
        /// The smallest rank accepted.
        min: usize,
    },
    /// The data rank lies outside the range the operation accepts.
    #[error("{op} needs data of rank {min} to {max}, but it has rank {rank}")]
    RankOutOfRange {
        /// The operation.
        op: &'static str,
        /// The data rank.
        rank: usize,
        /// The smallest rank accepted.
        min: usize,
        /// The largest rank accepted.
        max: usize,
    },
    /// The lengths of ReverseSubsequences do not have the data's shape
    /// with 1 at the axis.
    #[error(
        "ReverseSubsequences needs lengths of shape {expected:?} (the data's shape with 1 at axis {axis}), \
         but they have shape {found:?}"
    )]
    SubsequenceLengthsShape {
        /// The reversed axis, normalised.
        axis: usize,
        /// The shape the lengths must have.
        expected: Vec<usize>,
        /// The shape they have.
        found: Vec<usize>,
    },
    /// The lengths of ReverseSubsequences are not integers.
    #[error("ReverseSubsequences needs integer lengths (such as u32 or u64), but they are {ty}")]
    SubsequenceLengthsType {
        /// The lengths' element type.
        ty: ElementType,
    },
    /// A length of ReverseSubsequences is negative.
    #[error(
        "the length at index {position:?} of the lengths is {value}, which is negative; a length must be 0 or \
         more (lengths above the axis size {max} count as {max})"
    )]
    NegativeSubsequenceLength {
        /// Where the length is in the lengths tensor.
        position: Vec<usize>,
        /// The length.
        value: i128,
        /// The size of the reversed axis.
        max: usize,
    },
    /// The ReverseSequence lengths input is not 1-D.
    #[error("ReverseSequence needs 1-D sequence lengths, but they have rank {rank}")]
    LengthsRank {
        /// The rank of the lengths input.
        rank: usize,
    },
    /// The ReverseSequence lengths input has a type that is neither an
    /// integer nor a real type.
    #[error("ReverseSequence needs integer or real sequence lengths, but they are {ty}")]
    LengthsType {
        /// The lengths input's element type.
        ty: ElementType,
    },
    /// The number of sequence lengths differs from the batch axis size.
    #[error("ReverseSequence got {found} sequence lengths, but the batch axis has size {expected}")]
    LengthsCount {
        /// Lengths given.
        found: usize,
        /// The size of the data's batch axis.
        expected: usize,
    },
    /// A sequence length is above the size of the sequence axis.
    #[error("sequence length {value} at batch index {batch} is above the sequence axis size {max}")]
    SeqLengthOutOfRange {
        /// The batch index whose length is wrong.
        batch: usize,
        /// The length (truncated toward zero when it was a real number).
        value: i128,
        /// The size of the sequence axis, the largest length allowed.
        max: usize,
    },
    /// A sequence length is negative.
    #[error("sequence length {value} at batch index {batch} is negative (allowed: 0..={max})")]
    NegativeSeqLength {
        /// The batch index whose length is wrong.
        batch: usize,
        /// The length (truncated toward zero when it was a real number).
        value: i128,
        /// The size of the sequence axis, the largest length allowed.
        max: usize,
    },
    /// A real-valued sequence length is NaN.
    #[error("sequence length at batch index {batch} is NaN")]
    SeqLengthNaN {
        /// The batch index whose length is NaN.
        batch: usize,
    },
    /// `batch_axis` and `seq_axis` name the same axis, which only has a
    /// meaning when no sequence is longer than one element.
    #[error(
        "batch_axis and seq_axis are both axis {axis}, which needs every sequence length to be at most 1, \
         but batch index {batch} has length {value}"
    )]
    SameAxes {
        /// The (normalised) axis both attributes name.
        axis: usize,
        /// The first batch index whose length is above 1.
        batch: usize,
        /// Its length.
        value: usize,
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

fn allowed_axes(rank: usize) -> String {
    if rank == 0 {
        "a scalar has no axes".to_owned()
    } else {
        format!("allowed: -{rank}..={}", rank - 1)
    }
}

fn expected_axes_type(mode: ReverseMode) -> &'static str {
    match mode {
        ReverseMode::Index => "integer",
        ReverseMode::Mask => "boolean",
    }
}
