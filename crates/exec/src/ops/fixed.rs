//! The steps of an op whose copy was worked out at compile time for one
//! data shape: Slice, Broadcast, Transpose and the like with constant
//! arguments ([`FixedCopy`]), and Slice and StridedSlice taking one
//! contiguous stretch of the data ([`FixedPart`]).

use std::fmt;

use ovir_tensor::Tensor;

use crate::kernels::moves::View;
use crate::kernels::KernelError;
use crate::step::{Kernel, OutShape, Output, Outputs, RunContext};

/// A copy (`kernels::moves::View`) worked out when the model compiled,
/// played on data of the shape it was made for; data of any other shape
/// goes to the op's `general` kernel, which works it out on the run.
#[derive(Debug)]
pub(crate) struct FixedCopy<G> {
    pub(crate) view: View,
    pub(crate) general: G,
}

impl<G: Kernel> Kernel for FixedCopy<G> {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        match inputs.first() {
            Some(data) if data.shape() == self.view.data_shape() => {
                Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(self.view.shape())))
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
        match inputs.first() {
            Some(data) if data.shape() == self.view.data_shape() => {
                self.view.run(data, outputs.single()?, cx.options)
            }
            _ => self.general.run(inputs, outputs, cx),
        }
    }

    fn index_bytes(&self, inputs: &[&Tensor]) -> usize {
        self.general.index_bytes(inputs)
    }
}

/// What makes an op's output anew from its inputs: the fallback of a
/// [`FixedPart`] given data of another shape than the plan's.
pub(crate) trait Remake: fmt::Debug + Send + Sync {
    /// The op's name, for errors.
    const OP: &'static str;

    /// The op's output for these inputs, as a new tensor.
    fn remake(&self, inputs: &[&Tensor]) -> Result<Tensor, KernelError>;
}

/// An output worked out at compile time to be one contiguous stretch of
/// whole-byte data: the `count(shape)` elements from element `first` on,
/// taken as a view of it with nothing copied, which a request keeps while
/// the data stays the same.
#[derive(Debug)]
pub(crate) struct FixedPart<R> {
    pub(crate) data_shape: Vec<usize>,
    pub(crate) first: usize,
    pub(crate) shape: Vec<usize>,
    pub(crate) general: R,
}

impl<R: Remake> Kernel for FixedPart<R> {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let view = inputs
            .first()
            .filter(|data| data.shape() == self.data_shape.as_slice())
            .and_then(|data| data.elements_view(self.first, &self.shape));
        match view {
            Some(view) => Ok(Output::Ready(view)),
            // Data of another shape than the plan's: made as a new tensor.
            None => Ok(Output::Ready(self.general.remake(inputs)?)),
        }
    }

    fn run(&self, _: &[&Tensor], _: &mut Outputs<'_>, _: &mut RunContext<'_>) -> Result<(), KernelError> {
        Err(KernelError::Internal { op: R::OP, what: "a view was asked to fill a buffer" })
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
