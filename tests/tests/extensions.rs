//! Extensions through the facade: registering ops, finding them by type
//! and version, their shape inference at load time, constant folding
//! through them, and the built-in ReverseSubsequences.

use std::sync::Arc;

use ovir::ir::Layer;
use ovir::{Core, CustomOp, ElementType, Error, Extension, ExtensionError, Model, PortFact, Tensor};
use ovir_tests::samples_dir;

/// `Scale` of a version of choice: multiplies f32 data by its `factor`
/// attribute.
struct ScaleExtension {
    version: &'static str,
}

#[derive(Debug)]
struct Scale {
    factor: f32,
}

impl Extension for ScaleExtension {
    fn op_type(&self) -> &str {
        "Scale"
    }
    fn version(&self) -> &str {
        self.version
    }
    fn build(&self, layer: &Layer) -> Result<Arc<dyn CustomOp>, ExtensionError> {
        let value = layer.attrs.value("factor").unwrap_or("1");
        let factor = value.parse().map_err(|_| {
            ExtensionError::attribute("factor", format!("factor must be a number, not `{value}`"))
        })?;
        Ok(Arc::new(Scale { factor }))
    }
}

impl CustomOp for Scale {
    fn op_type(&self) -> &str {
        "Scale"
    }
    fn infer(&self, inputs: &[PortFact]) -> Result<PortFact, ExtensionError> {
        match inputs {
            [x] if !x.element_type.is_static() || x.element_type == ElementType::F32 => {
                Ok(PortFact::of(ElementType::F32, x.shape.clone()))
            }
            [x] => Err(ExtensionError::new(format!("Scale needs f32 data, but it is {}", x.element_type))),
            _ => Err(ExtensionError::new("Scale takes 1 input")),
        }
    }
    fn evaluate(&self, inputs: &[&Tensor]) -> Result<Tensor, ExtensionError> {
        let [x] = inputs else { return Err(ExtensionError::new("Scale takes 1 input")) };
        let values: Vec<f32> = x.to_vec::<f32>().map_err(|e| ExtensionError::new(e.to_string()))?;
        Tensor::from_vec(x.shape(), values.into_iter().map(|v| v * self.factor).collect())
            .map_err(|e| ExtensionError::new(e.to_string()))
    }
}

/// A graph `x -> Scale -> y`, with `x` a Parameter of type `ty` or, when
/// `constant`, a Const of three f32 values.
fn scale_xml(op_type: &str, version: &str, factor: &str, ty: &str, constant: bool) -> String {
    let precision = if ty == "f32" { "FP32" } else { "I32" };
    let source = if constant {
        r#"<layer id="0" name="x" type="Const" version="opset1">
      <data element_type="f32" shape="3" offset="0" size="12"/>
      <output><port id="0" precision="FP32"><dim>3</dim></port></output>
    </layer>"#
            .to_string()
    } else {
        format!(
            r#"<layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="3" element_type="{ty}"/>
      <output><port id="0" precision="{precision}" names="x"><dim>3</dim></port></output>
    </layer>"#
        )
    };
    format!(
        r#"<?xml version="1.0"?>
<net name="scale" version="11">
  <layers>
    {source}
    <layer id="1" name="scale" type="{op_type}" version="{version}">
      <data factor="{factor}"/>
      <input><port id="0"><dim>3</dim></port></input>
      <output><port id="1" precision="FP32" names="y"><dim>3</dim></port></output>
    </layer>
    <layer id="2" name="y" type="Result" version="opset1">
      <input><port id="0"><dim>3</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
    <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
  </edges>
</net>"#
    )
}

fn core_with_scale() -> Core {
    let mut core = Core::new();
    core.add_extension(ScaleExtension { version: "test" }).unwrap();
    core
}

fn weights() -> Option<Vec<u8>> {
    Some([1.0f32, 2.0, 3.0].iter().flat_map(|v| v.to_le_bytes()).collect())
}

