//! What the binary's test files share: where the samples are, running the
//! binary, and reading what it printed and wrote. Each test file uses a
//! part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ovir::ops::ReverseMode;
use ovir::{ElementType, ModelBuilder, PartialShape};

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

/// Writes `dir/model.xml`: data [2,3] i32 -> Split on axis 1 into 3
/// ("split") -> part 1 reversed on axis 0 (layer `flip`, with tensor
/// names `flipped`) -> Concat with part 2 on axis 1 (layer `join`,
/// tensor "out"); returns its path.
pub fn split_flip_join(dir: &Path, flip: &str, flipped: &[&str], join: &str) -> String {
    let mut b = ModelBuilder::new("parts");
    let data = b.parameter("data", ElementType::I32, PartialShape::from_static(&[2, 3])).unwrap();
    let axis = b.constant_slice(&[], &[1i64]).unwrap();
    let parts = b.split(data, axis, 3).unwrap();
    b.set_layer_name(parts[0], "split").unwrap();
    let axes = b.constant_slice(&[1], &[0i64]).unwrap();
    let reversed = b.reverse(parts[1], axes, ReverseMode::Index).unwrap();
    b.set_layer_name(reversed, flip).unwrap();
    if !flipped.is_empty() {
        b.set_names(reversed, flipped).unwrap();
    }
    let out = b.concat(&[reversed, parts[2]], 1).unwrap();
    b.set_layer_name(out, join).unwrap();
    b.set_names(out, &["out"]).unwrap();
    b.result(out).unwrap();
    let path = dir.join("model.xml");
    b.build().unwrap().save(&path).unwrap();
    path.display().to_string()
}
