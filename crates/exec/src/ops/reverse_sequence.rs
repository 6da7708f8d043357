//! ReverseSequence: the [`kernels::reverse_sequence`] kernel, with the
//! lengths read and checked once at compile time when they are constant
//! and the data's shape is known.

use ovir_shape::ops::ReverseSequence;
use ovir_tensor::Tensor;

use crate::kernels::{self, CheckedLengths, KernelError};
use crate::step::{exactly, Kernel, OutShape, Output, PlanContext, Planned, RunContext};

pub(crate) fn plan(op: &ReverseSequence, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::step(ReverseSequenceKernel { op: *op, checked: checked_lengths(op, cx) }))
}

/// The lengths, read and checked for the data's batch and sequence sizes,
/// when both the lengths and the data's shape are known before the model
/// runs. Lengths that do not pass are left to every run to report, as
/// lengths that arrive at run time are.
fn checked_lengths(op: &ReverseSequence, cx: &PlanContext<'_>) -> Option<CheckedLengths> {
    let (lengths, shape) = (cx.value(1)?, cx.shape(0)?);
    let size = |axis: i64| ovir_tensor::normalize_axis(axis, shape.len()).and_then(|a| shape.get(a).copied());
    CheckedLengths::new(lengths, size(op.batch_axis)?, size(op.seq_axis)?).ok().flatten()
}

#[derive(Debug)]
struct ReverseSequenceKernel {
    op: ReverseSequence,
    /// Constant lengths, read and checked when the model compiled; the
    /// lengths input is then not read again. `None` when they arrive at
    /// run time.
    checked: Option<CheckedLengths>,
}

impl Kernel for ReverseSequenceKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor]) -> Result<Output<'t>, KernelError> {
        let [data, _] = exactly::<2>("ReverseSequence", inputs)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(&self, inputs: &[&Tensor], out: &mut Tensor, cx: &mut RunContext<'_>) -> Result<(), KernelError> {
        let [data, lengths] = exactly::<2>("ReverseSequence", inputs)?;
        let ReverseSequence { batch_axis, seq_axis } = self.op;
        let (options, scratch) = (cx.options, &mut cx.state.scratch);
        match &self.checked {
            Some(checked) => kernels::reverse_sequence_checked_into(
                data, checked, batch_axis, seq_axis, out, options, scratch,
            ),
            None => {
                kernels::reverse_sequence_into(data, lengths, batch_axis, seq_axis, out, options, scratch)
            }
        }
    }
}
