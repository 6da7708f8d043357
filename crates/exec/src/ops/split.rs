//! Split: the [`kernels::split`] kernel, shared with VariadicSplit. With a
//! constant axis (and lengths) and a static data shape the parts are
//! worked out at compile time: parts that are contiguous stretches of
//! whole-byte data (the axes before the cut all of size 1) are views of
//! it, which a request keeps while its data stays the same; other parts
//! are copies. A single part is the data itself.

use ovir_shape::ops::Split;
use ovir_tensor::Tensor;

use crate::kernels::split::{made_parts, parts, Lengths, Parts};
use crate::kernels::{self, KernelError};
use crate::step::{Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(Split, plan);

fn plan(op: &Split, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    plan_parts(Cut::Equal(op.num_splits), cx)
}

/// How a Split or VariadicSplit layer gives its lengths.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Cut {
    /// Split: this many equal parts.
    Equal(u64),
    /// VariadicSplit: the lengths are the third input.
    Given,
}

impl Cut {
    fn op(self) -> &'static str {
        match self {
            Cut::Equal(_) => "Split",
            Cut::Given => "VariadicSplit",
        }
    }

    /// The data, the axis and the lengths among `inputs`.
    fn inputs<'t>(self, inputs: &[&'t Tensor]) -> Result<(&'t Tensor, &'t Tensor, Lengths<'t>), KernelError> {
        match (self, inputs) {
            (Cut::Equal(n), &[data, axis]) => Ok((data, axis, Lengths::Equal(n))),
            (Cut::Given, &[data, axis, lengths]) => Ok((data, axis, Lengths::Given(lengths))),
            _ => {
                let expected = if matches!(self, Cut::Equal(_)) { 2 } else { 3 };
                Err(KernelError::InputCount { op: self.op(), expected, found: inputs.len() })
            }
        }
    }
}

/// The step of a Split or VariadicSplit layer.
pub(crate) fn plan_parts(cut: Cut, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let general = SplitKernel { cut };
    let lengths = match cut {
        Cut::Equal(n) => Some(Lengths::Equal(n)),
        Cut::Given => cx.value(2).map(Lengths::Given),
    };
    let (Some(shape), Some(axis), Some(lengths)) = (cx.shape(0), cx.value(1), lengths) else {
        return Ok(Planned::step(general));
    };
    let parts = parts(&shape, axis, lengths)?;
    if parts.len() == 1 {
        return Ok(Planned::PassThrough);
    }
    if parts.contiguous() && cx.element_type(0).byte_width().is_some() {
        Ok(Planned::step(SplitViews { parts, general }))
    } else {
        Ok(Planned::step(SplitCopies { parts, general }))
    }
}

/// A Split or VariadicSplit whose parts are worked out on every run (kept
/// in a `SplitScratch` while the shapes and lengths repeat) and copied.
#[derive(Debug)]
struct SplitKernel {
    cut: Cut,
}

impl Kernel for SplitKernel {
    fn output<'t>(&'t self, _inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        Ok(Output::Later)
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let (data, axis, lengths) = self.cut.inputs(inputs)?;
        let parts = cx.state.scratch::<kernels::SplitScratch>()?.parts(data, axis, lengths)?;
        if parts.len() != outputs.count() {
            return Err(KernelError::Internal {
                op: self.cut.op(),
                what: "the parts are not one per output",
            });
        }
        for k in 0..parts.len() {
            let view = parts.view(k)?;
            let out = outputs.allocate(k, data.element_type(), view.shape())?;
            view.run(data, out, cx.options)?;
        }
        Ok(())
    }
}

/// Parts worked out at compile time that are copies of the data.
#[derive(Debug)]
struct SplitCopies {
    parts: Parts,
    general: SplitKernel,
}

impl Kernel for SplitCopies {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        match (inputs.first(), self.parts.part(port)) {
            (Some(data), Some((shape, _))) if data.shape() == self.parts.data_shape() => {
                Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(shape)))
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
            Some(data) if data.shape() == self.parts.data_shape() => {
                for k in 0..self.parts.len() {
                    self.parts.view(k)?.run(data, outputs.get(k)?, cx.options)?;
                }
                Ok(())
            }
            _ => self.general.run(inputs, outputs, cx),
        }
    }
}

/// Parts worked out at compile time that are contiguous stretches of
/// whole-byte data: each output a view of it, with nothing copied.
#[derive(Debug)]
struct SplitViews {
    parts: Parts,
    general: SplitKernel,
}

impl Kernel for SplitViews {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        let view = inputs
            .first()
            .filter(|data| data.shape() == self.parts.data_shape())
            .zip(self.parts.part(port))
            .and_then(|(data, (shape, first))| data.elements_view(first, shape));
        match view {
            Some(view) => Ok(Output::Ready(view)),
            // Data of another shape than the plan's: cut as new tensors.
            None => {
                let (data, axis, lengths) = self.general.cut.inputs(inputs)?;
                let parts = parts(data.shape(), axis, lengths)?;
                let part = made_parts(&parts, data)?.into_iter().nth(port);
                let op = self.general.cut.op();
                Ok(Output::Ready(part.ok_or(KernelError::Internal { op, what: "a part past the last" })?))
            }
        }
    }

    fn run(&self, _: &[&Tensor], _: &mut Outputs<'_>, _: &mut RunContext<'_>) -> Result<(), KernelError> {
        Err(KernelError::Internal { op: self.general.cut.op(), what: "a view was asked to fill a buffer" })
    }

    fn is_view(&self) -> bool {
        true
    }

    fn fixed_view(&self, port: usize) -> Option<(&[usize], &[usize])> {
        self.parts.part(port).map(|(shape, _)| (self.parts.data_shape(), shape))
    }

    fn view_first(&self, port: usize) -> usize {
        self.parts.part(port).map_or(0, |(_, first)| first)
    }
}
