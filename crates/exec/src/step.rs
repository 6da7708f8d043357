//! What a plan step runs: the [`Kernel`] an op's executor module makes of
//! one layer, and what the module is given to make it.

use std::fmt;
use std::ops::Deref;

use ovir_shape::{CustomOpState, PortFact};
use ovir_tensor::{ElementType, Tensor};

use crate::kernels::{ExecOptions, KernelError, Scratch};

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

/// What a step produces for given inputs.
#[derive(Debug)]
pub(crate) enum Output<'t> {
    /// A buffer of this type and shape, which [`Kernel::run`] fills.
    Buffer(ElementType, OutShape<'t>),
    /// The output itself, already made: a view of the data input, which
    /// shares its storage, or a value an extension op allocated itself.
    /// Nothing more runs.
    Ready(Tensor),
}

/// What one infer request keeps for one step between runs.
#[derive(Debug, Default)]
pub(crate) struct StepState {
    /// Buffers the kernels keep between calls (see [`Scratch`]).
    pub(crate) scratch: Scratch,
    /// The state an extension op asked for, if any.
    pub(crate) custom: Option<Box<dyn CustomOpState>>,
}

/// What a kernel may use while it runs.
pub(crate) struct RunContext<'s> {
    /// How many threads it may use.
    pub(crate) options: &'s ExecOptions,
    /// What the request keeps for this step.
    pub(crate) state: &'s mut StepState,
}

/// How one layer runs: made once by the op's executor module when the
/// model compiles, then run by every infer request.
///
/// A kernel is immutable and shared: whatever it needs to remember between
/// runs lives in the [`StepState`] each request keeps for it.
pub(crate) trait Kernel: fmt::Debug + Send + Sync {
    /// What the step produces for these inputs: the type and shape of the
    /// buffer [`Kernel::run`] fills, or a view of the data input. Inputs of
    /// the types and shapes the kernel was made for cost nothing here; any
    /// others are checked as the op's rules require.
    fn output<'t>(&'t self, inputs: &[&'t Tensor]) -> Result<Output<'t>, KernelError>;

    /// Computes into `out`, which has the type and shape [`Kernel::output`]
    /// gave and is owned by the caller alone. On one thread, and once the
    /// state has grown, nothing is allocated.
    fn run(&self, inputs: &[&Tensor], out: &mut Tensor, cx: &mut RunContext<'_>) -> Result<(), KernelError>;

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
    /// shape it was made for, and the view's shape. A request keeps such a
    /// view of an unchanged input from one run to the next.
    fn fixed_view(&self) -> Option<(&[usize], &[usize])> {
        None
    }
}

/// Runs `kernel` once into a new tensor, on the calling thread with a
/// fresh state: what constant folding does.
pub(crate) fn evaluate(kernel: &dyn Kernel, inputs: &[&Tensor]) -> Result<Tensor, KernelError> {
    match kernel.output(inputs)? {
        Output::Ready(value) => Ok(value),
        Output::Buffer(ty, shape) => {
            let mut out = Tensor::zeros(ty, &shape)?;
            let mut state = kernel.state();
            let options = ExecOptions::single_thread();
            kernel.run(inputs, &mut out, &mut RunContext { options: &options, state: &mut state })?;
            Ok(out)
        }
    }
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
/// known of each input, and what shape inference said of the output.
#[derive(Debug)]
pub(crate) struct PlanContext<'a> {
    pub(crate) args: Vec<Arg<'a>>,
    pub(crate) output: Option<&'a PortFact>,
}

impl<'a> PlanContext<'a> {
    /// A context in which every input is known: for computing a value once.
    pub(crate) fn of_values(values: &[&'a Tensor]) -> PlanContext<'a> {
        PlanContext {
            args: values.iter().map(|&v| Arg { value: Some(v), fact: None }).collect(),
            output: None,
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
/// for the tests of the ops' executor modules.
#[cfg(test)]
pub(crate) fn run_planned(planned: &Planned, inputs: &[&Tensor]) -> Result<Tensor, KernelError> {
    let Planned::Step(kernel) = planned else {
        return Err(KernelError::Internal { op: "test", what: "no step was planned" });
    };
    let (ty, shape) = match kernel.output(inputs)? {
        Output::Buffer(ty, shape) => (ty, shape.to_vec()),
        Output::Ready(tensor) => return Ok(tensor),
    };
    let mut out = Tensor::zeros(ty, &shape)?;
    let mut state = StepState::default();
    let mut cx = RunContext { options: &ExecOptions::single_thread(), state: &mut state };
    kernel.run(inputs, &mut out, &mut cx)?;
    Ok(out)
}
