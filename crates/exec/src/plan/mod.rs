//! The execution plan: a validated model compiled once into a flat list of
//! steps over numbered value slots.
//!
//! Every output port of every layer has a slot: the ports of one layer
//! follow each other, so a step writes the run of slots that starts at
//! its first output. Each slot is freed after its own last reader, and
//! each port of a layer whose inputs are all known is folded.
//!
//! A step's kernel describes each of its outputs before it runs: a buffer
//! of known type and shape, which the plan takes from the request's pool;
//! a value already made (a view); or a buffer sized only when the kernel
//! runs, which the kernel asks the pool for itself once it knows the
//! sizes. A kernel may also compute an output in place from an input: the
//! compiler grants that where the input is computed on every run and dies
//! at the step, and the run moves the input's buffer into the output when
//! nothing else holds it.
//!
//! [`compile`] makes the steps (with each op's executor module, folding
//! what is known before the model runs), [`schedule`] decides after which
//! step each value's buffer can be reused, [`run`] runs the steps, and
//! [`state`] holds what one infer request keeps: the values and the pool of
//! buffers.

use std::sync::Arc;

use ovir_ir::{LayerIdx, LayerRef};
use ovir_tensor::{ElementType, PartialShape, Tensor};

use crate::step::{Kernel, Reuse};

mod compile;
mod error;
mod run;
mod schedule;
mod state;

pub use compile::Folded;
pub use error::{CompileError, RunError};
pub use state::RunState;

/// Where a value lives while the plan runs.
pub(crate) type Slot = usize;

/// One layer to run.
#[derive(Clone, Debug)]
struct Step {
    layer: LayerRef,
    kernel: Arc<dyn Kernel>,
    inputs: Vec<Slot>,
    /// The slot of the first output; the others follow it, one per port.
    output: Slot,
    /// The number of outputs.
    ports: usize,
    /// Outputs that may take over the buffer of an input dying here.
    reuse: Vec<Reuse>,
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
    /// The value is one the state keeps between runs (a model input, a
    /// constant, a kept view), which [`Plan::take_output`] clones rather
    /// than takes.
    kept: bool,
}

/// A model compiled for the CPU: the steps in topological order, the value
/// slots they read and write, the constants folded ahead of time, and for
/// every intermediate value the step after which it can be freed.
///
/// A plan is immutable and `Send + Sync`: any number of threads can run it
/// at once, each with its own [`RunState`].
#[derive(Clone, Debug)]
pub struct Plan {
    steps: Vec<Step>,
    inputs: Vec<PlanInput>,
    outputs: Vec<PlanOutput>,
    /// Values known before any input arrives (constants and folded layers).
    known: Vec<Option<Tensor>>,
}

impl Plan {
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
    /// in place, an empty buffer pool and a fresh state per step.
    pub fn state(&self) -> RunState {
        // What waits is a buffer a view still holds, or an output the
        // caller still holds.
        let waiting = self.steps.iter().filter(|s| s.kernel.is_view()).count() + self.outputs.len();
        let pool = self.steps.iter().map(|s| s.ports).sum();
        let steps = self.steps.iter().map(|s| s.kernel.state()).collect();
        RunState::new(self.known.clone(), pool, waiting, steps, self.inputs.len())
    }

    /// Checks an input and stores it in `state` for the next runs.
    ///
    /// An input that a step may update in place (a scatter's data, read by
    /// no later step) is updated in place when `state` holds the only
    /// reference to it: the caller handed it over by not keeping a clone.
    /// It then holds no value after the run, and must be set again before
    /// the next one (the updated tensor is the step's output, see
    /// [`Plan::take_output`]). Given a tensor that the caller still holds,
    /// the step copies it as usual.
    pub fn set_input(&self, state: &mut RunState, index: usize, tensor: Tensor) -> Result<(), RunError> {
        self.check_input(index, &tensor)?;
        if let Some(slot) = self.inputs.get(index).and_then(|i| state.values.get_mut(i.slot)) {
            *slot = Some(tensor);
        }
        if let Some(handed) = state.handed_over.get_mut(index) {
            *handed = None;
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

    /// Takes output `index` of the last run out of `state`, so that the
    /// caller holds the only reference to it (to hand it back as an input
    /// that a step updates in place, say). The state no longer has it; the
    /// next run makes it anew. An output that the state must keep (a model
    /// input passed through, a constant, a view kept between runs) is
    /// cloned instead, which shares its storage.
    pub fn take_output(&self, state: &mut RunState, index: usize) -> Option<Tensor> {
        let PlanOutput { slot, kept, .. } = *self.outputs.get(index)?;
        let value = state.values.get_mut(slot)?;
        if kept {
            value.clone()
        } else {
            value.take()
        }
    }
}
