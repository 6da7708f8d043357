//! ShapeOf, Gather, Broadcast, Unsqueeze, Squeeze, Reshape, Concat and
//! Slice: cases after OpenVINO's type_prop tests for each
//! (`src/core/tests/type_prop/{shape_of,gather,broadcast,unsqueeze,squeeze,reshape,concat,slice}.cpp`),
//! the error cases included, and the propagation of shape values through
//! the subgraphs converters write.

use ovir_ir::OutputRef;
use ovir_tensor::{Dim, Tensor};

use crate::graph::{check, Expect, Graph};

/// One input of the layer under test.
enum In {
    /// An f32 Parameter of this shape.
    Data(&'static str),
    /// A Parameter of this element type and shape.
    Param(&'static str, &'static str),
    /// A 1-D i64 Const.
    Vec(&'static [i64]),
    /// A scalar i64 Const.
    Scalar(i64),
    /// A 1-D f32 Const.
    Floats(&'static [f32]),
}

struct Case {
    name: &'static str,
    op: &'static str,
    version: &'static str,
    attrs: &'static [(&'static str, &'static str)],
    inputs: &'static [In],
    expect: Expect,
}

use Expect::{Err, Ok};
use In::{Data, Floats, Param, Scalar, Vec as V};

const CASES: &[Case] = &[
    // ShapeOf
    Case {
        name: "shape_of_v1",
        op: "ShapeOf",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("1,2,3,4")],
        expect: Ok("i64", "[4]"),
    },
    Case {
        name: "shape_of_v3_i32",
        op: "ShapeOf",
        version: "opset3",
        attrs: &[("output_type", "i32")],
        inputs: &[Data("?,3")],
        expect: Ok("i32", "[2]"),
    },
    Case {
        name: "shape_of_dynamic_rank",
        op: "ShapeOf",
        version: "opset3",
        attrs: &[],
        inputs: &[Data("...")],
        expect: Ok("i64", "[?]"),
    },
    Case {
        name: "shape_of_scalar",
        op: "ShapeOf",
        version: "opset3",
        attrs: &[],
        inputs: &[Data("")],
        expect: Ok("i64", "[0]"),
    },
    Case {
        name: "shape_of_v3_bad_output_type",
        op: "ShapeOf",
        version: "opset3",
        attrs: &[("output_type", "f32")],
        inputs: &[Data("2")],
        expect: Err("ShapeOfOutputType", "must be i32 or i64"),
    },
    // Gather
    Case {
        name: "gather_v1",
        op: "Gather",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("3,2"), V(&[0, 1, 1, 2]), Scalar(0)],
        expect: Ok("f32", "[4,2]"),
    },
    Case {
        name: "gather_v1_ignores_batch_dims",
        op: "Gather",
        version: "opset1",
        attrs: &[("batch_dims", "1")],
        inputs: &[Data("3,2"), V(&[0]), Scalar(1)],
        expect: Ok("f32", "[3,1]"),
    },
    Case {
        name: "gather_v8_negative_axis",
        op: "Gather",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("2,3,4"), V(&[0, 3]), Scalar(-1)],
        expect: Ok("f32", "[2,3,2]"),
    },
    Case {
        name: "gather_v8_scalar_index",
        op: "Gather",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("2,3,4"), Scalar(1), Scalar(1)],
        expect: Ok("f32", "[2,4]"),
    },
    Case {
        name: "gather_v7_batch_dims_1",
        op: "Gather",
        version: "opset7",
        attrs: &[("batch_dims", "1")],
        inputs: &[Data("2,3,4"), Param("i32", "2,5"), Scalar(2)],
        expect: Ok("f32", "[2,3,5]"),
    },
    Case {
        name: "gather_v8_negative_batch_dims",
        op: "Gather",
        version: "opset8",
        attrs: &[("batch_dims", "-1")],
        inputs: &[Data("2,3,4"), Param("i32", "2,5"), Scalar(1)],
        expect: Ok("f32", "[2,5,4]"),
    },
    Case {
        name: "gather_v8_batch_dims_merge",
        op: "Gather",
        version: "opset8",
        attrs: &[("batch_dims", "1")],
        inputs: &[Data("?,3,4"), Param("i64", "2..5,6"), Scalar(1)],
        expect: Ok("f32", "[2..5,6,4]"),
    },
    Case {
        name: "gather_dynamic_dims_kept",
        op: "Gather",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("?,3,1..10"), V(&[0, 1]), Scalar(2)],
        expect: Ok("f32", "[?,3,2]"),
    },
    Case {
        name: "gather_axis_unknown",
        op: "Gather",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("2,3,4"), V(&[0, 1]), Param("i64", "")],
        expect: Ok("f32", "[?,?,?]"),
    },
    Case {
        name: "gather_axis_out_of_range",
        op: "Gather",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("3,2"), V(&[0]), Scalar(2)],
        expect: Err("OpAxisOutOfRange", "Gather axis 2 is out of range for rank 2"),
    },
    Case {
        name: "gather_batch_dims_above_axis",
        op: "Gather",
        version: "opset8",
        attrs: &[("batch_dims", "1")],
        inputs: &[Data("2,3,4"), Param("i32", "2,3"), Scalar(0)],
        expect: Err("BatchDimsAboveAxis", "must not be above its axis"),
    },
    Case {
        name: "gather_batch_dims_above_indices_rank",
        op: "Gather",
        version: "opset8",
        attrs: &[("batch_dims", "2")],
        inputs: &[Data("2,3,4"), Param("i32", "2"), Scalar(2)],
        expect: Err("BatchDimsOutOfRange", "out of range for indices of rank 1"),
    },
    Case {
        name: "gather_batch_dims_mismatch",
        op: "Gather",
        version: "opset8",
        attrs: &[("batch_dims", "1")],
        inputs: &[Data("2,3"), Param("i32", "3,2"), Scalar(1)],
        expect: Err("BatchDimsMismatch", "must be equal"),
    },
    Case {
        name: "gather_float_indices",
        op: "Gather",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("2,3"), Floats(&[0.0]), Scalar(0)],
        expect: Err("IntegerInput", "indices input of Gather must hold integers"),
    },
    Case {
        name: "gather_axis_two_elements",
        op: "Gather",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("2,3"), V(&[0]), V(&[0, 1])],
        expect: Err("InputShape", "must be a scalar or a tensor of one element"),
    },
    // Broadcast
    Case {
        name: "broadcast_numpy",
        op: "Broadcast",
        version: "opset3",
        attrs: &[("mode", "numpy")],
        inputs: &[Data("3,1"), V(&[2, 3, 6])],
        expect: Ok("f32", "[2,3,6]"),
    },
    Case {
        name: "broadcast_default_mode_is_numpy",
        op: "Broadcast",
        version: "opset1",
        attrs: &[],
        inputs: &[Data(""), V(&[4])],
        expect: Ok("f32", "[4]"),
    },
    Case {
        name: "broadcast_numpy_incompatible",
        op: "Broadcast",
        version: "opset3",
        attrs: &[("mode", "numpy")],
        inputs: &[Data("3,2"), V(&[2, 3, 6])],
        expect: Err("BroadcastDim", "cannot stretch a dimension of 2 to 6"),
    },
    Case {
        name: "broadcast_numpy_target_rank_too_small",
        op: "Broadcast",
        version: "opset3",
        attrs: &[("mode", "numpy")],
        inputs: &[Data("2,3,4"), V(&[3, 4])],
        expect: Err("BroadcastTargetRank", "at least the data's rank 3"),
    },
    Case {
        name: "broadcast_explicit",
        op: "Broadcast",
        version: "opset1",
        attrs: &[("mode", "explicit")],
        inputs: &[Data("3"), V(&[2, 3, 4]), V(&[1])],
        expect: Ok("f32", "[2,3,4]"),
    },
    Case {
        name: "broadcast_explicit_unsorted_mapping",
        op: "Broadcast",
        version: "opset3",
        attrs: &[("mode", "explicit")],
        inputs: &[Data("3,4"), V(&[4, 3, 2]), V(&[2, 1])],
        expect: Err("AxesMapping", "one increasing axis per data axis"),
    },
    Case {
        name: "broadcast_explicit_mismatch",
        op: "Broadcast",
        version: "opset3",
        attrs: &[("mode", "explicit")],
        inputs: &[Data("3"), V(&[2, 3, 4]), V(&[2])],
        expect: Err("BroadcastDim", "of 3 to 4"),
    },
    Case {
        name: "broadcast_explicit_needs_mapping",
        op: "Broadcast",
        version: "opset3",
        attrs: &[("mode", "explicit")],
        inputs: &[Data("3"), V(&[2, 3])],
        expect: Err("AxesMappingInput", "needs a third input"),
    },
    Case {
        name: "broadcast_v3_numpy_refuses_mapping",
        op: "Broadcast",
        version: "opset3",
        attrs: &[("mode", "numpy")],
        inputs: &[Data("3"), V(&[2, 3]), V(&[1])],
        expect: Err("AxesMappingInput", "takes no axes_mapping"),
    },
    Case {
        name: "broadcast_bidirectional",
        op: "Broadcast",
        version: "opset3",
        attrs: &[("mode", "bidirectional")],
        inputs: &[Data("4,1"), V(&[1, 3])],
        expect: Ok("f32", "[4,3]"),
    },
    Case {
        name: "broadcast_bidirectional_grows_rank",
        op: "Broadcast",
        version: "opset3",
        attrs: &[("mode", "bidirectional")],
        inputs: &[Data("2,3"), V(&[4, 1, 1])],
        expect: Ok("f32", "[4,2,3]"),
    },
    Case {
        name: "broadcast_bidirectional_dynamic",
        op: "Broadcast",
        version: "opset3",
        attrs: &[("mode", "bidirectional")],
        inputs: &[Data("?,1,2..5"), V(&[3, 4, 1])],
        expect: Ok("f32", "[3,4,2..5]"),
    },
    Case {
        name: "broadcast_bidirectional_not_in_v1",
        op: "Broadcast",
        version: "opset1",
        attrs: &[("mode", "bidirectional")],
        inputs: &[Data("4,1"), V(&[1, 3])],
        expect: Err("InvalidBroadcastMode", "expected numpy or explicit"),
    },
    Case {
        name: "broadcast_unknown_target",
        op: "Broadcast",
        version: "opset3",
        attrs: &[],
        inputs: &[Data("3"), Param("i64", "3")],
        expect: Ok("f32", "[?,?,?]"),
    },
    Case {
        name: "broadcast_target_not_1d",
        op: "Broadcast",
        version: "opset3",
        attrs: &[],
        inputs: &[Data("3"), Param("i64", "1,3")],
        expect: Err("InputShape", "target shape input of Broadcast must be a 1-D tensor"),
    },
    Case {
        name: "broadcast_negative_target",
        op: "Broadcast",
        version: "opset3",
        attrs: &[],
        inputs: &[Data("3"), V(&[-1, 3])],
        expect: Err("NegativeValue", "negative value -1 at position 0"),
    },
    // Unsqueeze
    Case {
        name: "unsqueeze_two_axes",
        op: "Unsqueeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("4,3"), V(&[0, 3])],
        expect: Ok("f32", "[1,4,3,1]"),
    },
    Case {
        name: "unsqueeze_negative_axis",
        op: "Unsqueeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("4,3"), Scalar(-1)],
        expect: Ok("f32", "[4,3,1]"),
    },
    Case {
        name: "unsqueeze_repeated_axis",
        op: "Unsqueeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("4,3"), V(&[0, 0])],
        expect: Ok("f32", "[1,4,3]"),
    },
    Case {
        name: "unsqueeze_two_values_one_axis",
        op: "Unsqueeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("2,3,4"), V(&[4, -1])],
        expect: Ok("f32", "[2,3,4,1]"),
    },
    Case {
        name: "unsqueeze_dynamic_rank",
        op: "Unsqueeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("..."), V(&[0])],
        expect: Ok("f32", "[...]"),
    },
    Case {
        name: "unsqueeze_axes_unknown",
        op: "Unsqueeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("?,2"), Param("i64", "1")],
        expect: Ok("f32", "[?,?,?]"),
    },
    Case {
        name: "unsqueeze_empty_axes",
        op: "Unsqueeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("4,3"), V(&[])],
        expect: Err("EmptyAxes", "at least one axis"),
    },
    Case {
        name: "unsqueeze_axis_out_of_range",
        op: "Unsqueeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("4,3"), V(&[3])],
        expect: Err("OpAxisOutOfRange", "Unsqueeze axis 3 is out of range for rank 3"),
    },
    Case {
        name: "unsqueeze_float_axes",
        op: "Unsqueeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("4,3"), Floats(&[0.0])],
        expect: Err("IntegerInput", "axes input of Unsqueeze"),
    },
    // Squeeze
    Case {
        name: "squeeze_all_ones",
        op: "Squeeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("1,4,1,3")],
        expect: Ok("f32", "[4,3]"),
    },
    Case {
        name: "squeeze_one_axis",
        op: "Squeeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("1,4,1,3"), V(&[-2])],
        expect: Ok("f32", "[1,4,3]"),
    },
    Case {
        name: "squeeze_axis_not_one_is_kept",
        op: "Squeeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("1,4,1,3"), V(&[1])],
        expect: Ok("f32", "[1,4,1,3]"),
    },
    Case {
        name: "squeeze_empty_axes_squeezes_all",
        op: "Squeeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("1,4,1"), V(&[])],
        expect: Ok("f32", "[4]"),
    },
    Case {
        name: "squeeze_dynamic_dim_may_be_one",
        op: "Squeeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("?,4")],
        expect: Ok("f32", "[...]"),
    },
    Case {
        name: "squeeze_interval_without_one",
        op: "Squeeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("2..5,1")],
        expect: Ok("f32", "[2..5]"),
    },
    Case {
        name: "squeeze_listed_dynamic_dim",
        op: "Squeeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("?,4"), V(&[0])],
        expect: Ok("f32", "[4]"),
    },
    Case {
        name: "squeeze_axis_out_of_range",
        op: "Squeeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("1,4"), V(&[2])],
        expect: Err("OpAxisOutOfRange", "Squeeze axis 2 is out of range for rank 2"),
    },
    Case {
        name: "squeeze_axes_2d",
        op: "Squeeze",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("1,4"), Param("i64", "1,1")],
        expect: Err("InputShape", "a scalar or a 1-D tensor"),
    },
    // Reshape
    Case {
        name: "reshape_infer_minus_one",
        op: "Reshape",
        version: "opset1",
        attrs: &[("special_zero", "false")],
        inputs: &[Data("2,3,4"), V(&[6, -1])],
        expect: Ok("f32", "[6,4]"),
    },
    Case {
        name: "reshape_special_zero",
        op: "Reshape",
        version: "opset1",
        attrs: &[("special_zero", "true")],
        inputs: &[Data("2,3,4"), V(&[0, -1])],
        expect: Ok("f32", "[2,12]"),
    },
    Case {
        name: "reshape_zero_without_special_zero",
        op: "Reshape",
        version: "opset1",
        attrs: &[("special_zero", "false")],
        inputs: &[Data("0,3"), V(&[0, -1])],
        expect: Ok("f32", "[0,0]"),
    },
    Case {
        name: "reshape_dynamic_input",
        op: "Reshape",
        version: "opset1",
        attrs: &[("special_zero", "true")],
        inputs: &[Data("?,3,4"), V(&[0, 12])],
        expect: Ok("f32", "[?,12]"),
    },
    Case {
        name: "reshape_unknown_pattern",
        op: "Reshape",
        version: "opset1",
        attrs: &[("special_zero", "false")],
        inputs: &[Data("2,3"), Param("i64", "3")],
        expect: Ok("f32", "[?,?,?]"),
    },
    Case {
        name: "reshape_two_minus_ones",
        op: "Reshape",
        version: "opset1",
        attrs: &[("special_zero", "false")],
        inputs: &[Data("2,3,4"), V(&[-1, -1])],
        expect: Err("ReshapeManyInferred", "more than one -1"),
    },
    Case {
        name: "reshape_below_minus_one",
        op: "Reshape",
        version: "opset1",
        attrs: &[("special_zero", "false")],
        inputs: &[Data("2,3"), V(&[-2, 3])],
        expect: Err("ReshapeBelowMinusOne", "below -1"),
    },
    Case {
        name: "reshape_count_mismatch",
        op: "Reshape",
        version: "opset1",
        attrs: &[("special_zero", "false")],
        inputs: &[Data("2,3,4"), V(&[5, -1])],
        expect: Err("ReshapeCount", "the element counts differ"),
    },
    Case {
        name: "reshape_count_mismatch_static",
        op: "Reshape",
        version: "opset1",
        attrs: &[("special_zero", "false")],
        inputs: &[Data("2,3"), V(&[4, 2])],
        expect: Err("ReshapeCount", "cannot turn the input of shape [2,3]"),
    },
    Case {
        name: "reshape_zero_past_rank",
        op: "Reshape",
        version: "opset1",
        attrs: &[("special_zero", "true")],
        inputs: &[Data("6"), V(&[3, 0])],
        expect: Err("ReshapeZeroPastRank", "position 1"),
    },
    Case {
        name: "reshape_missing_special_zero",
        op: "Reshape",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("6"), V(&[3, 2])],
        expect: Err("MissingAttribute", "special_zero"),
    },
    Case {
        name: "reshape_bad_special_zero",
        op: "Reshape",
        version: "opset1",
        attrs: &[("special_zero", "maybe")],
        inputs: &[Data("6"), V(&[3, 2])],
        expect: Err("InvalidBoolean", "true or false"),
    },
    // Concat
    Case {
        name: "concat_axis_0",
        op: "Concat",
        version: "opset1",
        attrs: &[("axis", "0")],
        inputs: &[Data("2,3"), Data("4,3")],
        expect: Ok("f32", "[6,3]"),
    },
    Case {
        name: "concat_negative_axis",
        op: "Concat",
        version: "opset1",
        attrs: &[("axis", "-1")],
        inputs: &[Data("2,3"), Data("2,1"), Data("2,2")],
        expect: Ok("f32", "[2,6]"),
    },
    Case {
        name: "concat_intervals",
        op: "Concat",
        version: "opset1",
        attrs: &[("axis", "0")],
        inputs: &[Data("?,3"), Data("2..4,?")],
        expect: Ok("f32", "[2..,3]"),
    },
    Case {
        name: "concat_dynamic_rank_input",
        op: "Concat",
        version: "opset1",
        attrs: &[("axis", "1")],
        inputs: &[Data("..."), Data("2,3")],
        expect: Ok("f32", "[2,3..]"),
    },
    Case {
        name: "concat_single_input",
        op: "Concat",
        version: "opset1",
        attrs: &[("axis", "0")],
        inputs: &[Data("5")],
        expect: Ok("f32", "[5]"),
    },
    Case {
        name: "concat_dims_mismatch",
        op: "Concat",
        version: "opset1",
        attrs: &[("axis", "0")],
        inputs: &[Data("2,3"), Data("2,4")],
        expect: Err("ConcatShape", "input 1 has shape [2,4]"),
    },
    Case {
        name: "concat_rank_mismatch",
        op: "Concat",
        version: "opset1",
        attrs: &[("axis", "0")],
        inputs: &[Data("2,3"), Data("2")],
        expect: Err("ConcatShape", "input 1 has shape [2]"),
    },
    Case {
        name: "concat_axis_out_of_range",
        op: "Concat",
        version: "opset1",
        attrs: &[("axis", "2")],
        inputs: &[Data("2,3"), Data("2,3")],
        expect: Err("OpAxisOutOfRange", "Concat axis 2"),
    },
    Case {
        name: "concat_scalars",
        op: "Concat",
        version: "opset1",
        attrs: &[("axis", "0")],
        inputs: &[Data(""), Data("")],
        expect: Err("OpAxisOutOfRange", "a scalar has no axes"),
    },
    Case {
        name: "concat_types_differ",
        op: "Concat",
        version: "opset1",
        attrs: &[("axis", "0")],
        inputs: &[Data("2"), Param("i32", "2")],
        expect: Err("InputTypes", "input 1 of Concat is i32, but the inputs before it are f32"),
    },
    Case {
        name: "concat_missing_axis",
        op: "Concat",
        version: "opset1",
        attrs: &[],
        inputs: &[Data("2")],
        expect: Err("MissingAttribute", "axis"),
    },
    // Slice
    Case {
        name: "slice_forward_clamped",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10,10"), V(&[1, -100]), V(&[8, 100]), V(&[2, 1])],
        expect: Ok("f32", "[4,10]"),
    },
    Case {
        name: "slice_backward_with_axes",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10,20,30"), V(&[-1, 20]), V(&[i64::MIN, 0]), V(&[-1, -3]), V(&[2, -2])],
        expect: Ok("f32", "[10,7,30]"),
    },
    Case {
        name: "slice_start_out_of_range",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("5"), V(&[10]), V(&[20]), V(&[1])],
        expect: Ok("f32", "[0]"),
    },
    Case {
        name: "slice_whole_interval_axis",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("2..8,?"), V(&[0]), V(&[i64::MAX]), V(&[2])],
        expect: Ok("f32", "[1..4,?]"),
    },
    Case {
        name: "slice_flip_dynamic_axis",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("?,3"), V(&[-1]), V(&[i64::MIN]), V(&[-1]), V(&[0])],
        expect: Ok("f32", "[?,3]"),
    },
    Case {
        name: "slice_part_of_interval_axis",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("2..8"), V(&[1]), V(&[3]), V(&[1])],
        expect: Ok("f32", "[..8]"),
    },
    Case {
        name: "slice_unknown_stop",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10,?"), V(&[1]), Param("i64", "1"), V(&[1])],
        expect: Ok("f32", "[..10,?]"),
    },
    Case {
        name: "slice_unknown_axes",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10,2..5"), V(&[1]), V(&[5]), V(&[1]), Param("i32", "1")],
        expect: Ok("f32", "[..10,..5]"),
    },
    Case {
        name: "slice_dynamic_rank",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("..."), V(&[1]), V(&[5]), V(&[1])],
        expect: Ok("f32", "[...]"),
    },
    Case {
        name: "slice_step_zero",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10"), V(&[1]), V(&[5]), V(&[0])],
        expect: Err("SliceStepZero", "step 0 of Slice is 0"),
    },
    Case {
        name: "slice_lengths_differ",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10,10"), V(&[1]), V(&[5, 5]), V(&[1])],
        expect: Err("SliceLengths", "they have 1, 2, 1 elements"),
    },
    Case {
        name: "slice_axes_length_differs",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10,10"), V(&[1]), V(&[5]), V(&[1]), V(&[0, 1])],
        expect: Err("SliceLengths", "and axes inputs"),
    },
    Case {
        name: "slice_repeated_axis",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10,10"), V(&[1, 1]), V(&[5, 5]), V(&[1, 1]), V(&[1, -1])],
        expect: Err("SliceRepeatedAxis", "axis 1 appears more than once"),
    },
    Case {
        name: "slice_axis_out_of_range",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10,10"), V(&[1]), V(&[5]), V(&[1]), V(&[2])],
        expect: Err("OpAxisOutOfRange", "Slice axes value 2"),
    },
    Case {
        name: "slice_too_many_values",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10"), V(&[1, 1]), V(&[5, 5]), V(&[1, 1])],
        expect: Err("SliceTooManyAxes", "data has rank 1"),
    },
    Case {
        name: "slice_float_start",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10"), Floats(&[1.0]), V(&[5]), V(&[1])],
        expect: Err("IntegerInput", "start input of Slice"),
    },
    Case {
        name: "slice_scalar_step",
        op: "Slice",
        version: "opset8",
        attrs: &[],
        inputs: &[Data("10"), V(&[1]), V(&[5]), Scalar(1)],
        expect: Err("InputShape", "step input of Slice must be a 1-D tensor"),
    },
    Case {
        name: "slice_before_opset8",
        op: "Slice",
        version: "opset7",
        attrs: &[],
        inputs: &[Data("10"), V(&[1]), V(&[5]), V(&[1])],
        expect: Err("UnsupportedVersion", "opset8 to opset16"),
    },
];

