//! Parameter: a model input, which the plan gives a slot of its own.

use ovir_shape::ops::Parameter;

use crate::kernels::KernelError;
use crate::step::{PlanContext, Planned};

planner!(Parameter, plan);

pub(crate) fn plan(_op: &Parameter, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::Input)
}
