//! Slice: the [`kernels::slice`] kernel. With constant bounds and a static
//! data shape it is worked out at compile time: a slice that only reverses
//! whole axes (PyTorch's `flip` is converted so) runs as a Reverse, one
//! whose output is a contiguous stretch of whole-byte data is a view of
//! it, and any other copies what `kernels::moves` describes.

use ovir_shape::ops::Slice;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::ops::fixed::{FixedCopy, FixedPart, Remake};
use crate::ops::reverse;
use crate::step::{Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(Slice, plan);

pub(crate) fn plan(_op: &Slice, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let bounds = (cx.shape(0), cx.value(1), cx.value(2), cx.value(3), cx.optional_value(4));
    let (Some(shape), Some(start), Some(stop), Some(step), Some(axes)) = bounds else {
        return Ok(Planned::step(SliceKernel));
    };
    Ok(match kernels::slice::fixed(&shape, start, stop, step, axes)? {
        kernels::slice::Fixed::Reverse(flags) => reverse::fixed(flags),
        kernels::slice::Fixed::Copy(copy) => Planned::step(FixedCopy { view: *copy, general: SliceKernel }),
        kernels::slice::Fixed::Part { data_shape, first, shape, copy } => {
            if cx.element_type(0).byte_width().is_some() {
                Planned::step(FixedPart { data_shape, first, shape, general: SliceKernel })
            } else {
                Planned::step(FixedCopy { view: *copy, general: SliceKernel })
            }
        }
    })
}

/// The data, start, stop, step and the optional axes.
type Inputs<'t> = (&'t Tensor, &'t Tensor, &'t Tensor, &'t Tensor, Option<&'t Tensor>);

fn split<'t>(inputs: &[&'t Tensor]) -> Result<Inputs<'t>, KernelError> {
    match *inputs {
        [data, start, stop, step] => Ok((data, start, stop, step, None)),
        [data, start, stop, step, axes] => Ok((data, start, stop, step, Some(axes))),
        _ => Err(KernelError::InputCount { op: "Slice", expected: 4, found: inputs.len() }),
    }
}

/// A Slice worked out on every run.
#[derive(Debug)]
struct SliceKernel;

impl Kernel for SliceKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let (data, start, stop, step, axes) = split(inputs)?;
        let shape = kernels::slice_output_shape(data, start, stop, step, axes)?;
        Ok(Output::Buffer(data.element_type(), OutShape::owned(shape)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let (data, start, stop, step, axes) = split(inputs)?;
        kernels::slice_into(data, start, stop, step, axes, out, cx.options)
    }
}

impl Remake for SliceKernel {
    const OP: &'static str = "Slice";

    fn remake(&self, inputs: &[&Tensor]) -> Result<Tensor, KernelError> {
        let (data, start, stop, step, axes) = split(inputs)?;
        kernels::slice(data, start, stop, step, axes)
    }
}
