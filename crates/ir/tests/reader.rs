//! The reader on small IR files written in memory: what it accepts, and one
//! test per problem it reports (with the line it points at).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use ovir_ir::{
    read_model, read_model_from_bytes, read_model_from_memory, read_model_with, IrErrorKind, LayerIdx, Model,
    OutputRef, ReadError, Weights, WeightsAccess,
};
use ovir_tensor::{Dim, ElementType};

/// Recognises one kind of problem.
type KindCheck = fn(&IrErrorKind) -> bool;

/// A `<net>` around the given layers and edges.
fn net(version: u32, layers: &str, edges: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<net name=\"m\" version=\"{version}\">\n<layers>\n{layers}</layers>\n<edges>\n{edges}</edges>\n</net>\n"
    )
}

fn param(id: u64, name: &str) -> String {
    format!(
        "<layer id=\"{id}\" name=\"{name}\" type=\"Parameter\" version=\"opset1\">\n\
         <data shape=\"2,3\" element_type=\"f32\"/>\n\
         <output><port id=\"0\" precision=\"FP32\" names=\"{name}\"><dim>2</dim><dim>3</dim></port></output>\n\
         </layer>\n"
    )
}

fn relu(id: u64, name: &str) -> String {
    format!(
        "<layer id=\"{id}\" name=\"{name}\" type=\"Relu\" version=\"opset1\">\n\
         <input><port id=\"0\"><dim>2</dim><dim>3</dim></port></input>\n\
         <output><port id=\"1\" precision=\"FP32\"><dim>2</dim><dim>3</dim></port></output>\n\
         </layer>\n"
    )
}

fn result(id: u64, name: &str) -> String {
    format!(
        "<layer id=\"{id}\" name=\"{name}\" type=\"Result\" version=\"opset1\">\n\
         <input><port id=\"0\"><dim>2</dim><dim>3</dim></port></input>\n\
         </layer>\n"
    )
}

fn edge(from: u64, from_port: u64, to: u64, to_port: u64) -> String {
    format!(
        "<edge from-layer=\"{from}\" from-port=\"{from_port}\" to-layer=\"{to}\" to-port=\"{to_port}\"/>\n"
    )
}

fn constant(id: u64, ty: &str, shape: &str, offset: u64, size: u64) -> String {
    format!(
        "<layer id=\"{id}\" name=\"c{id}\" type=\"Const\" version=\"opset1\">\n\
         <data element_type=\"{ty}\" shape=\"{shape}\" offset=\"{offset}\" size=\"{size}\"/>\n\
         <output><port id=\"0\"/></output>\n\
         </layer>\n"
    )
}

/// Param 0 -> Relu 1 -> Result 2.
fn simple(version: u32) -> String {
    net(
        version,
        &format!("{}{}{}", param(0, "x"), relu(1, "r"), result(2, "out")),
        &format!("{}{}", edge(0, 0, 1, 0), edge(1, 1, 2, 0)),
    )
}

fn read(xml: &str) -> Result<Model, ReadError> {
    read_model_from_memory(xml, None)
}

fn weights(bytes: Vec<u8>) -> Option<Arc<Weights>> {
    Some(Arc::new(Weights::from_bytes(bytes)))
}

fn read_err(xml: &str) -> ReadError {
    match read(xml) {
        Ok(_) => panic!("the reader accepted a bad model:\n{xml}"),
        Err(e) => e,
    }
}

/// The line of `needle`'s `occurrence`-th appearance (from 0) in `text`.
fn line_of(text: &str, needle: &str, occurrence: usize) -> usize {
    let (at, _) =
        text.match_indices(needle).nth(occurrence).unwrap_or_else(|| panic!("{needle} not in text"));
    text[..at].matches('\n').count() + 1
}

/// Asserts the error has exactly one diagnostic, of a kind matching `pred`,
/// on `line`.
fn assert_one(err: &ReadError, line: Option<usize>, pred: impl Fn(&IrErrorKind) -> bool) {
    assert_eq!(err.diagnostics.len(), 1, "{err}");
    let d = &err.diagnostics[0];
    assert!(pred(&d.kind), "unexpected kind: {:?}", d.kind);
    assert_eq!(d.location(&err.source).map(|l| l.line), line, "{err}");
}

#[test]
fn reads_v10_and_v11() {
    for version in [10, 11] {
        let model = read(&simple(version)).unwrap();
        assert_eq!(model.version, version);
        assert_eq!(model.name, "m");
        assert_eq!(model.layers.len(), 3);
        assert_eq!(model.order, vec![LayerIdx(0), LayerIdx(1), LayerIdx(2)]);
        assert_eq!(model.source(LayerIdx(2), 0), OutputRef { layer: LayerIdx(1), port: 0 });
        assert_eq!(model.parameters().collect::<Vec<_>>(), vec![LayerIdx(0)]);
        assert_eq!(model.results().collect::<Vec<_>>(), vec![LayerIdx(2)]);
        let x = model.layer(LayerIdx(0));
        assert_eq!(x.attrs.value("shape"), Some("2,3"));
        assert_eq!(x.outputs[0].precision, Some(ElementType::F32));
        assert_eq!(x.outputs[0].shape.dims(), Some(&[Dim::fixed(2), Dim::fixed(3)][..]));
        assert_eq!(x.outputs[0].names, vec!["x"]);
        let text = &model.source.text;
        let span = x.span;
        assert!(text[span.start..span.end].starts_with("<layer id=\"0\""));
        assert!(text[span.start..span.end].ends_with('>'));
        let attr = x.attrs.get("element_type").unwrap();
        assert_eq!(&text[attr.span.start..attr.span.end], "element_type=\"f32\"");
        let e = model.edges[1];
        assert_eq!(&text[e.span.start..e.span.end], edge(1, 1, 2, 0).trim_end());
        assert_eq!(model.layer_ref(LayerIdx(1)).to_string(), "layer 1 \"r\" (Relu)");
    }
}

