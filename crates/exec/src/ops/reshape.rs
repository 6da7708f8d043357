//! Reshape: a view of the data (see [`view`](super::view)).

use ovir_shape::ops::Reshape;

use crate::kernels::reshape::View;
use crate::kernels::KernelError;
use crate::ops::view;
use crate::step::{PlanContext, Planned};

planner!(Reshape, plan);

pub(crate) fn plan(op: &Reshape, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    view::plan(View::Reshape { special_zero: op.special_zero }, cx)
}
