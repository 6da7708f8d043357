//! `Model::check_references` on models broken by hand: each kind of bad
//! reference gives its own error, naming the layer, and never a panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use ovir_ir::{
    read_model_from_memory, Attributes, Edge, IrErrorKind, Layer, LayerIdx, LayerRef, Model, OutputRef, Port,
    ReadError, RtInfo, SourceFile, Span, Weights, MAX_REPORTED,
};
use ovir_tensor::{PartialShape, Tensor};

/// x (Parameter, id 0) and c (Const, id 1) feed sum (Add, id 2), which
/// feeds r (Relu, id 3), which feeds y (Result, id 4).
const XML: &str = r#"<?xml version="1.0"?>
<net name="m" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="2" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>2</dim></port></output>
    </layer>
    <layer id="1" name="c" type="Const" version="opset1">
      <data element_type="f32" shape="2" offset="0" size="8"/>
      <output><port id="0" precision="FP32"><dim>2</dim></port></output>
    </layer>
    <layer id="2" name="sum" type="Add" version="opset1">
      <input><port id="0"><dim>2</dim></port><port id="1"><dim>2</dim></port></input>
      <output><port id="2" precision="FP32"><dim>2</dim></port></output>
    </layer>
    <layer id="3" name="r" type="Relu" version="opset1">
      <input><port id="0"><dim>2</dim></port></input>
      <output><port id="1" precision="FP32"><dim>2</dim></port></output>
    </layer>
    <layer id="4" name="y" type="Result" version="opset1">
      <input><port id="0"><dim>2</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
    <edge from-layer="3" from-port="1" to-layer="4" to-port="0"/>
  </edges>
</net>
"#;

const X: LayerIdx = LayerIdx(0);
const C: LayerIdx = LayerIdx(1);
const SUM: LayerIdx = LayerIdx(2);
const R: LayerIdx = LayerIdx(3);
const Y: LayerIdx = LayerIdx(4);

fn model() -> Model {
    let bin: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    read_model_from_memory(XML, Some(Arc::new(Weights::from_bytes(bin)))).unwrap()
}

fn layer_ref(id: u64, name: &str, op_type: &str) -> Option<LayerRef> {
    Some(LayerRef::new(id, name, op_type))
}

/// Breaks the model with `edit`, and checks that the reference check finds
/// exactly one problem: of a kind matching `kind`, about `layer`, at the
/// layer's line of the XML when there is a layer, and saying `words`.
/// (Layer names are unique in [`XML`], ids need not stay so.)
fn one_problem(
    edit: impl FnOnce(&mut Model),
    kind: impl Fn(&IrErrorKind) -> bool,
    layer: Option<LayerRef>,
    words: &str,
) {
    let mut m = model();
    edit(&mut m);
    let err = m.check_references().unwrap_err();
    assert_eq!(err.diagnostics.len(), 1, "{err}");
    let d = &err.diagnostics[0];
    assert!(kind(&d.kind), "unexpected kind: {:?}", d.kind);
    assert_eq!(d.layer, layer, "{err}");
    let text = err.to_string();
    assert!(text.contains(words), "{text:?} does not say {words:?}");
    if let Some(layer) = &layer {
        let line = XML.lines().position(|l| l.contains(&format!("name=\"{}\"", layer.name))).unwrap() + 1;
        assert!(text.starts_with(&format!("<memory>:{line}:5: ")), "{text}");
        assert!(text.ends_with(&format!(" [{layer}]")), "{text}");
    }
}

#[test]
fn a_model_from_the_reader_passes() {
    model().check_references().unwrap();
}

#[test]
fn sources_without_a_list_for_every_layer() {
    one_problem(
        |m| {
            m.sources.pop();
        },
        |k| matches!(k, IrErrorKind::SourceListCount { layers: 5, lists: 4 }),
        None,
        "the model has 5 layers, but `sources` holds 4 lists; it needs one list per layer",
    );
}