fn build(g: &mut Graph, case: &Case) -> OutputRef {
    let inputs: Vec<OutputRef> = case
        .inputs
        .iter()
        .map(|i| match i {
            Data(shape) => g.parameter("f32", shape),
            Param(ty, shape) => g.parameter(ty, shape),
            V(values) => g.vector(values),
            Scalar(v) => g.constant(Tensor::from_vec(&[], vec![*v]).unwrap()),
            Floats(values) => g.vector(values),
        })
        .collect();
    OutputRef { layer: g.add(case.op, case.version, case.attrs, &inputs, 1), port: 0 }
}

#[test]
fn openvino_type_prop_cases() {
    for case in CASES {
        let mut g = Graph::new();
        let out = build(&mut g, case);
        check(case.name, g.infer(out), &case.expect);
    }
}

#[test]
fn squeeze_15_reads_allow_axis_skip() {
    // A listed axis that may be 1 is squeezed, unless allow_axis_skip
    // leaves the rank unknown; Squeeze-15 without the attribute is as
    // Squeeze-1.
    for (attrs, want) in [
        (&[][..], "[2]"),
        (&[("allow_axis_skip", "false")][..], "[2]"),
        (&[("allow_axis_skip", "true")][..], "[...]"),
    ] {
        let mut g = Graph::new();
        let data = g.parameter("f32", "?,2");
        let axes = g.vector(&[0i64]);
        let out = OutputRef { layer: g.add("Squeeze", "opset15", attrs, &[data, axes], 1), port: 0 };
        check("squeeze_opset15", g.infer(out), &Ok("f32", want));
    }
    let mut g = Graph::new();
    let data = g.parameter("f32", "1,2");
    let out = OutputRef {
        layer: g.add("Squeeze", "opset15", &[("allow_axis_skip", "maybe")], &[data], 1),
        port: 0,
    };
    check("squeeze_opset15_bad_flag", g.infer(out), &Err("InvalidBoolean", "maybe"));
}

