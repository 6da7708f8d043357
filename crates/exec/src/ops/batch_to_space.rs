//! BatchToSpace and SpaceToBatch: the [`kernels::batch_to_space`]
//! kernels. With constant block, crops or pads and a static data shape
//! the copy is worked out at compile time; blocks of 1 with nothing to
//! crop or pad pass the data through.

use ovir_shape::ops::{BatchToSpace, SpaceToBatch};
use ovir_tensor::Tensor;

use crate::kernels::batch_to_space::{op_name, BlockBatch};
use crate::kernels::{self, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(BatchToSpace, plan_batch_to_space);
planner!(SpaceToBatch, plan_space_to_batch);

fn plan_batch_to_space(_op: &BatchToSpace, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    plan(false, cx)
}

fn plan_space_to_batch(_op: &SpaceToBatch, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    plan(true, cx)
}

fn plan(to_batch: bool, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let general = BlockBatchKernel { to_batch };
    let (Some(shape), Some(block), Some(begin), Some(end)) =
        (cx.shape(0), cx.value(1), cx.value(2), cx.value(3))
    else {
        return Ok(Planned::step(general));
    };
    let (params, out) = BlockBatch::read(to_batch, &shape, block, begin, end)?;
    if params.moves_nothing() {
        return Ok(Planned::PassThrough);
    }
    Ok(Planned::step(FixedCopy { view: params.layout(&shape, &out)?, general }))
}

/// A BatchToSpace or SpaceToBatch whose block, crops, pads or data shape
/// is known only at run time.
#[derive(Debug)]
struct BlockBatchKernel {
    to_batch: bool,
}

impl Kernel for BlockBatchKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data, block, begin, end] = exactly::<4>(op_name(self.to_batch), inputs)?;
        let (_, shape) = BlockBatch::read(self.to_batch, data.shape(), block, begin, end)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Owned(shape)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, block, begin, end] = exactly::<4>(op_name(self.to_batch), inputs)?;
        let scratch = cx.state.scratch::<kernels::BatchToSpaceScratch>()?;
        if self.to_batch {
            kernels::space_to_batch_into(data, block, begin, end, out, cx.options, scratch)
        } else {
            kernels::batch_to_space_into(data, block, begin, end, out, cx.options, scratch)
        }
    }
}
