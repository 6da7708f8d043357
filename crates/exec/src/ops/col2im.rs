//! Col2Im: the [`kernels::col2im`] kernel. With the data shape static and
//! the output and kernel sizes constant, the geometry is worked out (and
//! checked) at compile time; otherwise every run works it out from the
//! inputs, allocating nothing.

use ovir_shape::ops::Col2Im;
use ovir_tensor::Tensor;
use smallvec::SmallVec;

use crate::kernels::col2im::Layout;
use crate::kernels::KernelError;
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(Col2Im, plan);

pub(crate) fn plan(op: &Col2Im, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let fixed = match (cx.shape(0), cx.value(1), cx.value(2)) {
        (Some(shape), Some(output_size), Some(kernel_size)) => {
            Some(Layout::of(op, &shape, output_size, kernel_size)?)
        }
        _ => None,
    };
    Ok(Planned::step(Col2ImKernel { op: *op, fixed }))
}

/// A Col2Im, its geometry fixed when it could be worked out at compile
/// time.
#[derive(Debug)]
struct Col2ImKernel {
    op: Col2Im,
    /// The geometry for the data shape the plan was made for.
    fixed: Option<Layout>,
}

impl Col2ImKernel {
    /// The geometry for these inputs: the fixed one when the data has the
    /// shape it was made for, else worked out now.
    fn layout(&self, inputs: &[&Tensor]) -> Result<Layout, KernelError> {
        let [data, output_size, kernel_size] = exactly::<3>("Col2Im", inputs)?;
        match self.fixed {
            Some(layout) if layout.data_shape() == data.shape() => Ok(layout),
            _ => Layout::of(&self.op, data.shape(), output_size, kernel_size),
        }
    }
}

impl Kernel for Col2ImKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let ty = inputs.first().map(|d| d.element_type()).ok_or(KernelError::InputCount {
            op: "Col2Im",
            expected: 3,
            found: 0,
        })?;
        let shape = match &self.fixed {
            Some(layout) if inputs.first().is_some_and(|d| layout.data_shape() == d.shape()) => {
                OutShape::Borrowed(layout.shape())
            }
            _ => OutShape::Owned(SmallVec::from_slice(self.layout(inputs)?.shape())),
        };
        Ok(Output::Buffer(ty, shape))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let layout = self.layout(inputs)?;
        let [data, ..] = exactly::<3>("Col2Im", inputs)?;
        layout.run(data, out, cx.options)
    }
}
