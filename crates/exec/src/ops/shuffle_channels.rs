//! ShuffleChannels: the [`kernels::shuffle_channels`] kernel. With a
//! static data shape the copy is worked out at compile time; one group,
//! or one channel per group, passes the data through.

use ovir_shape::ops::ShuffleChannels;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(ShuffleChannels, plan);

pub(crate) fn plan(op: &ShuffleChannels, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let general = ShuffleChannelsKernel { axis: op.axis, group: op.group };
    let Some(shape) = cx.shape(0) else {
        return Ok(Planned::step(general));
    };
    let axis = kernels::shuffle_channels::checked_axis(&shape, op.axis, op.group)?;
    if op.group == 1 || shape.get(axis).is_some_and(|&n| n as u64 == op.group) {
        return Ok(Planned::PassThrough);
    }
    Ok(Planned::step(FixedCopy {
        view: kernels::shuffle_channels::layout(&shape, op.axis, op.group)?,
        general,
    }))
}

/// A ShuffleChannels whose data shape is known only at run time.
#[derive(Debug)]
struct ShuffleChannelsKernel {
    axis: i64,
    group: u64,
}

impl Kernel for ShuffleChannelsKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data] = exactly::<1>("ShuffleChannels", inputs)?;
        kernels::shuffle_channels::checked_axis(data.shape(), self.axis, self.group)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data] = exactly::<1>("ShuffleChannels", inputs)?;
        let scratch = cx.state.scratch::<kernels::ShuffleChannelsScratch>()?;
        kernels::shuffle_channels_into(data, self.axis, self.group, out, cx.options, scratch)
    }
}
