//! Command-line syntax: what each command accepts.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use ovir::compare::{Tolerance, ToleranceError};
use ovir::PartialShape;

/// The version `ovir --version` prints: the package version and the
/// commit it was built from (`unknown` outside a git checkout).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("OVIR_COMMIT"), ")");

/// Read, check and run OpenVINO IR models on the CPU.
#[derive(Debug, Parser)]
#[command(name = "ovir", version = VERSION, about, long_about = None)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
    /// When to colour diagnostics.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
}

/// When to colour diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// When standard error is a terminal.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl Color {
    /// Whether colour is on for standard error.
    pub fn enabled(self) -> bool {
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate models and report every problem found (exit 1 if any).
    Check(CheckArgs),
    /// Describe a model: inputs, outputs, op counts and every layer's
    /// inferred types and shapes.
    Info(InfoArgs),
    /// Run a model on inputs from .npy/.npz files (or generated ones).
    Run(RunArgs),
    /// Write a model as IR v11.
    Convert(ConvertArgs),
    /// Run every conformance case folder below a directory.
    Conformance(ConformanceArgs),
    /// Write layers of a model as conformance cases of their own, one
    /// layer each, fed with what a run of the whole model gave them.
    Extract(ExtractArgs),
    /// Time repeated inferences and compare them with a memcpy of the same
    /// bytes.
    Bench(BenchArgs),
    /// Print a shell's completion script for ovir, to source or to save
    /// where the shell looks for completions.
    Completions(CompletionsArgs),
    /// Print ovir's man page (roff), for `man -l -` or to save as ovir.1.
    Man,
}

/// `ovir completions`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples: `ovir completions bash > ~/.local/share/bash-completion/completions/ovir`, \
`ovir completions zsh > \"${fpath[1]}/_ovir\"`, `ovir completions fish > ~/.config/fish/completions/ovir.fish`.")]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The model files every command reads.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// The model's .xml file.
    pub model: PathBuf,
    /// The weights file (default: the .xml path with extension .bin).
    #[arg(short, long, value_name = "WEIGHTS.bin")]
    pub weights: Option<PathBuf>,
}

/// `ovir check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The models' .xml files; each is checked, and the exit status is 1
    /// when any is not valid.
    #[arg(required = true, value_name = "MODEL")]
    pub models: Vec<PathBuf>,
    /// The weights file, for a single model (default: the .xml path with
    /// extension .bin).
    #[arg(short, long, value_name = "WEIGHTS.bin")]
    pub weights: Option<PathBuf>,
    /// Count warnings as failures: exit 1 when a port's declared dims or
    /// precision disagree with inference, which OpenVINO (and ovir
    /// otherwise) only notes.
    #[arg(long)]
    pub strict: bool,
}

/// `ovir info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print JSON instead of text, as docs/info.schema.json describes it
    /// (its `schema_version` says which).
    #[arg(long, conflicts_with = "dot")]
    pub json: bool,
    /// Print the graph as Graphviz DOT.
    #[arg(long)]
    pub dot: bool,
}

