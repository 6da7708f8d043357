//! OpenVINO's ReverseSequence type_prop cases
//! (`src/core/tests/type_prop/reverse_sequence.cpp`): the same inputs and
//! outcomes. Tests that loop over several inputs there are one row per input
//! here, grouped under the same name.

use ovir_ir::LayerIdx;
use ovir_shape::ops::ReverseSequence;

use crate::graph::{check, Expect, Graph};

struct Case {
    name: &'static str,
    data: (&'static str, &'static str),
    lengths: (&'static str, &'static str),
    /// `batch_axis` and `seq_axis`; `None` leaves the attribute out.
    axes: (Option<&'static str>, Option<&'static str>),
    expect: Expect,
}

use Expect::{Err, Ok};

const F32: &str = "f32";
const I32: &str = "i32";

const CASES: &[Case] = &[
    Case {
        name: "reverse_sequence_default_attributes",
        data: (F32, "4,3,2"),
        lengths: (I32, "4"),
        axes: (None, None),
        expect: Ok("f32", "[4,3,2]"),
    },
    Case {
        name: "reverse_sequence_negative_attribute_axes",
        data: (F32, "1,2,3,4,5"),
        lengths: (I32, "3"),
        axes: (Some("-3"), Some("-2")),
        expect: Ok("f32", "[1,2,3,4,5]"),
    },
    Case {
        name: "reverse_sequence_invalid_seq_lengths_et",
        data: (F32, "4,3,2"),
        lengths: ("boolean", "4"),
        axes: (Some("0"), Some("1")),
        expect: Err("LengthsType", "must be integers or real numbers, but they are boolean"),
    },
    Case {
        name: "reverse_sequence_invalid_data_rank (scalar)",
        data: (F32, ""),
        lengths: (I32, "1"),
        axes: (None, None),
        expect: Err("DataRankTooLow", "needs data of rank 2 or more, but the data shape is []"),
    },
    Case {
        name: "reverse_sequence_invalid_data_rank (1-D)",
        data: (F32, "4"),
        lengths: (I32, "1"),
        axes: (None, None),
        expect: Err("DataRankTooLow", "needs data of rank 2 or more, but the data shape is [4]"),
    },
    Case {
        name: "reverse_sequence_invalid_seq_lengths_rank (scalar)",
        data: (F32, "4,3,2"),
        lengths: (I32, ""),
        axes: (Some("0"), Some("1")),
        expect: Err("LengthsNotVector", "must be a 1-D tensor, but its shape is []"),
    },
    Case {
        name: "reverse_sequence_invalid_seq_lengths_rank (2-D)",
        data: (F32, "4,3,2"),
        lengths: (I32, "4,1"),
        axes: (Some("0"), Some("1")),
        expect: Err("LengthsNotVector", "must be a 1-D tensor, but its shape is [4,1]"),
    },
    Case {
        name: "reverse_sequence_invalid_seq_lengths_rank (3-D)",
        data: (F32, "4,3,2"),
        lengths: (I32, "1,1,4"),
        axes: (Some("0"), Some("1")),
        expect: Err("LengthsNotVector", "must be a 1-D tensor, but its shape is [1,1,4]"),
    },
    Case {
        name: "reverse_sequence_invalid_batch_axis_value",
        data: (F32, "4,3,2"),
        lengths: (I32, "3"),
        axes: (Some("3"), Some("1")),
        expect: Err("AxisOutOfRange", "`batch_axis` is 3, which is out of range for data of rank 3"),
    },
    Case {
        name: "reverse_sequence_invalid_seq_axis_value",
        data: (F32, "4,3,2"),
        lengths: (I32, "3"),
        axes: (Some("1"), Some("3")),
        expect: Err("AxisOutOfRange", "`seq_axis` is 3, which is out of range for data of rank 3"),
    },
    Case {
        name: "reverse_sequence_incompatible_seq_len_size_with_batch_dim",
        data: (F32, "4,3,2"),
        lengths: (I32, "3"),
        axes: (None, None),
        expect: Err("LengthsCount", "has 3 elements, but the data's batch axis (0) has size 4"),
    },
    Case {
        // With an unknown data rank, positive axes cannot be checked yet.
        name: "reverse_sequence_dynamic_inputs_with_dynamic_rank",
        data: (F32, "..."),
        lengths: (I32, "..."),
        axes: (Some("202"), Some("909")),
        expect: Ok("f32", "[...]"),
    },
    Case {
        name: "reverse_sequence_dynamic_data_input_dynamic_rank",
        data: (F32, "..."),
        lengths: (I32, "3"),
        axes: (Some("202"), Some("909")),
        expect: Ok("f32", "[...]"),
    },
    Case {
        name: "reverse_sequence_dynamic_seq_lenghts_input_dynamic_rank",
        data: (F32, "2,4,6,8"),
        lengths: (I32, "..."),
        axes: (Some("0"), Some("1")),
        expect: Ok("f32", "[2,4,6,8]"),
    },
    Case {
        name: "reverse_sequence_dynamic_data_input_static_rank_and_seq_lengths_dynamic_rank",
        data: (F32, "?,?,?,?"),
        lengths: (I32, "..."),
        axes: (Some("0"), Some("1")),
        expect: Ok("f32", "[?,?,?,?]"),
    },
    Case {
        name: "reverse_sequence_dynamic_invalid_batch_axis",
        data: (F32, "?,?,?,?"),
        lengths: (I32, "?"),
        axes: (Some("4"), Some("1")),
        expect: Err("AxisOutOfRange", "`batch_axis` is 4, which is out of range for data of rank 4"),
    },
    Case {
        name: "reverse_sequence_dynamic_invalid_seq_axis",
        data: (F32, "?,?,?,?"),
        lengths: (I32, "?"),
        axes: (Some("1"), Some("4")),
        expect: Err("AxisOutOfRange", "`seq_axis` is 4, which is out of range for data of rank 4"),
    },
    Case {
        name: "reverse_sequence_dynamic_data_input_static_rank",
        data: (F32, "?,?,?,?"),
        lengths: (I32, "3"),
        axes: (Some("2"), Some("1")),
        expect: Ok("f32", "[?,?,3,?]"),
    },
    Case {
        name: "reverse_sequence_dynamic_data_input_static_rank_seq_lengths_input_dynamic_rank",
        data: (F32, "?,?,3,?"),
        lengths: (I32, "?"),
        axes: (Some("2"), Some("1")),
        expect: Ok("f32", "[?,?,3,?]"),
    },
    Case {
        name: "reverse_sequence_dynamic_data_input_static_rank_with_static_batch_dim",
        data: (F32, "?,?,3,?"),
        lengths: (I32, "3"),
        axes: (Some("2"), Some("1")),
        expect: Ok("f32", "[?,?,3,?]"),
    },
    Case {
        name: "reverse_sequence_dynamic_incompatible_data_input_static_rank_with_static_batch_dim",
        data: (F32, "?,?,3,?"),
        lengths: (I32, "4"),
        axes: (Some("2"), Some("1")),
        expect: Err("LengthsCount", "has 4 elements, but the data's batch axis (2) has size 3"),
    },
    Case {
        name: "dynamic_invalid_negative_axis_and_data_input_dynamic_rank",
        data: (F32, "..."),
        lengths: (I32, "1"),
        axes: (Some("1"), Some("-2")),
        expect: Err("NegativeAxisUnknownRank", "`seq_axis` is -2"),
    },
    Case {
        name: "default_ctor",
        data: (F32, "4,3,2"),
        lengths: (I32, "3"),
        axes: (Some("1"), Some("0")),
        expect: Ok("f32", "[4,3,2]"),
    },
    Case {
        // batch_axis == seq_axis (both 1) is accepted.
        name: "default_ctor_no_arguments",
        data: (F32, "4..5,3,2"),
        lengths: (I32, "3"),
        axes: (Some("1"), None),
        expect: Ok("f32", "[4..5,3,2]"),
    },
    Case {
        name: "data_shape_interval_and_sequence_static_dim_with_symbols",
        data: (F32, "2..5,4,1..3"),
        lengths: (I32, "3"),
        axes: (Some("0"), Some("1")),
        expect: Ok("f32", "[3,4,1..3]"),
    },
    Case {
        name: "data_shape_and_sequence_interval_dim_with_symbols",
        data: (F32, "2..5,4,1..3"),
        lengths: (I32, "3..6"),
        axes: (Some("-3"), Some("-1")),
        expect: Ok("f32", "[3..5,4,1..3]"),
    },
];

