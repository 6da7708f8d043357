//! What a plan step runs: the [`Kernel`] an op's executor module makes of
//! one layer, and what the module is given to make it.
//!
//! A kernel has one output per output port of its layer. Before it runs,
//! it describes each ([`Output`]): a buffer of known type and shape, a
//! value already made, or a buffer it sizes itself once it runs. Its
//! [`Kernel::run`] then fills all of them through [`Outputs`], which hands
//! out the buffers taken ahead, gives the others from the request's pool
//! ([`Outputs::allocate`]), and tells an output that may be computed in
//! place from a dying input ([`Kernel::reuses_input`]) whether it took
//! over that input's buffer ([`Outputs::in_place`]). Extension ops see the
//! same through [`OutputSlots`]. [`prepare`] and [`evaluate`] are the
//! shared halves of running a step in a plan and of folding it.

use std::any::Any;
use std::fmt;
use std::ops::Deref;

use ovir_shape::{CustomOpState, ExtensionError, InPlace, OutputSlots, PortFact};
use ovir_tensor::{ElementType, Tensor, TensorError};

use crate::kernels::{ExecOptions, KernelError};

/// An output shape, borrowed from the kernel or the data when it is known
/// ahead, or worked out for this run (on the stack up to rank 8).
#[derive(Debug)]
pub(crate) enum OutShape<'t> {
    /// The data's shape, or one the plan worked out at compile time.
    Borrowed(&'t [usize]),
    /// One worked out for this run.
    Owned(smallvec::SmallVec<[usize; 8]>),
}

impl OutShape<'_> {
    pub(crate) fn owned(shape: Vec<usize>) -> Self {
        OutShape::Owned(smallvec::SmallVec::from_vec(shape))
    }
}

impl Deref for OutShape<'_> {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        match self {
            OutShape::Borrowed(s) => s,
            OutShape::Owned(s) => s,
        }
    }
}

/// What a step produces at one output port for given inputs.
#[derive(Debug)]
pub(crate) enum Output<'t> {
    /// A buffer of this type and shape, which the plan takes (from the
    /// request's pool when one fits) before [`Kernel::run`] fills it.
    Buffer(ElementType, OutShape<'t>),
    /// The output itself, already made: a view of the data input, which
    /// shares its storage, or a value an extension op allocated itself.
    /// When every output is ready, nothing more runs.
    Ready(Tensor),
    /// Sized only when the kernel runs (its sizes follow from input
    /// values): [`Kernel::run`] asks for the buffer once it knows them
    /// ([`Outputs::allocate`]), or hands over a made tensor
    /// ([`Outputs::set`]).
    Later,
}

/// What one infer request keeps for one step between runs.
#[derive(Debug, Default)]
pub(crate) struct StepState {
    /// What the step's kernel keeps between calls, of the type its op
    /// chose (a `ReverseSequenceScratch`, say), held type-erased so that
    /// an op with a new kind of scratch changes nothing here. Made on the
    /// first run that asks for it ([`StepState::scratch`]), then kept.
    scratch: Option<Box<dyn Any + Send + Sync>>,
    /// The state an extension op asked for, if any.
    pub(crate) custom: Option<Box<dyn CustomOpState>>,
}

impl StepState {
    /// A state holding an extension op's own, `custom`.
    pub(crate) fn with_custom(custom: Option<Box<dyn CustomOpState>>) -> StepState {
        StepState { scratch: None, custom }
    }

    /// The scratch the step's kernel keeps, as its own type `T`: made
    /// empty on the first call (or should an earlier call have kept
    /// another type), and the same from then on, so that a request
    /// running the step again allocates nothing for it.
    pub(crate) fn scratch<T: Default + Send + Sync + 'static>(&mut self) -> Result<&mut T, KernelError> {
        if !self.scratch.as_ref().is_some_and(|kept| kept.is::<T>()) {
            self.scratch = Some(Box::<T>::default());
        }
        self.scratch.as_mut().and_then(|kept| kept.downcast_mut::<T>()).ok_or(KernelError::Internal {
            op: "plan",
            what: "a step's scratch is not of the type just stored",
        })
    }
}

