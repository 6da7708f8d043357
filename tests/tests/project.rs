//! The project as a newcomer meets it: its documentation targets, the
//! README, the package metadata and the files beside the code.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `cargo metadata` for the workspace's own packages.
fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args(["metadata", "--no-deps", "--offline", "--format-version", "1"])
        .current_dir(root())
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

fn packages(meta: &Value) -> &Vec<Value> {
    meta["packages"].as_array().expect("a package list")
}

#[test]
fn documented_targets_have_distinct_names() {
    // `cargo doc` writes each documented target to target/doc/<name>/, so
    // two targets of one name overwrite each other's pages.
    let meta = metadata();
    let mut seen: Vec<(String, String)> = Vec::new();
    for package in packages(&meta) {
        for target in package["targets"].as_array().into_iter().flatten() {
            let kinds: Vec<&str> =
                target["kind"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            if !(kinds.contains(&"lib") || kinds.contains(&"bin")) || target["doc"] == false {
                continue;
            }
            let name = target["name"].as_str().unwrap_or_default().replace('-', "_");
            let owner = format!("{} ({})", package["name"].as_str().unwrap_or_default(), kinds.join(","));
            if let Some((_, other)) = seen.iter().find(|(n, _)| *n == name) {
                panic!("{owner} and {other} would both be documented as {name}");
            }
            seen.push((name, owner));
        }
    }
    assert!(seen.iter().any(|(n, _)| n == "ovir"), "the ovir library is documented: {seen:?}");
}

#[test]
fn the_readme_names_every_example_and_how_to_run_it() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let meta = metadata();
    let mut examples = 0;
    for package in packages(&meta) {
        for target in package["targets"].as_array().into_iter().flatten() {
            if target["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "example")) {
                examples += 1;
                let name = target["name"].as_str().unwrap_or_default();
                let src = target["src_path"].as_str().unwrap_or_default();
                let relative = Path::new(src).strip_prefix(root().canonicalize().unwrap()).unwrap();
                assert!(
                    readme.contains(&relative.display().to_string()),
                    "README does not name {}",
                    relative.display()
                );
                assert!(
                    readme.contains(&format!("--example {name}")),
                    "README does not say how to run {name}"
                );
            }
        }
    }
    assert!(examples > 0);
}
