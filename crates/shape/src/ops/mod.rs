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
pub mod col2im;
pub mod concat;
pub mod constant;
pub mod convert;
pub mod depth_to_space;
pub mod extract_image_patches;
pub mod gather;
pub mod gather_elements;
pub mod gather_nd;
pub mod gather_tree;
pub mod identity;
pub mod pad;
pub mod parameter;
pub mod reshape;
pub mod result;
pub mod reverse;
pub mod reverse_sequence;
pub mod reverse_subsequences;
pub mod roll;
pub mod scatter_elements_update;
pub mod scatter_nd_update;
pub mod scatter_update;
pub mod shape_of;
pub mod shuffle_channels;
pub mod slice;
pub mod slice_scatter;
pub mod space_to_batch;
pub mod space_to_depth;
pub mod split;
pub mod squeeze;
pub mod strided_slice;
pub mod string_tensor;
pub mod tile;
pub mod transpose;
pub mod unique;
pub mod unsqueeze;
pub mod variadic_split;

pub use batch_to_space::BatchToSpace;
pub use broadcast::{Broadcast, BroadcastMode};
pub use col2im::{Col2Im, Col2ImSizes};
pub use concat::Concat;
pub use constant::Const;
pub use convert::Convert;
pub use depth_to_space::{BlockMode, DepthToSpace};
pub use extract_image_patches::{ExtractImagePatches, PatchPadding};
pub use gather::Gather;
pub use gather_elements::GatherElements;
pub use gather_nd::GatherNd;
pub use gather_tree::GatherTree;
pub use identity::Identity;
pub use pad::{Pad, PadMode};
pub use parameter::Parameter;
pub use reshape::Reshape;
pub use result::ResultOp;
pub use reverse::{Reverse, ReverseMode};
pub use reverse_sequence::ReverseSequence;
pub use reverse_subsequences::ReverseSubsequences;
pub use roll::Roll;
pub use scatter_elements_update::{ScatterElementsReduction, ScatterElementsUpdate};
pub use scatter_nd_update::{ScatterNdReduction, ScatterNdUpdate};
pub use scatter_update::ScatterUpdate;
pub use shape_of::ShapeOf;
pub use shuffle_channels::ShuffleChannels;
pub use slice::Slice;
pub use slice_scatter::SliceScatter;
pub use space_to_batch::SpaceToBatch;
pub use space_to_depth::SpaceToDepth;
pub use split::Split;
pub use squeeze::Squeeze;
pub use strided_slice::StridedSlice;
pub use string_tensor::{StringTensorPack, StringTensorUnpack};
pub use tile::Tile;
pub use transpose::Transpose;
pub use unique::Unique;
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
            $crate::ops::Transpose,
            $crate::ops::Roll,
            $crate::ops::Tile,
            $crate::ops::Pad,
            $crate::ops::DepthToSpace,
            $crate::ops::SpaceToDepth,
            $crate::ops::ShuffleChannels,
            $crate::ops::Split,
            $crate::ops::VariadicSplit,
            $crate::ops::StridedSlice,
            $crate::ops::BatchToSpace,
            $crate::ops::SpaceToBatch,
            $crate::ops::Identity,
            $crate::ops::GatherElements,
            $crate::ops::GatherNd,
            $crate::ops::GatherTree,
            $crate::ops::ScatterUpdate,
            $crate::ops::ExtractImagePatches,
            $crate::ops::Col2Im,
            $crate::ops::ScatterNdUpdate,
            $crate::ops::SliceScatter,
            $crate::ops::ScatterElementsUpdate,
            $crate::ops::StringTensorUnpack,
            $crate::ops::StringTensorPack,
            $crate::ops::Unique,
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

#[cfg(test)]
mod tests {
    use ovir_tensor::{ElementType, PartialShape, Tensor};

    use super::*;
    use crate::error::ShapeErrorKind;
    use crate::fact::PortFact;
    use crate::operation::{Input, Operation};

    fn data(s: &str) -> PortFact {
        let shape: PartialShape = if s == "-" { PartialShape::scalar() } else { s.parse().unwrap() };
        PortFact::of(ElementType::F32, shape)
    }