#[test]
fn input_counts_are_checked_against_ranges() {
    let mut g = Graph::new();
    let data = g.parameter("f32", "2");
    let out = OutputRef { layer: g.add("Broadcast", "opset3", &[], &[data], 1), port: 0 };
    check(
        "broadcast_one_input",
        g.infer(out),
        &Err("InputCountRange", "Broadcast takes 2 to 3 inputs, but the layer has 1"),
    );
    let mut g = Graph::new();
    let out = OutputRef { layer: g.add("Concat", "opset1", &[("axis", "0")], &[], 1), port: 0 };
    check("concat_no_input", g.infer(out), &Err("InputCountRange", "1 or more inputs"));
}

/// The subgraph TensorFlow's front end writes for `tf.reverse(x, [1])`:
/// sequence lengths built from the shape of the data.
fn tf_reverse(g: &mut Graph, shape: &str) -> (OutputRef, OutputRef) {
    let data = g.parameter("f32", shape);
    let shape =
        OutputRef { layer: g.add("ShapeOf", "opset3", &[("output_type", "i32")], &[data], 1), port: 0 };
    let seq_index = g.vector(&[1i32]);
    let batch_index = g.vector(&[0i32]);
    let zero = g.constant(Tensor::from_vec(&[], vec![0i32]).unwrap());
    let seq = OutputRef {
        layer: g.add("Gather", "opset8", &[("batch_dims", "0")], &[shape, seq_index, zero], 1),
        port: 0,
    };
    let batch = OutputRef {
        layer: g.add("Gather", "opset8", &[("batch_dims", "0")], &[shape, batch_index, zero], 1),
        port: 0,
    };
    let lengths =
        OutputRef { layer: g.add("Broadcast", "opset3", &[("mode", "numpy")], &[seq, batch], 1), port: 0 };
    let reversed = g.op("ReverseSequence", &[("batch_axis", "0"), ("seq_axis", "1")], &[data, lengths]);
    (lengths, reversed)
}

