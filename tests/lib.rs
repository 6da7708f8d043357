//! Helpers shared by the workspace tests: where the samples are, and how
//! to list them.
#![deny(unsafe_code)]

pub mod counting;
pub mod net;

use std::path::{Path, PathBuf};

/// The `ir-samples` folder, as a path relative to this package, so that
/// paths in rendered diagnostics are the same on every machine.
pub fn samples_dir() -> PathBuf {
    PathBuf::from("../ir-samples")
}

/// The case folders directly below `dir` that hold a `model.xml`, sorted.
pub fn case_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.join("model.xml").is_file())
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    cases
}

/// The name of a case folder.
pub fn case_name(dir: &Path) -> String {
    dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}
