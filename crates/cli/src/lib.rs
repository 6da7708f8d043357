//! The `ovir` command line: `check`, `info`, `run`, `convert`, `conformance`,
//! `extract` and `bench`, with `completions` and `man` to print shell completions and
//! the man page.
//!
//! The binary is a thin wrapper over [`main_with_args`]; the commands live
//! here as a library so that the workspace tests can drive them directly.
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

pub mod args;
pub mod bench;
pub mod check;
pub mod conformance;
pub mod convert;
pub mod extract;
pub mod info;
pub mod io;
pub mod run;
pub mod tensors;

use args::{Cli, Command};

/// What a command reports back: success, a failure it already explained on
/// standard output (such as a failed check), or an error to print.
#[derive(Debug)]
pub enum Outcome {
    /// Everything went well: exit 0.
    Success,
    /// The command ran and found problems, already printed: exit 1.
    Failure,
    /// Ctrl-C stopped the command, which reported what it had done:
    /// exit 130, as a shell reports a command stopped by SIGINT.
    Interrupted,
}

/// A command's error: printed on standard error after `error:`.
#[derive(Debug)]
pub enum CliError {
    /// An error from the ovir library, rendered with its XML context.
    Ovir(ovir::Error),
    /// Any other error, with its chain of causes.
    Other(anyhow::Error),
}

impl From<ovir::Error> for CliError {
    fn from(e: ovir::Error) -> Self {
        CliError::Ovir(e)
    }
}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> Self {
        CliError::Other(e)
    }
}

impl From<ovir::npy::NpyError> for CliError {
    fn from(e: ovir::npy::NpyError) -> Self {
        CliError::Other(e.into())
    }
}

impl CliError {
    /// The error as shown to a person; always starts with `error:`.
    pub fn render(&self, color: bool) -> String {
        match self {
            CliError::Ovir(e) => e.render(color),
            CliError::Other(e) => {
                let mut text = format!("error: {e}");
                for cause in e.chain().skip(1) {
                    // Some errors both print their cause and return it;
                    // a cause already shown is not shown again.
                    let cause = cause.to_string();
                    if !text.contains(&cause) {
                        text.push_str(&format!("\n  caused by: {cause}"));
                    }
                }
                text
            }
        }
    }
}

/// Writes the completion script for `shell`, made from the command-line
/// definition itself.
fn completions(shell: clap_complete::Shell, out: &mut impl Write) -> Result<Outcome, CliError> {
    let mut command = Cli::command();
    clap_complete::generate(shell, &mut command, "ovir", out);
    Ok(Outcome::Success)
}

/// Writes the man page, made from the command-line definition itself.
fn man_page(out: &mut impl Write) -> Result<Outcome, CliError> {
    let page = clap_mangen::Man::new(Cli::command());
    page.render(out).map_err(|e| CliError::Other(e.into()))?;
    Ok(Outcome::Success)
}

/// Runs the command line given in `args` (the program name first) and
/// returns the process exit status: 0 on success (and for `--help` and
/// `--version`), 1 on any error, usage errors included.
pub fn main_with_args<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = match &cli.command {
        Command::Check(a) => check::run(a, cli.color.enabled(), &mut out),
        Command::Info(a) => info::run(a, &mut out),
        Command::Run(a) => run::run(a, &mut out),
        Command::Convert(a) => convert::run(a, &mut out),
        Command::Conformance(a) => conformance::run(a, &mut out),
        Command::Extract(a) => extract::run(a, &mut out),
        Command::Bench(a) => bench::run(a, &mut out),
        Command::Completions(a) => completions(a.shell, &mut out),
        Command::Man => man_page(&mut out),
    };
    let _ = out.flush();
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Failure) => ExitCode::from(1),
        Ok(Outcome::Interrupted) => ExitCode::from(bench::INTERRUPTED_STATUS),
        Err(e) => {
            let color = cli.color.enabled();
            eprintln!("{}", e.render(color));
            ExitCode::from(1)
        }
    }
}

/// The process's peak resident memory so far, in bytes (`VmHWM` in
/// `/proc/self/status`); `None` where the system does not tell it.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}