#[test]
fn static_shapes_make_sequence_lengths_a_known_constant() {
    let mut g = Graph::new();
    let (lengths, reversed) = tf_reverse(&mut g, "2,5,3");
    g.result(reversed);
    let (_, info) = g.analyze();
    let info = info.unwrap();
    let fact = info.output(lengths);
    assert_eq!(fact.shape.to_string(), "[2]");
    let value = fact.value.as_ref().expect("the lengths are known before the model runs");
    assert_eq!(value.to_vec::<i32>().unwrap(), vec![5, 5]);
    assert_eq!(info.output(reversed).shape.to_string(), "[2,5,3]");
}

#[test]
fn dynamic_shapes_keep_what_is_known() {
    let mut g = Graph::new();
    let (lengths, reversed) = tf_reverse(&mut g, "?,5,3");
    g.result(reversed);
    let (_, info) = g.analyze();
    let info = info.unwrap();
    let fact = info.output(lengths);
    assert_eq!(fact.shape.to_string(), "[?]");
    assert!(fact.value.is_none());
    assert_eq!(info.output(reversed).shape.to_string(), "[?,5,3]");

    // The batch size is an interval: the lengths have as many elements,
    // each known to be 5.
    let mut g = Graph::new();
    let (lengths, _) = tf_reverse(&mut g, "3,5,?");
    let fact = g.infer(lengths).unwrap();
    assert_eq!(fact.value.unwrap().to_vec::<i32>().unwrap(), vec![5, 5, 5]);
}

