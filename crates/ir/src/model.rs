//! The graph exactly as an IR file describes it: plain data, no analysis.
//!
//! The reader only returns a [`Model`] after the structural checks have
//! passed, so these invariants hold for every later stage:
//! - layer ids are unique, and [`Model::layers`] keeps file order;
//! - every input port of every layer is fed by exactly one edge, from an
//!   output port that exists ([`Model::source`] cannot fail);
//! - the graph has no cycle, and [`Model::order`] is a topological order;
//! - every `Const` layer has its value loaded in [`Layer::constant`].
//!
//! The fields are public, so a model can also be built or changed in code.
//! [`Model::check_references`] checks that such a model keeps the same
//! invariants, and every public entry point that takes a model runs it
//! before anything indexes the model.

use std::sync::Arc;

use ovir_tensor::{ElementType, PartialShape, Tensor};

use crate::layer_ref::LayerRef;
use crate::source::{SourceFile, Span};

/// The index of a layer in [`Model::layers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LayerIdx(pub usize);

/// An output of a layer: the layer and the position of the port in its
/// `<output>` list (not the port's `id`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OutputRef {
    /// The producing layer.
    pub layer: LayerIdx,
    /// The position of the port among the layer's outputs.
    pub port: usize,
}

/// One `name="value"` attribute of a `<data>` element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// The attribute's name.
    pub name: String,
    /// Its value, with XML escapes resolved.
    pub value: String,
    /// Where the attribute stands in the XML.
    pub span: Span,
}

/// The `<data>` attributes of a layer, in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes(pub Vec<Attribute>);

impl Attributes {
    /// The attribute with this name, if present.
    pub fn get(&self, name: &str) -> Option<&Attribute> {
        self.0.iter().find(|a| a.name == name)
    }

    /// The value of the attribute with this name, if present.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.get(name).map(|a| a.value.as_str())
    }
}

/// A node of an `<rt_info>` tree: kept verbatim, interpreted by nobody.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RtNode {
    /// The element name (`attribute`, `fused_names`, …).
    pub tag: String,
    /// The element's attributes, in file order.
    pub attrs: Vec<(String, String)>,
    /// Child elements.
    pub children: Vec<RtNode>,
}

/// The contents of an `<rt_info>` element (empty when there is none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RtInfo(pub Vec<RtNode>);

/// A `<port>` of a layer.
#[derive(Clone, Debug)]
pub struct Port {
    /// The port's `id`, matched by value against edges.
    pub id: u64,
    /// The `precision` attribute, when present.
    pub precision: Option<ElementType>,
    /// Tensor names from the `names` attribute, split by [`split_names`]
    /// as OpenVINO splits them.
    ///
    /// [`split_names`]: crate::split_names
    pub names: Vec<String>,
    /// The shape given by the `<dim>` children (`-1` is `?`).
    pub shape: PartialShape,
    /// The port's rt_info.
    pub rt_info: RtInfo,
    /// The `<port>` start tag.
    pub span: Span,
}

/// A `<layer>`.
#[derive(Clone, Debug)]
pub struct Layer {
    /// The layer's `id`.
    pub id: u64,
    /// The layer's `name`.
    pub name: String,
    /// The `type` attribute as written (`Reverse`, `Const`, …).
    pub op_type: String,
    /// The `version` attribute as written (`opset1`, …).
    pub version: String,
    /// The `<data>` attributes.
    pub attrs: Attributes,
    /// The `<input>` ports, in file order.
    pub inputs: Vec<Port>,
    /// The `<output>` ports, in file order.
    pub outputs: Vec<Port>,
    /// The layer's rt_info.
    pub rt_info: RtInfo,
    /// The `output_names` of the `<layer>` tag, split: the names a
    /// `Result` gives the model output, which OpenVINO 2025 and later
    /// writes there and reads first. `None` when the tag has none.
    pub output_names: Option<Vec<String>>,
    /// The `<layer>` start tag.
    pub span: Span,
    /// The value of a `Const` layer, borrowed from the weights without
    /// copying; `None` for every other layer.
    pub constant: Option<Tensor>,
}

impl Layer {
    /// `true` when the layer's type is `name`, ignoring ASCII case as
    /// OpenVINO does.
    pub fn is(&self, name: &str) -> bool {
        self.op_type.eq_ignore_ascii_case(name)
    }

    /// `true` for a `Const` layer, whose value is in [`Layer::constant`]:
    /// type `Const`, or `Constant`, which ovir accepts for it (ignoring
    /// ASCII case).
    pub fn is_const(&self) -> bool {
        self.is("Const") || self.is("Constant")
    }

    /// The layer's id, name and type, for messages.
    pub fn layer_ref(&self) -> LayerRef {
        LayerRef::new(self.id, &self.name, &self.op_type)
    }
}

/// An `<edge>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// `from-layer`.
    pub from_layer: u64,
    /// `from-port`.
    pub from_port: u64,
    /// `to-layer`.
    pub to_layer: u64,
    /// `to-port`.
    pub to_port: u64,
    /// The `<edge>` element.
    pub span: Span,
}

/// An IR model: see the module docs for its invariants, which
/// [`Model::check_references`] checks for a model built in code.
#[derive(Clone, Debug)]
pub struct Model {
    /// The `<net name>`.
    pub name: String,
    /// The IR version (10 or 11).
    pub version: u32,
    /// Layers in file order.
    pub layers: Vec<Layer>,
    /// Edges in file order.
    pub edges: Vec<Edge>,
    /// The model-level rt_info.
    pub rt_info: RtInfo,
    /// The XML the model was read from.
    pub source: Arc<SourceFile>,
    /// For each layer and each of its inputs (by position), the output that
    /// feeds it.
    pub sources: Vec<Vec<OutputRef>>,
    /// All layers in a topological order (producers before consumers).
    pub order: Vec<LayerIdx>,
}

impl Model {
    /// The layer at an index produced by this model.
    ///
    /// Panics when the index is out of range, which an index taken from a
    /// model that passed [`Model::check_references`] never is.
    pub fn layer(&self, idx: LayerIdx) -> &Layer {
        &self.layers[idx.0]
    }

    /// The id, name and type of the layer at an index, for messages.
    pub fn layer_ref(&self, idx: LayerIdx) -> LayerRef {
        self.layer(idx).layer_ref()
    }

    /// The output feeding input `input` (by position) of a layer.
    ///
    /// Panics when the layer or the input does not exist, which cannot
    /// happen for a layer and input of a model that passed
    /// [`Model::check_references`].
    pub fn source(&self, idx: LayerIdx, input: usize) -> OutputRef {
        self.sources[idx.0][input]
    }

    /// The `Parameter` layers, in file order: the model's inputs.
    pub fn parameters(&self) -> impl Iterator<Item = LayerIdx> + '_ {
        self.layers.iter().enumerate().filter(|(_, l)| l.is("Parameter")).map(|(i, _)| LayerIdx(i))
    }

    /// The `Result` layers, in file order: the model's outputs.
    pub fn results(&self) -> impl Iterator<Item = LayerIdx> + '_ {
        self.layers.iter().enumerate().filter(|(_, l)| l.is("Result")).map(|(i, _)| LayerIdx(i))
    }
}
