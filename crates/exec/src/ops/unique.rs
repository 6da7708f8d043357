//! Unique: the [`kernels::unique`] kernel, whose output sizes are known
//! only once it has searched the data, so it sizes its four outputs
//! itself ([`Output::Later`]). The axis is a Const, read when the model
//! compiles; constant data is folded then too.

use ovir_shape::ops::Unique;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::Tensor;

use crate::kernels::{self, KernelError, UniqueScratch};
use crate::step::{Kernel, Output, Outputs, PlanContext, Planned, RunContext};

planner!(Unique, plan);

pub(crate) fn plan(op: &Unique, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    let axis = match cx.optional_value(1) {
        Some(None) => None,
        Some(Some(axis)) => Some(kernels::unique_axis_value(axis)?),
        None => return Err(ShapeErrorKind::InputNotConstant { op: "Unique", input: "axis" }.into()),
    };
    Ok(Planned::step(UniqueKernel { op: *op, axis }))
}

#[derive(Debug)]
struct UniqueKernel {
    op: Unique,
    /// The axis as the Const gives it, `None` for flattened data.
    axis: Option<i64>,
}

impl Kernel for UniqueKernel {
    fn output<'t>(&'t self, _inputs: &[&'t Tensor], _port: usize) -> Result<Output<'t>, KernelError> {
        Ok(Output::Later)
    }

    fn run(
        &self,
        inputs: &[&Tensor],
        outputs: &mut Outputs<'_>,
        cx: &mut RunContext<'_>,
    ) -> Result<(), KernelError> {
        let data = inputs.first().ok_or(KernelError::InputCount { op: "Unique", expected: 1, found: 0 })?;
        let options = cx.options;
        let scratch = cx.state.scratch::<UniqueScratch>()?;
        scratch.find(data, self.axis, &self.op)?;
        let (shape, n, slices, _) = scratch.shapes();
        // The uniques' shape is the scratch's own; the buffer is taken
        // before the scratch is borrowed to write it.
        let values = outputs.allocate(0, data.element_type(), shape)?;
        scratch.write_values(data, values, options)?;
        outputs.allocate(1, self.op.index_type, &[n])?;
        outputs.allocate(2, self.op.index_type, &[slices])?;
        outputs.allocate(3, self.op.count_type, &[n])?;
        let [firsts, inverse, counts] = outputs.three_from(1)?;
        scratch.write_indices(firsts, inverse, counts)
    }
}