/// What a kernel may use while it runs.
pub(crate) struct RunContext<'s> {
    /// How many threads it may use.
    pub(crate) options: &'s ExecOptions,
    /// What the request keeps for this step.
    pub(crate) state: &'s mut StepState,
}

/// The outputs of one step while its kernel runs: one slot per output
/// port, in port order, and the request's pool of free buffers for the
/// outputs sized at run time.
///
/// A port described as [`Output::Buffer`] has its buffer when the kernel
/// runs; one described as [`Output::Later`] gets it from
/// [`Outputs::allocate`] or [`Outputs::set`]; a port the plan let take over
/// an input's buffer is reached through [`Outputs::in_place`]. After the
/// kernel, every port must hold a value.
pub(crate) struct Outputs<'r> {
    /// The step's own value slots.
    slots: &'r mut [Option<Tensor>],
    /// Free buffers to take outputs sized at run time from.
    pool: &'r mut Vec<Tensor>,
    /// The most bytes one output may take.
    limit: u64,
    /// Bit `k`: port `k` took over the buffer of the input it may reuse.
    reused: u64,
    /// An allocation refused for the memory limit, to report as such.
    refused: Option<TensorError>,
    /// Bytes of the buffers given out by [`Outputs::allocate`].
    allocated: usize,
}

impl<'r> Outputs<'r> {
    /// The outputs in `slots`, taking run-time buffers from `pool`, none
    /// over `limit` bytes; bit `k` of `reused` marks a port that holds its
    /// input's buffer.
    pub(crate) fn new(
        slots: &'r mut [Option<Tensor>],
        pool: &'r mut Vec<Tensor>,
        limit: u64,
        reused: u64,
    ) -> Self {
        Outputs { slots, pool, limit, reused, refused: None, allocated: 0 }
    }

    /// The number of output ports.
    pub(crate) fn count(&self) -> usize {
        self.slots.len()
    }

    /// The buffer of output `port`, which the plan took before the kernel
    /// ran (or an earlier call gave).
    pub(crate) fn get(&mut self, port: usize) -> Result<&mut Tensor, KernelError> {
        self.slots.get_mut(port).and_then(Option::as_mut).ok_or(KernelError::Internal {
            op: "plan",
            what: "a kernel asked for an output that has no buffer",
        })
    }

    /// The buffers of the first three outputs at once, for a kernel that
    /// writes them together.
    pub(crate) fn three(&mut self) -> Result<[&mut Tensor; 3], KernelError> {
        self.three_from(0)
    }

    /// The buffers of outputs `first` to `first + 2` at once.
    pub(crate) fn three_from(&mut self, first: usize) -> Result<[&mut Tensor; 3], KernelError> {
        let missing =
            KernelError::Internal { op: "plan", what: "a kernel asked for outputs that have no buffer" };
        let ports = [first, first + 1, first + 2];
        let [a, b, c] = self.slots.get_disjoint_mut(ports).map_err(|_| missing.clone())?;
        match (a.as_mut(), b.as_mut(), c.as_mut()) {
            (Some(a), Some(b), Some(c)) => Ok([a, b, c]),
            _ => Err(missing),
        }
    }

    /// The buffer of the only output; the usual call of a single-output
    /// kernel.
    pub(crate) fn single(&mut self) -> Result<&mut Tensor, KernelError> {
        self.get(0)
    }

    /// Whether some output took over the buffer of an input, which the
    /// kernel then sees as an empty stand-in.
    pub(crate) fn any_reused(&self) -> bool {
        self.reused != 0
    }

    /// Whether output `port` has a value.
    pub(crate) fn is_set(&self, port: usize) -> bool {
        self.slots.get(port).is_some_and(Option::is_some)
    }

    /// A buffer of this type and shape for output `port`, checked against
    /// the memory limit first, then taken from the pool when one is free
    /// there, else allocated; it replaces whatever the port held.
    pub(crate) fn allocate(
        &mut self,
        port: usize,
        ty: ElementType,
        shape: &[usize],
    ) -> Result<&mut Tensor, KernelError> {
        if port >= self.slots.len() {
            return Err(KernelError::Internal {
                op: "plan",
                what: "a kernel asked for an output port it lacks",
            });
        }
        if let Err(e) = ovir_tensor::check_memory(ty, shape, self.limit) {
            self.refused = Some(e.clone());
            return Err(KernelError::Tensor(e));
        }
        let buffer = take_buffer(self.pool, ty, shape)?;
        self.allocated += Tensor::required_bytes(ty, shape).ok().flatten().unwrap_or(0);
        let slot = self.slots.get_mut(port).ok_or(KernelError::Internal {
            op: "plan",
            what: "a kernel asked for an output port it lacks",
        })?;
        Ok(slot.insert(buffer))
    }

