//! Loaded and compiled models.

use std::sync::Arc;

use ovir_exec::Plan;
use ovir_ir::LayerIdx;
use ovir_shape::{ModelInfo, OpRegistry, PortFact, PortSide, PortWarning};
use ovir_tensor::{ElementType, PartialShape, DEFAULT_MAX_TENSOR_BYTES};
use serde::Serialize;

use crate::error::{Error, Place};

/// A model input or output: its names, element type and partial shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PortInfo {
    /// Every name the port answers to. The first is the one ovir shows and
    /// uses for file names: for an input, the first tensor name of the
    /// `Parameter`'s port, else the layer name; for an output, the first of
    /// the `output_names` on the `Result`'s `<layer>` tag (where OpenVINO
    /// writes and reads a model output's own names), else the first tensor
    /// name of the port feeding the `Result`, else its layer name.
    pub names: Vec<String>,
    /// The element type.
    pub element_type: ElementType,
    /// The shape, as far as it is known before running.
    pub shape: PartialShape,
}

impl PortInfo {
    /// The name ovir shows for this port.
    pub fn name(&self) -> &str {
        self.names.first().map_or("", String::as_str)
    }

    /// `true` when `name` is one of the port's names.
    pub fn answers_to(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }
}

impl PortInfo {
    /// The inputs of a graph, in `Parameter` order, with the facts known
    /// of each layer's outputs (indexed like the layers, as
    /// [`ModelInfo::outputs`] and
    /// [`PartialInfo::outputs`](ovir_shape::PartialInfo::outputs) are).
    /// This is [`Model::inputs`] for a graph that may not be valid.
    pub fn inputs_of(ir: &ovir_ir::Model, facts: &[Vec<PortFact>]) -> Vec<PortInfo> {
        ir.parameters().map(|idx| input_info(ir, facts, idx)).collect()
    }

    /// The outputs of a graph, in `Result` order, with the facts known of
    /// each layer's outputs: [`Model::outputs`] for a graph that may not
    /// be valid.
    pub fn outputs_of(ir: &ovir_ir::Model, facts: &[Vec<PortFact>]) -> Vec<PortInfo> {
        ir.results().map(|idx| output_info(ir, facts, idx)).collect()
    }

    fn with_fact(names: Vec<String>, fact: Option<&PortFact>) -> PortInfo {
        PortInfo {
            names,
            element_type: fact.map_or(ElementType::Dynamic, |f| f.element_type),
            shape: fact.map_or_else(PartialShape::dynamic, |f| f.shape.clone()),
        }
    }
}

fn input_info(ir: &ovir_ir::Model, facts: &[Vec<PortFact>], idx: LayerIdx) -> PortInfo {
    let layer = ir.layer(idx);
    let mut names: Vec<String> = layer.outputs.first().map(|p| p.names.clone()).unwrap_or_default();
    push_unique(&mut names, &layer.name);
    PortInfo::with_fact(names, facts.get(idx.0).and_then(|o| o.first()))
}

pub(crate) fn output_info(ir: &ovir_ir::Model, facts: &[Vec<PortFact>], idx: LayerIdx) -> PortInfo {
    let layer = ir.layer(idx);
    let src = ir.source(idx, 0);
    let producer = ir.layer(src.layer);
    // The Result's own names come first, as OpenVINO reads them; then the
    // names of the tensor it reads.
    let mut names: Vec<String> = layer.output_names.clone().unwrap_or_default();
    for n in producer.outputs.get(src.port).map_or(&[][..], |p| p.names.as_slice()) {
        push_unique(&mut names, n);
    }
    if let Some(list) = layer.attrs.value("output_names") {
        for n in ovir_ir::split_names(list) {
            push_unique(&mut names, &n);
        }
    }
    push_unique(&mut names, &layer.name);
    // IR v10 also knows an output by the layer that produces it.
    if ir.version == 10 {
        push_unique(&mut names, &producer.name);
    }
    PortInfo::with_fact(names, facts.get(src.layer.0).and_then(|o| o.get(src.port)))
}

/// A model read from IR and validated: the graph as the file describes it,
/// plus the element type and shape of every tensor.
#[derive(Clone, Debug)]
pub struct Model {
    pub(crate) ir: Arc<ovir_ir::Model>,
    pub(crate) info: Arc<ModelInfo>,
    pub(crate) warnings: Arc<[PortWarning]>,
}

impl Model {
    /// Analyses `ir` with these operations: what every entry point of
    /// [`Core`](crate::Core) ends in.
    pub(crate) fn validate_with(ir: ovir_ir::Model, ops: &OpRegistry) -> Result<Model, Error> {
        match ovir_shape::analyze_with_ops(&ir, &ovir_exec::ConstantEvaluator, ops) {
            Ok(info) => {
                let warnings = ovir_shape::port_warnings(&ir, &info.outputs).into();
                Ok(Model { ir: Arc::new(ir), info: Arc::new(info), warnings })
            }
            Err(ovir_shape::AnalyzeError { broken: Some(broken), .. }) => Err(Error::Read(*broken)),
            Err(e) => Err(Error::Invalid { file: ir.source.clone(), model: Box::new(ir), errors: e.errors }),
        }
    }

    /// The graph as the IR file describes it.
    pub fn ir(&self) -> &ovir_ir::Model {
        &self.ir
    }

    /// Every layer's op and output types and shapes.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// The ports whose declared `<dim>`s or `precision` disagree with what
    /// inference found. OpenVINO ignores what ports declare, and so does
    /// ovir: the model loads and runs as inferred, and these are warnings.
    pub fn warnings(&self) -> &[PortWarning] {
        &self.warnings
    }

