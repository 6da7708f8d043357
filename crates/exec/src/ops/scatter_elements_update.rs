//! The step of ScatterElementsUpdate ([`crate::kernels::scatter_elements`]): the
//! inputs are checked and the indices read on every run; the working
//! memory stays in the step's [`ScatterElementsScratch`], so that runs on
//! inputs of the same sizes allocate nothing.

use ovir_shape::ops::ScatterElementsUpdate;
use ovir_tensor::Tensor;

use crate::kernels::{scatter_elements_update_into, KernelError, ScatterElementsScratch};
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(ScatterElementsUpdate, plan);

fn plan(op: &ScatterElementsUpdate, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::step(Step(*op)))
}

#[derive(Debug)]
struct Step(ScatterElementsUpdate);

impl Kernel for Step {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        // The output has the data's shape; the inputs are checked against
        // one another when the step runs.
        let &[data, ..] = exactly::<4>("ScatterElementsUpdate", inputs)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let &[data, indices, updates, axis] = exactly::<4>("ScatterElementsUpdate", inputs)?;
        let scratch = cx.state.scratch::<ScatterElementsScratch>()?;
        let op = self.0;
        scatter_elements_update_into(
            data,
            indices,
            updates,
            axis,
            op.reduction,
            op.use_init_val,
            out,
            cx.options,
            scratch,
        )
    }
}
