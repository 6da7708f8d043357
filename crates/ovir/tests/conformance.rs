//! The conformance runner on case folders made here: each way a case can
//! pass, fail or be malformed, with the message it gives.

use std::path::Path;

use ovir::conformance::{cases, Case, CaseErrorKind, Failure, Mismatch, OutputProblem, Passed, Tolerance};
use ovir::{f16, npy, ElementType, ModelBuilder, PartialShape, Tensor};
use tempfile::TempDir;

/// A case folder holding a model that converts `data` (f32 [3]) to the
/// f16 output `half`, with the input 0.1, 2, 1e9 in `in/data.npy`; the
/// outputs are then 0.1, 2 and inf in f16.
fn case() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut b = ModelBuilder::new("to_f16");
    let data = b.parameter("data", ElementType::F32, PartialShape::from_static(&[3])).unwrap();
    let half = b.convert(data, ElementType::F16).unwrap();
    b.set_names(half, &["half"]).unwrap();
    b.result(half).unwrap();
    b.build().unwrap().save(dir.path().join("model.xml")).unwrap();
    write(dir.path(), "in/data.npy", &input());
    dir
}

fn input() -> Tensor {
    Tensor::from_vec(&[3], vec![0.1f32, 2.0, 1e9]).unwrap()
}

fn halves(v: [f32; 3]) -> Tensor {
    Tensor::from_vec(&[3], v.map(f16::from_f32).to_vec()).unwrap()
}

fn write(dir: &Path, file: &str, t: &Tensor) {
    let path = dir.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    npy::write_npy_file(t, &path).unwrap();
}

fn text(dir: &Path, file: &str, content: &str) {
    std::fs::write(dir.join(file), content).unwrap();
}

fn failure(dir: &TempDir) -> Failure {
    Case::new(dir.path()).run().unwrap_err()
}

/// The message of a failure with the temporary folder's path as `CASE`.
fn message(dir: &TempDir) -> String {
    failure(dir).to_string().replace(&dir.path().display().to_string(), "CASE")
}

#[test]
fn a_case_passes_on_equal_outputs_an_expected_error_or_warning() {
    let dir = case();
    write(dir.path(), "expected/half.npy", &halves([0.1, 2.0, f32::INFINITY]));
    let passed = Case::new(dir.path()).run().unwrap();
    assert_eq!(passed, Passed::Outputs { count: 1, tolerance: Tolerance::EXACT });
    assert_eq!(passed.to_string(), "1 output bit-exact");

    // An f64 input is refused; the phrase is compared without case.
    let dir = case();
    write(dir.path(), "in/data.npy", &Tensor::from_vec(&[3], vec![0.0f64; 3]).unwrap());
    text(dir.path(), "expected_error", "F64\n");
    assert_eq!(Case::new(dir.path()).run().unwrap().to_string(), "refused as expected (F64)");
}

#[test]
fn outputs_that_differ_say_where_and_by_how_much() {
    let dir = case();
    write(dir.path(), "expected/half.npy", &halves([0.1, 2.5, f32::INFINITY]));
    let Failure::Outputs(problems) = failure(&dir) else { panic!("outputs differ") };
    let [OutputProblem::Differs { output, file, mismatch: Mismatch::Values(v) }] = problems.as_slice() else {
        panic!("{problems:?}")
    };
    assert_eq!((output.as_str(), file.as_str()), ("half", "half"));
    assert_eq!((v.count, v.total, v.first.flat, v.first.index.as_slice()), (1, 3, 1, &[1][..]));
    assert_eq!((v.first.expected.as_str(), v.first.actual.as_str()), ("2.5", "2"));
    assert_eq!(v.largest_difference.as_deref(), Some("0.5"));
    assert_eq!(
        message(&dir),
        "half: 1 of 3 elements differ; first at [1]: expected 2.5, got 2; largest absolute difference 0.5"
    );
    // f16 2 and 2.5 are 256 f16 steps apart (2^-9 each between 2 and 4).
    let core = ovir::Core::new();
    assert!(Case::new(dir.path()).run_with(&core, Tolerance::EXACT.with_ulp(255)).is_err());
    let passed = Case::new(dir.path()).run_with(&core, Tolerance::EXACT.with_ulp(256)).unwrap();
    assert_eq!(passed.to_string(), "1 output within ulp=256");
}

#[test]
fn expected_arrays_of_another_type_or_shape_are_named() {
    let dir = case();
    write(dir.path(), "expected/half.npy", &input());
    assert_eq!(message(&dir), "half: element type f32 was expected, got f16");
    write(dir.path(), "expected/half.npy", &Tensor::from_vec(&[1, 3], vec![f16::ZERO; 3]).unwrap());
    assert_eq!(message(&dir), "half: shape [1, 3] was expected, got [3]");
}

#[test]
fn missing_and_extra_expected_arrays_are_named() {
    let dir = case();
    write(dir.path(), "expected/other.npy", &input());
    assert_eq!(message(&dir), "no expected/half.npy; expected/other.npy matches no output");
}

#[test]
fn inputs_may_come_from_one_archive() {
    let dir = case();
    std::fs::remove_dir_all(dir.path().join("in")).unwrap();
    npy::write_npz_file(&[("data".to_string(), input())], &dir.path().join("inputs.npz")).unwrap();
    write(dir.path(), "expected/half.npy", &halves([0.1, 2.0, f32::INFINITY]));
    assert!(Case::new(dir.path()).run().is_ok());
    // Not both at once.
    write(dir.path(), "in/data.npy", &input());
    assert_eq!(message(&dir), "CASE has both in and inputs.npz: a case may have only one of them");
}

