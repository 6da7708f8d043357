//! Writing IR: every sample in `ir-samples/` written, read back and
//! written again.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ovir_ir::{read_model, read_model_from_bytes, written_port_shape, Layer, Model, Port, Weights};

fn samples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ir-samples")
}

/// Every folder below `ir-samples/` holding a `model.xml`, valid or not.
fn all_cases() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [samples_dir(), samples_dir().join("bad"), samples_dir().join("unsupported")] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        out.extend(
            entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.join("model.xml").is_file()),
        );
    }
    out.sort();
    out
}

fn write(model: &Model) -> (Vec<u8>, Vec<u8>) {
    let (mut xml, mut bin) = (Vec::new(), Vec::new());
    model.write_to(&mut xml, &mut bin).unwrap();
    (xml, bin)
}

fn read((xml, bin): &(Vec<u8>, Vec<u8>)) -> Model {
    read_model_from_bytes(xml, Some(Arc::new(Weights::from_bytes(bin.clone())))).unwrap_or_else(|e| {
        panic!("the written model does not read back:\n{e}\n{}", String::from_utf8_lossy(xml));
    })
}

/// Why `back`, read from what `model` wrote, differs from `model`, if it
/// does. Layers are compared in the order they were written.
fn difference(model: &Model, back: &Model) -> Option<String> {
    if back.name != model.name || back.version != 11 {
        return Some(format!(
            "net {:?} v{} became {:?} v{}",
            model.name, model.version, back.name, back.version
        ));
    }
    if back.layers.len() != model.layers.len() || back.rt_info != model.rt_info {
        return Some("layer count or model rt_info".to_string());
    }
    let mut position = vec![0; model.layers.len()];
    for (k, idx) in model.order.iter().enumerate() {
        position[idx.0] = k;
    }
    for (k, idx) in model.order.iter().enumerate() {
        let (a, b) = (&model.layers[idx.0], &back.layers[k]);
        let what = layer_difference(a, b);
        let sources: Vec<(usize, usize)> =
            model.sources[idx.0].iter().map(|s| (position[s.layer.0], s.port)).collect();
        let back_sources: Vec<(usize, usize)> = back.sources[k].iter().map(|s| (s.layer.0, s.port)).collect();
        let what = what.or_else(|| (sources != back_sources).then(|| format!("sources {sources:?}")));
        if let Some(what) = what {
            return Some(format!("layer {:?}: {what}", a.name));
        }
    }
    None
}

fn layer_difference(a: &Layer, b: &Layer) -> Option<String> {
    if (&a.name, &a.op_type, &a.version, &a.rt_info) != (&b.name, &b.op_type, &b.version, &b.rt_info) {
        return Some("name, type, version or rt_info".to_string());
    }
    let attrs = |l: &Layer| -> Vec<(String, String)> {
        // A Const's layout in the weights is the writer's to choose.
        let layout = |n: &str| l.is_const() && ["offset", "size", "shape"].contains(&n);
        l.attrs.0.iter().filter(|a| !layout(&a.name)).map(|a| (a.name.clone(), a.value.clone())).collect()
    };
    if attrs(a) != attrs(b) {
        return Some(format!("attributes {:?} became {:?}", attrs(a), attrs(b)));
    }
    match (&a.constant, &b.constant) {
        (None, None) => {}
        (Some(x), Some(y)) => {
            let same = x.element_type() == y.element_type()
                && x.shape() == y.shape()
                && x.bytes() == y.bytes()
                && x.strings() == y.strings();
            if !same {
                return Some(format!("value {x:?} became {y:?}"));
            }
        }
        _ => return Some("value".to_string()),
    }
    let ports = |x: &[Port], y: &[Port]| {
        x.len() == y.len()
            && x.iter().zip(y).all(|(p, q)| {
                (p.precision, &p.names, written_port_shape(&p.shape), &p.rt_info)
                    == (q.precision, &q.names, q.shape.clone(), &q.rt_info)
            })
    };
    if !ports(&a.inputs, &b.inputs) || !ports(&a.outputs, &b.outputs) {
        return Some("ports".to_string());
    }
    None
}

