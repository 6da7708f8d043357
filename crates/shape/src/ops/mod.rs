//! The built-in operations, one module each: the op's attributes as a
//! type, the function that reads them from a layer, its shape and value
//! inference, and the shape rules the executor also applies when the model
//! runs, so that a problem reads the same whenever it shows up.
//!
//! Every op here implements [`BuiltinOp`](crate::BuiltinOp) and is named
//! once, in [`for_each_builtin_op!`](crate::for_each_builtin_op): the list
//! the registry, the executor's planners and the tests are made from.

pub mod batch_to_space;
pub mod broadcast;
pub mod concat;
pub mod constant;
pub mod convert;
pub mod depth_to_space;
pub mod gather;
pub mod pad;
pub mod parameter;
pub mod reshape;
pub mod result;
pub mod reverse;
pub mod reverse_sequence;
pub mod reverse_subsequences;
pub mod roll;
pub mod shape_of;
pub mod shuffle_channels;
pub mod slice;
pub mod space_to_batch;
pub mod space_to_depth;
pub mod split;
pub mod squeeze;
pub mod strided_slice;
pub mod tile;
pub mod transpose;
pub mod unsqueeze;
pub mod variadic_split;

pub use batch_to_space::BatchToSpace;
pub use broadcast::{Broadcast, BroadcastMode};
pub use concat::Concat;
pub use constant::Const;
pub use convert::Convert;
pub use depth_to_space::{BlockMode, DepthToSpace};
pub use gather::Gather;
pub use pad::{Pad, PadMode};
pub use parameter::Parameter;
pub use reshape::Reshape;
pub use result::ResultOp;
pub use reverse::{Reverse, ReverseMode};
pub use reverse_sequence::ReverseSequence;
pub use reverse_subsequences::ReverseSubsequences;
pub use roll::Roll;
pub use shape_of::ShapeOf;
pub use shuffle_channels::ShuffleChannels;
pub use slice::Slice;
pub use space_to_batch::SpaceToBatch;
pub use space_to_depth::SpaceToDepth;
pub use split::Split;
pub use squeeze::Squeeze;
pub use strided_slice::StridedSlice;
pub use tile::Tile;
pub use transpose::Transpose;
pub use unsqueeze::Unsqueeze;
pub use variadic_split::VariadicSplit;

/// Calls `$callback!` with the path of every built-in op type, in the
/// order messages list them: the ops of OpenVINO's opsets, then the
/// extensions that ship with ovir. This is the one list of built-in ops:
/// [`OpRegistry`](crate::OpRegistry) is made from it, the executor
/// requires a planner for each type in it (a missing one does not
/// compile), and the tests of every op iterate it. Adding an op is one
/// line here.
///
/// ```
/// use ovir_shape::BuiltinOp;
/// macro_rules! names {
///     ($($op:path),* $(,)?) => { [$(<$op as BuiltinOp>::SPEC.name),*] };
/// }
/// let names = ovir_shape::for_each_builtin_op!(names);
/// assert_eq!(names[..3], ["Parameter", "Const", "Result"]);
/// assert!(names.contains(&"ReverseSubsequences"));
/// ```
#[macro_export]
macro_rules! for_each_builtin_op {
    ($callback:ident) => {
        $callback! {
            $crate::ops::Parameter,
            $crate::ops::Const,
            $crate::ops::ResultOp,
            $crate::ops::Convert,
            $crate::ops::Reverse,
            $crate::ops::ReverseSequence,
            $crate::ops::ShapeOf,
            $crate::ops::Gather,
            $crate::ops::Broadcast,
            $crate::ops::Unsqueeze,
            $crate::ops::Squeeze,
            $crate::ops::Reshape,
            $crate::ops::Concat,
            $crate::ops::Slice,
            // Transpose, Split, VariadicSplit, StridedSlice, Tile, Roll, Pad,
            // DepthToSpace, SpaceToDepth, ShuffleChannels, BatchToSpace and
            // SpaceToBatch have their shape inference (modules above) and
            // join this list with their kernels.
            $crate::ops::ReverseSubsequences,
        }
    };
}

/// What every op's module tests of its [`BuiltinOp`](crate::BuiltinOp)
/// impl, for ops not yet in [`for_each_builtin_op!`] (whose every-op tests
/// cover the ops in the list).
#[cfg(test)]
pub(crate) fn check_round_trips<T: crate::BuiltinOp>() {
    let spec = T::SPEC;
    let examples = T::examples();
    assert!(!examples.is_empty(), "{}: no examples", spec.name);
    for op in examples {
        let layer = op.write();
        assert_eq!(layer.op_type, spec.name);
        assert!(spec.takes_outputs(layer.outputs), "{} writes {} outputs", spec.name, layer.outputs);
        let opset = spec.versions.opset_of(&layer.version);
        assert!(opset.is_some(), "{} writes {}", spec.name, layer.version);
        let built = T::build(&layer.to_layer_with(spec.inputs.0), opset.unwrap_or(0));
        assert_eq!(built.as_ref(), Ok(&op), "{} {:?}", spec.name, layer.attrs);
    }
}
