//! Builds small `ovir_ir::Model`s in memory, without the XML reader.

use std::sync::Arc;

use ovir_ir::{
    Attribute, Attributes, Edge, Layer, LayerIdx, Model, OutputRef, Port, RtInfo, SourceFile, Span,
};
use ovir_shape::{analyze, AnalyzeError, ModelInfo, PortFact, ShapeError};
use ovir_tensor::{Element, PartialShape, Tensor};

/// A model under construction; layers are added in topological order.
#[derive(Default)]
pub struct Graph {
    layers: Vec<Layer>,
    sources: Vec<Vec<OutputRef>>,
    edges: Vec<Edge>,
}

fn port(id: u64) -> Port {
    Port {
        id,
        precision: None,
        names: Vec::new(),
        shape: PartialShape::dynamic(),
        rt_info: RtInfo::default(),
        span: Span::default(),
    }
}

impl Graph {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a layer of any type and version with `outputs` output ports.
    pub fn add(
        &mut self,
        op_type: &str,
        version: &str,
        attrs: &[(&str, &str)],
        inputs: &[OutputRef],
        outputs: usize,
    ) -> LayerIdx {
        let idx = LayerIdx(self.layers.len());
        let id = idx.0 as u64;
        let n_in = inputs.len() as u64;
        for (to_port, src) in inputs.iter().enumerate() {
            let from = &self.layers[src.layer.0];
            self.edges.push(Edge {
                from_layer: from.id,
                from_port: from.inputs.len() as u64 + src.port as u64,
                to_layer: id,
                to_port: to_port as u64,
                span: Span::default(),
            });
        }
        self.layers.push(Layer {
            id,
            name: format!("{}_{id}", op_type.to_lowercase()),
            op_type: op_type.to_string(),
            version: version.to_string(),
            attrs: Attributes(
                attrs
                    .iter()
                    .map(|(name, value)| Attribute {
                        name: name.to_string(),
                        value: value.to_string(),
                        span: Span::default(),
                    })
                    .collect(),
            ),
            inputs: (0..n_in).map(port).collect(),
            outputs: (n_in..n_in + outputs as u64).map(port).collect(),
            rt_info: RtInfo::default(),
            output_names: None,
            span: Span::default(),
            constant: None,
        });
        self.sources.push(inputs.to_vec());
        idx
    }

    /// An `opset1` layer with one output.
    pub fn op(&mut self, op_type: &str, attrs: &[(&str, &str)], inputs: &[OutputRef]) -> OutputRef {
        OutputRef { layer: self.add(op_type, "opset1", attrs, inputs, 1), port: 0 }
    }

    pub fn parameter(&mut self, element_type: &str, shape: &str) -> OutputRef {
        self.op("Parameter", &[("element_type", element_type), ("shape", shape)], &[])
    }

    pub fn constant(&mut self, value: Tensor) -> OutputRef {
        let ty = value.element_type().to_string();
        let shape = value.shape().iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        let out = self.op("Const", &[("element_type", &ty), ("shape", &shape)], &[]);
        self.layers[out.layer.0].constant = Some(value);
        out
    }

    /// Gives a layer (a Const) its value.
    pub fn set_constant(&mut self, layer: LayerIdx, value: Tensor) {
        self.layers[layer.0].constant = Some(value);
    }

    /// A 1-D constant.
    pub fn vector<T: Element>(&mut self, values: &[T]) -> OutputRef {
        self.constant(Tensor::from_elements(&[values.len()], values).unwrap())
    }

    pub fn result(&mut self, input: OutputRef) -> LayerIdx {
        self.add("Result", "opset1", &[], &[input], 0)
    }

    pub fn model(self) -> Model {
        let order = (0..self.layers.len()).map(LayerIdx).collect();
        Model {
            name: "test".to_string(),
            version: 11,
            layers: self.layers,
            edges: self.edges,
            rt_info: RtInfo::default(),
            source: Arc::new(SourceFile { path: None, text: String::new() }),
            sources: self.sources,
            order,
        }
    }

    /// Adds a Result after `out`, analyses the model and returns the fact
    /// of `out`, or every error.
    pub fn infer(mut self, out: OutputRef) -> Result<PortFact, Vec<ShapeError>> {
        self.result(out);
        let model = self.model();
        analyze(&model).map(|info| info.output(out).clone()).map_err(|e| e.errors)
    }

    pub fn analyze(self) -> (Model, Result<ModelInfo, AnalyzeError>) {
        let model = self.model();
        let result = analyze(&model);
        (model, result)
    }
}

/// What a table row expects.
#[derive(Debug)]
pub enum Expect {
    /// Success with this output element type and shape (`[...]` syntax).
    Ok(&'static str, &'static str),
    /// Failure: some error has this variant name and contains this text.
    Err(&'static str, &'static str),
}

/// Checks an outcome against an expectation, naming the case on failure.
pub fn check(case: &str, outcome: Result<PortFact, Vec<ShapeError>>, expect: &Expect) {
    match (outcome, expect) {
        (Ok(fact), Expect::Ok(ty, shape)) => {
            assert_eq!(fact.element_type.to_string(), *ty, "{case}: element type");
            assert_eq!(fact.shape.to_string(), *shape, "{case}: shape");
        }
        (Err(errors), Expect::Err(kind, text)) => {
            let found = errors.iter().any(|e| {
                let debug = format!("{:?}", e.kind);
                let same_kind = debug == *kind || debug.starts_with(&format!("{kind} "));
                same_kind && e.kind.to_string().contains(text)
            });
            assert!(found, "{case}: expected a {kind} error containing {text:?}, got {errors:#?}");
        }
        (outcome, expect) => panic!("{case}: expected {expect:?}, got {outcome:#?}"),
    }
}
