//! What the reader reports when an IR file is wrong: one [`Diagnostic`] per
//! independent problem, gathered in a [`ReadError`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ovir_tensor::ShapeParseError;

use crate::layer_ref::LayerRef;
use crate::render::render_diagnostic;
use crate::source::{LineCol, SourceFile, Span};

fn list_layers(layers: &[LayerRef]) -> String {
    let names: Vec<String> = layers.iter().map(|l| format!("{} {:?}", l.id, l.name)).collect();
    names.join(" -> ")
}

fn missing_weights(path: Option<&Path>) -> String {
    match path {
        Some(p) => format!("the weights file `{}` does not exist", p.display()),
        None => "no weights were given".to_string(),
    }
}

/// One kind of problem found in an IR file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IrErrorKind {
    /// The XML itself is malformed; reading stops here.
    #[error("the XML is malformed: {message}")]
    XmlSyntax {
        /// What the XML parser found wrong.
        message: String,
    },
    /// The file is not UTF-8 text.
    #[error("the XML file is not valid UTF-8 (first bad byte at offset {offset}); IR files are UTF-8 text")]
    NotUtf8 {
        /// Byte offset of the first invalid byte.
        offset: usize,
    },
    /// The file has a `<!DOCTYPE>`, which could define entities that expand
    /// without bound; IR files never have one.
    #[error("the XML has a DOCTYPE declaration; IR files have none, and it is refused because its entities could expand without bound")]
    DoctypeRefused,
    /// Elements are nested deeper than any IR file nests them.
    #[error("elements are nested more than {limit} levels deep; IR files nest about 10 levels")]
    TooDeep {
        /// The nesting limit.
        limit: usize,
    },
    /// The file is not XML text at all: a NumPy file, an archive, another
    /// binary format, or a folder.
    #[error("{path} is {what}, not an OpenVINO IR .xml file{}", hint.as_ref().map(|h| format!("; {h}")).unwrap_or_default())]
    NotXml {
        /// The file's path.
        path: String,
        /// What the file is, as far as its first bytes tell.
        what: String,
        /// What to give instead, when that is known.
        hint: Option<String>,
    },
    /// A file could not be read.
    #[error("cannot read `{path}`: {message}")]
    Io {
        /// The file's path.
        path: String,
        /// The operating system's reason.
        message: String,
    },
    /// The root element is not `<net>`.
    #[error("the root element is <{found}>, but an IR file starts with <net>")]
    WrongRoot {
        /// The root element's name.
        found: String,
    },
    /// The file has no root element at all.
    #[error("the XML has no root element; an IR file has a <net> root")]
    NoRoot,
    /// The `<net version>` is not one this reader knows.
    #[error("IR version {found:?} is not supported; only versions 10 and 11 are")]
    UnsupportedVersion {
        /// The version as written.
        found: String,
    },
    /// A required element is absent.
    #[error("<{parent}> has no <{element}> element, which is required")]
    MissingElement {
        /// The missing element.
        element: &'static str,
        /// The element that should contain it.
        parent: &'static str,
    },
    /// A required attribute is absent.
    #[error("<{element}> has no `{attribute}` attribute, which is required")]
    MissingAttribute {
        /// The element missing the attribute.
        element: &'static str,
        /// The missing attribute.
        attribute: &'static str,
    },
    /// An attribute or element that holds a number holds something else.
    #[error("`{attribute}` of <{element}> is {value:?}, but it must be {expected}")]
    InvalidNumber {
        /// The element holding the number.
        element: &'static str,
        /// The attribute name (`dim` for the text of a `<dim>`).
        attribute: String,
        /// The text found.
        value: String,
        /// What was expected, in words.
        expected: &'static str,
    },
    /// Two layers have the same id.
    #[error("duplicate layer id {id} (first used on line {first_line}); layer ids must be unique")]
    DuplicateLayerId {
        /// The repeated id.
        id: u64,
        /// The line of the first layer with this id.
        first_line: usize,
    },
    /// Two ports on the same side of a layer have the same id.
    #[error("duplicate {direction} port id {id} in this layer (first used on line {first_line}); port ids must be unique")]
    DuplicatePortId {
        /// `input` or `output`.
        direction: &'static str,
        /// The repeated id.
        id: u64,
        /// The line of the first port with this id.
        first_line: usize,
    },
    /// An edge names a layer id that no layer has.
    #[error("edge {end}-layer {id} names no layer in the file")]
    UnknownLayer {
        /// `from` or `to`.
        end: &'static str,
        /// The layer id on the edge.
        id: u64,
    },
    /// An edge names a port that its layer does not have.
    #[error("edge {end}-port {port} names no {direction} port of layer {layer}")]
    UnknownPort {
        /// `from` or `to`.
        end: &'static str,
        /// `output` (for `from`) or `input` (for `to`).
        direction: &'static str,
        /// The layer id on the edge.
        layer: u64,
        /// The port id on the edge.
        port: u64,
    },
    /// Two edges feed the same input port.
    #[error("input port {port} of layer {layer} is fed by a second edge (the first is on line {first_line}); an input takes exactly one edge")]
    InputFedTwice {
        /// The layer id.
        layer: u64,
        /// The input port id.
        port: u64,
        /// The line of the first edge feeding it.
        first_line: usize,
    },
    /// No edge feeds an input port.
    #[error("input port {port} of layer {layer} is not fed by any edge")]
    InputNotFed {
        /// The layer id.
        layer: u64,
        /// The input port id.
        port: u64,
    },
    /// The edges form a cycle.
    #[error("the graph has a cycle through layers {}; an IR graph must be acyclic", list_layers(layers))]
    Cycle {
        /// The layers on the cycle, each feeding the next (and the last the
        /// first).
        layers: Vec<LayerRef>,
    },
    /// A `<dim>` is below -1.
    #[error("dimension {value} is invalid: a <dim> is a size of 0 or more, or -1 for a dynamic size")]
    DimBelowMinusOne {
        /// The value found.
        value: i64,
    },
    /// A shape attribute cannot be parsed.
    #[error("`{attribute}` is not a valid shape: {reason}")]
    BadShape {
        /// The attribute name.
        attribute: String,
        /// Why it could not be parsed (in the message, so not a `source`).
        reason: ShapeParseError,
    },
    /// An element type name is not one OpenVINO defines.
    #[error("`{attribute}` is {value:?}, which is not an element type")]
    UnknownElementType {
        /// The attribute name.
        attribute: String,
        /// The value found.
        value: String,
    },
    /// A `Const` has a shape with dynamic dimensions.
    #[error("a Const's shape must be fully known, but it is {shape}")]
    ConstShapeNotStatic {
        /// The shape as written.
        shape: String,
    },
    /// A `Const` has the `dynamic` element type, which cannot hold values.
    #[error("a Const cannot have the dynamic element type")]
    ConstDynamicType,
    /// A `Const` is too large to address.
    #[error(
        "the {ty} Const of shape {shape:?} is too large: it needs {needed}, more than memory can address"
    )]
    ConstTooLarge {
        /// The element type.
        ty: String,
        /// The shape.
        shape: Vec<usize>,
        /// The bytes its shape and element type need.
        needed: ovir_tensor::ByteCount,
    },
    /// A `Const` needs weights, but there are none.
    #[error("this Const needs bytes from the weights, but {}", missing_weights(path.as_deref()))]
    MissingWeights {
        /// The weights file looked for; `None` when reading from memory
        /// without weights.
        path: Option<PathBuf>,
    },
    /// A `Const`'s bytes lie outside the weights.
    #[error("the Const's bytes (offset {offset}, size {size}) are out of bounds: the weights hold {file_len} bytes")]
    ConstOutOfBounds {
        /// The `offset` attribute.
        offset: u64,
        /// The `size` attribute.
        size: u64,
        /// The length of the weights.
        file_len: u64,
    },
    /// A `Const`'s `size` is smaller than its shape and type need.
    #[error("the Const's size is {size} bytes, but its shape and element type need {needed}")]
    ConstSizeTooSmall {
        /// The `size` attribute.
        size: u64,
        /// The bytes needed.
        needed: u64,
    },
    /// A `string` Const's packed bytes are malformed.
    #[error("the string Const's bytes are malformed: {reason}")]
    BadStringConst {
        /// What is wrong with them.
        reason: String,
    },
    /// `Model::sources` does not hold one list per layer.
    #[error("the model has {layers} layers, but `sources` holds {lists} lists; it needs one list per layer")]
    SourceListCount {
        /// The number of layers.
        layers: usize,
        /// The number of lists in `sources`.
        lists: usize,
    },
    /// A layer's list in `Model::sources` does not name one output per
    /// input port.
    #[error("the layer has {inputs} input ports, but {sources} sources in `sources`; it needs one source per input")]
    SourceCount {
        /// The layer's input ports.
        inputs: usize,
        /// The entries in its list.
        sources: usize,
    },
    /// A source names a layer index past the end of `Model::layers`.
    #[error("input {input} is fed by layer index {index}, but the model has only {layers} layers")]
    SourceLayerOutOfRange {
        /// The input, by position.
        input: usize,
        /// The layer index named.
        index: usize,
        /// The number of layers.
        layers: usize,
    },
    /// A source names an output that its layer does not have.
    #[error("input {input} is fed by output {port} of {producer}, which has only {outputs} outputs")]
    SourcePortOutOfRange {
        /// The input, by position.
        input: usize,
        /// The producing layer.
        producer: LayerRef,
        /// The output named, by position.
        port: usize,
        /// The producer's number of outputs.
        outputs: usize,
    },
    /// Two layers of a model built in code have the same id.
    #[error("layer id {id} is also the id of {first}; layer ids must be unique")]
    LayerIdReused {
        /// The repeated id.
        id: u64,
        /// The first layer with this id.
        first: LayerRef,
    },
    /// `Model::order` names a layer index past the end of `Model::layers`.
    #[error("`order[{position}]` is layer index {index}, but the model has only {layers} layers")]
    OrderOutOfRange {
        /// The position in `order`.
        position: usize,
        /// The layer index found there.
        index: usize,
        /// The number of layers.
        layers: usize,
    },
    /// `Model::order` lists a layer more than once.
    #[error(
        "`order` lists the layer twice, at positions {first} and {second}; it must list every layer once"
    )]
    OrderRepeats {
        /// The first position.
        first: usize,
        /// The second position.
        second: usize,
    },
    /// `Model::order` leaves a layer out.
    #[error("`order` leaves the layer out; it must list every layer once")]
    NotInOrder,
    /// `Model::order` lists a layer before (or as) a layer that feeds it.
    #[error("input {input} is fed by {producer}, which `order` does not list before this layer; every layer must come after the layers that feed it")]
    OrderNotTopological {
        /// The input, by position.
        input: usize,
        /// The producing layer.
        producer: LayerRef,
    },
    /// A `Const` layer has no value in `Layer::constant`.
    #[error("the Const layer has no value: `constant` is None, but every Const needs its value")]
    ConstWithoutValue,
    /// An edge joins ports that `Model::sources` does not connect, or
    /// reaches an input that an earlier edge already reaches.
    #[error("edge {from_layer}:{from_port} -> {to_layer}:{to_port} (layer:port ids) is not a connection of `sources`, or repeats one; `edges` needs exactly one edge per input, joining the ports that `sources` joins")]
    EdgeWithoutSource {
        /// `from-layer`.
        from_layer: u64,
        /// `from-port`.
        from_port: u64,
        /// `to-layer`.
        to_layer: u64,
        /// `to-port`.
        to_port: u64,
    },
    /// `Model::sources` feeds an input that no edge reaches that way.
    #[error("input {input} (port {to_port}) is fed by output port {from_port} of layer {from_layer} in `sources`, but no edge in `edges` joins them; `edges` and `sources` must describe the same connections")]
    SourceWithoutEdge {
        /// The input, by position.
        input: usize,
        /// The producing layer's id.
        from_layer: u64,
        /// The producing port's id.
        from_port: u64,
        /// The input port's id.
        to_port: u64,
    },
}

