//! Op lookup, attributes, port counts, Convert, constant values and the
//! collection of independent errors.

use ovir_ir::{IrErrorKind, OutputRef};
use ovir_shape::{
    ops, reversed_axes, sequence_lengths, AnalyzeError, ReverseMode, ShapeError, ShapeErrorKind,
};
use ovir_tensor::{ElementType, Tensor};

use crate::graph::{check, Expect, Graph};

/// Every error of an analysis that was expected to fail.
fn errors(g: Graph) -> Vec<ShapeError> {
    match g.analyze().1 {
        Ok(_) => panic!("analysis should have failed"),
        Err(AnalyzeError { errors, .. }) => errors,
    }
}

/// One row of the error table: a model and the one error it must produce.
struct ErrorCase {
    name: &'static str,
    build: fn(&mut Graph),
    kind: &'static str,
    attribute: Option<&'static str>,
    text: &'static str,
}

fn f32_data(g: &mut Graph, shape: &str) -> OutputRef {
    g.parameter("f32", shape)
}

const ERROR_CASES: &[ErrorCase] = &[
    ErrorCase {
        name: "unknown type",
        build: |g| {
            let x = f32_data(g, "2");
            g.add("Flip", "opset1", &[], &[x], 1);
        },
        kind: "UnknownOp",
        attribute: None,
        text: "unknown operation type `Flip` (version `opset1`); the supported operations are Parameter, Const, \
               Result, Convert, Reverse, ReverseSequence",
    },
    ErrorCase {
        name: "Reverse outside opset1",
        build: |g| {
            let x = f32_data(g, "2");
            let a = g.vector(&[0i64]);
            g.add("Reverse", "opset3", &[("mode", "index")], &[x, a], 1);
        },
        kind: "UnsupportedVersion",
        attribute: None,
        text: "Reverse is not part of `opset3`; it is defined in opset1 only",
    },
    ErrorCase {
        name: "Const in opset17",
        build: |g| {
            let c = g.add("Const", "opset17", &[], &[], 1);
            g.set_constant(c, Tensor::from_vec(&[1], vec![1.0f32]).unwrap());
        },
        kind: "UnsupportedVersion",
        attribute: None,
        text: "Const is not part of `opset17`; it is defined in opset1 to opset16",
    },
    ErrorCase {
        name: "version that is no opset",
        build: |g| {
            g.add("Parameter", "extension", &[("element_type", "f32"), ("shape", "1")], &[], 1);
        },
        kind: "UnsupportedVersion",
        attribute: None,
        text: "Parameter is not part of `extension`; it is defined in opset1 to opset17",
    },
    ErrorCase {
        name: "unknown opset number",
        build: |g| {
            let x = f32_data(g, "2,2");
            let l = g.vector(&[1i32, 2]);
            g.add("ReverseSequence", "opset99", &[], &[x, l], 1);
        },
        kind: "UnsupportedVersion",
        attribute: None,
        text: "ReverseSequence is not part of `opset99`; it is defined in opset1 to opset16",
    },
    ErrorCase {
        name: "Reverse with one input",
        build: |g| {
            let x = f32_data(g, "2");
            g.add("Reverse", "opset1", &[("mode", "index")], &[x], 1);
        },
        kind: "InputCount",
        attribute: None,
        text: "Reverse takes 2 input(s), but the layer has 1",
    },
    ErrorCase {
        name: "Result with an output",
        build: |g| {
            let x = f32_data(g, "2");
            g.add("Result", "opset1", &[], &[x], 1);
        },
        kind: "OutputCount",
        attribute: None,
        text: "Result produces 0 output(s), but the layer declares 1",
    },
    ErrorCase {
        name: "Parameter with two outputs",
        build: |g| {
            g.add("Parameter", "opset1", &[("element_type", "f32"), ("shape", "1")], &[], 2);
        },
        kind: "OutputCount",
        attribute: None,
        text: "Parameter produces 1 output(s), but the layer declares 2",
    },
    ErrorCase {
        name: "Parameter without shape",
        build: |g| {
            g.add("Parameter", "opset1", &[("element_type", "f32")], &[], 1);
        },
        kind: "MissingAttribute",
        attribute: None,
        text: "Parameter needs the attribute `shape`",
    },
    ErrorCase {
        name: "Parameter with an unknown element type",
        build: |g| {
            g.parameter("float", "1");
        },
        kind: "InvalidElementType",
        attribute: Some("element_type"),
        text: "`float` is not an element type (attribute `element_type`)",
    },
    ErrorCase {
        name: "Parameter with a bad shape",
        build: |g| {
            g.parameter("f32", "1,,2");
        },
        kind: "InvalidShape",
        attribute: Some("shape"),
        text: "`1,,2` is not a shape (attribute `shape`): invalid dimension",
    },
    ErrorCase {
        name: "Reverse without mode",
        build: |g| {
            let x = f32_data(g, "2");
            let a = g.vector(&[0i64]);
            g.op("Reverse", &[], &[x, a]);
        },
        kind: "MissingAttribute",
        attribute: None,
        text: "Reverse needs the attribute `mode`",
    },
    ErrorCase {
        name: "Reverse with a bad mode",
        build: |g| {
            let x = f32_data(g, "2");
            let a = g.vector(&[0i64]);
            g.op("Reverse", &[("mode", "flip")], &[x, a]);
        },
        kind: "InvalidMode",
        attribute: Some("mode"),
        text: "`flip` is not a Reverse mode; expected `index` or `mask`",
    },
    ErrorCase {
        name: "Reverse index with a negative axis out of bounds",
        build: |g| {
            let x = f32_data(g, "2,3,4");
            let a = g.vector(&[-1i32, -4]);
            g.op("Reverse", &[("mode", "index")], &[x, a]);
        },
        kind: "AxesOutOfBounds",
        attribute: None,
        text: "some of the axes {-4, 2} are out of bounds for data of rank 3 (an axis must lie between -3 and 2)",
    },
    ErrorCase {
        name: "Reverse index on a scalar",
        build: |g| {
            let x = f32_data(g, "");
            let a = g.vector(&[0u8]);
            g.op("Reverse", &[("mode", "index")], &[x, a]);
        },
        kind: "AxesOutOfBounds",
        attribute: None,
        text: "some of the axes {0} are out of bounds for data of rank 0 (a scalar has no axes)",
    },
    ErrorCase {
        name: "Reverse mask constant of the wrong length",
        build: |g| {
            let x = f32_data(g, "2,3");
            let a = g.vector(&[true, false, true]);
            g.op("Reverse", &[("mode", "mask")], &[x, a]);
        },
        kind: "MaskLength",
        attribute: None,
        text: "it has 3 elements, but the data has rank 2",
    },
    ErrorCase {
        name: "Reverse index with boolean axes",
        build: |g| {
            let x = f32_data(g, "2,3");
            let a = g.vector(&[true, false]);
            g.op("Reverse", &[("mode", "index")], &[x, a]);
        },
        kind: "IndexAxesType",
        attribute: None,
        text: "must hold integers, but it holds boolean",
    },
    ErrorCase {
        name: "ReverseSequence with a non-integer axis",
        build: |g| {
            let x = f32_data(g, "2,3");
            let l = g.vector(&[1i32, 2]);
            g.op("ReverseSequence", &[("batch_axis", "zero")], &[x, l]);
        },
        kind: "InvalidInteger",
        attribute: Some("batch_axis"),
        text: "attribute `batch_axis` must be an integer, but it is `zero`",
    },
    ErrorCase {
        name: "ReverseSequence with a negative axis out of range",
        build: |g| {
            let x = f32_data(g, "2,3");
            let l = g.vector(&[1i32, 2]);
            g.op("ReverseSequence", &[("seq_axis", "-3")], &[x, l]);
        },
        kind: "AxisOutOfRange",
        attribute: Some("seq_axis"),
        text: "`seq_axis` is -3, which is out of range for data of rank 2 (an axis must lie between -2 and 1)",
    },
    ErrorCase {
        name: "ReverseSequence with string lengths",
        build: |g| {
            let x = f32_data(g, "2,3");
            let l = g.parameter("string", "2");
            g.op("ReverseSequence", &[], &[x, l]);
        },
        kind: "LengthsType",
        attribute: None,
        text: "must be integers or real numbers, but they are string",
    },
    ErrorCase {
        name: "constant length above the sequence axis",
        build: |g| {
            let x = f32_data(g, "2,4");
            let l = g.vector(&[4i64, 5]);
            g.op("ReverseSequence", &[], &[x, l]);
        },
        kind: "LengthOutOfRange",
        attribute: None,
        text: "sequence length 5 at batch index 1 is out of range: it must lie between 0 and 4",
    },
    ErrorCase {
        name: "negative constant length",
        build: |g| {
            let x = f32_data(g, "2,4");
            let l = g.vector(&[-1i32, 0]);
            g.op("ReverseSequence", &[], &[x, l]);
        },
        kind: "LengthOutOfRange",
        attribute: None,
        text: "sequence length -1 at batch index 0 is out of range",
    },
    ErrorCase {
        name: "real constant length above the sequence axis after truncation",
        build: |g| {
            let x = f32_data(g, "2,4");
            let l = g.vector(&[4.9f32, 5.5]);
            g.op("ReverseSequence", &[], &[x, l]);
        },
        kind: "LengthOutOfRange",
        attribute: None,
        text: "sequence length 5.5 at batch index 1 is out of range",
    },
    ErrorCase {
        name: "constant length above 1 with the batch axis as the sequence axis",
        build: |g| {
            let x = f32_data(g, "3,4");
            let l = g.vector(&[1i64, 0, 2]);
            g.op("ReverseSequence", &[("batch_axis", "0"), ("seq_axis", "-2")], &[x, l]);
        },
        kind: "SameSequenceAxes",
        attribute: None,
        text: "batch_axis and seq_axis are both axis 0, which needs every sequence length to be at most 1, \
               but batch index 2 has length 2",
    },
    ErrorCase {
        name: "Convert without destination_type",
        build: |g| {
            let x = f32_data(g, "2");
            g.op("Convert", &[], &[x]);
        },
        kind: "MissingAttribute",
        attribute: None,
        text: "Convert needs the attribute `destination_type`",
    },
    ErrorCase {
        name: "Convert to an unknown type",
        build: |g| {
            let x = f32_data(g, "2");
            g.op("Convert", &[("destination_type", "FP32")], &[x]);
        },
        kind: "InvalidElementType",
        attribute: Some("destination_type"),
        text: "`FP32` is not an element type",
    },
    ErrorCase {
        name: "Convert to dynamic",
        build: |g| {
            let x = f32_data(g, "2");
            g.op("Convert", &[("destination_type", "undefined")], &[x]);
        },
        kind: "DynamicDestination",
        attribute: Some("destination_type"),
        text: "Convert needs a concrete `destination_type` such as f32, but it is `undefined`",
    },
    ErrorCase {
        name: "Convert to string",
        build: |g| {
            let x = f32_data(g, "2");
            g.op("Convert", &[("destination_type", "string")], &[x]);
        },
        kind: "StringConversion",
        attribute: Some("destination_type"),
        text: "Convert does not support string: it cannot convert f32 to string",
    },
    ErrorCase {
        name: "Convert from string",
        build: |g| {
            let x = g.parameter("string", "2");
            g.op("Convert", &[("destination_type", "i32")], &[x]);
        },
        kind: "StringConversion",
        attribute: None,
        text: "Convert does not support string: it cannot convert string to i32",
    },
    ErrorCase {
        name: "Convert nf4 to an integer",
        build: |g| {
            let x = g.parameter("nf4", "2");
            g.op("Convert", &[("destination_type", "i32")], &[x]);
        },
        kind: "UndefinedConversion",
        attribute: Some("destination_type"),
        text: "Convert cannot convert nf4 to i32: nf4 converts only to f16, bf16 and f32",
    },
    ErrorCase {
        name: "Convert f32 to nf4",
        build: |g| {
            let x = f32_data(g, "2");
            g.op("Convert", &[("destination_type", "nf4")], &[x]);
        },
        kind: "UndefinedConversion",
        attribute: Some("destination_type"),
        text: "Convert cannot convert f32 to nf4: only f16 converts to nf4",
    },
    ErrorCase {
        name: "Convert f64 to f4e2m1",
        build: |g| {
            let x = g.parameter("f64", "2");
            g.op("Convert", &[("destination_type", "f4e2m1")], &[x]);
        },
        kind: "UndefinedConversion",
        attribute: Some("destination_type"),
        text: "Convert cannot convert f64 to f4e2m1: only f16, bf16 and f32 convert to f4e2m1",
    },
];