    fn ints(s: &str) -> PortFact {
        let v: Vec<i64> = s.split(',').map(|v| v.parse().unwrap()).collect();
        PortFact::known(Tensor::from_vec(&[v.len()], v).unwrap())
    }

    fn scalar(s: &str) -> PortFact {
        PortFact::known(Tensor::from_vec(&[], vec![s.parse::<i64>().unwrap()]).unwrap())
    }

    /// OpenVINO's shapes with its near-infinite bounds (an unbounded
    /// dimension divided, `2..4611686018427387904`) unbounded, as ovir keeps
    /// them.
    fn unbounded(shapes: &str) -> String {
        let open = |d: ovir_tensor::Dim| match d.max() {
            Some(m) if m >= 1 << 56 => ovir_tensor::Dim::interval(d.min(), None).unwrap_or(d),
            _ => d,
        };
        let one = |s: &str| {
            let shape: PartialShape = s.trim_matches(['[', ']']).parse().unwrap();
            PartialShape::new(shape.dims().unwrap().iter().copied().map(open).collect()).to_string()
        };
        shapes.split(';').map(one).collect::<Vec<_>>().join(";")
    }

    /// What an op infers from these facts: the output shapes joined by
    /// `;`, or its errors.
    fn run(op: &dyn Operation, facts: &[PortFact]) -> Result<String, Vec<ShapeErrorKind>> {
        let inputs: Vec<Input<'_>> = facts.iter().map(Input::new).collect();
        let facts =
            op.infer(&inputs).map_err(|p| p.into_vec().into_iter().map(|p| p.kind).collect::<Vec<_>>())?;
        Ok(facts.iter().map(|f| f.shape.to_string()).collect::<Vec<_>>().join(";"))
    }

    /// 538 random cases of Pad, Tile, Split, VariadicSplit, DepthToSpace,
    /// SpaceToDepth, BatchToSpace and SpaceToBatch, as OpenVINO answers
    /// them. ovir refuses two kinds of case OpenVINO accepts, as the ops'
    /// modules say: pads that leave a negative size, and split lengths
    /// that cannot add up to the axis.
    #[test]
    fn the_layout_ops_infer_what_openvino_infers() {
        let table = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/layout_ops_openvino.txt"));
        let mut checked = 0;
        for line in table.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split(' ').collect();
            let (Some(&want), Some(&[op, attr, ref args @ ..])) = (f.last(), f.get(..f.len() - 1)) else {
                panic!("{line}")
            };
            let got = match (op, args) {
                ("Pad", [d, b, e]) => {
                    let mode = PadMode::from_attr(attr).unwrap();
                    run(&Pad { mode, version: 12 }, &[data(d), ints(b), ints(e)])
                }
                ("Tile", [d, r]) => run(&Tile, &[data(d), ints(r)]),
                ("Split", [d, a]) => run(&Split { num_splits: attr.parse().unwrap() }, &[data(d), scalar(a)]),
                ("VariadicSplit", [d, a, l]) => {
                    let outputs = l.split(',').count();
                    run(&VariadicSplit { outputs }, &[data(d), scalar(a), ints(l)])
                }
                ("DepthToSpace", [d]) => run(
                    &DepthToSpace { mode: BlockMode::BlocksFirst, block_size: attr.parse().unwrap() },
                    &[data(d)],
                ),
                ("SpaceToDepth", [d]) => run(
                    &SpaceToDepth { mode: BlockMode::BlocksFirst, block_size: attr.parse().unwrap() },
                    &[data(d)],
                ),
                ("BatchToSpace", [d, b, s, e]) => run(&BatchToSpace, &[data(d), ints(b), ints(s), ints(e)]),
                ("SpaceToBatch", [d, b, s, e]) => run(&SpaceToBatch, &[data(d), ints(b), ints(s), ints(e)]),
                _ => panic!("{line}"),
            };
            match (want, &got) {
                ("error", _) => assert!(got.is_err(), "{line}: {got:?}"),
                (_, Err(e))
                    if matches!(
                        e[..],
                        [ShapeErrorKind::PadSize { .. }] | [ShapeErrorKind::SplitLengthsSum { .. }]
                    ) => {}
                (want, _) => assert_eq!(got, Ok(unbounded(want)), "{line}"),
            }
            checked += 1;
        }
        assert_eq!(checked, 538);
    }
}