/// One problem found in an IR file, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong.
    pub kind: IrErrorKind,
    /// Where in the XML, when the problem has a place.
    pub span: Option<Span>,
    /// The layer concerned, when there is one.
    pub layer: Option<LayerRef>,
}

impl Diagnostic {
    /// A diagnostic with no place and no layer.
    pub fn new(kind: IrErrorKind) -> Self {
        Diagnostic { kind, span: None, layer: None }
    }

    /// A diagnostic at a span of the XML.
    pub fn at(kind: IrErrorKind, span: Span) -> Self {
        Diagnostic { kind, span: Some(span), layer: None }
    }

    /// The same diagnostic, about a layer.
    pub fn with_layer(mut self, layer: Option<LayerRef>) -> Self {
        self.layer = layer;
        self
    }

    /// The line and column where the problem starts, when it has a place.
    pub fn location(&self, source: &SourceFile) -> Option<LineCol> {
        self.span.map(|s| source.line_col(s.start))
    }

    /// The diagnostic with the offending source line, as plain text.
    pub fn render(&self, source: &SourceFile) -> String {
        self.render_with(source, false)
    }

    /// The diagnostic with the offending source line, with terminal colours
    /// when `color` is set.
    pub fn render_with(&self, source: &SourceFile, color: bool) -> String {
        render_diagnostic(source, &self.kind.to_string(), self.span, self.layer.as_ref(), &[], color)
    }
}

