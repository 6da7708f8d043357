//! Every sample through the conformance runner, the same code path as
//! `ovir conformance ir-samples`: one test per case folder, named by it
//! (`rseq_b1_s0_4x4`, `bad/cycle`, `unsupported/onnx_lstm`), so a failure
//! names its case and `cargo test CASE` runs only that case; and one test
//! of the whole report, as `ovir conformance` prints it.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use ovir_cli::conformance::{find_cases, run_case, run_dir, write_report};
use ovir_tests::samples_dir;

fn case(dir: PathBuf, root: PathBuf) -> Result<(), Failed> {
    let result = run_case(&dir, &root);
    if result.passed {
        Ok(())
    } else {
        Err(format!("{}: {}", result.name, result.detail).into())
    }
}

fn report(root: &Path) -> Result<(), Failed> {
    let results = run_dir(root).map_err(|e| format!("{e:#}"))?;
    let mut report = Vec::new();
    write_report(&results, &mut report).map_err(|e| e.to_string())?;
    let report = String::from_utf8_lossy(&report).into_owned();
    let failed = results.iter().filter(|r| !r.passed).count();
    if failed > 0 {
        return Err(format!("{failed} cases failed:\n{report}").into());
    }
    insta::assert_snapshot!("conformance_report", report);
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let root = samples_dir();
    let cases = find_cases(&root).expect("ir-samples is readable");
    assert!(cases.len() >= 200, "expected at least 200 cases, found {}", cases.len());
    let mut trials: Vec<Trial> = cases
        .into_iter()
        .map(|dir| {
            let name = dir.strip_prefix(&root).unwrap_or(&dir).display().to_string();
            let root = root.clone();
            Trial::test(name, move || case(dir, root))
        })
        .collect();
    trials.push(Trial::test("conformance_report", move || report(&samples_dir())));
    libtest_mimic::run(&args, trials).exit();
}
