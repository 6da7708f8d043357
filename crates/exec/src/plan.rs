//! The execution plan: a validated model compiled once into a flat list of
//! steps over numbered value slots.

use ovir_ir::{LayerIdx, LayerRef, Model, OutputRef};
use ovir_shape::{BroadcastMode, CustomOpRef, ExtensionError, ModelInfo, Op, PortFact, ReverseMode};
use ovir_tensor::{ElementType, PartialShape, Tensor, TensorError, DEFAULT_MAX_TENSOR_BYTES};

use crate::kernels::reshape::View;
use crate::kernels::{self, ExecOptions, KernelError, Scratch};

/// Reverse flags for axes that arrive at run time, on the stack for ranks
/// up to 8 so that reading them allocates nothing.
type Flags = smallvec::SmallVec<[bool; 8]>;

/// Where a value lives while the plan runs.
type Slot = usize;

/// The shape of a step's output buffer.
#[derive(Debug)]
enum OutShape<'t> {
    /// The data's shape, or one the plan worked out at compile time.
    Borrowed(&'t [usize]),
    /// One worked out for this run, on the stack up to rank 8.
    Owned(smallvec::SmallVec<[usize; 8]>),
}

impl OutShape<'_> {
    fn owned(shape: Vec<usize>) -> Self {
        OutShape::Owned(smallvec::SmallVec::from_vec(shape))
    }
}

impl std::ops::Deref for OutShape<'_> {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        match self {
            OutShape::Borrowed(s) => s,
            OutShape::Owned(s) => s,
        }
    }
}

/// One operation to run.
///
/// The `…Fixed` kernels are what [`Plan::specialize`] makes of a kernel
/// whose small inputs (axes, bounds, target shape) are constant and whose
/// data shape is static: the work that depends on those alone is done at
/// compile time, so that a run reads none of them and allocates nothing.
/// Each keeps the shapes it was worked out for, and given inputs of other
/// shapes runs as the general kernel would.
#[derive(Clone, Debug)]
enum Kernel {
    Convert(ElementType),
    Reverse(ReverseMode),
    /// A Reverse whose axes were constant: the flags are computed once, at
    /// compile time.
    ReverseFixed(Vec<bool>),
    ReverseSequence {
        batch_axis: i64,
        seq_axis: i64,
    },
    ShapeOf(ElementType),
    Gather {
        batch_dims: i64,
    },
    /// A Gather whose axis is constant and whose data and indices have
    /// static shapes; the indices are still read on every run.
    GatherFixed {
        batch_dims: i64,
        layout: Box<kernels::gather::Layout>,
    },
    Broadcast(BroadcastMode),
    /// A Broadcast whose target shape (and axes mapping) is constant.
    BroadcastFixed {
        mode: BroadcastMode,
        layout: Box<kernels::broadcast::Layout>,
    },
    /// Reshape, Squeeze or Unsqueeze: the output is a view of the data.
    View(View),
    /// A view whose second input is constant: the output shape is known.
    ViewFixed {
        view: View,
        data_shape: Vec<usize>,
        shape: Vec<usize>,
    },
    Concat {
        axis: i64,
    },
    /// A Concat of inputs whose shapes are all static.
    ConcatFixed {
        axis: i64,
        layout: Box<kernels::concat::Layout>,
    },
    Slice,
    /// A Slice whose bounds are constant, other than a pure reversal (which
    /// runs as [`Kernel::ReverseFixed`]): what it copies is listed.
    SliceFixed(Box<kernels::slice::SliceCopy>),
    /// An op added by an extension. `output_type` is the type analysis
    /// inferred, when it is static; with it, the output buffer is
    /// allocated (and reused) by the plan, else by the op. `fixed` holds
    /// the input types and shapes and the output shape analysis inferred,
    /// when all are static, so that a run on inputs of those types and
    /// shapes need not call the op's shape inference again; any other run
    /// calls it, as OpenVINO does.
    Custom {
        op: CustomOpRef,
        output_type: ElementType,
        fixed: Option<Box<CustomShapes>>,
    },
}

/// What an extension op was analysed with: its inputs' element types and
/// shapes, all static, and its output's shape.
#[derive(Clone, Debug)]
struct CustomShapes {
    inputs: Vec<(ElementType, Vec<usize>)>,
    output: Vec<usize>,
}

impl CustomShapes {
    /// Whether `inputs` have the types and shapes the op was analysed
    /// with, so that its shape inference would give the same answer.
    fn fits(&self, inputs: &[&Tensor]) -> bool {
        inputs.len() == self.inputs.len()
            && inputs
                .iter()
                .zip(&self.inputs)
                .all(|(t, (ty, s))| t.element_type() == *ty && t.shape() == s.as_slice())
    }
}

impl Kernel {
    fn from_op(op: &Op) -> Option<Kernel> {
        match op {
            Op::Convert { to } => Some(Kernel::Convert(*to)),
            Op::Reverse { mode } => Some(Kernel::Reverse(*mode)),
            Op::ReverseSequence { batch_axis, seq_axis } => {
                Some(Kernel::ReverseSequence { batch_axis: *batch_axis, seq_axis: *seq_axis })
            }
            Op::ShapeOf { output_type } => Some(Kernel::ShapeOf(*output_type)),
            Op::Gather { batch_dims, .. } => Some(Kernel::Gather { batch_dims: *batch_dims }),
            Op::Broadcast { mode, .. } => Some(Kernel::Broadcast(*mode)),
            Op::Unsqueeze => Some(Kernel::View(View::Unsqueeze)),
            Op::Squeeze => Some(Kernel::View(View::Squeeze)),
            Op::Reshape { special_zero } => Some(Kernel::View(View::Reshape { special_zero: *special_zero })),
            Op::Concat { axis } => Some(Kernel::Concat { axis: *axis }),
            Op::Slice => Some(Kernel::Slice),
            Op::Custom(op) => {
                Some(Kernel::Custom { op: op.clone(), output_type: ElementType::Dynamic, fixed: None })
            }
            _ => None,
        }
    }

