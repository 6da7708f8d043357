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

impl<O: ScatterOp> General<O> {
    /// Runs the scatter into `out`: from a copy of `data`, or in place
    /// when `out` took over the data's buffer (no `data`). `shape` is the
    /// data's.
    #[allow(clippy::too_many_arguments)]
    fn scatter(
        &self,
        data: Option<&Tensor>,
        shape: &[usize],
        [indices, updates]: [&Tensor; 2],
        key: i64,
        out: &mut Tensor,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let op = self.0;
        let scratch = cx.state.scratch::<ScatterScratch>()?;
        scratch.run(data, shape, indices, updates, key, op.reduction(), out, cx.options, || {
            op.layout(shape, indices.element_type(), indices.shape(), updates.shape(), key)
        })
    }
}

/// The inputs of a scatter as it runs: the data to copy (`None` when the
/// output took over its buffer), its shape, the indices and updates, the
/// key, and the output.
struct Running<'a, 'o> {
    data: Option<&'a Tensor>,
    shape: smallvec::SmallVec<[usize; 8]>,
    rest: [&'a Tensor; 2],
    key: i64,
    out: &'o mut Tensor,
}

fn running<'a, 'o, O: ScatterOp>(
    op: O,
    inputs: &[&'a Tensor],
    outputs: &'o mut Outputs<'_>,
) -> Result<Running<'a, 'o>, KernelError> {
    let [data, indices, updates] = inputs3::<O>(inputs)?;
    let key = op.key(inputs)?;
    let (data, out) = outputs.in_place(0, data)?.parts();
    let shape = data.map_or(out.shape(), Tensor::shape).into();
    Ok(Running { data, shape, rest: [indices, updates], key, out })
}

/// The bytes a scatter writes in place: its updates.
fn updates_bytes<O: ScatterOp>(inputs: &[&Tensor]) -> Option<usize> {
    let [_, _, updates] = inputs3::<O>(inputs).ok()?;
    Some(updates.bytes().map_or(0, <[u8]>::len))
}

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
        let Running { data, shape, rest, key, out } = running(self.0, inputs, outputs)?;
        self.scatter(data, &shape, rest, key, out, cx)
    }

    fn reuses_input(&self, port: usize) -> Option<usize> {
        (port == 0).then_some(0)
    }

    fn moved_in_place(&self, inputs: &[&Tensor], _port: usize) -> Option<usize> {
        updates_bytes::<O>(inputs)
    }
}

/// A scatter whose inputs have static shapes (and whose key is a Const),
/// its layout worked out when the model compiled.
#[derive(Debug)]
struct FixedLayout<O: ScatterOp> {
    general: General<O>,
    layout: Layout,
}

impl<O: ScatterOp> Kernel for FixedLayout<O> {
    fn output<'t>(&'t self, inputs: &[&'t Tensor], port: usize) -> Result<Output<'t>, KernelError> {
        let [data, indices, updates] = inputs3::<O>(inputs)?;
        let fits =
            self.general.0.key(inputs).is_ok_and(|key| self.layout.fits(data.shape(), indices, updates, key));
        match fits {
            true => Ok(Output::Buffer(data.element_type(), OutShape::Borrowed(self.layout.shape()))),
            false => self.general.output(inputs, port),
        }
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let Running { data, shape, rest: [indices, updates], key, out } =
            running(self.general.0, inputs, outputs)?;
        if self.layout.fits(&shape, indices, updates, key) {
            let work = cx.state.scratch::<ScatterScratch>()?.work();
            self.layout.run(data, indices, updates, self.general.0.reduction(), out, cx.options, work)
        } else {
            self.general.scatter(data, &shape, [indices, updates], key, out, cx)
        }
    }

    fn reuses_input(&self, port: usize) -> Option<usize> {
        self.general.reuses_input(port)
    }

    fn moved_in_place(&self, inputs: &[&Tensor], port: usize) -> Option<usize> {
        self.general.moved_in_place(inputs, port)
    }
}