    /// Hands over output `port`, made by the kernel.
    pub(crate) fn set(&mut self, port: usize, value: Tensor) -> Result<(), KernelError> {
        let slot = self
            .slots
            .get_mut(port)
            .ok_or(KernelError::Internal { op: "plan", what: "a kernel set an output port it lacks" })?;
        *slot = Some(value);
        Ok(())
    }

    /// Output `port`, which the kernel may compute in place from `input`
    /// ([`Kernel::reuses_input`]): the input's own buffer when the plan
    /// moved it in (then `input` is an empty stand-in), else a buffer of
    /// its own.
    pub(crate) fn in_place<'s, 'i>(
        &'s mut self,
        port: usize,
        input: &'i Tensor,
    ) -> Result<InPlace<'s, 'i>, KernelError> {
        let reused = port < 64 && self.reused & (1 << port) != 0;
        let output = self.get(port)?;
        Ok(if reused { InPlace::Reused(output) } else { InPlace::Fresh { input, output } })
    }

    /// Checks that the kernel left every port a value, and reports an
    /// allocation it was refused for the memory limit as such.
    pub(crate) fn finish(self, ran: Result<(), KernelError>) -> Result<usize, StepError> {
        if let Some(e) = self.refused {
            return Err(StepError::OverLimit(e));
        }
        ran.map_err(StepError::Kernel)?;
        if self.slots.iter().any(Option::is_none) {
            return Err(StepError::Kernel(KernelError::Internal {
                op: "plan",
                what: "a kernel left an output without a value",
            }));
        }
        Ok(self.allocated)
    }
}

impl OutputSlots for Outputs<'_> {
    fn count(&self) -> usize {
        Outputs::count(self)
    }

    fn buffer(&mut self, port: usize) -> Option<&mut Tensor> {
        self.slots.get_mut(port).and_then(Option::as_mut)
    }

    fn allocate(
        &mut self,
        port: usize,
        ty: ElementType,
        shape: &[usize],
    ) -> Result<&mut Tensor, ExtensionError> {
        Outputs::allocate(self, port, ty, shape).map_err(|e| ExtensionError::new(e.to_string()))
    }

    fn set(&mut self, port: usize, value: Tensor) -> Result<(), ExtensionError> {
        Outputs::set(self, port, value).map_err(|e| ExtensionError::new(e.to_string()))
    }

    fn in_place<'s, 'i>(
        &'s mut self,
        port: usize,
        input: &'i Tensor,
    ) -> Result<InPlace<'s, 'i>, ExtensionError> {
        Outputs::in_place(self, port, input).map_err(|e| ExtensionError::new(e.to_string()))
    }
}

/// Why a step failed: its kernel refused, or an output would be larger
/// than the memory limit (nothing that large was allocated).
#[derive(Debug)]
pub(crate) enum StepError {
    Kernel(KernelError),
    OverLimit(TensorError),
}

impl From<KernelError> for StepError {
    fn from(e: KernelError) -> Self {
        StepError::Kernel(e)
    }
}

/// A buffer of this type and shape: a free one from `pool`, else a new one.
pub(crate) fn take_buffer(
    pool: &mut Vec<Tensor>,
    ty: ElementType,
    shape: &[usize],
) -> Result<Tensor, KernelError> {
    let free = pool.iter().position(|t| t.element_type() == ty && t.shape() == shape && t.is_exclusive());
    match free {
        Some(i) => Ok(pool.swap_remove(i)),
        None => Ok(Tensor::zeros(ty, shape)?),
    }
}