#[test]
fn ports_are_matched_by_id_not_position() {
    // Inputs listed out of id order, outputs with high ids.
    let concat = "<layer id=\"5\" name=\"cat\" type=\"Concat\" version=\"opset1\">\n\
        <data axis=\"0\"/>\n\
        <input><port id=\"1\"/><port id=\"0\"/></input>\n\
        <output><port id=\"7\"/></output>\n</layer>\n";
    let xml = net(
        11,
        &format!("{}{}{concat}{}", param(0, "a"), param(1, "b"), result(2, "out")),
        &format!("{}{}{}", edge(0, 0, 5, 0), edge(1, 0, 5, 1), edge(5, 7, 2, 0)),
    );
    let model = read(&xml).unwrap();
    // Input position 0 is port id 1, fed by layer 1 ("b").
    assert_eq!(model.source(LayerIdx(2), 0), OutputRef { layer: LayerIdx(1), port: 0 });
    assert_eq!(model.source(LayerIdx(2), 1), OutputRef { layer: LayerIdx(0), port: 0 });
    assert_eq!(model.source(LayerIdx(3), 0), OutputRef { layer: LayerIdx(2), port: 0 });
}

#[test]
fn topological_order_follows_edges_not_file_order() {
    let xml = net(
        11,
        &format!("{}{}{}", result(2, "out"), relu(1, "r"), param(0, "x")),
        &format!("{}{}", edge(0, 0, 1, 0), edge(1, 1, 2, 0)),
    );
    let model = read(&xml).unwrap();
    assert_eq!(model.order, vec![LayerIdx(2), LayerIdx(1), LayerIdx(0)]);
}

#[test]
fn names_unescape_commas_and_result_output_names_stay_in_attrs() {
    let layers = "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\">\n\
        <output><port id=\"0\" precision=\"FP32\" names=\"a\\,b,c,d\\,\"/></output>\n</layer>\n\
        <layer id=\"1\" name=\"out\" type=\"Result\" version=\"opset1\">\n\
        <data output_names=\"y,z\"/>\n<input><port id=\"0\"/></input>\n</layer>\n";
    let model = read(&net(11, layers, &edge(0, 0, 1, 0))).unwrap();
    assert_eq!(model.layers[0].outputs[0].names, vec!["a,b", "c", "d,"]);
    assert_eq!(model.layers[1].attrs.value("output_names"), Some("y,z"));
}

#[test]
fn attributes_are_unescaped_and_rt_info_is_kept() {
    let layers = "<layer id=\"0\" name=\"a&amp;b\" type=\"Parameter\" version=\"opset1\">\n\
        <data note=\"&lt;1&gt; &quot;q&quot; &#65;\"/>\n\
        <output><port id=\"0\">\n<rt_info><attribute name=\"layout\" version=\"0\" layout=\"[N,C]\"/></rt_info>\n</port></output>\n\
        <rt_info>\n<attribute name=\"fused_names\" version=\"0\" value=\"a,b\"/>\n\
        <nested><inner k=\"v\"/></nested>\n</rt_info>\n</layer>\n\
        <layer id=\"1\" name=\"out\" type=\"Result\" version=\"opset1\">\n<input><port id=\"0\"/></input>\n</layer>\n";
    let mut xml = net(11, layers, &edge(0, 0, 1, 0));
    xml = xml
        .replace("</net>", "<rt_info><framework><item key=\"k\" value=\"v\"/></framework></rt_info>\n</net>");
    let model = read(&xml).unwrap();
    let l = &model.layers[0];
    assert_eq!(l.name, "a&b");
    assert_eq!(l.attrs.value("note"), Some("<1> \"q\" A"));
    assert_eq!(l.rt_info.0.len(), 2);
    assert_eq!(l.rt_info.0[0].tag, "attribute");
    assert_eq!(l.rt_info.0[0].attrs[0], ("name".to_string(), "fused_names".to_string()));
    assert_eq!(l.rt_info.0[1].children[0].tag, "inner");
    assert_eq!(l.outputs[0].rt_info.0[0].attrs[2], ("layout".to_string(), "[N,C]".to_string()));
    assert_eq!(model.rt_info.0[0].tag, "framework");
    assert_eq!(model.rt_info.0[0].children[0].attrs.len(), 2);
}

#[test]
fn comments_cdata_and_processing_instructions_are_ignored() {
    let xml = simple(11)
        .replace("<layers>", "<!-- c --><layers><?pi x?><![CDATA[ <layer> ]]>")
        .replace("<dim>2</dim>", "<dim><!-- two -->2</dim>");
    let model = read(&xml).unwrap();
    assert_eq!(model.layers.len(), 3);
    assert_eq!(model.layers[0].outputs[0].shape.dims(), Some(&[Dim::fixed(2), Dim::fixed(3)][..]));
}

