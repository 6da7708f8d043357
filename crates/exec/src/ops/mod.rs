//! How each operation runs: one module per op, each turning a layer's op
//! (with what is known of its inputs before the model runs) into a
//! [`Planned`] step, and holding the [`Kernel`](crate::step::Kernel)s that
//! call the op's kernel function in [`kernels`](crate::kernels).

use ovir_shape::{Op, Operation};

use crate::kernels::KernelError;
use crate::step::{PlanContext, Planned};

mod broadcast;
mod concat;
mod constant;
mod convert;
mod custom;
mod gather;
mod parameter;
mod reshape;
mod result;
mod reverse;
mod reverse_sequence;
mod reverse_subsequences;
mod shape_of;
mod slice;
mod squeeze;
mod unsqueeze;
mod view;

/// How a layer of this op runs; `None` when no module of this crate runs
/// it.
pub(crate) fn plan(op: &Op, cx: &PlanContext<'_>) -> Option<Result<Planned, KernelError>> {
    None.or_else(|| with(op, cx, parameter::plan))
        .or_else(|| with(op, cx, constant::plan))
        .or_else(|| with(op, cx, result::plan))
        .or_else(|| with(op, cx, convert::plan))
        .or_else(|| with(op, cx, reverse::plan))
        .or_else(|| with(op, cx, reverse_sequence::plan))
        .or_else(|| with(op, cx, reverse_subsequences::plan))
        .or_else(|| with(op, cx, shape_of::plan))
        .or_else(|| with(op, cx, gather::plan))
        .or_else(|| with(op, cx, broadcast::plan))
        .or_else(|| with(op, cx, unsqueeze::plan))
        .or_else(|| with(op, cx, squeeze::plan))
        .or_else(|| with(op, cx, reshape::plan))
        .or_else(|| with(op, cx, concat::plan))
        .or_else(|| with(op, cx, slice::plan))
        .or_else(|| with(op, cx, custom::plan))
}

/// `plan` applied to `op` when it is a `T`.
fn with<T: Operation>(
    op: &Op,
    cx: &PlanContext<'_>,
    plan: fn(&T, &PlanContext<'_>) -> Result<Planned, KernelError>,
) -> Option<Result<Planned, KernelError>> {
    op.downcast_ref::<T>().map(|op| plan(op, cx))
}
