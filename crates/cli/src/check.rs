//! `ovir check`: validate models and report every problem.

use std::io::Write;
use std::path::Path;

use ovir::ir::IrErrorKind;

use crate::args::CheckArgs;
use crate::io::count;
use crate::{CliError, Outcome};

/// Reads, validates and compiles each model. Prints `ok` with a one-line
/// summary for a valid one, and its warnings (ports whose declared dims or
/// precision disagree with inference) on standard error; otherwise prints
/// every problem found, with its XML line, on standard error. The outcome
/// is a failure when any model is not valid, or, with `--strict`, has a
/// warning.
pub fn run(args: &CheckArgs, color: bool, out: &mut impl Write) -> Result<Outcome, CliError> {
    if args.weights.is_some() && args.models.len() > 1 {
        return Err(anyhow::anyhow!(
            "--weights names the weights of one model, but {} were given",
            count(args.models.len(), "model")
        )
        .into());
    }
    let mut outcome = Outcome::Success;
    for path in &args.models {
        if !check_one(path, args.weights.as_deref(), args.strict, color, out)? {
            outcome = Outcome::Failure;
        }
    }
    Ok(outcome)
}

/// Checks one model; `true` when it is valid (and, with `strict`, has no
/// warnings). Warnings go to standard error, after the model's line.
fn check_one(
    path: &Path,
    weights: Option<&Path>,
    strict: bool,
    color: bool,
    out: &mut impl Write,
) -> Result<bool, CliError> {
    let name = path.display();
    let checked = ovir::Model::read_with_weights(path, weights).and_then(|m| m.compile().map(|c| (m, c)));
    match checked {
        Ok((model, compiled)) => {
            writeln!(
                out,
                "{name}: ok ({}, {}, {}, {} to run after folding)",
                count(model.ir().layers.len(), "layer"),
                count(compiled.inputs().len(), "input"),
                count(compiled.outputs().len(), "output"),
                count(compiled.plan().step_count(), "step")
            )
            .map_err(anyhow::Error::from)?;
            let warnings = model.warnings().len();
            if warnings == 0 {
                return Ok(true);
            }
            eprintln!("{}", model.render_warnings(color));
            if strict {
                eprintln!("error: {name} has {} and --strict is set", count(warnings, "warning"));
            } else {
                eprintln!("warning: {name}: {} (the model runs as inferred)", count(warnings, "warning"));
            }
            Ok(!strict)
        }
        Err(e) => {
            eprintln!("{}", e.render(color));
            // A file that cannot be read, or is not XML, is no model to
            // count problems in; its one message says all.
            let unreadable = matches!(&e, ovir::Error::Read(r)
                if r.has(|k| matches!(k, IrErrorKind::Io { .. } | IrErrorKind::NotXml { .. })));
            if !unreadable {
                let n = e.problem_count();
                eprintln!("error: {name} is not valid: {} found", count(n, "problem"));
            }
            Ok(false)
        }
    }
}
