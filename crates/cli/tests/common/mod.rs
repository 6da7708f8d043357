//! What the binary's test files share: where the samples are, running the
//! binary, and reading what it printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's `ir-samples/` folder.
pub fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ir-samples")
}

/// Runs the `ovir` binary with `args`.
pub fn ovir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ovir")).args(args).output().expect("the ovir binary runs")
}

/// Printed bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
