//! DepthToSpace and SpaceToDepth: the [`kernels::depth_to_space`]
//! kernels. With a static data shape the copy is worked out at compile
//! time; a block size of 1 passes the data through.

use ovir_shape::ops::{DepthToSpace, SpaceToDepth};
use ovir_tensor::Tensor;

use crate::kernels::depth_to_space::Blocks;
use crate::kernels::{self, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(DepthToSpace, plan_depth_to_space);
planner!(SpaceToDepth, plan_space_to_depth);

fn plan_depth_to_space(op: &DepthToSpace, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    plan(Blocks { to_depth: false, mode: op.mode, block_size: op.block_size }, cx)
}

fn plan_space_to_depth(op: &SpaceToDepth, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    plan(Blocks { to_depth: true, mode: op.mode, block_size: op.block_size }, cx)
}

fn plan(blocks: Blocks, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let Some(shape) = cx.shape(0) else {
        return Ok(Planned::step(BlocksKernel(blocks)));
    };
    // A block of one moves nothing, once the data's rank is checked.
    if blocks.block_size == 1 && blocks.output_shape(&shape)?.as_slice() == shape.as_slice() {
        return Ok(Planned::PassThrough);
    }
    Ok(Planned::step(FixedCopy { view: blocks.layout(&shape)?, general: BlocksKernel(blocks) }))
}

/// A DepthToSpace or SpaceToDepth whose data shape is known only at run
/// time.
#[derive(Debug)]
struct BlocksKernel(Blocks);

impl Kernel for BlocksKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data] = exactly::<1>(self.0.op(), inputs)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Owned(self.0.output_shape(data.shape())?)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data] = exactly::<1>(self.0.op(), inputs)?;
        let Blocks { to_depth, mode, block_size } = self.0;
        let scratch = cx.state.scratch::<kernels::DepthToSpaceScratch>()?;
        if to_depth {
            kernels::space_to_depth_into(data, mode, block_size, out, cx.options, scratch)
        } else {
            kernels::depth_to_space_into(data, mode, block_size, out, cx.options, scratch)
        }
    }
}