    /// Computes into a new tensor, with up to `options.threads` threads
    /// for the kernels that can use them.
    fn eval(&self, inputs: &[&Tensor], options: &ExecOptions) -> Result<Tensor, KernelError> {
        match (self, inputs) {
            (Kernel::Convert(to), [data]) => kernels::convert_with(data, *to, options),
            (Kernel::Reverse(mode), [data, axes]) => {
                let flags = runtime_flags(*mode, axes, data.rank())?;
                kernels::reverse_with(data, &flags, options)
            }
            (Kernel::ReverseFixed(flags), [data, ..]) => kernels::reverse_with(data, flags, options),
            (Kernel::ReverseSequence { batch_axis, seq_axis }, [data, lengths]) => {
                kernels::reverse_sequence_with(data, lengths, *batch_axis, *seq_axis, options)
            }
            (Kernel::ShapeOf(ty), [data]) => kernels::shape_of(data, *ty),
            (Kernel::Gather { batch_dims }, [data, indices, axis]) => {
                kernels::gather(data, indices, axis, *batch_dims)
            }
            (Kernel::Broadcast(mode), [data, target, rest @ ..]) => {
                kernels::broadcast(data, target, rest.first().copied(), *mode)
            }
            (Kernel::ViewFixed { view, data_shape, shape }, [data, ..])
                if data.shape() == data_shape.as_slice() =>
            {
                data.reshaped(shape).ok_or(KernelError::Internal { op: view.name() })
            }
            (Kernel::View(view) | Kernel::ViewFixed { view, .. }, [data, rest @ ..]) => {
                kernels::reshape::view(*view, data, rest.first().copied())
            }
            (Kernel::Concat { axis }, inputs) if !inputs.is_empty() => kernels::concat(inputs, *axis),
            (Kernel::Slice, [data, start, stop, step, rest @ ..]) => {
                kernels::slice_with(data, start, stop, step, rest.first().copied(), options)
            }
            (Kernel::Custom { op, .. }, inputs) => op.0.evaluate(inputs).map_err(|e| custom_error(op, e)),
            (
                Kernel::GatherFixed { .. }
                | Kernel::BroadcastFixed { .. }
                | Kernel::ConcatFixed { .. }
                | Kernel::SliceFixed(_),
                _,
            ) => self.general().eval(inputs, options),
            // The shape stage checked every layer's input count.
            _ => Err(KernelError::Internal { op: self.name() }),
        }
    }

    /// Computes into `out`, which has the output's type and shape and is
    /// owned by the caller alone, keeping whatever else the kernel needs in
    /// `scratch`; on one thread, and once the scratch has grown, no memory
    /// is allocated (more threads are started anew on every call).
    fn eval_into(
        &self,
        inputs: &[&Tensor],
        out: &mut Tensor,
        options: &ExecOptions,
        scratch: &mut Scratch,
    ) -> Result<(), KernelError> {
        match (self, inputs) {
            (Kernel::Convert(to), [data]) => kernels::convert_into_with(data, *to, out, options),
            (Kernel::Reverse(mode), [data, axes]) => {
                let flags = runtime_flags(*mode, axes, data.rank())?;
                kernels::reverse_into_scratch(data, &flags, out, options, scratch)
            }
            (Kernel::ReverseFixed(flags), [data, ..]) => {
                kernels::reverse_into_scratch(data, flags, out, options, scratch)
            }
            (Kernel::ReverseSequence { batch_axis, seq_axis }, [data, lengths]) => {
                kernels::reverse_sequence_into_scratch(
                    data,
                    lengths,
                    *batch_axis,
                    *seq_axis,
                    out,
                    options,
                    scratch,
                )
            }
            (Kernel::ShapeOf(ty), [data]) => kernels::shape_of_into(data, *ty, out),
            (Kernel::GatherFixed { layout, .. }, [data, indices, _]) if layout.fits(data, indices) => {
                layout.run(data, indices, out, scratch)
            }
            (Kernel::Gather { batch_dims }, [data, indices, axis]) => {
                kernels::gather::gather_into_scratch(data, indices, axis, *batch_dims, out, scratch)
            }
            (Kernel::BroadcastFixed { layout, .. }, [data, ..]) if data.shape() == layout.data_shape() => {
                layout.run(data, out)
            }
            (Kernel::Broadcast(mode), [data, target, rest @ ..]) => {
                kernels::broadcast_into(data, target, rest.first().copied(), *mode, out)
            }
            (Kernel::ConcatFixed { layout, .. }, inputs) if layout.fits(inputs) => layout.run(inputs, out),
            (Kernel::Concat { axis }, inputs) if !inputs.is_empty() => {
                kernels::concat_into(inputs, *axis, out)
            }
            (Kernel::SliceFixed(copy), [data, ..]) if data.shape() == copy.data_shape() => {
                copy.run(data, out)
            }
            (Kernel::Slice, [data, start, stop, step, rest @ ..]) => {
                kernels::slice_into_with(data, start, stop, step, rest.first().copied(), out, options)
            }
            (Kernel::Custom { op, .. }, inputs) => {
                op.0.evaluate_into(inputs, out).map_err(|e| custom_error(op, e))
            }
            (
                Kernel::GatherFixed { .. }
                | Kernel::BroadcastFixed { .. }
                | Kernel::ConcatFixed { .. }
                | Kernel::SliceFixed(_),
                _,
            ) => self.general().eval_into(inputs, out, options, scratch),
            // The views never get a buffer: see `output_shape`.
            _ => Err(KernelError::Internal { op: self.name() }),
        }
    }

    /// The kernel a fixed one was made from, for inputs of other shapes
    /// than it was worked out for.
    fn general(&self) -> Kernel {
        match self {
            Kernel::GatherFixed { batch_dims, .. } => Kernel::Gather { batch_dims: *batch_dims },
            Kernel::BroadcastFixed { mode, .. } => Kernel::Broadcast(*mode),
            Kernel::ConcatFixed { axis, .. } => Kernel::Concat { axis: *axis },
            Kernel::SliceFixed(_) => Kernel::Slice,
            Kernel::ViewFixed { view, .. } => Kernel::View(*view),
            other => other.clone(),
        }
    }

