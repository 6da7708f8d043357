//! `ovir convert`: read IR v10 or v11 and write it as IR v11, with input
//! shapes fixed and constants folded when asked.

use std::io::Write;

use crate::args::ConvertArgs;
use crate::io::count;
use crate::{CliError, Outcome};

/// Reads, validates and writes the model, then prints what was written.
pub fn run(args: &ConvertArgs, out: &mut impl Write) -> Result<Outcome, CliError> {
    let read = ovir::Model::read_with_weights(&args.model.model, args.model.weights.as_deref())?;
    let before = read.ir().layers.len();
    crate::io::unique_shapes(&read.inputs(), &args.shapes)?;
    let mut model = if args.shapes.is_empty() { read } else { read.reshaped(&args.shapes)? };
    if args.fold {
        model = model.folded()?;
    }
    // Saving makes missing parent folders.
    model.save(&args.output).map_err(ovir::Error::from)?;
    let weights = args.output.with_extension("bin");
    let size = std::fs::metadata(&weights).map(|m| m.len()).unwrap_or(0);
    writeln!(
        out,
        "wrote {} ({}{}) and {} ({})",
        args.output.display(),
        count(model.ir().layers.len(), "layer"),
        if args.fold { format!(", {before} before folding") } else { String::new() },
        weights.display(),
        count(size as usize, "byte")
    )
    .map_err(anyhow::Error::from)?;
    Ok(Outcome::Success)
}
