//! Slice: the [`kernels::slice`] kernel. With constant bounds and a static
//! data shape it is worked out at compile time: a slice that only reverses
//! whole axes (PyTorch's `flip` is converted so) runs as a Reverse, one
//! whose output is a contiguous stretch of whole-byte data is a view of
//! it, and any other copies what `kernels::moves` describes.

use ovir_shape::ops::Slice;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::ops::fixed::FixedCopy;
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
                Planned::step(SlicePart { data_shape, first, shape })
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

/// A Slice whose output is one contiguous stretch of whole-byte data: a
/// view of it, with nothing copied.
#[derive(Debug)]
struct SlicePart {
    data_shape: Vec<usize>,
    first: usize,
    shape: Vec<usize>,
}

impl Kernel for SlicePart {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let view = inputs
            .first()
            .filter(|data| data.shape() == self.data_shape.as_slice())
            .and_then(|data| data.elements_view(self.first, &self.shape));
        match view {
            Some(view) => Ok(Output::Ready(view)),
            // Data of another shape than the plan's: sliced as a new tensor.
            None => {
                let (data, start, stop, step, axes) = split(inputs)?;
                Ok(Output::Ready(kernels::slice(data, start, stop, step, axes)?))
            }
        }
    }

    fn run(&self, _: &[&Tensor], _: &mut Outputs<'_>, _: &mut RunContext<'_>) -> Result<(), KernelError> {
        Err(KernelError::Internal { op: "Slice", what: "a view was asked to fill a buffer" })
    }

    fn is_view(&self) -> bool {
        true
    }

    fn fixed_view(&self, _port: usize) -> Option<(&[usize], &[usize])> {
        Some((&self.data_shape, &self.shape))
    }

    fn view_first(&self, _port: usize) -> usize {
        self.first
    }
}