    /// The element type of the output for this data input.
    fn output_type(&self, data: &Tensor) -> ElementType {
        match self {
            Kernel::Convert(to) => *to,
            Kernel::ShapeOf(ty) => *ty,
            Kernel::Custom { output_type, .. } => *output_type,
            _ => data.element_type(),
        }
    }

    /// The shape of the output buffer this step needs for these inputs, or
    /// `None` when the output shares its input's storage (the views), so
    /// no buffer is needed. Kernels whose output has the data's shape, and
    /// fixed ones, borrow it, so that steady-state runs allocate nothing.
    fn output_shape<'t>(&'t self, inputs: &[&'t Tensor]) -> Result<Option<OutShape<'t>>, KernelError> {
        let internal = || KernelError::Internal { op: self.name() };
        if let Kernel::Custom { op, output_type, fixed } = self {
            if let Some(fixed) = fixed.as_deref().filter(|f| f.fits(inputs)) {
                return Ok(Some(OutShape::Borrowed(&fixed.output)));
            }
            return custom_output_shape(op, *output_type, inputs);
        }
        let data: &'t Tensor = inputs.first().ok_or_else(internal)?;
        Ok(match (self, inputs) {
            (Kernel::View(_) | Kernel::ViewFixed { .. }, _) => None,
            (Kernel::ShapeOf(_), _) => Some(OutShape::Owned(smallvec::smallvec![data.rank()])),
            (Kernel::GatherFixed { layout, .. }, [data, indices, _]) if layout.fits(data, indices) => {
                Some(OutShape::Borrowed(layout.shape()))
            }
            (Kernel::Gather { batch_dims }, [data, indices, axis]) => {
                Some(OutShape::owned(kernels::gather_output_shape(data, indices, axis, *batch_dims)?))
            }
            (Kernel::BroadcastFixed { layout, .. }, [data, ..]) if data.shape() == layout.data_shape() => {
                Some(OutShape::Borrowed(layout.shape()))
            }
            (Kernel::Broadcast(mode), [data, target, rest @ ..]) => Some(OutShape::owned(
                kernels::broadcast_output_shape(data, target, rest.first().copied(), *mode)?,
            )),
            (Kernel::ConcatFixed { layout, .. }, inputs) if layout.fits(inputs) => {
                Some(OutShape::Borrowed(layout.shape()))
            }
            (Kernel::Concat { axis }, inputs) => {
                Some(OutShape::owned(kernels::concat_output_shape(inputs, *axis)?))
            }
            (Kernel::SliceFixed(copy), [data, ..]) if data.shape() == copy.data_shape() => {
                Some(OutShape::Borrowed(copy.shape()))
            }
            (Kernel::Slice, [data, start, stop, step, rest @ ..]) => Some(OutShape::owned(
                kernels::slice_output_shape(data, start, stop, step, rest.first().copied())?,
            )),
            (
                Kernel::GatherFixed { .. }
                | Kernel::BroadcastFixed { .. }
                | Kernel::ConcatFixed { .. }
                | Kernel::SliceFixed(_),
                _,
            ) => {
                // Inputs of other shapes than the kernel was fixed for: the
                // general kernel's answer, which cannot borrow from `self`.
                return Ok(self
                    .general()
                    .output_shape(inputs)?
                    .map(|s| OutShape::Owned(s.iter().copied().collect())));
            }
            (Kernel::Gather { .. } | Kernel::Broadcast(_) | Kernel::Slice, _) => return Err(internal()),
            _ => Some(OutShape::Borrowed(data.shape())),
        })
    }

    /// `true` when the output is the data input itself, so no step is
    /// needed (a Reverse with nothing to reverse).
    fn passes_through(&self) -> bool {
        matches!(self, Kernel::ReverseFixed(flags) if !flags.contains(&true))
    }

    /// `true` when the output is a view of the data input (it shares its
    /// storage).
    fn is_view(&self) -> bool {
        matches!(self, Kernel::View(_) | Kernel::ViewFixed { .. })
    }

    fn name(&self) -> &'static str {
        match self {
            Kernel::Convert(_) => "Convert",
            Kernel::Reverse(_) | Kernel::ReverseFixed(_) => "Reverse",
            Kernel::ReverseSequence { .. } => "ReverseSequence",
            Kernel::ShapeOf(_) => "ShapeOf",
            Kernel::Gather { .. } | Kernel::GatherFixed { .. } => "Gather",
            Kernel::Broadcast(_) | Kernel::BroadcastFixed { .. } => "Broadcast",
            Kernel::View(view) | Kernel::ViewFixed { view, .. } => view.name(),
            Kernel::Concat { .. } | Kernel::ConcatFixed { .. } => "Concat",
            Kernel::Slice | Kernel::SliceFixed(_) => "Slice",
            Kernel::Custom { .. } => "extension op",
        }
    }
}

/// The error of an extension op, with its type.
fn custom_error(op: &CustomOpRef, e: ExtensionError) -> KernelError {
    KernelError::Extension { op: op.0.op_type().to_string(), message: e.message().to_string() }
}

/// The output shape of an extension op, from its shape inference on the
/// actual inputs, which may refuse them; `None` (the op allocates its
/// output itself) when the type analysis inferred is not static, or the
/// inferred type or shape is not fully known.
fn custom_output_shape<'t>(
    op: &CustomOpRef,
    output_type: ElementType,
    inputs: &[&Tensor],
) -> Result<Option<OutShape<'t>>, KernelError> {
    // The tensors share their storage, so these facts copy no data.
    let facts: Vec<PortFact> = inputs.iter().map(|t| PortFact::known((*t).clone())).collect();
    let fact = op.0.infer(&facts).map_err(|e| custom_error(op, e))?;
    if !output_type.is_static() || fact.element_type != output_type {
        return Ok(None);
    }
    Ok(fact.shape.to_static().map(OutShape::owned))
}

/// Whether a tensor of this shape can exist: its element count fits a
/// `usize`. Fixed forms are only made for such shapes.
fn fits(shape: &[usize]) -> bool {
    ovir_tensor::element_count(shape).is_some()
}

