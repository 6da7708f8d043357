//! `ovir extract`: layers written as conformance cases, checked by hand
//! and by `ovir conformance`.

mod common;

use std::path::Path;

use common::{listing, ovir, samples, split_flip_join, text, Scratch};
use ovir::Tensor;

/// The Split, Reverse ("flip", tensor "flipped") and Concat ("join")
/// model, with its input [[0, 1, 2], [3, 4, 5]] in `dir/data.npy`.
fn write_model(dir: &Path) -> String {
    let path = split_flip_join(dir, "flip", &["flipped"], "join");
    ovir::npy::write_npy_file(
        &Tensor::from_vec(&[2, 3], vec![0i32, 1, 2, 3, 4, 5]).unwrap(),
        &dir.join("data.npy"),
    )
    .unwrap();
    path
}

fn read(path: &Path) -> (Vec<usize>, Vec<i32>) {
    let t = ovir::npy::read_npy_file(path).unwrap();
    (t.shape().to_vec(), t.to_vec::<i32>().unwrap())
}

fn extract(model: &str, dir: &Path, more: &[&str]) -> std::process::Output {
    let data = format!("data={}", dir.join("data.npy").display());
    let mut args = vec!["extract", model, "-i", &data];
    args.extend_from_slice(more);
    ovir(&args)
}

#[test]
fn one_layer_becomes_a_case_fed_with_what_the_model_gave_it() {
    let work = Scratch::new("extract-one");
    let model = write_model(&work);
    let case = work.join("cases/flip");
    let out = extract(&model, &work, &["--layer", "flip", "-o", &case.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("(layer \"flip\": 1 input, 1 output)"), "{}", text(&out.stdout));
    assert_eq!(listing(&case), ["expected", "in", "model.bin", "model.xml"]);
    // Its input is Split's second output, [[1], [4]], named by its layer
    // and port as that output has no tensor name; it reverses to
    // [[4], [1]] under the flip's own tensor name.
    assert_eq!(listing(&case.join("in")), ["split.port1.npy"]);
    assert_eq!(read(&case.join("in/split.port1.npy")), (vec![2, 1], vec![1, 4]));
    assert_eq!(listing(&case.join("expected")), ["flipped.npy"]);
    assert_eq!(read(&case.join("expected/flipped.npy")), (vec![2, 1], vec![4, 1]));
    // The axes stay a Const; the layer keeps its name and type.
    let xml = std::fs::read_to_string(case.join("model.xml")).unwrap();
    assert!(xml.contains(r#"name="flip" type="Reverse""#), "{xml}");
    assert_eq!(xml.matches(r#"type="Const""#).count(), 1, "{xml}");
    assert_eq!(xml.matches(r#"type="Parameter""#).count(), 1, "{xml}");
    let run = ovir(&["conformance", &case.display().to_string()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stdout));
}

#[test]
fn every_layer_becomes_a_case_and_each_passes() {
    let work = Scratch::new("extract-all");
    let model = write_model(&work);
    let cases = work.join("cases");
    let out = extract(&model, &work, &["--all", "-o", &cases.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("3 cases of 3 written to"), "{}", text(&out.stdout));
    assert_eq!(listing(&cases), ["flip", "join", "split"]);
    // Split's three outputs are each expected, one column each.
    let split = cases.join("split");
    assert_eq!(listing(&split.join("in")), ["data.npy"]);
    assert_eq!(listing(&split.join("expected")), ["split.port0.npy", "split.port1.npy", "split.port2.npy"]);
    assert_eq!(read(&split.join("expected/split.port2.npy")), (vec![2, 1], vec![2, 5]));
    // The Concat's two inputs: the flipped column and the last one.
    let join = cases.join("join");
    assert_eq!(listing(&join.join("in")), ["flipped.npy", "split.port2.npy"]);
    assert_eq!(read(&join.join("expected/out.npy")), (vec![2, 2], vec![4, 2, 1, 5]));
    let run = ovir(&["conformance", &cases.display().to_string()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stdout));
    assert!(text(&run.stdout).contains("3 passed, 0 failed"), "{}", text(&run.stdout));
}

#[test]
fn a_converted_model_cut_into_cases_passes_conformance() {
    // Keras' bidirectional layer, converted by OpenVINO's TensorFlow front
    // end: ShapeOf, Gathers and a Broadcast make the lengths its
    // ReverseSequence reads.
    let sample = samples().join("keras_bidirectional_merge");
    let work = Scratch::new("extract-keras");
    let cases = work.join("cases");
    let input = format!("x={}", sample.join("in/x.npy").display());
    let model = sample.join("model.xml").display().to_string();
    let out = ovir(&["extract", &model, "-i", &input, "--all", "-o", &cases.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        listing(&cases),
        [
            "Broadcast_8",
            "Gather_4",
            "Gather_7",
            "ShapeOf_1",
            "functional_1_backward_1_ReverseV2",
            "functional_1_merge_1_concat"
        ]
    );
    // The Gather reads the input's shape, [2, 4, 3], a computed value
    // that becomes its case's input; its indices stay Consts.
    let shape = ovir::npy::read_npy_file(&cases.join("Gather_4/in/ShapeOf_1.npy")).unwrap();
    assert_eq!(shape.to_vec::<i32>().unwrap(), [2, 4, 3]);
    // The last layer's expected output is the whole model's.
    let whole = ovir::npy::read_npy_file(&sample.join("expected/Identity_0.npy")).unwrap();
    let concat = cases.join("functional_1_merge_1_concat/expected");
    let [file] = listing(&concat).try_into().unwrap();
    assert_eq!(ovir::npy::read_npy_file(&concat.join(file)).unwrap(), whole);
    let run = ovir(&["conformance", &cases.display().to_string()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stdout));
    assert!(text(&run.stdout).contains("6 passed, 0 failed"), "{}", text(&run.stdout));
}

#[test]
fn what_cannot_be_a_case_is_refused() {
    let work = Scratch::new("extract-bad");
    let model = write_model(&work);
    let case = work.join("case").display().to_string();
    let out = extract(&model, &work, &["--layer", "nope", "-o", &case]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("the model has no layer named \"nope\""), "{}", text(&out.stderr));
    let out = extract(&model, &work, &["--layer", "data", "-o", &case]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("layer \"data\" is a Parameter, which computes nothing"),
        "{}",
        text(&out.stderr)
    );
    let out = extract(&model, &work, &["-o", &case]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--layer"), "{}", text(&out.stderr));
    // A folder that holds something is kept, unless --force.
    let out = extract(&model, &work, &["--layer", "flip", "-o", &case]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stale = work.join("case/expected/stale.npy");
    std::fs::write(&stale, b"x").unwrap();
    let out = extract(&model, &work, &["--layer", "join", "-o", &case]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("is not empty; give --force"), "{}", text(&out.stderr));
    assert!(stale.exists());
    let out = extract(&model, &work, &["--layer", "join", "-o", &case, "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(listing(&work.join("case/expected")), ["out.npy"]);
}
