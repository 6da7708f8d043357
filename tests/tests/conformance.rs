//! Every sample through the conformance runner, the same code path as
//! `ovir conformance ir-samples`.

use ovir_tests::samples_dir;

#[test]
fn every_sample_passes_conformance() {
    let results = ovir_cli::conformance::run_dir(&samples_dir()).expect("ir-samples is readable");
    let mut report = Vec::new();
    ovir_cli::conformance::write_report(&results, &mut report).expect("writing to memory");
    let report = String::from_utf8_lossy(&report).into_owned();
    let failed: Vec<_> = results.iter().filter(|r| !r.passed).collect();
    assert!(failed.is_empty(), "{} cases failed:\n{report}", failed.len());
    insta::assert_snapshot!("conformance_report", report);
}
