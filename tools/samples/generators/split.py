"""Split-1 and VariadicSplit-1: the cases of OpenVINO's own reference tests
(equal parts along every axis of ranks 1 to 4, a negative axis; lengths
with a -1, axis and lengths as Consts and at run time on data of dynamic
shape), zero-length parts, a single part, parts that are views of their
data and parts that are copies, every element type, strings and packed
types, and lengths given at run time that do not add up."""

from __future__ import annotations

import numpy as np

from ..cases import Cases
from ..elements import ALL_TYPES, NP_DTYPE
from ..evaluate import Call, RefError, norm_axis
from ..elements import PACKED_BITS
from ..graph import FACTORY, _out, arange, code_const, const, model, param, string_const, strings
from ..registry import Generator


def whole(value) -> int:
    # OpenVINO reads VariadicSplit's axis and lengths as whole numbers, a
    # real truncated.
    return int(np.trunc(value))


def ref_split(data: np.ndarray, axis: np.ndarray, num_splits: int) -> list[np.ndarray]:
    if axis.size != 1:
        raise RefError("split axis must be a scalar")
    a = norm_axis(whole(axis.reshape(-1)[0]), data.ndim)
    if data.shape[a] % num_splits:
        raise RefError(f"axis {a} of {data.shape[a]} does not divide into {num_splits}")
    return [np.ascontiguousarray(p) for p in np.split(data, num_splits, axis=a)]