#[test]
fn unknown_op_types_and_subgraph_bodies_are_not_the_readers_business() {
    let xml = simple(11)
        .replace("type=\"Relu\" version=\"opset1\"", "type=\"FancyOp\" version=\"my_opset42\"")
        .replace(
            "<input><port id=\"0\"><dim>2</dim><dim>3</dim></port></input>\n<output><port id=\"1\"",
            "<input><port id=\"0\"><dim>2</dim><dim>3</dim></port></input>\n\
         <body><layers><layer id=\"0\" name=\"inner\" type=\"Parameter\" version=\"opset1\"/></layers>\
         <edges><edge from-layer=\"9\" from-port=\"9\" to-layer=\"9\" to-port=\"9\"/></edges></body>\n\
         <output><port id=\"1\"",
        );
    let model = read(&xml).unwrap();
    assert_eq!(model.layers[1].op_type, "FancyOp");
    assert_eq!(model.layers[1].version, "my_opset42");
    assert_eq!(model.edges.len(), 2);
}

#[test]
fn bom_and_crlf_are_fine() {
    let xml = format!("\u{feff}{}", simple(11).replace('\n', "\r\n"));
    let model = read(&xml).unwrap();
    assert_eq!(model.layers.len(), 3);
    let bytes = xml.as_bytes().to_vec();
    assert!(bytes.starts_with(b"\xef\xbb\xbf"));
    read_model_from_bytes(&bytes, None).unwrap();

    // Line numbers stay right with CRLF.
    let bad = xml.replacen("<dim>3</dim>", "<dim>-3</dim>", 1);
    let err = read_err(&bad);
    assert_one(&err, Some(line_of(&bad, "<dim>-3", 0)), |k| {
        matches!(k, IrErrorKind::DimBelowMinusOne { value: -3 })
    });
}

#[test]
fn dynamic_dims_are_minus_one() {
    let xml = simple(11).replacen("<dim>2</dim>", "<dim>-1</dim>", 1);
    let model = read(&xml).unwrap();
    assert_eq!(model.layers[0].outputs[0].shape.dims(), Some(&[Dim::DYNAMIC, Dim::fixed(3)][..]));
}

// ---- Consts ----

