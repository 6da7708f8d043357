//! GatherTree: the [`kernels::gather_tree`] kernel, which walks the beams
//! on every run (constant folding runs it once when every input is a
//! constant).

use ovir_shape::ops::GatherTree;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(GatherTree, plan);

pub(crate) fn plan(_op: &GatherTree, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::step(GatherTreeKernel))
}

#[derive(Debug)]
struct GatherTreeKernel;

impl Kernel for GatherTreeKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [steps, parents, lengths, end] = exactly::<4>("GatherTree", inputs)?;
        kernels::gather_tree::check_inputs(steps, parents, lengths, end)?;
        Ok(Output::Buffer(steps.element_type(), OutShape::Borrowed(steps.shape())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        _cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [steps, parents, lengths, end] = exactly::<4>("GatherTree", inputs)?;
        kernels::gather_tree_into(steps, parents, lengths, end, out)
    }
}
