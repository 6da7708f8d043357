//! From XML text to layers, ports and edges, checking each element on its
//! own; how they connect is checked afterwards (see `graph`).
//!
//! The parser is a single pass over quick-xml events with an explicit stack
//! of open elements, so deep or long files cost no native stack.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::HashMap;

use ovir_tensor::{Dim, ElementType, PartialShape};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::diagnostic::{Diagnostic, IrErrorKind};
use crate::layer_ref::LayerRef;
use crate::model::{Attribute, Attributes, Edge, Layer, Port, RtInfo, RtNode};
use crate::names::split_names;
use crate::source::{LineIndex, Span};

/// The deepest element nesting the reader accepts.
///
/// IR files nest about ten levels (sub-graph bodies add a few); anything
/// far deeper is not an IR file and is refused before it costs memory.
pub const MAX_DEPTH: usize = 64;

/// A problem that stops parsing (boxed: it is rare, and results stay small).
pub(crate) type Fatal = Box<Diagnostic>;

fn fatal(kind: IrErrorKind, span: Span) -> Fatal {
    Box::new(Diagnostic::at(kind, span))
}

/// What the XML says, before the graph is checked.
pub(crate) struct Parsed {
    pub name: String,
    pub version: u32,
    pub layers: Vec<Layer>,
    pub edges: Vec<Edge>,
    pub rt_info: RtInfo,
}

/// Parses the XML. Problems in single elements are pushed to `diags` and
/// parsing goes on; problems that make the rest unreadable are returned as
/// `Err`.
pub(crate) fn parse(text: &str, diags: &mut Vec<Diagnostic>) -> Result<Parsed, Fatal> {
    let mut p = Parser {
        text,
        stack: Vec::new(),
        diags,
        net: None,
        seen_layers: false,
        layers: Vec::new(),
        edges: Vec::new(),
        rt_info: RtInfo::default(),
        lines: OnceCell::new(),
    };
    p.run()?;
    let Some((name, version)) = p.net else {
        return Err(Box::new(Diagnostic::new(IrErrorKind::NoRoot)));
    };
    if !p.seen_layers {
        p.diags.push(Diagnostic::new(IrErrorKind::MissingElement { element: "layers", parent: "net" }));
    }
    Ok(Parsed { name, version, layers: p.layers, edges: p.edges, rt_info: p.rt_info })
}

struct LayerDraft {
    id: Option<u64>,
    name: String,
    op_type: String,
    version: String,
    attrs: Vec<Attribute>,
    inputs: Vec<Port>,
    outputs: Vec<Port>,
    /// Where each port id sits in `inputs` and `outputs`, so that a layer
    /// with very many ports is checked for duplicates in linear time.
    input_ids: HashMap<u64, usize>,
    output_ids: HashMap<u64, usize>,
    rt_info: RtInfo,
    output_names: Option<Vec<String>>,
    span: Span,
}

impl LayerDraft {
    fn layer_ref(&self) -> Option<LayerRef> {
        self.id.map(|id| LayerRef::new(id, &self.name, &self.op_type))
    }
}

struct PortDraft {
    id: Option<u64>,
    precision: Option<ElementType>,
    names: Vec<String>,
    dims: Vec<Dim>,
    rt_info: RtInfo,
    span: Span,
}

/// An open element, and what its children mean.
enum Open {
    Net,
    Layers,
    Layer(Box<LayerDraft>),
    Ports {
        output: bool,
    },
    Port(Box<PortDraft>),
    Dim {
        text: String,
        span: Span,
    },
    Edges,
    RtInfo(Vec<RtNode>),
    RtNode(RtNode),
    /// Anything the reader does not interpret (sub-graph bodies, metadata):
    /// skipped, but still counted for the depth limit.
    Other,
}

/// What kind of element is open, without borrowing it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Document,
    Net,
    Layers,
    Layer,
    Ports,
    Port,
    Edges,
    Rt,
    Other,
}

struct Parser<'t, 'd> {
    text: &'t str,
    stack: Vec<Open>,
    diags: &'d mut Vec<Diagnostic>,
    net: Option<(String, u32)>,
    seen_layers: bool,
    layers: Vec<Layer>,
    edges: Vec<Edge>,
    rt_info: RtInfo,
    /// Built the first time a message needs a line number.
    lines: OnceCell<LineIndex>,
}

/// An attribute of a start tag, borrowed from the text where possible.
struct RawAttr<'e> {
    name: &'e str,
    value: Cow<'e, str>,
    span: Span,
}