/// The flags of a Reverse whose axes arrive at run time.
fn runtime_flags(mode: ReverseMode, axes: &Tensor, rank: usize) -> Result<Flags, KernelError> {
    let mut flags: Flags = smallvec::smallvec![false; rank];
    kernels::reverse_axes_into(axes, kernel_mode(mode), &mut flags)?;
    Ok(flags)
}

/// The kernels' name for a Reverse mode.
fn kernel_mode(mode: ReverseMode) -> kernels::ReverseMode {
    match mode {
        ReverseMode::Index => kernels::ReverseMode::Index,
        ReverseMode::Mask => kernels::ReverseMode::Mask,
    }
}

/// The value of `op` on known inputs, computed by its kernel on the
/// calling thread; `None` when the op has no kernel or the kernel refuses
/// the inputs.
pub(crate) fn evaluate_op(op: &Op, inputs: &[&Tensor]) -> Option<Tensor> {
    Kernel::from_op(op)?.eval(inputs, &ExecOptions::single_thread()).ok()
}

#[derive(Clone, Debug)]
struct Step {
    layer: LayerRef,
    kernel: Kernel,
    inputs: Vec<Slot>,
    output: Slot,
    /// Slots whose last reader is this step: their buffers go back to the
    /// pool right after it.
    release: Vec<Slot>,
    /// Views whose last reader is this step: dropped right after it, so
    /// that the buffer they share can go back to the pool.
    discard: Vec<Slot>,
    /// The output is a view of a value that stays put between runs (an
    /// input, or a view of one): it is kept from one run to the next, and
    /// made again only when that value has changed.
    keep: bool,
}

/// A model input as the plan sees it.
#[derive(Clone, Debug)]
pub struct PlanInput {
    /// The `Parameter` layer.
    pub layer: LayerIdx,
    /// The name used in messages: the first tensor name, or the layer name.
    pub name: String,
    /// The declared element type.
    pub element_type: ElementType,
    /// The declared shape (static, interval or dynamic dimensions).
    pub shape: PartialShape,
    slot: Slot,
}

/// A model output as the plan sees it.
#[derive(Clone, Debug)]
pub struct PlanOutput {
    /// The `Result` layer.
    pub layer: LayerIdx,
    slot: Slot,
}

/// Why a plan could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// Folding a layer whose inputs are all constant failed.
    #[error("layer {} \"{}\" ({}) could not be computed from its constant inputs: {source}", .layer.id, .layer.name, .layer.op_type)]
    Fold {
        /// The layer.
        layer: LayerRef,
        /// What went wrong.
        source: Box<KernelError>,
    },
    /// The model has a layer that the executor has no kernel for.
    #[error("layer {} \"{}\" has type {}, which the CPU executor cannot run", .layer.id, .layer.name, .layer.op_type)]
    NoKernel {
        /// The layer.
        layer: LayerRef,
    },
    /// Folding a layer would make a value larger than the memory limit;
    /// nothing was allocated.
    #[error("layer {} \"{}\" ({}) cannot be computed from its constant inputs: {source}", .layer.id, .layer.name, .layer.op_type)]
    OverLimit {
        /// The layer.
        layer: LayerRef,
        /// The size needed and the limit.
        source: Box<TensorError>,
    },
}

impl CompileError {
    /// The layer the error is about.
    pub fn layer(&self) -> &LayerRef {
        match self {
            CompileError::Fold { layer, .. }
            | CompileError::NoKernel { layer }
            | CompileError::OverLimit { layer, .. } => layer,
        }
    }
}

/// Why one inference failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The number of inputs does not match the model.
    #[error("the model has {expected} inputs, but {found} were given")]
    InputCount {
        /// Inputs the model has.
        expected: usize,
        /// Inputs given.
        found: usize,
    },
    /// An input has the wrong element type.
    #[error("input \"{name}\" must be {expected}, but a {found} tensor was given")]
    InputType {
        /// The input's name.
        name: String,
        /// The declared element type.
        expected: ElementType,
        /// The given element type.
        found: ElementType,
    },
    /// An input's shape does not fit the declared partial shape.
    #[error("input \"{name}\" must have shape {expected}, but a tensor of shape {} was given", PartialShape::from_static(.found))]
    InputShape {
        /// The input's name.
        name: String,
        /// The declared shape.
        expected: PartialShape,
        /// The given shape.
        found: Vec<usize>,
    },
    /// An input was not set before running.
    #[error("input \"{name}\" has not been set")]
    InputNotSet {
        /// The input's name.
        name: String,
    },
    /// A kernel refused its inputs.
    #[error("layer {} \"{}\" ({}) failed: {source}", .layer.id, .layer.name, .layer.op_type)]
    Kernel {
        /// The failing layer.
        layer: LayerRef,
        /// What the kernel said.
        source: Box<KernelError>,
    },
    /// A layer's output would take more memory than the state's limit
    /// ([`RunState::set_max_tensor_bytes`]); nothing was allocated.
    #[error("layer {} \"{}\" ({}) cannot allocate its output: {source}", .layer.id, .layer.name, .layer.op_type)]
    OverLimit {
        /// The layer.
        layer: LayerRef,
        /// The size needed and the limit.
        source: Box<TensorError>,
    },
}

/// A model compiled for the CPU: the steps in topological order, the value
/// slots they read and write, the constants folded ahead of time, and for
/// every intermediate value the step after which it can be freed.
///
/// A plan is immutable and `Send + Sync`: any number of threads can run it
/// at once.
#[derive(Clone, Debug)]
pub struct Plan {
    steps: Vec<Step>,
    inputs: Vec<PlanInput>,
    outputs: Vec<PlanOutput>,
    /// Values known before any input arrives (constants and folded layers).
    known: Vec<Option<Tensor>>,
}

impl Plan {
    /// Compiles a validated model. Layers whose inputs are all constant are
    /// computed here, once, each within [`DEFAULT_MAX_TENSOR_BYTES`].
    pub fn compile(model: &Model, info: &ModelInfo) -> Result<Plan, CompileError> {
        Plan::compile_with_limit(model, info, DEFAULT_MAX_TENSOR_BYTES)
    }

