//! Steps with several outputs, outputs sized when the step runs, and
//! outputs computed in place from a dying input, through extension ops:
//! their values, how the plan folds and schedules them, and that running
//! again on the same sizes allocates nothing.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ovir_tests::counting::{allocations_in, CountingAlloc};
use ovir_tests::net::{Net, Out};

use ovir::exec::{Folded, Plan};
use ovir::ir::Layer;
use ovir::{
    Core, CustomOp, CustomOpState, ElementType, Extension, ExtensionError, InPlace, OutputSlots,
    PartialShape, PortFact, Tensor,
};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn error(e: impl ToString) -> ExtensionError {
    ExtensionError::new(e.to_string())
}

/// The one input of an op that takes one.
fn only<'a>(inputs: &[&'a Tensor]) -> Result<&'a Tensor, ExtensionError> {
    match inputs {
        [x] => Ok(x),
        _ => Err(ExtensionError::new(format!("takes 1 input, not {}", inputs.len()))),
    }
}

/// The bytes of a numeric tensor.
fn bytes(t: &Tensor) -> Result<&[u8], ExtensionError> {
    t.bytes().ok_or_else(|| ExtensionError::new("numeric data only"))
}

/// The one input fact of an op that takes one, of type `ty` (or not yet
/// known).
fn only_fact(inputs: &[PortFact], ty: ElementType) -> Result<&PortFact, ExtensionError> {
    match inputs {
        [x] if !x.element_type.is_static() || x.element_type == ty => Ok(x),
        [x] => Err(ExtensionError::new(format!("needs {ty} data, but it is {}", x.element_type))),
        _ => Err(ExtensionError::new(format!("takes 1 input, not {}", inputs.len()))),
    }
}

/// Every test op, by type, all of version `test`.
struct TestOps {
    op_type: &'static str,
    counts: Arc<InPlaceCounts>,
}

/// How often `AddOne` found its input's buffer in its output, and how
/// often a buffer of its own.
#[derive(Debug, Default)]
struct InPlaceCounts {
    reused: AtomicUsize,
    fresh: AtomicUsize,
}

impl InPlaceCounts {
    fn take(&self) -> (usize, usize) {
        (self.reused.swap(0, Ordering::SeqCst), self.fresh.swap(0, Ordering::SeqCst))
    }
}

impl Extension for TestOps {
    fn op_type(&self) -> &str {
        self.op_type
    }
    fn version(&self) -> &str {
        "test"
    }
    fn build(&self, _layer: &Layer) -> Result<Arc<dyn CustomOp>, ExtensionError> {
        Ok(match self.op_type {
            "Halves" => Arc::new(Halves),
            "Distinct" => Arc::new(Distinct),
            "AddOne" => Arc::new(AddOne { counts: self.counts.clone() }),
            _ => Arc::new(Alias),
        })
    }
}

/// `Halves`: a 1-D f32 tensor of even length cut into its two halves, two
/// outputs.
#[derive(Debug)]
struct Halves;

