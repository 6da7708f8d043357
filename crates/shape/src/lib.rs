//! Validation and shape inference for OpenVINO IR models: what is known
//! about every tensor before the model runs.
//!
//! [`analyze`] walks the layers of an [`ovir_ir::Model`] in topological
//! order. For each layer it finds the operation (matching `type` without
//! regard to ASCII case, and checking that the layer's `version` names an
//! opset containing it), reads and checks the `<data>` attributes and the
//! number of ports, applies OpenVINO's validation rules to the facts of the
//! inputs and infers the facts of the outputs.
//!
//! The model itself is left as the file described it. The results go into a
//! side table, [`ModelInfo`], indexed like [`Model::layers`]:
//! - [`ModelInfo::ops`]: the parsed [`Op`] of each layer;
//! - [`ModelInfo::outputs`]: a [`PortFact`] per output port, with the element
//!   type, the [`PartialShape`] (intervals and dynamic dimensions kept as
//!   OpenVINO infers them) and, for constants, the value.
//!
//! Analysis does not stop at the first problem. A failing layer's outputs
//! get a fact with nothing known (dynamic type, dynamic rank), and checks
//! that such a fact could only fail because of the earlier failure are not
//! reported again, so [`AnalyzeError`] lists every independent problem.
//!
//! Values are not computed here, not even for layers whose inputs are all
//! constant: folding is the executor's job. The checks on values that
//! OpenVINO makes at run time (Reverse axes, ReverseSequence lengths) are
//! made at load time when the values are constant, by the same functions
//! the executor calls at run time: [`reversed_axes`] and
//! [`sequence_lengths`].
//!
//! ```
//! use std::sync::Arc;
//! use ovir_ir::{Attribute, Attributes, Layer, LayerIdx, Model, OutputRef, Port, RtInfo, SourceFile, Span};
//! use ovir_shape::{analyze, Op, ReverseMode};
//! use ovir_tensor::{ElementType, PartialShape, Tensor};
//!
//! fn port(shape: &str) -> Port {
//!     let shape = shape.parse().unwrap_or(PartialShape::dynamic());
//!     Port { id: 0, precision: None, names: vec![], shape, rt_info: RtInfo::default(), span: Span::default() }
//! }
//! fn layer(op_type: &str, attrs: &[(&str, &str)], inputs: usize, outputs: usize) -> Layer {
//!     let attrs = attrs.iter().map(|(n, v)| Attribute { name: n.to_string(), value: v.to_string(), span: Span::default() });
//!     Layer {
//!         id: 0,
//!         name: op_type.to_lowercase(),
//!         op_type: op_type.to_string(),
//!         version: "opset1".to_string(),
//!         attrs: Attributes(attrs.collect()),
//!         inputs: (0..inputs).map(|_| port("...")).collect(),
//!         outputs: (0..outputs).map(|_| port("...")).collect(),
//!         rt_info: RtInfo::default(),
//!         span: Span::default(),
//!         constant: None,
//!     }
//! }
//!
//! let mut axes = layer("Const", &[], 0, 1);
//! axes.constant = Some(Tensor::from_vec(&[1], vec![-1i64])?);
//! let model = Model {
//!     name: "flip".to_string(),
//!     version: 11,
//!     layers: vec![
//!         layer("Parameter", &[("shape", "?,3,1..10"), ("element_type", "f32")], 0, 1),
//!         axes,
//!         layer("Reverse", &[("mode", "index")], 2, 1),
//!         layer("Result", &[], 1, 0),
//!     ],
//!     edges: vec![],
//!     rt_info: RtInfo::default(),
//!     source: Arc::new(SourceFile { path: None, text: String::new() }),
//!     sources: vec![
//!         vec![],
//!         vec![],
//!         vec![OutputRef { layer: LayerIdx(0), port: 0 }, OutputRef { layer: LayerIdx(1), port: 0 }],
//!         vec![OutputRef { layer: LayerIdx(2), port: 0 }],
//!     ],
//!     order: (0..4).map(LayerIdx).collect(),
//! };
//!
//! let info = analyze(&model)?;
//! assert_eq!(info.op(LayerIdx(2)), &Op::Reverse { mode: ReverseMode::Index });
//! let out = info.output(OutputRef { layer: LayerIdx(2), port: 0 });
//! assert_eq!(out.element_type, ElementType::F32);
//! assert_eq!(out.shape.to_string(), "[?,3,1..10]");
//! assert_eq!(info.input_fact(&model, LayerIdx(3), 0).shape, out.shape);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod error;
mod infer;
mod op;
mod values;

