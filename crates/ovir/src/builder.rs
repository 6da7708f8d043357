//! Building a model in code, op by op, as OpenVINO's opset functions do.
//!
//! Each call adds one layer and checks it at once with the same shape
//! inference that checks a model read from a file, so a wrong attribute or
//! an input of the wrong type or shape is an error at that call, naming
//! the op. [`ModelBuilder::build`] hands back a [`Model`] that compiles,
//! runs and saves like one read from IR.
//!
//! ```
//! use ovir::{ElementType, ModelBuilder, PartialShape, Tensor};
//!
//! let mut b = ModelBuilder::new("rseq");
//! let data = b.parameter("data", ElementType::F32, PartialShape::from_static(&[2, 4]))?;
//! let lengths = b.constant_slice(&[2], &[3i32, 1])?;
//! // A wrong attribute is refused where it is given.
//! let err = b.reverse_sequence(data, lengths, 0, 2).unwrap_err();
//! assert!(err.to_string().contains("seq_axis"), "{err}");
//!
//! let out = b.reverse_sequence(data, lengths, 0, 1)?;
//! b.set_names(out, &["out"])?;
//! b.result(out)?;
//! let model = b.build()?;
//!
//! let x = Tensor::from_vec(&[2, 4], (0..8).map(|v| v as f32).collect())?;
//! let outputs = model.compile()?.run([("data", x)])?;
//! assert_eq!(outputs.get("out")?.to_vec::<f32>()?, [2.0, 1.0, 0.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ovir_exec::ConstantEvaluator;
use ovir_ir::{Edge, LayerIdx, OutputRef, Port, RtInfo, SourceFile, Span};
use ovir_shape::ops::{
    BatchToSpace, BlockMode, Broadcast, BroadcastMode, Col2Im, Concat, Const, Convert, DepthToSpace,
    ExtractImagePatches, Gather, GatherElements, GatherNd, Identity, Pad, PadMode, Parameter, PatchPadding,
    Reshape, ResultOp, Reverse, ReverseMode, ReverseSequence, ReverseSubsequences, Roll,
    ScatterElementsReduction, ScatterElementsUpdate, ScatterNdReduction, ScatterNdUpdate, ScatterUpdate,
    ShapeOf, ShuffleChannels, Slice, SliceScatter, SpaceToBatch, SpaceToDepth, Split, Squeeze, StridedSlice,
    StringTensorPack, StringTensorUnpack, Tile, Transpose, Unique, Unsqueeze, VariadicSplit,
};
use ovir_shape::{BuiltinOp, IntoLayer, Op, OpLayer, OpRegistry, PortFact, Problem};
use ovir_tensor::{Element, ElementType, PartialShape, Tensor, TensorError};

use crate::error::Error;
use crate::model::Model;
use crate::Core;

/// An output of a layer added to a [`ModelBuilder`]: what its op
/// functions take as inputs and return. It belongs to the builder that
/// made it; another builder refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Output {
    builder: u64,
    at: OutputRef,
}

impl Output {
    /// The output in the graph being built.
    pub fn output_ref(self) -> OutputRef {
        self.at
    }
}

/// Numbers builders, so that an output of one is not taken for an output
/// of another.
static BUILDERS: AtomicU64 = AtomicU64::new(0);