/// How one layer runs: made once by the op's executor module when the
/// model compiles, then run by every infer request.
///
/// A kernel is immutable and shared: whatever it needs to remember between
/// runs lives in the [`StepState`] each request keeps for it.
///
/// A kernel has as many outputs as its layer (one for most ops). For each
/// it says what the step produces ([`Kernel::output`]); [`Kernel::run`]
/// then fills them all at once.
pub(crate) trait Kernel: fmt::Debug + Send + Sync {
    /// What the step produces at output `port` for these inputs: the type
    /// and shape of the buffer [`Kernel::run`] fills, a view of the data
    /// input, or a buffer sized only when the kernel runs. Inputs of the
    /// types and shapes the kernel was made for cost nothing here; any
    /// others are checked as the op's rules require. A kernel with one
    /// output is asked only for port 0.
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError>;

    /// Computes into `outputs`, whose buffers have the types and shapes
    /// [`Kernel::output`] gave and are owned by the step alone. On one
    /// thread, and once the state has grown, nothing is allocated (a
    /// buffer [`Outputs::allocate`] gives comes from the pool when the
    /// sizes repeat).
    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError>;

    /// The input whose buffer output `port` may take over (same element
    /// type and shape), for a kernel that computes that output in place;
    /// `None` by default. The plan grants it only where that input dies
    /// at this step; the kernel then learns on each run from
    /// [`Outputs::in_place`] whether it got that buffer.
    ///
    /// The plan also grants a model input that this step reads last, so
    /// that a caller who hands over the only reference to it (a KV cache
    /// updated by a scatter) has it updated in place. Should the kernel
    /// fail, the buffer goes back to that input: a kernel that reuses an
    /// input checks everything before it writes.
    fn reuses_input(&self, port: usize) -> Option<usize> {
        let _ = port;
        None
    }

    /// The bytes of indices the step reads besides its data, which the
    /// bytes it moves count with its output: a gather's index tensor. 0
    /// by default.
    fn index_bytes(&self, inputs: &[&Tensor]) -> usize {
        let _ = inputs;
        0
    }

    /// The bytes the step moves when output `port` took over its input's
    /// buffer ([`Kernel::reuses_input`]), when that is less than the
    /// output: a scatter writes only its updates. `None` (the default)
    /// counts the whole output.
    fn moved_in_place(&self, inputs: &[&Tensor], port: usize) -> Option<usize> {
        let _ = (inputs, port);
        None
    }

    /// A new state for one request.
    fn state(&self) -> StepState {
        StepState::default()
    }

    /// `true` when the output is always a view of the data input (it shares
    /// its storage), so that it holds no buffer of its own.
    fn is_view(&self) -> bool {
        false
    }

    /// For a view whose shapes were worked out at compile time: the data
    /// shape it was made for, and the shape of the view at output `port`.
    /// A request keeps the views of an unchanged input from one run to the
    /// next when every port of the step has one.
    fn fixed_view(&self, port: usize) -> Option<(&[usize], &[usize])> {
        let _ = port;
        None
    }

    /// For a [`Kernel::fixed_view`]: the element of the data the view at
    /// output `port` starts at (0 for a reshape, the first element taken
    /// for a slice or a part of a split).
    fn view_first(&self, port: usize) -> usize {
        let _ = port;
        0
    }
}

/// An output port that may take over the buffer of an input: granted by
/// the plan where the kernel asks for it ([`Kernel::reuses_input`]) and
/// that input dies at the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reuse {
    /// The output port.
    pub(crate) port: usize,
    /// The input whose buffer it may take.
    pub(crate) input: usize,
    /// When that input is a model input, its index among the plan's
    /// inputs: taking its buffer leaves the input unset until the caller
    /// sets it again.
    pub(crate) model_input: Option<usize>,
}

/// What [`prepare`] found.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// `false` when every output was ready and the kernel need not run.
    pub(crate) runs: bool,
    /// Bit `k`: port `k` is to take over its input's buffer, which the
    /// caller moves in.
    pub(crate) reused: u64,
}