#[test]
fn an_expected_error_that_does_not_come_fails() {
    let dir = case();
    text(dir.path(), "expected_error", "cycle");
    assert_eq!(message(&dir), "ran, but an error mentioning \"cycle\" was expected");
    let dir = case();
    write(dir.path(), "in/data.npy", &Tensor::from_vec(&[2], vec![0.0f32; 2]).unwrap());
    text(dir.path(), "expected_error", "cycle");
    let Failure::WrongError { phrase, message } = failure(&dir) else { panic!("a wrong error") };
    assert_eq!(phrase, "cycle");
    assert!(message.contains("[2]") && message.contains("[3]"), "{message}");
    // A model refused where outputs were expected gives the error's first
    // line.
    let dir = case();
    std::fs::write(dir.path().join("model.xml"), "<net").unwrap();
    write(dir.path(), "expected/half.npy", &input());
    let Failure::Refused { message } = failure(&dir) else { panic!("refused") };
    assert!(message.starts_with("error"), "{message}");
    text(dir.path(), "expected_warning", "dims");
    std::fs::remove_dir_all(dir.path().join("expected")).unwrap();
    assert!(matches!(failure(&dir), Failure::RefusedNotWarned { .. }));
}

#[test]
fn a_warning_that_does_not_come_fails() {
    let dir = case();
    text(dir.path(), "expected_warning", "precision");
    let Failure::NoWarning { phrase, warnings } = failure(&dir) else { panic!("no warning") };
    assert_eq!((phrase.as_str(), warnings.len()), ("precision", 0));
    assert_eq!(message(&dir), "loads, but no warning mentions \"precision\"");
}

#[test]
fn malformed_case_folders_are_errors_that_name_the_file() {
    let kind = |dir: &TempDir| match failure(dir) {
        Failure::Case(e) => format!("{:?}", e.kind()),
        other => panic!("a case error, not {other}"),
    };
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(message(&empty), "CASE/model.xml does not exist");

    let dir = case();
    assert_eq!(kind(&dir), format!("{:?}", CaseErrorKind::NoExpectation));
    assert_eq!(
        message(&dir),
        "CASE has no expected/, expected_error or expected_warning: a case needs one of them"
    );

    text(dir.path(), "expected_error", "  \n");
    assert_eq!(
        message(&dir),
        "CASE/expected_error is empty: it must hold a phrase that the message must contain"
    );

    text(dir.path(), "expected_warning", "dims");
    assert_eq!(
        message(&dir),
        "CASE has both expected_error and expected_warning: a case may have only one of them"
    );

    let dir = case();
    text(dir.path(), "expected", "not a folder");
    assert_eq!(message(&dir), "CASE/expected is not a folder");

    // Broken arrays, as inputs and as expected outputs.
    let dir = case();
    std::fs::create_dir(dir.path().join("expected")).unwrap();
    text(dir.path(), "in/data.npy", "not numpy");
    let m = message(&dir);
    assert!(m.contains("CASE/in/data.npy") && m.contains("not a .npy file"), "{m}");
    write(dir.path(), "in/data.npy", &input());
    text(dir.path(), "expected/half.npy", "\u{93}NUMPY");
    let m = message(&dir);
    assert!(m.contains("CASE/expected/half.npy"), "{m}");
    // A truncated archive of inputs.
    std::fs::remove_dir_all(dir.path().join("in")).unwrap();
    text(dir.path(), "inputs.npz", "PK");
    let m = message(&dir);
    assert!(m.contains("CASE/inputs.npz"), "{m}");

    // An input the case does not give: the message names the file that
    // should hold it, whether the case has no inputs at all, an `in/`
    // without it, or an archive without it.
    let dir = case();
    write(dir.path(), "expected/half.npy", &halves([0.1, 2.0, f32::INFINITY]));
    std::fs::remove_file(dir.path().join("in/data.npy")).unwrap();
    let missing = "CASE/in/data.npy does not exist: the model's input \"data\" is read from it";
    assert_eq!(message(&dir), missing);
    assert_eq!(kind(&dir), format!("{:?}", CaseErrorKind::MissingInput { input: "data".to_string() }));
    std::fs::remove_dir(dir.path().join("in")).unwrap();
    assert_eq!(message(&dir), missing);
    npy::write_npz_file(&[], &dir.path().join("inputs.npz")).unwrap();
    assert_eq!(message(&dir), "CASE/inputs.npz holds no array for the model's input \"data\"");
}

#[test]
fn cases_are_found_at_any_depth_and_named_by_their_path() {
    let root = tempfile::tempdir().unwrap();
    for sub in ["b", "bad/x", "a/deeper/y"] {
        let made = case();
        std::fs::create_dir_all(root.path().join(sub)).unwrap();
        std::fs::copy(made.path().join("model.xml"), root.path().join(sub).join("model.xml")).unwrap();
    }
    let names: Vec<String> = cases(root.path()).unwrap().iter().map(|c| c.name().to_string()).collect();
    assert_eq!(names, ["a/deeper/y", "b", "bad/x"]);
    let single = case();
    assert_eq!(cases(single.path()).unwrap()[0].name(), ".");
    let missing = root.path().join("nowhere");
    let e = cases(&missing).unwrap_err();
    assert_eq!(e.path(), missing);
    assert!(e.to_string().ends_with("nowhere is not a folder"), "{e}");
}
