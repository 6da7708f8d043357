//! Records the commit the binary is built from, for `ovir --version`.
//!
//! Outside a git checkout (a crates.io download, a source tarball) or
//! without git installed, the commit is given as `unknown`.

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=OVIR_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    // Build again when HEAD moves: a new commit on the branch, or a switch
    // to another branch. A worktree's HEAD and the shared refs live in
    // different folders, which git names.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={}", PathBuf::from(dir).join("HEAD").display());
    }
    if let (Some(common), Some(branch)) =
        (git(&["rev-parse", "--git-common-dir"]), git(&["symbolic-ref", "-q", "HEAD"]))
    {
        let common = PathBuf::from(common);
        println!("cargo:rerun-if-changed={}", common.join(&branch).display());
        println!("cargo:rerun-if-changed={}", common.join("packed-refs").display());
    }
}
