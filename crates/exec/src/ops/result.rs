//! Result: a model output, which reads its input's slot.

use ovir_shape::ops::ResultOp;

use crate::kernels::KernelError;
use crate::step::{PlanContext, Planned};

planner!(ResultOp, plan);

pub(crate) fn plan(_op: &ResultOp, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::Output)
}
