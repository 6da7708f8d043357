//! `ovir conformance`: run a tree of case folders and report pass or fail.
//!
//! A case folder holds `model.xml`, `model.bin` when the model has weights,
//! `in/<input name>.npy` for each input, and one of
//! `expected/<output name>.npy` for each output, a file `expected_error`
//! holding a phrase that the error must contain, or a file
//! `expected_warning` holding a phrase that a warning must contain (a
//! model that loads, but whose ports contradict inference).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use ovir::Model;

use crate::args::ConformanceArgs;
use crate::io::{difference, load_arrays, output_file_names};
use crate::{CliError, Outcome};

/// The outcome of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseResult {
    /// The case folder, relative to the directory that was searched.
    pub name: String,
    /// Whether the case passed.
    pub passed: bool,
    /// Why it failed, or a short note on what passed.
    pub detail: String,
}

/// Every folder below `dir` (itself included) that holds a `model.xml`,
/// sorted by path.
pub fn find_cases(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut cases = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        if d.join("model.xml").is_file() {
            cases.push(d.clone());
        }
        let entries = std::fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() && !path.is_symlink() {
                pending.push(path);
            }
        }
    }
    cases.sort();
    Ok(cases)
}

/// Loads, compiles and runs one case: the outputs, or the rendered error.
fn execute(dir: &Path) -> Result<(ovir::CompiledModel, Vec<ovir::Tensor>), String> {
    let model = Model::read(dir.join("model.xml")).map_err(|e| e.render(false))?;
    let compiled = model.compile().map_err(|e| e.render(false))?;
    let mut request = compiled.infer_request();
    let in_dir = dir.join("in");
    if in_dir.is_dir() {
        let inputs = load_arrays(&in_dir).map_err(|e| format!("error: {e:#}"))?;
        for (name, tensor) in inputs {
            request.set_input(name.as_str(), tensor).map_err(|e| e.render(false))?;
        }
    }
    request.infer().map_err(|e| e.render(false))?;
    // Expected arrays of packed and 8-bit float outputs are stored one u8
    // (i8 for i4) per element.
    let outputs: Vec<ovir::Tensor> = request.outputs().into_iter().map(ovir::packed::to_exchange).collect();
    Ok((compiled, outputs))
}

/// Runs one case folder.
pub fn run_case(dir: &Path, root: &Path) -> CaseResult {
    let name = dir.strip_prefix(root).unwrap_or(dir).display().to_string();
    let name = if name.is_empty() { ".".to_string() } else { name };
    if let Ok(phrase) = std::fs::read_to_string(dir.join("expected_warning")) {
        let (passed, detail) = warned(dir, &phrase);
        return CaseResult { name, passed, detail };
    }
    let expected_error = std::fs::read_to_string(dir.join("expected_error")).ok();
    let outcome = execute(dir);
    let (passed, detail) = match (expected_error, outcome) {
        (Some(phrase), Err(message)) => {
            let phrase = phrase.trim().to_lowercase();
            if message.to_lowercase().contains(&phrase) {
                (true, format!("refused as expected ({phrase})"))
            } else {
                let first = message.lines().next().unwrap_or("").to_string();
                (false, format!("refused, but the error does not mention \"{phrase}\": {first}"))
            }
        }
        (Some(phrase), Ok(_)) => {
            (false, format!("ran, but an error mentioning \"{}\" was expected", phrase.trim()))
        }
        (None, Err(message)) => (false, message.lines().next().unwrap_or("").to_string()),
        (None, Ok((compiled, outputs))) => compare(dir, &compiled, &outputs),
    };
    CaseResult { name, passed, detail }
}

/// Whether the model in `dir` loads with a warning that mentions `phrase`.
fn warned(dir: &Path, phrase: &str) -> (bool, String) {
    let phrase = phrase.trim().to_lowercase();
    match Model::read(dir.join("model.xml")) {
        Err(e) => (
            false,
            format!(
                "refused, but only a warning was expected: {}",
                e.to_string().lines().next().unwrap_or("")
            ),
        ),
        Ok(model) => {
            let found = model.warnings().iter().any(|w| w.to_string().to_lowercase().contains(&phrase));
            if found {
                (true, format!("loads with a warning, as expected ({phrase})"))
            } else {
                (false, format!("loads, but no warning mentions \"{phrase}\""))
            }
        }
    }
}

fn compare(dir: &Path, compiled: &ovir::CompiledModel, outputs: &[ovir::Tensor]) -> (bool, String) {
    let expected = match load_arrays(&dir.join("expected")) {
        Ok(e) => e,
        Err(e) => return (false, format!("cannot read the expected outputs: {e:#}")),
    };
    let files = match output_file_names(compiled) {
        Ok(f) => f,
        Err(e) => return (false, format!("{e:#}")),
    };
    let mut problems = Vec::new();
    for (file, actual) in files.iter().zip(outputs) {
        match expected.get(file) {
            None => problems.push(format!("no expected/{file}.npy")),
            Some(want) => {
                if let Some(why) = difference(want, actual) {
                    problems.push(format!("{file}: {why}"));
                }
            }
        }
    }
    for name in expected.keys() {
        if !files.contains(name) {
            problems.push(format!("expected/{name}.npy matches no output"));
        }
    }
    if problems.is_empty() {
        (true, format!("{} output{} bit-exact", files.len(), if files.len() == 1 { "" } else { "s" }))
    } else {
        (false, problems.join("; "))
    }
}

/// Runs every case below `dir`.
pub fn run_dir(dir: &Path) -> anyhow::Result<Vec<CaseResult>> {
    Ok(find_cases(dir)?.iter().map(|case| run_case(case, dir)).collect())
}

/// Writes the pass/fail table and the summary line `N passed, M failed`.
pub fn write_report(results: &[CaseResult], out: &mut impl Write) -> std::io::Result<()> {
    let width = results.iter().map(|r| r.name.len()).max().unwrap_or(4);
    for r in results {
        let status = if r.passed { "PASS" } else { "FAIL" };
        writeln!(out, "{status}  {:<width$}  {}", r.name, r.detail)?;
    }
    let passed = results.iter().filter(|r| r.passed).count();
    writeln!(out, "{passed} passed, {} failed", results.len() - passed)
}

/// Runs `ovir conformance`.
pub fn run(args: &ConformanceArgs, out: &mut impl Write) -> Result<Outcome, CliError> {
    let results = run_dir(&args.dir)?;
    if results.is_empty() {
        return Err(anyhow::anyhow!(
            "no case folder (a folder with a model.xml) below {}",
            args.dir.display()
        )
        .into());
    }
    write_report(&results, out).map_err(|e| CliError::Other(e.into()))?;
    Ok(if results.iter().all(|r| r.passed) { Outcome::Success } else { Outcome::Failure })
}
