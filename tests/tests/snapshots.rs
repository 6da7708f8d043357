//! Snapshots of `ovir info` for every valid sample and of the rendered
//! diagnostics for every malformed one.

use ovir::shape::OpRegistry;
use ovir_tests::{case_dirs, case_name, samples_dir};

/// `text` with the lists of built-in ops that messages give (the opset
/// ops and the extensions that ship with ovir) in words, so that adding
/// an op changes no snapshot. The lists themselves come from the
/// registry, which its own tests check.
fn without_op_lists(text: &str) -> String {
    let registry = OpRegistry::new();
    text.replace(
        &format!("the supported operations are {}", OpRegistry::describe_opset_ops()),
        "the supported operations are {the opset ops ovir supports}",
    )
    .replace(
        &format!("the registered extensions are {}", registry.describe_extensions()),
        "the registered extensions are {the extensions that ship with ovir}",
    )
}

#[test]
fn info_of_every_sample() {
    let cases = case_dirs(&samples_dir());
    assert!(cases.len() >= 40, "expected at least 40 samples, found {}", cases.len());
    for dir in cases {
        let name = case_name(&dir);
        let model = ovir::Model::read(dir.join("model.xml"))
            .unwrap_or_else(|e| panic!("{name} should load:\n{}", e.render(false)));
        let mut text = Vec::new();
        ovir_cli::info::write_text(&ovir_cli::info::describe(&model), &mut text).expect("writing to memory");
        insta::assert_snapshot!(format!("info__{name}"), String::from_utf8_lossy(&text));
    }
}

#[test]
fn diagnostics_of_every_bad_sample() {
    let cases = case_dirs(&samples_dir().join("bad"));
    assert!(cases.len() >= 25, "expected at least 25 bad samples, found {}", cases.len());
    for dir in cases {
        let name = case_name(&dir);
        let outcome = ovir::Model::read(dir.join("model.xml")).and_then(|m| m.compile().map(|_| m));
        let text = match outcome {
            // The port cases load, as in OpenVINO, but with warnings.
            Ok(model) if dir.join("expected_warning").is_file() => {
                assert!(!model.warnings().is_empty(), "bad sample {name} loaded without a warning");
                model.render_warnings(false)
            }
            Ok(_) => panic!("bad sample {name} was accepted"),
            Err(e) => e.render(false),
        };
        insta::assert_snapshot!(format!("bad__{name}"), without_op_lists(&text));
    }
}

#[test]
fn info_of_every_model_ovir_cannot_run() {
    // Models from OpenVINO's converters with operations ovir does not
    // know are described all the same: every layer, port and edge, the
    // facts inferred around the unknown layers, and the problems last.
    let cases = case_dirs(&samples_dir().join("unsupported"));
    assert!(cases.len() >= 2, "expected at least 2 unsupported samples, found {}", cases.len());
    for dir in cases {
        let name = case_name(&dir);
        assert!(ovir::Model::read(dir.join("model.xml")).is_err(), "{name} was accepted");
        let d = ovir_cli::info::describe_file(&dir.join("model.xml"), None)
            .unwrap_or_else(|e| panic!("{name} should be described:\n{}", e.render(false)));
        assert!(d.layers.iter().any(|l| !l.supported), "{name}: no layer is marked unsupported");
        assert!(!d.problems.is_empty(), "{name}: no problem is listed");
        let mut text = Vec::new();
        ovir_cli::info::write_text(&d, &mut text).expect("writing to memory");
        insta::assert_snapshot!(
            format!("unsupported__{name}"),
            without_op_lists(&String::from_utf8_lossy(&text))
        );
    }
}