#[test]
fn a_layer_with_fewer_sources_than_inputs() {
    one_problem(
        |m| {
            m.sources[SUM.0].pop();
        },
        |k| matches!(k, IrErrorKind::SourceCount { inputs: 2, sources: 1 }),
        layer_ref(2, "sum", "Add"),
        "the layer has 2 input ports, but 1 sources in `sources`",
    );
}

#[test]
fn a_layer_with_more_sources_than_inputs() {
    one_problem(
        |m| m.sources[R.0].push(OutputRef { layer: X, port: 0 }),
        |k| matches!(k, IrErrorKind::SourceCount { inputs: 1, sources: 2 }),
        layer_ref(3, "r", "Relu"),
        "it needs one source per input",
    );
}

#[test]
fn a_source_naming_a_missing_layer() {
    one_problem(
        |m| m.sources[SUM.0][1] = OutputRef { layer: LayerIdx(99), port: 0 },
        |k| matches!(k, IrErrorKind::SourceLayerOutOfRange { input: 1, index: 99, layers: 5 }),
        layer_ref(2, "sum", "Add"),
        "input 1 is fed by layer index 99, but the model has only 5 layers",
    );
}

#[test]
fn a_source_naming_a_missing_output() {
    one_problem(
        |m| m.sources[R.0][0] = OutputRef { layer: SUM, port: 1 },
        |k| matches!(k, IrErrorKind::SourcePortOutOfRange { input: 0, port: 1, outputs: 1, .. }),
        layer_ref(3, "r", "Relu"),
        "input 0 is fed by output 1 of layer 2 \"sum\" (Add), which has only 1 outputs",
    );
}

#[test]
fn a_result_fed_from_a_layer_without_outputs() {
    one_problem(
        |m| m.sources[Y.0][0] = OutputRef { layer: Y, port: 0 },
        |k| matches!(k, IrErrorKind::SourcePortOutOfRange { outputs: 0, .. }),
        layer_ref(4, "y", "Result"),
        "which has only 0 outputs",
    );
}

#[test]
fn an_order_naming_a_missing_layer() {
    one_problem(
        |m| m.order.push(LayerIdx(7)),
        |k| matches!(k, IrErrorKind::OrderOutOfRange { position: 5, index: 7, layers: 5 }),
        None,
        "`order[5]` is layer index 7, but the model has only 5 layers",
    );
}

#[test]
fn an_order_listing_a_layer_twice() {
    one_problem(
        |m| m.order.push(R),
        |k| matches!(k, IrErrorKind::OrderRepeats { first: 3, second: 5 }),
        layer_ref(3, "r", "Relu"),
        "`order` lists the layer twice, at positions 3 and 5",
    );
}

#[test]
fn an_order_leaving_a_layer_out() {
    one_problem(
        |m| m.order.retain(|&i| i != C),
        |k| matches!(k, IrErrorKind::NotInOrder),
        layer_ref(1, "c", "Const"),
        "`order` leaves the layer out",
    );
}

#[test]
fn an_order_listing_a_consumer_before_its_producer() {
    one_problem(
        |m| m.order = vec![X, C, R, SUM, Y],
        |k| matches!(k, IrErrorKind::OrderNotTopological { input: 0, producer } if producer.name == "sum"),
        layer_ref(3, "r", "Relu"),
        "input 0 is fed by layer 2 \"sum\" (Add), which `order` does not list before this layer",
    );
}

#[test]
fn a_layer_feeding_itself() {
    one_problem(
        |m| m.sources[R.0][0] = OutputRef { layer: R, port: 0 },
        |k| matches!(k, IrErrorKind::OrderNotTopological { input: 0, producer } if producer.id == 3),
        layer_ref(3, "r", "Relu"),
        "input 0 is fed by layer 3 \"r\" (Relu)",
    );
}

