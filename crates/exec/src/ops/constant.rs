//! Const: a value known before the model runs.

use ovir_shape::ops::Const;

use crate::kernels::KernelError;
use crate::step::{PlanContext, Planned};

planner!(Const, plan);

pub(crate) fn plan(op: &Const, _cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    Ok(Planned::Constant(op.value.clone()))
}
