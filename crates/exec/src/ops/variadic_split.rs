//! VariadicSplit: the Split steps (`ops::split`) with the lengths of the
//! third input.

use ovir_shape::ops::VariadicSplit;

use crate::kernels::KernelError;
use crate::ops::split::{plan_parts, Cut};
use crate::step::{PlanContext, Planned};

planner!(VariadicSplit, plan);

fn plan(_op: &VariadicSplit, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    plan_parts(Cut::Given, cx)
}