fn const_model(c: &str) -> String {
    net(11, &format!("{c}{}", result(1, "out")), &edge(0, 0, 1, 0))
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn const_borrows_its_bytes_and_accepts_spaces_in_shape() {
    let mut bin = vec![0xAAu8; 3];
    bin.extend(f32_bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    let w = Arc::new(Weights::from_bytes(bin));
    let xml = const_model(&constant(0, "f32", "2, 3", 3, 24));
    let model = read_model_from_memory(&xml, Some(Arc::clone(&w))).unwrap();
    let t = model.layers[0].constant.as_ref().unwrap();
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // No copy: the tensor's bytes are the weights' bytes.
    assert_eq!(t.bytes().unwrap().as_ptr(), (*w).as_ref()[3..].as_ptr());
    assert!(model.layers[1].constant.is_none());
}

#[test]
fn const_size_larger_than_needed_is_tolerated() {
    let xml = const_model(&constant(0, "f32", "[2]", 0, 12));
    let model = read_model_from_memory(&xml, weights(f32_bytes(&[7.0, 8.0, 9.0]))).unwrap();
    assert_eq!(model.layers[0].constant.as_ref().unwrap().to_vec::<f32>().unwrap(), vec![7.0, 8.0]);
}

/// ovir accepts `Constant` for `Const` (as later stages do), so its value
/// is loaded too and the model passes the reference check.
#[test]
fn a_layer_typed_constant_has_its_value_loaded() {
    let xml = const_model(&constant(0, "f32", "2", 0, 8)).replace("type=\"Const\"", "type=\"Constant\"");
    let model = read_model_from_memory(&xml, weights(f32_bytes(&[7.0, 8.0]))).unwrap();
    assert!(model.layers[0].is_const());
    assert_eq!(model.layers[0].constant.as_ref().unwrap().to_vec::<f32>().unwrap(), vec![7.0, 8.0]);
    model.check_references().unwrap();
}

#[test]
fn const_of_every_element_type_is_read() {
    for ty in ovir_tensor::ALL_ELEMENT_TYPES {
        if matches!(ty, ElementType::Dynamic | ElementType::String) {
            continue;
        }
        let size = ty.storage_bytes(5).unwrap() as u64;
        let xml = const_model(&constant(0, ty.ir_name(), "5", 0, size));
        let model =
            read_model_from_memory(&xml, weights(vec![1u8; 64])).unwrap_or_else(|e| panic!("{ty}: {e}"));
        assert_eq!(model.layers[0].constant.as_ref().unwrap().element_type(), ty);
    }
}

#[test]
fn empty_const_needs_no_weights() {
    let model = read(&const_model(&constant(0, "i64", "0", 0, 0))).unwrap();
    let t = model.layers[0].constant.as_ref().unwrap();
    assert_eq!(t.shape(), &[0]);
    assert_eq!(t.element_type(), ElementType::I64);
    let model = read(&const_model(&constant(0, "string", "0", 0, 0))).unwrap();
    assert_eq!(model.layers[0].constant.as_ref().unwrap().strings().unwrap().len(), 0);
}

fn packed_strings(header: &[i32], data: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = header.iter().flat_map(|v| v.to_le_bytes()).collect();
    out.extend_from_slice(data);
    out
}

#[test]
fn string_const_is_decoded() {
    let bin = packed_strings(&[3, 0, 5, 5, 9], "hello\u{e9}\u{e9}".as_bytes());
    let xml = const_model(&constant(0, "string", "3", 0, bin.len() as u64));
    let model = read_model_from_memory(&xml, weights(bin)).unwrap();
    let strings = model.layers[0].constant.as_ref().unwrap().strings().unwrap().to_vec();
    assert_eq!(strings, vec!["hello", "", "\u{e9}\u{e9}"]);
}

#[test]
fn bad_string_consts_are_refused() {
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("negative count", packed_strings(&[-2, 0], b"")),
        ("header past the buffer", packed_strings(&[2, 0, 1], b"")),
        ("decreasing offsets", packed_strings(&[2, 0, 2, 1], b"ab")),
        ("offset out of bounds", packed_strings(&[2, 0, 1, 5], b"ab")),
        ("invalid UTF-8", packed_strings(&[2, 0, 1, 2], b"a\xff")),
        ("count differs from shape", packed_strings(&[3, 0, 1, 2, 2], b"ab")),
        ("too short for a count", vec![2, 0]),
    ];
    for (what, bin) in cases {
        let xml = const_model(&constant(0, "string", "2", 0, bin.len() as u64));
        let err =
            read_model_from_memory(&xml, weights(bin)).err().unwrap_or_else(|| panic!("{what} accepted"));
        assert_one(&err, Some(line_of(&xml, "<layer id=\"0\"", 0)), |k| {
            matches!(k, IrErrorKind::BadStringConst { .. })
        });
        assert_eq!(err.diagnostics[0].layer.as_ref().unwrap().name, "c0", "{what}");
    }
}

#[test]
fn const_out_of_bounds_and_overflowing_offsets_are_refused() {
    let w = || weights(vec![0u8; 16]);
    for (offset, size) in [(8u64, 16u64), (17, 0), (u64::MAX - 2, 8), (u64::MAX, u64::MAX)] {
        let xml = const_model(&constant(0, "u8", "[8]", offset, size));
        let err = read_model_from_memory(&xml, w()).unwrap_err();
        let line = Some(line_of(&xml, "<layer id=\"0\"", 0));
        assert_one(
            &err,
            line,
            |k| matches!(k, IrErrorKind::ConstOutOfBounds { offset: o, size: s, file_len: 16 } if *o == offset && *s == size),
        );
    }
}

#[test]
fn const_size_too_small_is_refused() {
    let xml = const_model(&constant(0, "f32", "2,3", 0, 20));
    let err = read_model_from_memory(&xml, weights(vec![0u8; 64])).unwrap_err();
    assert_one(&err, Some(line_of(&xml, "size=\"20\"", 0)), |k| {
        matches!(k, IrErrorKind::ConstSizeTooSmall { size: 20, needed: 24 })
    });
}

#[test]
fn const_with_bad_attributes_is_refused() {
    let w = || weights(vec![0u8; 64]);
    // The problem is shown at the attribute, or at the layer when the
    // attribute is missing.
    let (data, layer) = ("<data", "<layer id");
    let cases: Vec<(String, &str, KindCheck)> = vec![
        (constant(0, "f33", "2", 0, 8), data, |k| matches!(k, IrErrorKind::UnknownElementType { .. })),
        (constant(0, "dynamic", "2", 0, 8), data, |k| matches!(k, IrErrorKind::ConstDynamicType)),
        (constant(0, "f32", "2,x", 0, 8), data, |k| matches!(k, IrErrorKind::BadShape { .. })),
        (constant(0, "f32", "?,2", 0, 8), data, |k| matches!(k, IrErrorKind::ConstShapeNotStatic { .. })),
        (constant(0, "f32", "4294967296,4294967296,4294967296", 0, 8), data, |k| {
            matches!(k, IrErrorKind::ConstTooLarge { .. })
        }),
        (
            constant(0, "f32", "2", 0, 8).replace("offset=\"0\"", "offset=\"-1\""),
            data,
            |k| matches!(k, IrErrorKind::InvalidNumber { attribute, .. } if attribute == "offset"),
        ),
        (constant(0, "f32", "2", 0, 8).replace(" size=\"8\"", ""), layer, |k| {
            matches!(k, IrErrorKind::MissingAttribute { element: "data", attribute: "size" })
        }),
    ];
    for (c, at, pred) in cases {
        let xml = const_model(&c);
        let err = read_model_from_memory(&xml, w()).unwrap_err();
        assert_one(&err, Some(line_of(&xml, at, 0)), |_| true);
        assert!(pred(&err.diagnostics[0].kind), "{c}: {err}");
    }
}

#[test]
fn a_bad_shape_tells_why_once() {
    let xml = const_model(&constant(0, "f32", "2,x", 0, 8));
    let err = read_model_from_memory(&xml, weights(vec![0u8; 64])).unwrap_err();
    let kind = &err.diagnostics[0].kind;
    // The parser's reason is in the message, so it is not also a source.
    assert!(std::error::Error::source(kind).is_none(), "{kind}");
    assert!(kind.to_string().starts_with("`shape` is not a valid shape: "), "{kind}");
}

#[test]
fn const_without_weights_names_the_layer() {
    let xml = const_model(&constant(0, "f32", "2", 0, 8));
    let err = read_err(&xml);
    assert_one(&err, Some(line_of(&xml, "<layer id=\"0\"", 0)), |k| {
        matches!(k, IrErrorKind::MissingWeights { .. })
    });
    assert_eq!(err.diagnostics[0].layer.as_ref().unwrap().op_type, "Const");
}

// ---- files ----

struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("ovir-ir-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn files_use_the_default_or_the_given_weights_path() {
    let dir = TempDir::new("files");
    let xml_path = dir.0.join("model.xml");
    std::fs::write(&xml_path, const_model(&constant(0, "f32", "1", 0, 4))).unwrap();

    // Absent default .bin with a Const: the error names the layer and path.
    let err = read_model(&xml_path, None).unwrap_err();
    assert_eq!(err.diagnostics.len(), 1);
    let text = err.to_string();
    assert!(text.contains("model.bin"), "{text}");
    assert!(text.contains("layer 0 \"c0\" (Const)"), "{text}");
    assert!(text.starts_with(&format!("{}:", xml_path.display())), "{text}");

    std::fs::write(dir.0.join("model.bin"), f32_bytes(&[2.5])).unwrap();
    let model = read_model(&xml_path, None).unwrap();
    assert_eq!(model.layers[0].constant.as_ref().unwrap().to_vec::<f32>().unwrap(), vec![2.5]);
    assert_eq!(model.source.path.as_deref(), Some(xml_path.as_path()));

    let other = dir.0.join("other.weights");
    std::fs::write(&other, f32_bytes(&[4.0])).unwrap();
    let model = read_model(&xml_path, Some(&other)).unwrap();
    assert_eq!(model.layers[0].constant.as_ref().unwrap().to_vec::<f32>().unwrap(), vec![4.0]);

    // A given weights path must exist.
    let err = read_model(&xml_path, Some(&dir.0.join("nope.bin"))).unwrap_err();
    assert!(err.has(|k| matches!(k, IrErrorKind::Io { .. })), "{err}");

    // No Const: no .bin needed.
    let plain = dir.0.join("plain.xml");
    std::fs::write(&plain, simple(11)).unwrap();
    read_model(&plain, None).unwrap();

    let missing = dir.0.join("missing.xml");
    let err = read_model(&missing, None).unwrap_err();
    assert_one(&err, None, |k| matches!(k, IrErrorKind::Io { .. }));
    // The message names the file once, shown plainly or rendered.
    let name = missing.display().to_string();
    for text in [err.to_string(), err.render(false)] {
        assert!(text.contains(&format!("cannot read `{name}`: ")), "{text}");
        assert_eq!(text.matches(&name).count(), 1, "{text}");
    }
    // The XML is still named where the message names another file.
    let err = read_model(&xml_path, Some(&dir.0.join("nope.bin"))).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}: cannot read `", xml_path.display())), "{err}");
}

#[test]
fn weights_are_read_by_default_and_mapped_on_request() {
    let dir = TempDir::new("access");
    let xml_path = dir.0.join("model.xml");
    let bin_path = dir.0.join("model.bin");
    std::fs::write(&xml_path, const_model(&constant(0, "f32", "2", 0, 8))).unwrap();
    std::fs::write(&bin_path, f32_bytes(&[2.5, 3.5])).unwrap();
    let value = |m: &Model| m.layers[0].constant.as_ref().unwrap().to_vec::<f32>().unwrap();

    // Read into memory: the model keeps its values when the file changes.
    let model = read_model(&xml_path, None).unwrap();
    std::fs::write(&bin_path, f32_bytes(&[9.0])).unwrap();
    assert_eq!(value(&model), vec![2.5, 3.5]);

    std::fs::write(&bin_path, f32_bytes(&[4.0, 5.0])).unwrap();
    // SAFETY: nothing writes to the weights file while the mapped models
    // below are alive.
    let map = unsafe { WeightsAccess::map() };
    let mapped = read_model_with(&xml_path, None, map).unwrap();
    assert_eq!(value(&mapped), vec![4.0, 5.0]);
    let given = read_model_with(&xml_path, Some(&bin_path), map).unwrap();
    assert_eq!(value(&given), vec![4.0, 5.0]);
    drop((mapped, given));

    // Mapping reports a missing file as reading does.
    std::fs::remove_file(&bin_path).unwrap();
    let err = read_model_with(&xml_path, None, map).unwrap_err();
    assert!(err.has(|k| matches!(k, IrErrorKind::MissingWeights { .. })), "{err}");
}

// ---- one test per structural problem ----

#[test]
fn xml_syntax_error_is_fatal_and_located() {
    let xml = simple(11).replace("</layer>\n<layer id=\"1\"", "</layr>\n<layer id=\"1\"");
    let err = read_err(&xml);
    assert_one(&err, Some(line_of(&xml, "</layr>", 0)), |k| matches!(k, IrErrorKind::XmlSyntax { .. }));

    let truncated = &simple(11)[..120];
    let err = read_err(truncated);
    assert_one(&err, err.diagnostics[0].location(&err.source).map(|l| l.line), |k| {
        matches!(k, IrErrorKind::XmlSyntax { .. })
    });
    assert!(err.to_string().contains("malformed"));
}

#[test]
fn not_utf8_is_refused() {
    let mut bytes = simple(11).into_bytes();
    let at = bytes.windows(3).position(|w| w == b"\"r\"").unwrap() + 1;
    bytes[at] = 0xff;
    let err = read_model_from_bytes(&bytes, None).unwrap_err();
    assert_one(
        &err,
        Some(line_of(&simple(11), "name=\"r\"", 0)),
        |k| matches!(k, IrErrorKind::NotUtf8 { offset } if *offset == at),
    );
}

#[test]
fn doctype_is_refused() {
    let xml = simple(11).replace(
        "<net ",
        "<!DOCTYPE lol [<!ENTITY a \"aaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;\">]>\n<net ",
    );
    let err = read_err(&xml);
    assert_one(&err, Some(2), |k| matches!(k, IrErrorKind::DoctypeRefused));
}

#[test]
fn deep_nesting_is_refused() {
    let depth = 10_000;
    let xml = simple(11)
        .replace("<data shape", &format!("{}{}<data shape", "<x>".repeat(depth), "</x>".repeat(depth)));
    let err = read_err(&xml);
    assert_one(&err, Some(line_of(&xml, "<x>", 0)), |k| matches!(k, IrErrorKind::TooDeep { limit: 64 }));
    // Deep rt_info trees too.
    let xml = simple(11)
        .replace("</net>", &format!("<rt_info>{}{}</rt_info></net>", "<a>".repeat(100), "</a>".repeat(100)));
    assert!(read_err(&xml).has(|k| matches!(k, IrErrorKind::TooDeep { .. })));
}

#[test]
fn root_must_be_net() {
    let err = read_err("<?xml version=\"1.0\"?>\n<model version=\"11\"/>");
    assert_one(&err, Some(2), |k| matches!(k, IrErrorKind::WrongRoot { found } if found == "model"));
    let err = read_err("");
    assert_one(&err, None, |k| matches!(k, IrErrorKind::NoRoot));
    assert!(err.to_string().contains("XML"));
}

#[test]
fn other_versions_are_refused() {
    for v in ["7", "12", "ten"] {
        let xml = simple(11).replace("version=\"11\"", &format!("version=\"{v}\""));
        let err = read_err(&xml);
        assert_one(&err, Some(2), |k| matches!(k, IrErrorKind::UnsupportedVersion { found } if found == v));
        assert!(err.to_string().contains(v));
    }
    let xml = simple(11).replace(" version=\"11\"", "");
    assert_one(&read_err(&xml), Some(2), |k| {
        matches!(k, IrErrorKind::MissingAttribute { element: "net", attribute: "version" })
    });
}

#[test]
fn layers_element_is_required() {
    let err = read_err("<net name=\"m\" version=\"11\"/>");
    assert_one(&err, None, |k| matches!(k, IrErrorKind::MissingElement { element: "layers", .. }));
}

#[test]
fn every_missing_layer_attribute_is_reported() {
    for attr in ["id", "name", "type", "version"] {
        // Only the second layer (the Relu) loses the attribute.
        let full = simple(11);
        let (tag_start, _) = full.match_indices("<layer ").nth(1).unwrap();
        let tag_end = tag_start + full[tag_start..].find('>').unwrap();
        let tag = full[tag_start..tag_end].replace(&format!(" {attr}=\""), " ignored=\"");
        let xml = format!("{}{tag}{}", &full[..tag_start], &full[tag_end..]);
        let err = read_err(&xml);
        let want = attr;
        let diag = err
            .diagnostics
            .iter()
            .find(|d| matches!(d.kind, IrErrorKind::MissingAttribute { element: "layer", attribute } if attribute == want))
            .unwrap_or_else(|| panic!("{attr}: {err}"));
        assert_eq!(diag.location(&err.source).unwrap().line, line_of(&xml, "<layer ", 1), "{attr}");
    }
}

#[test]
fn bad_numbers_are_reported() {
    let cases = [
        ("<layer id=\"1\"", "<layer id=\"one\"", "layer", "id"),
        ("<layer id=\"1\"", "<layer id=\"-1\"", "layer", "id"),
        ("<port id=\"1\"", "<port id=\"x\"", "port", "id"),
        ("from-port=\"1\"", "from-port=\"1.5\"", "edge", "from-port"),
        (
            "<dim>3</dim></port></output>\n</layer>\n<layer id=\"2\"",
            "<dim>3x</dim></port></output>\n</layer>\n<layer id=\"2\"",
            "port",
            "dim",
        ),
    ];
    for (from, to, element, attribute) in cases {
        let xml = simple(11).replacen(from, to, 1);
        let err = read_err(&xml);
        let line = line_of(&xml, to.lines().next().unwrap_or(to), 0);
        let d = err
            .diagnostics
            .iter()
            .find(|d| matches!(&d.kind, IrErrorKind::InvalidNumber { element: e, attribute: a, .. } if *e == element && a == attribute))
            .unwrap_or_else(|| panic!("{to}: {err}"));
        assert_eq!(d.location(&err.source).unwrap().line, line, "{to}");
    }
}

#[test]
fn dim_below_minus_one_is_refused() {
    let xml = simple(11).replacen("<dim>3</dim>", "<dim>-2</dim>", 1);
    let err = read_err(&xml);
    assert_one(&err, Some(line_of(&xml, "<dim>-2", 0)), |k| {
        matches!(k, IrErrorKind::DimBelowMinusOne { value: -2 })
    });
    assert_eq!(err.diagnostics[0].layer.as_ref().unwrap().id, 0);
}

#[test]
fn unknown_port_precision_is_refused() {
    let xml = simple(11).replace("precision=\"FP32\" names", "precision=\"FP33\" names");
    let err = read_err(&xml);
    assert_one(
        &err,
        Some(line_of(&xml, "FP33", 0)),
        |k| matches!(k, IrErrorKind::UnknownElementType { attribute, value } if attribute == "precision" && value == "FP33"),
    );
}

#[test]
fn duplicate_layer_ids_are_refused() {
    let xml = net(
        11,
        &format!("{}{}{}", param(0, "x"), relu(1, "r"), result(1, "out")),
        &format!("{}{}", edge(0, 0, 1, 0), edge(1, 1, 1, 0)),
    );
    let err = read_err(&xml);
    let first_line = line_of(&xml, "<layer id=\"1\"", 0);
    assert!(
        err.diagnostics.iter().any(|d| {
            matches!(d.kind, IrErrorKind::DuplicateLayerId { id: 1, first_line: f } if f == first_line)
                && d.location(&err.source).unwrap().line == line_of(&xml, "<layer id=\"1\"", 1)
        }),
        "{err}"
    );
    assert!(err.to_string().contains("duplicate"));
}

#[test]
fn duplicate_port_ids_are_refused() {
    let xml = simple(11).replace(
        "<input><port id=\"0\"><dim>2</dim><dim>3</dim></port></input>\n<output>",
        "<input><port id=\"0\"><dim>2</dim><dim>3</dim></port><port id=\"0\"/></input>\n<output>",
    );
    let err = read_err(&xml);
    assert_one(&err, Some(line_of(&xml, "<port id=\"0\"/>", 0)), |k| {
        matches!(k, IrErrorKind::DuplicatePortId { direction: "input", id: 0, .. })
    });
}

#[test]
fn edge_to_unknown_layer_or_port_is_refused() {
    let cases: [(&str, &str, KindCheck); 4] = [
        ("from-layer=\"1\"", "from-layer=\"7\"", |k| {
            matches!(k, IrErrorKind::UnknownLayer { end: "from", id: 7 })
        }),
        ("to-layer=\"2\"", "to-layer=\"8\"", |k| matches!(k, IrErrorKind::UnknownLayer { end: "to", id: 8 })),
        ("from-layer=\"1\" from-port=\"1\"", "from-layer=\"1\" from-port=\"0\"", |k| {
            matches!(k, IrErrorKind::UnknownPort { end: "from", direction: "output", layer: 1, port: 0 })
        }),
        ("to-layer=\"2\" to-port=\"0\"", "to-layer=\"2\" to-port=\"3\"", |k| {
            matches!(k, IrErrorKind::UnknownPort { end: "to", direction: "input", layer: 2, port: 3 })
        }),
    ];
    for (from, to, pred) in cases {
        let xml = simple(11).replace(from, to);
        let err = read_err(&xml);
        let line = line_of(&xml, to, 0);
        let d = err.diagnostics.iter().find(|d| pred(&d.kind)).unwrap_or_else(|| panic!("{to}: {err}"));
        assert_eq!(d.location(&err.source).unwrap().line, line);
    }
}

#[test]
fn three_bad_edges_give_three_diagnostics() {
    let xml = net(
        11,
        &format!("{}{}{}", param(0, "x"), relu(1, "r"), result(2, "out")),
        &format!(
            "{}{}{}{}{}",
            edge(0, 0, 1, 0),
            edge(1, 1, 2, 0),
            edge(5, 0, 1, 0),
            edge(0, 4, 2, 0),
            edge(0, 0, 9, 0)
        ),
    );
    let err = read_err(&xml);
    assert_eq!(err.diagnostics.len(), 3, "{err}");
    assert_eq!(err.to_string().lines().count(), 3);
    let lines: Vec<usize> = err.diagnostics.iter().map(|d| d.location(&err.source).unwrap().line).collect();
    let first = line_of(&xml, "from-layer=\"5\"", 0);
    assert_eq!(lines, vec![first, first + 1, first + 2]);
}

#[test]
fn input_fed_twice_is_refused() {
    let xml = net(
        11,
        &format!("{}{}{}", param(0, "x"), relu(1, "r"), result(2, "out")),
        &format!("{}{}{}", edge(0, 0, 1, 0), edge(1, 1, 2, 0), edge(0, 0, 2, 0)),
    );
    let err = read_err(&xml);
    let first_line = line_of(&xml, "<edge from-layer=\"1\"", 0);
    assert_one(
        &err,
        Some(first_line + 1),
        |k| matches!(k, IrErrorKind::InputFedTwice { layer: 2, port: 0, first_line: f } if *f == first_line),
    );
}

#[test]
fn input_not_fed_is_refused() {
    let xml = net(11, &format!("{}{}{}", param(0, "x"), relu(1, "r"), result(2, "out")), &edge(0, 0, 1, 0));
    let err = read_err(&xml);
    let line = line_of(&xml, "<port id=\"0\">", 1);
    assert_one(&err, Some(line), |k| matches!(k, IrErrorKind::InputNotFed { layer: 2, port: 0 }));
    assert_eq!(err.diagnostics[0].layer.as_ref().unwrap().name, "out");
}

#[test]
fn cycles_are_refused_and_named() {
    // x -> add(1) -> r(2) -> r(3) -> back into add(1); r(3) also -> out.
    let add = "<layer id=\"1\" name=\"add\" type=\"Add\" version=\"opset1\">\n\
        <input><port id=\"0\"/><port id=\"1\"/></input>\n<output><port id=\"2\"/></output>\n</layer>\n";
    let xml = net(
        11,
        &format!("{}{add}{}{}{}", param(0, "x"), relu(2, "r2"), relu(3, "r3"), result(4, "out")),
        &format!(
            "{}{}{}{}{}",
            edge(0, 0, 1, 0),
            edge(1, 2, 2, 0),
            edge(2, 1, 3, 0),
            edge(3, 1, 1, 1),
            edge(3, 1, 4, 0)
        ),
    );
    let err = read_err(&xml);
    assert_one(&err, Some(line_of(&xml, "<layer id=\"1\"", 0)), |k| match k {
        IrErrorKind::Cycle { layers } => layers.iter().map(|l| l.id).collect::<Vec<_>>() == vec![1, 2, 3],
        _ => false,
    });
    assert!(err.to_string().contains("cycle through layers 1 \"add\" -> 2 \"r2\" -> 3 \"r3\""), "{err}");

    // A layer feeding itself.
    let xml = net(
        11,
        &format!("{}{add}{}", param(0, "x"), result(4, "out")),
        &format!("{}{}{}", edge(0, 0, 1, 0), edge(1, 2, 1, 1), edge(1, 2, 4, 0)),
    );
    assert_one(
        &read_err(&xml),
        Some(line_of(&xml, "<layer id=\"1\"", 0)),
        |k| matches!(k, IrErrorKind::Cycle { layers } if layers.len() == 1),
    );
}

#[test]
fn independent_problems_are_all_reported_in_file_order() {
    let xml = net(
        11,
        &format!(
            "{}{}{}{}",
            param(0, "x").replace("<dim>2</dim>", "<dim>-5</dim>"),
            relu(1, "r").replace("type=\"Relu\" ", ""),
            result(2, "out"),
            constant(3, "f32", "2", 0, 8)
        ),
        &format!("{}{}{}", edge(0, 0, 1, 0), edge(1, 1, 2, 0), edge(9, 0, 2, 0)),
    );
    let err = read_err(&xml);
    let kinds: Vec<&IrErrorKind> = err.diagnostics.iter().map(|d| &d.kind).collect();
    assert!(
        matches!(
            kinds[..],
            [
                IrErrorKind::DimBelowMinusOne { .. },
                IrErrorKind::MissingAttribute { attribute: "type", .. },
                IrErrorKind::MissingWeights { .. },
                IrErrorKind::UnknownLayer { id: 9, .. },
            ]
        ),
        "{err}"
    );
}

#[test]
fn long_chains_are_read_quickly_without_deep_recursion() {
    let n: u64 = 200_000;
    let mut xml = String::with_capacity(n as usize * 200);
    xml.push_str("<net name=\"chain\" version=\"11\"><layers>\n");
    xml.push_str("<layer id=\"0\" name=\"p\" type=\"Parameter\" version=\"opset1\"><output><port id=\"0\"/></output></layer>\n");
    for i in 1..n {
        xml.push_str(&format!(
            "<layer id=\"{i}\" name=\"l{i}\" type=\"Relu\" version=\"opset1\"><input><port id=\"0\"/></input><output><port id=\"1\"/></output></layer>\n"
        ));
    }
    xml.push_str("</layers><edges>\n");
    xml.push_str("<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>\n");
    for i in 2..n {
        xml.push_str(&format!(
            "<edge from-layer=\"{}\" from-port=\"1\" to-layer=\"{i}\" to-port=\"0\"/>\n",
            i - 1
        ));
    }
    xml.push_str("</edges></net>\n");

    let started = Instant::now();
    let model = read(&xml).unwrap();
    let took = started.elapsed();
    assert_eq!(model.layers.len(), n as usize);
    assert_eq!(model.order.len(), n as usize);
    assert!(model.order.windows(2).all(|w| w[0].0 + 1 == w[1].0));
    // Not a speed check, which would hang on how loaded the machine is (a
    // bound of 1 s failed that way): a guard far above the time a linear
    // read takes in any build, which work growing with the square of the
    // chain (4 * 10^10 steps here) would still cross.
    let bound = Duration::from_secs(30);
    assert!(took < bound, "reading took {took:?}");

    // The same chain closed into a cycle is reported, iteratively too.
    let cyclic = xml.replace(
        "<layer id=\"0\" name=\"p\" type=\"Parameter\" version=\"opset1\"><output>",
        "<layer id=\"0\" name=\"p\" type=\"Relu\" version=\"opset1\"><input><port id=\"9\"/></input><output>",
    );
    let cyclic = cyclic.replace(
        "</edges>",
        &format!("<edge from-layer=\"{}\" from-port=\"1\" to-layer=\"0\" to-port=\"9\"/></edges>", n - 1),
    );
    let err = read_err(&cyclic);
    assert_one(&err, Some(2), |k| matches!(k, IrErrorKind::Cycle { layers } if layers.len() == n as usize));
}

#[test]
fn rendering_shows_the_line_and_the_layer() {
    let xml = simple(11).replacen("<dim>3</dim>", "<dim>-2</dim>", 1);
    let err = read_err(&xml);
    let text = err.diagnostics[0].render(&err.source);
    let line = line_of(&xml, "<dim>-2", 0);
    assert!(text.starts_with("error: dimension -2 is invalid"), "{text}");
    assert!(text.contains(&format!(" --> <memory>:{line}:")), "{text}");
    assert!(text.contains("^^^^^^^^^^^^^"), "{text}");
    assert!(text.contains("= note: layer 0 \"x\" (Parameter)"), "{text}");
    assert_eq!(err.render(false), text);
    assert!(err.render(true).contains("\u{1b}["));
}

#[test]
fn an_input_reached_by_a_bad_edge_is_not_also_reported_unfed() {
    let xml = simple(11).replace("from-layer=\"1\" from-port=\"1\"", "from-layer=\"1\" from-port=\"3\"");
    let err = read_err(&xml);
    assert_one(&err, Some(line_of(&xml, "from-port=\"3\"", 0)), |k| {
        matches!(k, IrErrorKind::UnknownPort { end: "from", port: 3, .. })
    });
}

#[test]
fn missing_weights_message_says_what_is_missing() {
    let err = read_err(&const_model(&constant(0, "f32", "2", 0, 8)));
    assert!(err.to_string().contains("no weights were given"), "{err}");
    let text = err.render(false);
    assert!(text.contains("= note: layer 0 \"c0\" (Const)"), "{text}");
}
