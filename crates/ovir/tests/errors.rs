//! Errors as a program sees them: printed by `main` through `?` (their
//! `Debug`), printed with `{}`, and walked through `source()`.

use std::error::Error as _;
use std::path::{Path, PathBuf};

use ovir::{Error, Model, Tensor};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ir-samples")
}

/// A copy of a sample's XML with a megabyte of comment after the `<net>`
/// line, so that an error holding the text would show it.
fn padded_copy(case: &str, dir: &Path) -> PathBuf {
    let xml = std::fs::read_to_string(samples().join(case).join("model.xml")).unwrap();
    let (head, rest) = xml.split_once("<layers>").unwrap();
    let padding = format!("<!-- {} -->\n", "PADDING ".repeat(128 * 1024));
    let path = dir.join("model.xml");
    std::fs::write(&path, format!("{head}{padding}<layers>{rest}")).unwrap();
    let bin = samples().join(case).join("model.bin");
    if bin.exists() {
        std::fs::copy(bin, dir.join("model.bin")).unwrap();
    }
    path
}

/// What `fn main() -> Result<(), Box<dyn Error>>` prints after `Error: `.
fn as_main_prints(result: Result<Model, Error>) -> String {
    let boxed: Result<Model, Box<dyn std::error::Error>> = result.map_err(Into::into);
    format!("{:?}", boxed.expect_err("the model is refused"))
}

#[test]
fn debug_names_file_line_layer_and_message_without_the_xml() {
    let dir = tempfile::tempdir().unwrap();

    // Refused by the reader: a broken edge.
    let path = padded_copy("bad/edge_to_missing_port", dir.path());
    let text = as_main_prints(Model::read(&path));
    assert!(!text.contains("PADDING"), "{}", &text[..text.len().min(500)]);
    assert!(text.len() < 1_000, "Debug is {} bytes long", text.len());
    assert!(text.starts_with("Read: "), "{text}");
    // The padding is one line, so the edge moved down by exactly one.
    let at = format!("{}:55:", path.display());
    assert!(text.contains(&at) && text.contains("edge to-port 5 names no input port of layer 2"), "{text}");
    assert!(text.contains("layer 2 \"reverse\" (Reverse)"), "{text}");

    // Refused by validation: an axis out of range.
    let path = padded_copy("bad/reverse_axes_out_of_range", dir.path());
    let text = as_main_prints(Model::read(&path));
    assert!(!text.contains("PADDING") && text.len() < 1_000, "{}", &text[..text.len().min(500)]);
    assert!(text.starts_with("Invalid: "), "{text}");
    assert!(text.contains(&format!("{}:23:", path.display())) && text.contains("some of the axes"), "{text}");
    assert!(text.contains("layer 2 \"reverse\" (Reverse)"), "{text}");

    // Refused at run time.
    let path = padded_copy("rseq_runtime_length_above_dim", dir.path());
    let compiled = Model::read(&path).unwrap().compile().unwrap();
    let mut request = compiled.infer_request();
    let case = samples().join("rseq_runtime_length_above_dim/in");
    for name in ["data", "lengths"] {
        let t = ovir_tensor_from(&case.join(format!("{name}.npy")));
        request.set_input(name, t).unwrap();
    }
    let err = request.infer().unwrap_err();
    let text = format!("{err:?}");
    assert!(!text.contains("PADDING") && text.len() < 1_000, "{}", &text[..text.len().min(500)]);
    assert!(text.starts_with("Run: "), "{text}");
    let at = format!("{}:22:", path.display());
    assert!(text.contains(&at) && text.contains("layer 2 \"reverse_sequence\""), "{text}");
    assert!(
        text.contains("sequence length 6 at batch index 1 is out of range: it must lie between 0 and 5"),
        "{text}"
    );
}

fn ovir_tensor_from(path: &Path) -> Tensor {
    ovir_npy::read_npy_file(path).unwrap()
}

#[test]
fn each_cause_is_told_once_and_in_the_message() {
    let compiled = Model::read(samples().join("rseq_b1_s0_4x4/model.xml")).unwrap().compile().unwrap();
    let mut request = compiled.infer_request();
    let too_large = compiled
        .model()
        .compile_with(ovir::CompileOptions::default().with_max_memory(10))
        .unwrap()
        .infer_request()
        .set_input("data", Tensor::zeros(ovir::ElementType::F32, &[4, 4]).unwrap())
        .unwrap_err();
    let wrong_type =
        request.set_input("data", Tensor::zeros(ovir::ElementType::F64, &[4, 4]).unwrap()).unwrap_err();
    let run_time = {
        let compiled = Model::read(samples().join("rseq_runtime_length_above_dim/model.xml"))
            .unwrap()
            .compile()
            .unwrap();
        let mut request = compiled.infer_request();
        let case = samples().join("rseq_runtime_length_above_dim/in");
        request.set_input("data", ovir_tensor_from(&case.join("data.npy"))).unwrap();
        request.set_input("lengths", ovir_tensor_from(&case.join("lengths.npy"))).unwrap();
        request.infer().unwrap_err()
    };
    let read = Model::read(samples().join("bad/edge_to_missing_port/model.xml")).unwrap_err();
    let missing = Model::read(samples().join("no such folder/model.xml")).unwrap_err();
    let cases: Vec<(Error, &str)> = vec![
        (too_large, "input \"data\" is too large: the f32 tensor of shape [4, 4] needs 64 bytes, more than the memory limit of 10 bytes"),
        (wrong_type, "input \"data\" must be f32, but the tensor given is f64"),
        (run_time, "failed: sequence length 6 at batch index 1 is out of range: it must lie between 0 and 5"),
        (read, "edge to-port 5 names no input port of layer 2"),
        (missing, "No such file or directory"),
    ];
    for (err, words) in cases {
        // The message holds every cause, so none is returned to repeat it.
        assert!(err.source().is_none(), "{err} returns a source");
        let text = err.to_string();
        assert_eq!(text.matches(words).count(), 1, "{text:?} does not say {words:?} once");
    }
}