/// Reading an IR model failed, or a model's references do not hold
/// together ([`Model::check_references`]): every problem found, and the
/// XML they refer to.
///
/// [`Model::check_references`]: crate::Model::check_references
///
/// Its `Display` gives one line per problem, `file:line:col: message`.
#[derive(Clone, Debug)]
pub struct ReadError {
    /// The XML text the diagnostics point into.
    pub source: Arc<SourceFile>,
    /// The problems, at least one, ordered by position in the file; at
    /// most [`MAX_REPORTED`] of them.
    pub diagnostics: Vec<Diagnostic>,
    /// How many more problems were found but not kept.
    pub omitted: usize,
}

/// The most problems a [`ReadError`] keeps. A hostile file can hold a
/// million broken edges; the first hundred say what is wrong, and the
/// rest are only counted.
pub const MAX_REPORTED: usize = 100;

impl ReadError {
    /// The error for these problems, ordered by their place in the file
    /// (problems without a place last), keeping at most [`MAX_REPORTED`]
    /// of them; `omitted` more were found and only counted.
    pub(crate) fn new(
        source: Arc<SourceFile>,
        mut diagnostics: Vec<Diagnostic>,
        omitted: usize,
    ) -> ReadError {
        // Problems are found stage by stage; the file order reads better.
        diagnostics.sort_by_key(|d| d.span.map_or(usize::MAX, |s| s.start));
        let omitted = omitted + diagnostics.len().saturating_sub(MAX_REPORTED);
        diagnostics.truncate(MAX_REPORTED);
        ReadError { source, diagnostics, omitted }
    }