use ovir_ir::{LayerIdx, Model, OutputRef};
use ovir_tensor::{ElementType, PartialShape, Tensor};
use serde::{Serialize, Serializer};

pub use error::{AnalyzeError, ShapeError, ShapeErrorKind};
pub use op::{normalize_axis, Op, ReverseMode};
pub use values::{reversed_axes, sequence_lengths};

use infer::{infer_layer, Input};

/// What is known about one output port before the model runs.
#[derive(Clone, Debug)]
pub struct PortFact {
    /// The element type (`dynamic` when not known).
    pub element_type: ElementType,
    /// The shape, as far as it is known.
    pub shape: PartialShape,
    /// The value, when it is known before the model runs (constants).
    pub value: Option<Tensor>,
}

impl PortFact {
    /// A fact with nothing known: dynamic type, dynamic rank, no value.
    pub fn unknown() -> Self {
        PortFact { element_type: ElementType::Dynamic, shape: PartialShape::dynamic(), value: None }
    }

    /// The fact of a known value: its type, its static shape and itself.
    pub fn known(value: Tensor) -> Self {
        PortFact {
            element_type: value.element_type(),
            shape: PartialShape::from_static(value.shape()),
            value: Some(value),
        }
    }
}

impl Serialize for PortFact {
    /// Writes the type, the shape and whether the value is known (not the
    /// value itself, which may be large).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("PortFact", 3)?;
        st.serialize_field("element_type", &self.element_type)?;
        st.serialize_field("shape", &self.shape)?;
        st.serialize_field("value_known", &self.value.is_some())?;
        st.end()
    }
}

/// The side table of a model: per layer, indexed like [`Model::layers`],
/// the operation and the facts of each output port.
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

/// Validates every layer of a model and infers the facts of every output.
///
/// Returns every independent problem found, not only the first.
pub fn analyze(model: &Model) -> Result<ModelInfo, AnalyzeError> {
    let count = model.layers.len();
    let mut ops: Vec<Option<Op>> = vec![None; count];
    let mut outputs: Vec<Vec<PortFact>> =
        model.layers.iter().map(|l| vec![PortFact::unknown(); l.outputs.len()]).collect();
    // Until a layer succeeds, its outputs count as tainted: a broken order
    // then yields unknown facts instead of misleading errors.
    let mut tainted = vec![true; count];
    let mut visited = vec![false; count];
    let mut errors = Vec::new();

    for &idx in &model.order {
        let (Some(layer), Some(seen)) = (model.layers.get(idx.0), visited.get_mut(idx.0)) else {
            continue;
        };
        if std::mem::replace(seen, true) {
            continue;
        }
        let inputs: Vec<Input> = model
            .sources
            .get(idx.0)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|src| Input {
                fact: outputs
                    .get(src.layer.0)
                    .and_then(|o| o.get(src.port))
                    .cloned()
                    .unwrap_or_else(PortFact::unknown),
                tainted: tainted.get(src.layer.0).copied().unwrap_or(true),
            })
            .collect();
        match infer_layer(layer, &inputs) {
            Ok((op, facts)) => {
                if let (Some(slot), Some(out), Some(t)) =
                    (ops.get_mut(idx.0), outputs.get_mut(idx.0), tainted.get_mut(idx.0))
                {
                    *slot = Some(op);
                    *out = facts;
                    *t = inputs.iter().any(|i| i.tainted);
                }
            }
            Err(issues) => errors.extend(issues.into_iter().map(|(attribute, kind)| ShapeError {
                layer: idx,
                attribute: attribute.map(str::to_string),
                kind,
            })),
        }
    }

    for (i, seen) in visited.iter().enumerate() {
        if !seen {
            errors.push(ShapeError { layer: LayerIdx(i), attribute: None, kind: ShapeErrorKind::NotInOrder });
        }
    }
    if !errors.is_empty() {
        return Err(AnalyzeError { errors });
    }
    // Every layer was visited without error, so every op is known.
    let ops = ops.into_iter().flatten().collect();
    Ok(ModelInfo { ops, outputs })
}
