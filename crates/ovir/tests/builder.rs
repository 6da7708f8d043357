//! The builder: every sample rebuilt op by op from what ovir read of it
//! runs to the sample's expected outputs and writes the same IR as the
//! sample itself.

use std::path::{Path, PathBuf};

use ovir::builder::Output;
use ovir::shape::ops;
use ovir::{BuildError, ElementType, Model, ModelBuilder, PartialShape, Tensor};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ir-samples")
}

fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(samples())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("model.xml").is_file())
        .collect();
    out.sort();
    out
}

/// The model rebuilt through the builder, one `add_layer` per layer, with
/// the op ovir's analysis read from the file: any built-in op, with no
/// list of ops here.
fn rebuild(model: &Model) -> Result<Model, BuildError> {
    let ir = model.ir();
    let mut b = ModelBuilder::new(&ir.name);
    let mut outputs: Vec<Vec<Output>> = vec![Vec::new(); ir.layers.len()];
    for &idx in &ir.order {
        let layer = ir.layer(idx);
        let op = model.info().op(idx);
        let input = |i: usize| {
            let src = ir.source(idx, i);
            outputs[src.layer.0][src.port]
        };
        let inputs: Vec<Output> = (0..layer.inputs.len()).map(input).collect();
        let written = op.write().unwrap_or_else(|| panic!("{} is no built-in op", layer.op_type));
        if op.is::<ops::ResultOp>() {
            b.result_named(inputs[0], &layer.name)?;
            continue;
        }
        let outs = b.add_layer(written, &inputs)?;
        for (out, port) in outs.iter().zip(&layer.outputs) {
            b.set_layer_name(*out, &layer.name)?;
            let names: Vec<&str> = port.names.iter().map(String::as_str).collect();
            b.set_names(*out, &names)?;
        }
        outputs[idx.0] = outs;
    }
    Ok(b.build().unwrap())
}

fn written(ir: &ovir::ir::Model) -> (Vec<u8>, Vec<u8>) {
    let (mut xml, mut bin) = (Vec::new(), Vec::new());
    ir.write_to(&mut xml, &mut bin).unwrap();
    (xml, bin)
}

/// Runs a model on the sample's inputs and compares each output, in its
/// exchange form, with the expected one bit for bit.
fn check_outputs(model: &Model, case: &Path) -> Result<(), String> {
    let compiled = model.compile().map_err(|e| e.to_string())?;
    let mut request = compiled.infer_request();
    for port in compiled.inputs() {
        let t = ovir_npy::read_npy_file(&case.join("in").join(format!("{}.npy", port.name()))).unwrap();
        request.set_input(port.name(), t).map_err(|e| e.to_string())?;
    }
    request.infer().map_err(|e| e.to_string())?;
    for port in compiled.outputs() {
        let file = port.name().replace(|c: char| !c.is_ascii_alphanumeric() && !"._-".contains(c), "_");
        let want = ovir_npy::read_npy_file(&case.join("expected").join(format!("{file}.npy"))).unwrap();
        let got = ovir::packed::to_exchange(request.output(port.name()).map_err(|e| e.to_string())?);
        let same = got.element_type() == want.element_type()
            && got.shape() == want.shape()
            && got.bytes() == want.bytes()
            && got.strings() == want.strings();
        if !same {
            return Err(format!("output {} differs", port.name()));
        }
    }
    Ok(())
}

