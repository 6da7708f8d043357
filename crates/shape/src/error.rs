//! Errors found while validating layers and inferring their outputs.

use std::fmt;

use ovir_ir::{LayerIdx, Model, ReadError};
use ovir_tensor::{Dim, ElementType, PartialShape, ShapeParseError};

/// Every problem [`analyze`](crate::analyze) found in a model.
///
/// Problems are independent of each other: a layer whose inputs come from a
/// failing layer is not blamed for that layer's failure.
#[derive(Clone, Debug)]
pub struct AnalyzeError {
    /// The problems, in the order the layers were visited.
    pub errors: Vec<ShapeError>,
    /// When the model's own references do not hold together (a model built
    /// in code with an index past its layers, say), why: nothing was
    /// analysed, and `errors` is empty. See
    /// [`Model::check_references`](ovir_ir::Model::check_references).
    pub broken: Option<Box<ReadError>>,
}

impl fmt::Display for AnalyzeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(broken) = &self.broken {
            return write!(f, "{broken}");
        }
        match self.errors.as_slice() {
            [one] => write!(f, "{one}"),
            all => {
                write!(f, "the model has {} problems:", all.len())?;
                for e in all {
                    write!(f, "\n  {e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for AnalyzeError {}

/// One problem with one layer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("layer #{}: {kind}", layer.0)]
pub struct ShapeError {
    /// The layer at fault.
    pub layer: LayerIdx,
    /// The `<data>` attribute at fault, when one is; use it to point at the
    /// attribute's span.
    pub attribute: Option<String>,
    /// What is wrong.
    pub kind: ShapeErrorKind,
}

impl ShapeError {
    /// The error with the layer named as the file names it:
    /// ``layer `rev` (id 3, Reverse): …``.
    pub fn describe(&self, model: &Model) -> String {
        match model.layers.get(self.layer.0) {
            Some(l) => format!("layer `{}` (id {}, {}): {}", l.name, l.id, l.op_type, self.kind),
            None => self.to_string(),
        }
    }
}

/// What is wrong with a layer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ShapeErrorKind {
    /// The layer's `type` is neither an operation ovir supports nor one
    /// that a registered extension handles.
    #[error(
        "unknown operation type `{op_type}` (version `{version}`); the supported operations are {supported}, \
         and the registered extensions are {extensions}"
    )]
    UnknownOp {
        /// The `type` as written.
        op_type: String,
        /// The `version` as written.
        version: String,
        /// The supported operation names.
        supported: String,
        /// The registered extensions, with their versions (`none` when
        /// there are none).
        extensions: String,
    },
    /// An extension handles the layer's `type`, but not in its `version`.
    #[error(
        "no extension handles {op_type} of version `{version}`; {op_type} is registered for version {registered} \
         (the version must match exactly)"
    )]
    ExtensionVersion {
        /// The `type` as written.
        op_type: String,
        /// The `version` as written.
        version: String,
        /// The versions the type is registered for.
        registered: String,
    },
    /// The extension that handles the layer refused it or its inputs.
    #[error("{op_type}: {message}")]
    Extension {
        /// The `type` as written.
        op_type: String,
        /// What the extension said.
        message: String,
    },
    /// A layer handled by an extension does not declare as many outputs
    /// as its op produces.
    #[error(
        "{op_type} is an extension op, which produces {expected} output{}, but the layer declares {found}",
        if *expected == 1 { "" } else { "s" }
    )]
    CustomOutputCount {
        /// The `type` as written.
        op_type: String,
        /// Outputs the op produces.
        expected: usize,
        /// Outputs the layer declares.
        found: usize,
    },
    /// The operation exists, but not in the opset the layer's `version` names.
    #[error("{op} is not part of `{version}`; it is defined in {available}")]
    UnsupportedVersion {
        /// The operation.
        op: &'static str,
        /// The `version` as written.
        version: String,
        /// The opsets that contain the operation.
        available: String,
    },
    /// The layer has the wrong number of input ports.
    #[error("{op} takes {expected} input(s), but the layer has {found}")]
    InputCount {
        /// The operation.
        op: &'static str,
        /// Inputs the operation takes.
        expected: usize,
        /// Inputs the layer has.
        found: usize,
    },
    /// The layer has the wrong number of output ports.
    #[error("{op} produces {expected} output(s), but the layer declares {found}")]
    OutputCount {
        /// The operation.
        op: &'static str,
        /// Outputs the operation produces.
        expected: usize,
        /// Outputs the layer declares.
        found: usize,
    },
    /// The layer has a number of output ports outside the range its op
    /// produces.
    #[error("{op} produces {}, but the layer declares {found}", output_range(*min, *max))]
    OutputCountRange {
        /// The operation.
        op: &'static str,
        /// The fewest outputs the operation produces.
        min: usize,
        /// The most it produces (`None`: no limit).
        max: Option<usize>,
        /// Outputs the layer declares.
        found: usize,
    },
    /// A required `<data>` attribute is absent.
    #[error("{op} needs the attribute `{name}`, but the layer does not have it")]
    MissingAttribute {
        /// The operation.
        op: &'static str,
        /// The attribute's name.
        name: &'static str,
    },
    /// An attribute that should name an element type names none.
    #[error(
        "`{value}` is not an element type (attribute `{name}`); expected a name such as f32, i64, u8 or boolean"
    )]
    InvalidElementType {
        /// The attribute's name.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// An attribute that should hold a shape does not parse as one.
    #[error("`{value}` is not a shape (attribute `{name}`): {source}")]
    InvalidShape {
        /// The attribute's name.
        name: &'static str,
        /// Its value.
        value: String,
        /// Why it does not parse.
        source: ShapeParseError,
    },
    /// An attribute that should hold an integer does not.
    #[error("attribute `{name}` must be an integer, but it is `{value}`")]
    InvalidInteger {
        /// The attribute's name.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// The `mode` of a Reverse is neither `index` nor `mask`.
    #[error("`{value}` is not a Reverse mode; expected `index` or `mask`")]
    InvalidMode {
        /// The attribute's value.
        value: String,
    },
    /// A `Const` layer reached analysis without its value.
    #[error("the Const layer has no value loaded from the weights")]
    MissingConstantValue,
    /// Convert was asked to convert from or to `string`.
    #[error("Convert does not support string: it cannot convert {from} to {to}")]
    StringConversion {
        /// The input's element type.
        from: ElementType,
        /// The `destination_type`.
        to: ElementType,
    },
    /// Convert was asked for a pair of element types that OpenVINO's
    /// reference Convert does not define (`nf4` to `i32`, `f32` to `nf4`,
    /// `f64` to `f4e2m1`, …).
    #[error("Convert cannot convert {from} to {to}: {}", conversion_rule(*from, *to))]
    UndefinedConversion {
        /// The input's element type.
        from: ElementType,
        /// The `destination_type`.
        to: ElementType,
    },
    /// Convert's `destination_type` is `dynamic` or `undefined`.
    #[error("Convert needs a concrete `destination_type` such as f32, but it is `{value}`")]
    DynamicDestination {
        /// The attribute's value.
        value: String,
    },
    /// The axes input of Reverse is not a 1-D tensor.
    #[error("the axes input of Reverse must be a 1-D tensor, but its shape is {shape}")]
    AxesNotVector {
        /// The axes input's shape.
        shape: PartialShape,
    },
    /// In index mode, the axes of Reverse are not integers.
    #[error("in index mode the axes input of Reverse must hold integers, but it holds {found}")]
    IndexAxesType {
        /// The axes input's element type.
        found: ElementType,
    },
    /// In mask mode, the axes of Reverse are not booleans.
    #[error("in mask mode the axes input of Reverse must be boolean, but it is {found}")]
    MaskAxesType {
        /// The axes input's element type.
        found: ElementType,
    },
    /// In mask mode, the mask does not have one flag per data axis.
    #[error(
        "in mask mode the mask needs one element per data axis: it has {length} elements, but the data has rank {rank}"
    )]
    MaskLength {
        /// The mask's length.
        length: Dim,
        /// The data rank.
        rank: usize,
    },
    /// In index mode, some axes of Reverse lie outside `[-rank, rank-1]`.
    #[error(
        "some of the axes {} are out of bounds for data of rank {rank} ({})",
        axis_set(axes),
        axis_range(*rank)
    )]
    AxesOutOfBounds {
        /// The axes as a sorted set, negative ones normalised when they are in
        /// range.
        axes: Vec<i128>,
        /// The data rank.
        rank: usize,
    },
    /// ReverseSequence got data of rank 0 or 1.
    #[error("ReverseSequence needs data of rank 2 or more, but the data shape is {shape}")]
    DataRankTooLow {
        /// The data shape.
        shape: PartialShape,
    },
    /// An axis attribute lies outside `[-rank, rank-1]`.
    #[error("`{name}` is {axis}, which is out of range for data of rank {rank} ({})", axis_range(*rank))]
    AxisOutOfRange {
        /// The attribute's name.
        name: &'static str,
        /// The axis as written.
        axis: i64,
        /// The data rank.
        rank: usize,
    },
    /// An axis attribute is negative, but the data rank is not known.
    #[error("`{name}` is {axis}; a negative axis counts from the end, which needs a known data rank")]
    NegativeAxisUnknownRank {
        /// The attribute's name.
        name: &'static str,
        /// The axis as written.
        axis: i64,
    },
    /// The sequence lengths input of ReverseSequence is not a 1-D tensor.
    #[error("the sequence lengths input must be a 1-D tensor, but its shape is {shape}")]
    LengthsNotVector {
        /// The sequence lengths input's shape.
        shape: PartialShape,
    },
    /// The sequence lengths are neither integers nor real numbers.
    #[error("the sequence lengths must be integers or real numbers, but they are {found}")]
    LengthsType {
        /// The sequence lengths input's element type.
        found: ElementType,
    },
    /// The number of sequence lengths differs from the batch axis size.
    #[error(
        "the sequence lengths input has {lengths} elements, but the data's batch axis ({batch_axis}) has size \
         {batch}; they must be equal"
    )]
    LengthsCount {
        /// The sequence lengths input's length.
        lengths: Dim,
        /// The size of the data's batch axis.
        batch: Dim,
        /// The batch axis, normalised.
        batch_axis: usize,
    },
    /// A sequence length is negative or larger than the sequence axis.
    ///
    /// The same check runs when the model runs; for constant lengths it is
    /// reported at load time.
    #[error(
        "sequence length {value} at batch index {batch} is out of range: it must lie between 0 and {max}, \
         the size of the sequence axis"
    )]
    LengthOutOfRange {
        /// The position along the batch axis.
        batch: usize,
        /// The length as stored (floats before truncation).
        value: String,
        /// The size of the sequence axis.
        max: u64,
    },
    /// `batch_axis` and `seq_axis` name the same axis, which only has a
    /// meaning when no sequence is longer than one element.
    #[error(
        "batch_axis and seq_axis are both axis {axis}, which needs every sequence length to be at most 1, \
         but batch index {batch} has length {value}"
    )]
    SameSequenceAxes {
        /// The (normalised) axis both attributes name.
        axis: usize,
        /// The first batch index whose length is above 1.
        batch: usize,
        /// Its length.
        value: usize,
    },
    /// The values of a tensor of this element type cannot be read as
    /// numbers (packed sub-byte and 8-bit float formats).
    #[error("the values of a {element_type} tensor cannot be read as axes or lengths")]
    UnreadableValues {
        /// The tensor's element type.
        element_type: ElementType,
    },
    /// The layer has a number of inputs outside the range its op takes.
    #[error("{op} takes {}, but the layer has {found}", input_range(*min, *max))]
    InputCountRange {
        /// The operation.
        op: &'static str,
        /// The fewest inputs the operation takes.
        min: usize,
        /// The most inputs it takes (`None`: no limit).
        max: Option<usize>,
        /// Inputs the layer has.
        found: usize,
    },
    /// ShapeOf's `output_type` is neither `i32` nor `i64`.
    #[error("the output_type of ShapeOf must be i32 or i64, but it is `{value}`")]
    ShapeOfOutputType {
        /// The attribute's value.
        value: String,
    },
    /// A boolean attribute holds something other than `true` or `false`.
    #[error("attribute `{name}` must be true or false, but it is `{value}`")]
    InvalidBoolean {
        /// The attribute's name.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// The `mode` of a Broadcast is not one its version knows.
    #[error("`{value}` is not a Broadcast-{version} mode; expected {}", broadcast_modes(*version))]
    InvalidBroadcastMode {
        /// The attribute's value.
        value: String,
        /// The op version (1 or 3).
        version: u32,
    },
    /// An input that must hold integers holds another type.
    #[error("the {input} input of {op} must hold integers, but it holds {found}")]
    IntegerInput {
        /// The operation.
        op: &'static str,
        /// The input's role (`indices`, `axis`, `target shape`, …).
        input: &'static str,
        /// Its element type.
        found: ElementType,
    },
    /// An input has a rank or size its op does not accept.
    #[error("the {input} input of {op} must be {expected}, but its shape is {shape}")]
    InputShape {
        /// The operation.
        op: &'static str,
        /// The input's role.
        input: &'static str,
        /// What is accepted, in words.
        expected: &'static str,
        /// The input's shape.
        shape: PartialShape,
    },
    /// An axis (attribute or input value) lies outside `[-rank, rank-1]`.
    #[error("{op} {what} {axis} is out of range for rank {rank} ({})", axis_range(*rank))]
    OpAxisOutOfRange {
        /// The operation.
        op: &'static str,
        /// What the axis is (`axis`, `axes value`, …).
        what: &'static str,
        /// The axis as given.
        axis: i64,
        /// The rank it is checked against.
        rank: usize,
    },
    /// Gather's `batch_dims` is negative even after counting from the end
    /// of the indices' rank.
    #[error("Gather's batch_dims {batch_dims} is out of range for indices of rank {rank}; it must lie between -{rank} and {rank}")]
    BatchDimsOutOfRange {
        /// The attribute as written.
        batch_dims: i64,
        /// The rank of the indices.
        rank: usize,
    },
    /// Gather's `batch_dims` is above its axis.
    #[error("Gather's batch_dims ({batch_dims}) must not be above its axis ({axis})")]
    BatchDimsAboveAxis {
        /// `batch_dims`, normalised.
        batch_dims: i64,
        /// The axis, normalised.
        axis: i64,
    },
    /// The first `batch_dims` dimensions of Gather's data and indices differ.
    #[error("the first {batch_dims} dimensions of Gather's data {data} and indices {indices} must be equal")]
    BatchDimsMismatch {
        /// `batch_dims`, normalised.
        batch_dims: usize,
        /// The data shape.
        data: PartialShape,
        /// The indices shape.
        indices: PartialShape,
    },
    /// A dimension cannot be broadcast to the target.
    #[error(
        "Broadcast ({mode} mode) cannot stretch a dimension of {data} to {target} (output axis {axis}); \
         the dimension must be 1 or {target}"
    )]
    BroadcastDim {
        /// The mode, as the attribute spells it.
        mode: &'static str,
        /// The data dimension.
        data: Dim,
        /// The target dimension.
        target: Dim,
        /// The output axis.
        axis: usize,
    },
    /// In numpy mode the target shape has fewer axes than the data.
    #[error("Broadcast (numpy mode) needs a target shape of at least the data's rank {data_rank}, but it has {target_rank} elements")]
    BroadcastTargetRank {
        /// The data rank.
        data_rank: usize,
        /// The length of the target shape.
        target_rank: usize,
    },
    /// A target shape or axes value is negative.
    #[error("{op} cannot use the negative value {value} at position {index} of its {input} input")]
    NegativeValue {
        /// The operation.
        op: &'static str,
        /// The input's role.
        input: &'static str,
        /// The position of the value.
        index: usize,
        /// The value.
        value: i64,
    },
    /// Broadcast got or lacked its axes_mapping input for its mode.
    #[error("Broadcast in {mode} mode {}", if *explicit { "needs a third input, axes_mapping" } else { "takes no axes_mapping input; only explicit mode does" })]
    AxesMappingInput {
        /// The mode, as the attribute spells it.
        mode: &'static str,
        /// `true` when the mode is explicit (so the input is missing).
        explicit: bool,
    },
    /// Broadcast's axes_mapping is unusable.
    #[error("Broadcast's axes_mapping {axes:?} is not valid for data of rank {data_rank} and a target of rank {target_rank}: \
             it needs one increasing axis per data axis, each below the target rank")]
    AxesMapping {
        /// The mapping.
        axes: Vec<i64>,
        /// The data rank.
        data_rank: usize,
        /// The target rank.
        target_rank: usize,
    },
    /// Unsqueeze got no axes.
    #[error("Unsqueeze needs at least one axis, but its axes input is empty")]
    EmptyAxes,
    /// Reshape's target shape has more than one -1.
    #[error("Reshape's target shape {pattern:?} has more than one -1; only one dimension can be inferred")]
    ReshapeManyInferred {
        /// The target shape.
        pattern: Vec<i64>,
    },
    /// Reshape's target shape has a value below -1.
    #[error("Reshape's target shape {pattern:?} has a value below -1")]
    ReshapeBelowMinusOne {
        /// The target shape.
        pattern: Vec<i64>,
    },
    /// With `special_zero`, a 0 in Reshape's target shape sits past the
    /// input's last axis.
    #[error("Reshape's target shape has a 0 at position {index}, which should copy input axis {index}, but the input has rank {rank}")]
    ReshapeZeroPastRank {
        /// The position of the 0.
        index: usize,
        /// The input rank.
        rank: usize,
    },
    /// Reshape's target shape does not hold the input's element count.
    #[error("Reshape cannot turn the input of shape {input} into the target shape {pattern:?}: the element counts differ")]
    ReshapeCount {
        /// The input shape.
        input: PartialShape,
        /// The target shape.
        pattern: Vec<i64>,
    },
    /// Concat's inputs have different ranks or dimensions off the axis.
    #[error("Concat input {input} has shape {shape}, which does not fit the shape {first} of the inputs before it (only the concatenation axis {axis} may differ)")]
    ConcatShape {
        /// The position of the input.
        input: usize,
        /// Its shape.
        shape: PartialShape,
        /// The shape the inputs before it agree on.
        first: PartialShape,
        /// The concatenation axis.
        axis: i64,
    },
    /// The inputs of an op that needs one element type have several.
    #[error("input {input} of {op} is {found}, but the inputs before it are {expected}; all must have one element type")]
    InputTypes {
        /// The operation.
        op: &'static str,
        /// The position of the input.
        input: usize,
        /// Its element type.
        found: ElementType,
        /// The type of the inputs before it.
        expected: ElementType,
    },
    /// Slice's (or SliceScatter's) start, stop, step and axes inputs
    /// differ in length.
    #[error(
        "the start, stop, step{} inputs of {op} must have one length, but they have {start}, {stop}, {step}{} elements",
        if axes.is_some() { " and axes" } else { "" },
        axes.map(|n| format!(" and {n}")).unwrap_or_default()
    )]
    SliceLengths {
        /// The operation.
        op: &'static str,
        /// Elements in start.
        start: usize,
        /// Elements in stop.
        stop: usize,
        /// Elements in step.
        step: usize,
        /// Elements in axes, when the layer has that input.
        axes: Option<usize>,
    },
    /// Slice lists more axes than the data has.
    #[error(
        "{op} has {count} start values, but the data has rank {rank}; it can slice at most one per axis"
    )]
    SliceTooManyAxes {
        /// The operation.
        op: &'static str,
        /// The number of start (and stop, step, axes) values.
        count: usize,
        /// The data rank.
        rank: usize,
    },
    /// An axis appears twice in Slice's axes.
    #[error("axis {axis} appears more than once in the axes input of {op}; each axis can be sliced once")]
    SliceRepeatedAxis {
        /// The operation.
        op: &'static str,
        /// The axis, normalised.
        axis: usize,
    },
    /// A step of Slice is 0.
    #[error("step {index} of {op} is 0; a step must be positive or negative")]
    SliceStepZero {
        /// The operation.
        op: &'static str,
        /// The position of the step.
        index: usize,
    },
    /// ReverseSubsequences' `axis` attribute is missing.
    #[error(
        "ReverseSubsequences: ReverseSubsequences needs the attribute `axis`, but the layer does not have it"
    )]
    SubsequencesAxisMissing,
    /// ReverseSubsequences' `axis` attribute is not an integer.
    #[error("ReverseSubsequences: attribute `axis` must be an integer, but it is `{value}`")]
    SubsequencesAxisInvalid {
        /// The value as written.
        value: String,
    },
    /// ReverseSubsequences' `axis` lies outside `[-rank, rank)`.
    #[error(
        "ReverseSubsequences: `axis` is {axis}, which is out of range for rank {rank}; it must lie between \
         -{rank} and {}",
        rank.saturating_sub(1)
    )]
    SubsequencesAxisOutOfRange {
        /// The axis as written.
        axis: i64,
        /// The data rank.
        rank: usize,
    },
    /// The lengths of ReverseSubsequences are not integers.
    #[error("ReverseSubsequences: the lengths must be integers (such as u32 or u64), but they are {found}")]
    SubsequenceLengthsType {
        /// The lengths' element type.
        found: ElementType,
    },
    /// The data and lengths of ReverseSubsequences differ in rank.
    #[error(
        "ReverseSubsequences: the lengths must have the data's rank {data}, but their shape {lengths} has rank \
         {rank}"
    )]
    SubsequenceLengthsRank {
        /// The data rank.
        data: usize,
        /// The lengths' shape.
        lengths: PartialShape,
        /// The lengths' rank.
        rank: usize,
    },
    /// ReverseSubsequences' data has a rank outside `1..=max`.
    #[error("ReverseSubsequences: the data must have rank 1 to {max}, but it has rank {rank}")]
    SubsequencesRank {
        /// The data rank.
        rank: usize,
        /// The largest rank accepted.
        max: usize,
    },
    /// The lengths of ReverseSubsequences do not have the data's shape with
    /// 1 at the axis.
    #[error(
        "ReverseSubsequences: the lengths must have the data's shape with 1 at axis {axis}, {expected}, but \
         they have shape {lengths} (the data's shape is {data})"
    )]
    SubsequenceLengthsShape {
        /// The axis, normalised.
        axis: usize,
        /// The shape the lengths must have.
        expected: PartialShape,
        /// The lengths' shape.
        lengths: PartialShape,
        /// The data's shape.
        data: PartialShape,
    },
    /// A length of ReverseSubsequences is negative.
    #[error(
        "ReverseSubsequences: the length at index {position:?} of the lengths is {value}, which is negative; \
         a length must be 0 or more"
    )]
    NegativeSubsequenceLength {
        /// Where the first negative length is in the lengths tensor.
        position: Vec<usize>,
        /// The length.
        value: i128,
    },
    /// Transpose's order has neither one element per data axis nor none.
    #[error(
        "the order input of Transpose must hold one axis per data axis ({rank}) or be empty, but it has {length} \
         elements"
    )]
    TransposeOrderLength {
        /// The order's length.
        length: Dim,
        /// The data rank.
        rank: usize,
    },
    /// Transpose's order is not a permutation of the data's axes.
    #[error(
        "the order {order:?} of Transpose is not a permutation of the data's {rank} axes: it must hold each of 0 \
         to {} once",
        rank.saturating_sub(1)
    )]
    TransposeOrder {
        /// The order's values.
        order: Vec<i128>,
        /// The data rank.
        rank: usize,
    },
    /// Split's `num_splits` is not above 0.
    #[error("Split's num_splits must be greater than zero, but it is {value}")]
    SplitCount {
        /// The attribute's value.
        value: i64,
    },
    /// Split cannot divide the axis into `num_splits` equal parts.
    #[error("Split cannot divide axis {axis} of {dim} elements into {num_splits} equal parts")]
    SplitUneven {
        /// The axis, normalised.
        axis: usize,
        /// Its size.
        dim: Dim,
        /// The number of parts.
        num_splits: u64,
    },
    /// A length of VariadicSplit is below -1.
    #[error("split length {index} of VariadicSplit is {value}; a length must be 0 or more, or -1 for what is left")]
    SplitLengthBelowMinusOne {
        /// The position of the length.
        index: usize,
        /// The length.
        value: i128,
    },
    /// More than one length of VariadicSplit is -1.
    #[error(
        "split lengths {first} and {second} of VariadicSplit are both -1; only one length can be inferred"
    )]
    SplitManyInferred {
        /// The position of the first -1.
        first: usize,
        /// The position of the second.
        second: usize,
    },
    /// The lengths of VariadicSplit do not add up to the axis.
    #[error(
        "the split lengths {lengths:?} of VariadicSplit must add up to the {dim} elements of axis {axis}{}",
        if lengths.contains(&-1) { " (with -1 standing for what the others leave, 0 or more)" } else { "" }
    )]
    SplitLengthsSum {
        /// The lengths.
        lengths: Vec<i128>,
        /// The size of the axis.
        dim: Dim,
        /// The axis, normalised.
        axis: usize,
    },
    /// An input that must hold numbers holds another type.
    #[error("the {input} input of {op} must hold integers or reals, but it holds {found}")]
    NumberInput {
        /// The operation.
        op: &'static str,
        /// The input's role.
        input: &'static str,
        /// Its element type.
        found: ElementType,
    },
    /// VariadicSplit's lengths are not one per output.
    #[error("VariadicSplit has one output per split length, but it has {lengths} lengths and the layer declares {outputs} outputs")]
    SplitOutputs {
        /// The number of lengths.
        lengths: Dim,
        /// The layer's outputs.
        outputs: usize,
    },
    /// A StridedSlice mask is not a list of 0s and 1s.
    #[error("attribute `{name}` must be a comma-separated list of 0s and 1s, but it is `{value}`")]
    InvalidMask {
        /// The attribute's name.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// StridedSlice's masks are neither empty nor as long as `begin_mask`.
    #[error(
        "every mask of StridedSlice must be empty or as long as begin_mask, but begin_mask, end_mask, \
         new_axis_mask, shrink_axis_mask and ellipsis_mask have {} flags",
        lengths.map(|n| n.to_string()).join(", ")
    )]
    StridedSliceMaskLengths {
        /// The lengths of the five masks, in that order.
        lengths: [usize; 5],
    },
    /// StridedSlice's ellipsis_mask has more than one flag set.
    #[error("StridedSlice's ellipsis_mask sets {count} flags; at most one index can be the ellipsis")]
    StridedSliceEllipses {
        /// The flags set.
        count: usize,
    },
    /// StridedSlice's begin, end and strides differ in length.
    #[error(
        "the begin, end and strides inputs of StridedSlice must have one length, but they have {} elements",
        [begin, end, strides].map(|n| n.map_or("?".to_string(), |n| n.to_string())).join(", ")
    )]
    StridedSliceLengths {
        /// Elements in begin, when known.
        begin: Option<usize>,
        /// Elements in end, when known.
        end: Option<usize>,
        /// Elements in strides, when known (and the input exists).
        strides: Option<usize>,
    },
    /// StridedSlice slices or shrinks more axes than the data has.
    #[error(
        "StridedSlice slices or shrinks {count} axes (the indices that are neither new axes nor the ellipsis), \
         but the data has rank {rank}"
    )]
    StridedSliceTooManyAxes {
        /// The axes sliced or shrunk.
        count: usize,
        /// The data rank.
        rank: usize,
    },
    /// A shrunk axis's begin lies outside the axis.
    #[error(
        "index {index} of StridedSlice shrinks an axis of {dim} elements at {begin}, which is out of range; it \
         must lie between -{dim} and {}",
        (*dim as i128) - 1
    )]
    StridedSliceShrinkIndex {
        /// The slice index.
        index: usize,
        /// Its begin value.
        begin: i64,
        /// The size of the axis.
        dim: u64,
    },
    /// A stride of StridedSlice is 0.
    #[error("stride {index} of StridedSlice is 0; a stride must be positive or negative")]
    StridedSliceStrideZero {
        /// The position of the stride.
        index: usize,
    },
    /// An output size an op computes does not fit a size.
    #[error("{op}'s output axis {axis} would have more elements than a size can count")]
    SizeOverflow {
        /// The operation.
        op: &'static str,
        /// The output axis.
        axis: usize,
    },
    /// An input that must be i32 or i64 is another type.
    #[error("the {input} input of {op} must be i32 or i64, but it is {found}")]
    IndexType {
        /// The operation.
        op: &'static str,
        /// The input's role.
        input: &'static str,
        /// Its element type.
        found: ElementType,
    },
    /// Roll's shift is a vector that does not match its axes.
    #[error(
        "the shift input of Roll is a vector of {shift} elements, one per axis, so the axes input must be a vector \
         as long, but its shape is {axes}"
    )]
    RollLengths {
        /// The number of shifts.
        shift: Dim,
        /// The axes input's shape.
        axes: PartialShape,
    },
    /// The `pad_mode` of a Pad is not one OpenVINO knows.
    #[error("`{value}` is not a Pad mode; expected constant, edge, reflect or symmetric")]
    InvalidPadMode {
        /// The attribute's value.
        value: String,
    },
    /// Pad's pads are not one per data axis.
    #[error(
        "the {input} input of Pad must hold one pad per data axis ({rank}), but it has {length} elements"
    )]
    PadLength {
        /// `pads_begin` or `pads_end`.
        input: &'static str,
        /// Its length.
        length: Dim,
        /// The data rank.
        rank: usize,
    },
    /// Pad's negative pads remove more than an axis has.
    #[error(
        "Pad's pads {begin} and {end} leave axis {axis} of {dim} elements with a negative size ({})",
        i128::from(*dim) + i128::from(*begin) + i128::from(*end)
    )]
    PadSize {
        /// The axis.
        axis: usize,
        /// Its size.
        dim: u64,
        /// The pad before it.
        begin: i64,
        /// The pad after it.
        end: i64,
    },
    /// A pad is too large for what Pad's mode copies.
    #[error(
        "Pad in {mode} mode {}, but axis {axis} has {dim} elements and the pads {begin} and {end}",
        match *mode {
            "reflect" => "takes pads of at most the size of the axis less 1",
            "symmetric" => "takes pads of at most the size of the axis",
            _ => "needs an axis of at least 1 element to pad it",
        }
    )]
    PadModeLimit {
        /// The mode, as the attribute spells it.
        mode: &'static str,
        /// The axis.
        axis: usize,
        /// Its size.
        dim: u64,
        /// The pad before it.
        begin: i64,
        /// The pad after it.
        end: i64,
    },
    /// Pad on strings in a mode other than constant.
    #[error("Pad pads strings only in constant mode, but its mode is {mode}")]
    PadStringMode {
        /// The mode, as the attribute spells it.
        mode: &'static str,
    },
    /// A block op's block size is not 1 or more.
    #[error("{op}'s {name} must be 1 or more, but it is {value}")]
    BlockSize {
        /// The operation.
        op: &'static str,
        /// The attribute or input (`block_size`, `group`, `block_shape`).
        name: &'static str,
        /// Its value.
        value: i64,
    },
    /// A block op's data has too low a rank.
    #[error("{op} needs data of rank {min} or more, but the data shape is {shape}")]
    BlockRank {
        /// The operation.
        op: &'static str,
        /// The lowest rank accepted.
        min: usize,
        /// The data shape.
        shape: PartialShape,
    },
    /// A block op needs an axis to be a multiple of a block.
    #[error("{op} needs axis {axis} to be a multiple of {divisor}, but it has {dim} elements")]
    BlockDivide {
        /// The operation.
        op: &'static str,
        /// The axis.
        axis: usize,
        /// Its size.
        dim: Dim,
        /// What it must be a multiple of.
        divisor: u64,
    },
    /// BatchToSpace's crops remove more than an axis has, or a pad or crop
    /// of BatchToSpace or SpaceToBatch is negative.
    #[error("{op}'s {input} value {value} at axis {axis} is {}", if *value < 0 { "negative; it must be 0 or more".to_string() } else { format!("more than the {dim} elements the axis has") })]
    BlockCrop {
        /// The operation.
        op: &'static str,
        /// The input (`crops_begin + crops_end`, `pads_begin`, …).
        input: &'static str,
        /// The axis.
        axis: usize,
        /// The value.
        value: i64,
        /// The size it must not exceed.
        dim: u64,
    },
    /// The `mode` of DepthToSpace or SpaceToDepth is not one OpenVINO
    /// knows.
    #[error("`{value}` is not a {op} mode; expected blocks_first or depth_first")]
    InvalidBlockMode {
        /// The operation.
        op: &'static str,
        /// The attribute's value.
        value: String,
    },
    /// ShuffleChannels' axis is not a multiple of its groups.
    #[error("ShuffleChannels needs axis {axis} ({dim} elements) to be a multiple of its {group} groups")]
    ShuffleGroups {
        /// The axis, normalised.
        axis: usize,
        /// Its size.
        dim: Dim,
        /// The `group` attribute.
        group: u64,
    },
    /// GatherElements' data and indices differ in rank, or in a dimension
    /// other than the axis.
    #[error(
        "GatherElements needs data and indices of one rank, equal but along axis {axis}, but they are {data} and \
         {indices}"
    )]
    GatherElementsShapes {
        /// The axis, normalised.
        axis: usize,
        /// The data shape.
        data: PartialShape,
        /// The indices shape.
        indices: PartialShape,
    },
    /// GatherND's `batch_dims` leaves no dimension of the data or the
    /// indices after the batch.
    #[error("GatherND's batch_dims {batch_dims} must be below the rank of its {input}, which is {rank}")]
    GatherNdBatchDims {
        /// The attribute.
        batch_dims: u64,
        /// `data` or `indices`.
        input: &'static str,
        /// That input's rank.
        rank: usize,
    },
    /// GatherND's index tuples are longer than the data has dimensions
    /// after the batch.
    #[error(
        "GatherND's indices hold tuples of {length}, but the data of rank {data_rank} has only {} dimensions after \
         its {batch_dims} batch dimensions",
        data_rank.saturating_sub(*batch_dims as usize)
    )]
    GatherNdTupleLength {
        /// The last dimension of the indices.
        length: u64,
        /// The `batch_dims` attribute.
        batch_dims: u64,
        /// The data's rank.
        data_rank: usize,
    },
    /// The batch dimensions of GatherND's data and indices differ.
    #[error(
        "the first {batch_dims} dimensions of GatherND's data {data} and indices {indices} must be equal"
    )]
    GatherNdBatchMismatch {
        /// The `batch_dims` attribute.
        batch_dims: u64,
        /// The data shape.
        data: PartialShape,
        /// The indices shape.
        indices: PartialShape,
    },
    /// SliceScatter's updates do not have the shape of the slice they
    /// replace.
    #[error("SliceScatter's updates have shape {updates}, but the slice they replace has shape {slice}")]
    SliceScatterUpdates {
        /// The updates' shape.
        updates: PartialShape,
        /// The slice's shape.
        slice: PartialShape,
    },
    /// GatherTree's inputs are of a type it does not run.
    #[error("GatherTree takes integers of 8 to 64 bits, f16, bf16, f32 or f64, but its inputs are {found}")]
    GatherTreeType {
        /// The inputs' element type.
        found: ElementType,
    },
    /// A parent index GatherTree follows names no beam.
    #[error(
        "GatherTree parent index {value} at position {} of parent_idx is out of range: {}",
        position_text(position),
        index_range(*beam_width, false)
    )]
    GatherTreeParent {
        /// Where the parent index is in parent_idx.
        position: Vec<usize>,
        /// The value as it is written, a real included.
        value: String,
        /// The number of beams.
        beam_width: u64,
    },
    /// A sequence length of GatherTree is negative or not a number.
    #[error("GatherTree max_seq_len {value} at position {batch} is not a length: it must be 0 or more")]
    GatherTreeLength {
        /// The batch the length is for.
        batch: usize,
        /// The value as it is written.
        value: String,
    },
    /// An attribute that counts something is negative.
    #[error("{op}'s {name} must be 0 or more, but it is {value}")]
    NegativeAttribute {
        /// The operation.
        op: &'static str,
        /// The attribute.
        name: &'static str,
        /// Its value.
        value: i64,
    },
    /// A scatter's updates do not have the shape its data and indices
    /// give them.
    #[error("{op} needs updates of shape {expected} (from its data and indices), but they are {updates}")]
    ScatterUpdates {
        /// The operation.
        op: &'static str,
        /// The shape the updates must have, as far as it is known.
        expected: PartialShape,
        /// The updates' shape.
        updates: PartialShape,
    },
    /// ScatterNDUpdate's index tuples are longer than the data's rank.
    #[error(
        "ScatterNDUpdate's indices hold tuples of {length}, but the data has only {data_rank} dimensions"
    )]
    ScatterNdTupleLength {
        /// The last dimension of the indices.
        length: u64,
        /// The data's rank.
        data_rank: usize,
    },
    /// A reduction asked of elements it cannot combine (strings, the
    /// packed types).
    #[error("{op}'s reduction {reduction} takes numbers and booleans, but the data is {found}")]
    ReductionType {
        /// The operation.
        op: &'static str,
        /// The `reduction` attribute.
        reduction: &'static str,
        /// The data's element type.
        found: ElementType,
    },
    /// A `reduction` attribute names no reduction the op has.
    #[error("`{value}` is not a reduction of {op}; expected one of {expected}")]
    InvalidReduction {
        /// The operation.
        op: &'static str,
        /// The attribute's value.
        value: String,
        /// The reductions the op has, in words.
        expected: &'static str,
    },
    /// An input has an element type its op does not take.
    #[error("the {input} input of {op} must be {expected}, but it is {found}")]
    InputType {
        /// The operation.
        op: &'static str,
        /// The input's role.
        input: &'static str,
        /// What is accepted, in words.
        expected: &'static str,
        /// The input's element type.
        found: ElementType,
    },
    /// StringTensorUnpack's strings hold more bytes than its i32 offsets
    /// count.
    #[error(
        "StringTensorUnpack's strings hold {} bytes, more than its i32 begins and ends can count (2147483647)",
        bytes.map_or("2^64 or more".to_string(), |b| b.to_string())
    )]
    StringsTooLong {
        /// The bytes, `None` past `u64`.
        bytes: Option<u64>,
    },
    /// StringTensorPack's constant begins or ends break a rule of
    /// OpenVINO's shape inference.
    #[error("the {input} of StringTensorPack {problem}")]
    StringIndices {
        /// `begins` or `ends`.
        input: &'static str,
        /// The rule broken, in words.
        problem: &'static str,
    },
    /// StringTensorPack's begins and ends differ in shape.
    #[error("the begins {begins} and ends {ends} of StringTensorPack must have one shape")]
    StringPackShapes {
        /// The begins' shape.
        begins: PartialShape,
        /// The ends' shape.
        ends: PartialShape,
    },
    /// A string StringTensorPack packs lies outside its symbols, or ends
    /// before it begins.
    #[error(
        "string {} of StringTensorPack spans [{begin}, {end}), which is not a range of its {symbols} symbols",
        position_text(position)
    )]
    StringSpan {
        /// Where the string is in begins and ends.
        position: Vec<usize>,
        /// Its begin.
        begin: i64,
        /// Its end.
        end: i64,
        /// The symbols' length.
        symbols: u64,
    },
    /// A string StringTensorPack packs is not UTF-8.
    #[error(
        "string {} of StringTensorPack, symbols [{begin}, {end}), is not valid UTF-8; ovir's strings are UTF-8 text",
        position_text(position)
    )]
    StringUtf8 {
        /// Where the string is in begins and ends.
        position: Vec<usize>,
        /// Its begin.
        begin: i64,
        /// Its end.
        end: i64,
    },
    /// An attribute of one value per spatial axis (ExtractImagePatches'
    /// `sizes`, Col2Im's `strides`) is not two integers.
    #[error("attribute `{name}` of {op} must be two integers, `rows,cols`, but it is `{value}`")]
    PairAttribute {
        /// The operation.
        op: &'static str,
        /// The attribute.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// An attribute of one value per spatial axis holds a value below its
    /// least.
    #[error("attribute `{name}` of {op} must hold values of {min} or more, but it holds {value}")]
    PairValue {
        /// The operation.
        op: &'static str,
        /// The attribute.
        name: &'static str,
        /// The value.
        value: i64,
        /// The least value allowed.
        min: i64,
    },
    /// ExtractImagePatches' data is not 4-D.
    #[error(
        "ExtractImagePatches needs 4-D data [batch, channels, rows, columns], but the data shape is {shape}"
    )]
    PatchRank {
        /// The data shape.
        shape: PartialShape,
    },
    /// Col2Im's `output_size` and `kernel_size` are of two types.
    #[error("Col2Im's output_size and kernel_size must have one element type, but they are {output_size} and {kernel_size}")]
    Col2ImIndexTypes {
        /// The type of `output_size`.
        output_size: ElementType,
        /// The type of `kernel_size`.
        kernel_size: ElementType,
    },
    /// A Col2Im kernel size below 1.
    #[error("Col2Im's kernel_size must hold values of 1 or more, but element {index} is {value}")]
    Col2ImKernel {
        /// The position of the value.
        index: usize,
        /// The value.
        value: i64,
    },
    /// Col2Im's data does not hold as many blocks as its sizes give.
    #[error(
        "Col2Im's data holds {found} blocks along its last axis, but its output_size, kernel_size, strides, \
         dilations and pads give {} x {} = {}", blocks[0], blocks[1], u128::from(blocks[0]) * u128::from(blocks[1])
    )]
    Col2ImBlocks {
        /// The blocks along the rows and the columns.
        blocks: [u64; 2],
        /// The data's last dimension.
        found: u64,
    },
    /// The `auto_pad` of ExtractImagePatches is not one it takes.
    #[error("`{value}` is not an ExtractImagePatches padding; expected valid, same_upper or same_lower")]
    InvalidPatchPadding {
        /// The attribute's value.
        value: String,
    },
    /// An attribute naming the type of index outputs is neither i32 nor
    /// i64.
    #[error("attribute `{name}` of {op} must be i32 or i64, but it is `{value}`")]
    IndexElementType {
        /// The operation.
        op: &'static str,
        /// The attribute.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// An input that must be known when the model loads (a Const) is
    /// computed when it runs.
    #[error("the {input} input of {op} must be a Const, known when the model loads, but it is computed when the model runs")]
    InputNotConstant {
        /// The operation.
        op: &'static str,
        /// The input's role.
        input: &'static str,
    },
    /// An op's index or count outputs cannot count what it indexes.
    #[error("{op} indexes {count} elements or slices, more than its {ty} outputs can count")]
    IndexOverflow {
        /// The operation.
        op: &'static str,
        /// How many elements or slices there are.
        count: u64,
        /// The output type too narrow for them.
        ty: ElementType,
    },
    /// The memory an op works in could not be had.
    #[error("{op} cannot allocate {bytes} bytes for its {what}: out of memory")]
    OutOfMemory {
        /// The operation.
        op: &'static str,
        /// What the memory was for.
        what: &'static str,
        /// Bytes that were asked for.
        bytes: usize,
    },
    /// An index lies outside the axis it picks from.
    #[error(
        "{op} index {index} at position {} of its indices is out of range: {}",
        position_text(position),
        index_range(*size, *negative)
    )]
    IndexOutOfRange {
        /// The operation.
        op: &'static str,
        /// Where the index is in the indices tensor.
        position: Vec<usize>,
        /// The index.
        index: i128,
        /// The size of the axis it picks from.
        size: u64,
        /// Whether negative indices, counting from the end, are allowed.
        negative: bool,
    },
}