#[test]
fn every_error_kind_is_reported_with_its_attribute() {
    for case in ERROR_CASES {
        let mut g = Graph::new();
        (case.build)(&mut g);
        let errors = errors(g);
        assert_eq!(errors.len(), 1, "{}: {errors:#?}", case.name);
        let e = &errors[0];
        let debug = format!("{:?}", e.kind);
        assert!(
            debug == case.kind || debug.starts_with(&format!("{} ", case.kind)),
            "{}: {debug}",
            case.name
        );
        assert!(e.kind.to_string().contains(case.text), "{}: {}", case.name, e.kind);
        assert_eq!(e.attribute.as_deref(), case.attribute, "{}", case.name);
    }
}

#[test]
fn a_model_whose_references_do_not_hold_is_refused_before_analysis() {
    // Built in code, a model can break what the reader guarantees: a layer
    // left out of the order, a Const without its value. Analysis checks
    // that first and analyses nothing, instead of panicking later.
    let mut g = Graph::new();
    g.parameter("f32", "1");
    let mut model = g.model();
    model.order.clear();
    let err = ovir_shape::analyze(&model).unwrap_err();
    assert!(err.errors.is_empty());
    let broken = err.broken.expect("the order is broken");
    assert!(matches!(broken.diagnostics[0].kind, IrErrorKind::NotInOrder), "{broken}");

    let mut g = Graph::new();
    g.add("Const", "opset1", &[("element_type", "f32"), ("shape", "1")], &[], 1);
    let err = ovir_shape::analyze(&g.model()).unwrap_err();
    assert!(err.to_string().contains("Const"), "{err}");
    let broken = err.broken.expect("the Const has no value");
    assert!(matches!(broken.diagnostics[0].kind, IrErrorKind::ConstWithoutValue), "{broken}");
}