impl CustomOp for Halves {
    fn op_type(&self) -> &str {
        "Halves"
    }
    fn output_count(&self) -> usize {
        2
    }
    fn infer_outputs(&self, inputs: &[PortFact]) -> Result<Vec<PortFact>, ExtensionError> {
        let x = only_fact(inputs, ElementType::F32)?;
        let half = match x.shape.to_static().as_deref() {
            Some([n]) if n % 2 == 0 => PartialShape::from_static(&[n / 2]),
            Some(shape) => {
                return Err(ExtensionError::new(format!("cannot halve a tensor of shape {shape:?}")))
            }
            None => "?".parse().map_err(error)?,
        };
        Ok(vec![PortFact::of(ElementType::F32, half.clone()), PortFact::of(ElementType::F32, half)])
    }
    fn evaluate_outputs(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>, ExtensionError> {
        let values = only(inputs)?.to_vec::<f32>().map_err(error)?;
        let (a, b) = values.split_at(values.len() / 2);
        Ok(vec![
            Tensor::from_vec(&[a.len()], a.to_vec()).map_err(error)?,
            Tensor::from_vec(&[b.len()], b.to_vec()).map_err(error)?,
        ])
    }
    fn run(&self, inputs: &[&Tensor], outputs: &mut dyn OutputSlots) -> Result<(), ExtensionError> {
        let data = bytes(only(inputs)?)?;
        let (a, b) = data.split_at(data.len() / 2);
        for (port, half) in [a, b].into_iter().enumerate() {
            let out = outputs.buffer(port).ok_or_else(|| ExtensionError::new("no buffer"))?;
            out.bytes_mut().ok_or_else(|| ExtensionError::new("no bytes"))?.copy_from_slice(half);
        }
        Ok(())
    }
}

/// `Distinct`: the distinct values of a 1-D i64 tensor, ascending, and how
/// often each occurs; both sized only once the values are seen.
#[derive(Debug)]
struct Distinct;

/// Sorts `values` and writes the distinct ones and their counts.
fn distinct(values: &mut [i64], outputs: &mut dyn OutputSlots) -> Result<(), ExtensionError> {
    values.sort_unstable();
    let k = values.windows(2).filter(|w| w[0] != w[1]).count() + usize::from(!values.is_empty());
    for port in 0..2 {
        let out = outputs.allocate(port, ElementType::I64, &[k])?;
        let out = out.bytes_mut().ok_or_else(|| ExtensionError::new("no bytes"))?;
        let mut slots = out.chunks_exact_mut(8);
        let mut i = 0;
        while i < values.len() {
            let run = values[i..].iter().take_while(|&&v| v == values[i]).count();
            let value = if port == 0 { values[i] } else { run as i64 };
            if let Some(slot) = slots.next() {
                slot.copy_from_slice(&value.to_le_bytes());
            }
            i += run;
        }
    }
    Ok(())
}

/// Reads a 1-D i64 tensor into `values`, which keeps its room.
fn read_ints(x: &Tensor, values: &mut Vec<i64>) -> Result<(), ExtensionError> {
    if x.element_type() != ElementType::I64 {
        return Err(ExtensionError::new("needs i64 data"));
    }
    values.clear();
    values.extend(bytes(x)?.chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().unwrap_or_default())));
    Ok(())
}

