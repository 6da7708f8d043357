//! The library API as an embedder uses it.

use ovir::{ElementType, Error, Model, Tensor};
use ovir_tests::samples_dir;

fn load(case: &str) -> Model {
    Model::read(samples_dir().join(case).join("model.xml"))
        .unwrap_or_else(|e| panic!("{case} should load:\n{}", e.render(false)))
}

fn input(case: &str, name: &str) -> Tensor {
    ovir_npy::read_npy_file(&samples_dir().join(case).join("in").join(format!("{name}.npy"))).unwrap()
}

fn expected(case: &str, name: &str) -> Tensor {
    ovir_npy::read_npy_file(&samples_dir().join(case).join("expected").join(format!("{name}.npy"))).unwrap()
}

#[test]
fn compiled_models_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ovir::CompiledModel>();
    assert_send_sync::<ovir::Model>();
    assert_send_sync::<ovir::InferRequest>();
}

#[test]
fn inputs_are_found_by_tensor_name_layer_name_or_index() {
    let compiled = load("rseq_b1_s0_4x4").compile().unwrap();
    let data = input("rseq_b1_s0_4x4", "data");
    let layer_name = compiled.model().ir().layer(compiled.plan().inputs()[0].layer).name.clone();
    for key in ["data", layer_name.as_str()] {
        let mut request = compiled.infer_request();
        request.set_input(key, data.clone()).unwrap();
        request.infer().unwrap();
        assert_eq!(request.output(0).unwrap(), &expected("rseq_b1_s0_4x4", "out"));
    }
    let mut request = compiled.infer_request();
    request.set_input(0, data).unwrap();
    request.infer().unwrap();
    assert_eq!(request.output("out").unwrap(), &expected("rseq_b1_s0_4x4", "out"));
}

#[test]
fn outputs_read_as_ndarray_views() {
    let compiled = load("rseq_b1_s0_4x4").compile().unwrap();
    let mut request = compiled.infer_request();
    request.set_input("data", input("rseq_b1_s0_4x4", "data")).unwrap();
    request.infer().unwrap();
    let view = request.output_view::<f32>("out").unwrap();
    assert_eq!(view.shape(), &[4, 4]);
    assert_eq!(view, expected("rseq_b1_s0_4x4", "out").to_array::<f32>().unwrap());
}

#[test]
fn a_wrong_input_names_what_was_given_and_expected() {
    let compiled = load("rseq_b1_s0_4x4").compile().unwrap();
    let mut request = compiled.infer_request();
    let wrong_type = Tensor::zeros(ElementType::I32, &[4, 4]).unwrap();
    let err = request.set_input("data", wrong_type).unwrap_err().to_string();
    assert!(err.contains("\"data\"") && err.contains("f32") && err.contains("i32"), "{err}");
    let wrong_shape = Tensor::zeros(ElementType::F32, &[4, 5]).unwrap();
    let err = request.set_input("data", wrong_shape).unwrap_err().to_string();
    assert!(err.contains("[4,4]") && err.contains("[4,5]"), "{err}");
    let err = request.set_input("nope", Tensor::zeros(ElementType::F32, &[4, 4]).unwrap()).unwrap_err();
    assert!(matches!(err, Error::UnknownInput { .. }), "{err}");
    assert!(matches!(request.infer(), Err(Error::InputNotSet { .. })));
}

#[test]
fn interval_dims_are_checked_at_each_inference() {
    let compiled = load("interval_rseq_1_5x4").compile().unwrap();
    let declared = compiled.inputs()[0].shape.clone();
    assert!(!declared.is_static(), "the sample should have a dynamic input, has {declared}");
    let dims: Vec<usize> =
        declared.dims().unwrap().iter().map(|d| d.max().unwrap_or(9) as usize + 1).collect();
    let too_big = Tensor::zeros(compiled.inputs()[0].element_type, &dims).unwrap();
    let err = compiled.infer_request().set_input(0, too_big).unwrap_err().to_string();
    assert!(err.contains("must have shape"), "{err}");
}

