//! Convert: the [`kernels::convert`] kernel.

use ovir_shape::ops::Convert;
use ovir_tensor::{ElementType, Tensor};

use crate::kernels::{self, KernelError};
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(Convert, plan);

pub(crate) fn plan(op: &Convert, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::step(ConvertKernel { to: op.to }))
}

#[derive(Debug)]
struct ConvertKernel {
    to: ElementType,
}

impl Kernel for ConvertKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data] = exactly::<1>("Convert", inputs)?;
        Ok(Output::Buffer(self.to, OutShape::Borrowed(data.shape())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data] = exactly::<1>("Convert", inputs)?;
        kernels::convert_into(data, self.to, out, cx.options)
    }
}