#[test]
fn shape_values_flow_through_concat_and_reshape() {
    let mut g = Graph::new();
    let data = g.parameter("f32", "?,3,4");
    let shape = OutputRef { layer: g.add("ShapeOf", "opset3", &[], &[data], 1), port: 0 };
    let first = g.vector(&[0i64]);
    let axis = g.constant(Tensor::from_vec(&[], vec![0i64]).unwrap());
    let batch = OutputRef { layer: g.add("Gather", "opset8", &[], &[shape, first, axis], 1), port: 0 };
    let twelve = g.vector(&[12i64]);
    let pattern = g.op("Concat", &[("axis", "0")], &[batch, twelve]);
    let fact = g.infer(pattern).unwrap();
    assert_eq!(fact.value_dims, Some(vec![Dim::DYNAMIC, Dim::fixed(12)]));

    let mut g = Graph::new();
    let data = g.parameter("f32", "?,3,4");
    let shape = OutputRef { layer: g.add("ShapeOf", "opset3", &[], &[data], 1), port: 0 };
    let first = g.vector(&[0i64]);
    let axis = g.constant(Tensor::from_vec(&[], vec![0i64]).unwrap());
    let batch = OutputRef { layer: g.add("Gather", "opset8", &[], &[shape, first, axis], 1), port: 0 };
    let twelve = g.vector(&[12i64]);
    let pattern = g.op("Concat", &[("axis", "0")], &[batch, twelve]);
    let reshaped = g.op("Reshape", &[("special_zero", "false")], &[data, pattern]);
    check("reshape_from_shape_of", g.infer(reshaped), &Ok("f32", "[?,12]"));
}

