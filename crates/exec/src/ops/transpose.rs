//! Transpose: the [`kernels::transpose`] kernel. With a constant order and
//! a static data shape the copy is worked out at compile time, and an
//! order that keeps every axis in place passes the data through.

use ovir_shape::ops::Transpose;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::step::{exactly, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(Transpose, plan);

pub(crate) fn plan(_op: &Transpose, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let (Some(shape), Some(order)) = (cx.shape(0), cx.value(1)) else {
        return Ok(Planned::step(TransposeKernel));
    };
    let perm = kernels::transpose::permutation(order, shape.len())?;
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(Planned::PassThrough);
    }
    Ok(Planned::step(FixedCopy {
        view: kernels::transpose::layout(&shape, &perm)?,
        general: TransposeKernel,
    }))
}

/// A Transpose whose order or data shape is known only at run time.
#[derive(Debug)]
struct TransposeKernel;

impl Kernel for TransposeKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data, order] = exactly::<2>("Transpose", inputs)?;
        let shape = kernels::transpose::output_shape(data, order)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Owned(shape)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, order] = exactly::<2>("Transpose", inputs)?;
        kernels::transpose_into(
            data,
            order,
            out,
            cx.options,
            cx.state.scratch::<kernels::TransposeScratch>()?,
        )
    }
}
