//! ReverseSequence: the [`kernels::reverse_sequence`] kernel, with the
//! lengths read and checked once at compile time when they are constant
//! and the data's shape is known.

use ovir_shape::ops::ReverseSequence;
use ovir_tensor::Tensor;

use crate::kernels::{self, CheckedLengths, KernelError};
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(ReverseSequence, plan);

pub(crate) fn plan(op: &ReverseSequence, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::step(ReverseSequenceKernel { op: *op, checked: checked_lengths(op, cx) }))
}

/// The lengths, read and checked for the data's batch and sequence sizes,
/// when both the lengths and the data's shape are known before the model
/// runs. Lengths that do not pass are left to every run to report, as
/// lengths that arrive at run time are.
fn checked_lengths(op: &ReverseSequence, cx: &PlanContext<'_>) -> Option<CheckedLengths> {
    let (lengths, shape) = (cx.value(1)?, cx.shape(0)?);
    CheckedLengths::new(lengths, &shape, op.batch_axis, op.seq_axis).ok().flatten()
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
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data, _] = exactly::<2>("ReverseSequence", inputs)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, lengths] = exactly::<2>("ReverseSequence", inputs)?;
        let ReverseSequence { batch_axis, seq_axis } = self.op;
        let (options, scratch) = (cx.options, cx.state.scratch::<kernels::ReverseSequenceScratch>()?);
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
        let op = ReverseSequence { batch_axis: 0, seq_axis: 1 };
        let data = Tensor::from_vec(&[2, 4], vec![0i32, 1, 2, 3, 4, 5, 6, 7]).unwrap();
        let constant = Tensor::from_vec(&[2], vec![3i64, 4]).unwrap();
        let other = Tensor::from_vec(&[2], vec![0i64, 2]).unwrap();
        let by_constant = vec![2, 1, 0, 3, 7, 6, 5, 4];
        let by_other = vec![0, 1, 2, 3, 5, 4, 6, 7];
        // Lengths and shape known: the step keeps the constant's counts and
        // does not look at the lengths it is given.
        let known = plan(&op, &PlanContext::of_values(&[&data, &constant])).unwrap();
        assert_eq!(run(&known, &data, &other).to_vec::<i32>().unwrap(), by_constant);
        // The data's shape unknown: the lengths are read on every run.
        let fact = PortFact::of(ElementType::I32, "?,4".parse().unwrap());
        let args = vec![Arg { value: None, fact: Some(&fact) }, Arg { value: Some(&constant), fact: None }];
        let dynamic = plan(&op, &PlanContext { args, outputs: &[] }).unwrap();
        assert_eq!(run(&dynamic, &data, &other).to_vec::<i32>().unwrap(), by_other);
        // Lengths that do not pass are left to the run to report.
        let past = Tensor::from_vec(&[2], vec![5i64, 1]).unwrap();
        let refused = plan(&op, &PlanContext::of_values(&[&data, &past])).unwrap();
        assert_eq!(run(&refused, &data, &constant).to_vec::<i32>().unwrap(), by_constant);
    }
}
