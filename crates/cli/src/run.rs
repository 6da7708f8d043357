//! `ovir run`: run a model once on inputs from files or generated ones.

use std::io::Write;

use anyhow::Context;
use ovir::{CompileOptions, ElementType, Model, Tensor};

use crate::args::RunArgs;
use crate::io::{difference, element_text, load_arrays, output_file_names, set_inputs, write_outputs};
use crate::{CliError, Outcome};

/// How many leading values the summary shows per output.
const PREVIEW: usize = 8;

/// One output's summary: its own element type, and its values as they are
/// written to files (packed types one code per element).
fn summary(name: &str, ty: ElementType, t: &Tensor) -> String {
    let shown = t.len().min(PREVIEW);
    let values: Vec<String> = (0..shown).map(|i| element_text(t, i)).collect();
    let more = if t.len() > shown { ", …" } else { "" };
    format!("{name}: {ty} {:?} [{}{more}]", t.shape(), values.join(", "))
}

/// Runs `ovir run`.
pub fn run(args: &RunArgs, out: &mut impl Write) -> Result<Outcome, CliError> {
    let model = Model::read_with_weights(&args.model.model, args.model.weights.as_ref())?;
    let threads = usize::try_from(args.threads).unwrap_or(usize::MAX);
    let mut options = CompileOptions::default().with_threads(threads);
    if let Some(limit) = args.max_memory {
        options = options.with_max_memory(limit);
    }
    let compiled = model.compile_with(options)?;
    let mut request = compiled.infer_request();
    set_inputs(&mut request, &args.inputs, &args.shapes)?;
    request.infer()?;
    // Packed sub-byte and 8-bit float outputs leave as one u8 (i8 for i4)
    // per element, the form NumPy can hold and `-i` takes back.
    let types: Vec<ElementType> = request.outputs().iter().map(|t| t.element_type()).collect();
    let unpacked = request
        .outputs()
        .into_iter()
        .map(ovir::packed::try_to_exchange)
        .collect::<Result<Vec<Tensor>, _>>()
        .context("cannot unpack the outputs")?;
    let outputs: Vec<&Tensor> = unpacked.iter().collect();
    let io = |e: std::io::Error| CliError::Other(e.into());

    match &args.output {
        Some(path) => {
            for p in write_outputs(&compiled, &outputs, path)? {
                writeln!(out, "wrote {}", p.display()).map_err(io)?;
            }
        }
        None if args.assert_outputs.is_none() => {
            for ((port, t), ty) in compiled.outputs().iter().zip(&outputs).zip(&types) {
                writeln!(out, "{}", summary(port.name(), *ty, t)).map_err(io)?;
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
    if args.verbose {
        if let Some(peak) = crate::peak_rss_bytes() {
            eprintln!("peak resident memory: {peak} bytes ({:.1} MiB)", peak as f64 / f64::from(1 << 20));
        }
    }
    Ok(Outcome::Success)
}
