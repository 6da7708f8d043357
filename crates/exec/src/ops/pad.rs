//! Pad: the [`kernels::pad`] kernel. With constant pads and a static data
//! shape the copy is worked out at compile time, and pads of zero pass
//! the data through.

use ovir_shape::ops::pad::PadMode;
use ovir_shape::ops::Pad;
use ovir_tensor::Tensor;

use crate::kernels::moves::View;
use crate::kernels::{self, KernelError, PadScratch};
use crate::step::{Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(Pad, plan);

pub(crate) fn plan(op: &Pad, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let mode = op.mode;
    let (Some(shape), Some(begins), Some(ends)) = (cx.shape(0), cx.value(1), cx.value(2)) else {
        return Ok(Planned::step(PadKernel { mode, fixed: None }));
    };
    let (out, pads) = kernels::pad::output(mode, &shape, begins, ends)?;
    if pads.iter().all(|&p| p == (0, 0)) {
        return Ok(Planned::PassThrough);
    }
    let fill_is_zero = cx.len() < 4;
    let view = kernels::pad::layout(mode, &shape, &pads, &out, fill_is_zero)?;
    Ok(Planned::step(PadKernel { mode, fixed: Some(view) }))
}

/// A Pad: its copy worked out at compile time for one data shape, or on
/// the run for pads or shapes known only then.
#[derive(Debug)]
struct PadKernel {
    mode: PadMode,
    fixed: Option<View>,
}

impl PadKernel {
    /// The view worked out at compile time, when it fits this data.
    fn fixed_for(&self, data: &Tensor) -> Option<&View> {
        self.fixed.as_ref().filter(|view| view.data_shape() == data.shape())
    }
}

/// Pad's inputs: data, pads before and after, and the optional value.
fn inputs<'t>(
    inputs: &[&'t Tensor],
) -> Result<(&'t Tensor, &'t Tensor, &'t Tensor, Option<&'t Tensor>), KernelError> {
    match *inputs {
        [data, begins, ends] => Ok((data, begins, ends, None)),
        [data, begins, ends, value] => Ok((data, begins, ends, Some(value))),
        _ => Err(KernelError::InputCount { op: "Pad", expected: 3, found: inputs.len() }),
    }
}

impl Kernel for PadKernel {
    fn output<'t>(&'t self, inputs_: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let (data, begins, ends, _) = inputs(inputs_)?;
        if let Some(view) = self.fixed_for(data) {
            return Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(view.shape())));
        }
        let (shape, _) = kernels::pad::output(self.mode, data.shape(), begins, ends)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Owned(shape)))
    }

    fn run(
        &self,
        inputs_: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let (data, begins, ends, value) = inputs(inputs_)?;
        let scratch = cx.state.scratch::<PadScratch>()?;
        match self.fixed_for(data) {
            Some(view) => {
                kernels::pad::play(view, self.mode, data, value, out, cx.options, &mut scratch.zero)
            }
            None => kernels::pad_into(data, begins, ends, value, self.mode, out, cx.options, scratch),
        }
    }
}
