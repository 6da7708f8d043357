//! `ovir check`: validate a model and report every problem.

use std::io::Write;

use crate::args::CheckArgs;
use crate::{CliError, Outcome};

/// Reads, validates and compiles the model. Prints `ok` with a one-line
/// summary when it is valid; otherwise prints every problem found, with
/// its XML line, on standard error and reports a failure.
pub fn run(args: &CheckArgs, color: bool, out: &mut impl Write) -> Result<Outcome, CliError> {
    let name = args.model.model.display();
    let checked = ovir::Model::read_with_weights(&args.model.model, args.model.weights.as_ref())
        .and_then(|m| m.compile().map(|c| (m, c)));
    match checked {
        Ok((model, compiled)) => {
            writeln!(
                out,
                "{name}: ok ({} layers, {} inputs, {} outputs, {} steps to run after folding)",
                model.ir().layers.len(),
                compiled.inputs().len(),
                compiled.outputs().len(),
                compiled.plan().step_count()
            )
            .map_err(anyhow::Error::from)?;
            Ok(Outcome::Success)
        }
        Err(e) => {
            eprintln!("{}", e.render(color));
            let n = e.problem_count();
            eprintln!("error: {name} is not valid: {n} problem{} found", if n == 1 { "" } else { "s" });
            Ok(Outcome::Failure)
        }
    }
}
