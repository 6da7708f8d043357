//! `ovir info --json` against its published schema, docs/info.schema.json:
//! every sample, valid, malformed, unsupported or with port warnings.

use std::path::Path;

use ovir_tests::{case_dirs, samples_dir};

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(Path::new("../docs/info.schema.json")).expect("the schema is shipped");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).expect("the schema is a valid JSON Schema")
}

/// The JSON `ovir info --json` writes for a sample.
fn info_json(dir: &Path) -> Option<serde_json::Value> {
    let d = ovir_cli::info::describe_file(&dir.join("model.xml"), None).ok()?;
    Some(serde_json::to_value(&d).expect("a description serializes"))
}

fn check(validator: &jsonschema::Validator, dir: &Path, json: &serde_json::Value) {
    let errors: Vec<String> =
        validator.iter_errors(json).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{}: {}", dir.display(), errors.join("\n"));
}

#[test]
fn every_description_follows_the_schema() {
    let validator = validator();
    let mut described = 0;
    let mut with_problems = 0;
    let mut with_warnings = 0;
    for group in [samples_dir(), samples_dir().join("bad"), samples_dir().join("unsupported")] {
        for dir in case_dirs(&group) {
            // Files that cannot be read as IR at all are errors, not
            // descriptions.
            let Some(json) = info_json(&dir) else { continue };
            check(&validator, &dir, &json);
            described += 1;
            with_problems += usize::from(!json["problems"].as_array().is_some_and(Vec::is_empty));
            with_warnings += usize::from(!json["warnings"].as_array().is_some_and(Vec::is_empty));
        }
    }
    assert!(
        described > 100 && with_problems > 10 && with_warnings > 0,
        "{described} {with_problems} {with_warnings}"
    );
}

#[test]
fn dims_shapes_and_problems_take_the_documented_forms() {
    let validator = validator();
    // An interval batch: [1..5, 4].
    let dir = samples_dir().join("interval_rseq_1_5x4");
    let json = info_json(&dir).unwrap();
    assert_eq!(json["schema_version"], 1);
    assert_eq!(json["inputs"][0]["shape"], serde_json::json!([{ "min": 1, "max": 5 }, 4]));
    // A dimension with no bounds is null, and so is an unknown rank.
    let json = info_json(&samples_dir().join("dynamic_reverse_2xq")).unwrap();
    assert_eq!(json["inputs"][0]["shape"], serde_json::json!([2, null]));
    let json = info_json(&samples_dir().join("dynamic_rank_reverse")).unwrap();
    assert_eq!(json["inputs"][0]["shape"], serde_json::Value::Null);

    // A problem: its place, its layer, its kind and its message.
    let dir = samples_dir().join("bad/d2s_block_size_zero");
    let json = info_json(&dir).unwrap();
    let file = dir.join("model.xml").display().to_string();
    assert_eq!(
        json["problems"],
        serde_json::json!([{
            "file": file,
            "line": 16,
            "column": 10,
            "layer": { "id": 1, "name": "depth_to_space", "op": "DepthToSpace" },
            "code": "BlockSize",
            "message": "DepthToSpace's block_size must be 1 or more, but it is 0"
        }])
    );
    assert_eq!(json["problems_omitted"], 0);

    // The schema takes the forms of a dim and a shape, and none of the
    // strings that once stood for them.
    let mut json = json;
    json["edges"][0]["shape"] = serde_json::json!([null, 2, { "min": 3, "max": null }]);
    check(&validator, &dir, &json);
    json["edges"][0]["shape"] = serde_json::Value::Null;
    check(&validator, &dir, &json);
    for old in [serde_json::json!(["?"]), serde_json::json!([2, "1..5"]), serde_json::json!("...")] {
        json["edges"][0]["shape"] = old;
        assert!(!validator.is_valid(&json));
    }
    // A problem as a flat string is refused too.
    json["edges"][0]["shape"] = serde_json::Value::Null;
    json["problems"][0] = serde_json::json!("model.xml:16:10: block_size is 0");
    assert!(!validator.is_valid(&json));
}
