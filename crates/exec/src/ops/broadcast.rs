//! Broadcast: the [`kernels::broadcast`] kernel, with the layout worked out
//! at compile time when the target shape is constant and the data shape
//! static.

use ovir_shape::ops::Broadcast;
use ovir_shape::BroadcastMode;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::step::{fits, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(Broadcast, plan);

pub(crate) fn plan(op: &Broadcast, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let general = BroadcastKernel { mode: op.mode };
    let layout = match (cx.shape(0), cx.value(1), cx.optional_value(2)) {
        (Some(d), Some(target), Some(mapping)) => {
            kernels::broadcast::layout(&d, target, mapping, op.mode).ok().filter(|l| fits(l.shape()))
        }
        _ => None,
    };
    Ok(match layout {
        Some(view) => Planned::step(FixedCopy { view, general }),
        None => Planned::step(general),
    })
}

/// The data, the target shape and the optional axes mapping.
fn split<'t>(inputs: &[&'t Tensor]) -> Result<(&'t Tensor, &'t Tensor, Option<&'t Tensor>), KernelError> {
    match inputs {
        [data, target] => Ok((data, target, None)),
        [data, target, mapping] => Ok((data, target, Some(mapping))),
        _ => Err(KernelError::InputCount { op: "Broadcast", expected: 2, found: inputs.len() }),
    }
}

/// A Broadcast worked out on every run.
#[derive(Debug)]
struct BroadcastKernel {
    mode: BroadcastMode,
}

impl Kernel for BroadcastKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let (data, target, mapping) = split(inputs)?;
        let shape = kernels::broadcast_output_shape(data, target, mapping, self.mode)?;
        Ok(Output::Buffer(data.element_type(), OutShape::owned(shape)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        _cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let (data, target, mapping) = split(inputs)?;
        kernels::broadcast_into(data, target, mapping, self.mode, out)
    }
}
