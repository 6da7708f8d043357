//! GatherElements: the [`kernels::gather_elements`] kernel, with the
//! layout worked out at compile time when the shapes are static, and the
//! whole copy when the indices are constant too.

use ovir_shape::ops::GatherElements;
use ovir_tensor::Tensor;

use crate::kernels::{self, gather_elements::Layout, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::step::{exactly, fits, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(GatherElements, plan);

pub(crate) fn plan(op: &GatherElements, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let general = GatherElementsKernel { axis: op.axis };
    // A layout or copy that cannot be made keeps the general kernel, so
    // that the error shows when the model runs.
    let layout = match (cx.shape(0), cx.shape(1)) {
        (Some(d), Some(i)) => kernels::gather_elements::layout(&d, cx.element_type(1), &i, op.axis)
            .ok()
            .filter(|l| fits(l.shape())),
        _ => None,
    };
    let fixed = match (&layout, cx.value(1)) {
        (Some(layout), Some(indices)) => layout.fixed(indices).ok(),
        _ => None,
    };
    Ok(match (fixed, layout) {
        (Some(view), _) => Planned::step(FixedCopy { view, general }),
        (None, Some(layout)) => Planned::step(FixedGatherElements { general, layout }),
        (None, None) => Planned::step(general),
    })
}

/// A GatherElements worked out on every run.
#[derive(Debug)]
struct GatherElementsKernel {
    axis: i64,
}

impl Kernel for GatherElementsKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data, indices] = exactly::<2>("GatherElements", inputs)?;
        let shape = kernels::gather_elements_output_shape(data, indices, self.axis)?;
        Ok(Output::Buffer(data.element_type(), OutShape::owned(shape)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, indices] = exactly::<2>("GatherElements", inputs)?;
        let scratch = cx.state.scratch::<kernels::GatherElementsScratch>()?;
        kernels::gather_elements_into(data, indices, self.axis, out, cx.options, scratch)
    }
}

/// A GatherElements whose data and indices have static shapes; the indices
/// are read on every run.
#[derive(Debug)]
struct FixedGatherElements {
    general: GatherElementsKernel,
    layout: Layout,
}

impl Kernel for FixedGatherElements {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        match inputs {
            [data, indices] if self.layout.fits(data, indices) => {
                Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(self.layout.shape())))
            }
            _ => self.general.output(inputs, port),
        }
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        match inputs {
            [data, indices] if self.layout.fits(data, indices) => {
                let out = outputs.single()?;
                let scratch = cx.state.scratch::<kernels::GatherElementsScratch>()?;
                self.layout.run(data, indices, out, cx.options, scratch)
            }
            _ => self.general.run(inputs, outputs, cx),
        }
    }
}
