//! `ovir info`: describe a model for a person, as JSON, or as DOT.
//!
//! Any IR that can be read is described, even one ovir cannot run: the
//! layers with their attributes and declared ports, the edges, the facts
//! inferred wherever inference succeeded, the layers no op handles, and
//! every problem found.
//!
//! The JSON form is [`Description`] as `serde_json` writes it; its schema
//! is `docs/info.schema.json` (a JSON Schema), described in
//! `docs/info-json.md`, and [`SCHEMA_VERSION`] numbers it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use ovir::ir::{LayerRef, Model as Graph, SourceFile, MAX_REPORTED};
use ovir::shape::{Op, PartialInfo};
use ovir::{Core, Error, Model, PortFact, PortInfo};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::args::InfoArgs;
use crate::{CliError, Outcome};

/// The version of the JSON that `ovir info --json` writes, its
/// `schema_version`: raised whenever a field changes meaning or goes
/// away (new fields may come without it).
pub const SCHEMA_VERSION: u32 = 1;

/// Everything `ovir info` reports.
#[derive(Debug, Serialize)]
pub struct Description {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The `<net name>`.
    pub name: String,
    /// The IR version.
    pub ir_version: u32,
    /// The model's inputs.
    pub inputs: Vec<PortInfo>,
    /// The model's outputs.
    pub outputs: Vec<PortInfo>,
    /// How many layers of each `type` and `version` there are.
    pub op_counts: Vec<OpCount>,
    /// Every layer, in file order.
    pub layers: Vec<LayerDescription>,
    /// Every edge, in file order.
    pub edges: Vec<EdgeDescription>,
    /// Every problem that keeps the model from running, in file order;
    /// empty for a valid model. At most [`MAX_REPORTED`] are listed.
    pub problems: Vec<Problem>,
    /// How many more problems were found than `problems` lists.
    pub problems_omitted: usize,
    /// Every port whose declared dims or precision disagree with what was
    /// inferred; the model still runs as inferred.
    pub warnings: Vec<Problem>,
}

/// A problem or a warning: where it is in the XML, the layer it concerns,
/// what kind it is, and what it says. Its text form is
/// `file:line:column: message [layer]`.
#[derive(Debug)]
pub struct Problem {
    /// The XML file.
    pub file: String,
    /// The 1-based line and column of the attribute or port at fault, or
    /// else of the layer's start tag; `None` when it has no place.
    pub at: Option<(usize, usize)>,
    /// The layer it concerns.
    pub layer: Option<LayerRef>,
    /// Its kind, the same for every problem of that kind: the name of the
    /// error variant (`RankMismatch`, `PortShapeMismatch`).
    pub code: String,
    /// What it says.
    pub message: String,
}

impl Problem {
    fn new(
        file: &SourceFile,
        offset: Option<usize>,
        layer: Option<LayerRef>,
        code: String,
        message: String,
    ) -> Self {
        let at = offset.map(|o| file.line_col(o)).map(|lc| (lc.line, lc.column));
        Problem { file: file.display_name(), at, layer, code, message }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some((line, column)) = self.at {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(layer) = &self.layer {
            write!(f, " [{layer}]")?;
        }
        Ok(())
    }
}

/// `{file, line, column, layer: {id, name, op} | null, code, message}`.
impl Serialize for Problem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Layer<'a>(&'a LayerRef);
        impl Serialize for Layer<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut map = s.serialize_map(Some(3))?;
                map.serialize_entry("id", &self.0.id)?;
                map.serialize_entry("name", &self.0.name)?;
                map.serialize_entry("op", &self.0.op_type)?;
                map.end()
            }
        }
        let mut map = s.serialize_map(Some(6))?;
        map.serialize_entry("file", &self.file)?;
        map.serialize_entry("line", &self.at.map(|a| a.0))?;
        map.serialize_entry("column", &self.at.map(|a| a.1))?;
        map.serialize_entry("layer", &self.layer.as_ref().map(Layer))?;
        map.serialize_entry("code", &self.code)?;
        map.serialize_entry("message", &self.message)?;
        map.end()
    }
}

