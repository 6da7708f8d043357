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
//! Operations outside OpenVINO's opsets come from [`Extension`]s: with
//! [`analyze_with_extensions`], a layer whose type and version no built-in
//! op has is handled by the matching extension, whose [`CustomOp`] infers
//! the facts of its output and becomes [`Op::Custom`].
//!
//! Analysis does not stop at the first problem. A failing layer's outputs
//! get a fact with nothing known (dynamic type, dynamic rank), and checks
//! that such a fact could only fail because of the earlier failure are not
//! reported again, so [`AnalyzeError`] lists every independent problem.
//!
//! Values known before the model runs travel with the facts: constants,
//! the shape a `ShapeOf` reads from a static input, and, with
//! [`analyze_with`], whatever an [`Evaluator`] computes from known inputs
//! (the executor's kernels, for small outputs). Small integer tensors that
//! hold dimensions also carry what is known of each element as an interval
//! ([`PortFact::value_dims`]), so a shape taken apart and rebuilt by
//! `ShapeOf`, `Gather`, `Concat` or `Broadcast` stays as known as its
//! parts. The checks on values that OpenVINO makes at run time (Reverse
//! axes, ReverseSequence lengths) are made at load time when the values
//! are known, by the same functions the executor calls at run time:
//! [`reversed_axes`], [`sequence_lengths`] and the shape rules of
//! [`rules`].
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
mod extension;
mod infer;
mod op;
pub mod rules;
mod shape_ops;
mod values;

use ovir_ir::{Layer, LayerIdx, Model, OutputRef};
use ovir_tensor::{Dim, ElementType, PartialShape, Tensor};
use serde::{Serialize, Serializer};

pub use error::{AnalyzeError, ShapeError, ShapeErrorKind};
pub use extension::{CustomOp, CustomOpRef, Extension, ExtensionError, Extensions};
pub use op::{normalize_axis, BroadcastMode, Op, ReverseMode};
pub use values::{reversed_axes, sequence_lengths};

use infer::{infer_layer, Input};

/// What is known about one output port before the model runs.
#[derive(Clone, Debug)]
pub struct PortFact {
    /// The element type (`dynamic` when not known).
    pub element_type: ElementType,
    /// The shape, as far as it is known.
    pub shape: PartialShape,
    /// The value, when it is known before the model runs (constants,
    /// shapes of static inputs, and what an [`Evaluator`] computed).
    pub value: Option<Tensor>,
    /// For a 0-D or 1-D integer tensor that holds dimensions (a shape
    /// computed inside the graph), the interval each element is known to
    /// lie in, in element order. It is set even when only some elements are
    /// known, such as the `ShapeOf` of a partly dynamic input.
    pub value_dims: Option<Vec<Dim>>,
}

impl PortFact {
    /// A fact with nothing known: dynamic type, dynamic rank, no value.
    pub fn unknown() -> Self {
        PortFact::of(ElementType::Dynamic, PartialShape::dynamic())
    }

    /// A fact with a type and shape and no known value.
    pub fn of(element_type: ElementType, shape: PartialShape) -> Self {
        PortFact { element_type, shape, value: None, value_dims: None }
    }

    /// The fact of a known value: its type, its static shape and itself.
    pub fn known(value: Tensor) -> Self {
        PortFact {
            element_type: value.element_type(),
            shape: PartialShape::from_static(value.shape()),
            value: Some(value),
            value_dims: None,
        }
    }
}

/// Computes the value of a layer whose inputs are all known, while a model
/// is analysed; see [`analyze_with`].
///
/// The shape crate has no kernels of its own: the executor implements this
/// trait with its kernels, so that a value is computed by the same code
/// whether it is folded at load time or computed at run time.
pub trait Evaluator {
    /// The output of `op` (the parsed op of `layer`) on `inputs`, or `None`
    /// to leave it unknown: when the op has no kernel, when computing it
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
    analyze_with_extensions(model, eval, &Extensions::new())
}

/// Like [`analyze_with`], with layers whose type and version no built-in
/// op has handled by the matching one of `extensions` (see
/// [`Extension`]). A layer that neither knows is reported with the
/// supported operations and the registered extensions.
pub fn analyze_with_extensions(
    model: &Model,
    eval: &dyn Evaluator,
    extensions: &Extensions,
) -> Result<ModelInfo, AnalyzeError> {
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
        match infer_layer(layer, &inputs, extensions) {
            Ok((op, mut facts)) => {
                complete_values(layer, &op, &inputs, &mut facts, eval);
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
                attribute: attribute.map(std::borrow::Cow::into_owned),
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

/// Fills in the value of a single-output layer when it can be known before
/// the model runs: from `eval` when every input is known, or else from
/// [`PortFact::value_dims`] when every element of a dimension list is
/// known. A value that does not fit the inferred fact is not used.
fn complete_values(layer: &Layer, op: &Op, inputs: &[Input], facts: &mut [PortFact], eval: &dyn Evaluator) {
    let [fact] = facts else { return };
    if fact.value.is_some() || matches!(op, Op::Parameter { .. } | Op::Const | Op::Result) {
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
    fact.value = shape_ops::int_tensor(fact.element_type, &shape, &values);
}