#[test]
fn one_compiled_model_serves_many_threads() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 500;
    let compiled = load("rseq_runtime_lengths_i32").compile().unwrap();
    let shape = input("rseq_runtime_lengths_i32", "data").shape().to_vec();
    let (batch, seq_dim) = (shape[0], shape[1]);
    let count: usize = shape.iter().product();
    // Every inference gets its own data and its own lengths.
    let inputs_for = |seed: usize| -> (Tensor, Tensor) {
        let data: Vec<f32> = (0..count).map(|i| (seed * count + i) as f32 * 0.5).collect();
        let lengths: Vec<i32> = (0..batch).map(|b| ((seed / 3 + b * 7) % (seq_dim + 1)) as i32).collect();
        (Tensor::from_vec(&shape, data).unwrap(), Tensor::from_vec(&[batch], lengths).unwrap())
    };
    // The single-threaded results first, each from a fresh request.
    let reference: Vec<Tensor> = (0..THREADS * PER_THREAD)
        .map(|seed| {
            let (data, lengths) = inputs_for(seed);
            let mut r = compiled.infer_request();
            r.set_input("data", data).unwrap();
            r.set_input("lengths", lengths).unwrap();
            r.infer().unwrap();
            r.output(0).unwrap().clone()
        })
        .collect();
    let distinct: std::collections::HashSet<Vec<u8>> =
        reference.iter().map(|t| t.bytes().unwrap().to_vec()).collect();
    assert_eq!(distinct.len(), reference.len(), "every inference should have its own result");
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (compiled, reference, inputs_for) = (&compiled, &reference, &inputs_for);
            s.spawn(move || {
                // One request per thread, reused: its recycled buffers must
                // never leak one inference's values into the next.
                let mut request = compiled.infer_request();
                for i in 0..PER_THREAD {
                    let seed = t * PER_THREAD + i;
                    let (data, lengths) = inputs_for(seed);
                    request.set_input("data", data).unwrap();
                    request.set_input("lengths", lengths).unwrap();
                    request.infer().unwrap();
                    assert_eq!(request.output(0).unwrap(), &reference[seed], "thread {t}, inference {i}");
                }
            });
        }
    });
}

#[test]
fn run_takes_named_inputs_and_gives_named_outputs() {
    let case = "two_inputs_two_outputs";
    let compiled = load(case).compile().unwrap();
    let outputs = compiled.run([("x", input(case, "x")), ("y", input(case, "y"))]).unwrap();
    assert_eq!(outputs.len(), compiled.outputs().len());
    let names: Vec<&str> = outputs.iter().map(|(name, _)| name).collect();
    let expected_names: Vec<&str> = compiled.outputs().iter().map(|p| p.name()).collect();
    assert_eq!(names, expected_names);
    for (name, tensor) in &outputs {
        assert_eq!(tensor, &expected(case, name), "{name}");
        // Any of an output's names, or its index, finds it.
        assert_eq!(outputs.get(name).unwrap(), tensor);
    }
    assert_eq!(outputs.get(1).unwrap(), &expected(case, names[1]));
    let err = outputs.get("nope").unwrap_err();
    assert!(matches!(err, Error::UnknownOutput { .. }), "{err}");

    // Inputs by index work too; a missing one is named.
    let by_index = compiled.run([(0, input(case, "x")), (1, input(case, "y"))]).unwrap();
    assert_eq!(by_index.into_tensors(), outputs.clone().into_tensors());
    let err = compiled.run([("x", input(case, "x"))]).unwrap_err();
    assert_eq!(err.to_string(), "input \"y\" has not been set");
    let err = compiled.run([("z", input(case, "x"))]).unwrap_err();
    assert!(matches!(err, Error::UnknownInput { .. }), "{err}");
}

/// `Model::save` in a function returning `ovir::Error`: its error converts
/// with `?`, it makes missing parent folders, and a failure names the XML
/// asked for rather than a temporary file or the weights.
#[test]
fn saving_fits_an_ovir_error_function_and_makes_folders() {
    fn copy(from: &std::path::Path, to: &std::path::Path) -> Result<(), Error> {
        Model::read(from)?.save(to)?;
        Ok(())
    }
    let dir = tempfile::tempdir().unwrap();
    let sample = samples_dir().join("chain_convert_reverse/model.xml");
    let to = dir.path().join("made/on/demand/model.xml");
    copy(&sample, &to).unwrap();
    assert_eq!(Model::read(&to).unwrap().outputs(), load("chain_convert_reverse").outputs());
    assert!(to.with_extension("bin").is_file());

    std::fs::write(dir.path().join("plain"), b"").unwrap();
    let asked = dir.path().join("plain/model.xml");
    let err = copy(&sample, &asked).unwrap_err();
    assert!(matches!(err, Error::Write(_)), "{err:?}");
    let message = err.to_string();
    assert!(message.starts_with(&format!("cannot write `{}`: ", asked.display())), "{message}");
    assert!(message.contains("cannot make its folder"), "{message}");
    assert!(!message.contains(".ovir-save") && !message.contains(".bin"), "{message}");
}
