//! After the first inference of a static-shape model, an infer request
//! allocates nothing.

use ovir::exec::kernels;
use ovir::shape::ops::StridedSlice;
use ovir::shape::BroadcastMode;
use ovir::Tensor;
use ovir_tests::counting::{allocations_in, measure, CountingAlloc};
use ovir_tests::net::Net;
use ovir_tests::{case_dirs, case_name, samples_dir};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn steady_state_allocations(case: &str) -> usize {
    let dir = samples_dir().join(case);
    let compiled = ovir::Model::read(dir.join("model.xml")).unwrap().compile().unwrap();
    allocations_after_the_first_inference(&compiled)
}

/// Allocations in 10 inferences on the example inputs after the first.
fn allocations_after_the_first_inference(compiled: &ovir::CompiledModel) -> usize {
    run_examples(compiled).0
}

/// Runs `compiled` on its example inputs 11 times: the allocations made by
/// the last 10, the inputs, and the outputs.
fn run_examples(compiled: &ovir::CompiledModel) -> (usize, Vec<Tensor>, Vec<Tensor>) {
    let inputs = compiled.example_inputs().unwrap();
    let mut request = compiled.infer_request();
    for (i, t) in inputs.iter().enumerate() {
        request.set_input(i, t.clone()).unwrap();
    }
    request.infer().unwrap();
    let count = allocations_in(|| {
        for _ in 0..10 {
            request.infer().unwrap();
        }
    });
    let outputs = request.outputs().into_iter().cloned().collect();
    (count, inputs, outputs)
}

/// Checks that a run allocates nothing after the first and that each
/// output equals, bit for bit, what the kernels compute from the inputs.
fn assert_steady(compiled: &ovir::CompiledModel, expected: impl FnOnce(&[Tensor]) -> Vec<Tensor>) {
    let (count, inputs, outputs) = run_examples(compiled);
    assert_eq!(count, 0, "allocations in 10 inferences after the first");
    let expected = expected(&inputs);
    assert_eq!(outputs.len(), expected.len());
    for (k, (got, want)) in outputs.iter().zip(&expected).enumerate() {
        assert_eq!(got.element_type(), want.element_type(), "output {k}");
        assert_eq!(got.shape(), want.shape(), "output {k}");
        assert_eq!(got.bytes(), want.bytes(), "output {k}");
    }
}

/// A 1-D `i64` tensor.
fn ints(values: &[i64]) -> Tensor {
    Tensor::from_vec(&[values.len()], values.to_vec()).unwrap()
}

#[test]
fn reverse_with_constant_axes_allocates_nothing_after_the_first_inference() {
    assert_eq!(steady_state_allocations("reverse_index_r3_f32_axes_i64_0_2"), 0);
}

#[test]
fn reverse_sequence_allocates_nothing_after_the_first_inference() {
    assert_eq!(steady_state_allocations("rseq_runtime_lengths_i32"), 0);
}

#[test]
fn a_chain_with_intermediates_allocates_nothing_after_the_first_inference() {
    assert_eq!(steady_state_allocations("chain_reverse_rseq_reverse"), 0);
    assert_eq!(steady_state_allocations("convert_f32_to_f16"), 0);
}

#[test]
fn reverse_with_runtime_axes_allocates_nothing_after_the_first_inference() {
    // The axes are an input, so the flags are read on every run.
    assert_eq!(steady_state_allocations("reverse_runtime_axes_r3_0_m1"), 0);
}

#[test]
fn a_converted_torch_flip_allocates_nothing_after_the_first_inference() {
    // PyTorch's flip arrives as a Slice with step -1; with constant bounds
    // and a static shape the plan runs it as a Reverse.
    assert_eq!(steady_state_allocations("torch_flip_dims_0_m1"), 0);
}

/// Samples allowed to allocate after their first inference, each with the
/// reason the allocation cannot be avoided. String outputs are refilled
/// with `clone_from`, which keeps each string's memory, and packed sub-byte
/// data keeps its unpacked copy in the step's scratch; a view of a value
/// computed on every run allocates its shape (see
/// `a_view_of_a_computed_value_allocates_only_its_shape`).
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "pixel_shuffle_reshape_transpose",
        "its last Reshape is a view of the Transpose's output, computed on every run, with a shape of its own",
    ),
    (
        "squeeze15_runtime_axes_noskip",
        "its Squeeze takes axes given at run time, so it works its output shape out, and makes a view with a shape \
         of its own, on every run",
    ),
    (
        "squeeze15_runtime_axes_skip",
        "its Squeeze takes axes given at run time, so it works its output shape out, and makes a view with a shape \
         of its own, on every run",
    ),
];

/// Why a sample is left out of the sweep, or the allocations its runs
/// after the first made.
enum Sweep {
    /// An input shape is not static, so buffers may legitimately change.
    NotStatic,
    /// The case is meant to fail (it has `expected_error`) and did.
    RefusedAsExpected,
    /// Allocations in ten inferences after the first.
    Ran(usize),
}