    /// Compiles a validated model; no value folded from constants may take
    /// more than `max_tensor_bytes`.
    pub fn compile_with_limit(
        model: &Model,
        info: &ModelInfo,
        max_tensor_bytes: u64,
    ) -> Result<Plan, CompileError> {
        let mut slot_of: Vec<Vec<Slot>> = Vec::with_capacity(model.layers.len());
        let mut slots = 0usize;
        for layer in &model.layers {
            slot_of.push((slots..slots + layer.outputs.len()).collect());
            slots += layer.outputs.len();
        }
        let slot = |r: OutputRef| slot_of.get(r.layer.0).and_then(|s| s.get(r.port)).copied().unwrap_or(0);
        // Where each slot's value really lives: a layer that passes its
        // input through unchanged gets no step, and its readers read that
        // input instead.
        let mut alias: Vec<Slot> = (0..slots).collect();
        // Slots whose value stays put between runs: inputs, and views of
        // them (constants are in `known`).
        let mut settled = vec![false; slots];

        let mut known: Vec<Option<Tensor>> = vec![None; slots];
        let mut steps = Vec::new();
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        for &idx in &model.order {
            let layer = model.layer(idx);
            let op = info.op(idx);
            let arg_slots: Vec<Slot> = (0..layer.inputs.len())
                .map(|i| slot(model.source(idx, i)))
                .map(|s| alias.get(s).copied().unwrap_or(s))
                .collect();
            let out = slot(OutputRef { layer: idx, port: 0 });
            match op {
                Op::Parameter { element_type, shape } => {
                    let name = layer
                        .outputs
                        .first()
                        .and_then(|p| p.names.first().cloned())
                        .unwrap_or_else(|| layer.name.clone());
                    inputs.push(PlanInput {
                        layer: idx,
                        name,
                        element_type: *element_type,
                        shape: shape.clone(),
                        slot: out,
                    });
                    if let Some(s) = settled.get_mut(out) {
                        *s = true;
                    }
                }
                Op::Const => {
                    if let Some(k) = known.get_mut(out) {
                        k.clone_from(&layer.constant);
                    }
                }
                Op::Result => {
                    if let Some(&src) = arg_slots.first() {
                        outputs.push(PlanOutput { layer: idx, slot: src });
                    }
                }
                // A value analysis already knows (a shape of a static input,
                // or one computed from constants) needs no step.
                _ if info.outputs.get(idx.0).and_then(|o| o.first()).is_some_and(|f| f.value.is_some()) => {
                    if let Some(k) = known.get_mut(out) {
                        *k = info.outputs.get(idx.0).and_then(|o| o.first()).and_then(|f| f.value.clone());
                    }
                }
                other => {
                    let kernel = Kernel::from_op(other)
                        .ok_or_else(|| CompileError::NoKernel { layer: model.layer_ref(idx) })?;
                    let args: Option<Vec<&Tensor>> =
                        arg_slots.iter().map(|&s| known.get(s).and_then(Option::as_ref)).collect();
                    match args {
                        Some(args) => {
                            // A few constant bytes can be broadcast into
                            // exabytes: the size is checked first.
                            let fold_error = |source| CompileError::Fold {
                                layer: model.layer_ref(idx),
                                source: Box::new(source),
                            };
                            let shape = kernel.output_shape(&args).map_err(fold_error)?;
                            if let (Some(shape), Some(data)) = (shape, args.first()) {
                                ovir_tensor::check_memory(kernel.output_type(data), &shape, max_tensor_bytes)
                                    .map_err(|source| CompileError::OverLimit {
                                        layer: model.layer_ref(idx),
                                        source: Box::new(source),
                                    })?;
                            }
                            // Folding runs once, at compile time, on the
                            // calling thread.
                            let value =
                                kernel.eval(&args, &ExecOptions::single_thread()).map_err(|source| {
                                    CompileError::Fold {
                                        layer: model.layer_ref(idx),
                                        source: Box::new(source),
                                    }
                                })?;
                            if let Some(k) = known.get_mut(out) {
                                *k = Some(value);
                            }
                        }
                        None => {
                            let kernel = Plan::specialize(kernel, &arg_slots, &known, info, model, idx)
                                .map_err(|source| CompileError::Fold {
                                    layer: model.layer_ref(idx),
                                    source: Box::new(source),
                                })?;
                            let data = arg_slots.first().copied();
                            if kernel.passes_through() {
                                if let (Some(a), Some(data)) = (alias.get_mut(out), data) {
                                    *a = data;
                                    continue;
                                }
                            }
                            let is_settled = |s: Slot| {
                                settled.get(s).copied().unwrap_or(false)
                                    || known.get(s).is_some_and(Option::is_some)
                            };
                            let keep =
                                matches!(kernel, Kernel::ViewFixed { .. }) && data.is_some_and(is_settled);
                            if let (true, Some(s)) = (keep, settled.get_mut(out)) {
                                *s = true;
                            }
                            steps.push(Step {
                                layer: model.layer_ref(idx),
                                kernel,
                                inputs: arg_slots,
                                output: out,
                                release: Vec::new(),
                                discard: Vec::new(),
                                keep,
                            });
                        }
                    }
                }
            }
        }
        // A set, not a list: a graph can have a million outputs. Kept views
        // hold no memory of their own, and must outlive the run.
        let pinned: std::collections::HashSet<Slot> = outputs
            .iter()
            .map(|o| o.slot)
            .chain(inputs.iter().map(|i| i.slot))
            .chain(steps.iter().filter(|s| s.keep).map(|s| s.output))
            .collect();
        Plan::schedule_releases(&mut steps, &pinned, &known);
        Ok(Plan { steps, inputs, outputs, known })
    }

