//! Squeeze: a view of the data (see [`view`](super::view)).

use ovir_shape::ops::Squeeze;

use crate::kernels::reshape::View;
use crate::kernels::KernelError;
use crate::ops::view;
use crate::step::{PlanContext, Planned};

planner!(Squeeze, plan);

pub(crate) fn plan(_op: &Squeeze, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    view::plan(View::Squeeze, cx)
}