/// Runs one sample on its example inputs. A sample that is not meant to
/// fail must compile and run; one that is may fail anywhere, and is then
/// left out.
fn sweep(dir: &std::path::Path) -> Result<Sweep, String> {
    let compiled = ovir::Model::read(dir.join("model.xml"))
        .and_then(|m| m.compile())
        .map_err(|e| format!("does not compile: {e}"));
    let expects_error = dir.join("expected_error").is_file();
    let fail = |message: String| if expects_error { Ok(Sweep::RefusedAsExpected) } else { Err(message) };
    let compiled = match compiled {
        Ok(c) => c,
        Err(message) => return fail(message),
    };
    if !compiled.inputs().iter().all(|p| p.shape.is_static()) {
        return Ok(Sweep::NotStatic);
    }
    let mut request = compiled.infer_request();
    let inputs = match compiled.example_inputs() {
        Ok(inputs) => inputs,
        Err(e) => return fail(format!("no example inputs: {e}")),
    };
    // The case's own inputs where it has them in a plain type: made-up
    // ones may break a rule the case's inputs keep (pads that a Split
    // cuts from one vector, where no rule of the Pad reaches them).
    let ports = compiled.inputs();
    // Each input is also held here, as a caller running a model many times
    // on the same inputs holds them: a scatter into a model input then
    // copies it rather than taking it over (which `handed_over_cache` checks).
    let mut held = Vec::new();
    for (i, example) in inputs.into_iter().enumerate() {
        let recorded = ports.get(i).and_then(|port| {
            let stem = ovir::npy::file_stem(port.names.first()?);
            let t = ovir::npy::read_npy_file(&dir.join("in").join(format!("{stem}.npy"))).ok()?;
            (t.element_type() == port.element_type
                && port.shape.compatible(&ovir::PartialShape::from_static(t.shape())))
            .then_some(t)
        });
        let t = recorded.unwrap_or(example);
        held.push(t.clone());
        if let Err(e) = request.set_input(i, t) {
            return fail(format!("input {i} refused: {e}"));
        }
    }
    if let Err(e) = request.infer() {
        return fail(format!("first inference failed: {e}"));
    }
    let mut failure = None;
    let count = allocations_in(|| {
        for _ in 0..10 {
            if let Err(e) = request.infer() {
                failure = Some(e);
                return;
            }
        }
    });
    match failure {
        Some(e) => Err(format!("a later inference failed: {e}")),
        None => Ok(Sweep::Ran(count)),
    }
}

#[test]
fn every_static_sample_allocates_nothing_after_the_first_inference() {
    let mut offenders = Vec::new();
    let mut checked = 0usize;
    for dir in case_dirs(&samples_dir()) {
        let name = case_name(&dir);
        let excused = EXCEPTIONS.iter().any(|(case, _)| *case == name);
        match sweep(&dir) {
            Ok(Sweep::NotStatic | Sweep::RefusedAsExpected) => {}
            Ok(Sweep::Ran(count)) => {
                checked += 1;
                if count > 0 && !excused {
                    offenders.push(format!("{name}: {count} allocations in 10 inferences"));
                }
                if count == 0 && excused {
                    offenders.push(format!("{name}: listed as an exception but allocates nothing"));
                }
            }
            Err(why) => offenders.push(format!("{name}: {why}")),
        }
    }
    assert!(offenders.is_empty(), "{} of {checked} cases:\n{}", offenders.len(), offenders.join("\n"));
    // Guards the sweep itself: a samples folder it cannot find would pass.
    assert!(checked >= 100, "only {checked} cases were checked");
}

/// Models written layer by layer ([`Net`]), for the ops that no sample
/// runs with static shapes (the converted samples with Slice, Gather,
/// Broadcast, Concat and the views have dynamic inputs, or fold away
/// entirely), compiled.
trait Compile {
    fn compile(self) -> ovir::CompiledModel;
}

impl Compile for Net {
    fn compile(self) -> ovir::CompiledModel {
        let (xml, weights) = self.into_parts();
        ovir::Model::from_memory(&xml, Some(weights)).unwrap().compile().unwrap()
    }
}

#[test]
fn a_slice_with_constant_bounds_allocates_nothing_after_the_first_inference() {
    let mut net = Net::default();
    let x = net.parameter("f32", &[4, 6]);
    // x[1:3, ::-2], which is no pure reversal.
    let (start, stop, step, axes) =
        (net.ints(&[1, -1]), net.ints(&[3, i64::MIN]), net.ints(&[1, -2]), net.ints(&[0, 1]));
    let sliced = net.op("Slice", "opset8", "", &[x, start, stop, step, axes]);
    net.result(sliced);
    // x[0:3:2] on the first axis, without an axes input.
    let (start, stop, step) = (net.ints(&[0]), net.ints(&[3]), net.ints(&[2]));
    let sliced = net.op("Slice", "opset8", "", &[x, start, stop, step]);
    net.result(sliced);
    assert_steady(&net.compile(), |inputs| {
        let x = &inputs[0];
        vec![
            kernels::slice(x, &ints(&[1, -1]), &ints(&[3, i64::MIN]), &ints(&[1, -2]), Some(&ints(&[0, 1])))
                .unwrap(),
            kernels::slice(x, &ints(&[0]), &ints(&[3]), &ints(&[2]), None).unwrap(),
        ]
    });
}

