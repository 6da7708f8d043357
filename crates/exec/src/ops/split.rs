//! Split: the [`kernels::split`] kernel, shared with VariadicSplit. With a
//! constant axis (and lengths) and a static data shape the parts are
//! worked out at compile time: parts that are contiguous stretches of
//! whole-byte data (the axes before the cut all of size 1) are views of
//! it, which a request keeps while its data stays the same; other parts
//! are copies. A single part is the data itself. Data whose sizes are
//! known only at run time, cut along a constant axis after axes of size
//! 1, gives views made on the run; any other Split copies its parts on
//! the run, with what it works out kept in a `SplitScratch`.

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
        return Ok(match cut_before_ones(cut, cx) {
            Some(axis) => Planned::step(SplitRunViews { cut, axis }),
            None => Planned::step(general),
        });
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

/// For data of sizes known only at run time, cut along a constant axis
/// before which every axis is of size 1 (`[1, ?, h, w]` along axis 1),
/// of a whole-byte type: that axis, along which every part is one
/// contiguous stretch whatever the sizes and lengths turn out to be.
/// Data of static sizes is left to the other steps, which allocate
/// nothing after the first run.
fn cut_before_ones(cut: Cut, cx: &PlanContext<'_>) -> Option<usize> {
    let dims = cx.args.first()?.fact?.shape.dims()?;
    if cx.shape(0).is_some() || cx.element_type(0).byte_width().is_none() {
        return None;
    }
    // An axis that is no valid one is left to the other step to report.
    let a = kernels::split::cut_axis(matches!(cut, Cut::Given), cx.value(1)?, dims.len()).ok()?;
    dims.get(..a)?.iter().all(|d| d.get() == Some(1)).then_some(a)
}

/// Parts of data whose sizes are known only at run time, cut along an
/// axis before which every axis is of size 1: each part a view of the
/// data, made on the run.
#[derive(Debug)]
struct SplitRunViews {
    cut: Cut,
    axis: usize,
}

impl Kernel for SplitRunViews {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        let (data, axis, lengths) = self.cut.inputs(inputs)?;
        let a = kernels::split::cut_axis(lengths.variadic(), axis, data.rank())?;
        let dim = data.shape().get(a).copied().unwrap_or(1);
        let (mut dims, mut lens) = (Vec::new(), Vec::new());
        kernels::split::part_lengths(lengths, dim, a, &mut dims, &mut lens)?;
        let op = self.cut.op();
        let before = lens.get(..port).ok_or(KernelError::Internal { op, what: "a part past the last" })?;
        let len =
            lens.get(port).copied().ok_or(KernelError::Internal { op, what: "a part past the last" })?;
        let inner: usize = data.shape().get(a + 1..).unwrap_or(&[]).iter().product();
        let first = before.iter().sum::<usize>() * inner;
        let mut shape = data.shape().to_vec();
        if let Some(d) = shape.get_mut(a) {
            *d = len;
        }
        let outer_is_one = a == self.axis && data.shape().get(..a).is_some_and(|d| d.iter().all(|&n| n == 1));
        match data.elements_view(first, &shape).filter(|_| outer_is_one) {
            Some(view) => Ok(Output::Ready(view)),
            // Data the plan did not foresee (its checks should not let it
            // through): the part made as a new tensor.
            None => {
                let parts = parts(data.shape(), axis, lengths)?;
                let part = made_parts(&parts, data)?.into_iter().nth(port);
                Ok(Output::Ready(part.ok_or(KernelError::Internal { op, what: "a part past the last" })?))
            }
        }
    }

    fn run(&self, _: &[&Tensor], _: &mut Outputs<'_>, _: &mut RunContext<'_>) -> Result<(), KernelError> {
        Err(KernelError::Internal { op: self.cut.op(), what: "a view was asked to fill a buffer" })
    }

    fn is_view(&self) -> bool {
        true
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
