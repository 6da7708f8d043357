//! `Model::add_output`: any layer's port made a model output, checked
//! against values worked out by hand.

use ovir::ops::ReverseMode;
use ovir::{ElementType, Error, Model, ModelBuilder, PartialShape, Tensor};

/// data [2,3] -> Split(axis 1, 3 parts) -> parts 0, 1, 2, each [2,1];
/// part 1 -> Reverse(axis 0) named "flip", with tensor name "flipped";
/// out = Concat(flip, part 2) on axis 1, the only Result.
fn model() -> Model {
    let mut b = ModelBuilder::new("parts");
    let data = b.parameter("data", ElementType::I32, PartialShape::from_static(&[2, 3])).unwrap();
    let axis = b.constant_slice(&[], &[1i64]).unwrap();
    let parts = b.split(data, axis, 3).unwrap();
    b.set_layer_name(parts[0], "split").unwrap();
    let axes = b.constant_slice(&[1], &[0i64]).unwrap();
    let flipped = b.reverse(parts[1], axes, ReverseMode::Index).unwrap();
    b.set_layer_name(flipped, "flip").unwrap();
    b.set_names(flipped, &["flipped"]).unwrap();
    let out = b.concat(&[flipped, parts[2]], 1).unwrap();
    b.set_names(out, &["out"]).unwrap();
    b.result(out).unwrap();
    b.build().unwrap()
}

/// [[0, 1, 2], [3, 4, 5]]
fn data() -> Tensor {
    Tensor::from_vec(&[2, 3], vec![0i32, 1, 2, 3, 4, 5]).unwrap()
}

#[test]
fn a_port_of_a_layer_with_several_outputs_is_named_layer_colon_n() {
    let mut model = model();
    let first = model.add_output("split").unwrap();
    let second = model.add_output("split:2").unwrap();
    // The new Results are named after the port, as no tensor name is set.
    assert_eq!(first.name(), "split:0");
    assert_eq!(second.name(), "split:2");
    assert_eq!((first.element_type, first.shape.to_string()), (ElementType::I32, "[2,1]".to_string()));
    let names: Vec<String> = model.outputs().iter().map(|p| p.name().to_string()).collect();
    assert_eq!(names, ["out", "split:0", "split:2"]);
    let outputs = model.compile().unwrap().run([("data", data())]).unwrap();
    // Column 0 and column 2 of the data.
    assert_eq!(outputs.get("split:0").unwrap().to_vec::<i32>().unwrap(), [0, 3]);
    assert_eq!(outputs.get(2).unwrap().to_vec::<i32>().unwrap(), [2, 5]);
    // Column 1 reversed along axis 0, beside column 2: [[4, 2], [1, 5]].
    assert_eq!(outputs.get("out").unwrap().to_vec::<i32>().unwrap(), [4, 2, 1, 5]);
}

#[test]
fn a_tensor_name_comes_before_a_layer_name() {
    let mut model = model();
    // "flipped" is the Reverse's tensor name; "flip" its layer name: both
    // name the same port, which is added once.
    let by_tensor = model.add_output("flipped").unwrap();
    let by_layer = model.add_output("flip").unwrap();
    assert_eq!(by_tensor, by_layer);
    assert_eq!(by_tensor.names, ["flipped", "flip"]);
    assert_eq!(model.outputs().len(), 2);
    let outputs = model.compile().unwrap().run([("data", data())]).unwrap();
    // Column 1, [1, 4], reversed.
    assert_eq!(outputs.get("flipped").unwrap().to_vec::<i32>().unwrap(), [4, 1]);
}

#[test]
fn an_output_already_there_is_returned_not_added() {
    let mut model = model();
    let before = model.outputs();
    assert_eq!(model.add_output("out").unwrap(), before[0]);
    // The Result's own layer name means the tensor it reads.
    let result_name = model.ir().layers.iter().find(|l| l.is("Result")).unwrap().name.clone();
    assert_eq!(model.add_output(&result_name).unwrap(), before[0]);
    assert_eq!(model.outputs(), before);
}

#[test]
fn inputs_and_constants_can_be_outputs() {
    let mut model = model();
    model.add_output("data").unwrap();
    let outputs = model.compile().unwrap().run([("data", data())]).unwrap();
    assert_eq!(outputs.get("data").unwrap().to_vec::<i32>().unwrap(), [0, 1, 2, 3, 4, 5]);
}

#[test]
fn unknown_names_and_ports_are_errors_that_say_why() {
    let mut model = model();
    let before = model.outputs();
    let message = |e: Error| {
        assert!(matches!(e, Error::NoSuchTensor { .. }), "{e:?}");
        e.to_string()
    };
    assert_eq!(
        message(model.add_output("nope").unwrap_err()),
        "cannot make \"nope\" an output: no tensor or layer has this name (a layer's output N is LAYER:N)"
    );
    assert_eq!(
        message(model.add_output("split:3").unwrap_err()),
        "cannot make \"split:3\" an output: layer \"split\" has 3 outputs, numbered from 0"
    );
    assert_eq!(
        message(model.add_output("split:x").unwrap_err()),
        "cannot make \"split:x\" an output: no tensor or layer has this name (a layer's output N is LAYER:N)"
    );
    let at = ovir::ir::OutputRef { layer: ovir::ir::LayerIdx(99), port: 0 };
    assert!(message(model.add_outputs_at(&[at]).unwrap_err()).contains("layer 99 output 0"));
    assert_eq!(model.outputs(), before);
}
