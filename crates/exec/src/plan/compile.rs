//! Compiling a validated model into a plan: slots for every value, a step
//! for every layer that runs, and every value known before the model runs
//! computed once.

use std::collections::HashSet;
use std::sync::Arc;

use ovir_ir::{LayerIdx, Model, OutputRef};
use ovir_shape::ModelInfo;
use ovir_tensor::{Tensor, DEFAULT_MAX_TENSOR_BYTES};

use super::schedule::{grant_reuse, schedule_releases};
use super::{CompileError, Plan, PlanInput, PlanOutput, Slot, Step};
use crate::ops;
use crate::step::{self, Arg, Kernel, PlanContext, Planned, StepError};

impl Plan {
    /// Compiles a validated model. Layers whose inputs are all constant are
    /// computed here, once, each within [`DEFAULT_MAX_TENSOR_BYTES`].
    pub fn compile(model: &Model, info: &ModelInfo) -> Result<Plan, CompileError> {
        Plan::compile_with_limit(model, info, DEFAULT_MAX_TENSOR_BYTES)
    }

    /// Compiles a validated model; no value folded from constants may take
    /// more than `max_tensor_bytes`.
    ///
    /// The model's references are checked first
    /// ([`Model::check_references`]), and `info` must be the analysis of
    /// this model; either failing is an error, never a panic.
    pub fn compile_with_limit(
        model: &Model,
        info: &ModelInfo,
        max_tensor_bytes: u64,
    ) -> Result<Plan, CompileError> {
        Ok(build(model, info, max_tensor_bytes)?.finish())
    }

    /// What compiling folds, layer by layer, for each layer's first
    /// output: [`Folded::Value`] for a layer whose output is known before
    /// the model runs, [`Folded::PassesOn`] for one that passes an input
    /// through unchanged (a Reverse with nothing to reverse),
    /// [`Folded::Runs`] for the rest. Checks and limits are those of
    /// [`Plan::compile_with_limit`]. [`Plan::folding_ports`] tells the same
    /// for every output of layers with several.
    pub fn folding(
        model: &Model,
        info: &ModelInfo,
        max_tensor_bytes: u64,
    ) -> Result<Vec<Folded>, CompileError> {
        let ports = Plan::folding_ports(model, info, max_tensor_bytes)?;
        Ok(ports.into_iter().map(|p| p.into_iter().next().unwrap_or(Folded::Runs)).collect())
    }

    /// What compiling folds, for every output port of every layer: as
    /// [`Plan::folding`] says for first outputs, indexed by layer, then by
    /// port. A layer without outputs (a `Result`) has an empty list.
    pub fn folding_ports(
        model: &Model,
        info: &ModelInfo,
        max_tensor_bytes: u64,
    ) -> Result<Vec<Vec<Folded>>, CompileError> {
        let builder = build(model, info, max_tensor_bytes)?;
        let at = |slot: Slot| {
            let layer = builder.first_slot.partition_point(|&first| first <= slot).saturating_sub(1);
            let port = slot - builder.first_slot.get(layer).copied().unwrap_or(0);
            OutputRef { layer: LayerIdx(layer), port }
        };
        let folded = |out: Slot| match (builder.alias[out], &builder.known[out]) {
            (to, _) if to != out => Folded::PassesOn(at(to)),
            (_, Some(value)) => Folded::Value(value.clone()),
            _ => Folded::Runs,
        };
        Ok((0..model.layers.len())
            .map(|i| {
                let first = builder.first_slot[i];
                (first..first + model.layers[i].outputs.len()).map(folded).collect()
            })
            .collect())
    }
}

/// What compiling makes of one output of a layer: see [`Plan::folding`]
/// and [`Plan::folding_ports`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Folded {
    /// The layer runs with the model (or is an input or an output).
    Runs,
    /// The output is known before the model runs: this value (also the
    /// value of a `Const`).
    Value(Tensor),
    /// The layer passes this output through unchanged: whatever reads the
    /// layer's output can read it instead.
    PassesOn(OutputRef),
}

