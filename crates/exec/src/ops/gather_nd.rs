//! GatherND: the [`kernels::gather_nd`] kernel, planned as a gather by
//! offsets (see [`indexed`](super::indexed)).

use ovir_shape::ops::GatherNd;
use ovir_tensor::ElementType;

use crate::kernels::{self, KernelError};
use crate::ops::indexed::{self, IndexedOp};
use crate::step::{PlanContext, Planned};

planner!(GatherNd, plan);

pub(crate) fn plan(op: &GatherNd, cx: &PlanContext<'_>) -> Result<Planned, KernelError> {
    indexed::plan(*op, cx)
}

impl IndexedOp for GatherNd {
    type Layout = kernels::gather_nd::Layout;

    fn layout(
        &self,
        data: &[usize],
        ty: ElementType,
        indices: &[usize],
    ) -> Result<Self::Layout, KernelError> {
        kernels::gather_nd::layout(data, ty, indices, self.batch_dims, self.version)
    }
}
