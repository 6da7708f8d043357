//! The kernels of Reshape, Squeeze and Unsqueeze: the output is a view of
//! the data, sharing its storage, so nothing is copied.

use ovir_tensor::Tensor;

use crate::kernels::reshape::{self, View};
use crate::kernels::KernelError;
use crate::step::{Kernel, Output, Outputs, PlanContext, Planned, RunContext};

/// The step for `view`: with the data shape static and the second input
/// constant, the output shape is worked out now.
pub(crate) fn plan(view: View, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let fixed = match (cx.shape(0), cx.optional_value(1)) {
        (Some(d), Some(arg)) => reshape::view_shape(view, &d, arg).ok().map(|s| (d, s)),
        _ => None,
    };
    Ok(match fixed {
        Some((data_shape, shape)) => Planned::step(FixedView { view, data_shape, shape }),
        None => Planned::step(ViewKernel { view }),
    })
}

/// A view whose shape is worked out on every run.
#[derive(Debug)]
struct ViewKernel {
    view: View,
}

impl Kernel for ViewKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let op = self.view.name();
        let data = inputs.first().ok_or(KernelError::InputCount { op, expected: 2, found: 0 })?;
        Ok(Output::Ready(reshape::view(self.view, data, inputs.get(1).copied())?))
    }

    fn run(&self, _: &[&Tensor], _: &mut Outputs<'_>, _: &mut RunContext<'_>) -> Result<(), KernelError> {
        Err(KernelError::Internal { op: self.view.name(), what: "a view was asked to fill a buffer" })
    }

    fn is_view(&self) -> bool {
        true
    }
}

/// A view whose second input is constant and whose data shape is static:
/// the output shape is known.
#[derive(Debug)]
struct FixedView {
    view: View,
    data_shape: Vec<usize>,
    shape: Vec<usize>,
}

impl Kernel for FixedView {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let op = self.view.name();
        let data = inputs.first().ok_or(KernelError::InputCount { op, expected: 2, found: 0 })?;
        if data.shape() == self.data_shape.as_slice() {
            let view = data.reshaped(&self.shape).ok_or(KernelError::Internal {
                op,
                what: "a view of the shape worked out at compile time does not fit the data",
            })?;
            return Ok(Output::Ready(view));
        }
        Ok(Output::Ready(reshape::view(self.view, data, inputs.get(1).copied())?))
    }

    fn run(&self, _: &[&Tensor], _: &mut Outputs<'_>, _: &mut RunContext<'_>) -> Result<(), KernelError> {
        Err(KernelError::Internal { op: self.view.name(), what: "a view was asked to fill a buffer" })
    }

    fn is_view(&self) -> bool {
        true
    }

    fn fixed_view(&self, _port: usize) -> Option<(&[usize], &[usize])> {
        Some((&self.data_shape, &self.shape))
    }
}
