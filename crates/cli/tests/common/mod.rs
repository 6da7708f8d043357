//! What the binary's test files share: where the samples are, running the
//! binary, and reading what it printed and wrote. Each test file uses a
//! part of it.
#![allow(dead_code)]

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

/// A folder of its own for one test's files, removed with all it holds
/// when the test ends, whether it passed or failed. It reads as the
/// folder's path.
pub struct Scratch(tempfile::TempDir);

impl Scratch {
    /// A new empty folder in the system's temporary folder, its name
    /// starting with `ovir-NAME-`.
    pub fn new(name: &str) -> Scratch {
        let dir = tempfile::Builder::new().prefix(&format!("ovir-{name}-")).tempdir();
        Scratch(dir.expect("a folder can be made in the temporary folder"))
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

/// The names in a folder, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the folder can be listed")
        .map(|e| e.expect("the folder can be listed").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