#[test]
fn every_sample_rebuilt_in_code_runs_and_writes_as_the_sample() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in cases() {
        let model = Model::read(case.join("model.xml")).unwrap();
        let built = match rebuild(&model) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}: {e}", case.display()));
                continue;
            }
        };
        if case.join("expected").is_dir() {
            ran += 1;
            if let Err(e) = check_outputs(&built, &case) {
                failures.push(format!("{}: {e}", case.display()));
            }
        }
        // What the file says beyond the graph (rt_info, v10) is not the
        // builder's to know.
        let mut original = model.ir().clone();
        original.rt_info = Default::default();
        original.version = 11;
        for layer in &mut original.layers {
            layer.rt_info = Default::default();
            // The layout PrePostProcessor notes on a port, too.
            for port in layer.inputs.iter_mut().chain(&mut layer.outputs) {
                port.rt_info = Default::default();
            }
        }
        if written(&original) != written(built.ir()) {
            failures.push(format!("{}: the built model writes other IR", case.display()));
        }
    }
    assert!(ran > 150, "only {ran} samples ran");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_bad_attribute_or_input_is_refused_at_its_call() {
    let mut b = ModelBuilder::new("m");
    let data = b.parameter("data", ElementType::F32, "?,4".parse::<PartialShape>().unwrap()).unwrap();
    let axes = b.constant_slice(&[1], &[2i64]).unwrap();
    let err = b.reverse(data, axes, ovir::shape::ReverseMode::Index).unwrap_err();
    assert!(err.to_string().starts_with("Reverse `Reverse_2`: "), "{err}");
    assert!(err.to_string().contains("axes {2} are out of bounds"), "{err}");

    let lengths = b.constant_slice(&[2], &[1.5f32, 2.0]).unwrap();
    let err = b.reverse_sequence(data, lengths, -3, 1).unwrap_err();
    assert!(err.to_string().contains("attribute `batch_axis`"), "{err}");

    let err = b.convert(data, ElementType::Dynamic).unwrap_err();
    assert!(err.to_string().contains("destination_type"), "{err}");

    let mut other = ModelBuilder::new("other");
    let foreign = other.constant_slice(&[2], &[1i32, 2]).unwrap();
    let foreign = other.concat(&[foreign, foreign], 0).unwrap();
    assert!(matches!(b.shape_of(foreign, ElementType::I64), Err(BuildError::UnknownOutput { .. })));

    let err = b.constant_codes(ElementType::U4, &[2], &[3, 16]).unwrap_err();
    assert!(err.to_string().contains("16"), "{err}");
    let err = b.constant_slice(&[3], &[1i32, 2]).unwrap_err();
    assert!(matches!(err, BuildError::Value(_)), "{err}");

    // Refused calls leave nothing behind: the model still builds and runs.
    let mask = b.constant_slice(&[2], &[false, true]).unwrap();
    let out = b.reverse(data, mask, ovir::shape::ReverseMode::Mask).unwrap();
    b.result(out).unwrap();
    let model = b.build().unwrap();
    assert_eq!(model.ir().layers.len(), 6);
    let x = Tensor::from_vec(&[1, 4], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let got = model.compile().unwrap().run([("data", x)]).unwrap();
    assert_eq!(got.get(0).unwrap().to_vec::<f32>().unwrap(), [4.0, 3.0, 2.0, 1.0]);
}

#[test]
fn packed_and_string_constants_keep_their_values() {
    let mut b = ModelBuilder::new("m");
    let codes = b.constant_codes(ElementType::I4, &[3], &[0xff, 7, 0xf8]).unwrap();
    let words = b.constant_strings(&[2], vec!["ab".to_string(), "ü".to_string()]).unwrap();
    let array = b.constant_array(ndarray::array![[1u8, 2], [3, 4]].view()).unwrap();
    for out in [codes, words, array] {
        b.result(out).unwrap();
    }
    let model = b.build().unwrap();
    let outputs = model.compile().unwrap().run(Vec::<(usize, Tensor)>::new()).unwrap();
    assert_eq!(ovir::packed::to_exchange(outputs.get(0).unwrap()).to_vec::<i8>().unwrap(), [-1, 7, -8]);
    assert_eq!(outputs.get(1).unwrap().strings().unwrap(), ["ab", "ü"]);
    assert_eq!(outputs.get(2).unwrap().to_vec::<u8>().unwrap(), [1, 2, 3, 4]);
}

#[test]
fn bytes_moved_counts_what_each_layer_reads_whole_or_writes() {
    // A [1024, 8] f32 input: 32 KiB.
    let mut b = ModelBuilder::new("m");
    let data = b.parameter("data", ElementType::F32, "1024,8".parse::<PartialShape>().unwrap()).unwrap();
    // One row gathered: 32 bytes written, though the table is 32 KiB, and
    // one 8-byte index read.
    let index = b.constant_slice(&[1], &[5i64]).unwrap();
    let axis = b.constant_slice(&[], &[0i64]).unwrap();
    let row = b.gather(data, index, axis, 0).unwrap();
    b.result(row).unwrap();
    // A narrowing Convert reads 32 KiB and writes 8 KiB.
    let bytes = b.convert(data, ElementType::U8).unwrap();
    b.result(bytes).unwrap();
    let compiled = b.build().unwrap().compile().unwrap();
    let mut request = compiled.infer_request();
    request.set_input("data", Tensor::zeros(ElementType::F32, &[1024, 8]).unwrap()).unwrap();
    request.infer().unwrap();
    assert_eq!(request.bytes_moved(), 8 * 4 + 8 + 1024 * 8 * 4);
}

/// ReverseSequence with constant lengths, which the compiled model reads
/// and checks once, against the same lengths given at every run: the
/// same outputs for lengths used where they are stored (`i32`) and read
/// (`i64`). Constant lengths past the sequence are refused when the layer
/// is added, as validation knows them.
#[test]
fn constant_sequence_lengths_run_as_lengths_given_at_run_time() {
    let x = Tensor::from_vec(&[5, 6], (0..30).map(|v| v as f32).collect()).unwrap();
    let values = [0i64, 1, 6, 3, 2];
    let build = |lengths: Option<Tensor>| {
        let mut b = ModelBuilder::new("m");
        let data = b.parameter("data", ElementType::F32, "5,6".parse::<PartialShape>().unwrap())?;
        let lengths = match lengths {
            Some(t) => b.constant(t)?,
            None => b.parameter("lengths", ElementType::I64, "5".parse::<PartialShape>().unwrap())?,
        };
        let out = b.reverse_sequence(data, lengths, 0, 1)?;
        b.result(out)?;
        Ok::<_, BuildError>(b.build().unwrap().compile().unwrap())
    };
    let given = Tensor::from_vec(&[5], values.to_vec()).unwrap();
    let expected = build(None).unwrap().run([("data", x.clone()), ("lengths", given.clone())]).unwrap();
    let expected = expected.get(0).unwrap().to_vec::<f32>().unwrap();
    // Row 2 reversed whole, row 3 its first three, row 4 its first two.
    assert_eq!(expected[12..18], [17.0, 16.0, 15.0, 14.0, 13.0, 12.0]);
    assert_eq!(expected[18..24], [20.0, 19.0, 18.0, 21.0, 22.0, 23.0]);
    assert_eq!(expected[24..30], [25.0, 24.0, 26.0, 27.0, 28.0, 29.0]);
    let narrow = Tensor::from_vec(&[5], values.iter().map(|&v| v as i32).collect()).unwrap();
    for constant in [given, narrow] {
        let got = build(Some(constant)).unwrap().run([("data", x.clone())]).unwrap();
        assert_eq!(got.get(0).unwrap().to_vec::<f32>().unwrap(), expected);
    }
    let past = Tensor::from_vec(&[5], vec![0i32, 7, 1, 1, 1]).unwrap();
    let Err(err) = build(Some(past)) else { panic!("lengths past the sequence are refused") };
    assert!(err.to_string().contains("7"), "{err}");
}

/// ReverseSubsequences with constant lengths, read and checked once by
/// the compiled model, against the same lengths given at every run:
/// scattered lengths of 32 bits and 64, and lengths in stretches.
#[test]
fn constant_subsequence_lengths_run_as_lengths_given_at_run_time() {
    let x = Tensor::from_vec(&[3, 8, 40], (0..960).map(|v| v as f32).collect()).unwrap();
    let build = |lengths: Option<Tensor>| {
        let mut b = ModelBuilder::new("m");
        let data = b.parameter("data", ElementType::F32, "3,8,40".parse::<PartialShape>().unwrap()).unwrap();
        let lengths = match lengths {
            Some(t) => b.constant(t).unwrap(),
            None => {
                b.parameter("lengths", ElementType::I64, "3,1,40".parse::<PartialShape>().unwrap()).unwrap()
            }
        };
        let out = b.reverse_subsequences(data, lengths, 1).unwrap();
        b.result(out).unwrap();
        b.build().unwrap().compile().unwrap()
    };
    let scattered: Vec<i64> = (0..120).map(|l| (l * 5 + l / 3) % 9).collect();
    let stretches: Vec<i64> = (0..120).map(|l| (l / 20) % 9).collect();
    for values in [scattered, stretches] {
        let given = Tensor::from_vec(&[3, 1, 40], values.clone()).unwrap();
        let expected = build(None).run([("data", x.clone()), ("lengths", given.clone())]).unwrap();
        let expected = expected.get(0).unwrap().to_vec::<f32>().unwrap();
        // Row `k` of line `(o, i)` comes from row `len - 1 - k` while `k <
        // len`, else from row `k`.
        for (at, &got) in expected.iter().enumerate() {
            let (o, k, i) = (at / 320, at / 40 % 8, at % 40);
            let len = values[o * 40 + i] as usize;
            let from = if k < len { len - 1 - k } else { k };
            assert_eq!(got, (o * 320 + from * 40 + i) as f32, "({o}, {k}, {i})");
        }
        let narrow = Tensor::from_vec(&[3, 1, 40], values.iter().map(|&v| v as i32).collect()).unwrap();
        for constant in [given, narrow] {
            let got = build(Some(constant)).run([("data", x.clone())]).unwrap();
            assert_eq!(got.get(0).unwrap().to_vec::<f32>().unwrap(), expected);
        }
    }
}

/// `Scale` of version `mine`: the input times the `factor` attribute.
struct ScaleExtension;

#[derive(Debug)]
struct Scale(f32);

impl ovir::Extension for ScaleExtension {
    fn op_type(&self) -> &str {
        "Scale"
    }
    fn version(&self) -> &str {
        "mine"
    }
    fn build(
        &self,
        layer: &ovir::ir::Layer,
    ) -> Result<std::sync::Arc<dyn ovir::CustomOp>, ovir::ExtensionError> {
        let factor = layer.attrs.value("factor").and_then(|v| v.parse().ok());
        let factor = factor.ok_or_else(|| ovir::ExtensionError::attribute("factor", "needs a number"))?;
        Ok(std::sync::Arc::new(Scale(factor)))
    }
}

impl ovir::CustomOp for Scale {
    fn op_type(&self) -> &str {
        "Scale"
    }
    fn infer(&self, inputs: &[ovir::PortFact]) -> Result<ovir::PortFact, ovir::ExtensionError> {
        Ok(ovir::PortFact::of(inputs[0].element_type, inputs[0].shape.clone()))
    }
    fn evaluate(&self, inputs: &[&Tensor]) -> Result<Tensor, ovir::ExtensionError> {
        let values = inputs[0].to_vec::<f32>().map_err(|e| ovir::ExtensionError::new(e.to_string()))?;
        let scaled = values.iter().map(|v| v * self.0).collect();
        Tensor::from_vec(inputs[0].shape(), scaled).map_err(|e| ovir::ExtensionError::new(e.to_string()))
    }
}

#[test]
fn an_extension_op_is_added_as_the_layer_it_is() {
    let mut core = ovir::Core::new();
    core.add_extension(ScaleExtension).unwrap();
    let mut b = ModelBuilder::with_core("m", &core);
    let x = b.parameter("x", ElementType::F32, PartialShape::from_static(&[3])).unwrap();
    let err = b.add(ovir::OpLayer::new("Scale", "mine").attr("factor", "much"), &[x]).unwrap_err();
    assert!(err.to_string().contains("attribute `factor`: Scale: needs a number"), "{err}");
    let y = b.add(ovir::OpLayer::new("Scale", "mine").attr("factor", 2.5), &[x]).unwrap();
    b.set_names(y, &["y"]).unwrap();
    b.result(y).unwrap();
    let model = b.build().unwrap();
    let layer = &model.ir().layers[1];
    assert_eq!((layer.op_type.as_str(), layer.version.as_str()), ("Scale", "mine"));
    assert_eq!(layer.attrs.value("factor"), Some("2.5"));
    let x = Tensor::from_vec(&[3], vec![1.0f32, -2.0, 4.0]).unwrap();
    let y = model.compile().unwrap().run([("x", x)]).unwrap();
    assert_eq!(y.get("y").unwrap().to_vec::<f32>().unwrap(), [2.5, -5.0, 10.0]);
}

/// Runs a one-input model built by `build` on `x` and returns its outputs
/// as i32s, in order.
fn run_built(
    x: Tensor,
    build: impl FnOnce(&mut ModelBuilder, Output) -> Vec<Output>,
) -> Vec<(Vec<usize>, Vec<i32>)> {
    let mut b = ModelBuilder::new("layout");
    let data = b.parameter("data", x.element_type(), PartialShape::from_static(x.shape())).unwrap();
    let outs = build(&mut b, data);
    for (i, &o) in outs.iter().enumerate() {
        b.set_names(o, &[&format!("out{i}")]).unwrap();
        b.result(o).unwrap();
    }
    let model = b.build().unwrap();
    let got = model.compile().unwrap().run([("data", x)]).unwrap();
    (0..outs.len())
        .map(|i| {
            let t = got.get(&format!("out{i}")).unwrap();
            (t.shape().to_vec(), t.to_vec::<i32>().unwrap())
        })
        .collect()
}

fn ints(b: &mut ModelBuilder, values: &[i64]) -> Output {
    b.constant_slice(&[values.len()], values).unwrap()
}

/// Each layout op's own builder function makes the layer it names, with
/// the values NumPy gives for it (worked out by hand here).
#[test]
fn every_layout_op_builds_with_its_own_function() {
    let x = || Tensor::from_vec(&[1, 4, 2, 2], (0..16).collect::<Vec<i32>>()).unwrap();
    // np.split(x, 2, axis=1) and [1, 3] along axis 1.
    let got = run_built(x(), |b, d| {
        let axis = b.constant_slice(&[], &[1i64]).unwrap();
        b.split(d, axis, 2).unwrap()
    });
    assert_eq!(got[1], (vec![1, 2, 2, 2], (8..16).collect()));
    let got = run_built(x(), |b, d| {
        let (axis, lengths) = (b.constant_slice(&[], &[1i64]).unwrap(), ints(b, &[1, -1]));
        b.variadic_split(d, axis, lengths).unwrap()
    });
    assert_eq!((got.len(), &got[1].0), (2, &vec![1, 3, 2, 2]));
    // DepthToSpace, blocks first, block 2: one channel of 4x4.
    let got = run_built(x(), |b, d| vec![b.depth_to_space(d, ops::BlockMode::BlocksFirst, 2).unwrap()]);
    assert_eq!(got[0], (vec![1, 1, 4, 4], vec![0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15]));
    let got = run_built(x(), |b, d| {
        let s = b.depth_to_space(d, ops::BlockMode::DepthFirst, 2).unwrap();
        vec![b.space_to_depth(s, ops::BlockMode::DepthFirst, 2).unwrap()]
    });
    assert_eq!(got[0], (vec![1, 4, 2, 2], (0..16).collect()));
    // Channels [0 1 | 2 3] read by columns: 0 2 1 3.
    let got = run_built(x(), |b, d| vec![b.shuffle_channels(d, 1, 2).unwrap()]);
    assert_eq!(got[0].1[..8], [0, 1, 2, 3, 8, 9, 10, 11]);
    // x[:, ::-2, 1] with a shrunk last axis.
    let got = run_built(x(), |b, d| {
        let (begin, end, strides) = (ints(b, &[0, 0, 0, 1]), ints(b, &[0, 0, 0, 2]), ints(b, &[1, -2, 1, 1]));
        let mask = |v: [bool; 4]| v.to_vec();
        let slice = ops::StridedSlice {
            begin_mask: mask([true, true, true, false]),
            end_mask: mask([true, true, true, false]),
            new_axis_mask: Vec::new(),
            shrink_axis_mask: mask([false, false, false, true]),
            ellipsis_mask: Vec::new(),
        };
        vec![b.strided_slice(d, begin, end, Some(strides), slice).unwrap()]
    });
    assert_eq!(got[0], (vec![1, 2, 2], vec![13, 15, 5, 7]));
    // SpaceToBatch by [1, 1, 2, 2] and back.
    let got = run_built(x(), |b, d| {
        let (block, zeros) = (ints(b, &[1, 1, 2, 2]), ints(b, &[0, 0, 0, 0]));
        let batched = b.space_to_batch(d, block, zeros, zeros).unwrap();
        vec![batched, b.batch_to_space(batched, block, zeros, zeros).unwrap()]
    });
    assert_eq!(got[0].0, vec![4, 4, 1, 1]);
    assert_eq!(got[0].1[..4], [0, 4, 8, 12]);
    assert_eq!(got[1], (vec![1, 4, 2, 2], (0..16).collect()));
}

/// Identity and Squeeze-15 through their own builder functions.
#[test]
fn identity_and_squeeze_15_build_with_their_own_functions() {
    let x = || Tensor::from_vec(&[1, 3, 1], vec![4i32, -5, 6]).unwrap();
    let got = run_built(x(), |b, d| vec![b.identity(d).unwrap()]);
    assert_eq!(got[0], (vec![1, 3, 1], vec![4, -5, 6]));
    // Axis 1 is 3, not 1: it stays, whatever allow_axis_skip says.
    for skip in [false, true] {
        let got = run_built(x(), |b, d| {
            let axes = ints(b, &[0, 1]);
            vec![b.squeeze_15(d, Some(axes), skip).unwrap()]
        });
        assert_eq!(got[0], (vec![3, 1], vec![4, -5, 6]));
    }
    let got = run_built(x(), |b, d| vec![b.squeeze_15(d, None, false).unwrap()]);
    assert_eq!(got[0].0, vec![3]);
}

/// GatherElements through its own builder function, on values worked out
/// by hand, and an index out of range refused when the model runs.
#[test]
fn gather_elements_builds_with_its_own_function() {
    let x = || Tensor::from_vec(&[2, 3], vec![10i32, 11, 12, 13, 14, 15]).unwrap();
    // np.take_along_axis(x, [[2, 0], [1, 1]], axis=1).
    let got = run_built(x(), |b, d| {
        let indices = b.constant_slice(&[2, 2], &[2i64, 0, 1, 1]).unwrap();
        vec![b.gather_elements(d, indices, 1).unwrap()]
    });
    assert_eq!(got[0], (vec![2, 2], vec![12, 10, 14, 14]));
    let mut b = ModelBuilder::new("m");
    let data = b.parameter("data", ElementType::I32, PartialShape::from_static(&[2, 3])).unwrap();
    let indices = b.parameter("indices", ElementType::I32, PartialShape::from_static(&[1, 3])).unwrap();
    let out = b.gather_elements(data, indices, 0).unwrap();
    b.set_names(out, &["out"]).unwrap();
    b.result(out).unwrap();
    let compiled = b.build().unwrap().compile().unwrap();
    let bad = Tensor::from_vec(&[1, 3], vec![0i32, 2, 1]).unwrap();
    let err = compiled.run([("data", x()), ("indices", bad)]).unwrap_err().to_string();
    assert!(err.contains("index 2 at position [0, 1]") && err.contains("between 0 and 1"), "{err}");
}

/// GatherND-8 through its own builder function, on values worked out by
/// hand.
#[test]
fn gather_nd_builds_with_its_own_function() {
    let x = || Tensor::from_vec(&[2, 3], vec![10i32, 11, 12, 13, 14, 15]).unwrap();
    // Elements by [row, column] pairs, the last column counted from the end.
    let got = run_built(x(), |b, d| {
        let pairs = b.constant_slice(&[2, 2], &[1i64, -1, 0, 1]).unwrap();
        vec![b.gather_nd(d, pairs, 0).unwrap()]
    });
    assert_eq!(got[0], (vec![2], vec![15, 11]));
    // One column per row with a batch dimension.
    let got = run_built(x(), |b, d| {
        let columns = b.constant_slice(&[2, 1], &[2i32, 0]).unwrap();
        vec![b.gather_nd(d, columns, 1).unwrap()]
    });
    assert_eq!(got[0], (vec![2], vec![12, 13]));
}

/// ScatterUpdate and ScatterNDUpdate-15 through their own builder
/// functions, on values worked out by hand.
#[test]
fn scatters_build_with_their_own_functions() {
    let x = || Tensor::from_vec(&[2, 3], vec![10i32, 11, 12, 13, 14, 15]).unwrap();
    // Columns 2 and then 0 replaced, row by row (axis -1).
    let got = run_built(x(), |b, d| {
        let indices = b.constant_slice(&[2], &[2i64, 0]).unwrap();
        let updates = b.constant_slice(&[2, 2], &[1i32, 2, 3, 4]).unwrap();
        let axis = b.constant_slice(&[1], &[-1i64]).unwrap();
        vec![b.scatter_update(d, indices, updates, axis).unwrap()]
    });
    assert_eq!(got[0], (vec![2, 3], vec![2, 11, 1, 4, 14, 3]));
    // Rows summed into: row 1 twice, and row -2 (row 0) once.
    let got = run_built(x(), |b, d| {
        let rows = b.constant_slice(&[3, 1], &[1i32, -2, 1]).unwrap();
        let updates = b.constant_slice(&[3, 3], &[1i32, 1, 1, 2, 2, 2, 3, 3, 3]).unwrap();
        vec![b.scatter_nd_update(d, rows, updates, ops::ScatterNdReduction::Sum).unwrap()]
    });
    assert_eq!(got[0], (vec![2, 3], vec![12, 13, 14, 17, 18, 19]));
}

/// ScatterElementsUpdate-12 and SliceScatter-15 through their own builder
/// functions, on values worked out by hand.
#[test]
fn element_and_slice_scatters_build_with_their_own_functions() {
    use ops::ScatterElementsReduction::Sum;
    let x = || Tensor::from_vec(&[2, 3], vec![10i32, 11, 12, 13, 14, 15]).unwrap();
    // Along axis 1: row 0 adds 1 and 2 to column 2; row 1 adds 3 to
    // column 0 and 4 to column 1. Without the initial values, the sums
    // start from 0.
    let got = run_built(x(), |b, d| {
        let indices = b.constant_slice(&[2, 2], &[2i64, -1, 0, 1]).unwrap();
        let updates = b.constant_slice(&[2, 2], &[1i32, 2, 3, 4]).unwrap();
        let axis = b.constant_slice(&[], &[1i64]).unwrap();
        vec![
            b.scatter_elements_update(d, indices, updates, axis, Sum, true).unwrap(),
            b.scatter_elements_update(d, indices, updates, axis, Sum, false).unwrap(),
        ]
    });
    assert_eq!(got[0], (vec![2, 3], vec![10, 11, 15, 16, 18, 15]));
    assert_eq!(got[1], (vec![2, 3], vec![10, 11, 3, 3, 4, 15]));
    // Columns 0 and 2 (step 2 along axis 1) replaced.
    let got = run_built(x(), |b, d| {
        let updates = b.constant_slice(&[2, 2], &[1i32, 2, 3, 4]).unwrap();
        let (start, stop, step, axes) = (ints(b, &[0]), ints(b, &[3]), ints(b, &[2]), ints(b, &[1]));
        vec![b.slice_scatter(d, updates, start, stop, step, Some(axes)).unwrap()]
    });
    assert_eq!(got[0], (vec![2, 3], vec![1, 11, 2, 3, 14, 4]));
}

/// Unique through its own builder function, on values worked out by hand:
/// rows along axis 0 in order of first occurrence, and the elements
/// flattened in ascending order.
#[test]
fn unique_builds_with_its_own_function() {
    let x = || Tensor::from_vec(&[3, 2], vec![1i32, 2, 3, 4, 1, 2]).unwrap();
    let got = run_built(x(), |b, d| {
        let axis = b.constant_slice(&[], &[0i64]).unwrap();
        b.unique(d, Some(axis), false, ElementType::I32, ElementType::I32).unwrap()
    });
    assert_eq!(got[0], (vec![2, 2], vec![1, 2, 3, 4]));
    assert_eq!(got[1], (vec![2], vec![0, 1]));
    assert_eq!(got[2], (vec![3], vec![0, 1, 0]));
    assert_eq!(got[3], (vec![2], vec![2, 1]));
    let got = run_built(x(), |b, d| b.unique(d, None, true, ElementType::I32, ElementType::I32).unwrap());
    assert_eq!(got[0], (vec![4], vec![1, 2, 3, 4]));
    assert_eq!(got[1], (vec![4], vec![0, 1, 2, 3]));
    assert_eq!(got[2], (vec![6], vec![0, 1, 2, 3, 0, 1]));
    assert_eq!(got[3], (vec![4], vec![2, 2, 1, 1]));
}

/// Unique of constant data: shape inference counts the uniques when the
/// model is built (type_prop's unique_with_constant_input_no_axis), and
/// the compiled model folds the values.
#[test]
fn unique_of_constant_data_is_known_when_built() {
    let mut b = ModelBuilder::new("constant");
    let data = b.constant_slice(&[5], &[5i32, 1, 4, 2, 5]).unwrap();
    let outs = b.unique(data, None, true, ElementType::I64, ElementType::I64).unwrap();
    let shapes: Vec<String> = outs.iter().map(|&o| b.fact(o).unwrap().shape.to_string()).collect();
    assert_eq!(shapes, ["[4]", "[4]", "[5]", "[4]"]);
    for (i, &o) in outs.iter().enumerate() {
        b.set_names(o, &[&format!("out{i}")]).unwrap();
        b.result(o).unwrap();
    }
    let got = b.build().unwrap().compile().unwrap().run(Vec::<(&str, Tensor)>::new()).unwrap();
    assert_eq!(got.get("out0").unwrap().to_vec::<i32>().unwrap(), [1, 2, 4, 5]);
    assert_eq!(got.get("out1").unwrap().to_vec::<i64>().unwrap(), [1, 3, 2, 0]);
    assert_eq!(got.get("out2").unwrap().to_vec::<i64>().unwrap(), [3, 0, 2, 1, 3]);
    assert_eq!(got.get("out3").unwrap().to_vec::<i64>().unwrap(), [1, 1, 1, 2]);
}

/// Col2Im through its own builder function, on values worked out by hand.
#[test]
fn col2im_builds_with_its_own_function() {
    // One channel, 2 x 2 blocks: column (kh, kw) holds the four blocks'
    // values at that kernel offset.
    let columns = || {
        let values = [1, 2, 3, 4, 10, 20, 30, 40, 100, 200, 300, 400, 1000, 2000, 3000, 4000];
        Tensor::from_vec(&[4, 4], values.to_vec()).unwrap()
    };
    // Blocks one apart over a 3 x 3 image: the middle pixel sums all four
    // offsets, a corner one.
    let got = run_built(columns(), |b, d| {
        let size = b.constant_slice(&[2], &[3i64, 3]).unwrap();
        let kernel = b.constant_slice(&[2], &[2i64, 2]).unwrap();
        vec![b.col2im(d, size, kernel, ops::Col2Im::default()).unwrap()]
    });
    assert_eq!(got[0], (vec![1, 3, 3], vec![1, 12, 20, 103, 1234, 2040, 300, 3400, 4000]));
    // Two apart over a 2 x 2 image padded by 1: each pixel sees one offset.
    let got = run_built(columns(), |b, d| {
        let size = b.constant_slice(&[2], &[2i32, 2]).unwrap();
        let kernel = b.constant_slice(&[2], &[2i32, 2]).unwrap();
        let op = ops::Col2Im { strides: [2, 2], dilations: [1, 1], pads_begin: [1, 1], pads_end: [1, 1] };
        vec![b.col2im(d, size, kernel, op).unwrap()]
    });
    assert_eq!(got[0], (vec![1, 2, 2], vec![1000, 200, 30, 4]));
}
