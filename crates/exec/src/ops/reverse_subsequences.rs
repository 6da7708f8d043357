//! ReverseSubsequences: the [`kernels::reverse_subsequences`] kernel, with
//! the lengths read and checked once at compile time when they are
//! constant and the data's type and shape are known.

use ovir_shape::ops::ReverseSubsequences;
use ovir_tensor::Tensor;

use crate::kernels::{self, CheckedSubsequenceLengths, KernelError};
use crate::step::{exactly, Kernel, OutShape, Output, PlanContext, Planned, RunContext};

pub(crate) fn plan(op: &ReverseSubsequences, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::step(SubsequencesKernel { axis: op.axis, checked: checked_lengths(op, cx) }))
}

/// The lengths, read and checked for the data's type and shape, when the
/// lengths and the data's type and shape are known before the model runs.
/// Lengths that do not pass are left to every run to report, as lengths
/// that arrive at run time are.
fn checked_lengths(op: &ReverseSubsequences, cx: &PlanContext<'_>) -> Option<CheckedSubsequenceLengths> {
    let (lengths, shape, ty) = (cx.value(1)?, cx.shape(0)?, cx.element_type(0));
    CheckedSubsequenceLengths::new(lengths, ty, &shape, op.axis).ok().flatten()
}

#[derive(Debug)]
struct SubsequencesKernel {
    axis: i64,
    /// Constant lengths, read and checked when the model compiled; the
    /// lengths input is then not read again. `None` when they arrive at
    /// run time.
    checked: Option<CheckedSubsequenceLengths>,
}

impl Kernel for SubsequencesKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor]) -> Result<Output<'t>, KernelError> {
        let [data, _] = exactly::<2>(ReverseSubsequences::TYPE, inputs)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(&self, inputs: &[&Tensor], out: &mut Tensor, cx: &mut RunContext<'_>) -> Result<(), KernelError> {
        let [data, lengths] = exactly::<2>(ReverseSubsequences::TYPE, inputs)?;
        let (options, scratch) = (cx.options, &mut cx.state.scratch);
        match &self.checked {
            Some(checked) => {
                kernels::reverse_subsequences_checked_into(data, checked, self.axis, out, options, scratch)
            }
            None => kernels::reverse_subsequences_into(data, lengths, self.axis, out, options, scratch),
        }
    }
}
