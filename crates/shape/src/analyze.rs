//! The walk over a model's layers: each layer's op is found, built and
//! asked for the facts of its outputs, in topological order.

use ovir_ir::{Layer, LayerIdx, Model, OutputRef, ReadError};
use ovir_tensor::Tensor;

use crate::dims::int_tensor;
use crate::error::{AnalyzeError, ShapeError};
use crate::fact::PortFact;
use crate::operation::{Input, Op, Problems};
use crate::registry::OpRegistry;

/// Computes the value of a layer whose inputs are all known, while a model
/// is analysed; see [`analyze_with`].
///
/// The shape crate has no kernels of its own: the executor implements this
/// trait with its kernels, so that a value is computed by the same code
/// whether it is folded at load time or computed at run time.
pub trait Evaluator {
    /// The output of `op` (the op of `layer`) on `inputs`, or `None` to
    /// leave it unknown: when the op has no kernel, when computing it
    /// fails, or when `output` (the inferred fact) says it would be too
    /// large to be worth holding before the model runs.
    fn evaluate(&self, layer: &Layer, op: &Op, inputs: &[&Tensor], output: &PortFact) -> Option<Tensor>;
}

/// The evaluator [`analyze`] uses: it computes nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEvaluation;

impl Evaluator for NoEvaluation {
    fn evaluate(&self, _: &Layer, _: &Op, _: &[&Tensor], _: &PortFact) -> Option<Tensor> {
        None
    }
}

/// The side table of a model: per layer, indexed like
/// [`Model::layers`](ovir_ir::Model::layers), the operation and the facts
/// of each output port.
#[derive(Clone, Debug)]
pub struct ModelInfo {
    /// The operation of each layer.
    pub ops: Vec<Op>,
    /// The facts of each layer's output ports, in `<output>` order.
    pub outputs: Vec<Vec<PortFact>>,
}

impl ModelInfo {
    /// The operation of a layer.
    ///
    /// # Panics
    /// When `layer` is not a layer of the analysed model.
    pub fn op(&self, layer: LayerIdx) -> &Op {
        &self.ops[layer.0]
    }

    /// The facts of an output port.
    ///
    /// # Panics
    /// When `output` is not an output of the analysed model.
    pub fn output(&self, output: OutputRef) -> &PortFact {
        &self.outputs[output.layer.0][output.port]
    }

    /// The facts of what feeds input `input` (by position) of a layer.
    ///
    /// # Panics
    /// When `model` is not the analysed model or the input does not exist.
    pub fn input_fact(&self, model: &Model, layer: LayerIdx, input: usize) -> &PortFact {
        self.output(model.source(layer, input))
    }
}

/// Validates every layer of a model and infers the facts of every output,
/// with the ops of [`OpRegistry::new`].
///
/// Values are known only for constants, for the `ShapeOf` of a static
/// shape and for what follows from them without computing anything (such
/// as a dimension picked out of a known shape). Returns every independent
/// problem found, not only the first.
pub fn analyze(model: &Model) -> Result<ModelInfo, AnalyzeError> {
    analyze_with(model, &NoEvaluation)
}

/// Like [`analyze`], but also asks `eval` for the value of every layer
/// whose inputs are all known, so that values computed from constants and
/// static shapes (a shape built from `ShapeOf`, `Gather` and `Broadcast`)
/// are known to the checks of the layers after them and to the executor.
pub fn analyze_with(model: &Model, eval: &dyn Evaluator) -> Result<ModelInfo, AnalyzeError> {
    analyze_with_ops(model, eval, &OpRegistry::new())
}

/// Like [`analyze_with`], with the ops of `registry`: a layer whose type
/// and version it does not know is reported with the supported operations
/// and the registered extensions.
pub fn analyze_with_ops(
    model: &Model,
    eval: &dyn Evaluator,
    registry: &OpRegistry,
) -> Result<ModelInfo, AnalyzeError> {
    let PartialInfo { ops, outputs, errors, broken } = analyze_partial(model, eval, registry);
    if !errors.is_empty() || broken.is_some() {
        return Err(AnalyzeError { errors, broken });
    }
    // Every layer was visited without error, so every op is known.
    let ops = ops.into_iter().flatten().collect();
    Ok(ModelInfo { ops, outputs })
}

/// What [`analyze_partial`] learnt about a model, failing layers or not.
#[derive(Clone, Debug)]
pub struct PartialInfo {
    /// The operation of each layer, indexed like
    /// [`Model::layers`](ovir_ir::Model::layers); `None` for a layer that
    /// was refused.
    pub ops: Vec<Option<Op>>,
    /// The facts of each layer's output ports. A refused layer's outputs
    /// have nothing known, and so has what follows only from them.
    pub outputs: Vec<Vec<PortFact>>,
    /// Every problem found, as [`AnalyzeError`] lists them; empty when the
    /// model is valid.
    pub errors: Vec<ShapeError>,
    /// Why nothing was analysed, when the model's references do not hold
    /// together (see [`AnalyzeError::broken`]).
    pub broken: Option<Box<ReadError>>,
}

