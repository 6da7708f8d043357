//! Identity: the output is the input, with no step of its own.

use ovir_shape::ops::Identity;

use crate::kernels::KernelError;
use crate::step::{PlanContext, Planned};

planner!(Identity, plan);

pub(crate) fn plan(_op: &Identity, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::PassThrough)
}
