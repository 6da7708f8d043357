//! The reader on IR files written by OpenVINO itself (`ir-samples/`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use ovir_ir::read_model;

fn samples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ir-samples")
}

fn cases(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> =
        entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.join("model.xml").is_file()).collect();
    out.sort();
    out
}

#[test]
fn every_valid_sample_is_read() {
    let mut failures = Vec::new();
    let all = cases(&samples_dir());
    for case in &all {
        match read_model(&case.join("model.xml"), None) {
            Ok(model) => {
                assert_eq!(model.order.len(), model.layers.len());
                for layer in model.layers.iter().filter(|l| l.is("Const")) {
                    assert!(layer.constant.is_some(), "{}: {} has no value", case.display(), layer.name);
                }
            }
            Err(e) => failures.push(format!("{}:\n{e}", case.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} samples failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// Malformed samples that the reader must refuse itself; the others are
/// structurally valid IR that later stages refuse (unknown ops, bad
/// attributes of known ops, wrong input ranks, …).
const REFUSED_BY_READER: &[&str] = &[
    "const_offset_non_numeric",
    "const_offset_past_end",
    "const_past_end_of_bin",
    "const_size_too_small",
    "cycle",
    "dim_minus_2",
    "edge_attr_non_numeric",
    "edge_from_missing_layer",
    "edge_from_missing_port",
    "edge_to_missing_layer",
    "edge_to_missing_port",
    "input_port_fed_twice",
    "input_port_not_fed",
    "layer_id_duplicate",
    "layer_id_missing",
    "layer_id_negative",
    "layer_id_non_numeric",
    "layer_type_missing",
    "layer_version_missing",
    "missing_bin",
    "net_version_12",
    "net_version_9",
    "net_version_missing",
    "port_dim_non_numeric",
    "port_id_non_numeric",
    "root_not_net",
    "string_const_decreasing_offsets",
    "string_const_negative_count",
    "xml_binary_garbage",
    "xml_empty",
    "xml_truncated",
    "xml_unclosed_layers",
];

#[test]
fn malformed_samples_are_refused_with_the_expected_words() {
    let mut problems = Vec::new();
    for case in cases(&samples_dir().join("bad")) {
        let name = case.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let phrase = std::fs::read_to_string(case.join("expected_error")).unwrap_or_default();
        let phrase = phrase.trim().to_lowercase();
        let result = read_model(&case.join("model.xml"), None);
        // Every hostile sample attacks the reader itself.
        let by_reader = REFUSED_BY_READER.contains(&name.as_str()) || name.starts_with("hostile_");
        match (by_reader, result) {
            (true, Ok(_)) => problems.push(format!("{name}: accepted")),
            (true, Err(e)) => {
                let text = e.to_string().to_lowercase();
                if !text.contains(&phrase) {
                    problems.push(format!("{name}: {text:?} does not mention {phrase:?}"));
                }
            }
            (false, Ok(_)) => {}
            (false, Err(e)) => problems.push(format!("{name}: should be left to later stages, but: {e}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_sample_the_reader_accepts_passes_the_reference_check() {
    let mut checked = 0;
    let mut problems = Vec::new();
    for case in cases(&samples_dir()).into_iter().chain(cases(&samples_dir().join("bad"))) {
        let Ok(model) = read_model(&case.join("model.xml"), None) else { continue };
        checked += 1;
        if let Err(e) = model.check_references() {
            problems.push(format!("{}:\n{e}", case.display()));
        }
    }
    assert!(checked > 100, "only {checked} samples were read");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
