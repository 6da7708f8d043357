//! The step of an op whose copy was worked out at compile time for one
//! data shape: Slice, Broadcast and Transpose with constant arguments.

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
}
