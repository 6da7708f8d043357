//! `ovir info`: describe a model for a person, as JSON, or as DOT.

use std::collections::BTreeMap;
use std::io::Write;

use ovir::{Model, PortInfo};
use serde::Serialize;

use crate::args::InfoArgs;
use crate::{CliError, Outcome};

/// Everything `ovir info` reports.
#[derive(Debug, Serialize)]
pub struct Description {
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
}

/// One layer and its inferred outputs.
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
    /// The layer ids feeding each input, as `id:port`.
    pub inputs: Vec<String>,
    /// Each output port's inferred element type and shape.
    pub outputs: Vec<OutputFact>,
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

/// Collects the description of a validated model.
pub fn describe(model: &Model) -> Description {
    let ir = model.ir();
    let info = model.info();
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    for layer in &ir.layers {
        *counts.entry((layer.op_type.clone(), layer.version.clone())).or_default() += 1;
    }
    let layers = ir
        .layers
        .iter()
        .enumerate()
        .map(|(i, layer)| LayerDescription {
            id: layer.id,
            name: layer.name.clone(),
            op: layer.op_type.clone(),
            version: layer.version.clone(),
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
            outputs: info
                .outputs
                .get(i)
                .map(|facts| {
                    facts
                        .iter()
                        .map(|f| OutputFact {
                            element_type: f.element_type,
                            shape: f.shape.clone(),
                            constant: f.value.is_some(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    Description {
        name: ir.name.clone(),
        ir_version: ir.version,
        inputs: model.inputs(),
        outputs: model.outputs(),
        op_counts: counts.into_iter().map(|((op, version), count)| OpCount { op, version, count }).collect(),
        layers,
    }
}

fn port_line(p: &PortInfo) -> String {
    let aliases = p.names.get(1..).filter(|a| !a.is_empty()).map(|a| format!("  (also: {})", a.join(", ")));
    format!("  {:<20} {:<8} {}{}", p.name(), p.element_type.to_string(), p.shape, aliases.unwrap_or_default())
}

/// Writes the description as text for a person.
pub fn write_text(d: &Description, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "model: {} (IR version {})", d.name, d.ir_version)?;
    writeln!(out, "inputs:")?;
    for p in &d.inputs {
        writeln!(out, "{}", port_line(p))?;
    }
    writeln!(out, "outputs:")?;
    for p in &d.outputs {
        writeln!(out, "{}", port_line(p))?;
    }
    writeln!(out, "ops:")?;
    for c in &d.op_counts {
        writeln!(out, "  {:<20} {:<8} {}", c.op, c.version, c.count)?;
    }
    writeln!(out, "layers:")?;
    for l in &d.layers {
        let outs: Vec<String> = l
            .outputs
            .iter()
            .map(|o| format!("{}{}{}", o.element_type, o.shape, if o.constant { " const" } else { "" }))
            .collect();
        let ins = if l.inputs.is_empty() { String::new() } else { format!(" <- {}", l.inputs.join(", ")) };
        let result = if outs.is_empty() { String::new() } else { format!(" -> {}", outs.join(", ")) };
        writeln!(out, "  {:>4} {} ({}/{}){ins}{result}", l.id, l.name, l.op, l.version)?;
    }
    Ok(())
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes the graph in Graphviz DOT: one node per layer, one edge per
/// connection, labelled with the tensor's type and shape.
pub fn write_dot(model: &Model, out: &mut impl Write) -> std::io::Result<()> {
    let ir = model.ir();
    let info = model.info();
    writeln!(out, "digraph \"{}\" {{", dot_escape(&ir.name))?;
    writeln!(out, "  rankdir=TB;")?;
    writeln!(out, "  node [shape=box, fontname=\"monospace\"];")?;
    for layer in &ir.layers {
        let shape = match layer.op_type.to_ascii_lowercase().as_str() {
            "parameter" | "result" => "ellipse",
            "const" | "constant" => "note",
            _ => "box",
        };
        writeln!(
            out,
            "  l{} [label=\"{}\\n{} ({})\", shape={shape}];",
            layer.id,
            dot_escape(&layer.name),
            dot_escape(&layer.op_type),
            dot_escape(&layer.version)
        )?;
    }
    for (i, sources) in ir.sources.iter().enumerate() {
        let Some(consumer) = ir.layers.get(i) else { continue };
        for (port, r) in sources.iter().enumerate() {
            let producer = ir.layer(r.layer);
            let label = info.output(*r);
            writeln!(
                out,
                "  l{} -> l{} [label=\"{}{}\", headlabel=\"{port}\"];",
                producer.id, consumer.id, label.element_type, label.shape
            )?;
        }
    }
    writeln!(out, "}}")
}

/// Runs `ovir info`.
pub fn run(args: &InfoArgs, out: &mut impl Write) -> Result<Outcome, CliError> {
    let model = Model::read_with_weights(&args.model.model, args.model.weights.as_ref())?;
    let io = |e: std::io::Error| CliError::Other(e.into());
    if args.dot {
        write_dot(&model, out).map_err(io)?;
    } else if args.json {
        let text = serde_json::to_string_pretty(&describe(&model)).map_err(|e| CliError::Other(e.into()))?;
        writeln!(out, "{text}").map_err(io)?;
    } else {
        write_text(&describe(&model), out).map_err(io)?;
    }
    Ok(Outcome::Success)
}
