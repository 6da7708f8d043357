//! ReverseSequence: the [`kernels::reverse_sequence`] kernel.

use ovir_shape::ops::ReverseSequence;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::step::{exactly, Kernel, OutShape, Output, PlanContext, Planned, RunContext};

pub(crate) fn plan(op: &ReverseSequence, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::step(ReverseSequenceKernel { op: *op }))
}

#[derive(Debug)]
struct ReverseSequenceKernel {
    op: ReverseSequence,
}

impl Kernel for ReverseSequenceKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor]) -> Result<Output<'t>, KernelError> {
        let [data, _] = exactly::<2>("ReverseSequence", inputs)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(&self, inputs: &[&Tensor], out: &mut Tensor, cx: &mut RunContext<'_>) -> Result<(), KernelError> {
        let [data, lengths] = exactly::<2>("ReverseSequence", inputs)?;
        let ReverseSequence { batch_axis, seq_axis } = self.op;
        kernels::reverse_sequence_into(
            data,
            lengths,
            batch_axis,
            seq_axis,
            out,
            cx.options,
            &mut cx.state.scratch,
        )
    }
}
