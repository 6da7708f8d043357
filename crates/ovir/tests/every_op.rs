//! Every built-in op, taken from the one list of them
//! (`for_each_builtin_op!`), is registered completely: the registry knows
//! the version it writes, its attributes read back to the same op, the
//! builder adds it, the executor plans it, and the IR writer and reader
//! carry it through a file unchanged. A new op is checked here without
//! any edit to this file.

use ovir::builder::Output;
use ovir::{BuiltinOp, ElementType, Model, ModelBuilder, OpLayer, PartialShape};

/// One op type's examples, each checked; the failures, in words.
fn check<T: BuiltinOp>() -> Vec<String> {
    let spec = T::SPEC;
    let mut failures = Vec::new();
    let examples = T::examples();
    if examples.is_empty() {
        failures.push(format!("{}: no examples", spec.name));
    }
    for op in examples {
        let written = op.write();
        let what = format!("{} {:?}", spec.name, written.attrs);
        if let Err(e) = check_one(&op, &written) {
            failures.push(format!("{what}: {e}"));
        }
    }
    failures
}

fn check_one<T: BuiltinOp>(op: &T, written: &OpLayer) -> Result<(), String> {
    let spec = T::SPEC;
    if written.op_type != spec.name || !spec.takes_outputs(written.outputs) {
        return Err(format!("writes type {} with {} outputs", written.op_type, written.outputs));
    }
    // The version it writes is one the registry takes it in.
    let opset =
        spec.versions.opset_of(&written.version).ok_or(format!("writes version {}", written.version))?;
    if !ovir::shape::OpRegistry::new().has_op(&written.op_type, &written.version) {
        return Err(format!("the registry has no {} of {}", written.op_type, written.version));
    }
    // build(write(op)) == op.
    let built = T::build(&written.to_layer_with(spec.inputs.0), opset).map_err(|e| format!("{e:?}"))?;
    if &built != op {
        return Err(format!("reads back as {built:?}, not {op:?}"));
    }
    let model = built_model(op)?;
    // The executor plans every layer.
    model.compile().map_err(|e| format!("does not compile: {e}"))?;
    // Written as IR and read back: the same op and attributes.
    let (mut xml, mut bin) = (Vec::new(), Vec::new());
    model.ir().write_to(&mut xml, &mut bin).map_err(|e| e.to_string())?;
    let xml = String::from_utf8(xml).map_err(|e| e.to_string())?;
    let read = Model::from_memory(&xml, Some(bin)).map_err(|e| format!("reads back with {e}"))?;
    let ir = read.ir();
    let at = ir.order.iter().find(|&&idx| ir.layer(idx).op_type == spec.name).ok_or("the layer is gone")?;
    let layer = ir.layer(*at);
    if read.info().op(*at).downcast_ref::<T>() != Some(op) {
        return Err(format!("the file reads back as {:?}", read.info().op(*at)));
    }
    let attrs: Vec<(String, String)> =
        layer.attrs.0.iter().map(|a| (a.name.clone(), a.value.clone())).collect();
    // A Const's file adds where its value lies in the weights.
    if !attrs.starts_with(&written.attrs) || (written.constant.is_none() && attrs != written.attrs) {
        return Err(format!("the file has the attributes {attrs:?}"));
    }
    if layer.version != written.version {
        return Err(format!("the file has version {}", layer.version));
    }
    Ok(())
}

/// A model with one layer of `op`, fed by inputs of any type and shape:
/// the fewest the op takes that it accepts in this form (Broadcast's
/// explicit mode takes a third input, its other modes none).
fn built_model<T: BuiltinOp>(op: &T) -> Result<Model, String> {
    let (min, max) = T::SPEC.inputs;
    let mut refused = Vec::new();
    for count in min..=max.unwrap_or(min + 2) {
        let mut b = ModelBuilder::new("m");
        let inputs: Vec<Output> = (0..count)
            .map(|i| b.parameter(&format!("in{i}"), ElementType::Dynamic, PartialShape::dynamic()))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        match b.add_layer(op.clone(), &inputs) {
            Ok(outputs) => {
                for out in outputs {
                    b.result(out).map_err(|e| e.to_string())?;
                }
                return b.build().map_err(|e| e.to_string());
            }
            Err(e) => refused.push(format!("with {count} inputs: {e}")),
        }
    }
    Err(format!("the builder refuses it {}", refused.join("; ")))
}

#[test]
fn every_builtin_op_is_registered_completely() {
    macro_rules! check_all {
        ($($op:path),* $(,)?) => { [$(check::<$op>()),*] };
    }
    let results = ovir::shape::for_each_builtin_op!(check_all);
    assert!(results.len() >= 15, "only {} ops", results.len());
    let failures: Vec<String> = results.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_builder_adds_an_op_with_no_output_only_through_add_layer() {
    let mut b = ModelBuilder::new("m");
    let x = b.parameter("x", ElementType::F32, PartialShape::from_static(&[2])).unwrap();
    let err = b.add(ovir::ops::ResultOp, &[x]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Result has 0 outputs, but `add` takes an op with one; `add_layer` returns them all"
    );
    assert_eq!(b.add_layer(ovir::ops::ResultOp, &[x]).unwrap(), []);
    let model = b.build().unwrap();
    assert_eq!(model.ir().layers.len(), 2);
}