/// Why Convert's check ([`crate::ops::convert::check_conversion`]) refuses a
/// pair, for its error message.
fn conversion_rule(from: ElementType, to: ElementType) -> String {
    use ElementType as E;
    match (from, to) {
        (E::Nf4 | E::F4e2m1 | E::F8e8m0, _) => format!("{from} converts only to f16, bf16 and f32"),
        (_, E::Nf4) => "only f16 converts to nf4".to_owned(),
        (_, E::F4e2m1 | E::F8e8m0) => format!("only f16, bf16 and f32 convert to {to}"),
        _ => "the conversion is not defined".to_owned(),
    }
}

/// `[1, 0, 2]`.
fn position_text(position: &[usize]) -> String {
    let items: Vec<String> = position.iter().map(usize::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// The indices an axis of `size` takes, in words.
fn index_range(size: u64, negative: bool) -> String {
    match (size, negative) {
        (0, _) => "the axis it picks from is empty".to_string(),
        (s, false) => format!("an index must lie between 0 and {}", s - 1),
        (s, true) => format!("an index must lie between -{s} and {}", s - 1),
    }
}

/// `{0, 2, 3}`.
fn axis_set(axes: &[i128]) -> String {
    let items: Vec<String> = axes.iter().map(i128::to_string).collect();
    format!("{{{}}}", items.join(", "))
}

/// The allowed axis range, in words.
fn axis_range(rank: usize) -> String {
    if rank == 0 {
        "a scalar has no axes".to_string()
    } else {
        format!("an axis must lie between -{rank} and {}", rank - 1)
    }
}

/// The number of inputs an op takes, in words.
fn input_range(min: usize, max: Option<usize>) -> String {
    match max {
        Some(max) if max == min => format!("{min} input(s)"),
        Some(max) => format!("{min} to {max} inputs"),
        None => format!("{min} or more inputs"),
    }
}

/// The number of outputs an op produces, in words.
fn output_range(min: usize, max: Option<usize>) -> String {
    match max {
        Some(max) if max == min => format!("{min} output(s)"),
        Some(max) => format!("{min} to {max} outputs"),
        None => format!("{min} or more outputs"),
    }
}

/// The modes a Broadcast version accepts, in words.
fn broadcast_modes(version: u32) -> &'static str {
    if version >= 3 {
        "numpy, explicit or bidirectional"
    } else {
        "numpy or explicit"
    }
}
