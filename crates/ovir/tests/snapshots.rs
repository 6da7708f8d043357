//! Snapshot tests of a model's outputs, written as a user of ovir writes
//! them with `insta`: `assert_snapshot!(outputs)` for the text,
//! `assert_json_snapshot!(outputs)` for JSON.

use ovir::shape::ReverseMode;
use ovir::{ElementType, Model, ModelBuilder, Outputs, PartialShape, Tensor};

/// `data` (`f32`, rows of 3) reversed along its columns as `out`, the same
/// converted to `f16` as `half`, and the shape of `data` as `shape`.
fn model() -> Model {
    let mut b = ModelBuilder::new("flip");
    let data = b.parameter("data", ElementType::F32, "?,3".parse::<PartialShape>().unwrap()).unwrap();
    let axes = b.constant_slice(&[1], &[1i64]).unwrap();
    let out = b.reverse(data, axes, ReverseMode::Index).unwrap();
    b.set_names(out, &["out"]).unwrap();
    b.result(out).unwrap();
    let half = b.convert(out, ElementType::F16).unwrap();
    b.set_names(half, &["half"]).unwrap();
    b.result(half).unwrap();
    let shape = b.shape_of(data, ElementType::I64).unwrap();
    b.set_names(shape, &["shape"]).unwrap();
    b.result(shape).unwrap();
    b.build().unwrap()
}

fn run(data: Tensor) -> Outputs {
    model().compile().unwrap().run([("data", data)]).unwrap()
}

/// Values that a printout through `f64` would get wrong: a NaN's payload,
/// `-0`, the smallest `f32` subnormal, and `f16` values whose `f32`
/// digits are not their own.
fn awkward() -> Tensor {
    let nan = f32::from_bits(0x7fc0_0001);
    Tensor::from_vec(&[2, 3], vec![0.1f32, -0.0, nan, f32::INFINITY, 1e-45, 65504.0]).unwrap()
}

#[test]
fn outputs_snapshot_as_text() {
    let outputs = run(awkward());
    insta::assert_snapshot!(outputs);
}

#[test]
fn outputs_snapshot_as_json() {
    let outputs = run(awkward());
    insta::assert_json_snapshot!(outputs);
}

#[test]
fn large_outputs_snapshot_as_summaries() {
    let data = Tensor::from_vec(&[400, 3], (0..1200).map(|v| v as f32).collect()).unwrap();
    let outputs = run(data);
    let text = outputs.to_string();
    // The hash a summary shows is the one of the output's own bytes.
    let hash = ovir::text::content_hash(outputs.get("out").unwrap());
    assert!(text.contains(&format!("1200 values, xxh3-64 {hash:016x}")), "{text}");
    insta::assert_snapshot!(outputs);
    // `{:#}` shows every value: a header, then 400 rows of one line each.
    assert_eq!(
        format!("{outputs:#}").lines().filter(|l| l.starts_with(" [") || l.starts_with("[[")).count(),
        800
    );
}