#[test]
fn independent_problems_are_all_reported() {
    let mut g = Graph::new();
    let x = g.parameter("f32", "2,3");
    let bad_axes = g.vector(&[5i64]);
    let r1 = g.op("Reverse", &[("mode", "index")], &[x, bad_axes]);
    let y = g.parameter("f32", "4,3");
    let lengths = g.vector(&[1i32, 2, 3]);
    let r2 = g.op("ReverseSequence", &[], &[y, lengths]);
    g.result(r1);
    g.result(r2);
    let errors = errors(g);
    let kinds: Vec<String> = errors.iter().map(|e| format!("{:?}", e.kind)).collect();
    assert_eq!(errors.len(), 2, "{kinds:#?}");
    assert_eq!(errors[0].layer, r1.layer);
    assert!(matches!(errors[0].kind, ShapeErrorKind::AxesOutOfBounds { .. }));
    assert_eq!(errors[1].layer, r2.layer);
    assert!(matches!(errors[1].kind, ShapeErrorKind::LengthsCount { .. }));
}

#[test]
fn problems_within_one_layer_are_all_reported() {
    let mut g = Graph::new();
    let x = g.parameter("f32", "2,3");
    let axes = g.parameter("i32", "4");
    g.op("Reverse", &[("mode", "mask")], &[x, axes]);
    let errors = errors(g);
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(matches!(errors[0].kind, ShapeErrorKind::MaskAxesType { found: ElementType::I32 }));
    assert!(matches!(errors[1].kind, ShapeErrorKind::MaskLength { rank: 2, .. }));
}

