//! `ovir convert`: what it writes runs as the model it read, and folding
//! leaves the converters' shape arithmetic as constants.

mod common;

use std::path::Path;
use std::process::Command;

use common::{ovir, samples, text, Scratch};

/// Converts a sample with `flags`, then runs the result on the sample's
/// inputs with `--assert-outputs` against its expected outputs. Returns
/// the written XML.
fn convert_and_run(case: &str, flags: &[&str], out: &Path) -> String {
    let dir = samples().join(case);
    let xml = out.join(case).join("model.xml");
    let (model, written) = (dir.join("model.xml").display().to_string(), xml.display().to_string());
    let mut args = vec!["convert", &model, "-o", &written];
    args.extend_from_slice(flags);
    let done = ovir(&args);
    assert_eq!(done.status.code(), Some(0), "{case}: {}", text(&done.stderr));
    let mut run = vec!["run".to_string(), written.clone()];
    for input in std::fs::read_dir(dir.join("in")).unwrap() {
        let path = input.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        run.extend(["-i".to_string(), format!("{name}={}", path.display())]);
    }
    run.extend(["--assert-outputs".to_string(), dir.join("expected").display().to_string()]);
    let ran = Command::new(env!("CARGO_BIN_EXE_ovir")).args(&run).output().unwrap();
    assert_eq!(ran.status.code(), Some(0), "{case} {flags:?}: {}{}", text(&ran.stdout), text(&ran.stderr));
    std::fs::read_to_string(xml).unwrap()
}

#[test]
fn ir_v10_is_written_as_v11_that_runs_the_same() {
    let out = Scratch::new("v10");
    for case in ["ir_v10_reverse", "ir_v10_rseq"] {
        let xml = convert_and_run(case, &[], &out);
        assert!(xml.contains("<net name=") && xml.contains("version=\"11\">"), "{xml}");
    }
}

/// The converted samples, with the shape of each input fixed to that of
/// its sample data where the model leaves it open.
fn converted_cases() -> Vec<(String, Vec<String>)> {
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(samples()).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if !["tf_", "torch_", "keras_", "onnx_"].iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let mut shapes = Vec::new();
        for input in std::fs::read_dir(dir.join("in")).unwrap() {
            let path = input.unwrap().path();
            let t = ovir_npy::read_npy_file(&path).unwrap();
            let dims: Vec<String> = t.shape().iter().map(usize::to_string).collect();
            shapes.push(format!("{}=[{}]", path.file_stem().unwrap().to_string_lossy(), dims.join(",")));
        }
        cases.push((name, shapes));
    }
    cases.sort();
    cases
}

#[test]
fn folding_leaves_no_shape_of_where_shapes_are_static_and_runs_the_same() {
    let out = Scratch::new("fold");
    let cases = converted_cases();
    assert!(cases.len() >= 10, "{cases:?}");
    let mut static_before = 0;
    for (case, shapes) in &cases {
        let model = ovir::Model::read(samples().join(case).join("model.xml")).unwrap();
        let is_static = model.inputs().iter().all(|i| i.shape.is_static());
        let xml = convert_and_run(case, &["--fold"], &out);
        if is_static {
            static_before += 1;
            assert!(!xml.contains("type=\"ShapeOf\""), "{case} keeps a ShapeOf:\n{xml}");
        }
        // With every input's shape fixed, nothing is left to compute from
        // shapes at run time.
        let mut flags = vec!["--fold"];
        for s in shapes {
            flags.extend(["--shape", s.as_str()]);
        }
        let xml = convert_and_run(case, &flags, &out.join("reshaped"));
        assert!(!xml.contains("type=\"ShapeOf\""), "{case} {flags:?} keeps a ShapeOf:\n{xml}");
        assert!(!xml.contains("type=\"Broadcast\""), "{case} {flags:?} keeps a Broadcast:\n{xml}");
    }
    assert!(static_before >= 1);
}

#[test]
fn a_reverse_with_nothing_to_reverse_disappears() {
    let out = Scratch::new("noop");
    for case in ["reverse_mask_all_false", "reverse_axes_empty"] {
        let xml = convert_and_run(case, &["--fold"], &out);
        assert!(!xml.contains("type=\"Reverse\""), "{case}:\n{xml}");
        // The output keeps its name as the Result's own, and the input
        // keeps only its own.
        assert!(xml.contains("output_names=\"out\""), "{case}:\n{xml}");
        assert!(xml.contains("names=\"data\""), "{case}:\n{xml}");
        let model = out.join(case).join("model.xml").display().to_string();
        let info = text(&ovir(&["info", &model]).stdout);
        assert!(info.lines().any(|l| l.trim_start().starts_with("out ")), "{case}:\n{info}");
    }
}

#[test]
fn a_shape_for_an_unknown_input_or_in_a_bad_form_is_refused() {
    let model = samples().join("tf_reverse_axis1/model.xml").display().to_string();
    let dir = Scratch::new("bad-shape");
    let out = dir.join("model.xml").display().to_string();
    let unknown = ovir(&["convert", &model, "-o", &out, "--shape", "y=[2]"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(text(&unknown.stderr).contains("no input y; its inputs are: x"), "{}", text(&unknown.stderr));
    let bad = ovir(&["convert", &model, "-o", &out, "--shape", "x=[2,-3]"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).contains("'[2,-3]' is not a shape"), "{}", text(&bad.stderr));
}
