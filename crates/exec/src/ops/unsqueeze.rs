//! Unsqueeze: a view of the data (see [`view`](super::view)).

use ovir_shape::ops::Unsqueeze;

use crate::kernels::reshape::View;
use crate::kernels::KernelError;
use crate::ops::view;
use crate::step::{PlanContext, Planned};

planner!(Unsqueeze, plan);

pub(crate) fn plan(_op: &Unsqueeze, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    view::plan(View::Unsqueeze, cx)
}
