//! Reverse: the [`kernels::reverse`] kernel, with the axes read once at
//! compile time when they are constant.

use ovir_shape::ops::Reverse;
use ovir_shape::ReverseMode;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

/// Reverse flags for axes that arrive at run time, on the stack for ranks
/// up to 8 so that reading them allocates nothing.
type Flags = smallvec::SmallVec<[bool; 8]>;

planner!(Reverse, plan);

pub(crate) fn plan(op: &Reverse, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    match (cx.value(1), cx.rank(0)) {
        (Some(axes), Some(rank)) => Ok(fixed(ovir_shape::reversed_axes(op.mode, axes, rank)?)),
        _ => Ok(Planned::step(RuntimeAxes { mode: op.mode })),
    }
}

/// A reversal whose flags are known before the model runs: nothing to
/// reverse passes the data through with no step at all.
pub(crate) fn fixed(flags: Vec<bool>) -> Planned {
    if flags.contains(&true) {
        Planned::step(FixedAxes { flags })
    } else {
        Planned::PassThrough
    }
}

/// A Reverse whose axes arrive at run time.
#[derive(Debug)]
struct RuntimeAxes {
    mode: ReverseMode,
}

impl Kernel for RuntimeAxes {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data, _] = exactly::<2>("Reverse", inputs)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, axes] = exactly::<2>("Reverse", inputs)?;
        let mut flags: Flags = smallvec::smallvec![false; data.rank()];
        ovir_shape::reversed_axes_into(self.mode, axes, &mut flags)?;
        kernels::reverse_into(data, &flags, out, cx.options, cx.state.scratch::<kernels::ReverseScratch>()?)
    }
}

/// A reversal of axes fixed at compile time: from a Reverse with constant
/// axes, or a Slice that only reverses whole axes.
#[derive(Debug)]
struct FixedAxes {
    flags: Vec<bool>,
}

impl Kernel for FixedAxes {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let data = inputs.first().ok_or(KernelError::InputCount { op: "Reverse", expected: 2, found: 0 })?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let data = inputs.first().ok_or(KernelError::InputCount { op: "Reverse", expected: 2, found: 0 })?;
        kernels::reverse_into(
            data,
            &self.flags,
            out,
            cx.options,
            cx.state.scratch::<kernels::ReverseScratch>()?,
        )
    }
}