    /// Specialises a kernel on what is known before the model runs: a
    /// Reverse whose axes are constant and whose data rank is known gets
    /// its flags now; a Slice, Gather, Broadcast, Concat or view whose small
    /// inputs are constant and whose input shapes are static (with element
    /// counts that fit a `usize`) becomes its fixed form (see [`Kernel`]);
    /// an extension op gets the output type and shapes analysis gave.
    fn specialize(
        kernel: Kernel,
        args: &[Slot],
        known: &[Option<Tensor>],
        info: &ModelInfo,
        model: &Model,
        idx: LayerIdx,
    ) -> Result<Kernel, KernelError> {
        let value = |i: usize| args.get(i).and_then(|&s| known.get(s)).and_then(Option::as_ref);
        // Only shapes whose element count fits: a Parameter may declare
        // one that does not, no tensor of it can exist, and working out a
        // layout for it would overflow.
        let shape = |i: usize| info.input_fact(model, idx, i).shape.to_static().filter(|s| fits(s));
        // An input absent from the layer is `Some(None)`; one that is
        // present but not constant is `None`.
        let optional = |i: usize| if i < args.len() { value(i).map(Some) } else { Some(None) };
        Ok(match kernel {
            Kernel::Custom { op, .. } => {
                let fact = info.outputs.get(idx.0).and_then(|o| o.first());
                let output_type = fact.map_or(ElementType::Dynamic, |f| f.element_type);
                let output = fact.and_then(|f| f.shape.to_static());
                // Inputs whose types are all static, as the shapes are:
                // a run on inputs of other types or shapes calls the op's
                // shape inference again.
                let input = |i: usize| {
                    let ty = info.input_fact(model, idx, i).element_type;
                    ty.is_static().then_some(ty).zip(shape(i))
                };
                let inputs: Option<Vec<(ElementType, Vec<usize>)>> = (0..args.len()).map(input).collect();
                let fixed = match (output_type.is_static(), inputs, output) {
                    (true, Some(inputs), Some(output)) => Some(Box::new(CustomShapes { inputs, output })),
                    _ => None,
                };
                Kernel::Custom { op, output_type, fixed }
            }
            Kernel::Reverse(mode) => match (value(1), info.input_fact(model, idx, 0).shape.rank()) {
                (Some(axes), Some(rank)) => {
                    Kernel::ReverseFixed(kernels::reverse_axes(axes, kernel_mode(mode), rank)?)
                }
                _ => Kernel::Reverse(mode),
            },
            Kernel::Slice => Plan::slice_fixed(args, known, info, model, idx)?.unwrap_or(Kernel::Slice),
            // The kernels below keep their general form when their fixed
            // form cannot be made, so that any error shows when the model
            // runs, as it would without fixing.
            Kernel::Gather { batch_dims } => {
                let indices_type = info.input_fact(model, idx, 1).element_type;
                let layout = match (shape(0), shape(1), value(2)) {
                    (Some(d), Some(i), Some(axis)) => {
                        kernels::gather::layout(&d, indices_type, &i, axis, batch_dims)
                            .ok()
                            .filter(|l| fits(l.shape()))
                    }
                    _ => None,
                };
                match layout {
                    Some(layout) => Kernel::GatherFixed { batch_dims, layout: Box::new(layout) },
                    None => Kernel::Gather { batch_dims },
                }
            }
            Kernel::Broadcast(mode) => {
                let layout = match (shape(0), value(1), optional(2)) {
                    (Some(d), Some(target), Some(mapping)) => {
                        kernels::broadcast::layout(&d, target, mapping, mode).ok().filter(|l| fits(l.shape()))
                    }
                    _ => None,
                };
                match layout {
                    Some(layout) => Kernel::BroadcastFixed { mode, layout: Box::new(layout) },
                    None => Kernel::Broadcast(mode),
                }
            }
            Kernel::View(view) => {
                let fixed = match (shape(0), optional(1)) {
                    (Some(d), Some(arg)) => kernels::reshape::view_shape(view, &d, arg).ok().map(|s| (d, s)),
                    _ => None,
                };
                match fixed {
                    Some((data_shape, shape)) => Kernel::ViewFixed { view, data_shape, shape },
                    None => Kernel::View(view),
                }
            }
            Kernel::Concat { axis } => {
                let shapes: Option<Vec<Vec<usize>>> = (0..args.len()).map(shape).collect();
                let layout = shapes.and_then(|shapes| {
                    let shapes: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
                    kernels::concat::layout(&shapes, axis).ok().filter(|l| fits(l.shape()))
                });
                match layout {
                    Some(layout) => Kernel::ConcatFixed { axis, layout: Box::new(layout) },
                    None => Kernel::Concat { axis },
                }
            }
            other => other,
        })
    }

    /// A Slice whose bounds are constant and whose data shape is static is
    /// worked out now: one that only reverses whole axes (PyTorch's `flip`
    /// is converted so) runs as a Reverse with its flags fixed, any other
    /// with the elements it copies listed.
    fn slice_fixed(
        args: &[Slot],
        known: &[Option<Tensor>],
        info: &ModelInfo,
        model: &Model,
        idx: LayerIdx,
    ) -> Result<Option<Kernel>, KernelError> {
        let value = |i: usize| args.get(i).and_then(|&s| known.get(s)).and_then(Option::as_ref);
        // A data shape whose element count overflows is left to the
        // general kernel: no tensor of it can exist.
        let Some(shape) = info.input_fact(model, idx, 0).shape.to_static().filter(|s| fits(s)) else {
            return Ok(None);
        };
        let (Some(start), Some(stop), Some(step)) = (value(1), value(2), value(3)) else { return Ok(None) };
        let axes = match args.len() {
            5 => match value(4) {
                Some(a) => Some(a),
                None => return Ok(None),
            },
            _ => None,
        };
        Ok(Some(match kernels::slice::fixed(&shape, start, stop, step, axes)? {
            kernels::slice::Fixed::Reverse(flags) => Kernel::ReverseFixed(flags),
            kernels::slice::Fixed::Copy(copy) => Kernel::SliceFixed(copy),
        }))
    }

