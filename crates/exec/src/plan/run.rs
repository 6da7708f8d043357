//! Running a plan's steps on one request's state.

use ovir_tensor::Tensor;

use super::{Plan, RunError, RunState, Slot, Step};
use crate::kernels::{ExecOptions, KernelError};
use crate::step::{prepare, Outputs, RunContext, StepError};

impl Plan {
    /// Runs one inference on the inputs stored in `state`.
    ///
    /// Buffers are recycled: an intermediate value's buffer returns to the
    /// state's pool after its last reader (once no view of it is left),
    /// and the previous run's outputs return to it when this run starts
    /// (once the caller no longer holds a clone of them). A later step
    /// whose output has the same type and shape takes its buffer from the
    /// pool, and a view of an input is kept while the input stays the same,
    /// so a model with static shapes allocates nothing after its first run
    /// but for the views (Reshape, Squeeze, Unsqueeze) of values computed
    /// on every run: a tensor owns its shape, so making such a view
    /// allocates a copy of the shape.
    pub fn run_state(&self, state: &mut RunState) -> Result<(), RunError> {
        for (k, input) in self.inputs.iter().enumerate() {
            if state.values.get(input.slot).is_none_or(Option::is_none) {
                let name = input.name.clone();
                let by = state.handed_over.get(k).copied().flatten().and_then(|s| self.steps.get(s));
                return Err(match by {
                    Some(step) => RunError::InputHandedOver { name, layer: step.layer.clone() },
                    None => RunError::InputNotSet { name },
                });
            }
        }
        for step in self.steps.iter().filter(|s| !s.keep) {
            for slot in step.output..step.output + step.ports {
                if let Some(old) = state.values.get_mut(slot).and_then(Option::take) {
                    // A view is dropped, which frees the buffer it shares.
                    if !step.kernel.is_view() {
                        state.recycle(old);
                    }
                }
            }
        }
        state.promote();
        state.bytes_moved = 0;
        for (index, step) in self.steps.iter().enumerate() {
            if !(step.keep && Plan::kept_view_holds(step, state)) {
                Plan::run_step(index, step, state)?;
            }
            for &s in &step.discard {
                if let Some(v) = state.values.get_mut(s) {
                    *v = None;
                }
            }
            for &s in &step.release {
                if let Some(old) = state.values.get_mut(s).and_then(Option::take) {
                    state.recycle(old);
                }
            }
            if !(step.release.is_empty() && step.discard.is_empty()) {
                state.promote();
            }
        }
        Ok(())
    }

    /// Whether the views a kept step made on an earlier run, one per output
    /// port, are still views of its data input: the same storage, type and
    /// shapes.
    fn kept_view_holds(step: &Step, state: &RunState) -> bool {
        let value = |s| state.values.get(s).and_then(Option::as_ref);
        let Some(data) = step.inputs.first().and_then(|&s| value(s)) else { return false };
        (0..step.ports).all(|port| {
            let Some((data_shape, shape)) = step.kernel.fixed_view(port) else { return false };
            value(step.output + port).is_some_and(|view| {
                view.is_view_of(data, step.kernel.view_first(port))
                    && view.element_type() == data.element_type()
                    && data.shape() == data_shape
                    && view.shape() == shape
            })
        })
    }

