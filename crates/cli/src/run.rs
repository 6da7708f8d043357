//! `ovir run`: run a model once on inputs from files or generated ones.

use std::io::Write;

use anyhow::Context;
use ovir::{Model, Tensor};

use crate::args::RunArgs;
use crate::io::{difference, element_text, load_arrays, output_file_names, set_inputs, write_outputs};
use crate::{CliError, Outcome};

/// How many leading values the summary shows per output.
const PREVIEW: usize = 8;

fn summary(name: &str, t: &Tensor) -> String {
    let shown = t.len().min(PREVIEW);
    let values: Vec<String> = (0..shown).map(|i| element_text(t, i)).collect();
    let more = if t.len() > shown { ", …" } else { "" };
    format!("{name}: {} {:?} [{}{more}]", t.element_type(), t.shape(), values.join(", "))
}

/// Runs `ovir run`.
pub fn run(args: &RunArgs, out: &mut impl Write) -> Result<Outcome, CliError> {
    let model = Model::read_with_weights(&args.model.model, args.model.weights.as_ref())?;
    let compiled = model.compile()?;
    let mut request = compiled.infer_request();
    set_inputs(&mut request, &args.inputs)?;
    request.infer()?;
    let outputs = request.outputs();
    let io = |e: std::io::Error| CliError::Other(e.into());

    match &args.output {
        Some(path) => {
            for p in write_outputs(&compiled, &outputs, path)? {
                writeln!(out, "wrote {}", p.display()).map_err(io)?;
            }
        }
        None if args.assert_outputs.is_none() => {
            for (port, t) in compiled.outputs().iter().zip(&outputs) {
                writeln!(out, "{}", summary(port.name(), t)).map_err(io)?;
            }
        }
        None => {}
    }

    if let Some(expected_path) = &args.assert_outputs {
        let expected = load_arrays(expected_path)
            .with_context(|| format!("cannot read the expected outputs in {}", expected_path.display()))?;
        let files = output_file_names(&compiled)?;
        let mut failures = 0usize;
        for ((port, file), actual) in compiled.outputs().iter().zip(&files).zip(&outputs) {
            let want = expected.get(file).or_else(|| port.names.iter().find_map(|n| expected.get(n)));
            match want {
                None => {
                    failures += 1;
                    eprintln!("error: output \"{}\" has no expected array {file}.npy", port.name());
                }
                Some(want) => match difference(want, actual) {
                    Some(why) => {
                        failures += 1;
                        eprintln!("error: output \"{}\" differs: {why}", port.name());
                    }
                    None => writeln!(out, "output \"{}\" matches bit for bit", port.name()).map_err(io)?,
                },
            }
        }
        if failures > 0 {
            eprintln!("error: {failures} of {} outputs differ from {}", files.len(), expected_path.display());
            return Ok(Outcome::Failure);
        }
    }
    Ok(Outcome::Success)
}