/// Takes (or leaves for the kernel) the buffer of every output port in
/// `slots` as the kernel describes them. No buffer over `limit` bytes is
/// allocated; `moved` adds the bytes the step moves (see
/// [`RunState::bytes_moved`](crate::RunState::bytes_moved)). A port of
/// `reuse` whose buffer has the type and shape of its input, when that
/// input is held by nothing else, takes no buffer here: it is marked to
/// take over the input's.
pub(crate) fn prepare(
    kernel: &dyn Kernel,
    inputs: &[&Tensor],
    slots: &mut [Option<Tensor>],
    pool: &mut Vec<Tensor>,
    limit: u64,
    reuse: &[Reuse],
    moved: &mut usize,
) -> Result<Prepared, StepError> {
    let mut prepared = Prepared { runs: false, reused: 0 };
    for (port, slot) in slots.iter_mut().enumerate() {
        let (ty, shape) = match kernel.output(inputs, port)? {
            // A view of the input, or a value the op made itself: nothing
            // to allocate.
            Output::Ready(value) => {
                *slot = Some(value);
                continue;
            }
            Output::Later => {
                prepared.runs = true;
                continue;
            }
            Output::Buffer(ty, shape) => (ty, shape),
        };
        prepared.runs = true;
        // A step that reads its data input whole, element for element
        // (Convert, Reverse, the sequence reversals), moves the larger of
        // that input and its output: a narrowing Convert reads more than it
        // writes. Any other step (Gather, Slice) may read only part of its
        // input, and counts its output.
        let written = Tensor::required_bytes(ty, &shape).ok().flatten().unwrap_or(0);
        let read = match inputs.first() {
            Some(data) if data.len() == shape.iter().product::<usize>() => {
                data.bytes().map_or(0, <[u8]>::len)
            }
            _ => 0,
        };
        let takes_over = reuse.iter().filter(|r| r.port == port && port < 64).any(|r| {
            inputs
                .get(r.input)
                .is_some_and(|t| t.element_type() == ty && t.shape() == &*shape && t.is_exclusive())
        });
        if takes_over {
            *moved += kernel.moved_in_place(inputs, port).unwrap_or(written);
            prepared.reused |= 1 << port;
            continue;
        }
        *moved += written.max(read);
        // The output's size is known before anything is allocated.
        ovir_tensor::check_memory(ty, &shape, limit).map_err(StepError::OverLimit)?;
        *slot = Some(take_buffer(pool, ty, &shape)?);
    }
    if prepared.runs {
        *moved += kernel.index_bytes(inputs);
    }
    Ok(prepared)
}

/// The bytes of input `k` (0 when it has none, or holds strings).
pub(crate) fn input_bytes(inputs: &[&Tensor], k: usize) -> usize {
    inputs.get(k).and_then(|t| t.bytes()).map_or(0, <[u8]>::len)
}

/// Runs `kernel` once into new tensors, one per output port, on the
/// calling thread with a fresh state: what constant folding does. No
/// output over `limit` bytes is allocated.
pub(crate) fn evaluate(
    kernel: &dyn Kernel,
    inputs: &[&Tensor],
    ports: usize,
    limit: u64,
) -> Result<Vec<Tensor>, StepError> {
    let mut slots: Vec<Option<Tensor>> = vec![None; ports];
    let mut pool = Vec::new();
    if prepare(kernel, inputs, &mut slots, &mut pool, limit, &[], &mut 0)?.runs {
        let mut state = kernel.state();
        let options = ExecOptions::single_thread();
        let mut outputs = Outputs::new(&mut slots, &mut pool, limit, 0);
        let ran = kernel.run(inputs, &mut outputs, &mut RunContext { options: &options, state: &mut state });
        outputs.finish(ran)?;
    }
    Ok(slots.into_iter().flatten().collect())
}

/// What an op's executor module makes of a layer.
#[derive(Debug)]
pub(crate) enum Planned {
    /// A model input (a Parameter).
    Input,
    /// A value known before the model runs (a Const).
    Constant(Tensor),
    /// A model output (a Result), which reads its input.
    Output,
    /// The output is the data input itself: no step runs (a Reverse with
    /// nothing to reverse).
    PassThrough,
    /// A step that runs this kernel.
    Step(Box<dyn Kernel>),
}

impl Planned {
    /// A step of this kernel.
    pub(crate) fn step(kernel: impl Kernel + 'static) -> Planned {
        Planned::Step(Box::new(kernel))
    }
}

