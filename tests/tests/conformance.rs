//! Every sample through the library's conformance runner
//! (`ovir::conformance`), the one `ovir conformance ir-samples` uses: one
//! test per case folder, named by it (`rseq_b1_s0_4x4`, `bad/cycle`,
//! `unsupported/onnx_lstm`), so a failure names its case and
//! `cargo test CASE` runs only that case; and one test of the whole
//! report, as `ovir conformance` prints it.

use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};
use ovir::conformance::{cases, run_all, write_report, Tolerance};
use ovir_tests::samples_dir;

fn report(root: &Path) -> Result<(), Failed> {
    let results = run_all(root, &ovir::Core::new(), Tolerance::EXACT)?;
    let mut report = Vec::new();
    write_report(&results, &mut report)?;
    let report = String::from_utf8_lossy(&report).into_owned();
    let failed = results.iter().filter(|r| !r.passed()).count();
    if failed > 0 {
        return Err(format!("{failed} cases failed:\n{report}").into());
    }
    insta::assert_snapshot!("conformance_report", report);
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let root = samples_dir();
    let cases = cases(&root).expect("ir-samples is readable");
    assert!(cases.len() >= 200, "expected at least 200 cases, found {}", cases.len());
    let mut trials: Vec<Trial> = cases
        .into_iter()
        .map(|case| {
            Trial::test(case.name().to_string(), move || {
                case.run()?;
                Ok(())
            })
        })
        .collect();
    trials.push(Trial::test("conformance_report", move || report(&samples_dir())));
    libtest_mimic::run(&args, trials).exit();
}
