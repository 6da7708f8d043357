//! ReverseSubsequences: the [`kernels::reverse_subsequences`] kernel, with
//! the lengths read and checked once at compile time when they are
//! constant and the data's type and shape are known.

use ovir_shape::ops::ReverseSubsequences;
use ovir_tensor::Tensor;

use crate::kernels::{self, CheckedSubsequenceLengths, KernelError};
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(ReverseSubsequences, plan);

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
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data, _] = exactly::<2>(ReverseSubsequences::TYPE, inputs)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, lengths] = exactly::<2>(ReverseSubsequences::TYPE, inputs)?;
        let (options, scratch) = (cx.options, cx.state.scratch::<kernels::ReverseSubsequencesScratch>()?);
        match &self.checked {
            Some(checked) => {
                kernels::reverse_subsequences_checked_into(data, checked, self.axis, out, options, scratch)
            }
            None => kernels::reverse_subsequences_into(data, lengths, self.axis, out, options, scratch),
        }
    }
}

#[cfg(test)]
mod tests {
    use ovir_shape::PortFact;
    use ovir_tensor::ElementType;

    use super::*;
    use crate::step::{run_planned, Arg};

    /// Runs the planned step on `data` with `lengths` given at run time.
    fn run(planned: &Planned, data: &Tensor, lengths: &Tensor) -> Tensor {
        run_planned(planned, &[data, lengths]).unwrap()
    }

    #[test]
    fn constant_lengths_are_read_when_the_model_compiles_and_not_again() {
        let op = ReverseSubsequences { axis: 1 };
        let data = Tensor::from_vec(&[1, 4, 2], vec![0i32, 1, 2, 3, 4, 5, 6, 7]).unwrap();
        let constant = Tensor::from_vec(&[1, 1, 2], vec![4u32, 2]).unwrap();
        let other = Tensor::from_vec(&[1, 1, 2], vec![0u32, 3]).unwrap();
        let by_constant = vec![6, 3, 4, 1, 2, 5, 0, 7];
        let by_other = vec![0, 5, 2, 3, 4, 1, 6, 7];
        // Lengths, type and shape known: the step keeps the constant's
        // counts and does not look at the lengths it is given.
        let known = plan(&op, &PlanContext::of_values(&[&data, &constant])).unwrap();
        assert_eq!(run(&known, &data, &other).to_vec::<i32>().unwrap(), by_constant);
        // The data's shape unknown: the lengths are read on every run.
        let fact = PortFact::of(ElementType::I32, "1,?,2".parse().unwrap());
        let args = vec![Arg { value: None, fact: Some(&fact) }, Arg { value: Some(&constant), fact: None }];
        let dynamic = plan(&op, &PlanContext { args, outputs: &[] }).unwrap();
        assert_eq!(run(&dynamic, &data, &other).to_vec::<i32>().unwrap(), by_other);
        // Lengths that do not pass are left to the run to report.
        let negative = Tensor::from_vec(&[1, 1, 2], vec![-1i32, 2]).unwrap();
        let refused = plan(&op, &PlanContext::of_values(&[&data, &negative])).unwrap();
        assert_eq!(run(&refused, &data, &constant).to_vec::<i32>().unwrap(), by_constant);
    }
}