/// Like [`analyze_with_ops`], but keeps what was learnt when some layers
/// fail: the op and facts of every layer that passed, beside every problem
/// found. A model viewer describes any IR with it, even one with
/// operations ovir does not know.
pub fn analyze_partial(model: &Model, eval: &dyn Evaluator, registry: &OpRegistry) -> PartialInfo {
    let count = model.layers.len();
    let mut ops: Vec<Option<Op>> = vec![None; count];
    let mut outputs: Vec<Vec<PortFact>> =
        model.layers.iter().map(|l| vec![PortFact::unknown(); l.outputs.len()]).collect();
    // Checked once, here; from then on every index is trusted.
    if let Err(e) = model.check_references() {
        return PartialInfo { ops, outputs, errors: Vec::new(), broken: Some(Box::new(e)) };
    }
    // Until a layer succeeds, its outputs count as tainted, so that the
    // layers it feeds are not blamed for its failure.
    let mut tainted = vec![true; count];
    let mut errors = Vec::new();
    for &idx in &model.order {
        let layer = model.layer(idx);
        let inputs: Vec<Input<'_>> = (0..layer.inputs.len())
            .map(|i| {
                let src = model.source(idx, i);
                Input { fact: &outputs[src.layer.0][src.port], tainted: tainted[src.layer.0] }
            })
            .collect();
        let result = infer_inputs(layer, &inputs, eval, registry);
        let inputs_tainted = inputs.iter().any(|i| i.tainted);
        match result {
            Ok((op, facts)) => {
                ops[idx.0] = Some(op);
                outputs[idx.0] = facts;
                tainted[idx.0] = inputs_tainted;
            }
            Err(problems) => errors.extend(problems.into_vec().into_iter().map(|p| ShapeError {
                layer: idx,
                attribute: p.attribute.map(std::borrow::Cow::into_owned),
                kind: p.kind,
            })),
        }
    }
    PartialInfo { ops, outputs, errors, broken: None }
}

/// Finds, builds and infers the layer at `idx` of a model whose earlier
/// layers are known: `outputs` holds the facts of every layer that feeds
/// it, indexed like [`Model::layers`](ovir_ir::Model::layers). This is
/// one step of [`analyze_with_ops`], for whoever adds layers one at a
/// time and wants each checked as it comes.
///
/// # Panics
/// When `idx` or a source of the layer is not in the model, or `outputs`
/// lacks the facts of a layer that feeds it.
pub fn infer_layer(
    model: &Model,
    idx: LayerIdx,
    outputs: &[Vec<PortFact>],
    eval: &dyn Evaluator,
    registry: &OpRegistry,
) -> Result<(Op, Vec<PortFact>), Problems> {
    let layer = model.layer(idx);
    let inputs: Vec<Input<'_>> = (0..layer.inputs.len())
        .map(|i| {
            let src = model.source(idx, i);
            Input::new(&outputs[src.layer.0][src.port])
        })
        .collect();
    infer_inputs(layer, &inputs, eval, registry)
}

fn infer_inputs(
    layer: &Layer,
    inputs: &[Input<'_>],
    eval: &dyn Evaluator,
    registry: &OpRegistry,
) -> Result<(Op, Vec<PortFact>), Problems> {
    registry.build(layer, inputs.len()).and_then(|op| {
        let mut facts = op.get().infer(inputs)?;
        complete_values(layer, &op, inputs, &mut facts, eval);
        Ok((op, facts))
    })
}

/// Fills in the value of a single-output layer with inputs when it can be
/// known before the model runs: from `eval` when every input is known, or
/// else from [`PortFact::value_dims`] when every element of a dimension
/// list is known. A value that does not fit the inferred fact is not used.
fn complete_values(
    layer: &Layer,
    op: &Op,
    inputs: &[Input<'_>],
    facts: &mut [PortFact],
    eval: &dyn Evaluator,
) {
    let [fact] = facts else { return };
    // A layer without inputs (a Parameter, a Const) is what it says.
    if fact.value.is_some() || inputs.is_empty() {
        return;
    }
    let known: Option<Vec<&Tensor>> = inputs.iter().map(|i| i.fact.value.as_ref()).collect();
    if let Some(args) = known {
        if let Some(value) = eval.evaluate(layer, op, &args, fact) {
            let fits = (!fact.element_type.is_static() || fact.element_type == value.element_type())
                && fact.shape.accepts(value.shape());
            if fits {
                let dims = fact.value_dims.take();
                *fact = PortFact::known(value);
                fact.value_dims = dims.filter(|d| d.iter().all(|d| d.is_static()));
                return;
            }
        }
    }
    let Some(dims) = &fact.value_dims else { return };
    let Some(values) = dims.iter().map(|d| d.get()).collect::<Option<Vec<u64>>>() else { return };
    let shape = match fact.shape.to_static() {
        Some(s) if s.len() <= 1 && s.iter().product::<usize>() == values.len() => s,
        _ => return,
    };
    fact.value = int_tensor(fact.element_type, &shape, &values);
}
