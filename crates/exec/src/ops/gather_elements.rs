//! GatherElements: the [`kernels::gather_elements`] kernel, planned as a
//! gather by offsets (see [`indexed`](super::indexed)).

use ovir_shape::ops::GatherElements;
use ovir_tensor::ElementType;

use crate::kernels::{self, KernelError};
use crate::ops::indexed::{self, IndexedOp};
use crate::step::{PlanContext, Planned};

planner!(GatherElements, plan);

pub(crate) fn plan(op: &GatherElements, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    indexed::plan(*op, cx)
}

impl IndexedOp for GatherElements {
    type Layout = kernels::gather_elements::Layout;

    fn layout(
        &self,
        data: &[usize],
        ty: ElementType,
        indices: &[usize],
    ) -> Result<Self::Layout, KernelError> {
        kernels::gather_elements::layout(data, ty, indices, self.axis)
    }
}
