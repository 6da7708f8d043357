//! The `ovir` command. All the work is in the `ovir_cli` library; this only
//! turns its outcome into an exit status.
#![deny(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    ovir_cli::main_with_args(std::env::args_os())
}
