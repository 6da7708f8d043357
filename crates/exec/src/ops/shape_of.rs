//! ShapeOf: the [`kernels::shape_of`] kernel, for shapes known only at run
//! time (static ones are known to shape inference already).

use ovir_shape::ops::ShapeOf;
use ovir_tensor::{ElementType, Tensor};

use crate::kernels::{self, KernelError};
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(ShapeOf, plan);

pub(crate) fn plan(op: &ShapeOf, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::step(ShapeOfKernel { output_type: op.output_type }))
}

#[derive(Debug)]
struct ShapeOfKernel {
    output_type: ElementType,
}

impl Kernel for ShapeOfKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data] = exactly::<1>("ShapeOf", inputs)?;
        Ok(Output::Buffer(self.output_type, OutShape::Owned(smallvec::smallvec![data.rank()])))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        _cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data] = exactly::<1>("ShapeOf", inputs)?;
        kernels::shape_of_into(data, self.output_type, out)
    }
}