/// `ovir run`.
#[derive(Debug, Args)]
#[command(after_help = "\
Inputs: `-i NAME=FILE.npy` sets the input NAME (any of its tensor names, or its Parameter's \
layer name); `-i FILE.npz` sets inputs from the archive's arrays by name; `-i FILE.npy` sets \
the input of a model that has one. Each input may be given once. Every input not given is filled with deterministic data \
that is valid for the model; when some were given, a note on stderr names each one filled.

Outputs: `-o FILE.npz` writes one archive; `-o FILE.npy` writes the output of a model that \
has one; any other `-o DIR` writes DIR/<name>.npy per output (<name>: the output's first \
tensor name, with characters outside [A-Za-z0-9._-] replaced by `_`). Suffixes count in any \
case, and missing parent folders are created. Without -o a short summary of each output is \
printed.

npy types: bool, i8..i64, u8..u64, f16, f32, f64 and fixed-width unicode (<U) for strings. \
An array whose type differs from the input's element type is refused, never converted.

Packed types (u1, u2, u3, u4, u6, i4, nf4, f4e2m1) and the 8-bit floats (f8e4m3, f8e5m2, \
f8e8m0) have no NumPy type, so they are exchanged unpacked: one element per u8 (per i8 for \
i4), holding its code: the integer, the nf4 index, or the float's bit pattern. Such an input \
takes a u8 (i8) array and packs it, refusing any value outside the type's range (0..=1 for \
u1, 0..=15 for u4, -8..=7 for i4, …); such an output is written as a u8 (i8) array. \
bf16 travels the same way, as its bit patterns, one u16 per element.")]
pub struct RunArgs {
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// An input: NAME=FILE.npy, FILE.npz for several at once, or FILE.npy
    /// for a model with one input. Each input may be given once.
    #[arg(short, long = "input", value_name = "NAME=FILE.npy|FILE.npz")]
    pub inputs: Vec<String>,
    /// The shape to generate an input in, for inputs not given with -i,
    /// as benchmark_app's -data_shape: `NAME=[2,3]`. Needed for a dynamic
    /// input whose size matters; without it a dynamic dimension gets 2
    /// (or its nearest bound), and a note on stderr gives the size used.
    /// May be given once per input.
    #[arg(long = "shape", value_name = "NAME=[DIMS]", value_parser = parse_shape)]
    pub shapes: Vec<(String, PartialShape)>,
    /// Where to write the outputs: a folder, a file ending in .npz, or a
    /// file ending in .npy for a model with one output.
    #[arg(short, long, value_name = "DIR|FILE.npz|FILE.npy")]
    pub output: Option<PathBuf>,
    /// Also write every intermediate tensor to DIR as .npy: one file per
    /// output of each layer but Consts and Results, named by the layer
    /// as -o names outputs, with .portN for output N of a layer with
    /// several.
    #[arg(long, value_name = "DIR")]
    pub dump: Option<PathBuf>,
    /// Also write the inputs of the run, given or generated, to DIR,
    /// one NAME.npy each (named as -o names outputs), so that the run
    /// can be repeated elsewhere with -i NAME=DIR/NAME.npy.
    #[arg(long, value_name = "DIR")]
    pub save_inputs: Option<PathBuf>,
    /// Compare every output with the arrays in a directory of .npy files
    /// or an .npz archive, bit for bit unless --atol, --rtol or --ulp is
    /// given; exit 1 on any difference.
    #[arg(long, value_name = "DIR|FILE.npz")]
    pub assert_outputs: Option<PathBuf>,
    /// How --assert-outputs compares.
    #[command(flatten)]
    pub compare: CompareArgs,
    /// Threads the inference may use for large tensors.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: u64,
    /// The most memory any one tensor may take (inputs, outputs and every
    /// intermediate value), in bytes or with a suffix K, M, G or T (powers
    /// of 1024), such as 512M or 2G. Default: 16G.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Also print, on standard error, the peak resident memory of the run
    /// (where the system tells it).
    #[arg(short, long)]
    pub verbose: bool,
}

/// `ovir conformance`.
#[derive(Debug, Args)]
#[command(after_help = "\
A case is a folder holding model.xml (and model.bin), its inputs as in/<input>.npy or \
inputs.npz, and one of: expected/<output>.npy, compared with the outputs; expected_error, \
a phrase the error must contain; expected_warning, a phrase a warning must contain. \
The README's section on conformance cases describes them in full.")]
pub struct ConformanceArgs {
    /// A directory; every folder below it that holds a model.xml is a case.
    pub dir: PathBuf,
    /// How outputs are compared.
    #[command(flatten)]
    pub compare: CompareArgs,
}

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

/// `ovir extract`.
#[derive(Debug, Args)]
#[command(after_help = "\
Each case is a folder as `ovir conformance` reads it: model.xml and model.bin holding the \
layer alone, in/<input>.npy and expected/<output>.npy. Inputs whose values are known \
before the model runs (Consts, and what folds from them) stay Consts; the others become \
Parameters of the static shape the run gave them. Inputs are given as for `ovir run`; \
those not given are generated. With --layer, -o is the case folder; with --all, -o holds \
one folder per layer, named by the layer as `ovir run --dump` names files. A case folder \
that exists must be empty, unless --force is given, which replaces model.xml, model.bin, \
in/ and expected/ in it.")]
pub struct ExtractArgs {
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// The layer to write as a case, by its name; may be given several
    /// times, each then written to its own folder inside -o.
    #[arg(long = "layer", value_name = "NAME", required_unless_present = "all")]
    pub layers: Vec<String>,
    /// Write every layer that computes something (all but Parameters,
    /// Consts and Results), each to its own folder inside -o.
    #[arg(long, conflicts_with = "layers")]
    pub all: bool,
    /// Where to write: the case folder for one --layer, or the folder
    /// that holds one case folder per layer.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// An input of the model: NAME=FILE.npy, FILE.npz for several at once,
    /// or FILE.npy for a model with one input.
    #[arg(short, long = "input", value_name = "NAME=FILE.npy|FILE.npz")]
    pub inputs: Vec<String>,
    /// The shape to generate an input in, as for `ovir run`.
    #[arg(long = "shape", value_name = "NAME=[DIMS]", value_parser = parse_shape)]
    pub shapes: Vec<(String, PartialShape)>,
    /// Replace what a case folder already holds.
    #[arg(long)]
    pub force: bool,
    /// The most memory any one tensor may take, as for `ovir run`.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    pub max_memory: Option<u64>,
}

/// How outputs are compared with expected arrays: bit for bit, unless a
/// tolerance is given. A value passes when it is within any tolerance
/// given.
#[derive(Clone, Debug, Default, Args)]
pub struct CompareArgs {
    /// Absolute tolerance: a value passes when |actual - expected| <=
    /// atol + rtol * |expected| (NumPy's isclose). Integers compare
    /// exactly unless --atol is given.
    #[arg(long, value_name = "ATOL", value_parser = parse_tolerance)]
    pub atol: Option<f64>,
    /// Relative tolerance, a share of |expected| (see --atol).
    #[arg(long, value_name = "RTOL", value_parser = parse_tolerance)]
    pub rtol: Option<f64>,
    /// A float passes when it is at most N steps of its own type (f32,
    /// f16, f8e4m3, ...) from the expected value: 1.0 and the next f32 are
    /// 1 step apart. A value passes when it is within any tolerance given.
    #[arg(long, value_name = "N")]
    pub ulp: Option<u64>,
}

impl CompareArgs {
    /// `true` when any tolerance is given.
    pub fn given(&self) -> bool {
        self.atol.is_some() || self.rtol.is_some() || self.ulp.is_some()
    }

    /// The tolerance the flags give: bit for bit when none is given.
    pub fn tolerance(&self) -> Result<Tolerance, ToleranceError> {
        let mut t = Tolerance::EXACT;
        if let Some(atol) = self.atol {
            t = t.with_atol(atol)?;
        }
        if let Some(rtol) = self.rtol {
            t = t.with_rtol(rtol)?;
        }
        if let Some(ulp) = self.ulp {
            t = t.with_ulp(ulp);
        }
        Ok(t)
    }
}

/// Parses a tolerance: a finite number of at least 0, such as `1e-5`.
pub fn parse_tolerance(text: &str) -> Result<f64, String> {
    let not = || format!("'{text}' is not a tolerance: expected a finite number of at least 0, such as 1e-5");
    let value: f64 = text.trim().parse().map_err(|_| not())?;
    Tolerance::EXACT.with_atol(value).map_err(|_| not())?;
    Ok(value)
}

/// `ovir bench`.
#[derive(Debug, Args)]
#[command(after_help = "\
Inputs are given as for `ovir run`; those not given are generated. The report gives \
min, median, mean, p90 and max latency, throughput, the bytes the kernels moved (per layer, its \
output, or its data input when that is larger and has as many elements) and the GB/s \
achieved, and the median time of a memcpy of the same bytes, timed in turns with the \
inferences in the same run, with the ratio to it, and the peak resident memory before the memcpy's \
buffers were allocated. --json prints one JSON object with the fields median_ms, min_ms, \
mean_ms, p90_ms, max_ms, iterations, threads, bytes_moved and memcpy_median_ms, and more. \
Ctrl-C stops the run between two inferences and reports those done (exit status 130); \
a second Ctrl-C ends it at once.")]
pub struct BenchArgs {
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// An input: NAME=FILE.npy, FILE.npz for several at once, or FILE.npy
    /// for a model with one input. Each input may be given once.
    #[arg(short, long = "input", value_name = "NAME=FILE.npy|FILE.npz")]
    pub inputs: Vec<String>,
    /// The shape to generate an input in, for inputs not given with -i,
    /// as benchmark_app's -data_shape: `NAME=[2,3]`. Needed for a dynamic
    /// input whose size matters; without it a dynamic dimension gets 2
    /// (or its nearest bound), and a note on stderr gives the size used.
    /// May be given once per input.
    #[arg(long = "shape", value_name = "NAME=[DIMS]", value_parser = parse_shape)]
    pub shapes: Vec<(String, PartialShape)>,
    /// Timed inferences.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub iterations: u64,
    /// Untimed inferences run first.
    #[arg(long, default_value_t = 10)]
    pub warmup: u64,
    /// Threads one inference may use for large tensors.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// The most memory any one tensor may take (inputs, outputs and every
    /// intermediate value), in bytes or with a suffix K, M, G or T (powers
    /// of 1024), such as 512M or 2G. Default: 16G.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Feeds an output back as an input: before each inference after the
    /// first, INPUT is set to what the last one gave as OUTPUT, handed
    /// over without a copy, as a decoding loop hands its KV cache round. A
    /// scatter into that input then updates it in place. May be given
    /// once per input.
    #[arg(long = "feed", value_name = "OUTPUT=INPUT", value_parser = parse_feed)]
    pub feeds: Vec<(String, String)>,
}

/// Parses `OUTPUT=INPUT`; the output is everything before the last `=`.
pub fn parse_feed(text: &str) -> Result<(String, String), String> {
    match text.rsplit_once('=') {
        Some((output, input)) if !output.is_empty() && !input.is_empty() => {
            Ok((output.to_string(), input.to_string()))
        }
        _ => Err(format!("'{text}' is not OUTPUT=INPUT, such as present_keys=cache")),
    }
}

/// Parses `NAME=[dims]`; the name is everything before the last `=`.
pub fn parse_shape(text: &str) -> Result<(String, PartialShape), String> {
    let (name, dims) =
        text.rsplit_once('=').ok_or_else(|| format!("'{text}' is not NAME=[DIMS], such as data=[2,3]"))?;
    let shape = dims.parse::<PartialShape>().map_err(|e| format!("'{dims}' is not a shape: {e}"))?;
    Ok((name.to_string(), shape))
}

/// Parses a byte count: digits, optionally followed by K, M, G or T
/// (powers of 1024, with an optional `B` or `iB`), such as `4096`, `512M`
/// or `2GiB`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, suffix) = t.split_at(digits);
    let shift = match suffix.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => {
            return Err(format!(
                "'{text}' is not a size: expected digits with an optional K, M, G or T suffix"
            ))
        }
    };
    let n: u64 = number.parse().map_err(|_| {
        format!("'{text}' is not a size: expected digits with an optional K, M, G or T suffix")
    })?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("'{text}' is too large: sizes must be below 2^64 bytes"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_take_binary_suffixes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1t"), Ok(1 << 40));
        assert!(parse_size("").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("1.5G").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("99999999999T").unwrap_err().contains("too large"));
    }
}
