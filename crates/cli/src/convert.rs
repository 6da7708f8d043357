//! `ovir convert`: read IR v10 or v11 and write it as IR v11, with input
//! shapes fixed and constants folded when asked.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use ovir::PartialShape;

use crate::args::{parse_shape, ModelArgs};
use crate::io::count;
use crate::{CliError, Outcome};

/// `ovir convert`.
#[derive(Debug, Args)]
#[command(after_help = "\
The output is IR v11 laid out as OpenVINO's save_model writes it; its weights go beside it \
with the extension .bin; missing parent folders are created. The model is validated first, so only a model ovir can load is \
written.")]
pub struct ConvertArgs {
    /// The model to read (IR v10 or v11).
    #[command(flatten)]
    pub model: ModelArgs,
    /// The .xml file to write.
    #[arg(short, long, value_name = "OUT.xml")]
    pub output: PathBuf,
    /// Write what constant folding computes as Consts: layers whose output
    /// is known before the model runs become one Const each, layers that
    /// pass their input through unchanged are taken out, and layers no
    /// output needs are dropped. Compressed weights stay compressed: a
    /// Convert that widens a Const of f16, bf16, f8, u8, i8, u4, i4 or
    /// nf4 (or is marked `decompression`) is kept, with all it feeds.
    #[arg(long)]
    pub fold: bool,
    /// Fix the shape of an input before anything else, as OpenVINO's
    /// reshape does: `NAME=[2,3]`, `NAME=[?,4]` or `NAME=[1..8,4]`. May be given
    /// once per input.
    #[arg(long = "shape", value_name = "NAME=[DIMS]", value_parser = parse_shape)]
    pub shapes: Vec<(String, PartialShape)>,
}

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
