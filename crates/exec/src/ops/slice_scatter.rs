//! SliceScatter: the [`kernels::slice_scatter`] kernel. With constant
//! bounds and a static data shape, the region it replaces is worked out
//! when the model compiles, and a run reads no bounds.

use ovir_shape::ops::SliceScatter;
use ovir_tensor::Tensor;

use crate::kernels::slice_scatter::slice_scatter_in;
use crate::kernels::{self, KernelError, SliceRegion};
use crate::step::{Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(SliceScatter, plan);

pub(crate) fn plan(_op: &SliceScatter, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let bounds = (cx.shape(0), cx.value(2), cx.value(3), cx.value(4), cx.optional_value(5));
    let region = match bounds {
        (Some(shape), Some(start), Some(stop), Some(step), Some(axes)) => {
            // Bounds that do not pass are left to the run to report.
            SliceRegion::new(&shape, start, stop, step, axes).ok()
        }
        _ => None,
    };
    Ok(Planned::step(SliceScatterKernel { region }))
}

/// The data, updates, start, stop, step and the optional axes.
type Inputs<'t> = (&'t Tensor, &'t Tensor, &'t Tensor, &'t Tensor, &'t Tensor, Option<&'t Tensor>);

fn split<'t>(inputs: &[&'t Tensor]) -> Result<Inputs<'t>, KernelError> {
    match *inputs {
        [data, updates, start, stop, step] => Ok((data, updates, start, stop, step, None)),
        [data, updates, start, stop, step, axes] => Ok((data, updates, start, stop, step, Some(axes))),
        _ => Err(KernelError::InputCount { op: "SliceScatter", expected: 5, found: inputs.len() }),
    }
}

#[derive(Debug)]
struct SliceScatterKernel {
    /// The region for constant bounds and the static data shape, worked
    /// out when the model compiled.
    region: Option<SliceRegion>,
}

impl SliceScatterKernel {
    fn fixed(&self, data: &Tensor) -> Option<&SliceRegion> {
        self.region.as_ref().filter(|r| r.data_shape() == data.shape())
    }
}

impl Kernel for SliceScatterKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        // The output has the data's type and shape; the run checks the
        // rest.
        let (data, ..) = split(inputs)?;
        let shape = self.fixed(data).map_or(data.shape(), SliceRegion::data_shape);
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(shape)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let (data, updates, start, stop, step, axes) = split(inputs)?;
        let (data, out) = outputs.in_place(0, data)?.parts();
        let fixed =
            self.region.as_ref().filter(|r| data.map_or(out.shape(), Tensor::shape) == r.data_shape());
        match fixed {
            Some(region) => region.update(data, updates, out),
            None => {
                let scratch = cx.state.scratch::<kernels::SliceScatterScratch>()?;
                slice_scatter_in(data, updates, [start, stop, step], axes, out, scratch)
            }
        }
    }

    fn reuses_input(&self, port: usize) -> Option<usize> {
        (port == 0).then_some(0)
    }

    fn moved_in_place(&self, inputs: &[&Tensor], _port: usize) -> Option<usize> {
        inputs.get(1).map(|updates| updates.bytes().map_or(0, <[u8]>::len))
    }
}
