//! Gather: the [`kernels::gather`] kernel, with the layout worked out at
//! compile time when the axis is constant and the shapes static.

use ovir_shape::ops::Gather;
use ovir_tensor::Tensor;

use crate::kernels::{self, gather::Layout, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::ops::reverse;
use crate::step::{
    exactly, fits, input_bytes, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext,
};

planner!(Gather, plan);

pub(crate) fn plan(op: &Gather, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let general = GatherKernel { batch_dims: op.batch_dims };
    // A layout that cannot be made keeps the general kernel, so that any
    // error shows when the model runs, as it would without fixing.
    let layout = match (cx.shape(0), cx.shape(1), cx.value(2)) {
        (Some(d), Some(i), Some(axis)) => {
            kernels::gather::layout(&d, cx.element_type(1), &i, axis, op.batch_dims)
                .ok()
                .filter(|l| fits(l.shape()))
        }
        _ => None,
    };
    // Constant indices are read once: the Reverse they are, or their copy.
    // Indices that cannot be worked out keep the layout, so that the
    // error shows when the model runs.
    let fixed = match (&layout, cx.value(1)) {
        (Some(layout), Some(indices)) => layout.fixed(indices).ok(),
        _ => None,
    };
    Ok(match (fixed, layout) {
        (Some(kernels::gather::Fixed::Reverse(flags)), _) => reverse::fixed(flags),
        (Some(kernels::gather::Fixed::Copy(view)), _) => Planned::step(FixedCopy { view: *view, general }),
        (None, Some(layout)) => Planned::step(FixedGather { general, layout }),
        (None, None) => Planned::step(general),
    })
}

/// A Gather worked out on every run.
#[derive(Debug)]
struct GatherKernel {
    batch_dims: i64,
}

impl Kernel for GatherKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data, indices, axis] = exactly::<3>("Gather", inputs)?;
        let shape = kernels::gather_output_shape(data, indices, axis, self.batch_dims)?;
        Ok(Output::Buffer(data.element_type(), OutShape::owned(shape)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, indices, axis] = exactly::<3>("Gather", inputs)?;
        kernels::gather_into(
            data,
            indices,
            axis,
            self.batch_dims,
            out,
            cx.state.scratch::<kernels::GatherScratch>()?,
        )
    }

    fn index_bytes(&self, inputs: &[&Tensor]) -> usize {
        input_bytes(inputs, 1)
    }
}

/// A Gather whose axis is constant and whose data and indices have static
/// shapes; the indices are still read on every run.
#[derive(Debug)]
struct FixedGather {
    general: GatherKernel,
    layout: Layout,
}

impl Kernel for FixedGather {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        match inputs {
            [data, indices, _] if self.layout.fits(data, indices) => {
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
        let out = outputs.single()?;
        match inputs {
            [data, indices, _] if self.layout.fits(data, indices) => {
                self.layout.run(data, indices, out, cx.state.scratch::<kernels::GatherScratch>()?, cx.options)
            }
            _ => self.general.run(inputs, outputs, cx),
        }
    }

    fn index_bytes(&self, inputs: &[&Tensor]) -> usize {
        input_bytes(inputs, 1)
    }
}