#[test]
fn gather_broadcast_and_concat_allocate_nothing_after_the_first_inference() {
    let mut net = Net::default();
    let data = net.parameter("f32", &[4, 5]);
    let indices = net.parameter("i64", &[3]);
    let axis = net.ints(&[1]);
    // Indices that arrive at run time, and constant ones.
    let gathered = net.op("Gather", "opset8", r#"batch_dims="0""#, &[data, indices, axis]);
    net.result(gathered);
    let (constant, axis) = (net.ints(&[2, 0, -1]), net.ints(&[0]));
    let gathered = net.op("Gather", "opset8", r#"batch_dims="0""#, &[data, constant, axis]);
    net.result(gathered);
    let column = net.parameter("f32", &[4, 1]);
    let target = net.ints(&[2, 4, 3]);
    let broadcast = net.op("Broadcast", "opset3", r#"mode="numpy""#, &[column, target]);
    net.result(broadcast);
    let (target, mapping) = (net.ints(&[4, 2, 5]), net.ints(&[0, 2]));
    let broadcast = net.op("Broadcast", "opset3", r#"mode="explicit""#, &[data, target, mapping]);
    net.result(broadcast);
    let joined = net.op("Concat", "opset1", r#"axis="1""#, &[data, column, data]);
    net.result(joined);
    assert_steady(&net.compile(), |inputs| {
        let [data, indices, column] = inputs else { panic!("three inputs") };
        let (numpy, explicit) = (BroadcastMode::Numpy, BroadcastMode::Explicit);
        vec![
            kernels::gather(data, indices, &ints(&[1]), 0).unwrap(),
            kernels::gather(data, &ints(&[2, 0, -1]), &ints(&[0]), 0).unwrap(),
            kernels::broadcast(column, &ints(&[2, 4, 3]), None, numpy).unwrap(),
            kernels::broadcast(data, &ints(&[4, 2, 5]), Some(&ints(&[0, 2])), explicit).unwrap(),
            kernels::concat(&[data, column, data], 1).unwrap(),
        ]
    });
}

#[test]
fn views_of_an_input_allocate_nothing_after_the_first_inference() {
    let mut net = Net::default();
    let x = net.parameter("f32", &[2, 3, 4]);
    let pattern = net.ints(&[6, -1]);
    let flat = net.op("Reshape", "opset1", r#"special_zero="false""#, &[x, pattern]);
    let axes = net.ints(&[0]);
    let reversed = net.op("Reverse", "opset1", r#"mode="index""#, &[flat, axes]);
    net.result(reversed);
    let axes = net.ints(&[0, -1]);
    let wide = net.op("Unsqueeze", "opset1", "", &[x, axes]);
    net.result(wide);
    let axes = net.ints(&[0]);
    let narrow = net.op("Squeeze", "opset1", "", &[wide, axes]);
    net.result(narrow);
    let expected = |x: &Tensor| {
        let flat = kernels::reshape(x, &ints(&[6, -1]), false).unwrap();
        let wide = kernels::unsqueeze(x, &ints(&[0, -1])).unwrap();
        vec![
            kernels::reverse(&flat, &[true, false]).unwrap(),
            wide.clone(),
            kernels::squeeze(&wide, Some(&ints(&[0]))).unwrap(),
        ]
    };
    let compiled = net.compile();
    assert_steady(&compiled, |inputs| expected(&inputs[0]));
    // Views of the input are kept between runs: a new input must not leave
    // them looking at the old one.
    let mut request = compiled.infer_request();
    request.set_input(0, compiled.example_inputs().unwrap().remove(0)).unwrap();
    request.infer().unwrap();
    request.infer().unwrap();
    for round in 0..2 {
        let values: Vec<f32> = (0..24).map(|v| (v * (round + 3)) as f32 - 7.5).collect();
        let x = Tensor::from_vec(&[2, 3, 4], values).unwrap();
        request.set_input(0, x.clone()).unwrap();
        request.infer().unwrap();
        let outputs: Vec<Tensor> = request.outputs().into_iter().cloned().collect();
        assert_eq!(outputs, expected(&x), "round {round}");
    }
}

#[test]
fn a_slice_of_whole_rows_is_a_view_that_allocates_nothing() {
    // x[2:5] of an input, and x[1, 1:3] of a reversed one: both are one
    // stretch of their data, so the plan takes them without a copy.
    let mut net = Net::default();
    let x = net.parameter("f32", &[6, 4]);
    let (start, stop, step, axes) = (net.ints(&[2]), net.ints(&[5]), net.ints(&[1]), net.ints(&[0]));
    let rows = net.op("Slice", "opset8", "", &[x, start, stop, step, axes]);
    net.result(rows);
    let axes = net.ints(&[1]);
    let reversed = net.op("Reverse", "opset1", r#"mode="index""#, &[x, axes]);
    let (start, stop, step) = (net.ints(&[1, 1]), net.ints(&[2, 3]), net.ints(&[1, 1]));
    let part = net.op("Slice", "opset8", "", &[reversed, start, stop, step]);
    net.result(part);
    let compiled = net.compile();
    let expected = |x: &Tensor| {
        let v = x.to_vec::<f32>().unwrap();
        let row = |r: usize| v[r * 4..r * 4 + 4].to_vec();
        let rows: Vec<f32> = (2..5).flat_map(row).collect();
        let reversed_row_1: Vec<f32> = row(1).into_iter().rev().collect();
        vec![
            Tensor::from_vec(&[3, 4], rows).unwrap(),
            Tensor::from_vec(&[1, 2], reversed_row_1[1..3].to_vec()).unwrap(),
        ]
    };
    let mut request = compiled.infer_request();
    for round in 0..2 {
        let values: Vec<f32> = (0..24).map(|v| (v * (round + 3)) as f32 - 7.5).collect();
        let x = Tensor::from_vec(&[6, 4], values).unwrap();
        request.set_input(0, x.clone()).unwrap();
        request.infer().unwrap();
        let outputs: Vec<Tensor> = request.outputs().into_iter().cloned().collect();
        assert_eq!(outputs, expected(&x), "round {round}");
        assert!(outputs[0].is_view_of(&x, 8), "the rows are a view of the input");
    }
    // The view of the input is kept; the view of the computed value makes
    // its shape, two `usize`s, on each run.
    let (count, bytes) = measure(|| {
        for _ in 0..10 {
            request.infer().unwrap();
        }
    });
    assert_eq!((count, bytes), (10, 10 * 2 * std::mem::size_of::<usize>()));
}

#[test]
fn splits_allocate_nothing_after_the_first_inference_and_their_views_follow_the_input() {
    // Rows of an input cut by Split are views of it, kept between runs;
    // columns cut by VariadicSplit are copies; a Split by an axis given
    // at run time works its parts out on the run (every axis of the data
    // divides by 3, whichever the example inputs pick).
    let mut net = Net::default();
    let x = net.parameter("f32", &[6, 6]);
    let axis = net.scalar(0);
    for rows in net.ops("Split", "opset1", r#"num_splits="2""#, &[x, axis], 2) {
        net.result(rows);
    }
    let (axis, lengths) = (net.ints(&[-1]), net.ints(&[1, -1, 0, 2]));
    for columns in net.ops("VariadicSplit", "opset1", "", &[x, axis, lengths], 4) {
        net.result(columns);
    }
    let axis = net.parameter("i64", &[]);
    for part in net.ops("Split", "opset1", r#"num_splits="3""#, &[x, axis], 3) {
        net.result(part);
    }
    let compiled = net.compile();
    let expected = |x: &Tensor, axis: &Tensor| {
        let v = x.to_vec::<f32>().unwrap();
        let rows = |r: std::ops::Range<usize>| v[r.start * 6..r.end * 6].to_vec();
        let columns = |c: std::ops::Range<usize>| {
            let n = c.len();
            let cut: Vec<f32> = (0..6).flat_map(|r| v[r * 6 + c.start..r * 6 + c.end].to_vec()).collect();
            Tensor::from_vec(&[6, n], cut).unwrap()
        };
        let mut want = vec![
            Tensor::from_vec(&[3, 6], rows(0..3)).unwrap(),
            Tensor::from_vec(&[3, 6], rows(3..6)).unwrap(),
            columns(0..1),
            columns(1..4),
            columns(4..4),
            columns(4..6),
        ];
        want.extend(kernels::split(x, axis, 3).unwrap());
        want
    };
    assert_steady(&compiled, |inputs| expected(&inputs[0], &inputs[1]));
    let mut request = compiled.infer_request();
    for round in 0..3 {
        let values: Vec<f32> = (0..36).map(|v| (v * (round + 3)) as f32 - 7.5).collect();
        let x = Tensor::from_vec(&[6, 6], values).unwrap();
        let axis = Tensor::from_vec(&[], vec![[-1i64, 1][round as usize % 2]]).unwrap();
        request.set_input(0, x.clone()).unwrap();
        request.set_input(1, axis.clone()).unwrap();
        request.infer().unwrap();
        let outputs: Vec<Tensor> = request.outputs().into_iter().cloned().collect();
        assert_eq!(outputs, expected(&x, &axis), "round {round}");
        assert!(outputs[1].is_view_of(&x, 18), "the second rows are a view of the input");
    }
}

#[test]
fn parts_of_data_of_run_time_sizes_are_views_of_it() {
    // [1, ?, 3] cut along axis 1, and [1, ?] by lengths given at run time:
    // the axes before the cut are of size 1, so each part is one stretch
    // of the input, taken without a copy.
    for (case, firsts) in
        [("split_dynamic_views_f32", &[0usize, 6][..]), ("variadic_split_dynamic_views_f32", &[0, 2, 7])]
    {
        let dir = samples_dir().join(case);
        let compiled = ovir::Model::read(dir.join("model.xml")).unwrap().compile().unwrap();
        let mut request = compiled.infer_request();
        let inputs = ovir::conformance::read_arrays(&dir.join("in")).unwrap();
        for (i, port) in compiled.inputs().iter().enumerate() {
            request.set_input(i, inputs[port.name()].clone()).unwrap();
        }
        request.infer().unwrap();
        let data = request.input(0).unwrap().clone();
        for (k, (out, &first)) in request.outputs().into_iter().zip(firsts).enumerate() {
            assert!(out.is_view_of(&data, first), "{case}: part {k}");
        }
    }
}

#[test]
fn strided_slices_and_a_split_of_them_allocate_nothing_after_the_first_inference() {
    // x[1:4] (a view of the input, kept between runs), x[::-1, 1::2]
    // (a copy worked out at compile time), the same slice by bounds given
    // at run time (kept in the step's scratch), and a Split of the copy.
    let mut net = Net::default();
    let x = net.parameter("f32", &[6, 6]);
    let (begin, end) = (net.ints(&[1]), net.ints(&[4]));
    let rows = net.op("StridedSlice", "opset1", "", &[x, begin, end]);
    net.result(rows);
    let masks = r#"begin_mask="1,0" end_mask="1,1" new_axis_mask="" shrink_axis_mask="" ellipsis_mask="""#;
    let (begin, end, strides) = (net.ints(&[0, 1]), net.ints(&[0, 0]), net.ints(&[-1, 2]));
    let flipped = net.op("StridedSlice", "opset1", masks, &[x, begin, end, strides]);
    net.result(flipped);
    let (begin, end, strides) =
        (net.parameter("i64", &[2]), net.parameter("i64", &[2]), net.parameter("i64", &[2]));
    let sliced = net.op("StridedSlice", "opset1", "", &[x, begin, end, strides]);
    net.result(sliced);
    let axis = net.scalar(1);
    for part in net.ops("Split", "opset1", r#"num_splits="3""#, &[flipped, axis], 3) {
        net.result(part);
    }
    let compiled = net.compile();
    let masks =
        StridedSlice { begin_mask: vec![true, false], end_mask: vec![true, true], ..StridedSlice::default() };
    let expected = |inputs: &[Tensor]| {
        let [x, begin, end, strides] = inputs else { panic!("four inputs") };
        let flipped =
            kernels::strided_slice(x, &ints(&[0, 1]), &ints(&[0, 0]), Some(&ints(&[-1, 2])), &masks).unwrap();
        let none = StridedSlice::default();
        let mut want = vec![
            kernels::strided_slice(x, &ints(&[1]), &ints(&[4]), None, &none).unwrap(),
            flipped.clone(),
            kernels::strided_slice(x, begin, end, Some(strides), &none).unwrap(),
        ];
        want.extend(kernels::split(&flipped, &Tensor::from_vec(&[], vec![1i64]).unwrap(), 3).unwrap());
        want
    };
    assert_steady(&compiled, expected);
    // The rows are a view of the input, and follow a new one.
    let mut request = compiled.infer_request();
    let mut inputs = compiled.example_inputs().unwrap();
    for round in 0..2 {
        inputs[0] =
            Tensor::from_vec(&[6, 6], (0..36).map(|v| (v * (round + 2)) as f32 - 0.5).collect()).unwrap();
        for (i, t) in inputs.iter().enumerate() {
            request.set_input(i, t.clone()).unwrap();
        }
        request.infer().unwrap();
        let outputs: Vec<Tensor> = request.outputs().into_iter().cloned().collect();
        assert_eq!(outputs, expected(&inputs), "round {round}");
        assert!(outputs[0].is_view_of(&inputs[0], 6), "the rows are a view of the input");
    }
}

#[test]
fn gathers_by_constant_indices_are_worked_out_once() {
    // x[:, [2, 0, 7, -1]] (7 is out of range: zeros) and x[:, ::-1] as a
    // Gather by reversed indices, which runs as a Reverse.
    let mut net = Net::default();
    let x = net.parameter("f32", &[2, 3]);
    let (indices, axis) = (net.ints(&[2, 0, 7, -1]), net.ints(&[1]));
    let picked = net.op("Gather", "opset8", r#"batch_dims="0""#, &[x, indices, axis]);
    net.result(picked);
    let (indices, axis) = (net.ints(&[2, 1, 0]), net.ints(&[1]));
    let flipped = net.op("Gather", "opset8", r#"batch_dims="0""#, &[x, indices, axis]);
    net.result(flipped);
    let compiled = net.compile();
    let mut request = compiled.infer_request();
    let x = Tensor::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
    request.set_input(0, x).unwrap();
    request.infer().unwrap();
    let outputs: Vec<Tensor> = request.outputs().into_iter().cloned().collect();
    assert_eq!(outputs[0].shape(), &[2, 4]);
    assert_eq!(outputs[0].to_vec::<f32>().unwrap(), [3., 1., 0., 3., 6., 4., 0., 6.]);
    assert_eq!(outputs[1].to_vec::<f32>().unwrap(), [3., 2., 1., 6., 5., 4.]);
    // The outputs held above keep their buffers; once they are let go, a
    // run takes them back.
    drop(outputs);
    request.infer().unwrap();
    assert_eq!(allocations_in(|| request.infer().unwrap()), 0);
}

#[test]
fn a_held_view_of_a_computed_value_keeps_its_values_across_runs() {
    // The output is a Reshape of a buffer the plan computes on every run:
    // a copy of it held by the caller must not change when the plan runs
    // again on other inputs.
    let mut net = Net::default();
    let x = net.parameter("f32", &[4, 6]);
    let axes = net.ints(&[0]);
    let reversed = net.op("Reverse", "opset1", r#"mode="index""#, &[x, axes]);
    let pattern = net.ints(&[6, 4]);
    let view = net.op("Reshape", "opset1", r#"special_zero="false""#, &[reversed, pattern]);
    net.result(view);
    let compiled = net.compile();
    let expected = |x: &Tensor| {
        let reversed = kernels::reverse(x, &[true, false]).unwrap();
        kernels::reshape(&reversed, &ints(&[6, 4]), false).unwrap()
    };
    let input = |k: usize| {
        let values: Vec<f32> = (0..24).map(|v| (v * (k + 1)) as f32 + 0.25).collect();
        Tensor::from_vec(&[4, 6], values).unwrap()
    };
    let mut request = compiled.infer_request();
    request.set_input(0, input(0)).unwrap();
    request.infer().unwrap();
    let held = request.output(0).unwrap().clone();
    let want = expected(&input(0));
    assert_eq!(held, want);
    for k in 1..4 {
        request.set_input(0, input(k)).unwrap();
        request.infer().unwrap();
        assert_eq!(request.output(0).unwrap(), &expected(&input(k)), "run {k}");
        assert_eq!(held, want, "the held copy after run {k}");
    }
}

#[test]
fn a_view_of_a_computed_value_allocates_only_its_shape() {
    // A tensor owns its shape, so a Reshape of a value computed on every
    // run makes a new tensor, and a new shape, on every run: this is the
    // one allocation a static-shape model still makes. The buffer it views
    // is reused, not allocated again.
    let mut net = Net::default();
    let x = net.parameter("f32", &[64, 256]);
    let axes = net.ints(&[0]);
    let reversed = net.op("Reverse", "opset1", r#"mode="index""#, &[x, axes]);
    let pattern = net.ints(&[256, 64]);
    let view = net.op("Reshape", "opset1", r#"special_zero="false""#, &[reversed, pattern]);
    let axes = net.ints(&[1]);
    let out = net.op("Reverse", "opset1", r#"mode="index""#, &[view, axes]);
    net.result(out);
    let compiled = net.compile();
    let mut request = compiled.infer_request();
    request.set_input(0, compiled.example_inputs().unwrap().remove(0)).unwrap();
    request.infer().unwrap();
    let (count, bytes) = measure(|| {
        for _ in 0..10 {
            request.infer().unwrap();
        }
    });
    // One shape of two `usize`s per run.
    assert_eq!(count, 10, "allocations in 10 inferences");
    assert_eq!(bytes, 10 * 2 * std::mem::size_of::<usize>(), "bytes allocated in 10 inferences");
}

#[test]
fn the_counter_sees_allocations() {
    // Guards the other tests: a counter that never counts would pass them.
    assert!(allocations_in(|| drop(std::hint::black_box(vec![1u8; 64]))) >= 1);
}

#[test]
fn block_ops_with_parameters_given_at_run_time_allocate_nothing_after_the_first_inference() {
    // The example inputs give blocks of 1 and no crops or pads; the views
    // are still worked out on the first run and kept for the next ones.
    let mut net = Net::default();
    let x = net.parameter("f32", &[4, 2, 3]);
    let (block, begin, end) =
        (net.parameter("i64", &[3]), net.parameter("i64", &[3]), net.parameter("i64", &[3]));
    let gathered = net.op("BatchToSpace", "opset2", "", &[x, block, begin, end]);
    net.result(gathered);
    let spread = net.op("SpaceToBatch", "opset2", "", &[x, block, begin, end]);
    net.result(spread);
    assert_steady(&net.compile(), |inputs| {
        let [x, block, begin, end] = inputs else { panic!("four inputs") };
        vec![
            kernels::batch_to_space(x, block, begin, end).unwrap(),
            kernels::space_to_batch(x, block, begin, end).unwrap(),
        ]
    });
}

#[test]
fn gathers_by_index_allocate_nothing_after_the_first_inference() {
    // GatherElements by indices given at run time (the example inputs keep
    // them in range) and by constant ones.
    let mut net = Net::default();
    let data = net.parameter("f32", &[3, 4, 5]);
    let indices = net.parameter("i64", &[3, 7, 5]);
    let along = net.op("GatherElements", "opset6", r#"axis="1""#, &[data, indices]);
    net.result(along);
    let (constant, shape) = (net.ints(&[3, 0, 0, 1, 2, 2, 1, 0, 3, 3, 0, 1, 2, 3, 0]), net.ints(&[3, 1, 5]));
    let constant = net.op("Reshape", "opset1", r#"special_zero="false""#, &[constant, shape]);
    let picked = net.op("GatherElements", "opset6", r#"axis="-2""#, &[data, constant]);
    net.result(picked);
    // GatherND by tuples given at run time, in both versions (negative
    // indices only for GatherND-8).
    let tuples = net.parameter("i32", &[3, 2, 2]);
    let nd = net.op("GatherND", "opset8", r#"batch_dims="1""#, &[data, tuples]);
    net.result(nd);
    let positive = net.parameter("u8", &[2, 2]);
    let nd = net.op("GatherND", "opset5", r#"batch_dims="0""#, &[data, positive]);
    net.result(nd);
    assert_steady(&net.compile(), |inputs| {
        let [data, indices, tuples, positive] = inputs else { panic!("four inputs") };
        let constant = ints(&[3, 0, 0, 1, 2, 2, 1, 0, 3, 3, 0, 1, 2, 3, 0]).reshaped(&[3, 1, 5]).unwrap();
        vec![
            kernels::gather_elements(data, indices, 1).unwrap(),
            kernels::gather_elements(data, &constant, -2).unwrap(),
            kernels::gather_nd(data, tuples, 1, 8).unwrap(),
            kernels::gather_nd(data, positive, 0, 5).unwrap(),
        ]
    });
}

#[test]
fn gather_tree_allocates_nothing_after_the_first_inference() {
    // Every input given at run time: the example inputs keep the parents
    // among the beams and the lengths within the steps.
    let mut net = Net::default();
    let steps = net.parameter("i32", &[6, 2, 3]);
    let parents = net.parameter("i32", &[6, 2, 3]);
    let lengths = net.parameter("i32", &[2]);
    let end = net.parameter("i32", &[]);
    let tree = net.op("GatherTree", "opset1", "", &[steps, parents, lengths, end]);
    net.result(tree);
    assert_steady(&net.compile(), |inputs| {
        let [steps, parents, lengths, end] = inputs else { panic!("four inputs") };
        vec![kernels::gather_tree(steps, parents, lengths, end).unwrap()]
    });
}

#[test]
fn scatters_allocate_nothing_after_the_first_inference() {
    // ScatterUpdate with its axis given at run time: the layout is worked
    // out on the first run and kept in the step's scratch.
    let mut net = Net::default();
    let data = net.parameter("f32", &[4, 3]);
    let indices = net.parameter("i32", &[2]);
    let updates = net.parameter("f32", &[2, 3]);
    let axis = net.parameter("i64", &[]);
    let scattered = net.op("ScatterUpdate", "opset3", "", &[data, indices, updates, axis]);
    net.result(scattered);
    // ScatterNDUpdate-15 summing f16, which reduces in f32 in the step's
    // scratch, and ScatterNDUpdate-3.
    let halves = net.parameter("f16", &[4, 3]);
    let tuples = net.parameter("i64", &[2, 1]);
    let rows = net.parameter("f16", &[2, 3]);
    let summed = net.op("ScatterNDUpdate", "opset15", r#"reduction="sum""#, &[halves, tuples, rows]);
    net.result(summed);
    let replaced = net.op("ScatterNDUpdate", "opset4", "", &[halves, tuples, rows]);
    net.result(replaced);
    assert_steady(&net.compile(), |inputs| {
        let [data, indices, updates, axis, halves, tuples, rows] = inputs else { panic!("seven inputs") };
        vec![
            kernels::scatter_update(data, indices, updates, axis).unwrap(),
            kernels::scatter_nd_update(halves, tuples, rows, Some(kernels::Reduction::Sum)).unwrap(),
            kernels::scatter_nd_update(halves, tuples, rows, None).unwrap(),
        ]
    });
}

#[test]
fn scatter_elements_allocates_nothing_after_the_first_inference() {
    // ScatterElementsUpdate-12 averaging f16 (widened to f32 in the step's
    // scratch, with counts) and ScatterElementsUpdate-3.
    let mut net = Net::default();
    let data = net.parameter("f16", &[4, 3]);
    let indices = net.parameter("i64", &[2, 3]);
    let updates = net.parameter("f16", &[2, 3]);
    let axis = net.parameter("i64", &[]);
    let mean = net.op(
        "ScatterElementsUpdate",
        "opset12",
        r#"reduction="mean" use_init_val="false""#,
        &[data, indices, updates, axis],
    );
    net.result(mean);
    let replaced = net.op("ScatterElementsUpdate", "opset3", "", &[data, indices, updates, axis]);
    net.result(replaced);
    assert_steady(&net.compile(), |inputs| {
        let [data, indices, updates, axis] = inputs else { panic!("four inputs") };
        use ovir::shape::ops::ScatterElementsReduction as R;
        vec![
            kernels::scatter_elements_update(data, indices, updates, axis, R::Mean, false).unwrap(),
            kernels::scatter_elements_update(data, indices, updates, axis, R::None, true).unwrap(),
        ]
    });
}

#[test]
fn slice_scatter_allocates_nothing_after_the_first_inference() {
    // Constant bounds (the region worked out when the model compiles) and
    // bounds given at run time (the example inputs: steps not 0, updates
    // of the slice's shape).
    let mut net = Net::default();
    let data = net.parameter("f32", &[4, 6]);
    let updates = net.parameter("f32", &[4, 3]);
    let (start, stop, step, axes) = (net.ints(&[-1]), net.ints(&[-100]), net.ints(&[-2]), net.ints(&[1]));
    let fixed = net.op("SliceScatter", "opset15", "", &[data, updates, start, stop, step, axes]);
    net.result(fixed);
    // The example start and stop are 0: an empty slice of the first axis.
    let none = net.parameter("f32", &[0, 6]);
    let bounds = [net.parameter("i64", &[1]), net.parameter("i64", &[1]), net.parameter("i64", &[1])];
    let runtime = net.op("SliceScatter", "opset15", "", &[data, none, bounds[0], bounds[1], bounds[2]]);
    net.result(runtime);
    assert_steady(&net.compile(), |inputs| {
        let [data, updates, none, start, stop, step] = inputs else { panic!("six inputs") };
        vec![
            kernels::slice_scatter(
                data,
                updates,
                &ints(&[-1]),
                &ints(&[-100]),
                &ints(&[-2]),
                Some(&ints(&[1])),
            )
            .unwrap(),
            kernels::slice_scatter(data, none, start, stop, step, None).unwrap(),
        ]
    });
}

#[test]
fn handed_over_cache_is_updated_in_place_with_nothing_allocated() {
    // A KV cache as a model input: ScatterUpdate writes one row into it.
    // Handed over and taken back on every step, the cache keeps its
    // buffer, and the steps after the first allocate nothing.
    let mut net = Net::default();
    let cache = net.parameter("f32", &[64, 16]);
    let row = net.parameter("i64", &[1]);
    let update = net.parameter("f32", &[1, 16]);
    let axis = net.ints(&[0]);
    let updated = net.op("ScatterUpdate", "opset3", "", &[cache, row, update, axis]);
    net.result(updated);
    let compiled = net.compile();
    let mut request = compiled.infer_request();
    let values: Vec<f32> = (0..64 * 16).map(|v| v as f32).collect();
    let cache = Tensor::from_vec(&[64, 16], values.clone()).unwrap();
    let start = cache.bytes().unwrap().as_ptr();
    request.set_input(1, ints(&[5])).unwrap();
    request.set_input(2, Tensor::from_vec(&[1, 16], vec![-1f32; 16]).unwrap()).unwrap();
    request.set_input(0, cache).unwrap();
    request.infer().unwrap();
    let mut held = Some(request.take_output(0).unwrap());
    let count = allocations_in(|| {
        for _ in 0..10 {
            request.set_input(0, held.take().unwrap()).unwrap();
            request.infer().unwrap();
            held = Some(request.take_output(0).unwrap());
        }
    });
    let cache = held.unwrap();
    assert_eq!(count, 0, "allocations in 10 steps after the first");
    assert_eq!(cache.bytes().unwrap().as_ptr(), start, "the cache moved to another buffer");
    let mut want = values;
    want[5 * 16..6 * 16].fill(-1.0);
    assert_eq!(cache.to_vec::<f32>().unwrap(), want);
}

#[test]
fn unique_allocates_nothing_once_its_counts_repeat() {
    // Unique sizes its outputs when it runs; with the same counts on every
    // run, its buffers come back from the pool and its search keeps its
    // memory in the step's scratch.
    let mut net = Net::default();
    let data = net.parameter("i8", &[6, 4]);
    let axis = net.scalar(0);
    for out in net.ops("Unique", "opset10", r#"sorted="true""#, &[data, axis], 4) {
        net.result(out);
    }
    let words = net.parameter("f32", &[3, 5]);
    let attrs = r#"sorted="false" index_element_type="i32" count_element_type="i32""#;
    for out in net.ops("Unique", "opset10", attrs, &[words], 4) {
        net.result(out);
    }
    assert_steady(&net.compile(), |inputs| {
        let [data, words] = inputs else { panic!("two inputs") };
        let axis = Tensor::from_vec(&[], vec![0i64]).unwrap();
        let flat = ovir::shape::ops::Unique {
            sorted: false,
            index_type: ovir::ElementType::I32,
            count_type: ovir::ElementType::I32,
        };
        let rows = kernels::unique(data, Some(&axis), &Default::default()).unwrap();
        let flat = kernels::unique(words, None, &flat).unwrap();
        rows.into_iter().chain(flat).collect()
    });
}

#[test]
fn col2im_allocates_nothing_after_the_first_inference() {
    // Sizes given at run time (the example inputs make each block one
    // pixel: a kernel of 1 x 1 and an image of one row), and constant
    // ones on data of a static shape, worked out at compile time.
    let mut net = Net::default();
    let columns = net.parameter("f32", &[2, 4, 6]);
    let (size, kernel) = (net.parameter("i64", &[2]), net.parameter("i64", &[2]));
    let image = net.op("Col2Im", "opset15", "", &[columns, size, kernel]);
    net.result(image);
    let blocks = net.parameter("i32", &[8, 6]);
    let (fixed_size, fixed_kernel) = (net.ints(&[3, 4]), net.ints(&[2, 2]));
    let overlapped = net.op(
        "Col2Im",
        "opset15",
        r#"strides="1, 1" dilations="1, 1" pads_begin="0, 0" pads_end="0, 0""#,
        &[blocks, fixed_size, fixed_kernel],
    );
    net.result(overlapped);
    assert_steady(&net.compile(), |inputs| {
        let [columns, size, kernel, blocks] = inputs else { panic!("four inputs") };
        let op = ovir::shape::ops::Col2Im::default();
        vec![
            kernels::col2im(columns, size, kernel, &op).unwrap(),
            kernels::col2im(blocks, &ints(&[3, 4]), &ints(&[2, 2]), &op).unwrap(),
        ]
    });
}
