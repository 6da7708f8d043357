//! Running a plan's steps on one request's state.

use ovir_tensor::Tensor;

use super::{Plan, RunError, RunState, Step};
use crate::kernels::{ExecOptions, KernelError};
use crate::step::{Output, RunContext};

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
        for input in &self.inputs {
            if state.values.get(input.slot).is_none_or(Option::is_none) {
                return Err(RunError::InputNotSet { name: input.name.clone() });
            }
        }
        for step in self.steps.iter().filter(|s| !s.keep) {
            if let Some(old) = state.values.get_mut(step.output).and_then(Option::take) {
                // A view is dropped, which frees the buffer it shares.
                if !step.kernel.is_view() {
                    state.recycle(old);
                }
            }
        }
        state.promote();
        state.bytes_moved = 0;
        for (index, step) in self.steps.iter().enumerate() {
            if !(step.keep && Plan::kept_view_holds(step, state)) {
                let out = Plan::run_step(index, step, state)?;
                if let Some(v) = state.values.get_mut(step.output) {
                    *v = Some(out);
                }
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

    /// Whether the view a kept step made on an earlier run is still the
    /// view of its data input: the same storage, type and shapes.
    fn kept_view_holds(step: &Step, state: &RunState) -> bool {
        let Some((data_shape, shape)) = step.kernel.fixed_view() else { return false };
        let value = |s| state.values.get(s).and_then(Option::as_ref);
        match (value(step.output), step.inputs.first().and_then(|&s| value(s))) {
            (Some(view), Some(data)) => {
                view.shares_storage_with(data)
                    && view.element_type() == data.element_type()
                    && data.shape() == data_shape
                    && view.shape() == shape
            }
            _ => false,
        }
    }

    fn run_step(index: usize, step: &Step, state: &mut RunState) -> Result<Tensor, RunError> {
        let kernel_error = |source| RunError::Kernel { layer: step.layer.clone(), source: Box::new(source) };
        let RunState { values, pool, steps, bytes_moved, threads, max_tensor_bytes, .. } = state;
        let arg = |i: usize| step.inputs.get(i).and_then(|&s| values.get(s)).and_then(Option::as_ref);
        // The plan gives every step's inputs their values before it runs;
        // one left unset would be a bug in the plan.
        let unset = || {
            kernel_error(KernelError::Internal {
                op: "plan",
                what: "a step's input had no value when it ran",
            })
        };
        // Steps with few inputs (all but a wide Concat) gather them on the
        // stack, so that running a plan allocates nothing for them.
        let n = step.inputs.len();
        let data = arg(0).ok_or_else(unset)?;
        let mut inline = [data; 5];
        let spilled: Vec<&Tensor>;
        let args: &[&Tensor] = if n <= inline.len() {
            for (i, slot) in inline.iter_mut().enumerate().take(n) {
                *slot = arg(i).ok_or_else(unset)?;
            }
            &inline[..n]
        } else {
            spilled = (0..n).map(|i| arg(i).ok_or_else(unset)).collect::<Result<_, _>>()?;
            &spilled
        };
        let (ty, shape) = match step.kernel.output(args).map_err(kernel_error)? {
            // A view of the input, or a value the op made itself: nothing
            // to allocate.
            Output::Ready(value) => return Ok(value),
            Output::Buffer(ty, shape) => (ty, shape),
        };
        // A step that reads its data input whole, element for element
        // (Convert, Reverse, the sequence reversals), moves the larger of
        // that input and its output: a narrowing Convert reads more than it
        // writes. Any other step (Gather, Slice) may read only part of its
        // input, and counts its output.
        let written = Tensor::required_bytes(ty, &shape).ok().flatten().unwrap_or(0);
        let whole = data.len() == shape.iter().product::<usize>();
        let read = if whole { data.bytes().map_or(0, <[u8]>::len) } else { 0 };
        *bytes_moved += written.max(read);
        // The output's size is known before the kernel allocates anything.
        ovir_tensor::check_memory(ty, &shape, *max_tensor_bytes)
            .map_err(|source| RunError::OverLimit { layer: step.layer.clone(), source: Box::new(source) })?;
        let reusable =
            pool.iter().position(|t| t.element_type() == ty && t.shape() == &*shape && t.is_exclusive());
        let mut out = match reusable {
            Some(i) => pool.swap_remove(i),
            None => Tensor::zeros(ty, &shape).map_err(|e| kernel_error(e.into()))?,
        };
        let step_state = steps.get_mut(index).ok_or_else(|| {
            kernel_error(KernelError::Internal { op: "plan", what: "a step has no state in this request" })
        })?;
        // Even the first run goes through the step's state, so that the
        // runs after it find it grown.
        let options = ExecOptions::with_threads(*threads);
        let mut cx = RunContext { options: &options, state: step_state };
        step.kernel.run(args, &mut out, &mut cx).map_err(kernel_error)?;
        Ok(out)
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
