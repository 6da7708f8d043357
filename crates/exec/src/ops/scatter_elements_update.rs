//! The step of ScatterElementsUpdate ([`crate::kernels::scatter_elements`]): the
//! inputs are checked and the indices read on every run; the working
//! memory stays in the step's [`ScatterElementsScratch`], so that runs on
//! inputs of the same sizes allocate nothing.

use ovir_shape::ops::ScatterElementsUpdate;
use ovir_tensor::Tensor;

use crate::kernels::scatter_elements::scatter_elements_into;
use crate::kernels::{KernelError, ScatterElementsScratch};
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
        let &[data, indices, updates, axis] = exactly::<4>("ScatterElementsUpdate", inputs)?;
        let (data, out) = outputs.in_place(0, data)?.parts();
        let scratch = cx.state.scratch::<ScatterElementsScratch>()?;
        let op = self.0;
        scatter_elements_into(data, [indices, updates, axis], op.reduction, op.use_init_val, out, scratch)
    }

    fn reuses_input(&self, port: usize) -> Option<usize> {
        (port == 0).then_some(0)
    }

    fn moved_in_place(&self, inputs: &[&Tensor], _port: usize) -> Option<usize> {
        inputs.get(2).map(|updates| updates.bytes().map_or(0, <[u8]>::len))
    }
}