#[test]
fn a_cycle_through_two_layers() {
    // sum now takes r's output, and r takes sum's: whatever the order, one
    // of the two comes first.
    let mut m = model();
    m.sources[SUM.0][0] = OutputRef { layer: R, port: 0 };
    let err = m.check_references().unwrap_err();
    assert_eq!(err.diagnostics.len(), 1, "{err}");
    assert!(
        matches!(&err.diagnostics[0].kind, IrErrorKind::OrderNotTopological { producer, .. } if producer.id == 3)
    );
}

#[test]
fn a_const_without_its_value() {
    one_problem(
        |m| m.layers[C.0].constant = None,
        |k| matches!(k, IrErrorKind::ConstWithoutValue),
        layer_ref(1, "c", "Const"),
        "the Const layer has no value",
    );
}

#[test]
fn two_layers_with_one_id() {
    one_problem(
        |m| m.layers[R.0].id = 2,
        |k| matches!(k, IrErrorKind::LayerIdReused { id: 2, first } if first.name == "sum"),
        layer_ref(2, "r", "Relu"),
        "layer id 2 is also the id of layer 2 \"sum\" (Add); layer ids must be unique",
    );
}

#[test]
fn an_input_fed_in_sources_but_by_no_edge() {
    one_problem(
        |m| {
            m.edges.remove(1);
        },
        |k| matches!(k, IrErrorKind::SourceWithoutEdge { input: 1, from_layer: 1, from_port: 0, to_port: 1 }),
        layer_ref(2, "sum", "Add"),
        "input 1 (port 1) is fed by output port 0 of layer 1 in `sources`, but no edge in `edges` joins them",
    );
}

#[test]
fn an_edge_that_sources_do_not_have() {
    let mut m = model();
    let extra = m.edges[0];
    m.edges.push(extra);
    let err = m.check_references().unwrap_err();
    assert_eq!(err.diagnostics.len(), 1, "{err}");
    assert!(matches!(
        err.diagnostics[0].kind,
        IrErrorKind::EdgeWithoutSource { from_layer: 0, from_port: 0, to_layer: 2, to_port: 0 }
    ));
    // The edge is placed at its own line of the XML.
    let line = XML.lines().position(|l| l.contains("<edge from-layer=\"0\"")).unwrap() + 1;
    assert!(
        err.to_string().starts_with(&format!("<memory>:{line}:5: edge 0:0 -> 2:0 (layer:port ids)")),
        "{err}"
    );
}

#[test]
fn an_edge_and_a_source_that_disagree() {
    let mut m = model();
    m.sources[R.0][0] = OutputRef { layer: X, port: 0 };
    let err = m.check_references().unwrap_err();
    let kinds: Vec<&IrErrorKind> = err.diagnostics.iter().map(|d| &d.kind).collect();
    assert!(
        matches!(
            kinds[..],
            [
                IrErrorKind::SourceWithoutEdge { input: 0, from_layer: 0, .. },
                IrErrorKind::EdgeWithoutSource { from_layer: 2, to_layer: 3, .. }
            ]
        ),
        "{err}"
    );
}

