//! The mutable side of running a plan: one per infer request.

use ovir_tensor::{ElementType, Tensor, DEFAULT_MAX_TENSOR_BYTES};

use crate::step::StepState;

/// The mutable side of running a plan: the value of every slot and a pool
/// of buffers to reuse. One state per concurrent inference; the plan
/// itself is shared.
#[derive(Debug)]
pub struct RunState {
    /// The value of every slot.
    pub(super) values: Vec<Option<Tensor>>,
    /// Free buffers, for steps to write their outputs into.
    pub(super) pool: Vec<Tensor>,
    /// Buffers released while something else still held them (a view of
    /// them, or a caller's clone of an output): they join the pool once
    /// they are free.
    waiting: Vec<Tensor>,
    /// Per step, what its kernel keeps between runs.
    pub(super) steps: Vec<StepState>,
    pub(super) threads: usize,
    pub(super) bytes_moved: usize,
    pub(super) max_tensor_bytes: u64,
    /// An empty tensor that a step reads in place of an input whose buffer
    /// one of its outputs took over.
    pub(super) vacant: Option<Tensor>,
    /// Per model input, the step that took over its buffer in the last
    /// run, until the input is set again.
    pub(super) handed_over: Vec<Option<usize>>,
}

impl RunState {
    /// A state with these slot values (the constants in place), room for
    /// `pool` buffers in the pool and `waiting` among the waiting ones,
    /// these step states, and `inputs` model inputs.
    pub(super) fn new(
        values: Vec<Option<Tensor>>,
        pool: usize,
        waiting: usize,
        steps: Vec<StepState>,
        inputs: usize,
    ) -> Self {
        RunState {
            values,
            pool: Vec::with_capacity(pool),
            waiting: Vec::with_capacity(waiting),
            steps,
            threads: 1,
            bytes_moved: 0,
            max_tensor_bytes: DEFAULT_MAX_TENSOR_BYTES,
            // No elements, so nothing to allocate but the one-entry shape.
            vacant: Tensor::zeros(ElementType::U8, &[0]).ok(),
            handed_over: vec![None; inputs],
        }
    }

    /// Keeps a buffer for reuse: in the pool when nothing else holds it,
    /// else among the buffers waiting for that. Both lists got their room
    /// when the state was made, so keeping allocates nothing. A full pool
    /// drops its oldest buffer for the new one: it fills up only when
    /// outputs sized at run time changed size, and then the old sizes are
    /// the ones less likely to come back. A buffer that finds no room
    /// among the waiting ones is dropped.
    pub(super) fn recycle(&mut self, t: Tensor) {
        if t.is_exclusive() {
            if self.pool.len() == self.pool.capacity() && !self.pool.is_empty() {
                self.pool.remove(0);
            }
            if self.pool.len() < self.pool.capacity() {
                self.pool.push(t);
            }
        } else if self.waiting.len() < self.waiting.capacity() {
            self.waiting.push(t);
        }
    }

    /// Moves the waiting buffers that nothing else holds any more to the
    /// pool.
    pub(super) fn promote(&mut self) {
        let mut i = 0;
        while i < self.waiting.len() {
            let free = self.waiting.get(i).is_some_and(Tensor::is_exclusive);
            if free && self.pool.len() < self.pool.capacity() {
                let t = self.waiting.swap_remove(i);
                self.pool.push(t);
            } else {
                i += 1;
            }
        }
    }

    /// The bytes the last run's steps moved: per step, its output, or its
    /// data (first) input when that is larger and has as many elements, so
    /// that a narrowing Convert counts what it reads while a Gather or
    /// Slice counts what it writes; a gather adds the indices it reads, and
    /// a scatter that updated its data in place counts its updates alone.
    /// Steps that passed their input through without copying count zero. For string tensors, only fixed-width
    /// data is counted.
    pub fn bytes_moved(&self) -> usize {
        self.bytes_moved
    }

    /// How many threads the kernels may use for large tensors.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Sets how many threads the kernels may use for large tensors (see
    /// [`ExecOptions`](crate::kernels::ExecOptions)). With more than one, a kernel whose output is large
    /// enough to split starts scoped threads for it on every run, and
    /// starting a thread allocates; the promise that a static-shape model
    /// allocates nothing after its first run holds for the calling thread
    /// alone, the default.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The most bytes any one value computed by a step may take
    /// ([`DEFAULT_MAX_TENSOR_BYTES`] unless set).
    pub fn max_tensor_bytes(&self) -> u64 {
        self.max_tensor_bytes
    }

    /// Sets the most bytes any one value computed by a step may take: a
    /// step whose output would be larger fails with
    /// [`RunError::OverLimit`](super::RunError::OverLimit) before allocating it.
    pub fn set_max_tensor_bytes(&mut self, limit: u64) {
        self.max_tensor_bytes = limit;
    }
}
