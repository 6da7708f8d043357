//! OpenVINO's Reverse type_prop cases (`src/core/tests/type_prop/reverse.cpp`):
//! the same inputs and outcomes, one row each.

use crate::graph::{check, Expect, Graph};

/// How the axes input is fed.
enum Axes {
    /// A 1-D i64 Const.
    Const(&'static [i64]),
    /// A Parameter of this element type and shape.
    Param(&'static str, &'static str),
}

struct Case {
    name: &'static str,
    data: &'static str,
    axes: Axes,
    mode: &'static str,
    expect: Expect,
}

use Axes::{Const, Param};
use Expect::{Err, Ok};

const CASES: &[Case] = &[
    Case { name: "reverse_1d_deduce", data: "5", axes: Const(&[0]), mode: "index", expect: Ok("f32", "[5]") },
    Case {
        name: "reverse_2d_deduce_0",
        data: "5,6",
        axes: Const(&[0]),
        mode: "index",
        expect: Ok("f32", "[5,6]"),
    },
    Case {
        name: "reverse_2d_deduce_1",
        data: "5,6",
        axes: Const(&[1]),
        mode: "index",
        expect: Ok("f32", "[5,6]"),
    },
    Case {
        name: "reverse_2d_deduce_01",
        data: "5,6",
        axes: Const(&[0, 1]),
        mode: "index",
        expect: Ok("f32", "[5,6]"),
    },
    Case {
        name: "reverse_3d_deduce_0",
        data: "5,6,7",
        axes: Const(&[0]),
        mode: "index",
        expect: Ok("f32", "[5,6,7]"),
    },
    Case {
        name: "reverse_3d_deduce_1",
        data: "5,6,7",
        axes: Const(&[1]),
        mode: "index",
        expect: Ok("f32", "[5,6,7]"),
    },
    Case {
        name: "reverse_3d_deduce_2",
        data: "5,6,7",
        axes: Const(&[2]),
        mode: "index",
        expect: Ok("f32", "[5,6,7]"),
    },
    Case {
        name: "reverse_3d_deduce_01",
        data: "5,6,7",
        axes: Const(&[0, 1]),
        mode: "index",
        expect: Ok("f32", "[5,6,7]"),
    },
    Case {
        name: "reverse_3d_deduce_02",
        data: "5,6,7",
        axes: Const(&[0, 2]),
        mode: "index",
        expect: Ok("f32", "[5,6,7]"),
    },
    Case {
        name: "reverse_3d_deduce_12",
        data: "5,6,7",
        axes: Const(&[1, 2]),
        mode: "index",
        expect: Ok("f32", "[5,6,7]"),
    },
    Case {
        name: "reverse_3d_deduce_012",
        data: "5,6,7",
        axes: Const(&[0, 1, 2]),
        mode: "index",
        expect: Ok("f32", "[5,6,7]"),
    },
    Case {
        name: "reverse_3d_deduce_oob",
        data: "5,6,7",
        axes: Const(&[0, 3, 2]),
        mode: "index",
        expect: Err("AxesOutOfBounds", "some of the axes {0, 2, 3} are out of bounds for data of rank 3"),
    },
    Case {
        // A dynamic data rank defers every axis check to run time.
        name: "reverse_partial_rank_dynamic",
        data: "...",
        axes: Const(&[0, 2, 1776, 90909]),
        mode: "index",
        expect: Ok("f32", "[...]"),
    },
    Case {
        name: "partial_rank_static_dynamic_axes_ok",
        data: "?,10..300,2,3",
        axes: Const(&[0, 2]),
        mode: "index",
        expect: Ok("f32", "[?,10..300,2,3]"),
    },
    Case {
        name: "axes_index_is_not_1d_tensor",
        data: "?,?,2,3",
        axes: Param("i64", "2,3"),
        mode: "index",
        expect: Err("AxesNotVector", "must be a 1-D tensor"),
    },
    Case {
        name: "axes_mask_is_not_1d_tensor",
        data: "?,?,2,3",
        axes: Param("boolean", "2,3"),
        mode: "mask",
        expect: Err("AxesNotVector", "must be a 1-D tensor"),
    },
    Case {
        name: "axes_mask_length_lt_input_rank",
        data: "?,?,2,3",
        axes: Param("boolean", "2"),
        mode: "mask",
        expect: Err("MaskLength", "it has 2 elements, but the data has rank 4"),
    },
    Case {
        name: "axes_mask_length_gt_input_rank",
        data: "?,?,2,3",
        axes: Param("boolean", "5"),
        mode: "mask",
        expect: Err("MaskLength", "it has 5 elements, but the data has rank 4"),
    },
    Case {
        name: "axes_index_is_scalar",
        data: "2,2..10,8",
        axes: Param("i64", ""),
        mode: "index",
        expect: Err("AxesNotVector", "must be a 1-D tensor, but its shape is []"),
    },
    Case {
        name: "axes_mask_is_scalar",
        data: "2,2..10,8",
        axes: Param("boolean", ""),
        mode: "mask",
        expect: Err("AxesNotVector", "must be a 1-D tensor, but its shape is []"),
    },
    Case {
        name: "axes_mask_not_boolean_type",
        data: "2,2..10,8",
        axes: Param("i32", "4"),
        mode: "mask",
        expect: Err("MaskAxesType", "in mask mode the axes input of Reverse must be boolean, but it is i32"),
    },
    Case {
        name: "axes_index_not_integer_type",
        data: "2,2..10,8",
        axes: Param("f32", "4"),
        mode: "index",
        expect: Err(
            "IndexAxesType",
            "in index mode the axes input of Reverse must hold integers, but it holds f32",
        ),
    },
    Case {
        name: "param_static_rank_partial_shape_axes_out_of_input_rank",
        data: "?,?,2,3",
        axes: Const(&[0, 4, 2]),
        mode: "index",
        expect: Err("AxesOutOfBounds", "some of the axes {0, 2, 4} are out of bounds for data of rank 4"),
    },
    Case {
        name: "param_static_rank_partial_shape_axes_negatives",
        data: "?,2..,..3,5",
        axes: Const(&[0, -1, 2]),
        mode: "index",
        expect: Ok("f32", "[?,2..,..3,5]"),
    },
    Case {
        // Repeated axes are a set: more axes than the rank is fine.
        name: "more_axes_index_than_input_rank",
        data: "?,2..,..3,5",
        axes: Const(&[0, -1, 1, 2, 3, 3, 2]),
        mode: "index",
        expect: Ok("f32", "[?,2..,..3,5]"),
    },
    Case {
        name: "axes_index_is_dynamic",
        data: "2,2..10,8",
        axes: Param("i64", "..."),
        mode: "index",
        expect: Ok("f32", "[2,2..10,8]"),
    },
    Case {
        name: "axes_index_interval_1d_tensor",
        data: "2,2..10,8",
        axes: Param("i64", "2..4"),
        mode: "index",
        expect: Ok("f32", "[2,2..10,8]"),
    },
    Case {
        name: "default_ctor",
        data: "2,2..10,8",
        axes: Const(&[2, 0, 1]),
        mode: "index",
        expect: Ok("f32", "[2,2..10,8]"),
    },
];

#[test]
fn openvino_type_prop_cases() {
    assert_eq!(CASES.len(), 28);
    for case in CASES {
        let mut g = Graph::new();
        let data = g.parameter("f32", case.data);
        let axes = match case.axes {
            Const(values) => g.vector(values),
            Param(ty, shape) => g.parameter(ty, shape),
        };
        let out = g.op("Reverse", &[("mode", case.mode)], &[data, axes]);
        check(case.name, g.infer(out), &case.expect);
    }
}
