//! Snapshots of `ovir info` for every valid sample and of the rendered
//! diagnostics for every malformed one.

use ovir_tests::{case_dirs, case_name, samples_dir};

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
        let outcome = ovir::Model::read(dir.join("model.xml")).and_then(|m| m.compile());
        let err = match outcome {
            Ok(_) => panic!("bad sample {name} was accepted"),
            Err(e) => e,
        };
        insta::assert_snapshot!(format!("bad__{name}"), err.render(false));
    }
}