#[test]
fn layers_fed_by_a_failing_layer_are_not_blamed() {
    let mut g = Graph::new();
    let bad = g.parameter("float", "2,3");
    let axes = g.vector(&[7i64]);
    // Would fail on a rank-2 input; the rank is unknown here.
    let rev = g.op("Reverse", &[("mode", "index")], &[bad, axes]);
    let conv = g.op("Convert", &[("destination_type", "f16")], &[rev]);
    // A negative axis on data of unknown rank is an error, unless the rank
    // is unknown because of the failure upstream.
    let lengths = g.parameter("i32", "2");
    let seq = g.op("ReverseSequence", &[("seq_axis", "-1")], &[conv, lengths]);
    g.result(seq);
    // An independent problem further down is still found.
    let other = g.parameter("f32", "3");
    g.op("Reverse", &[("mode", "sideways")], &[other, axes]);
    let errors = errors(g);
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert_eq!(errors[0].layer, bad.layer);
    assert!(matches!(errors[0].kind, ShapeErrorKind::InvalidElementType { .. }));
    assert!(matches!(errors[1].kind, ShapeErrorKind::InvalidMode { .. }));
}

#[test]
fn a_failing_layer_with_its_own_problem_is_still_blamed() {
    let mut g = Graph::new();
    let bad = g.parameter("f32", "1,,2");
    let axes = g.parameter("i64", "2,2");
    g.op("Reverse", &[("mode", "index")], &[bad, axes]);
    let errors = errors(g);
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(matches!(errors[1].kind, ShapeErrorKind::AxesNotVector { .. }));
}

