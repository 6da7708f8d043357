//! The execution plan: a validated model compiled once into a flat list of
//! steps over numbered value slots.

use ovir_ir::{LayerIdx, LayerRef, Model, OutputRef};
use ovir_shape::{ModelInfo, Op, ReverseMode};
use ovir_tensor::{ElementType, PartialShape, Tensor};

use crate::kernels::{self, KernelError};

/// Where a value lives while the plan runs.
type Slot = usize;

/// One operation to run.
#[derive(Clone, Debug)]
enum Kernel {
    Convert(ElementType),
    Reverse(ReverseMode),
    ReverseSequence { batch_axis: i64, seq_axis: i64 },
}

impl Kernel {
    fn from_op(op: &Op) -> Option<Kernel> {
        match op {
            Op::Convert { to } => Some(Kernel::Convert(*to)),
            Op::Reverse { mode } => Some(Kernel::Reverse(*mode)),
            Op::ReverseSequence { batch_axis, seq_axis } => {
                Some(Kernel::ReverseSequence { batch_axis: *batch_axis, seq_axis: *seq_axis })
            }
            _ => None,
        }
    }

    fn eval(&self, inputs: &[&Tensor]) -> Result<Tensor, KernelError> {
        match (self, inputs) {
            (Kernel::Convert(to), [data]) => kernels::convert(data, *to),
            (Kernel::Reverse(mode), [data, axes]) => {
                let flags = match mode {
                    ReverseMode::Index => kernels::reverse_axes_from_index(axes, data.rank())?,
                    ReverseMode::Mask => kernels::reverse_axes_from_mask(axes, data.rank())?,
                };
                kernels::reverse(data, &flags)
            }
            (Kernel::ReverseSequence { batch_axis, seq_axis }, [data, lengths]) => {
                kernels::reverse_sequence(data, lengths, *batch_axis, *seq_axis)
            }
            // The shape stage checked every layer's input count.
            _ => Err(KernelError::Internal { op: self.name() }),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Kernel::Convert(_) => "Convert",
            Kernel::Reverse(_) => "Reverse",
            Kernel::ReverseSequence { .. } => "ReverseSequence",
        }
    }
}

#[derive(Clone, Debug)]
struct Step {
    layer: LayerRef,
    kernel: Kernel,
    inputs: Vec<Slot>,
    output: Slot,
    /// Slots whose last reader is this step: freed right after it.
    release: Vec<Slot>,
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
        source: KernelError,
    },
    /// The model has a layer that the executor has no kernel for.
    #[error("layer {} \"{}\" has type {}, which the CPU executor cannot run", .layer.id, .layer.name, .layer.op_type)]
    NoKernel {
        /// The layer.
        layer: LayerRef,
    },
}

impl CompileError {
    /// The layer the error is about.
    pub fn layer(&self) -> &LayerRef {
        match self {
            CompileError::Fold { layer, .. } | CompileError::NoKernel { layer } => layer,
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
    /// A kernel refused its inputs.
    #[error("layer {} \"{}\" ({}) failed: {source}", .layer.id, .layer.name, .layer.op_type)]
    Kernel {
        /// The failing layer.
        layer: LayerRef,
        /// What the kernel said.
        source: KernelError,
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
    /// computed here, once.
    pub fn compile(model: &Model, info: &ModelInfo) -> Result<Plan, CompileError> {
        let mut slot_of: Vec<Vec<Slot>> = Vec::with_capacity(model.layers.len());
        let mut slots = 0usize;
        for layer in &model.layers {
            slot_of.push((slots..slots + layer.outputs.len()).collect());
            slots += layer.outputs.len();
        }
        let slot = |r: OutputRef| slot_of.get(r.layer.0).and_then(|s| s.get(r.port)).copied().unwrap_or(0);

        let mut known: Vec<Option<Tensor>> = vec![None; slots];
        let mut steps = Vec::new();
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        for &idx in &model.order {
            let layer = model.layer(idx);
            let op = info.op(idx);
            let arg_slots: Vec<Slot> = (0..layer.inputs.len()).map(|i| slot(model.source(idx, i))).collect();
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
                other => {
                    let kernel = Kernel::from_op(other)
                        .ok_or_else(|| CompileError::NoKernel { layer: model.layer_ref(idx) })?;
                    let args: Option<Vec<&Tensor>> =
                        arg_slots.iter().map(|&s| known.get(s).and_then(Option::as_ref)).collect();
                    match args {
                        Some(args) => {
                            let value = kernel.eval(&args).map_err(|source| CompileError::Fold {
                                layer: model.layer_ref(idx),
                                source,
                            })?;
                            if let Some(k) = known.get_mut(out) {
                                *k = Some(value);
                            }
                        }
                        None => steps.push(Step {
                            layer: model.layer_ref(idx),
                            kernel,
                            inputs: arg_slots,
                            output: out,
                            release: Vec::new(),
                        }),
                    }
                }
            }
        }
        Plan::schedule_releases(&mut steps, &outputs, &known);
        Ok(Plan { steps, inputs, outputs, known })
    }

    /// Marks, for every slot computed at run time, the step that reads it
    /// last, so that it is freed as early as possible. Outputs and
    /// constants are never freed.
    fn schedule_releases(steps: &mut [Step], outputs: &[PlanOutput], known: &[Option<Tensor>]) {
        let mut last_reader: std::collections::HashMap<Slot, usize> = std::collections::HashMap::new();
        for (i, step) in steps.iter().enumerate() {
            for &s in &step.inputs {
                last_reader.insert(s, i);
            }
        }
        for (slot, step) in last_reader {
            let pinned =
                outputs.iter().any(|o| o.slot == slot) || known.get(slot).is_some_and(Option::is_some);
            if !pinned {
                if let Some(st) = steps.get_mut(step) {
                    st.release.push(slot);
                }
            }
        }
        for st in steps.iter_mut() {
            st.release.sort_unstable();
            st.release.dedup();
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

    /// Runs one inference: `inputs` in the order of [`Plan::inputs`];
    /// returns the outputs in the order of [`Plan::outputs`].
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RunError> {
        if inputs.len() != self.inputs.len() {
            return Err(RunError::InputCount { expected: self.inputs.len(), found: inputs.len() });
        }
        for (i, t) in inputs.iter().enumerate() {
            self.check_input(i, t)?;
        }
        let mut values = self.known.clone();
        for (input, t) in self.inputs.iter().zip(inputs) {
            if let Some(v) = values.get_mut(input.slot) {
                *v = Some(t.clone());
            }
        }
        for step in &self.steps {
            let args: Vec<&Tensor> =
                step.inputs.iter().filter_map(|&s| values.get(s).and_then(Option::as_ref)).collect();
            let out = step
                .kernel
                .eval(&args)
                .map_err(|source| RunError::Kernel { layer: step.layer.clone(), source })?;
            if let Some(v) = values.get_mut(step.output) {
                *v = Some(out);
            }
            for &s in &step.release {
                if let Some(v) = values.get_mut(s) {
                    *v = None;
                }
            }
        }
        Ok(self.outputs.iter().filter_map(|o| values.get(o.slot).and_then(|v| v.clone())).collect())
    }
}
