//! ReverseSubsequences: the [`kernels::reverse_subsequences`] kernel.

use ovir_shape::ops::ReverseSubsequences;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::step::{exactly, Kernel, OutShape, Output, PlanContext, Planned, RunContext};

pub(crate) fn plan(op: &ReverseSubsequences, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::step(SubsequencesKernel { axis: op.axis }))
}

#[derive(Debug)]
struct SubsequencesKernel {
    axis: i64,
}

impl Kernel for SubsequencesKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor]) -> Result<Output<'t>, KernelError> {
        let [data, _] = exactly::<2>(ReverseSubsequences::TYPE, inputs)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(&self, inputs: &[&Tensor], out: &mut Tensor, cx: &mut RunContext<'_>) -> Result<(), KernelError> {
        let [data, lengths] = exactly::<2>(ReverseSubsequences::TYPE, inputs)?;
        kernels::reverse_subsequences_into(data, lengths, self.axis, out, cx.options, &mut cx.state.scratch)
    }
}
