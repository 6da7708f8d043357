//! GatherND: the [`kernels::gather_nd`] kernel, with the
//! layout worked out at compile time when the shapes are static, and the
//! whole copy when the indices are constant too.

use ovir_shape::ops::GatherNd;
use ovir_tensor::Tensor;

use crate::kernels::{self, gather_nd::Layout, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::step::{exactly, fits, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(GatherNd, plan);

pub(crate) fn plan(op: &GatherNd, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let general = GatherNdKernel { batch_dims: op.batch_dims, version: op.version };
    // A layout or copy that cannot be made keeps the general kernel, so
    // that the error shows when the model runs.
    let layout = match (cx.shape(0), cx.shape(1)) {
        (Some(d), Some(i)) => {
            kernels::gather_nd::layout(&d, cx.element_type(1), &i, op.batch_dims, op.version)
                .ok()
                .filter(|l| fits(l.shape()))
        }
        _ => None,
    };
    let fixed = match (&layout, cx.value(1)) {
        (Some(layout), Some(indices)) => layout.fixed(indices).ok(),
        _ => None,
    };
    Ok(match (fixed, layout) {
        (Some(view), _) => Planned::step(FixedCopy { view, general }),
        (None, Some(layout)) => Planned::step(FixedGatherNd { general, layout }),
        (None, None) => Planned::step(general),
    })
}

/// A GatherND worked out on every run.
#[derive(Debug)]
struct GatherNdKernel {
    batch_dims: u64,
    version: u32,
}

impl Kernel for GatherNdKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data, indices] = exactly::<2>("GatherND", inputs)?;
        let shape = kernels::gather_nd_output_shape(data, indices, self.batch_dims, self.version)?;
        Ok(Output::Buffer(data.element_type(), OutShape::owned(shape)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, indices] = exactly::<2>("GatherND", inputs)?;
        let scratch = cx.state.scratch::<kernels::GatherNdScratch>()?;
        kernels::gather_nd_into(data, indices, self.batch_dims, self.version, out, cx.options, scratch)
    }
}

/// A GatherND whose data and indices have static shapes; the indices
/// are read on every run.
#[derive(Debug)]
struct FixedGatherNd {
    general: GatherNdKernel,
    layout: Layout,
}

impl Kernel for FixedGatherNd {
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
                let scratch = cx.state.scratch::<kernels::GatherNdScratch>()?;
                self.layout.run(data, indices, out, cx.options, scratch)
            }
            _ => self.general.run(inputs, outputs, cx),
        }
    }
}
