//! Roll: the [`kernels::roll`] kernel. With constant shifts and axes and
//! a static data shape the copy is worked out at compile time, and shifts
//! that move nothing pass the data through.

use ovir_shape::ops::Roll;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(Roll, plan);

pub(crate) fn plan(_op: &Roll, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let (Some(shape), Some(shift), Some(axes)) = (cx.shape(0), cx.value(1), cx.value(2)) else {
        return Ok(Planned::step(RollKernel));
    };
    let shifts = kernels::roll::shifts(&shape, shift, axes)?;
    if shifts.iter().all(|&s| s == 0) {
        return Ok(Planned::PassThrough);
    }
    Ok(Planned::step(FixedCopy { view: kernels::roll::layout(&shape, &shifts)?, general: RollKernel }))
}

/// A Roll whose shifts, axes or data shape are known only at run time.
#[derive(Debug)]
struct RollKernel;

impl Kernel for RollKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data, ..] = exactly::<3>("Roll", inputs)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, shift, axes] = exactly::<3>("Roll", inputs)?;
        kernels::roll_into(data, shift, axes, out, cx.options, cx.state.scratch::<kernels::RollScratch>()?)
    }
}