/// Checks the model's references and that `info` is its analysis, then
/// compiles every layer.
fn build<'m>(
    model: &'m Model,
    info: &'m ModelInfo,
    max_tensor_bytes: u64,
) -> Result<Builder<'m>, CompileError> {
    model.check_references().map_err(|e| CompileError::Broken(Box::new(e)))?;
    let fits = info.ops.len() == model.layers.len()
        && info.outputs.len() == model.layers.len()
        && info.outputs.iter().zip(&model.layers).all(|(o, l)| o.len() == l.outputs.len());
    if !fits {
        return Err(CompileError::InfoMismatch { layers: model.layers.len(), info_layers: info.ops.len() });
    }
    let mut builder = Builder::new(model, info, max_tensor_bytes);
    for &idx in &model.order {
        builder.layer(idx)?;
    }
    Ok(builder)
}

/// A plan being compiled.
struct Builder<'m> {
    model: &'m Model,
    info: &'m ModelInfo,
    max_tensor_bytes: u64,
    /// The slot of each layer's first output; its other outputs follow.
    first_slot: Vec<Slot>,
    /// Where each slot's value really lives: a layer that passes its input
    /// through unchanged gets no step, and its readers read that input.
    alias: Vec<Slot>,
    /// Slots whose value stays put between runs: inputs, and views of them
    /// (constants are in `known`).
    settled: Vec<bool>,
    known: Vec<Option<Tensor>>,
    steps: Vec<Step>,
    inputs: Vec<PlanInput>,
    outputs: Vec<PlanOutput>,
}

impl<'m> Builder<'m> {
    fn new(model: &'m Model, info: &'m ModelInfo, max_tensor_bytes: u64) -> Self {
        let mut first_slot = Vec::with_capacity(model.layers.len());
        let mut slots = 0usize;
        for layer in &model.layers {
            first_slot.push(slots);
            slots += layer.outputs.len();
        }
        Builder {
            model,
            info,
            max_tensor_bytes,
            first_slot,
            alias: (0..slots).collect(),
            settled: vec![false; slots],
            known: vec![None; slots],
            steps: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
        }
    }

    fn slot(&self, output: OutputRef) -> Slot {
        self.first_slot[output.layer.0] + output.port
    }

    fn is_settled(&self, slot: Slot) -> bool {
        self.settled[slot] || self.known[slot].is_some()
    }

    /// Adds one layer: an input, a constant, an output, a value known
    /// before the model runs, or a step.
    fn layer(&mut self, idx: LayerIdx) -> Result<(), CompileError> {
        let (model, info) = (self.model, self.info);
        let layer = model.layer(idx);
        let args: Vec<Slot> =
            (0..layer.inputs.len()).map(|i| self.alias[self.slot(model.source(idx, i))]).collect();
        let output_facts = info.outputs[idx.0].as_slice();
        let output_fact = output_facts.first();
        // Values analysis already knows (a shape of a static input, or one
        // computed from constants) need no step.
        let values: Option<Vec<&Tensor>> = output_facts.iter().map(|f| f.value.as_ref()).collect();
        if let (false, false, Some(values)) = (args.is_empty(), output_facts.is_empty(), values) {
            let first = self.slot(OutputRef { layer: idx, port: 0 });
            for (port, value) in values.into_iter().enumerate() {
                self.known[first + port] = Some(value.clone());
            }
            return Ok(());
        }
        let all_known = args.iter().all(|&s| self.known[s].is_some());
        let planned = {
            let args = args.iter().enumerate().map(|(i, &s)| Arg {
                value: self.known[s].as_ref(),
                fact: Some(info.input_fact(model, idx, i)),
            });
            let cx = PlanContext { args: args.collect(), outputs: output_facts };
            ops::plan(info.op(idx), &cx)
                .ok_or_else(|| CompileError::NoKernel { layer: model.layer_ref(idx) })?
                .map_err(|source| CompileError::Fold {
                    layer: model.layer_ref(idx),
                    source: Box::new(source),
                })?
        };
        match planned {
            Planned::Input => {
                let out = self.slot(OutputRef { layer: idx, port: 0 });
                let name = layer
                    .outputs
                    .first()
                    .and_then(|p| p.names.first().cloned())
                    .unwrap_or_else(|| layer.name.clone());
                let (element_type, shape) = output_fact.map(|f| (f.element_type, f.shape.clone())).unzip();
                self.inputs.push(PlanInput {
                    layer: idx,
                    name,
                    element_type: element_type.unwrap_or(ovir_tensor::ElementType::Dynamic),
                    shape: shape.unwrap_or_else(ovir_tensor::PartialShape::dynamic),
                    slot: out,
                });
                self.settled[out] = true;
            }
            Planned::Constant(value) => {
                let out = self.slot(OutputRef { layer: idx, port: 0 });
                self.known[out] = Some(value);
            }
            Planned::Output => {
                if let Some(&src) = args.first() {
                    self.outputs.push(PlanOutput { layer: idx, slot: src, kept: false });
                }
            }
            Planned::PassThrough => {
                if let Some(&data) = args.first() {
                    let out = self.slot(OutputRef { layer: idx, port: 0 });
                    self.alias[out] = data;
                }
            }
            Planned::Step(kernel) if all_known => self.fold(idx, kernel.as_ref(), &args)?,
            Planned::Step(kernel) => self.step(idx, Arc::from(kernel), args),
        }
        Ok(())
    }

