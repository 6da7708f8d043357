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

/// The workspace's Cargo.toml.
fn manifest() -> toml_edit::DocumentMut {
    std::fs::read_to_string(root().join("Cargo.toml")).unwrap().parse().expect("Cargo.toml parses")
}

#[test]
fn the_license_file_holds_the_license_the_crates_declare() {
    let meta = metadata();
    for package in packages(&meta) {
        assert_eq!(package["license"], "Apache-2.0", "{}", package["name"]);
    }
    let text = std::fs::read_to_string(root().join("LICENSE")).expect("a LICENSE file");
    for words in
        ["Apache License", "Version 2.0, January 2004", "TERMS AND CONDITIONS", "END OF TERMS AND CONDITIONS"]
    {
        assert!(text.contains(words), "LICENSE lacks {words:?}");
    }
    // All nine sections of the terms, not an excerpt.
    for section in 1..=9 {
        assert!(
            text.contains(&format!("\n   {section}. ")) || text.contains(&format!("\n{section}. ")),
            "section {section}"
        );
    }
}

#[test]
fn every_published_crate_says_what_it_is_and_where_it_belongs() {
    let meta = metadata();
    for package in packages(&meta) {
        let name = package["name"].as_str().unwrap_or_default();
        if package["publish"].as_array().is_some_and(Vec::is_empty) {
            continue;
        }
        assert!(package["description"].as_str().is_some_and(|d| d.len() > 20), "{name}: description");
        let keywords = package["keywords"].as_array().map(Vec::len).unwrap_or(0);
        assert!((1..=5).contains(&keywords), "{name}: crates.io takes 1 to 5 keywords, not {keywords}");
        assert!(package["categories"].as_array().is_some_and(|c| !c.is_empty()), "{name}: categories");
        let dir = Path::new(package["manifest_path"].as_str().unwrap_or_default()).parent().unwrap();
        let readme = package["readme"].as_str().map(|r| dir.join(r));
        assert!(readme.is_some_and(|r| r.is_file()), "{name}: readme");
    }
}

/// `cargo publish` refuses a dependency with a path and no version, as
/// the path is dropped from the published manifest (a dev-dependency
/// without one, such as a crate's own features in its tests, is dropped
/// instead).
#[test]
fn dependencies_on_workspace_crates_give_the_version_they_have() {
    let meta = metadata();
    let version = |name: &str| {
        packages(&meta)
            .iter()
            .find(|p| p["name"] == name)
            .and_then(|p| p["version"].as_str())
            .map(str::to_string)
    };
    let mut checked = 0;
    for package in packages(&meta) {
        let name = package["name"].as_str().unwrap_or_default();
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            if dep["path"].is_null() || (dep["kind"] == "dev" && dep["req"] == "*") {
                continue;
            }
            let dep_name = dep["name"].as_str().unwrap_or_default();
            let wanted = version(dep_name).map(|v| format!("^{v}"));
            assert_eq!(dep["req"].as_str(), wanted.as_deref(), "{name} -> {dep_name}");
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} dependencies on workspace crates");
}

#[test]
fn the_changelog_has_an_entry_for_the_version() {
    let text = std::fs::read_to_string(root().join("CHANGELOG.md")).expect("a CHANGELOG.md");
    let version = env!("CARGO_PKG_VERSION");
    assert!(text.contains(&format!("## [{version}]")), "no entry for {version}");
    assert!(text.contains("## [Unreleased]"));
}

#[test]
fn installs_carry_no_debug_info_but_profiling_builds_do() {
    let toml = manifest();
    let debug = |profile: &str| toml["profile"][profile]["debug"].clone().into_value().ok();
    let off = |v: Option<toml_edit::Value>| {
        v.is_none_or(|v| {
            v.as_bool() == Some(false) || v.as_integer() == Some(0) || v.as_str() == Some("none")
        })
    };
    // `cargo install` builds with the release profile.
    assert!(off(debug("release")), "release keeps debug info: {:?}", debug("release"));
    assert!(!off(debug("bench")), "cargo bench lost its line tables");
    assert!(!off(debug("profiling")), "the profiling profile lost its line tables");
    assert_eq!(toml["profile"]["profiling"]["inherits"].as_str(), Some("release"));
}

#[test]
fn the_readmes_case_harness_names_real_features_and_versions() {
    // The harness itself compiles as a doctest of the ovir crate (which
    // includes the README); this checks what it asks of Cargo.toml.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("```toml\n[dev-dependencies]\novir = ").expect("the harness's Cargo.toml lines");
    let toml: toml_edit::DocumentMut =
        readme[start + 8..].split("```").next().unwrap().parse().expect("the README's TOML parses");
    let ovir = &toml["dev-dependencies"]["ovir"];
    let version = env!("CARGO_PKG_VERSION");
    let wanted = ovir["version"].as_str().unwrap();
    assert!(version.starts_with(wanted), "the README asks for ovir {wanted}, the crate is {version}");
    let crate_toml: toml_edit::DocumentMut =
        std::fs::read_to_string(root().join("crates/ovir/Cargo.toml")).unwrap().parse().unwrap();
    for feature in ovir["features"].as_array().unwrap() {
        let feature = feature.as_str().unwrap();
        assert!(crate_toml["features"].get(feature).is_some(), "ovir has no feature {feature}");
    }
    let mimic = toml["dev-dependencies"]["libtest-mimic"].as_str().unwrap();
    let ours = manifest()["workspace"]["dependencies"]["libtest-mimic"].as_str().unwrap().to_string();
    assert_eq!(mimic, ours, "the README's libtest-mimic is the one the workspace tests with");
    assert_eq!(toml["test"][0]["harness"].as_bool(), Some(false));
}