/// The name of the enum variant a value's `Debug` starts with: the
/// problem's code.
fn variant_name(debug: &str) -> String {
    debug.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

/// The number of layers of one type and opset.
#[derive(Debug, Serialize)]
pub struct OpCount {
    /// The layer type, as OpenVINO spells it.
    pub op: String,
    /// The opset.
    pub version: String,
    /// How many layers.
    pub count: usize,
    /// Whether ovir (or a registered extension) handles these layers.
    pub supported: bool,
}

/// One layer: what the file declares, and what was inferred.
#[derive(Debug, Serialize)]
pub struct LayerDescription {
    /// The layer's id.
    pub id: u64,
    /// The layer's name.
    pub name: String,
    /// The layer's type.
    pub op: String,
    /// The layer's opset.
    pub version: String,
    /// Whether an op handles the layer: `false` for an operation ovir
    /// does not know and for a layer refused for its attributes or ports.
    pub supported: bool,
    /// The `<data>` attributes, in file order.
    pub attributes: Attributes,
    /// The layer ids feeding each input, as `id:port`.
    pub inputs: Vec<String>,
    /// Each input port as the file declares it.
    pub input_ports: Vec<DeclaredPort>,
    /// Each output port's inferred element type and shape; empty when the
    /// layer was refused.
    pub outputs: Vec<OutputFact>,
    /// Each output port as the file declares it.
    pub output_ports: Vec<DeclaredPort>,
}

/// A port as the file declares it.
#[derive(Debug, Serialize)]
pub struct DeclaredPort {
    /// The port's id.
    pub id: u64,
    /// The `precision` attribute, when present.
    pub precision: Option<ovir::ElementType>,
    /// The shape from the `<dim>`s.
    pub shape: ovir::PartialShape,
    /// The tensor names.
    pub names: Vec<String>,
}

/// A layer's `<data>` attributes, in file order; a JSON object.
#[derive(Debug, Default)]
pub struct Attributes(pub Vec<(String, String)>);

impl Serialize for Attributes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// The inferred type and shape of one output port.
#[derive(Debug, Serialize)]
pub struct OutputFact {
    /// The port's element type.
    pub element_type: ovir::ElementType,
    /// The port's partial shape.
    pub shape: ovir::PartialShape,
    /// Whether the value is known before the model runs (a constant).
    pub constant: bool,
}

/// One edge, with what is known of the tensor it carries.
#[derive(Debug, Serialize)]
pub struct EdgeDescription {
    /// The producing layer's id.
    pub from_layer: u64,
    /// The producing port's id.
    pub from_port: u64,
    /// The consuming layer's id.
    pub to_layer: u64,
    /// The consuming port's id.
    pub to_port: u64,
    /// The tensor's element type: inferred, or else declared.
    pub element_type: ovir::ElementType,
    /// The tensor's shape: inferred, or else declared.
    pub shape: ovir::PartialShape,
}

/// Collects the description of a validated model.
pub fn describe(model: &Model) -> Description {
    let info = model.info();
    let ops: Vec<Option<Op>> = info.ops.iter().cloned().map(Some).collect();
    let partial = PartialInfo { ops, outputs: info.outputs.clone(), errors: Vec::new(), broken: None };
    describe_graph(model.ir(), &partial, Vec::new(), 0)
}

/// Collects the description of a graph that may not be valid, from what
/// [`ovir::shape::analyze_partial`] learnt of it, with its problems.
pub fn describe_graph(
    ir: &Graph,
    partial: &PartialInfo,
    problems: Vec<Problem>,
    problems_omitted: usize,
) -> Description {
    let supported = |i: usize| partial.ops.get(i).is_some_and(Option::is_some);
    let mut counts: BTreeMap<(String, String), (usize, bool)> = BTreeMap::new();
    for (i, layer) in ir.layers.iter().enumerate() {
        let entry = counts.entry((layer.op_type.clone(), layer.version.clone())).or_insert((0, true));
        entry.0 += 1;
        entry.1 &= supported(i);
    }
    let declared = |p: &ovir::ir::Port| DeclaredPort {
        id: p.id,
        precision: p.precision,
        shape: p.shape.clone(),
        names: p.names.clone(),
    };
    let layers = ir
        .layers
        .iter()
        .enumerate()
        .map(|(i, layer)| LayerDescription {
            id: layer.id,
            name: layer.name.clone(),
            op: layer.op_type.clone(),
            version: layer.version.clone(),
            supported: supported(i),
            attributes: Attributes(layer.attrs.0.iter().map(|a| (a.name.clone(), a.value.clone())).collect()),
            inputs: ir
                .sources
                .get(i)
                .map(|s| {
                    s.iter()
                        .map(|r| {
                            let producer = ir.layer(r.layer);
                            let port = producer.outputs.get(r.port).map_or(0, |p| p.id);
                            format!("{}:{}", producer.id, port)
                        })
                        .collect()
                })
                .unwrap_or_default(),
            input_ports: layer.inputs.iter().map(declared).collect(),
            outputs: match supported(i) {
                true => partial.outputs.get(i).map(|facts| facts.iter().map(output_fact).collect()),
                false => None,
            }
            .unwrap_or_default(),
            output_ports: layer.outputs.iter().map(declared).collect(),
        })
        .collect();
    let edges = ir
        .sources
        .iter()
        .enumerate()
        .flat_map(|(i, sources)| sources.iter().enumerate().map(move |(input, r)| (i, input, *r)))
        .filter_map(|(i, input, r)| {
            let consumer = ir.layers.get(i)?;
            let producer = ir.layers.get(r.layer.0)?;
            let port = producer.outputs.get(r.port)?;
            let fact =
                partial.outputs.get(r.layer.0).and_then(|f| f.get(r.port)).filter(|_| supported(r.layer.0));
            Some(EdgeDescription {
                from_layer: producer.id,
                from_port: port.id,
                to_layer: consumer.id,
                to_port: consumer.inputs.get(input).map_or(input as u64, |p| p.id),
                element_type: fact
                    .map_or(port.precision.unwrap_or(ovir::ElementType::Dynamic), |f| f.element_type),
                shape: fact.map_or_else(|| port.shape.clone(), |f| f.shape.clone()),
            })
        })
        .collect();
    Description {
        schema_version: SCHEMA_VERSION,
        name: ir.name.clone(),
        ir_version: ir.version,
        inputs: PortInfo::inputs_of(ir, &partial.outputs),
        outputs: PortInfo::outputs_of(ir, &partial.outputs),
        op_counts: counts
            .into_iter()
            .map(|((op, version), (count, supported))| OpCount { op, version, count, supported })
            .collect(),
        layers,
        edges,
        problems,
        problems_omitted,
        warnings: port_warnings(ir, &partial.outputs),
    }
}

/// The port warnings of a graph, each at its port.
fn port_warnings(ir: &Graph, facts: &[Vec<PortFact>]) -> Vec<Problem> {
    ovir::shape::port_warnings(ir, facts)
        .iter()
        .filter_map(|w| {
            let layer = ir.layers.get(w.layer.0)?;
            let ports = match w.side {
                ovir::shape::PortSide::Input => &layer.inputs,
                ovir::shape::PortSide::Output => &layer.outputs,
            };
            let offset = ports.get(w.position).map_or(layer.span, |p| p.span).start;
            let code = format!("Port{}Mismatch", variant_name(&format!("{:?}", w.mismatch)));
            Some(Problem::new(&ir.source, Some(offset), Some(layer.layer_ref()), code, w.to_string()))
        })
        .collect()
}

/// The problems of an invalid model, each at the attribute at fault or
/// else at its layer's start tag, and how many more there are.
fn shape_problems(
    file: &SourceFile,
    ir: &Graph,
    errors: &[ovir::shape::ShapeError],
) -> (Vec<Problem>, usize) {
    let problems = errors
        .iter()
        .take(MAX_REPORTED)
        .map(|e| {
            let layer = ir.layers.get(e.layer.0);
            let offset = layer.map(|l| {
                let attribute = e.attribute.as_deref().and_then(|a| l.attrs.get(a));
                attribute.map_or(l.span, |a| a.span).start
            });
            let code = variant_name(&format!("{:?}", e.kind));
            Problem::new(file, offset, layer.map(|l| l.layer_ref()), code, e.kind.to_string())
        })
        .collect();
    (problems, errors.len().saturating_sub(MAX_REPORTED))
}

fn output_fact(f: &PortFact) -> OutputFact {
    OutputFact { element_type: f.element_type, shape: f.shape.clone(), constant: f.value.is_some() }
}

fn port_line(p: &PortInfo) -> String {
    let aliases = p.names.get(1..).filter(|a| !a.is_empty()).map(|a| format!("  (also: {})", a.join(", ")));
    format!("  {:<20} {:<8} {}{}", p.name(), p.element_type.to_string(), p.shape, aliases.unwrap_or_default())
}

fn declared_text(direction: &str, p: &DeclaredPort) -> String {
    let ty = p.precision.map_or_else(|| "?".to_string(), |t| t.to_string());
    let names = if p.names.is_empty() { String::new() } else { format!(" \"{}\"", p.names.join("\", \"")) };
    format!("{direction} {}: {ty} {}{names}", p.id, p.shape)
}

/// Writes the description as text for a person.
pub fn write_text(d: &Description, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "model: {} (IR version {})", d.name, d.ir_version)?;
    for (title, ports) in [("inputs", &d.inputs), ("outputs", &d.outputs)] {
        if ports.is_empty() {
            writeln!(out, "{title}: none")?;
            continue;
        }
        writeln!(out, "{title}:")?;
        for p in ports {
            writeln!(out, "{}", port_line(p))?;
        }
    }
    writeln!(out, "ops:")?;
    for c in &d.op_counts {
        let mark = if c.supported { "" } else { "  (not supported)" };
        writeln!(out, "  {:<20} {:<8} {}{mark}", c.op, c.version, c.count)?;
    }
    writeln!(out, "layers:")?;
    for l in &d.layers {
        let outs: Vec<String> = l
            .outputs
            .iter()
            .map(|o| format!("{}{}{}", o.element_type, o.shape, if o.constant { " const" } else { "" }))
            .collect();
        let ins = if l.inputs.is_empty() { String::new() } else { format!(" <- {}", l.inputs.join(", ")) };
        let result = match (l.supported, outs.is_empty()) {
            (false, _) => "  NOT SUPPORTED".to_string(),
            (true, true) => String::new(),
            (true, false) => format!(" -> {}", outs.join(", ")),
        };
        writeln!(out, "  {:>4} {} ({}/{}){ins}{result}", l.id, l.name, l.op, l.version)?;
        if !l.attributes.0.is_empty() {
            let attrs: Vec<String> = l.attributes.0.iter().map(|(n, v)| format!("{n}={v}")).collect();
            writeln!(out, "         data: {}", attrs.join(" "))?;
        }
        let ports: Vec<String> = (l.input_ports.iter().map(|p| declared_text("in", p)))
            .chain(l.output_ports.iter().map(|p| declared_text("out", p)))
            .collect();
        if !ports.is_empty() {
            writeln!(out, "         declared: {}", ports.join("; "))?;
        }
    }
    if !d.problems.is_empty() {
        writeln!(out, "problems:")?;
        for p in &d.problems {
            writeln!(out, "  {p}")?;
        }
        if d.problems_omitted > 0 {
            let file = d.problems.first().map_or("", |p| p.file.as_str());
            writeln!(out, "  {file}: {} more problems were found but are not shown", d.problems_omitted)?;
        }
    }
    if !d.warnings.is_empty() {
        writeln!(out, "warnings:")?;
        for w in &d.warnings {
            writeln!(out, "  {w}")?;
        }
    }
    Ok(())
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes the graph in Graphviz DOT: one node per layer (unsupported
/// ones drawn red and dashed), one edge per connection, labelled with the
/// tensor's type and shape.
pub fn write_dot(d: &Description, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "digraph \"{}\" {{", dot_escape(&d.name))?;
    writeln!(out, "  rankdir=TB;")?;
    writeln!(out, "  node [shape=box, fontname=\"monospace\"];")?;
    for layer in &d.layers {
        let shape = match layer.op.to_ascii_lowercase().as_str() {
            "parameter" | "result" => "ellipse",
            "const" | "constant" => "note",
            _ => "box",
        };
        let unsupported = if layer.supported { "" } else { ", color=red, style=dashed" };
        let note = if layer.supported { "" } else { "\\nnot supported" };
        writeln!(
            out,
            "  l{} [label=\"{}\\n{} ({}){note}\", shape={shape}{unsupported}];",
            layer.id,
            dot_escape(&layer.name),
            dot_escape(&layer.op),
            dot_escape(&layer.version)
        )?;
    }
    for e in &d.edges {
        writeln!(
            out,
            "  l{} -> l{} [label=\"{}{}\", headlabel=\"{}\"];",
            e.from_layer, e.to_layer, e.element_type, e.shape, e.to_port
        )?;
    }
    writeln!(out, "}}")
}

/// Reads and describes a model: validated when it is valid, and
/// otherwise as far as it can be understood, with its problems. Only a
/// file that cannot be read as IR at all is an error.
pub fn describe_file(xml: &Path, weights: Option<&Path>) -> Result<Description, Error> {
    match Model::read_with_weights(xml, weights) {
        Ok(model) => Ok(describe(&model)),
        Err(Error::Invalid { file, model: ir, errors }) => {
            let partial =
                ovir::shape::analyze_partial(&ir, &ovir::exec::ConstantEvaluator, Core::new().ops());
            let (problems, omitted) = shape_problems(&file, &ir, &errors);
            Ok(describe_graph(&ir, &partial, problems, omitted))
        }
        Err(error) => Err(error),
    }
}

/// Runs `ovir info`. A model with problems is described all the same,
/// its problems listed last, and the exit status is 0 whenever the file
/// could be read: `ovir check` is what judges a model.
pub fn run(args: &InfoArgs, out: &mut impl Write) -> Result<Outcome, CliError> {
    let d = describe_file(&args.model.model, args.model.weights.as_deref())?;
    let io = |e: std::io::Error| CliError::Other(e.into());
    if args.dot {
        write_dot(&d, out).map_err(io)?;
    } else if args.json {
        let text = serde_json::to_string_pretty(&d).map_err(|e| CliError::Other(e.into()))?;
        writeln!(out, "{text}").map_err(io)?;
    } else {
        write_text(&d, out).map_err(io)?;
    }
    Ok(Outcome::Success)
}
