//! StridedSlice: the [`kernels::strided_slice`] kernel. With constant
//! begin, end and strides and a static data shape it is worked out at
//! compile time: a slice that takes every axis whole, in order or back to
//! front, with no axis added or removed, runs as a Reverse (or passes the
//! data through); one whose output is a contiguous stretch of whole-byte
//! data is a view of it; any other copies one strided view worked out
//! then. Otherwise the copy is worked out on the run and kept in a
//! `StridedSliceScratch` while the shapes and ranges repeat.

use ovir_shape::ops::StridedSlice;
use ovir_tensor::Tensor;

use crate::kernels::slice::{contiguous, reversal};
use crate::kernels::strided_slice::{layout, taken};
use crate::kernels::{self, KernelError};
use crate::ops::fixed::{FixedCopy, FixedPart, Remake};
use crate::ops::reverse;
use crate::step::{Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(StridedSlice, plan);

fn plan(op: &StridedSlice, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let general = StridedSliceKernel { masks: op.clone() };
    let known = (cx.shape(0), cx.value(1), cx.value(2), cx.optional_value(3));
    let (Some(shape), Some(begin), Some(end), Some(strides)) = known else {
        return Ok(Planned::step(general));
    };
    let taken = taken(op, &shape, begin, end, strides)?;
    if taken.shape.as_slice() == shape.as_slice() {
        if let Some(flags) = reversal(&shape, &taken.ranges) {
            return Ok(reverse::fixed(flags));
        }
    }
    let view = layout(&shape, &taken)?;
    match contiguous(&shape, &taken.ranges) {
        Some(first) if cx.element_type(0).byte_width().is_some() && !view.shape().contains(&0) => {
            Ok(Planned::step(FixedPart { data_shape: shape, first, shape: view.shape().to_vec(), general }))
        }
        _ => Ok(Planned::step(FixedCopy { view, general })),
    }
}

/// The data, begin, end and the optional strides.
type Inputs<'t> = (&'t Tensor, &'t Tensor, &'t Tensor, Option<&'t Tensor>);

fn split<'t>(inputs: &[&'t Tensor]) -> Result<Inputs<'t>, KernelError> {
    match *inputs {
        [data, begin, end] => Ok((data, begin, end, None)),
        [data, begin, end, strides] => Ok((data, begin, end, Some(strides))),
        _ => Err(KernelError::InputCount { op: "StridedSlice", expected: 3, found: inputs.len() }),
    }
}

/// A StridedSlice worked out on the run.
#[derive(Debug)]
struct StridedSliceKernel {
    masks: StridedSlice,
}

impl Kernel for StridedSliceKernel {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let (data, begin, end, strides) = split(inputs)?;
        let taken = taken(&self.masks, data.shape(), begin, end, strides)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Owned(taken.shape)))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let (data, begin, end, strides) = split(inputs)?;
        let scratch = cx.state.scratch::<kernels::StridedSliceScratch>()?;
        kernels::strided_slice_into(data, begin, end, strides, &self.masks, out, cx.options, scratch)
    }
}

impl Remake for StridedSliceKernel {
    const OP: &'static str = "StridedSlice";

    fn remake(&self, inputs: &[&Tensor]) -> Result<Tensor, KernelError> {
        let (data, begin, end, strides) = split(inputs)?;
        kernels::strided_slice(data, begin, end, strides, &self.masks)
    }
}