#[test]
fn a_registered_op_loads_and_runs() {
    let core = core_with_scale();
    let compiled =
        core.read_model_from_memory(&scale_xml("Scale", "test", "2.5", "f32", false), None).unwrap();
    let compiled = compiled.compile().unwrap();
    let mut request = compiled.infer_request();
    for _ in 0..2 {
        request.set_input("x", Tensor::from_vec(&[3], vec![1.0f32, -2.0, 4.0]).unwrap()).unwrap();
        request.infer().unwrap();
        assert_eq!(request.output("y").unwrap().to_vec::<f32>().unwrap(), vec![2.5, -5.0, 10.0]);
    }
}

#[test]
fn the_type_matches_ignoring_case_and_the_version_exactly() {
    let core = core_with_scale();
    assert!(core.read_model_from_memory(&scale_xml("sCaLe", "test", "2", "f32", false), None).is_ok());
    let err = core.read_model_from_memory(&scale_xml("Scale", "Test", "2", "f32", false), None).unwrap_err();
    assert!(
        err.to_string()
            .contains("no extension handles Scale of version `Test`; Scale is registered for version `test`"),
        "{err}"
    );
}

#[test]
fn an_unknown_op_lists_the_registered_extensions() {
    let err = Model::from_memory(&scale_xml("Scale", "test", "2", "f32", false), None).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("unknown operation type `Scale` (version `test`)"), "{text}");
    assert!(text.contains("the registered extensions are ReverseSubsequences (version `ovir`)"), "{text}");
    let bare = Core::without_extensions();
    let err = bare.read_model_from_memory(&scale_xml("Scale", "test", "2", "f32", false), None).unwrap_err();
    assert!(err.to_string().contains("the registered extensions are none"), "{err}");
}

#[test]
fn shape_inference_and_attributes_are_checked_when_the_model_loads() {
    let core = core_with_scale();
    let err = core.read_model_from_memory(&scale_xml("Scale", "test", "2", "i32", false), None).unwrap_err();
    assert!(err.to_string().contains("Scale: Scale needs f32 data, but it is i32"), "{err}");
    let err =
        core.read_model_from_memory(&scale_xml("Scale", "test", "big", "f32", false), None).unwrap_err();
    assert!(err.to_string().contains("factor must be a number, not `big`"), "{err}");
    // The report points at the attribute.
    assert!(err.render(false).contains("factor=\"big\""), "{}", err.render(false));
}

#[test]
fn constant_inputs_are_folded_through_the_op() {
    let core = core_with_scale();
    let model =
        core.read_model_from_memory(&scale_xml("Scale", "test", "2", "f32", true), weights()).unwrap();
    let compiled = model.compile().unwrap();
    assert_eq!(compiled.plan().step_count(), 0);
    let mut request = compiled.infer_request();
    request.infer().unwrap();
    assert_eq!(request.output("y").unwrap().to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0]);
}

#[test]
fn registrations_that_would_be_ambiguous_are_refused() {
    let mut core = core_with_scale();
    let err = core.add_extension(ScaleExtension { version: "test" }).unwrap_err();
    assert!(matches!(err, Error::Extension(_)));
    assert!(err.to_string().contains("already registered"), "{err}");
    // Another version of the same type is a separate op.
    core.add_extension(ScaleExtension { version: "test2" }).unwrap();

    struct Builtin;
    impl Extension for Builtin {
        fn op_type(&self) -> &str {
            "reverse"
        }
        fn version(&self) -> &str {
            "opset1"
        }
        fn build(&self, _: &Layer) -> Result<Arc<dyn CustomOp>, ExtensionError> {
            Err(ExtensionError::new("never built"))
        }
    }
    let err = core.add_extension(Builtin).unwrap_err();
    assert!(err.to_string().contains("is built into ovir"), "{err}");
}