fn build(case: &Case) -> (Graph, ovir_ir::OutputRef) {
    let mut g = Graph::new();
    let data = g.parameter(case.data.0, case.data.1);
    let lengths = g.parameter(case.lengths.0, case.lengths.1);
    let mut attrs = Vec::new();
    if let Some(b) = case.axes.0 {
        attrs.push(("batch_axis", b));
    }
    if let Some(s) = case.axes.1 {
        attrs.push(("seq_axis", s));
    }
    let out = g.op("ReverseSequence", &attrs, &[data, lengths]);
    (g, out)
}

#[test]
fn openvino_type_prop_cases() {
    let mut names: Vec<&str> = CASES.iter().map(|c| c.name.split(' ').next().unwrap_or(c.name)).collect();
    names.dedup();
    // With reverse_sequence_data_et below, the 24 tests of the C++ file.
    assert_eq!(names.len() + 1, 24);
    for case in CASES {
        let (g, out) = build(case);
        check(case.name, g.infer(out), &case.expect);
    }
}

#[test]
fn reverse_sequence_data_et() {
    for ty in ["u4", "u8", "u16", "u32", "i8", "i16", "i32", "i64", "f16", "f32", "boolean"] {
        let case = Case {
            name: "reverse_sequence_data_et",
            data: (ty, "4,4"),
            lengths: (I32, "4"),
            axes: (None, None),
            expect: Ok(ty, "[4,4]"),
        };
        let (g, out) = build(&case);
        check(&format!("{} ({ty})", case.name), g.infer(out), &case.expect);
    }
}

#[test]
fn negative_axes_are_kept_as_written_and_normalised_on_request() {
    let (g, out) = build(&CASES[1]);
    let (_, info) = g.analyze();
    let info = info.unwrap();
    let op = info.op(out.layer).downcast_ref::<ReverseSequence>();
    assert_eq!(op, Some(&ReverseSequence { batch_axis: -3, seq_axis: -2 }));
    assert_eq!(op.and_then(|op| op.axes(5)), Some((2, 3)));
    assert_eq!(op.and_then(|op| op.axes(2)), None);
    assert!(info.op(LayerIdx(0)).downcast_ref::<ReverseSequence>().is_none());
}
