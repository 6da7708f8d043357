//! `ovir run`: run a model once on inputs from files or generated ones.

use std::io::Write;

use anyhow::Context;
use ovir::{CompileOptions, Model, Tensor};

use crate::args::RunArgs;
use ovir::conformance::{check_outputs, read_arrays, OutputProblem};
use ovir::npy::output_file_stems;

use crate::io::{element_text, hold_inputs, set_inputs, write_outputs};
use crate::tensors::{dump, save_inputs};
use crate::{CliError, Outcome};

/// How many leading values the summary shows per output.
const PREVIEW: usize = 8;

/// One output's summary: its element type, shape and first values, each
/// in its own type as `ovir::text` shows it (packed types as their codes,
/// the 8-bit floats as numbers).
fn summary(name: &str, t: &Tensor) -> String {
    let shown = t.len().min(PREVIEW);
    let values: Vec<String> = (0..shown).map(|i| element_text(t, i)).collect();
    let more = if t.len() > shown { ", …" } else { "" };
    format!("{name}: {} {:?} [{}{more}]", t.element_type(), t.shape(), values.join(", "))
}

/// Runs `ovir run`.
pub fn run(args: &RunArgs, out: &mut impl Write) -> Result<Outcome, CliError> {
    if args.compare.given() && args.assert_outputs.is_none() {
        return Err(anyhow::anyhow!(
            "--atol, --rtol and --ulp say how --assert-outputs compares outputs; give --assert-outputs too"
        )
        .into());
    }
    let model = Model::read_with_weights(&args.model.model, args.model.weights.as_ref())?;
    let threads = usize::try_from(args.threads).unwrap_or(usize::MAX);
    let mut options = CompileOptions::default().with_threads(threads);
    if let Some(limit) = args.max_memory {
        options = options.with_max_memory(limit);
    }
    let compiled = model.compile_with(options)?;
    let mut request = compiled.infer_request();
    set_inputs(&mut request, &args.inputs, &args.shapes)?;
    // `--dump` runs the model again on the inputs.
    let _held = hold_inputs(&request, &[]);
    let io = |e: std::io::Error| CliError::Other(e.into());
    // Saved before the run, so that a run that fails can be repeated too.
    if let Some(dir) = &args.save_inputs {
        for p in save_inputs(&request, dir)? {
            writeln!(out, "wrote {}", p.display()).map_err(io)?;
        }
    }
    request.infer()?;
    if let Some(dir) = &args.dump {
        let files = dump(&model, options, &request, dir)?;
        writeln!(out, "wrote {} tensors to {}", files.len(), dir.display()).map_err(io)?;
    }
    // Packed sub-byte and 8-bit float outputs leave as one u8 (i8 for i4)
    // per element, the form NumPy can hold and `-i` takes back.
    let unpacked = request
        .outputs()
        .into_iter()
        .map(ovir::packed::try_to_exchange)
        .collect::<Result<Vec<Tensor>, _>>()
        .context("cannot unpack the outputs")?;
    let outputs: Vec<&Tensor> = unpacked.iter().collect();

    match &args.output {
        Some(path) => {
            for p in write_outputs(&compiled, &outputs, path)? {
                writeln!(out, "wrote {}", p.display()).map_err(io)?;
            }
        }
        None if args.assert_outputs.is_none() => {
            for (port, t) in compiled.outputs().iter().zip(request.outputs()) {
                writeln!(out, "{}", summary(port.name(), t)).map_err(io)?;
            }
        }
        None => {}
    }

    if let Some(expected_path) = &args.assert_outputs {
        let tolerance = args.compare.tolerance().map_err(anyhow::Error::from)?;
        let expected = read_arrays(expected_path)
            .with_context(|| format!("cannot read the expected outputs in {}", expected_path.display()))?;
        let problems = check_outputs(&compiled, &request.outputs(), &expected, tolerance)
            .map_err(anyhow::Error::from)?;
        let files = output_file_stems(&compiled).map_err(anyhow::Error::from)?;
        let mut failures = 0usize;
        for (port, file) in compiled.outputs().iter().zip(&files) {
            let problem = problems.iter().find(|p| match p {
                OutputProblem::Missing { file: f, .. } | OutputProblem::Differs { file: f, .. } => f == file,
                _ => false,
            });
            match problem {
                Some(OutputProblem::Missing { .. }) => {
                    failures += 1;
                    eprintln!("error: output \"{}\" has no expected array {file}.npy", port.name());
                }
                Some(OutputProblem::Differs { mismatch, .. }) => {
                    failures += 1;
                    eprintln!("error: output \"{}\" differs: {mismatch}", port.name());
                }
                _ if tolerance.is_exact() => {
                    writeln!(out, "output \"{}\" matches bit for bit", port.name()).map_err(io)?
                }
                _ => writeln!(out, "output \"{}\" matches within {tolerance}", port.name()).map_err(io)?,
            }
        }
        if failures > 0 {
            eprintln!("error: {failures} of {} outputs differ from {}", files.len(), expected_path.display());
            return Ok(Outcome::Failure);
        }
    }
    if args.verbose {
        if let Some(peak) = crate::peak_rss_bytes() {
            eprintln!("peak resident memory: {peak} bytes ({:.1} MiB)", peak as f64 / f64::from(1 << 20));
        }
    }
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir::ElementType;

    #[test]
    fn the_summary_shows_each_value_in_its_own_width() {
        let t = Tensor::from_vec(&[3], vec![1e-45f32, -0.0, f32::from_bits(0xffc0_0000)]).unwrap();
        assert_eq!(summary("out", &t), "out: f32 [3] [1e-45, -0, nan:0xffc00000]");
        // 0x38 is 1, 0x7e 448 (shown as 450, which f8e4m3 reads as 448).
        let f8 = Tensor::from_bytes(ElementType::F8e4m3, &[3], &[0x38, 0x7e, 0x7f]).unwrap();
        assert_eq!(summary("f8", &f8), "f8: f8e4m3 [3] [1, 450, nan:0x7f]");
        let long = Tensor::from_vec(&[2, 5], (0..10).map(|v| v as i64 - 5).collect()).unwrap();
        assert_eq!(summary("i", &long), "i: i64 [2, 5] [-5, -4, -3, -2, -1, 0, 1, 2, …]");
    }
}