/// The samples of the built-in op, run through the facade.
#[test]
fn the_builtin_reverse_subsequences_runs_the_directml_examples() {
    for case in ["reverse_subsequences_dml_example1", "reverse_subsequences_dml_example2"] {
        let dir = samples_dir().join(case);
        let compiled = Model::read(dir.join("model.xml")).unwrap().compile().unwrap();
        // The lengths are constant, so only the op itself is a step.
        assert_eq!(compiled.plan().step_count(), 1);
        let mut request = compiled.infer_request();
        request.set_input("data", ovir_npy::read_npy_file(&dir.join("in/data.npy")).unwrap()).unwrap();
        request.infer().unwrap();
        let expected = ovir_npy::read_npy_file(&dir.join("expected/out.npy")).unwrap();
        assert_eq!(request.output("out").unwrap(), &expected, "{case}");
    }
}

#[test]
fn runtime_lengths_above_the_axis_are_clamped_and_example_inputs_run() {
    let dir = samples_dir().join("reverse_subsequences_clamped");
    let compiled = Model::read(dir.join("model.xml")).unwrap().compile().unwrap();
    let mut request = compiled.infer_request();
    request.set_input("data", ovir_npy::read_npy_file(&dir.join("in/data.npy")).unwrap()).unwrap();
    let lengths = Tensor::from_vec(&[2, 1, 3], vec![u64::MAX, 0, 1, 5, 6, 7]).unwrap();
    request.set_input("lengths", lengths).unwrap();
    request.infer().unwrap();
    let out = request.output("out").unwrap().to_vec::<i16>().unwrap();
    // Line (0, 0) is reversed whole; lines (0, 1) and (0, 2) stay.
    assert_eq!(&out[..6], &[12, 1, 2, 9, 4, 5]);
    let mut request = compiled.infer_request();
    for (i, t) in compiled.example_inputs().unwrap().into_iter().enumerate() {
        request.set_input(i, t).unwrap();
    }
    request.infer().unwrap();
}

#[test]
fn shape_inference_runs_again_on_inputs_of_a_type_analysis_did_not_know() {
    // `x` has a dynamic element type, so its type is only known when the
    // model runs: Scale's shape inference checks it then, before the op
    // sees it, on every run.
    let core = core_with_scale();
    let compiled =
        core.read_model_from_memory(&scale_xml("Scale", "test", "2", "dynamic", false), None).unwrap();
    let compiled = compiled.compile().unwrap();
    let mut request = compiled.infer_request();
    request.set_input("x", Tensor::from_vec(&[3], vec![1.0f32, -2.0, 4.0]).unwrap()).unwrap();
    request.infer().unwrap();
    assert_eq!(request.output("y").unwrap().to_vec::<f32>().unwrap(), vec![2.0, -4.0, 8.0]);
    request.set_input("x", Tensor::from_vec(&[3], vec![1i32, 2, 3]).unwrap()).unwrap();
    let err = request.infer().unwrap_err().to_string();
    assert!(err.contains("Scale needs f32 data, but it is i32"), "{err}");
}

#[test]
fn negative_runtime_lengths_are_refused_whether_or_not_their_type_is_known() {
    let dir = samples_dir().join("reverse_subsequences_clamped");
    let xml = std::fs::read_to_string(dir.join("model.xml")).unwrap();
    let data = ovir_npy::read_npy_file(&dir.join("in/data.npy")).unwrap();
    for ty in ["i64", "dynamic"] {
        let xml = xml.replace(r#"element_type="u64""#, &format!(r#"element_type="{ty}""#));
        let compiled = Model::from_memory(&xml, None).unwrap().compile().unwrap();
        let mut request = compiled.infer_request();
        request.set_input("data", data.clone()).unwrap();
        // A run on valid lengths first, then on the same shape and type
        // with a negative one.
        let lengths = Tensor::from_vec(&[2, 1, 3], vec![5i64, 0, 1, 5, 6, 7]).unwrap();
        request.set_input("lengths", lengths).unwrap();
        request.infer().unwrap();
        let lengths = Tensor::from_vec(&[2, 1, 3], vec![5i64, 0, 1, 5, -2, 7]).unwrap();
        request.set_input("lengths", lengths).unwrap();
        let err = request.infer().unwrap_err().to_string();
        assert!(err.contains("-2, which is negative"), "{ty}: {err}");
    }
}