    /// Marks, for every slot computed at run time, the step that reads it
    /// last, so that its buffer is released as early as possible. Inputs,
    /// outputs and constants are never released.
    fn schedule_releases(
        steps: &mut [Step],
        pinned: &std::collections::HashSet<Slot>,
        known: &[Option<Tensor>],
    ) {
        let mut last_reader: std::collections::HashMap<Slot, usize> = std::collections::HashMap::new();
        for (i, step) in steps.iter().enumerate() {
            for &s in &step.inputs {
                last_reader.insert(s, i);
            }
        }
        let views: std::collections::HashSet<Slot> =
            steps.iter().filter(|s| s.kernel.is_view()).map(|s| s.output).collect();
        for (slot, step) in last_reader {
            let keep = pinned.contains(&slot) || known.get(slot).is_some_and(Option::is_some);
            if !keep {
                if let Some(st) = steps.get_mut(step) {
                    if views.contains(&slot) {
                        st.discard.push(slot);
                    } else {
                        st.release.push(slot);
                    }
                }
            }
        }
        for st in steps.iter_mut() {
            st.release.sort_unstable();
            st.release.dedup();
            st.discard.sort_unstable();
        }
    }

    /// The model's inputs, in `Parameter` file order.
    pub fn inputs(&self) -> &[PlanInput] {
        &self.inputs
    }

    /// The model's outputs, in `Result` file order.
    pub fn outputs(&self) -> &[PlanOutput] {
        &self.outputs
    }

    /// The number of steps left to run at inference time (after folding).
    pub fn step_count(&self) -> usize {
        self.steps.len()
    }

    /// Checks one input tensor against the declaration of input `index`.
    pub fn check_input(&self, index: usize, tensor: &Tensor) -> Result<(), RunError> {
        let Some(input) = self.inputs.get(index) else {
            return Err(RunError::InputCount { expected: self.inputs.len(), found: index + 1 });
        };
        if input.element_type.is_static() && input.element_type != tensor.element_type() {
            return Err(RunError::InputType {
                name: input.name.clone(),
                expected: input.element_type,
                found: tensor.element_type(),
            });
        }
        if !input.shape.accepts(tensor.shape()) {
            return Err(RunError::InputShape {
                name: input.name.clone(),
                expected: input.shape.clone(),
                found: tensor.shape().to_vec(),
            });
        }
        Ok(())
    }

    /// A fresh state for running this plan: the slots, with the constants
    /// in place, an empty buffer pool and an empty scratch per step.
    pub fn state(&self) -> RunState {
        RunState {
            values: self.known.clone(),
            pool: Vec::with_capacity(self.steps.len()),
            // What waits is a buffer a view still holds, or an output the
            // caller still holds.
            waiting: Vec::with_capacity(
                self.steps.iter().filter(|s| s.kernel.is_view()).count() + self.outputs.len(),
            ),
            scratch: vec![Scratch::new(); self.steps.len()],
            threads: 1,
            bytes_written: 0,
            max_tensor_bytes: DEFAULT_MAX_TENSOR_BYTES,
        }
    }

    /// Checks an input and stores it in `state` for the next runs.
    pub fn set_input(&self, state: &mut RunState, index: usize, tensor: Tensor) -> Result<(), RunError> {
        self.check_input(index, &tensor)?;
        if let Some(slot) = self.inputs.get(index).and_then(|i| state.values.get_mut(i.slot)) {
            *slot = Some(tensor);
        }
        Ok(())
    }