#[test]
fn edges_match_input_ports_by_id_whatever_their_numbering() {
    // sum's inputs are ports 7 and 4, in that order.
    let xml = XML
        .replace(
            r#"<port id="0"><dim>2</dim></port><port id="1"><dim>2</dim></port>"#,
            r#"<port id="7"><dim>2</dim></port><port id="4"><dim>2</dim></port>"#,
        )
        .replace(r#"to-layer="2" to-port="0""#, r#"to-layer="2" to-port="7""#)
        .replace(r#"to-layer="2" to-port="1""#, r#"to-layer="2" to-port="4""#);
    let bin: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut m = read_model_from_memory(&xml, Some(Arc::new(Weights::from_bytes(bin)))).unwrap();
    m.check_references().unwrap();
    // Swapping the two sources leaves both edges joining the wrong outputs.
    m.sources[SUM.0].swap(0, 1);
    let err = m.check_references().unwrap_err();
    let kinds: Vec<&IrErrorKind> = err.diagnostics.iter().map(|d| &d.kind).collect();
    assert!(
        matches!(
            kinds[..],
            [
                IrErrorKind::SourceWithoutEdge { input: 0, from_layer: 1, to_port: 7, .. },
                IrErrorKind::SourceWithoutEdge { input: 1, from_layer: 0, to_port: 4, .. },
                IrErrorKind::EdgeWithoutSource { from_layer: 0, to_port: 7, .. },
                IrErrorKind::EdgeWithoutSource { from_layer: 1, to_port: 4, .. },
            ]
        ),
        "{err}"
    );
}

#[test]
fn problems_beyond_the_limit_are_counted() {
    let mut m = model();
    for _ in 0..300 {
        m.order.push(LayerIdx(1000));
    }
    let err = m.check_references().unwrap_err();
    assert_eq!(err.diagnostics.len(), MAX_REPORTED);
    assert_eq!(err.problem_count(), 300);
    assert!(err.to_string().ends_with("200 more problems were found but are not shown"), "{err}");
}

/// A layer as code builds it: no place in any XML.
fn layer(id: u64, op_type: &str, inputs: u64, outputs: u64) -> Layer {
    let port = |id| Port {
        id,
        precision: None,
        names: Vec::new(),
        shape: PartialShape::dynamic(),
        rt_info: RtInfo::default(),
        span: Span::default(),
    };
    Layer {
        id,
        name: format!("{}{id}", op_type.to_lowercase()),
        op_type: op_type.to_string(),
        version: "opset1".to_string(),
        attrs: Attributes::default(),
        inputs: (0..inputs).map(port).collect(),
        outputs: (inputs..inputs + outputs).map(port).collect(),
        rt_info: RtInfo::default(),
        output_names: None,
        span: Span::default(),
        constant: None,
    }
}

/// Constant (id 7) -> Result (id 9), built in code.
fn built() -> Model {
    let mut c = layer(7, "Constant", 0, 1);
    c.constant = Some(Tensor::from_vec(&[1], vec![5i32]).unwrap());
    let edge = Edge { from_layer: 7, from_port: 0, to_layer: 9, to_port: 0, span: Span::default() };
    Model {
        name: "built".to_string(),
        version: 11,
        layers: vec![c, layer(9, "Result", 1, 0)],
        edges: vec![edge],
        rt_info: RtInfo::default(),
        source: Arc::new(SourceFile { path: None, text: String::new() }),
        sources: vec![vec![], vec![OutputRef { layer: LayerIdx(0), port: 0 }]],
        order: vec![LayerIdx(0), LayerIdx(1)],
    }
}

#[test]
fn a_model_built_in_code_is_checked_without_places() {
    built().check_references().unwrap();

    let mut m = built();
    m.layers[0].constant = None;
    let err: ReadError = m.check_references().unwrap_err();
    assert_eq!(
        err.to_string(),
        "<memory>: the Const layer has no value: `constant` is None, but every Const needs its value \
         [layer 7 \"constant7\" (Constant)]"
    );
    let rendered = err.render(false);
    assert!(rendered.contains("= note: layer 7 \"constant7\" (Constant)"), "{rendered}");

    let mut m = built();
    m.order = vec![LayerIdx(1), LayerIdx(0)];
    m.sources[1][0].port = 3;
    let err = m.check_references().unwrap_err();
    assert_eq!(err.diagnostics.len(), 1, "{err}");
    assert!(matches!(err.diagnostics[0].kind, IrErrorKind::SourcePortOutOfRange { port: 3, .. }), "{err}");
}

#[test]
fn an_empty_model_passes() {
    let mut m = built();
    m.layers.clear();
    m.edges.clear();
    m.sources.clear();
    m.order.clear();
    m.check_references().unwrap();
}