impl CustomOp for Distinct {
    fn op_type(&self) -> &str {
        "Distinct"
    }
    fn output_count(&self) -> usize {
        2
    }
    fn infer_outputs(&self, inputs: &[PortFact]) -> Result<Vec<PortFact>, ExtensionError> {
        only_fact(inputs, ElementType::I64)?;
        let shape: PartialShape = "?".parse().map_err(error)?;
        Ok(vec![PortFact::of(ElementType::I64, shape.clone()), PortFact::of(ElementType::I64, shape)])
    }
    fn evaluate_outputs(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>, ExtensionError> {
        let mut values = Vec::new();
        read_ints(only(inputs)?, &mut values)?;
        values.sort_unstable();
        let mut distinct: Vec<i64> = values.clone();
        distinct.dedup();
        let counts: Vec<i64> =
            distinct.iter().map(|d| values.iter().filter(|v| *v == d).count() as i64).collect();
        Ok(vec![
            Tensor::from_vec(&[distinct.len()], distinct).map_err(error)?,
            Tensor::from_vec(&[counts.len()], counts).map_err(error)?,
        ])
    }
    fn state(&self) -> Option<Box<dyn CustomOpState>> {
        Some(Box::new(DistinctState::default()))
    }
}

/// What a request keeps for `Distinct`: the values it sorts.
#[derive(Debug, Default)]
struct DistinctState {
    values: Vec<i64>,
}

impl CustomOpState for DistinctState {
    fn evaluate_into(&mut self, _: &[&Tensor], _: &mut Tensor) -> Result<(), ExtensionError> {
        Err(ExtensionError::new("Distinct has two outputs"))
    }
    fn run(&mut self, inputs: &[&Tensor], outputs: &mut dyn OutputSlots) -> Result<(), ExtensionError> {
        read_ints(only(inputs)?, &mut self.values)?;
        distinct(&mut self.values, outputs)
    }
}

/// `AddOne`: f32 data plus one, computed in place when the plan lets it;
/// it counts which it was.
#[derive(Debug)]
struct AddOne {
    counts: Arc<InPlaceCounts>,
}

impl CustomOp for AddOne {
    fn op_type(&self) -> &str {
        "AddOne"
    }
    fn infer(&self, inputs: &[PortFact]) -> Result<PortFact, ExtensionError> {
        let x = only_fact(inputs, ElementType::F32)?;
        Ok(PortFact::of(ElementType::F32, x.shape.clone()))
    }
    fn evaluate(&self, inputs: &[&Tensor]) -> Result<Tensor, ExtensionError> {
        let x = only(inputs)?;
        let values: Vec<f32> = x.to_vec::<f32>().map_err(error)?.into_iter().map(|v| v + 1.0).collect();
        Tensor::from_vec(x.shape(), values).map_err(error)
    }
    fn reuses_input(&self, port: usize) -> Option<usize> {
        (port == 0).then_some(0)
    }
    fn run(&self, inputs: &[&Tensor], outputs: &mut dyn OutputSlots) -> Result<(), ExtensionError> {
        let slot = outputs.in_place(0, only(inputs)?)?;
        let counter = match slot {
            InPlace::Reused(_) => &self.counts.reused,
            InPlace::Fresh { .. } => &self.counts.fresh,
        };
        counter.fetch_add(1, Ordering::SeqCst);
        let out = slot.filled("AddOne")?.bytes_mut().ok_or_else(|| ExtensionError::new("no bytes"))?;
        for v in out.chunks_exact_mut(4) {
            let x = f32::from_le_bytes(v.try_into().unwrap_or_default());
            v.copy_from_slice(&(x + 1.0).to_le_bytes());
        }
        Ok(())
    }
}

/// `Alias`: its input itself, sharing its storage.
#[derive(Debug)]
struct Alias;

impl CustomOp for Alias {
    fn op_type(&self) -> &str {
        "Alias"
    }
    fn infer(&self, inputs: &[PortFact]) -> Result<PortFact, ExtensionError> {
        match inputs {
            [x] => Ok(PortFact::of(x.element_type, x.shape.clone())),
            _ => Err(ExtensionError::new("takes 1 input")),
        }
    }
    fn evaluate(&self, inputs: &[&Tensor]) -> Result<Tensor, ExtensionError> {
        Ok(only(inputs)?.clone())
    }
    fn run(&self, inputs: &[&Tensor], outputs: &mut dyn OutputSlots) -> Result<(), ExtensionError> {
        outputs.set(0, only(inputs)?.clone())
    }
}

/// A core with every test op, and `AddOne`'s counts.
fn core() -> (Core, Arc<InPlaceCounts>) {
    let counts = Arc::new(InPlaceCounts::default());
    let mut core = Core::new();
    for op_type in ["Halves", "Distinct", "AddOne", "Alias"] {
        core.add_extension(TestOps { op_type, counts: counts.clone() }).unwrap();
    }
    (core, counts)
}

/// What these tests add to a [`Net`]: a Reverse, and the model read
/// with the extensions of `core`.
trait NetExt {
    fn reverse(&mut self, x: Out) -> Out;
    fn model(self, core: &Core) -> ovir::Model;
}

impl NetExt for Net {
    /// A Reverse of the first axis.
    fn reverse(&mut self, x: Out) -> Out {
        let axes = self.constant("i64", &[0.0]);
        self.op("Reverse", "opset1", r#"mode="index""#, &[x, axes])
    }

    fn model(self, core: &Core) -> ovir::Model {
        let (xml, weights) = self.into_parts();
        core.read_model_from_memory(&xml, Some(weights)).unwrap()
    }
}

/// A plan of `model`, as the facade compiles it.
fn compile_plan(model: &ovir::Model) -> Plan {
    Plan::compile(model.ir(), model.info()).unwrap()
}

fn floats(values: &[f32]) -> Tensor {
    Tensor::from_vec(&[values.len()], values.to_vec()).unwrap()
}

fn ints(values: &[i64]) -> Tensor {
    Tensor::from_vec(&[values.len()], values.to_vec()).unwrap()
}

/// Runs `plan` on `inputs` in `state` and returns its outputs.
fn run(plan: &Plan, state: &mut ovir::exec::RunState, inputs: &[Tensor]) -> Vec<Tensor> {
    for (i, t) in inputs.iter().enumerate() {
        plan.set_input(state, i, t.clone()).unwrap();
    }
    plan.run_state(state).unwrap();
    (0..plan.outputs().len()).map(|i| plan.output(state, i).unwrap().clone()).collect()
}

/// Allocations in ten runs of `plan` on `inputs` after a first one.
fn steady_allocations(plan: &Plan, inputs: &[Tensor]) -> usize {
    let mut state = plan.state();
    for (i, t) in inputs.iter().enumerate() {
        plan.set_input(&mut state, i, t.clone()).unwrap();
    }
    plan.run_state(&mut state).unwrap();
    allocations_in(|| {
        for _ in 0..10 {
            plan.run_state(&mut state).unwrap();
        }
    })
}

/// `x -> Halves`, its first half an output, its second reversed.
fn halves_net() -> Net {
    let mut net = Net::default();
    let x = net.parameter("f32", &[6]);
    let halves = net.ops("Halves", "test", "", &[x], 2);
    net.result(halves[0]);
    let reversed = net.reverse(halves[1]);
    net.result(reversed);
    net
}

#[test]
fn a_step_with_two_outputs_feeds_a_result_and_a_layer() {
    let (core, _) = core();
    let model = halves_net().model(&core);
    let plan = compile_plan(&model);
    assert_eq!(plan.step_count(), 2);
    let mut state = plan.state();
    for round in 0..3 {
        let x: Vec<f32> = (0..6).map(|v| (v * (round + 1)) as f32 - 0.5).collect();
        let out = run(&plan, &mut state, &[floats(&x)]);
        assert_eq!(out[0], floats(&x[..3]), "round {round}");
        assert_eq!(out[1], floats(&[x[5], x[4], x[3]]), "round {round}");
    }
    assert_eq!(steady_allocations(&plan, &[floats(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])]), 0);
}

#[test]
fn each_output_is_released_after_its_own_last_reader() {
    // Both halves are read by steps only (one reverses each), so both go
    // back to the pool, each after its reader: ten runs allocate nothing,
    // and the values stay right.
    let (core, _) = core();
    let mut net = Net::default();
    let x = net.parameter("f32", &[8]);
    let halves = net.ops("Halves", "test", "", &[x], 2);
    let a = net.reverse(halves[0]);
    let b = net.reverse(halves[1]);
    let joined = net.ops("Concat", "opset1", r#"axis="0""#, &[b, a], 1)[0];
    net.result(joined);
    let model = net.model(&core);
    let plan = compile_plan(&model);
    let x = floats(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let out = run(&plan, &mut plan.state(), std::slice::from_ref(&x));
    assert_eq!(out[0], floats(&[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]));
    assert_eq!(steady_allocations(&plan, &[x]), 0);
}

#[test]
fn every_output_of_a_layer_with_constant_inputs_is_folded() {
    let (core, _) = core();
    let mut net = Net::default();
    let x = net.constant("f32", &[1.0, 2.0, 3.0, 4.0]);
    let halves = net.ops("Halves", "test", "", &[x], 2);
    net.result(halves[0]);
    let reversed = net.reverse(halves[1]);
    net.result(reversed);
    let model = net.model(&core);
    let plan = compile_plan(&model);
    assert_eq!(plan.step_count(), 0);
    let out = run(&plan, &mut plan.state(), &[]);
    assert_eq!(out, vec![floats(&[1.0, 2.0]), floats(&[4.0, 3.0])]);
    let folding = Plan::folding_ports(model.ir(), model.info(), u64::MAX).unwrap();
    let halves_layer = &folding[halves[0].0];
    assert_eq!(halves_layer.len(), 2);
    for (port, want) in [floats(&[1.0, 2.0]), floats(&[3.0, 4.0])].iter().enumerate() {
        assert!(matches!(&halves_layer[port], Folded::Value(v) if v == want), "port {port}");
    }
    // The per-layer view keeps telling of first outputs.
    let first = Plan::folding(model.ir(), model.info(), u64::MAX).unwrap();
    assert!(matches!(&first[halves[0].0], Folded::Value(v) if *v == floats(&[1.0, 2.0])));
}

#[test]
fn a_layer_must_declare_as_many_outputs_as_its_extension_op_has() {
    let (core, _) = core();
    let mut net = Net::default();
    let x = net.parameter("f32", &[6]);
    let halves = net.ops("Halves", "test", "", &[x], 1);
    net.result(halves[0]);
    let err = core.read_model_from_memory(&net.into_parts().0, None).unwrap_err().to_string();
    assert!(
        err.contains("Halves is an extension op, which produces 2 outputs, but the layer declares 1"),
        "{err}"
    );
}

/// `x -> Distinct`, both outputs model outputs.
fn distinct_plan(core: &Core) -> Plan {
    let mut net = Net::default();
    let x = net.parameter("i64", &[6]);
    let distinct = net.ops("Distinct", "test", "", &[x], 2);
    net.result(distinct[0]);
    net.result(distinct[1]);
    compile_plan(&net.model(core))
}

#[test]
fn outputs_sized_when_the_step_runs_take_the_sizes_of_each_run() {
    let (core, _) = core();
    let plan = distinct_plan(&core);
    let mut state = plan.state();
    let cases: [(&[i64], &[i64], &[i64]); 4] = [
        (&[3, 1, 3, 2, 1, 3], &[1, 2, 3], &[2, 1, 3]),
        (&[5, 5, 5, 5, 5, 5], &[5], &[6]),
        (&[6, 5, 4, 3, 2, 1], &[1, 2, 3, 4, 5, 6], &[1, 1, 1, 1, 1, 1]),
        (&[-1, 0, -1, 0, 9, 9], &[-1, 0, 9], &[2, 2, 2]),
    ];
    for (x, values, counts) in cases {
        let out = run(&plan, &mut state, &[ints(x)]);
        assert_eq!(out, vec![ints(values), ints(counts)], "{x:?}");
    }
}

#[test]
fn outputs_sized_when_the_step_runs_allocate_nothing_once_the_sizes_repeat() {
    let (core, _) = core();
    let plan = distinct_plan(&core);
    assert_eq!(steady_allocations(&plan, &[ints(&[3, 1, 3, 2, 1, 3])]), 0);
    // New sizes allocate on their first run, and not after.
    let mut state = plan.state();
    let (a, b) = (ints(&[3, 1, 3, 2, 1, 3]), ints(&[7, 7, 7, 8, 8, 8]));
    run(&plan, &mut state, std::slice::from_ref(&a));
    run(&plan, &mut state, std::slice::from_ref(&b));
    let count = allocations_in(|| {
        for _ in 0..10 {
            plan.run_state(&mut state).unwrap();
        }
    });
    assert_eq!(count, 0);
    assert_eq!(plan.output(&state, 0).unwrap(), &ints(&[7, 8]));
}

#[test]
fn an_output_sized_at_run_time_is_held_to_the_memory_limit() {
    let (core, _) = core();
    let plan = distinct_plan(&core);
    let mut state = plan.state();
    // Three distinct values take 24 bytes; the limit is below that.
    state.set_max_tensor_bytes(16);
    plan.set_input(&mut state, 0, ints(&[3, 1, 3, 2, 1, 3])).unwrap();
    let err = plan.run_state(&mut state).unwrap_err();
    assert!(matches!(err, ovir::exec::RunError::OverLimit { .. }), "{err:?}");
    // Two distinct values fit.
    plan.set_input(&mut state, 0, ints(&[3, 1, 3, 1, 1, 3])).unwrap();
    plan.run_state(&mut state).unwrap();
    assert_eq!(plan.output(&state, 0).unwrap(), &ints(&[1, 3]));
}

/// `x -> Reverse -> AddOne`, the sum a model output.
fn add_one_net() -> (Net, Out) {
    let mut net = Net::default();
    let x = net.parameter("f32", &[4, 6]);
    let reversed = net.reverse(x);
    let added = net.ops("AddOne", "test", "", &[reversed], 1)[0];
    net.result(added);
    (net, reversed)
}

/// Rows of `x` (4 x 6) reversed, plus one.
fn reversed_plus_one(x: &[f32]) -> Vec<f32> {
    x.chunks(6).rev().flatten().map(|v| v + 1.0).collect()
}

fn input(k: usize) -> Vec<f32> {
    (0..24).map(|v| (v * (k + 2)) as f32 - 3.25).collect()
}

#[test]
fn an_output_takes_over_the_buffer_of_an_input_that_dies_at_its_step() {
    let (core, counts) = core();
    let (net, _) = add_one_net();
    let plan = compile_plan(&net.model(&core));
    let mut state = plan.state();
    for k in 0..3 {
        let out = run(&plan, &mut state, &[Tensor::from_vec(&[4, 6], input(k)).unwrap()]);
        assert_eq!(out[0].to_vec::<f32>().unwrap(), reversed_plus_one(&input(k)), "run {k}");
    }
    assert_eq!(counts.take(), (3, 0));
    assert_eq!(steady_allocations(&plan, &[Tensor::from_vec(&[4, 6], input(0)).unwrap()]), 0);
    assert_eq!(counts.take(), (11, 0));
}

#[test]
fn an_input_that_lives_on_is_copied_rather_than_taken_over() {
    let (core, counts) = core();
    // The reversed data is also a model output: it must keep its values.
    let (mut net, reversed) = add_one_net();
    net.result(reversed);
    let plan = compile_plan(&net.model(&core));
    let x = Tensor::from_vec(&[4, 6], input(1)).unwrap();
    let out = run(&plan, &mut plan.state(), std::slice::from_ref(&x));
    assert_eq!(out[0].to_vec::<f32>().unwrap(), reversed_plus_one(&input(1)));
    let want: Vec<f32> = input(1).chunks(6).rev().flatten().copied().collect();
    assert_eq!(out[1].to_vec::<f32>().unwrap(), want);
    assert_eq!(counts.take(), (0, 1));
    assert_eq!(steady_allocations(&plan, &[x]), 0);
    assert_eq!(counts.take(), (0, 11));

    // A model input is the caller's: it is never taken over.
    let mut net = Net::default();
    let x = net.parameter("f32", &[4, 6]);
    let added = net.ops("AddOne", "test", "", &[x], 1)[0];
    net.result(added);
    let plan = compile_plan(&net.model(&core));
    let x = Tensor::from_vec(&[4, 6], input(2)).unwrap();
    let out = run(&plan, &mut plan.state(), std::slice::from_ref(&x));
    let want: Vec<f32> = input(2).iter().map(|v| v + 1.0).collect();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), want);
    assert_eq!(x.to_vec::<f32>().unwrap(), input(2));
    assert_eq!(counts.take(), (0, 1));
}

#[test]
fn a_buffer_something_else_still_holds_is_copied_when_the_step_runs() {
    // `Alias` hands on the reversed data itself, and the reversed data is
    // a model output: `AddOne` is the last reader of the alias, so the
    // plan grants it the alias's buffer, but on every run that buffer is
    // the output's too, and is copied instead.
    let (core, counts) = core();
    let (mut net, _) = (Net::default(), ());
    let x = net.parameter("f32", &[4, 6]);
    let reversed = net.reverse(x);
    let alias = net.ops("Alias", "test", "", &[reversed], 1)[0];
    let added = net.ops("AddOne", "test", "", &[alias], 1)[0];
    net.result(added);
    net.result(reversed);
    let plan = compile_plan(&net.model(&core));
    let mut state = plan.state();
    for k in 0..3 {
        let out = run(&plan, &mut state, &[Tensor::from_vec(&[4, 6], input(k)).unwrap()]);
        assert_eq!(out[0].to_vec::<f32>().unwrap(), reversed_plus_one(&input(k)), "run {k}");
        let want: Vec<f32> = input(k).chunks(6).rev().flatten().copied().collect();
        assert_eq!(out[1].to_vec::<f32>().unwrap(), want, "run {k}");
    }
    assert_eq!(counts.take(), (0, 3));
}

#[test]
fn an_in_place_step_with_a_constant_input_is_folded() {
    let (core, counts) = core();
    let mut net = Net::default();
    let x = net.constant("f32", &[1.0, 2.5]);
    let added = net.ops("AddOne", "test", "", &[x], 1)[0];
    net.result(added);
    let plan = compile_plan(&net.model(&core));
    assert_eq!(plan.step_count(), 0);
    assert_eq!(run(&plan, &mut plan.state(), &[]), vec![floats(&[2.0, 3.5])]);
    // Folding evaluates the op; it never runs in place.
    assert_eq!(counts.take().0, 0);
}