#[test]
fn every_sample_reads_back_as_it_was_and_writes_the_same_bytes_again() {
    let mut failures = Vec::new();
    let mut written = 0;
    for case in all_cases() {
        // Samples the reader refuses have nothing to write.
        let Ok(model) = read_model(&case.join("model.xml"), None) else { continue };
        written += 1;
        let first = write(&model);
        let back = read(&first);
        if let Some(why) = difference(&model, &back) {
            failures.push(format!("{}: {why}", case.display()));
            continue;
        }
        if write(&back) != first {
            failures.push(format!("{}: the second pass wrote other bytes", case.display()));
        }
        if write(&model) != first {
            failures.push(format!("{}: writing twice gave other bytes", case.display()));
        }
    }
    assert!(written > 200, "only {written} samples were read");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// The lines of an XML text, with the `<edge>` lines sorted: OpenVINO
/// sorts edges with `std::sort` on the producer alone, which leaves the
/// edges of one producer in an order that depends on the sort's
/// internals, where ovir sorts them by consumer.
fn lines_edges_sorted(xml: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(xml);
    let (mut lines, mut edges): (Vec<String>, Vec<String>) =
        text.lines().map(str::to_string).partition(|l| !l.trim_start().starts_with("<edge "));
    edges.sort();
    lines.extend(edges);
    lines
}

/// Samples whose files OpenVINO's serializer did not write as they are:
/// the `ir_v10_*` headers were changed to version 10, the
/// `reverse_subsequences_*` ops were edited in by hand, and the malformed
/// ones were broken on purpose.
fn edited_by_hand(case: &Path) -> bool {
    let name = case.file_name().unwrap().to_string_lossy();
    name.starts_with("ir_v10_")
        || name.starts_with("reverse_subsequences_")
        || case.parent().is_some_and(|p| p.ends_with("bad"))
}

/// ovir writes what OpenVINO wrote: the same XML, but for the order of
/// the edges of one producer, and the same weights.
#[test]
fn files_openvino_wrote_are_written_again_as_openvino_wrote_them() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for case in all_cases().into_iter().filter(|c| !edited_by_hand(c)) {
        let model = read_model(&case.join("model.xml"), None).unwrap();
        let (xml, bin) = write(&model);
        compared += 1;
        let original = std::fs::read(case.join("model.xml")).unwrap();
        let (ours, theirs) = (lines_edges_sorted(&xml), lines_edges_sorted(&original));
        if ours != theirs || xml.len() != original.len() {
            let line = ours.iter().zip(&theirs).position(|(a, b)| a != b);
            failures.push(format!("{}: the XML differs at line {:?}", case.display(), line.map(|l| l + 1)));
        }
        let original_bin = std::fs::read(case.join("model.bin")).unwrap_or_default();
        if bin != original_bin {
            failures.push(format!("{}: the weights differ", case.display()));
        }
    }
    assert!(compared > 150, "only {compared} samples were compared");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_model_that_cannot_be_written_is_refused_with_the_reason() {
    let path = samples_dir().join("chain_convert_reverse/model.xml");
    let mut model = read_model(&path, None).unwrap();
    let axes = model.layers.iter().position(|l| l.is_const()).unwrap();
    model.layers[axes].constant = None;
    let err = model.write_to(Vec::new(), Vec::new()).unwrap_err();
    assert!(matches!(err, ovir_ir::WriteError::Broken(_)), "{err:?}");
    assert!(err.to_string().contains("\"axes\""), "{err}");

    let mut model = read_model(&path, None).unwrap();
    model.sources[1].clear();
    let err = model.write_to(Vec::new(), Vec::new()).unwrap_err();
    assert!(matches!(err, ovir_ir::WriteError::Broken(_)), "{err:?}");
}

#[test]
fn saving_writes_the_weights_beside_the_xml() {
    let dir = std::env::temp_dir().join(format!("ovir-ir-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = read_model(&samples_dir().join("reverse_string_const/model.xml"), None).unwrap();
    model.save(dir.join("strings.xml")).unwrap();
    let (xml, bin) = write(&model);
    assert_eq!(std::fs::read(dir.join("strings.xml")).unwrap(), xml);
    assert_eq!(std::fs::read(dir.join("strings.bin")).unwrap(), bin);
    // Missing parent folders are made.
    model.save(dir.join("missing/twice/strings.xml")).unwrap();
    assert_eq!(std::fs::read(dir.join("missing/twice/strings.xml")).unwrap(), xml);
    assert_eq!(std::fs::read(dir.join("missing/twice/strings.bin")).unwrap(), bin);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failed_save_names_the_xml_asked_for() {
    let dir = std::env::temp_dir().join(format!("ovir-ir-save-failed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // A file where a parent folder would have to be.
    std::fs::write(dir.join("plain"), b"").unwrap();
    let model = read_model(&samples_dir().join("chain_convert_reverse/model.xml"), None).unwrap();
    let asked = dir.join("plain/model.xml");
    let message = model.save(&asked).unwrap_err().to_string();
    assert!(message.starts_with(&format!("cannot write `{}`: ", asked.display())), "{message}");
    assert!(message.contains("cannot make its folder"), "{message}");
    assert!(!message.contains(".ovir-save") && !message.contains(".bin"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn saving_writes_both_files_or_neither() {
    let dir = std::env::temp_dir().join(format!("ovir-ir-save-refused-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("taken.xml")).unwrap();
    let mut model = read_model(&samples_dir().join("chain_convert_reverse/model.xml"), None).unwrap();
    let listing = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };

    // A folder where the XML would go: neither file is written.
    let err = model.save(dir.join("taken.xml")).unwrap_err();
    assert!(err.to_string().contains("it is a folder"), "{err}");
    // An XML path that is its own weights' path.
    let err = model.save(dir.join("model.bin")).unwrap_err();
    assert!(matches!(err, ovir_ir::WriteError::SamePath(_)), "{err:?}");
    // A NUL no XML can hold, in a layer name.
    model.layers[0].name.push('\0');
    let err = model.save(dir.join("nul.xml")).unwrap_err();
    assert!(matches!(err, ovir_ir::WriteError::Nul), "{err:?}");
    // Nothing was left behind, temporary files included.
    assert_eq!(listing(&dir), vec!["taken.xml".to_string()]);
    std::fs::remove_dir_all(&dir).unwrap();
}