#[test]
fn op_types_match_ignoring_case() {
    let mut g = Graph::new();
    let x = g.add("PARAMETER", "opset1", &[("element_type", "F16"), ("shape", "[2, 3]")], &[], 1);
    let x = OutputRef { layer: x, port: 0 };
    let axes = g.vector(&[1i64]);
    let rev = g.op("reverse", &[("mode", "INDEX")], &[x, axes]);
    let lengths = g.parameter("i64", "2");
    let seq = g.op("reverseSEQUENCE", &[], &[rev, lengths]);
    let conv = g.op("CONVERT", &[("destination_type", "f32")], &[seq]);
    let result = g.add("result", "opset1", &[], &[conv], 0);
    let (model, info) = g.analyze();
    let info = info.unwrap();
    assert_eq!(info.op(rev.layer).downcast_ref(), Some(&ops::Reverse { mode: ReverseMode::Index }));
    assert_eq!(info.op(rev.layer).name(), "Reverse");
    assert_eq!(info.op(seq.layer).name(), "ReverseSequence");
    assert_eq!(info.op(result).downcast_ref(), Some(&ops::ResultOp));
    assert_eq!(info.outputs[result.0].len(), 0);
    let fact = info.input_fact(&model, result, 0);
    assert_eq!(fact.element_type, ElementType::F32);
    assert_eq!(fact.shape.to_string(), "[2,3]");
}

#[test]
fn const_and_constant_both_name_the_constant_op() {
    for name in ["Const", "Constant", "const", "CONSTANT"] {
        let mut g = Graph::new();
        let value = Tensor::from_vec(&[2, 2], vec![1u16, 2, 3, 4]).unwrap();
        let c = g.add(name, "opset1", &[("element_type", "u16"), ("shape", "2,2")], &[], 1);
        let mut model = g.model();
        model.layers[c.0].constant = Some(value.clone());
        let info = ovir_shape::analyze(&model).unwrap();
        assert_eq!(info.op(c).downcast_ref(), Some(&ops::Const { value: value.clone() }));
        assert_eq!(info.op(c).name(), "Const");
        let fact = info.output(OutputRef { layer: c, port: 0 });
        assert_eq!(fact.element_type, ElementType::U16);
        assert_eq!(fact.shape.to_string(), "[2,2]");
        let known = fact.value.as_ref().unwrap();
        assert!(known.shares_storage_with(&value), "{name}: the value should not be copied");
    }
}

#[test]
fn convert_keeps_the_shape_and_does_not_fold() {
    let mut g = Graph::new();
    let c = g.vector(&[1.5f32, 2.5]);
    let out = g.op("Convert", &[("destination_type", "i64")], &[c]);
    let fact = g.infer(out).unwrap();
    assert_eq!(fact.element_type, ElementType::I64);
    assert_eq!(fact.shape.to_string(), "[2]");
    assert!(fact.value.is_none());

    let mut g = Graph::new();
    let x = g.parameter("dynamic", "?,2..8");
    let out = g.op("Convert", &[("destination_type", "boolean")], &[x]);
    check("Convert from dynamic", g.infer(out), &Expect::Ok("boolean", "[?,2..8]"));
}

#[test]
fn parameter_accepts_the_full_shape_syntax() {
    for (shape, shown) in
        [("?,3,1..10", "[?,3,1..10]"), ("", "[]"), ("...", "[...]"), ("[-1, ..4, 2..]", "[?,..4,2..]")]
    {
        let mut g = Graph::new();
        let x = g.parameter("string", shape);
        check(shape, g.infer(x), &Expect::Ok("string", shown));
    }
}

#[test]
fn reverse_accepts_any_integer_axes_and_keeps_data_type() {
    for (ty, axes) in [("u8", "2"), ("i4", "1"), ("u64", "?"), ("dynamic", "3")] {
        let mut g = Graph::new();
        let x = g.parameter("bf16", "2,3..4,?");
        let a = g.parameter(ty, axes);
        let out = g.op("Reverse", &[("mode", "index")], &[x, a]);
        check(ty, g.infer(out), &Expect::Ok("bf16", "[2,3..4,?]"));
    }
    let mut g = Graph::new();
    let x = g.parameter("string", "2,3");
    let a = g.vector(&[false, true]);
    let out = g.op("Reverse", &[("mode", "Mask")], &[x, a]);
    check("mask constant", g.infer(out), &Expect::Ok("string", "[2,3]"));
}