#[test]
fn shape_values_flow_through_slice() {
    // x.shape[1:] and x.shape[::-1] of a partly dynamic input.
    let mut g = Graph::new();
    let data = g.parameter("f32", "?,3,4");
    let shape = OutputRef { layer: g.add("ShapeOf", "opset3", &[], &[data], 1), port: 0 };
    let (b, e, s) = (g.vector(&[1i64]), g.vector(&[i64::MAX]), g.vector(&[1i64]));
    let tail = OutputRef { layer: g.add("Slice", "opset8", &[], &[shape, b, e, s], 1), port: 0 };
    let fact = g.infer(tail).unwrap();
    assert_eq!(fact.value.unwrap().to_vec::<i64>().unwrap(), vec![3, 4]);

    let mut g = Graph::new();
    let data = g.parameter("f32", "?,3,4");
    let shape = OutputRef { layer: g.add("ShapeOf", "opset3", &[], &[data], 1), port: 0 };
    let (b, e, s) = (g.vector(&[-1i64]), g.vector(&[i64::MIN]), g.vector(&[-1i64]));
    let flipped = OutputRef { layer: g.add("Slice", "opset8", &[], &[shape, b, e, s], 1), port: 0 };
    let fact = g.infer(flipped).unwrap();
    assert_eq!(fact.value_dims, Some(vec![Dim::fixed(4), Dim::fixed(3), Dim::DYNAMIC]));
}
