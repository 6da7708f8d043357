//! The steps of ScatterUpdate and ScatterNDUpdate ([`kernels::scatter`]):
//! with static shapes (and ScatterUpdate's axis a Const) the layout is
//! worked out at compile time, the data's copy included; otherwise on the
//! first run and again only when the shapes change, kept in the step's
//! [`ScatterScratch`]. The indices are read on every run.

use std::fmt;

use ovir_shape::ops::scatter_nd_update::ScatterNdReduction;
use ovir_shape::ops::{ScatterNdUpdate, ScatterUpdate};
use ovir_tensor::{ElementType, Tensor};

use crate::kernels::reduce::Reduction;
use crate::kernels::scatter::{self, Layout};
use crate::kernels::{KernelError, ScatterScratch};
use crate::step::{exactly, fits, Kernel, OutShape, Output, Outputs, PlanContext, Planned, RunContext};

planner!(ScatterUpdate, plan_update);
planner!(ScatterNdUpdate, plan_nd);

fn plan_update(op: &ScatterUpdate, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    plan(*op, cx)
}

fn plan_nd(op: &ScatterNdUpdate, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    plan(*op, cx)
}

/// A scatter: its inputs, how it combines updates, and the layout they
/// give for inputs of given shapes.
trait ScatterOp: fmt::Debug + Send + Sync + Copy + 'static {
    /// The op's name, for errors.
    const OP: &'static str;
    /// Its number of inputs.
    const INPUTS: usize;

    /// What the layout depends on besides the shapes (ScatterUpdate's
    /// axis), read from the inputs.
    fn key(&self, inputs: &[&Tensor]) -> Result<i64, KernelError>;

    /// The key known at compile time from constant inputs.
    fn known_key(&self, cx: &PlanContext<'_>) -> Option<i64>;

    /// How updates combine with the data.
    fn reduction(&self) -> Option<Reduction>;

    /// The layout for data, indices (of type `ty`) and updates of these
    /// shapes.
    fn layout(
        &self,
        data: &[usize],
        ty: ElementType,
        indices: &[usize],
        updates: &[usize],
        key: i64,
    ) -> Result<Layout, KernelError>;
}

impl ScatterOp for ScatterUpdate {
    const OP: &'static str = "ScatterUpdate";
    const INPUTS: usize = 4;

    fn key(&self, inputs: &[&Tensor]) -> Result<i64, KernelError> {
        let axis = inputs.get(3).ok_or(KernelError::Internal { op: Self::OP, what: "no axis input" })?;
        scatter::read_axis(axis)
    }

    fn known_key(&self, cx: &PlanContext<'_>) -> Option<i64> {
        cx.value(3).and_then(|a| scatter::read_axis(a).ok())
    }

    fn reduction(&self) -> Option<Reduction> {
        None
    }

    fn layout(
        &self,
        data: &[usize],
        ty: ElementType,
        indices: &[usize],
        updates: &[usize],
        key: i64,
    ) -> Result<Layout, KernelError> {
        scatter::update_layout(data, ty, indices, updates, key)
    }
}

impl ScatterOp for ScatterNdUpdate {
    const OP: &'static str = "ScatterNDUpdate";
    const INPUTS: usize = 3;

    fn key(&self, _inputs: &[&Tensor]) -> Result<i64, KernelError> {
        Ok(0)
    }

    fn known_key(&self, _cx: &PlanContext<'_>) -> Option<i64> {
        Some(0)
    }

    fn reduction(&self) -> Option<Reduction> {
        match self.reduction {
            ScatterNdReduction::None => None,
            ScatterNdReduction::Sum => Some(Reduction::Sum),
            ScatterNdReduction::Sub => Some(Reduction::Sub),
            ScatterNdReduction::Prod => Some(Reduction::Prod),
            ScatterNdReduction::Min => Some(Reduction::Min),
            ScatterNdReduction::Max => Some(Reduction::Max),
        }
    }

    fn layout(
        &self,
        data: &[usize],
        ty: ElementType,
        indices: &[usize],
        updates: &[usize],
        _key: i64,
    ) -> Result<Layout, KernelError> {
        scatter::nd_layout(data, ty, indices, updates)
    }
}

/// The step of `op`: a layout worked out now when the shapes are static,
/// else one worked out when it runs. A layout that cannot be made keeps
/// the general kernel, so that the error shows when the model runs.
fn plan<O: ScatterOp>(op: O, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let layout = match (cx.shape(0), cx.shape(1), cx.shape(2), op.known_key(cx)) {
        (Some(d), Some(i), Some(u), Some(key)) => {
            op.layout(&d, cx.element_type(1), &i, &u, key).ok().filter(|l| fits(l.shape()))
        }
        _ => None,
    };
    let general = General(op);
    Ok(match layout {
        Some(layout) => Planned::step(FixedLayout { general, layout }),
        None => Planned::step(general),
    })
}

/// The three inputs every scatter has.
fn inputs3<'a, O: ScatterOp>(inputs: &[&'a Tensor]) -> Result<[&'a Tensor; 3], KernelError> {
    match inputs {
        [d, i, u, ..] if inputs.len() == O::INPUTS => Ok([*d, *i, *u]),
        _ => exactly::<3>(O::OP, inputs).map(|[d, i, u]| [*d, *i, *u]),
    }
}

/// A scatter whose layout is worked out when it runs.
#[derive(Debug)]
struct General<O>(O);

impl<O: ScatterOp> Kernel for General<O> {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        // The output has the data's shape; the inputs are checked against
        // one another when the step runs, with the layout it keeps.
        let [data, ..] = inputs3::<O>(inputs)?;
        Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(data.shape())))
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let out = outputs.single()?;
        let [data, indices, updates] = inputs3::<O>(inputs)?;
        let key = self.0.key(inputs)?;
        let op = self.0;
        let scratch = cx.state.scratch::<ScatterScratch>()?;
        scratch.run(data, indices, updates, key, op.reduction(), out, cx.options, || {
            op.layout(data.shape(), indices.element_type(), indices.shape(), updates.shape(), key)
        })
    }
}

/// A scatter whose inputs have static shapes (and whose key is a Const),
/// its layout worked out when the model compiled.
#[derive(Debug)]
struct FixedLayout<O: ScatterOp> {
    general: General<O>,
    layout: Layout,
}

impl<O: ScatterOp> FixedLayout<O> {
    fn fitting<'a>(&self, inputs: &[&'a Tensor]) -> Option<[&'a Tensor; 3]> {
        let [data, indices, updates] = inputs3::<O>(inputs).ok()?;
        let key = self.general.0.key(inputs).ok()?;
        self.layout.fits(data, indices, updates, key).then_some([data, indices, updates])
    }
}

impl<O: ScatterOp> Kernel for FixedLayout<O> {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        match self.fitting(inputs) {
            Some([data, ..]) => {
                Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(self.layout.shape())))
            }
            None => self.general.output(inputs, port),
        }
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        match self.fitting(inputs) {
            Some([data, indices, updates]) => {
                let out = outputs.single()?;
                let work = cx.state.scratch::<ScatterScratch>()?.work();
                self.layout.run(data, indices, updates, self.general.0.reduction(), out, cx.options, work)
            }
            None => self.general.run(inputs, outputs, cx),
        }
    }
}