/// Why a layer could not be added.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The op refused its attributes or inputs.
    #[error("{op} `{name}`: {}", list(problems))]
    Invalid {
        /// The op's type.
        op: String,
        /// The layer's name.
        name: String,
        /// Every problem found.
        problems: Vec<Problem>,
    },
    /// An output that is not one of this builder's.
    #[error("{op}: input {input} (layer {layer}, output {port}) is no output of this builder's model")]
    UnknownOutput {
        /// The op it was given to.
        op: String,
        /// The input's position.
        input: usize,
        /// The layer the handle names.
        layer: usize,
        /// The output the handle names.
        port: usize,
    },
    /// A constant's value could not be made.
    #[error("constant: {0}")]
    Value(#[from] TensorError),
    /// [`ModelBuilder::add`] was given an op without exactly one output;
    /// [`ModelBuilder::add_layer`] takes such ops.
    #[error("{op} has {found} outputs, but `add` takes an op with one; `add_layer` returns them all")]
    OutputCount {
        /// The op's type.
        op: String,
        /// Its number of outputs.
        found: usize,
    },
    /// Packed codes outside the element type's range.
    #[error("constant: {0}")]
    Codes(#[from] ovir_tensor::packed::PackError),
}

fn list(problems: &[Problem]) -> String {
    let items: Vec<String> = problems
        .iter()
        .map(|p| match &p.attribute {
            Some(a) => format!("attribute `{a}`: {}", p.kind),
            None => p.kind.to_string(),
        })
        .collect();
    items.join("; ")
}

/// Builds a model op by op; see the [module docs](self).
#[derive(Debug)]
pub struct ModelBuilder {
    id: u64,
    ir: ovir_ir::Model,
    facts: Vec<Vec<PortFact>>,
    registry: OpRegistry,
}

impl ModelBuilder {
    /// An empty model named `name`, with the ops of [`OpRegistry::new`].
    pub fn new(name: &str) -> Self {
        ModelBuilder::with_core(name, &Core::new())
    }

    /// An empty model whose layers may also use the extensions of `core`.
    pub fn with_core(name: &str, core: &Core) -> Self {
        let ir = ovir_ir::Model {
            name: name.to_string(),
            version: 11,
            layers: Vec::new(),
            edges: Vec::new(),
            rt_info: RtInfo::default(),
            source: Arc::new(SourceFile { path: None, text: String::new() }),
            sources: Vec::new(),
            order: Vec::new(),
        };
        let id = BUILDERS.fetch_add(1, Ordering::Relaxed);
        ModelBuilder { id, ir, facts: Vec::new(), registry: core.ops().clone() }
    }

    /// What inference found for an output: its element type, its shape
    /// and, when known before the model runs, its value.
    pub fn fact(&self, output: Output) -> Option<&PortFact> {
        if output.builder != self.id {
            return None;
        }
        self.facts.get(output.at.layer.0)?.get(output.at.port)
    }

    /// Adds a layer of `op`, a built-in op of [`ovir::ops`](crate::ops)
    /// or an extension's [`OpLayer`], fed by `inputs` in order, and
    /// returns its output. The layer gets the attributes the op writes,
    /// as OpenVINO's serializer writes them, and is checked at once.
    ///
    /// ```
    /// use ovir::ops::{Reverse, ReverseMode};
    /// use ovir::{ElementType, ModelBuilder, PartialShape};
    ///
    /// let mut b = ModelBuilder::new("flip");
    /// let data = b.parameter("data", ElementType::F32, PartialShape::from_static(&[2, 3]))?;
    /// let axes = b.constant_slice(&[1], &[1i64])?;
    /// let flipped = b.add(Reverse { mode: ReverseMode::Index }, &[data, axes])?;
    /// assert_eq!(b.fact(flipped).map(|f| f.shape.to_string()), Some("[2,3]".to_string()));
    /// # Ok::<(), ovir::BuildError>(())
    /// ```
    pub fn add(&mut self, op: impl IntoLayer, inputs: &[Output]) -> Result<Output, BuildError> {
        let op = op.into_layer();
        if op.outputs != 1 {
            return Err(BuildError::OutputCount { op: op.op_type, found: op.outputs });
        }
        let op_type = op.op_type.clone();
        one(self.insert(op, None, inputs)?, &op_type)
    }

    /// Adds a layer of `op` fed by `inputs`, as [`ModelBuilder::add`]
    /// does, and returns every output it has, in order: none for a
    /// `Result`, several for an op with several outputs.
    pub fn add_layer(&mut self, op: impl IntoLayer, inputs: &[Output]) -> Result<Vec<Output>, BuildError> {
        self.insert(op.into_layer(), None, inputs)
    }

    /// A model input (`Parameter`): its layer and tensor are both named
    /// `name`.
    pub fn parameter(
        &mut self,
        name: &str,
        ty: ElementType,
        shape: PartialShape,
    ) -> Result<Output, BuildError> {
        let outputs = self.insert(Parameter { element_type: ty, shape }.write(), Some(name), &[])?;
        let out = one(outputs, "Parameter")?;
        self.set_names(out, &[name])?;
        Ok(out)
    }

    /// A constant (`Const`) holding `value`.
    pub fn constant(&mut self, value: Tensor) -> Result<Output, BuildError> {
        self.add(Const { value }, &[])
    }

    /// A constant of this shape from a slice of values in row-major order.
    pub fn constant_slice<T: Element>(
        &mut self,
        shape: &[usize],
        values: &[T],
    ) -> Result<Output, BuildError> {
        self.constant(Tensor::from_elements(shape, values)?)
    }

    /// A constant from an `ndarray` array.
    pub fn constant_array<T: Element, D: ndarray::Dimension>(
        &mut self,
        array: ndarray::ArrayView<'_, T, D>,
    ) -> Result<Output, BuildError> {
        self.constant(Tensor::try_from_array(array)?)
    }

    /// A `string` constant of this shape.
    pub fn constant_strings(&mut self, shape: &[usize], values: Vec<String>) -> Result<Output, BuildError> {
        self.constant(Tensor::from_strings(shape, values)?)
    }

    /// A constant of a packed sub-byte type (`u1`, `u4`, `i4`, `nf4`, …) or
    /// an 8-bit float type, from one code per element: the integer (two's
    /// complement for `i4`), the `nf4` index, or the float's bit pattern.
    /// Codes outside the type's range are refused.
    pub fn constant_codes(
        &mut self,
        ty: ElementType,
        shape: &[usize],
        codes: &[u8],
    ) -> Result<Output, BuildError> {
        let exchange = ovir_tensor::packed::exchange_type(ty).unwrap_or(ty);
        let value = Tensor::from_bytes(exchange, shape, codes)?;
        self.constant(ovir_tensor::packed::from_exchange(&value, ty)?)
    }

    /// `Convert`: the elements converted to `to`.
    pub fn convert(&mut self, data: Output, to: ElementType) -> Result<Output, BuildError> {
        self.add(Convert { to }, &[data])
    }

    /// `Reverse`: `data` with the axes `axes` names reversed (axis numbers
    /// in index mode, one boolean per axis in mask mode).
    pub fn reverse(&mut self, data: Output, axes: Output, mode: ReverseMode) -> Result<Output, BuildError> {
        self.add(Reverse { mode }, &[data, axes])
    }

    /// `ReverseSequence`: the first `lengths[b]` elements along `seq_axis`
    /// of each slice `b` along `batch_axis` reversed.
    pub fn reverse_sequence(
        &mut self,
        data: Output,
        lengths: Output,
        batch_axis: i64,
        seq_axis: i64,
    ) -> Result<Output, BuildError> {
        self.add(ReverseSequence { batch_axis, seq_axis }, &[data, lengths])
    }

    /// ovir's `ReverseSubsequences` extension: consecutive subsequences
    /// along `axis`, of the lengths `lengths` gives, each reversed.
    pub fn reverse_subsequences(
        &mut self,
        data: Output,
        lengths: Output,
        axis: i64,
    ) -> Result<Output, BuildError> {
        self.add(ReverseSubsequences { axis }, &[data, lengths])
    }

    /// `ShapeOf`: the shape of `data`, as `output_type` (`i32` or `i64`).
    pub fn shape_of(&mut self, data: Output, output_type: ElementType) -> Result<Output, BuildError> {
        self.add(ShapeOf { output_type }, &[data])
    }

    /// `Gather`: the elements of `data` at `indices` along `axis`, with
    /// `batch_dims` leading batch dimensions.
    pub fn gather(
        &mut self,
        data: Output,
        indices: Output,
        axis: Output,
        batch_dims: i64,
    ) -> Result<Output, BuildError> {
        self.add(Gather { batch_dims, version: 8 }, &[data, indices, axis])
    }

    /// `GatherElements`: for each of `indices` (i32 or i64, of the data's
    /// rank), the element of `data` at that index along `axis` and at the
    /// index's own position along the other axes (NumPy's
    /// `take_along_axis`).
    pub fn gather_elements(
        &mut self,
        data: Output,
        indices: Output,
        axis: i64,
    ) -> Result<Output, BuildError> {
        self.add(GatherElements { axis }, &[data, indices])
    }

    /// `GatherND-8`: for each tuple along the last axis of `indices` (any
    /// integer type; negative indices count from the end), the slice of
    /// `data` it picks, after `batch_dims` leading dimensions that data
    /// and indices share and the output keeps.
    pub fn gather_nd(
        &mut self,
        data: Output,
        indices: Output,
        batch_dims: u64,
    ) -> Result<Output, BuildError> {
        self.add(GatherNd { batch_dims, version: 8 }, &[data, indices])
    }

    /// `ScatterUpdate-3`: a copy of `data` in which the slice at each of
    /// `indices` (any integer type, in `[0, s)`) along `axis` (a scalar or
    /// one-element integer, negative counting from the end) is replaced by
    /// the matching slice of `updates`, of shape `data[:axis] + indices +
    /// data[axis+1:]`; where indices repeat, the last update wins.
    pub fn scatter_update(
        &mut self,
        data: Output,
        indices: Output,
        updates: Output,
        axis: Output,
    ) -> Result<Output, BuildError> {
        self.add(ScatterUpdate, &[data, indices, updates, axis])
    }

    /// `ScatterNDUpdate-15`: a copy of `data` in which the element or slice
    /// each tuple along the last axis of `indices` (i32 or i64; negative
    /// indices count from the end) picks is replaced by, or combined by
    /// `reduction` with, the matching slice of `updates`, in index order.
    pub fn scatter_nd_update(
        &mut self,
        data: Output,
        indices: Output,
        updates: Output,
        reduction: ScatterNdReduction,
    ) -> Result<Output, BuildError> {
        self.add(ScatterNdUpdate { reduction, version: 15 }, &[data, indices, updates])
    }

    /// `ScatterElementsUpdate-12`: a copy of `data` in which each element
    /// of `updates` replaces, or is combined by `reduction` with, the
    /// element at its own position but with the index along `axis` that
    /// `indices` (of the updates' shape; negative indices count from the
    /// end) gives, in index order. Without `use_init_val`, the data's
    /// element takes no part in the reduction.
    pub fn scatter_elements_update(
        &mut self,
        data: Output,
        indices: Output,
        updates: Output,
        axis: Output,
        reduction: ScatterElementsReduction,
        use_init_val: bool,
    ) -> Result<Output, BuildError> {
        let op = ScatterElementsUpdate { reduction, use_init_val, version: 12 };
        self.add(op, &[data, indices, updates, axis])
    }

    /// `SliceScatter-15`: a copy of `data` with `updates` written over the
    /// slice that `start`, `stop`, `step` and `axes` pick, as
    /// [`slice`](Self::slice) picks it.
    pub fn slice_scatter(
        &mut self,
        data: Output,
        updates: Output,
        start: Output,
        stop: Output,
        step: Output,
        axes: Option<Output>,
    ) -> Result<Output, BuildError> {
        let mut inputs = vec![data, updates, start, stop, step];
        inputs.extend(axes);
        self.add(SliceScatter, &inputs)
    }

    /// `Broadcast`: `data` broadcast to `target_shape`; `axes_mapping` is
    /// the third input of the explicit mode.
    pub fn broadcast(
        &mut self,
        data: Output,
        target_shape: Output,
        mode: BroadcastMode,
        axes_mapping: Option<Output>,
    ) -> Result<Output, BuildError> {
        let mut inputs = vec![data, target_shape];
        inputs.extend(axes_mapping);
        self.add(Broadcast { mode, version: 3 }, &inputs)
    }

    /// `Reshape`: `data` with the shape `shape` holds (`-1` for the one
    /// dimension to infer, `0` to copy a dimension when `special_zero`).
    pub fn reshape(&mut self, data: Output, shape: Output, special_zero: bool) -> Result<Output, BuildError> {
        self.add(Reshape { special_zero }, &[data, shape])
    }

    /// `Squeeze`: `data` without the size-1 axes `axes` names (all of them
    /// without `axes`).
    pub fn squeeze(&mut self, data: Output, axes: Option<Output>) -> Result<Output, BuildError> {
        let mut inputs = vec![data];
        inputs.extend(axes);
        self.add(Squeeze::V1, &inputs)
    }

    /// `Squeeze-15`: [`squeeze`](Self::squeeze) with `allow_axis_skip`,
    /// which leaves the output rank unknown until the model runs when a
    /// listed axis may be 1 but its size is not known. It runs as
    /// Squeeze-1.
    pub fn squeeze_15(
        &mut self,
        data: Output,
        axes: Option<Output>,
        allow_axis_skip: bool,
    ) -> Result<Output, BuildError> {
        let mut inputs = vec![data];
        inputs.extend(axes);
        self.add(Squeeze { version: 15, allow_axis_skip }, &inputs)
    }

    /// `Identity`: `data` passed on unchanged (the output shares its
    /// storage).
    pub fn identity(&mut self, data: Output) -> Result<Output, BuildError> {
        self.add(Identity, &[data])
    }

    /// `Unsqueeze`: `data` with size-1 axes inserted where `axes` says.
    pub fn unsqueeze(&mut self, data: Output, axes: Output) -> Result<Output, BuildError> {
        self.add(Unsqueeze, &[data, axes])
    }

    /// `Concat`: the inputs joined along `axis`.
    pub fn concat(&mut self, inputs: &[Output], axis: i64) -> Result<Output, BuildError> {
        self.add(Concat { axis }, inputs)
    }

    /// `Slice`: the elements of `data` from `start` to `stop` by `step`
    /// along `axes` (every axis from 0 without `axes`).
    pub fn slice(
        &mut self,
        data: Output,
        start: Output,
        stop: Output,
        step: Output,
        axes: Option<Output>,
    ) -> Result<Output, BuildError> {
        let mut inputs = vec![data, start, stop, step];
        inputs.extend(axes);
        self.add(Slice, &inputs)
    }

    /// `Transpose`: `data` with its axes in the order `order` gives (empty:
    /// the axes reversed).
    ///
    /// The layout ops build as the others do; an NHWC image made NCHW,
    /// rolled, tiled and padded:
    ///
    /// ```
    /// use ovir::ops::PadMode;
    /// use ovir::{ElementType, ModelBuilder, PartialShape, Tensor};
    ///
    /// let mut b = ModelBuilder::new("layout");
    /// let image = b.parameter("image", ElementType::U8, PartialShape::from_static(&[1, 2, 2, 3]))?;
    /// let order = b.constant_slice(&[4], &[0i64, 3, 1, 2])?;
    /// let nchw = b.transpose(image, order)?;
    /// let (shift, axes) = (b.constant_slice(&[1], &[1i64])?, b.constant_slice(&[1], &[1i64])?);
    /// let rolled = b.roll(nchw, shift, axes)?; // the channels turned by one
    /// let repeats = b.constant_slice(&[4], &[1i64, 1, 1, 2])?;
    /// let tiled = b.tile(rolled, repeats)?;
    /// let (begins, ends) = (b.constant_slice(&[4], &[0i64, 0, 1, 0])?, b.constant_slice(&[4], &[0i64, 0, 0, 0])?);
    /// let padded = b.pad(tiled, begins, ends, None, PadMode::Constant)?;
    /// b.set_names(padded, &["out"])?;
    /// b.result(padded)?;
    /// let model = b.build()?;
    ///
    /// let x = Tensor::from_vec(&[1, 2, 2, 3], (0u8..12).collect())?;
    /// let out = model.compile()?.run([("image", x)])?;
    /// let out = out.get("out")?;
    /// assert_eq!(out.shape(), &[1, 3, 3, 4]);
    /// // Channel 0 is what was channel 2: a padded row, then 2 5 2 5, 8 11 8 11.
    /// assert_eq!(out.to_vec::<u8>()?[..12], [0, 0, 0, 0, 2, 5, 2, 5, 8, 11, 8, 11]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn transpose(&mut self, data: Output, order: Output) -> Result<Output, BuildError> {
        self.add(Transpose, &[data, order])
    }

    /// `Roll`: the elements of `data` moved by `shift` along `axes`,
    /// wrapping around.
    pub fn roll(&mut self, data: Output, shift: Output, axes: Output) -> Result<Output, BuildError> {
        self.add(Roll, &[data, shift, axes])
    }

    /// `Tile`: `data` repeated `repeats[i]` times along axis `i`, the
    /// repeats lined up with its last axes.
    pub fn tile(&mut self, data: Output, repeats: Output) -> Result<Output, BuildError> {
        self.add(Tile, &[data, repeats])
    }

    /// `Pad` (version 12, which takes negative pads): `data` with
    /// `begins[i]` elements before axis `i` and `ends[i]` after it, made
    /// as `mode` says; `value` (or zero) in constant mode.
    pub fn pad(
        &mut self,
        data: Output,
        begins: Output,
        ends: Output,
        value: Option<Output>,
        mode: PadMode,
    ) -> Result<Output, BuildError> {
        let mut inputs = vec![data, begins, ends];
        inputs.extend(value);
        self.add(Pad { mode, version: 12 }, &inputs)
    }

    /// `DepthToSpace`: blocks of `block_size` × `block_size` (per spatial
    /// axis) taken from the channels into space.
    pub fn depth_to_space(
        &mut self,
        data: Output,
        mode: BlockMode,
        block_size: u64,
    ) -> Result<Output, BuildError> {
        self.add(DepthToSpace { mode, block_size }, &[data])
    }

    /// `SpaceToDepth`: blocks of space moved into the channels, the
    /// inverse of [`ModelBuilder::depth_to_space`].
    pub fn space_to_depth(
        &mut self,
        data: Output,
        mode: BlockMode,
        block_size: u64,
    ) -> Result<Output, BuildError> {
        self.add(SpaceToDepth { mode, block_size }, &[data])
    }

    /// `ShuffleChannels`: the channels along `axis` seen as `group` rows
    /// and read by columns.
    pub fn shuffle_channels(&mut self, data: Output, axis: i64, group: u64) -> Result<Output, BuildError> {
        self.add(ShuffleChannels { axis, group }, &[data])
    }

    /// `ExtractImagePatches`: the `sizes` patches of 4-D data, `strides`
    /// apart and reading every `rates`-th element, stacked along the
    /// channels.
    pub fn extract_image_patches(
        &mut self,
        data: Output,
        sizes: [u64; 2],
        strides: [u64; 2],
        rates: [u64; 2],
        padding: PatchPadding,
    ) -> Result<Output, BuildError> {
        self.add(ExtractImagePatches { sizes, strides, rates, padding }, &[data])
    }

    /// `Col2Im-15`: blocks `[N, C * kh * kw, L]` (or unbatched `[C * kh *
    /// kw, L]`) put back into an image of `output_size` (`[H, W]`), blocks
    /// of `kernel_size` (`[kh, kw]`; the two i32 or the two i64), with
    /// `op`'s strides, dilations and pads; the values that overlap add up
    /// in the order of the data. Gives `[N, C, H, W]` (or `[C, H, W]`).
    pub fn col2im(
        &mut self,
        data: Output,
        output_size: Output,
        kernel_size: Output,
        op: Col2Im,
    ) -> Result<Output, BuildError> {
        self.add(op, &[data, output_size, kernel_size])
    }

    /// `StringTensorUnpack`: string `data` as `[begins, ends, symbols]`,
    /// i32 offsets into its UTF-8 bytes one after another.
    pub fn string_tensor_unpack(&mut self, data: Output) -> Result<Vec<Output>, BuildError> {
        self.add_layer(StringTensorUnpack, &[data])
    }

    /// `StringTensorPack`: the strings `symbols[begins[i]..ends[i]]`, of
    /// the shape of `begins` and `ends` (i32 or i64).
    pub fn string_tensor_pack(
        &mut self,
        begins: Output,
        ends: Output,
        symbols: Output,
    ) -> Result<Output, BuildError> {
        self.add(StringTensorPack, &[begins, ends, symbols])
    }

    /// `Unique-10`: `[uniques, first indices, inverse, counts]` of `data`,
    /// flattened, or of its slices along `axis` (a Const i32 or i64, scalar
    /// or of one element, negative counting from the end); uniques in
    /// ascending order when `sorted`, else in order of first occurrence.
    /// Indices are `index_type`, counts `count_type` (each i32 or i64).
    pub fn unique(
        &mut self,
        data: Output,
        axis: Option<Output>,
        sorted: bool,
        index_type: ElementType,
        count_type: ElementType,
    ) -> Result<Vec<Output>, BuildError> {
        let op = Unique { sorted, index_type, count_type };
        match axis {
            Some(axis) => self.add_layer(op, &[data, axis]),
            None => self.add_layer(op, &[data]),
        }
    }

    /// `Split`: `data` cut into `num_splits` equal parts along `axis`, one
    /// output each.
    pub fn split(&mut self, data: Output, axis: Output, num_splits: u64) -> Result<Vec<Output>, BuildError> {
        self.add_layer(Split { num_splits }, &[data, axis])
    }

    /// `VariadicSplit`: `data` cut along `axis` into parts of the lengths
    /// `lengths` holds (one may be -1, the rest), one output each.
    pub fn variadic_split(
        &mut self,
        data: Output,
        axis: Output,
        lengths: Output,
    ) -> Result<Vec<Output>, BuildError> {
        let outputs = self.fact(lengths).and_then(|f| f.shape.dims().and_then(|d| d.first()?.get()));
        let outputs = outputs.and_then(|n| usize::try_from(n).ok()).unwrap_or(1);
        self.add_layer(VariadicSplit { outputs }, &[data, axis, lengths])
    }

    /// `StridedSlice`: the elements of `data` from `begin` to `end` by
    /// `strides`, with the masks `slice` holds.
    pub fn strided_slice(
        &mut self,
        data: Output,
        begin: Output,
        end: Output,
        strides: Option<Output>,
        slice: StridedSlice,
    ) -> Result<Output, BuildError> {
        let mut inputs = vec![data, begin, end];
        inputs.extend(strides);
        self.add(slice, &inputs)
    }

    /// `BatchToSpace`: the batch moved into the other axes by
    /// `block_shape`, then `crops_begin` and `crops_end` cut away.
    pub fn batch_to_space(
        &mut self,
        data: Output,
        block_shape: Output,
        crops_begin: Output,
        crops_end: Output,
    ) -> Result<Output, BuildError> {
        self.add(BatchToSpace, &[data, block_shape, crops_begin, crops_end])
    }

    /// `SpaceToBatch`: `data` padded by `pads_begin` and `pads_end`, then
    /// its blocks of `block_shape` moved into the batch.
    pub fn space_to_batch(
        &mut self,
        data: Output,
        block_shape: Output,
        pads_begin: Output,
        pads_end: Output,
    ) -> Result<Output, BuildError> {
        self.add(SpaceToBatch, &[data, block_shape, pads_begin, pads_end])
    }

    /// Gives an output its tensor names (replacing any it had): the names
    /// a model's inputs and outputs are known by.
    pub fn set_names(&mut self, output: Output, names: &[&str]) -> Result<(), BuildError> {
        self.fact(output).ok_or_else(|| unknown("set_names", 0, output))?;
        let port = self.port_mut(output).ok_or_else(|| unknown("set_names", 0, output))?;
        port.names = names.iter().filter(|n| !n.is_empty()).map(|n| n.to_string()).collect();
        Ok(())
    }

    /// Renames the layer that produces an output (layers are named
    /// `<Type>_<id>` when added).
    pub fn set_layer_name(&mut self, output: Output, name: &str) -> Result<(), BuildError> {
        self.fact(output).ok_or_else(|| unknown("set_layer_name", 0, output))?;
        let layer =
            self.ir.layers.get_mut(output.at.layer.0).ok_or_else(|| unknown("set_layer_name", 0, output))?;
        layer.name = name.to_string();
        Ok(())
    }

    /// Makes an output a model output (`Result`).
    pub fn result(&mut self, output: Output) -> Result<(), BuildError> {
        self.add_layer(ResultOp, &[output]).map(|_| ())
    }

    /// Makes an output a model output, with its `Result` layer named
    /// `name`.
    pub fn result_named(&mut self, output: Output, name: &str) -> Result<(), BuildError> {
        self.insert(ResultOp.write(), Some(name), &[output]).map(|_| ())
    }

    /// The model, validated as a model read from a file is.
    pub fn build(self) -> Result<Model, Error> {
        Model::validate_with(self.ir, &self.registry)
    }

    fn port_mut(&mut self, output: Output) -> Option<&mut Port> {
        self.ir.layers.get_mut(output.at.layer.0)?.outputs.get_mut(output.at.port)
    }

    /// Adds a layer and infers it; on any problem the layer is taken out
    /// again, so the builder stays as it was.
    fn insert(
        &mut self,
        op: OpLayer,
        name: Option<&str>,
        inputs: &[Output],
    ) -> Result<Vec<Output>, BuildError> {
        let idx = LayerIdx(self.ir.layers.len());
        let id = idx.0 as u64;
        for (i, input) in inputs.iter().enumerate() {
            if self.fact(*input).is_none() {
                return Err(unknown(&op.op_type, i, *input));
            }
        }
        let port = |i: usize, fact: &PortFact| Port {
            id: i as u64,
            precision: Some(fact.element_type),
            names: Vec::new(),
            shape: fact.shape.clone(),
            rt_info: RtInfo::default(),
            span: Span::default(),
        };
        let mut layer = op.to_layer_with(inputs.len());
        layer.id = id;
        layer.name = name.map_or_else(|| format!("{}_{id}", op.op_type), str::to_string);
        layer.inputs = inputs.iter().enumerate().filter_map(|(i, o)| Some(port(i, self.fact(*o)?))).collect();
        self.ir.layers.push(layer);
        self.ir.sources.push(inputs.iter().map(|o| o.at).collect());
        self.ir.order.push(idx);
        let inferred =
            ovir_shape::infer_layer(&self.ir, idx, &self.facts, &ConstantEvaluator, &self.registry);
        let (_op, facts): (Op, Vec<PortFact>) = match inferred {
            Ok(done) => done,
            Err(problems) => {
                let layer = self.ir.layers.pop();
                self.ir.sources.pop();
                self.ir.order.pop();
                let name = layer.map(|l| l.name).unwrap_or_default();
                return Err(BuildError::Invalid { op: op.op_type, name, problems: problems.into_vec() });
            }
        };
        let first_output = inputs.len();
        if let Some(layer) = self.ir.layers.last_mut() {
            layer.outputs = facts.iter().enumerate().map(|(i, f)| port(first_output + i, f)).collect();
        }
        for (i, input) in inputs.iter().enumerate() {
            let producer = &self.ir.layers[input.at.layer.0];
            let from_port = (producer.inputs.len() + input.at.port) as u64;
            let span = Span::default();
            self.ir.edges.push(Edge {
                from_layer: producer.id,
                from_port,
                to_layer: id,
                to_port: i as u64,
                span,
            });
        }
        let outputs =
            (0..facts.len()).map(|port| Output { builder: self.id, at: OutputRef { layer: idx, port } });
        let outputs = outputs.collect();
        self.facts.push(facts);
        Ok(outputs)
    }
}

/// The one output of a layer that has exactly one.
fn one(outputs: Vec<Output>, op: &str) -> Result<Output, BuildError> {
    match outputs.as_slice() {
        [out] => Ok(*out),
        _ => Err(BuildError::OutputCount { op: op.to_string(), found: outputs.len() }),
    }
}

fn unknown(op: &str, input: usize, output: Output) -> BuildError {
    BuildError::UnknownOutput { op: op.to_string(), input, layer: output.at.layer.0, port: output.at.port }
}