#[test]
fn reverse_accepts_empty_constant_axes() {
    let mut g = Graph::new();
    let x = g.parameter("f32", "2,3");
    let a = g.constant(Tensor::from_vec::<i64>(&[0], vec![]).unwrap());
    let out = g.op("Reverse", &[("mode", "index")], &[x, a]);
    check("empty axes", g.infer(out), &Expect::Ok("f32", "[2,3]"));
}

#[test]
fn constant_lengths_within_range_pass() {
    let mut g = Graph::new();
    let x = g.parameter("i64", "?,4,3");
    let l = g.vector(&[0.0f64, 4.9, 1.0]);
    // Lengths {3} merge into the dynamic batch dim; the sequence axis is static.
    let out = g.op("ReverseSequence", &[], &[x, l]);
    check("real lengths", g.infer(out), &Expect::Ok("i64", "[3,4,3]"));

    // A dynamic sequence axis leaves the check to run time.
    let mut g = Graph::new();
    let x = g.parameter("f32", "2,?");
    let l = g.vector(&[100u32, 7]);
    let out = g.op("ReverseSequence", &[], &[x, l]);
    check("dynamic sequence axis", g.infer(out), &Expect::Ok("f32", "[2,?]"));
}

#[test]
fn value_helpers_match_the_load_time_checks() {
    let axes = Tensor::from_vec(&[4], vec![1i8, -1, 1, 0]).unwrap();
    assert_eq!(reversed_axes(ReverseMode::Index, &axes, 3).unwrap(), vec![true, true, true]);
    assert_eq!(reversed_axes(ReverseMode::Index, &axes, 2).unwrap(), vec![true, true]);
    let mask = Tensor::from_vec(&[2], vec![true, false]).unwrap();
    assert_eq!(reversed_axes(ReverseMode::Mask, &mask, 2).unwrap(), vec![true, false]);
    assert!(matches!(
        reversed_axes(ReverseMode::Mask, &axes, 4),
        Err(ShapeErrorKind::MaskAxesType { found: ElementType::I8 })
    ));
    let matrix = Tensor::from_vec(&[1, 1], vec![0i32]).unwrap();
    assert!(matches!(
        reversed_axes(ReverseMode::Index, &matrix, 2),
        Err(ShapeErrorKind::AxesNotVector { .. })
    ));
    // Packed integer axes are read in OpenVINO's nibble order: 0x10 holds
    // 0, then 1.
    let packed = Tensor::from_bytes(ElementType::U4, &[2], &[0x10]).unwrap();
    assert_eq!(reversed_axes(ReverseMode::Index, &packed, 2), Ok(vec![true, true]));
    let packed = Tensor::from_bytes(ElementType::U4, &[1], &[0x21]).unwrap();
    assert_eq!(reversed_axes(ReverseMode::Index, &packed, 2), Ok(vec![false, true]));

    let lengths = Tensor::from_vec(&[3], vec![3u64, 0, 1]).unwrap();
    assert_eq!(sequence_lengths(&lengths, 3).unwrap(), vec![3, 0, 1]);
    let err = sequence_lengths(&lengths, 2).unwrap_err();
    assert_eq!(err, ShapeErrorKind::LengthOutOfRange { batch: 0, value: "3".to_string(), max: 2 });
    let nan = Tensor::from_vec(&[1], vec![f32::NAN]).unwrap();
    assert!(matches!(sequence_lengths(&nan, 2), Err(ShapeErrorKind::LengthOutOfRange { .. })));
    let flags = Tensor::from_vec(&[1], vec![true]).unwrap();
    assert_eq!(sequence_lengths(&flags, 2), Err(ShapeErrorKind::LengthsType { found: ElementType::Boolean }));
}

#[test]
fn errors_name_the_layer() {
    let mut g = Graph::new();
    g.parameter("f32", "1,,2");
    let (model, result) = g.analyze();
    let err = result.unwrap_err();
    assert_eq!(
        err.errors[0].describe(&model),
        "layer `parameter_0` (id 0, Parameter): `1,,2` is not a shape (attribute `shape`): invalid dimension ``: \
         empty dimension"
    );
    assert!(err.to_string().starts_with("layer #0: `1,,2` is not a shape"));
}