/// What is known of one input of a layer being planned.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arg<'a> {
    /// The value, when known before the model runs.
    pub(crate) value: Option<&'a Tensor>,
    /// What shape inference knows of it.
    pub(crate) fact: Option<&'a PortFact>,
}

/// What an op's executor module is told about the layer it plans: what is
/// known of each input, and what shape inference said of the outputs.
#[derive(Debug)]
pub(crate) struct PlanContext<'a> {
    pub(crate) args: Vec<Arg<'a>>,
    /// What shape inference said of every output, in port order (empty
    /// when not known).
    pub(crate) outputs: &'a [PortFact],
}

impl<'a> PlanContext<'a> {
    /// A context in which every input is known: for computing a value once.
    pub(crate) fn of_values(values: &[&'a Tensor]) -> PlanContext<'a> {
        PlanContext {
            args: values.iter().map(|&v| Arg { value: Some(v), fact: None }).collect(),
            outputs: &[],
        }
    }

    /// The number of inputs.
    pub(crate) fn len(&self) -> usize {
        self.args.len()
    }

    /// The value of input `i`, when it is known before the model runs.
    pub(crate) fn value(&self, i: usize) -> Option<&'a Tensor> {
        self.args.get(i).and_then(|a| a.value)
    }

    /// Input `i`'s value when it is known, `Some(None)` when the layer has
    /// no input `i`, and `None` when it has one whose value is not known.
    pub(crate) fn optional_value(&self, i: usize) -> Option<Option<&'a Tensor>> {
        if i < self.len() {
            self.value(i).map(Some)
        } else {
            Some(None)
        }
    }

    /// The element type of input `i`, `dynamic` when not known.
    pub(crate) fn element_type(&self, i: usize) -> ElementType {
        match self.args.get(i) {
            Some(Arg { value: Some(v), .. }) => v.element_type(),
            Some(Arg { fact: Some(f), .. }) => f.element_type,
            _ => ElementType::Dynamic,
        }
    }

    /// The rank of input `i`, when known.
    pub(crate) fn rank(&self, i: usize) -> Option<usize> {
        match self.args.get(i) {
            Some(Arg { value: Some(v), .. }) => Some(v.rank()),
            Some(Arg { fact: Some(f), .. }) => f.shape.rank(),
            _ => None,
        }
    }

    /// The shape of input `i` when it is static and a tensor of it can
    /// exist (its element count fits a `usize`). A Parameter may declare a
    /// shape no tensor can have; working out a layout for it would
    /// overflow, so kernels are only fixed for shapes that pass here.
    pub(crate) fn shape(&self, i: usize) -> Option<Vec<usize>> {
        let shape = match self.args.get(i) {
            Some(Arg { value: Some(v), .. }) => Some(v.shape().to_vec()),
            Some(Arg { fact: Some(f), .. }) => f.shape.to_static(),
            _ => None,
        };
        shape.filter(|s| fits(s))
    }
}

/// Whether a tensor of this shape can exist: its element count fits a
/// `usize`.
pub(crate) fn fits(shape: &[usize]) -> bool {
    ovir_tensor::element_count(shape).is_some()
}

/// The inputs of a kernel that takes exactly `N`; a plan checked the
/// count, so another count means the kernel was given the wrong inputs.
pub(crate) fn exactly<'a, 'b, const N: usize>(
    op: &'static str,
    inputs: &'a [&'b Tensor],
) -> Result<&'a [&'b Tensor; N], KernelError> {
    inputs.try_into().map_err(|_| KernelError::InputCount { op, expected: N, found: inputs.len() })
}

/// Runs a planned step once on `inputs`, on one thread with a fresh state,
/// for the tests of the ops' executor modules: its first output.
#[cfg(test)]
pub(crate) fn run_planned(planned: &Planned, inputs: &[&Tensor]) -> Result<Tensor, KernelError> {
    let Planned::Step(kernel) = planned else {
        return Err(KernelError::Internal { op: "test", what: "no step was planned" });
    };
    let outputs = evaluate(kernel.as_ref(), inputs, 1, u64::MAX).map_err(|e| match e {
        StepError::Kernel(e) => e,
        StepError::OverLimit(e) => KernelError::Tensor(e),
    })?;
    outputs.into_iter().next().ok_or(KernelError::Internal { op: "test", what: "no output" })
}