impl<'t> Parser<'t, '_> {
    fn run(&mut self) -> Result<(), Fatal> {
        let mut reader = Reader::from_str(self.text);
        reader.config_mut().check_end_names = true;
        loop {
            let before = to_usize(reader.buffer_position());
            let event = reader.read_event().map_err(|e| {
                let at = to_usize(reader.error_position());
                fatal(IrErrorKind::XmlSyntax { message: e.to_string() }, Span { start: at, end: at + 1 })
            })?;
            let after = to_usize(reader.buffer_position());
            match event {
                Event::Start(e) => self.open(&e, before, after, false)?,
                Event::Empty(e) => self.open(&e, before, after, true)?,
                Event::End(_) => self.close(after),
                Event::Text(t) => {
                    if let Some(Open::Dim { text, .. }) = self.stack.last_mut() {
                        text.push_str(&String::from_utf8_lossy(&t));
                    }
                }
                // pugixml, which OpenVINO reads IR with, takes a CDATA
                // section as an element's text, so `<dim><![CDATA[4]]></dim>`
                // is the size 4.
                Event::CData(t) => {
                    if let Some(Open::Dim { text, .. }) = self.stack.last_mut() {
                        text.push_str(&String::from_utf8_lossy(&t));
                    }
                }
                Event::DocType(_) => {
                    return Err(fatal(IrErrorKind::DoctypeRefused, Span { start: before, end: after }));
                }
                Event::Eof => break,
                // Comments, CDATA, processing instructions, the XML
                // declaration and entity references in text carry nothing
                // an IR reader needs.
                _ => {}
            }
        }
        if let Some(open) = self.stack.last() {
            let what = match open {
                Open::Net => "<net>",
                Open::Layers => "<layers>",
                Open::Layer(_) => "<layer>",
                Open::Ports { .. } => "<input> or <output>",
                Open::Port(_) => "<port>",
                Open::Dim { .. } => "<dim>",
                Open::Edges => "<edges>",
                Open::RtInfo(_) | Open::RtNode(_) => "an <rt_info> element",
                Open::Other => "an element",
            };
            let end = self.text.len();
            return Err(fatal(
                IrErrorKind::XmlSyntax {
                    message: format!("the file ends inside {what}, which is never closed"),
                },
                Span { start: end.saturating_sub(1), end },
            ));
        }
        Ok(())
    }

    fn kind(&self) -> Kind {
        match self.stack.last() {
            None => Kind::Document,
            Some(Open::Net) => Kind::Net,
            Some(Open::Layers) => Kind::Layers,
            Some(Open::Layer(_)) => Kind::Layer,
            Some(Open::Ports { .. }) => Kind::Ports,
            Some(Open::Port(_)) => Kind::Port,
            Some(Open::Edges) => Kind::Edges,
            Some(Open::RtInfo(_) | Open::RtNode(_)) => Kind::Rt,
            Some(Open::Dim { .. } | Open::Other) => Kind::Other,
        }
    }

    /// The byte offset of a slice of the text; `fallback` when the slice is
    /// not part of it (quick-xml borrows from the text, so it always is).
    fn offset_of(&self, slice: &[u8], fallback: usize) -> usize {
        let base = self.text.as_ptr() as usize;
        let at = slice.as_ptr() as usize;
        match at.checked_sub(base) {
            Some(off) if off <= self.text.len() => off,
            _ => fallback,
        }
    }

    fn open(&mut self, e: &BytesStart<'_>, before: usize, after: usize, empty: bool) -> Result<(), Fatal> {
        // `e` holds the tag without its `<`.
        let start = self.offset_of(e, before + 1).saturating_sub(1);
        let span = Span { start, end: after };
        if self.stack.len() >= MAX_DEPTH {
            return Err(fatal(IrErrorKind::TooDeep { limit: MAX_DEPTH }, span));
        }
        let name = e.name();
        let tag = name.as_ref();
        let open = match (self.kind(), tag) {
            (Kind::Document, b"net") if self.net.is_none() => {
                self.read_net(e, span)?;
                Open::Net
            }
            (Kind::Document, _) if self.net.is_none() => {
                let found = String::from_utf8_lossy(tag).into_owned();
                return Err(fatal(IrErrorKind::WrongRoot { found }, span));
            }
            (Kind::Document, _) => {
                // OpenVINO would read only the first root; a second one is
                // malformed XML, and silently ignoring it would hide layers.
                let found = String::from_utf8_lossy(tag).into_owned();
                let message = format!(
                    "a second root element <{found}> follows the <net> root; an XML file has one root"
                );
                return Err(fatal(IrErrorKind::XmlSyntax { message }, span));
            }
            (Kind::Net, b"layers") => {
                self.seen_layers = true;
                Open::Layers
            }
            (Kind::Net, b"edges") => Open::Edges,
            (Kind::Net | Kind::Layer | Kind::Port, b"rt_info") => Open::RtInfo(Vec::new()),
            (Kind::Rt, _) => Open::RtNode(self.rt_node(e, tag)?),
            (Kind::Layers, b"layer") => Open::Layer(Box::new(self.read_layer(e, span)?)),
            (Kind::Layer, b"data") => {
                let attrs = self.attributes(e)?;
                let attrs: Vec<Attribute> = attrs
                    .into_iter()
                    .map(|a| Attribute {
                        name: a.name.to_string(),
                        value: a.value.into_owned(),
                        span: a.span,
                    })
                    .collect();
                if let Some(Open::Layer(l)) = self.stack.last_mut() {
                    l.attrs.extend(attrs);
                }
                Open::Other
            }
            (Kind::Layer, b"input") => Open::Ports { output: false },
            (Kind::Layer, b"output") => Open::Ports { output: true },
            (Kind::Ports, b"port") => Open::Port(Box::new(self.read_port(e, span)?)),
            (Kind::Port, b"dim") => Open::Dim { text: String::new(), span },
            (Kind::Edges, b"edge") => {
                self.read_edge(e, span)?;
                Open::Other
            }
            _ => Open::Other,
        };
        self.stack.push(open);
        if empty {
            self.close(after);
        }
        Ok(())
    }

    /// Closes the innermost open element, whose end tag finishes at `end`.
    fn close(&mut self, end: usize) {
        let Some(open) = self.stack.pop() else { return };
        match open {
            Open::Layer(draft) => self.finish_layer(*draft),
            Open::Port(draft) => self.finish_port(*draft),
            Open::Dim { text, span } => {
                let dim = self.parse_dim(&text, Span { start: span.start, end });
                if let (Some(dim), Some(Open::Port(p))) = (dim, self.stack.last_mut()) {
                    p.dims.push(dim);
                }
            }
            Open::RtInfo(nodes) => {
                let info = RtInfo(nodes);
                match self.stack.last_mut() {
                    Some(Open::Net) => self.rt_info.0.extend(info.0),
                    Some(Open::Layer(l)) => l.rt_info.0.extend(info.0),
                    Some(Open::Port(p)) => p.rt_info.0.extend(info.0),
                    _ => {}
                }
            }
            Open::RtNode(node) => match self.stack.last_mut() {
                Some(Open::RtInfo(nodes)) => nodes.push(node),
                Some(Open::RtNode(parent)) => parent.children.push(node),
                _ => {}
            },
            Open::Net | Open::Layers | Open::Ports { .. } | Open::Edges | Open::Other => {}
        }
    }

    fn attributes<'e>(&self, e: &'e BytesStart<'_>) -> Result<Vec<RawAttr<'e>>, Fatal> {
        let tag_start = self.offset_of(e, 0);
        let syntax = |message: String, at: usize| {
            fatal(IrErrorKind::XmlSyntax { message }, Span { start: at, end: at + 1 })
        };
        let mut out = Vec::new();
        for attr in e.attributes().with_checks(true) {
            let attr = attr.map_err(|err| syntax(err.to_string(), tag_start))?;
            let key: &'e [u8] = attr.key.into_inner();
            let start = self.offset_of(key, tag_start);
            let raw_value_end = self.offset_of(&attr.value, start) + attr.value.len();
            // One past the closing quote.
            let end = (raw_value_end + 1).min(self.text.len());
            let span = Span { start, end };
            let name = std::str::from_utf8(key).map_err(|err| syntax(err.to_string(), start))?;
            let value = attr
                .unescape_value()
                .map_err(|err| syntax(format!("in attribute `{name}`: {err}"), start))?;
            out.push(RawAttr { name, value, span });
        }
        Ok(out)
    }

    fn read_net(&mut self, e: &BytesStart<'_>, span: Span) -> Result<(), Fatal> {
        let attrs = self.attributes(e)?;
        let name = find(&attrs, "name").map(|a| a.value.to_string()).unwrap_or_default();
        let Some(version) = find(&attrs, "version") else {
            return Err(fatal(IrErrorKind::MissingAttribute { element: "net", attribute: "version" }, span));
        };
        let version_num = match version.value.trim() {
            "10" => 10,
            "11" => 11,
            other => {
                let kind = IrErrorKind::UnsupportedVersion { found: other.to_string() };
                return Err(fatal(kind, version.span));
            }
        };
        self.net = Some((name, version_num));
        Ok(())
    }

    fn read_layer(&mut self, e: &BytesStart<'_>, span: Span) -> Result<LayerDraft, Fatal> {
        let attrs = self.attributes(e)?;
        let mut missing = Vec::new();
        let mut text_attr = |name: &'static str| match find(&attrs, name) {
            Some(a) => a.value.to_string(),
            None => {
                missing.push(name);
                String::new()
            }
        };
        let name = text_attr("name");
        let op_type = text_attr("type");
        let version = text_attr("version");
        let id = match find(&attrs, "id") {
            Some(a) => self.number("layer", a),
            None => {
                missing.insert(0, "id");
                None
            }
        };
        let draft = LayerDraft {
            id,
            name,
            op_type,
            version,
            attrs: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            input_ids: HashMap::new(),
            output_ids: HashMap::new(),
            rt_info: RtInfo::default(),
            output_names: find(&attrs, "output_names").map(|a| crate::split_names(&a.value)),
            span,
        };
        for attribute in missing {
            let d = Diagnostic::at(IrErrorKind::MissingAttribute { element: "layer", attribute }, span);
            self.diags.push(d.with_layer(draft.layer_ref()));
        }
        Ok(draft)
    }

    /// Parses an unsigned integer attribute, reporting a bad one.
    fn number(&mut self, element: &'static str, a: &RawAttr<'_>) -> Option<u64> {
        match parse_u64(&a.value) {
            Some(n) => Some(n),
            None => {
                let kind = IrErrorKind::InvalidNumber {
                    element,
                    attribute: a.name.to_string(),
                    value: a.value.to_string(),
                    expected: "an unsigned integer",
                };
                let layer = self.current_layer();
                self.diags.push(Diagnostic::at(kind, a.span).with_layer(layer));
                None
            }
        }
    }

    fn current_layer(&self) -> Option<LayerRef> {
        self.stack.iter().rev().find_map(|o| match o {
            Open::Layer(l) => Some(l.layer_ref()),
            _ => None,
        })?
    }

    fn read_port(&mut self, e: &BytesStart<'_>, span: Span) -> Result<PortDraft, Fatal> {
        let attrs = self.attributes(e)?;
        let id = match find(&attrs, "id") {
            Some(a) => self.number("port", a),
            None => {
                let kind = IrErrorKind::MissingAttribute { element: "port", attribute: "id" };
                let layer = self.current_layer();
                self.diags.push(Diagnostic::at(kind, span).with_layer(layer));
                None
            }
        };
        let precision = match find(&attrs, "precision") {
            Some(a) => {
                let ty = ElementType::from_precision(&a.value);
                if ty.is_none() {
                    let kind = IrErrorKind::UnknownElementType {
                        attribute: "precision".to_string(),
                        value: a.value.to_string(),
                    };
                    let layer = self.current_layer();
                    self.diags.push(Diagnostic::at(kind, a.span).with_layer(layer));
                }
                ty
            }
            None => None,
        };
        let names = find(&attrs, "names").map(|a| split_names(&a.value)).unwrap_or_default();
        Ok(PortDraft { id, precision, names, dims: Vec::new(), rt_info: RtInfo::default(), span })
    }

    fn parse_dim(&mut self, text: &str, span: Span) -> Option<Dim> {
        let t = text.trim();
        let kind = match t.parse::<i64>() {
            Ok(-1) => return Some(Dim::DYNAMIC),
            Ok(n) if n >= 0 => return u64::try_from(n).ok().map(Dim::fixed),
            Ok(value) => IrErrorKind::DimBelowMinusOne { value },
            // Sizes beyond i64 are still sizes.
            Err(_) if t.parse::<u64>().is_ok() => return t.parse::<u64>().ok().map(Dim::fixed),
            // Some writers put interval or `?` dimensions in ports.
            Err(_) if t.contains("..") || t == "?" => match t.parse::<Dim>() {
                Ok(d) => return Some(d),
                Err(reason) => IrErrorKind::BadShape { attribute: "dim".to_string(), reason },
            },
            Err(_) => IrErrorKind::InvalidNumber {
                element: "port",
                attribute: "dim".to_string(),
                value: t.to_string(),
                expected: "an integer of -1 or more",
            },
        };
        let layer = self.current_layer();
        self.diags.push(Diagnostic::at(kind, span).with_layer(layer));
        None
    }

    fn finish_port(&mut self, draft: PortDraft) {
        let Some(id) = draft.id else { return };
        let port = Port {
            id,
            precision: draft.precision,
            names: draft.names,
            shape: PartialShape::new(draft.dims),
            rt_info: draft.rt_info,
            span: draft.span,
        };
        self.push_port(port);
    }

    /// Adds a finished port to the layer that holds its `<input>` or
    /// `<output>`.
    fn push_port(&mut self, port: Port) {
        let text = self.text;
        let split = self.stack.len().saturating_sub(1);
        let (head, tail) = self.stack.split_at_mut(split);
        let (Some(Open::Layer(layer)), Some(Open::Ports { output })) = (head.last_mut(), tail.first()) else {
            return;
        };
        let (list, ids, direction) = if *output {
            (&mut layer.outputs, &mut layer.output_ids, "output")
        } else {
            (&mut layer.inputs, &mut layer.input_ids, "input")
        };
        if let Some(first) = ids.get(&port.id).and_then(|&i| list.get(i)) {
            let first_line =
                self.lines.get_or_init(|| LineIndex::new(text)).line_col(text, first.span.start).line;
            let kind = IrErrorKind::DuplicatePortId { direction, id: port.id, first_line };
            let layer_ref = layer.layer_ref();
            self.diags.push(Diagnostic::at(kind, port.span).with_layer(layer_ref));
            return;
        }
        ids.insert(port.id, list.len());
        list.push(port);
    }

    fn finish_layer(&mut self, draft: LayerDraft) {
        let Some(id) = draft.id else { return };
        self.layers.push(Layer {
            id,
            name: draft.name,
            op_type: draft.op_type,
            version: draft.version,
            attrs: Attributes(draft.attrs),
            inputs: draft.inputs,
            outputs: draft.outputs,
            rt_info: draft.rt_info,
            output_names: draft.output_names,
            span: draft.span,
            constant: None,
        });
    }

    fn read_edge(&mut self, e: &BytesStart<'_>, span: Span) -> Result<(), Fatal> {
        let attrs = self.attributes(e)?;
        let mut values = [0u64; 4];
        let mut ok = true;
        for (slot, name) in values.iter_mut().zip(["from-layer", "from-port", "to-layer", "to-port"]) {
            match find(&attrs, name) {
                Some(a) => match self.number("edge", a) {
                    Some(n) => *slot = n,
                    None => ok = false,
                },
                None => {
                    ok = false;
                    let kind = IrErrorKind::MissingAttribute { element: "edge", attribute: name };
                    self.diags.push(Diagnostic::at(kind, span));
                }
            }
        }
        if ok {
            let [from_layer, from_port, to_layer, to_port] = values;
            self.edges.push(Edge { from_layer, from_port, to_layer, to_port, span });
        }
        Ok(())
    }

    fn rt_node(&self, e: &BytesStart<'_>, tag: &[u8]) -> Result<RtNode, Fatal> {
        let attrs = self.attributes(e)?;
        Ok(RtNode {
            tag: String::from_utf8_lossy(tag).into_owned(),
            attrs: attrs.into_iter().map(|a| (a.name.to_string(), a.value.into_owned())).collect(),
            children: Vec::new(),
        })
    }
}

fn find<'a, 'e>(attrs: &'a [RawAttr<'e>], name: &str) -> Option<&'a RawAttr<'e>> {
    attrs.iter().find(|a| a.name == name)
}

/// An unsigned decimal integer, spaces around it allowed, no sign.
pub(crate) fn parse_u64(text: &str) -> Option<u64> {
    // The untrimmed attempt first: it is the common case, and trimming is
    // comparatively slow in unoptimised builds.
    let t = match text.parse::<u64>() {
        Ok(n) => return (!text.starts_with('+')).then_some(n),
        Err(_) => text.trim(),
    };
    if t.starts_with('+') {
        return None;
    }
    t.parse::<u64>().ok()
}

fn to_usize(pos: u64) -> usize {
    usize::try_from(pos).unwrap_or(usize::MAX)
}