def ref_variadic_split(data: np.ndarray, axis: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
    if axis.size != 1:
        raise RefError("split axis must be a scalar")
    a = norm_axis(whole(axis.reshape(-1)[0]), data.ndim)
    lens = [whole(v) for v in lengths.reshape(-1)]
    if any(v < -1 for v in lens) or lens.count(-1) > 1:
        raise RefError(f"split lengths {lens}")
    known = sum(v for v in lens if v >= 0)
    if -1 in lens:
        if known > data.shape[a]:
            raise RefError(f"split lengths {lens} add up to more than {data.shape[a]}")
        lens[lens.index(-1)] = data.shape[a] - known
    elif known != data.shape[a]:
        raise RefError(f"split lengths {lens} do not add up to {data.shape[a]}")
    bounds = np.cumsum(lens)[:-1]
    return [np.ascontiguousarray(p) for p in np.split(data, bounds, axis=a)]


def evaluate_split(call: Call):
    return ref_split(call.args[0], call.args[1], int(call.attrs["num_splits"])), []


def evaluate_variadic_split(call: Call):
    return ref_variadic_split(call.args[0], call.args[1], call.args[2]), []


def split(data, axis, num_splits: int, name: str = "split"):
    node = FACTORY.create("Split", [_out(data), _out(axis)], {"num_splits": num_splits})
    node.set_friendly_name(name)
    return node


def variadic_split(data, axis, lengths, name: str = "variadic_split"):
    node = FACTORY.create("VariadicSplit", [_out(data), _out(axis), _out(lengths)], {})
    node.set_friendly_name(name)
    return node


def outputs(node, prefix: str = "out") -> dict:
    return {f"{prefix}{k}": node.output(k) for k in range(node.get_output_size())}


# OpenVINO's reference tests (op_reference/split.cpp): data shape, axis and
# its type, number of parts; the data is 0, 1, 2, ... as there.
UPSTREAM_SPLIT = [
    ("1d", (6,), 0, "i64", 3),
    ("2d_axis_0", (6, 2), 0, "i64", 2),
    ("2d_axis_1", (6, 2), 1, "i64", 2),
    ("3d_axis_0", (2, 2, 3), 0, "i64", 2),
    ("3d_axis_1", (2, 8, 2), 1, "i64", 4),
    ("3d_axis_2", (2, 1, 6), 2, "i64", 2),
    ("4d_axis_0", (3, 2, 3, 1), 0, "i64", 3),
    ("4d_axis_1", (2, 8, 2, 2), 1, "i64", 4),
    ("4d_axis_2", (2, 1, 6, 2), 2, "i64", 3),
    ("4d_axis_3", (2, 1, 2, 6), 3, "i64", 3),
    ("4d_axis_negative_2", (2, 1, 4, 1), -2, "i32", 2),
]

# op_reference/variadic_split.cpp: data shape, axis (value, type, shape),
# lengths (values, type); each both with Consts and, on data of dynamic
# shape, with axis and lengths at run time.
UPSTREAM_VARIADIC = [
    ("1d", (10,), 0, "i32", (1,), (5, 3, 2), "i32"),
    ("2d_axis_0", (6, 2), 0, "i32", (), (4, 2), "i32"),
    ("2d_axis_1", (4, 3), 1, "i32", (), (1, 2), "i32"),
    ("4d_axis_0", (6, 2, 3, 1), 0, "i32", (1,), (3, 1, 2), "i32"),
    ("4d_axis_1", (2, 8, 2, 2), 1, "u64", (1,), (1, 3, 2, 2), "u64"),
    ("4d_axis_2", (2, 1, 6, 2), 2, "u32", (1,), (3, 1, 2), "u32"),
    ("4d_axis_3", (2, 1, 2, 6), 3, "i32", (1,), (1, -1, 3), "i32"),
]
# The dynamic cases of 4d_axis_2 and 4d_axis_3 take other values.
UPSTREAM_VARIADIC_DYNAMIC = {
    "4d_axis_1": (1, "i64", (1,), (1, 3, 2, 2), "i64"),
    "4d_axis_2": (2, "i32", (1,), (-1, 1, 2), "i32"),
    "4d_axis_3": (-1, "i32", (1,), (1, 2, -1), "i32"),
}


def build(cases: Cases):
    for tag, shape, axis, axis_type, n in UPSTREAM_SPLIT:
        d = param("data", "f32", shape)
        m = model(outputs(split(d, const(axis, axis_type, "axis"), n)), [d], "split")
        cases.add(f"split_upstream_{tag}", m, {"data": arange(shape)})

    for tag, shape, axis, axis_type, axis_shape, lengths, lengths_type in UPSTREAM_VARIADIC:
        d = param("data", "i32", shape)
        a = const(np.array(axis).reshape(axis_shape), axis_type, "axis")
        m = model(outputs(variadic_split(d, a, const(lengths, lengths_type, "lengths"))), [d], "variadic_split")
        cases.add(f"variadic_split_upstream_{tag}", m, {"data": arange(shape, "i32")})
        axis, axis_type, axis_shape, lengths, lengths_type = UPSTREAM_VARIADIC_DYNAMIC.get(
            tag, (axis, axis_type, axis_shape, lengths, lengths_type))
        # Dynamic dimensions of a known rank: the CPU plugin takes no
        # Parameter of dynamic rank.
        d = param("data", "i32", (-1,) * len(shape))
        a, ln = param("axis", axis_type, axis_shape), param("lengths", lengths_type, (len(lengths),))
        m = model(outputs(variadic_split(d, a, ln)), [d, a, ln], "variadic_split")
        cases.add(f"variadic_split_upstream_{tag}_dynamic", m, {
            "data": arange(shape, "i32"),
            "axis": np.array(axis, NP_DTYPE[axis_type]).reshape(axis_shape),
            "lengths": np.array(lengths, NP_DTYPE[lengths_type])})

    # Parts that are one stretch of their data (views): along the first
    # axis, and along an inner one after axes of size 1.
    d = param("data", "f32", (6, 2, 3))
    m = model(outputs(split(d, const(0, "i64", "axis"), 3)), [d], "split")
    cases.add("split_rows_f32", m, {"data": arange((6, 2, 3))})
    d = param("data", "f32", (1, 1, 12, 2))
    m = model(outputs(variadic_split(d, const(-2, "i64", "axis"), const((5, 0, -1, 0), "i64", "lengths"))),
              [d], "variadic_split")
    cases.add("variadic_split_view_zero_parts_f32", m, {"data": arange((1, 1, 12, 2))})
    # Zero-length parts of a copy, and a -1 that takes nothing.
    d = param("data", "f32", (3, 4))
    m = model(outputs(variadic_split(d, const(1, "i32", "axis"), const((0, 4, -1), "i32", "lengths"))),
              [d], "variadic_split")
    cases.add("variadic_split_minus_one_takes_nothing_f32", m, {"data": arange((3, 4))})
    # Data with no elements, cut along another axis.
    d = param("data", "f32", (0, 6))
    m = model(outputs(split(d, const(1, "i64", "axis"), 2)), [d], "split")
    cases.add("split_empty_data_f32", m, {"data": arange((0, 6))})
    # A single part is the data.
    d = param("data", "f32", (2, 3))
    m = model(outputs(split(d, const(-1, "i64", "axis"), 1)), [d], "split")
    cases.add("split_one_part_f32", m, {"data": arange((2, 3))})
    # Real axis and lengths, truncated (OpenVINO's reading; the spec asks
    # for integers).
    d = param("data", "f32", (2, 5))
    m = model(outputs(variadic_split(d, const(1.7, "f32", "axis"), const((1.9, -1.0), "f32", "lengths"))),
              [d], "variadic_split")
    cases.add("variadic_split_real_lengths_f32", m, {"data": arange((2, 5))})

    # Data of sizes known only at run time, cut along a constant axis after
    # axes of size 1: every part a view of the data, by lengths given as a
    # Const or at run time.
    d = param("data", "f32", (1, -1, 3))
    m = model(outputs(split(d, const(1, "i64", "axis"), 2)), [d], "split")
    cases.add("split_dynamic_views_f32", m, {"data": arange((1, 4, 3))})
    d, ln = param("data", "f32", (1, -1)), param("lengths", "i64", (3,))
    m = model(outputs(variadic_split(d, const(-1, "i64", "axis"), ln)), [d, ln], "variadic_split")
    cases.add("variadic_split_dynamic_views_f32", m,
              {"data": arange((1, 7)), "lengths": np.array([2, -1, 0], np.int64)})

    # The axis at run time, on static data: equal parts.
    d, a = param("data", "f32", (4, 6)), param("axis", "i64", ())
    m = model(outputs(split(d, a, 2)), [d, a], "split")
    cases.add("split_runtime_axis_f32", m, {"data": arange((4, 6)), "axis": np.array(-1, np.int64)})
    # Lengths at run time that do not add up: refused when the model runs.
    d, ln = param("data", "f32", (2, 6)), param("lengths", "i64", (2,))
    m = model(outputs(variadic_split(d, const(1, "i64", "axis"), ln)), [d, ln], "variadic_split")
    cases.add("variadic_split_runtime_lengths_bad_sum", m,
              {"data": arange((2, 6)), "lengths": np.array([2, 2], np.int64)}, expected_error="add up")

    # Every ordinary element type: parts of rows (views) and of columns
    # (copies) in one model.
    for et in ALL_TYPES:
        d = param("data", et, (4, 6))
        rows = split(d, const(0, "i64", "axis"), 2, "rows")
        columns = variadic_split(d, const(1, "i64", "axis"), const((1, -1, 0, 2), "i64", "lengths"), "columns")
        m = model({**outputs(rows, "rows"), **outputs(columns, "columns")}, [d], "split")
        cases.add(f"split_type_{et}", m, {"data": arange((4, 6), et)})

    # Packed types and strings, as Consts, elements moving inside bytes.
    for et in ("u1", "u4", "i4", "u3"):
        low = -8 if et == "i4" else 0
        span = 1 << PACKED_BITS[et]
        codes = ((np.arange(21) * 5 + 3) % span + low).astype(NP_DTYPE[et]).reshape(3, 7)
        data = code_const(codes, et, "data")
        columns = variadic_split(data, const(1, "i64", "axis"), const((3, -1), "i64", "lengths"))
        cases.add(f"variadic_split_type_{et}", model(outputs(columns), [], "variadic_split"),
                  no_check=f"the CPU plugin cuts {et} data byte by byte, not element by element")
    sc = string_const(strings((4, 3)), "strings")
    m = model({**outputs(split(sc, const(0, "i64", "axis"), 2, "rows"), "rows"),
               **outputs(split(sc, const(1, "i64", "axis"), 3, "columns"), "columns")}, [], "split")
    cases.add("split_string_const", m,
              no_check="the CPU plugin aborts the process (munmap_chunk(): invalid pointer) after a string Split")


GENERATOR = Generator("split", build,
                      references={"Split": evaluate_split, "VariadicSplit": evaluate_variadic_split})