    /// Every diagnostic with its source line, separated by blank lines.
    pub fn render(&self, color: bool) -> String {
        let mut parts: Vec<String> =
            self.diagnostics.iter().map(|d| d.render_with(&self.source, color)).collect();
        if self.omitted > 0 {
            parts.push(format!("note: {} more problems were found but are not shown", self.omitted));
        }
        parts.join("\n")
    }

    /// How many problems were found, those not kept included.
    pub fn problem_count(&self) -> usize {
        self.diagnostics.len() + self.omitted
    }

    /// `true` when some diagnostic is of a kind matching `pred`.
    pub fn has(&self, pred: impl Fn(&IrErrorKind) -> bool) -> bool {
        self.diagnostics.iter().any(|d| pred(&d.kind))
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.source.display_name();
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            match d.location(&self.source) {
                Some(at) => write!(f, "{name}:{}:{}: {}", at.line, at.column, d.kind)?,
                // A message that names the file (one that cannot be
                // read) is not prefixed with its name again.
                None => {
                    let message = d.kind.to_string();
                    if message.contains(&name) {
                        write!(f, "{message}")?;
                    } else {
                        write!(f, "{name}: {message}")?;
                    }
                }
            }
            if let Some(layer) = &d.layer {
                write!(f, " [{layer}]")?;
            }
        }
        if self.omitted > 0 {
            write!(f, "\n{name}: {} more problems were found but are not shown", self.omitted)?;
        }
        Ok(())
    }
}

impl std::error::Error for ReadError {}
