//! `ovir convert`: read IR v10 or v11 and write it as IR v11.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::args::ModelArgs;
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
}

/// Reads, validates and writes the model, then prints what was written.
pub fn run(args: &ConvertArgs, out: &mut impl Write) -> Result<Outcome, CliError> {
    let model = ovir::Model::read_with_weights(&args.model.model, args.model.weights.as_deref())?;
    if let Some(dir) = args.output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder {}", dir.display()))?;
    }
    model.save(&args.output).map_err(anyhow::Error::from)?;
    let weights = args.output.with_extension("bin");
    let size = std::fs::metadata(&weights).map(|m| m.len()).unwrap_or(0);
    writeln!(
        out,
        "wrote {} ({}) and {} ({})",
        args.output.display(),
        count(model.ir().layers.len(), "layer"),
        weights.display(),
        count(size as usize, "byte")
    )
    .map_err(anyhow::Error::from)?;
    Ok(Outcome::Success)
}