    /// Computes a layer whose inputs are all known, once, on the calling
    /// thread. A few constant bytes can be broadcast into exabytes, so each
    /// output's size is checked before it is allocated.
    fn fold(&mut self, idx: LayerIdx, kernel: &dyn Kernel, args: &[Slot]) -> Result<(), CompileError> {
        let model = self.model;
        let values: Vec<&Tensor> = args.iter().filter_map(|&s| self.known[s].as_ref()).collect();
        let ports = model.layer(idx).outputs.len();
        let outputs = step::evaluate(kernel, &values, ports, self.max_tensor_bytes).map_err(|e| match e {
            StepError::Kernel(source) => {
                CompileError::Fold { layer: model.layer_ref(idx), source: Box::new(source) }
            }
            StepError::OverLimit(source) => {
                CompileError::OverLimit { layer: model.layer_ref(idx), source: Box::new(source) }
            }
        })?;
        let first = self.slot(OutputRef { layer: idx, port: 0 });
        for (port, value) in outputs.into_iter().enumerate().take(ports) {
            self.known[first + port] = Some(value);
        }
        Ok(())
    }

    /// Adds a step that runs `kernel` on every inference.
    fn step(&mut self, idx: LayerIdx, kernel: Arc<dyn Kernel>, args: Vec<Slot>) {
        let out = self.slot(OutputRef { layer: idx, port: 0 });
        let ports = self.model.layer(idx).outputs.len();
        // A view with shapes fixed at compile time, of a value that stays
        // put, is kept from one run to the next.
        let keep = ports >= 1
            && (0..ports).all(|port| kernel.fixed_view(port).is_some())
            && args.first().is_some_and(|&s| self.is_settled(s));
        if keep {
            for slot in out..out + ports {
                self.settled[slot] = true;
            }
        }
        self.steps.push(Step {
            layer: self.model.layer_ref(idx),
            kernel,
            inputs: args,
            output: out,
            ports,
            reuse: Vec::new(),
            release: Vec::new(),
            discard: Vec::new(),
            keep,
        });
    }

    fn finish(mut self) -> Plan {
        // A set, not a list: a graph can have a million outputs. Kept views
        // hold no memory of their own, and must outlive the run.
        let pinned: HashSet<Slot> = self
            .outputs
            .iter()
            .map(|o| o.slot)
            .chain(self.inputs.iter().map(|i| i.slot))
            .chain(self.steps.iter().filter(|s| s.keep).flat_map(|s| s.output..s.output + s.ports))
            .collect();
        // Outputs whose value the state keeps between runs are cloned,
        // not taken, by `Plan::take_output`.
        let kept: HashSet<Slot> = self
            .inputs
            .iter()
            .map(|i| i.slot)
            .chain(self.steps.iter().filter(|s| s.keep).flat_map(|s| s.output..s.output + s.ports))
            .collect();
        for o in &mut self.outputs {
            o.kept = kept.contains(&o.slot) || self.known.get(o.slot).is_some_and(Option::is_some);
        }
        schedule_releases(&mut self.steps, &pinned, &self.known);
        let model_inputs = self.inputs.iter().enumerate().map(|(k, i)| (i.slot, k)).collect();
        let model_outputs = self.outputs.iter().map(|o| o.slot).collect();
        grant_reuse(&mut self.steps, &pinned, &model_inputs, &model_outputs);
        Plan { steps: self.steps, inputs: self.inputs, outputs: self.outputs, known: self.known }
    }
}
