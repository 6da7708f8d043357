//! How each operation runs: one module per op, each turning a layer's op
//! (with what is known of its inputs before the model runs) into a
//! [`Planned`] step, and holding the [`Kernel`](crate::step::Kernel)s that
//! call the op's kernel function in [`kernels`](crate::kernels).

use ovir_shape::{BuiltinOp, CustomOperation, Op};

use crate::kernels::KernelError;
use crate::step::{PlanContext, Planned};

/// How a layer of a built-in op runs: every type in
/// `ovir_shape::for_each_builtin_op!` implements it (see
/// [`plan`]), so a built-in op without a planner does not compile.
#[diagnostic::on_unimplemented(
    message = "the built-in op `{Self}` has no planner",
    label = "no planner for this op",
    note = "give its module in crates/exec/src/ops/ a `plan` function and the line `planner!(<Op>, plan);`"
)]
pub(crate) trait PlanOp: BuiltinOp {
    /// What the plan does with a layer of this op, given what is known of
    /// its inputs before the model runs.
    fn plan(&self, cx: &PlanContext<'_>) -> Result<Planned, KernelError>;
}

/// Makes `$plan`, a function of the op and the plan context, the
/// planner of the built-in op `$op`: the one line an op module registers
/// itself with.
macro_rules! planner {
    ($op:ty, $plan:path) => {
        impl $crate::ops::PlanOp for $op {
            fn plan(
                &self,
                cx: &$crate::step::PlanContext<'_>,
            ) -> Result<$crate::step::Planned, $crate::kernels::KernelError> {
                $plan(self, cx)
            }
        }
    };
}

mod batch_to_space;
mod broadcast;
mod col2im;
mod concat;
mod constant;
mod convert;
mod custom;
mod depth_to_space;
mod extract_image_patches;
mod fixed;
mod gather;
mod gather_elements;
mod gather_nd;
mod gather_tree;
mod identity;
mod indexed;
mod pad;
mod parameter;
mod reshape;
mod result;
mod reverse;
mod reverse_sequence;
mod reverse_subsequences;
mod roll;
mod scatter;
mod scatter_elements_update;
mod shape_of;
mod shuffle_channels;
mod slice;
mod slice_scatter;
mod split;
mod squeeze;
mod strided_slice;
mod string_tensor;
mod tile;
mod transpose;
mod unique;
mod unsqueeze;
mod variadic_split;
mod view;

macro_rules! plan_builtin {
    ($($op:path),* $(,)?) => {
        /// The planner of a built-in op, found by its type: a few type
        /// comparisons per layer, once, when the model compiles.
        fn plan_builtin(op: &Op, cx: &PlanContext<'_>) -> Option<Result<Planned, KernelError>> {
            $(
                if let Some(op) = op.downcast_ref::<$op>() {
                    return Some(PlanOp::plan(op, cx));
                }
            )*
            None
        }
    };
}
ovir_shape::for_each_builtin_op!(plan_builtin);

/// How a layer of this op runs: a built-in op's planner, or the
/// extension op's `CustomOp`; `None` for an op that is neither (one a
/// program made up and wrapped in an `Op` itself).
pub(crate) fn plan(op: &Op, cx: &PlanContext<'_>) -> Option<Result<Planned, KernelError>> {
    plan_builtin(op, cx).or_else(|| op.downcast_ref::<CustomOperation>().map(|op| custom::plan(op, cx)))
}
