//! The steps of GatherElements and GatherND, gathers by offsets
//! ([`OffsetGather`]): with static shapes the layout is worked out at
//! compile time, and with constant indices the whole copy; otherwise both
//! are worked out on every run, keeping their memory in the step's
//! [`IndexScratch`].

use std::fmt;

use ovir_tensor::{ElementType, Tensor};

use crate::kernels::indexed::OffsetGather;
use crate::kernels::{IndexScratch, KernelError};
use crate::ops::fixed::FixedCopy;
use crate::step::{
    exactly, fits, input_bytes, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext,
};

/// An op that gathers by offsets: its attributes, and the layout they give
/// for data and indices of given shapes.
pub(crate) trait IndexedOp: fmt::Debug + Send + Sync + 'static {
    /// How the op runs on inputs of given shapes.
    type Layout: OffsetGather + fmt::Debug + Send + Sync + 'static;

    /// The layout for data of shape `data` and indices of type
    /// `indices_type` and shape `indices`.
    fn layout(
        &self,
        data: &[usize],
        indices_type: ElementType,
        indices: &[usize],
    ) -> Result<Self::Layout, KernelError>;
}

/// The step of `op`. A layout or copy that cannot be made keeps the
/// general kernel, so that the error shows when the model runs.
pub(crate) fn plan<O: IndexedOp>(op: O, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let layout = match (cx.shape(0), cx.shape(1)) {
        (Some(d), Some(i)) => op.layout(&d, cx.element_type(1), &i).ok().filter(|l| fits(l.shape())),
        _ => None,
    };
    let fixed = match (&layout, cx.value(1)) {
        (Some(layout), Some(indices)) => layout.fixed(indices).ok(),
        _ => None,
    };
    let general = General(op);
    Ok(match (fixed, layout) {
        (Some(view), _) => Planned::step(FixedCopy { view, general }),
        (None, Some(layout)) => Planned::step(FixedLayout { general, layout }),
        (None, None) => Planned::step(general),
    })
}

/// A gather worked out on every run.
#[derive(Debug)]
struct General<O>(O);

impl<O: IndexedOp> Kernel for General<O> {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        let [data, indices] = exactly::<2>(<O::Layout as OffsetGather>::OP, inputs)?;
        let layout = self.0.layout(data.shape(), indices.element_type(), indices.shape())?;
        Ok(Output::Buffer(data.element_type(), OutShape::owned(layout.shape().to_vec())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, indices] = exactly::<2>(<O::Layout as OffsetGather>::OP, inputs)?;
        let layout = self.0.layout(data.shape(), indices.element_type(), indices.shape())?;
        layout.run(data, indices, out, cx.options, cx.state.scratch::<IndexScratch>()?)
    }

    fn index_bytes(&self, inputs: &[&Tensor]) -> usize {
        input_bytes(inputs, 1)
    }
}

/// A gather whose data and indices have static shapes; the indices are
/// read on every run.
#[derive(Debug)]
struct FixedLayout<O: IndexedOp> {
    general: General<O>,
    layout: O::Layout,
}

impl<O: IndexedOp> Kernel for FixedLayout<O> {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        match inputs {
            [data, indices] if self.layout.fits(data, indices) => {
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
        match inputs {
            [data, indices] if self.layout.fits(data, indices) => {
                let out = outputs.single()?;
                self.layout.run(data, indices, out, cx.options, cx.state.scratch::<IndexScratch>()?)
            }
            _ => self.general.run(inputs, outputs, cx),
        }
    }

    fn index_bytes(&self, inputs: &[&Tensor]) -> usize {
        input_bytes(inputs, 1)
    }
}