    /// Renders every warning for a person, as [`Error::render`] renders
    /// errors: the port's line in the XML, the layer, and what the port
    /// declares against what was inferred. Empty when there is none.
    pub fn render_warnings(&self, color: bool) -> String {
        let rendered: Vec<String> = self
            .warnings
            .iter()
            .map(|w| {
                let layer = &self.ir.layers[w.layer.0];
                let ports = match w.side {
                    PortSide::Input => &layer.inputs,
                    PortSide::Output => &layer.outputs,
                };
                let span = ports.get(w.position).map(|p| p.span);
                ovir_ir::render_warning(
                    &self.ir.source,
                    &w.to_string(),
                    span,
                    Some(&layer.layer_ref()),
                    &[],
                    color,
                )
            })
            .collect();
        rendered.join("\n")
    }

    /// The model's inputs, in `Parameter` order.
    pub fn inputs(&self) -> Vec<PortInfo> {
        PortInfo::inputs_of(&self.ir, &self.info.outputs)
    }

    /// The model's outputs, in `Result` order.
    pub fn outputs(&self) -> Vec<PortInfo> {
        PortInfo::outputs_of(&self.ir, &self.info.outputs)
    }

    /// The place in the XML of the layer with this id.
    pub(crate) fn place_of(&self, id: u64) -> Option<Place> {
        let layer = self.ir.layers.iter().find(|l| l.id == id)?;
        Some(Place { source: self.ir.source.clone(), span: layer.span })
    }

    /// Compiles the model for the CPU: fixes the execution order and folds
    /// every layer whose inputs are constant.
    pub fn compile(&self) -> Result<CompiledModel, Error> {
        self.compile_with(CompileOptions::default())
    }

    /// Compiles the model with explicit options.
    pub fn compile_with(&self, options: CompileOptions) -> Result<CompiledModel, Error> {
        let plan =
            Plan::compile_with_limit(&self.ir, &self.info, options.max_tensor_bytes).map_err(|error| {
                let at = error.layer().and_then(|l| self.place_of(l.id));
                Error::Compile { error, at }
            })?;
        Ok(CompiledModel {
            inner: Arc::new(Compiled {
                model: self.clone(),
                inputs: self.inputs(),
                outputs: self.outputs(),
                plan,
                options,
            }),
        })
    }
}

fn push_unique(names: &mut Vec<String>, name: &str) {
    if !name.is_empty() && !names.iter().any(|n| n == name) {
        names.push(name.to_string());
    }
}

#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) model: Model,
    pub(crate) inputs: Vec<PortInfo>,
    pub(crate) outputs: Vec<PortInfo>,
    pub(crate) plan: Plan,
    pub(crate) options: CompileOptions,
}

/// How to compile a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompileOptions {
    /// How many threads one inference may use for large tensors (at least
    /// 1). Small tensors always stay on the calling thread; a kernel whose
    /// output is at least twice
    /// [`ExecOptions::DEFAULT_MIN_BYTES_PER_THREAD`](ovir_exec::kernels::ExecOptions::DEFAULT_MIN_BYTES_PER_THREAD)
    /// splits it across up to this many threads.
    ///
    /// With the default of 1, an infer request for a model with static
    /// shapes allocates nothing after its first inference. With more, each
    /// kernel that splits its work starts scoped threads on every
    /// inference, and starting a thread allocates.
    pub threads: usize,
    /// The most bytes any one tensor may take: an input that is set, an
    /// example input, or a value a layer computes. A larger tensor is an
    /// error that says how many bytes it needs, raised before anything is
    /// allocated. The limit bounds each tensor, not their sum.
    ///
    /// The default, [`DEFAULT_MAX_TENSOR_BYTES`] (16 GiB), is generous but
    /// finite, so that a hostile shape cannot exhaust the machine.
    pub max_tensor_bytes: u64,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions { threads: 1, max_tensor_bytes: DEFAULT_MAX_TENSOR_BYTES }
    }
}

impl CompileOptions {
    /// Options with this many threads per inference.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Options with this memory limit: the most bytes any one tensor may
    /// take (see [`CompileOptions::max_tensor_bytes`]).
    pub fn with_max_memory(mut self, bytes: u64) -> Self {
        self.max_tensor_bytes = bytes;
        self
    }
}

/// A model compiled for the CPU. Cheap to clone; `Send + Sync`, so one
/// compiled model can serve requests on many threads at once.
#[derive(Clone, Debug)]
pub struct CompiledModel {
    pub(crate) inner: Arc<Compiled>,
}

impl CompiledModel {
    /// The model's inputs, in the order inputs are indexed.
    pub fn inputs(&self) -> &[PortInfo] {
        &self.inner.inputs
    }

    /// The model's outputs, in the order outputs are indexed.
    pub fn outputs(&self) -> &[PortInfo] {
        &self.inner.outputs
    }

    /// The model this was compiled from.
    pub fn model(&self) -> &Model {
        &self.inner.model
    }

    /// How many threads one inference may use.
    pub fn threads(&self) -> usize {
        self.inner.options.threads
    }

    /// The most bytes any one tensor may take.
    pub fn max_tensor_bytes(&self) -> u64 {
        self.inner.options.max_tensor_bytes
    }

    /// The execution plan.
    pub fn plan(&self) -> &Plan {
        &self.inner.plan
    }

    /// Wraps a run-time error with the failing layer's place in the XML.
    pub(crate) fn run_error(&self, error: ovir_exec::RunError) -> Error {
        let at = match &error {
            ovir_exec::RunError::Kernel { layer, .. }
            | ovir_exec::RunError::OverLimit { layer, .. }
            | ovir_exec::RunError::InputHandedOver { layer, .. } => self.inner.model.place_of(layer.id),
            ovir_exec::RunError::InputNotSet { name } => return Error::InputNotSet { name: name.clone() },
            _ => None,
        };
        Error::Run { error, at }
    }
}