    /// The input stored in `state` for input `index`, if set.
    pub fn input<'s>(&self, state: &'s RunState, index: usize) -> Option<&'s Tensor> {
        self.inputs.get(index).and_then(|i| state.values.get(i.slot)).and_then(Option::as_ref)
    }

    /// Output `index` of the last run on `state`.
    pub fn output<'s>(&self, state: &'s RunState, index: usize) -> Option<&'s Tensor> {
        self.outputs.get(index).and_then(|o| state.values.get(o.slot)).and_then(Option::as_ref)
    }

    /// Runs one inference on the inputs stored in `state`.
    ///
    /// Buffers are recycled: an intermediate value's buffer returns to the
    /// state's pool after its last reader (once no view of it is left),
    /// and the previous run's outputs return to it when this run starts
    /// (once the caller no longer holds a clone of them). A later step
    /// whose output has the same type and shape takes its buffer from the
    /// pool, and a view of an input is kept while the input stays the same,
    /// so a model with static shapes allocates nothing after its first run
    /// but for the views (Reshape, Squeeze, Unsqueeze) of values computed
    /// on every run: a tensor owns its shape, so making such a view
    /// allocates a copy of the shape.
    pub fn run_state(&self, state: &mut RunState) -> Result<(), RunError> {
        for input in &self.inputs {
            if state.values.get(input.slot).is_none_or(Option::is_none) {
                return Err(RunError::InputNotSet { name: input.name.clone() });
            }
        }
        for step in self.steps.iter().filter(|s| !s.keep) {
            if let Some(old) = state.values.get_mut(step.output).and_then(Option::take) {
                // A view is dropped, which frees the buffer it shares.
                if !step.kernel.is_view() {
                    state.recycle(old);
                }
            }
        }
        state.promote();
        state.bytes_written = 0;
        for (index, step) in self.steps.iter().enumerate() {
            if !(step.keep && Plan::kept_view_holds(step, state)) {
                let out = self.run_step(index, step, state)?;
                if let Some(v) = state.values.get_mut(step.output) {
                    *v = Some(out);
                }
            }
            for &s in &step.discard {
                if let Some(v) = state.values.get_mut(s) {
                    *v = None;
                }
            }
            for &s in &step.release {
                if let Some(old) = state.values.get_mut(s).and_then(Option::take) {
                    state.recycle(old);
                }
            }
            if !(step.release.is_empty() && step.discard.is_empty()) {
                state.promote();
            }
        }
        Ok(())
    }

    /// Whether the view a kept step made on an earlier run is still the
    /// view of its data input: the same storage, type and shapes.
    fn kept_view_holds(step: &Step, state: &RunState) -> bool {
        let Kernel::ViewFixed { data_shape, shape, .. } = &step.kernel else { return false };
        let value = |s: Slot| state.values.get(s).and_then(Option::as_ref);
        match (value(step.output), step.inputs.first().and_then(|&s| value(s))) {
            (Some(view), Some(data)) => {
                view.shares_storage_with(data)
                    && view.element_type() == data.element_type()
                    && data.shape() == data_shape.as_slice()
                    && view.shape() == shape.as_slice()
            }
            _ => false,
        }
    }

    fn run_step(&self, index: usize, step: &Step, state: &mut RunState) -> Result<Tensor, RunError> {
        let kernel_error = |source| RunError::Kernel { layer: step.layer.clone(), source: Box::new(source) };
        let arg = |i: usize| step.inputs.get(i).and_then(|&s| state.values.get(s)).and_then(Option::as_ref);
        let missing = || kernel_error(KernelError::Internal { op: step.kernel.name() });
        // Steps with few inputs (all but a wide Concat) gather them on the
        // stack, so that running a plan allocates nothing for them.
        let n = step.inputs.len();
        let data = arg(0).ok_or_else(missing)?;
        let mut inline = [data; 5];
        let spilled: Vec<&Tensor>;
        let args: &[&Tensor] = if n <= inline.len() {
            for (i, slot) in inline.iter_mut().enumerate().take(n) {
                *slot = arg(i).ok_or_else(missing)?;
            }
            &inline[..n]
        } else {
            spilled = (0..n).map(|i| arg(i).ok_or_else(missing)).collect::<Result<_, _>>()?;
            &spilled
        };
        let options = ExecOptions::with_threads(state.threads);
        let Some(shape) = step.kernel.output_shape(args).map_err(kernel_error)? else {
            // The output is a view of the input: nothing is allocated.
            return step.kernel.eval(args, &options).map_err(kernel_error);
        };
        let ty = step.kernel.output_type(data);
        let written = Tensor::required_bytes(ty, &shape).ok().flatten();
        state.bytes_written += written.unwrap_or(0);
        // The output's size is known before the kernel allocates anything.
        ovir_tensor::check_memory(ty, &shape, state.max_tensor_bytes)
            .map_err(|source| RunError::OverLimit { layer: step.layer.clone(), source: Box::new(source) })?;
        let reusable = state
            .pool
            .iter()
            .position(|t| t.element_type() == ty && t.shape() == &*shape && t.is_exclusive());
        let mut out = match reusable {
            Some(i) => state.pool.swap_remove(i),
            None => Tensor::zeros(ty, &shape).map_err(|e| kernel_error(e.into()))?,
        };
        // Even the first run goes through the scratch, so that the runs
        // after it find it grown.
        let scratch = state.scratch.get_mut(index).ok_or_else(missing)?;
        step.kernel.eval_into(args, &mut out, &options, scratch).map_err(kernel_error)?;
        Ok(out)
    }

    /// Runs one inference: `inputs` in the order of [`Plan::inputs`];
    /// returns the outputs in the order of [`Plan::outputs`]. A convenience
    /// over [`Plan::state`] and [`Plan::run_state`] for a single run.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RunError> {
        if inputs.len() != self.inputs.len() {
            return Err(RunError::InputCount { expected: self.inputs.len(), found: inputs.len() });
        }
        let mut state = self.state();
        for (i, t) in inputs.iter().enumerate() {
            self.set_input(&mut state, i, t.clone())?;
        }
        self.run_state(&mut state)?;
        Ok((0..self.outputs.len()).filter_map(|i| self.output(&state, i).cloned()).collect())
    }
}

/// The mutable side of running a plan: the value of every slot and a pool
/// of buffers to reuse. One state per concurrent inference; the plan
/// itself is shared.
#[derive(Debug)]
pub struct RunState {
    values: Vec<Option<Tensor>>,
    pool: Vec<Tensor>,
    /// Buffers released while something else still held them (a view of
    /// them, or a caller's clone of an output): they join the pool once
    /// they are free.
    waiting: Vec<Tensor>,
    /// Per step, what its kernel keeps between runs.
    scratch: Vec<Scratch>,
    threads: usize,
    bytes_written: usize,
    max_tensor_bytes: u64,
}

impl RunState {
    /// Keeps a buffer for reuse: in the pool when nothing else holds it,
    /// else among the buffers waiting for that. Both lists got their room
    /// when the state was made, so keeping allocates nothing; a buffer that
    /// finds no room is dropped.
    fn recycle(&mut self, t: Tensor) {
        if t.is_exclusive() {
            if self.pool.len() < self.pool.capacity() {
                self.pool.push(t);
            }
        } else if self.waiting.len() < self.waiting.capacity() {
            self.waiting.push(t);
        }
    }

    /// Moves the waiting buffers that nothing else holds any more to the
    /// pool.
    fn promote(&mut self) {
        let mut i = 0;
        while i < self.waiting.len() {
            let free = self.waiting.get(i).is_some_and(Tensor::is_exclusive);
            if free && self.pool.len() < self.pool.capacity() {
                let t = self.waiting.swap_remove(i);
                self.pool.push(t);
            } else {
                i += 1;
            }
        }
    }

    /// The bytes the last run's steps wrote (each step also read about as
    /// many); steps that passed their input through without copying count
    /// zero. For string tensors, only fixed-width data is counted.
    pub fn bytes_written(&self) -> usize {
        self.bytes_written
    }

    /// How many threads the kernels may use for large tensors.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Sets how many threads the kernels may use for large tensors (see
    /// [`ExecOptions`]). With more than one, a kernel whose output is large
    /// enough to split starts scoped threads for it on every run, and
    /// starting a thread allocates; the promise that a static-shape model
    /// allocates nothing after its first run holds for the calling thread
    /// alone, the default.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The most bytes any one value computed by a step may take
    /// ([`DEFAULT_MAX_TENSOR_BYTES`] unless set).
    pub fn max_tensor_bytes(&self) -> u64 {
        self.max_tensor_bytes
    }

    /// Sets the most bytes any one value computed by a step may take: a
    /// step whose output would be larger fails with
    /// [`RunError::OverLimit`] before allocating it.
    pub fn set_max_tensor_bytes(&mut self, limit: u64) {
        self.max_tensor_bytes = limit;
    }
}