    /// Runs one step: describes its outputs, takes their buffers, moves in
    /// the inputs whose buffers outputs take over, and runs the kernel,
    /// which leaves its outputs in the step's slots.
    fn run_step(index: usize, step: &Step, state: &mut RunState) -> Result<(), RunError> {
        let kernel_error = |source| RunError::Kernel { layer: step.layer.clone(), source: Box::new(source) };
        let step_error = |e| match e {
            StepError::Kernel(source) => kernel_error(source),
            StepError::OverLimit(source) => {
                RunError::OverLimit { layer: step.layer.clone(), source: Box::new(source) }
            }
        };
        let RunState {
            values, pool, steps, bytes_moved, threads, max_tensor_bytes, vacant, handed_over, ..
        } = state;
        // The plan gives every step's inputs their values before it runs,
        // and a step never reads its own outputs; anything else would be a
        // bug in the plan.
        let internal = |what| kernel_error(KernelError::Internal { op: "plan", what });
        let first = step.output;
        let end = first.checked_add(step.ports).filter(|&e| e <= values.len());
        let end = end.ok_or_else(|| internal("a step's outputs lie past the slots"))?;
        // The step's own slots, apart from those its inputs are read from.
        let (before, rest) = values.split_at_mut(first);
        let (outs, after) = rest.split_at_mut(end - first);
        let prepared = {
            let args = Args::gather(&step.inputs, before, after, first, end, None)
                .ok_or_else(|| internal("a step's input had no value when it ran"))?;
            prepare(step.kernel.as_ref(), args.get(), outs, pool, *max_tensor_bytes, &step.reuse, bytes_moved)
                .map_err(step_error)?
        };
        if !prepared.runs {
            return Ok(());
        }
        // Outputs that take over a dying input's buffer: the input moves
        // into the output, and the kernel sees an empty stand-in for it.
        let mut moved = 0u64;
        // Grants are only made for ports and inputs below 64.
        for r in
            step.reuse.iter().filter(|r| r.port < 64 && r.input < 64 && prepared.reused & (1 << r.port) != 0)
        {
            let source = step.inputs.get(r.input).and_then(|&s| around(before, after, first, end, s));
            if let (Some(value), Some(out)) = (source.and_then(Option::take), outs.get_mut(r.port)) {
                *out = Some(value);
                moved |= 1 << r.input;
                if let Some(handed) = r.model_input.and_then(|k| handed_over.get_mut(k)) {
                    *handed = Some(index);
                }
            }
        }
        let stand_in = match vacant {
            Some(vacant) if moved != 0 => Some((moved, &*vacant)),
            None if moved != 0 => return Err(internal("a request has no stand-in for a moved input")),
            _ => None,
        };
        let args = Args::gather(&step.inputs, before, after, first, end, stand_in)
            .ok_or_else(|| internal("a step's input had no value when it ran"))?;
        let step_state =
            steps.get_mut(index).ok_or_else(|| internal("a step has no state in this request"))?;
        // Even the first run goes through the step's state, so that the
        // runs after it find it grown.
        let options = ExecOptions::with_threads(*threads);
        let mut cx = RunContext { options: &options, state: step_state };
        let mut outputs = Outputs::new(outs, pool, *max_tensor_bytes, prepared.reused);
        let ran = step.kernel.run(args.get(), &mut outputs, &mut cx);
        let finished = outputs.finish(ran);
        drop(args);
        match finished {
            Ok(moved) => {
                *bytes_moved += moved;
                Ok(())
            }
            Err(e) => {
                // A model input whose buffer the failed step took goes back
                // to the input: the kernel checked its inputs before
                // writing, so the caller's values are intact.
                for r in step.reuse.iter().filter(|r| r.input < 64 && moved & (1 << r.input) != 0) {
                    let Some(k) = r.model_input else { continue };
                    let value = outs.get_mut(r.port).and_then(Option::take);
                    let slot = step.inputs.get(r.input).and_then(|&s| around(before, after, first, end, s));
                    if let (Some(value), Some(slot)) = (value, slot) {
                        *slot = Some(value);
                        if let Some(handed) = handed_over.get_mut(k) {
                            *handed = None;
                        }
                    }
                }
                Err(step_error(e))
            }
        }
    }

    /// Runs one inference: `inputs` in the order of [`Plan::inputs`];
    /// returns the outputs in the order of [`Plan::outputs`]. A convenience
    /// over [`Plan::state`] and [`Plan::run_state`] for a single run.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RunError> {
        if inputs.len() != self.inputs.len() {
            return Err(RunError::InputCount { expected: self.inputs.len(), found: inputs.len() });
        }
        let mut state = self.state();
        for (i, t) in inputs.iter().enumerate() {
            self.set_input(&mut state, i, t.clone())?;
        }
        self.run_state(&mut state)?;
        Ok((0..self.outputs.len()).filter_map(|i| self.output(&state, i).cloned()).collect())
    }
}

/// Slot `s`, which lies `before` a step's outputs (which start at
/// `first`) or `after` them (from `end`).
fn around<'v>(
    before: &'v mut [Option<Tensor>],
    after: &'v mut [Option<Tensor>],
    first: Slot,
    end: Slot,
    s: Slot,
) -> Option<&'v mut Option<Tensor>> {
    if s < first {
        before.get_mut(s)
    } else {
        after.get_mut(s.checked_sub(end)?)
    }
}

/// A step's inputs, gathered on the stack for steps with few of them (all
/// but a wide Concat; SliceScatter with its axes has six), so that running
/// a plan allocates nothing for them.
enum Args<'v> {
    Inline([&'v Tensor; 8], usize),
    Spilled(Vec<&'v Tensor>),
}

impl<'v> Args<'v> {
    /// The values of `inputs`, read from the slots `before` the step's
    /// outputs (which start at `first`) and those `after` them (from
    /// `end`). Inputs marked in `stand_in`'s bits (input `i` by bit `i`)
    /// read the stand-in instead. `None` when an input has no value.
    fn gather(
        inputs: &[Slot],
        before: &'v [Option<Tensor>],
        after: &'v [Option<Tensor>],
        first: Slot,
        end: Slot,
        stand_in: Option<(u64, &'v Tensor)>,
    ) -> Option<Args<'v>> {
        let arg = |i: usize| -> Option<&'v Tensor> {
            if let Some((marked, vacant)) = stand_in {
                if i < 64 && marked & (1 << i) != 0 {
                    return Some(vacant);
                }
            }
            let s = *inputs.get(i)?;
            let value = if s < first { before.get(s) } else { after.get(s.checked_sub(end)?) };
            value?.as_ref()
        };
        let n = inputs.len();
        let data = arg(0)?;
        let mut inline = [data; 8];
        if n <= inline.len() {
            for (i, slot) in inline.iter_mut().enumerate().take(n).skip(1) {
                *slot = arg(i)?;
            }
            Some(Args::Inline(inline, n))
        } else {
            (0..n).map(arg).collect::<Option<_>>().map(Args::Spilled)
        }
    }

    fn get(&self) -> &[&'v Tensor] {
        match self {
            Args::Inline(inline, n) => inline.get(..*n).unwrap_or(&[]),
            Args::Spilled(all) => all,
        }
    }
}
