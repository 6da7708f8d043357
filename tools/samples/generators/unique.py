"""Unique-10: OpenVINO's op_reference cases (scalars, vectors with and
without repeats, a 2-D tensor flattened, an axis on a vector), every
element type sorted and unsorted, flattened and along an axis, axes 0, last
and negative on 3-D data, i32 and i64 indices and counts, a dynamic shape,
empty data, NaN and -0.0, constant data (folded), strings and packed types,
and what OpenVINO refuses when the model loads."""

from __future__ import annotations

import struct

import ml_dtypes
import numpy as np
from openvino import opset10

from ..cases import Cases
from ..elements import ALL_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import _out, const, model, param, serialize_text
from ..registry import Generator
from ..xmltext import edit_layer, set_attr, sub_once

# The small floats' codes as NumPy values, to compare them as numbers.
CODED_FLOATS = {"f8e4m3": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2,
                "f8e8m0": ml_dtypes.float8_e8m0fnu, "f4e2m1": ml_dtypes.float4_e2m1fn}


def values_of(data: np.ndarray, et: str) -> np.ndarray:
    """The values Unique compares: numbers for the coded small floats (nf4's
    codes ascend with their values), strings as their UTF-8 bytes."""
    if et in CODED_FLOATS:
        return data.astype(np.uint8).view(CODED_FLOATS[et]).astype(np.float64)
    if data.dtype.kind == "U":
        return np.vectorize(lambda s: s.encode(), otypes=[object])(data) if data.size else data.astype(object)
    return data


def order_key(row) -> tuple:
    """Ascending order, NaN after every number."""
    return tuple((1, 0) if isinstance(v, float) and v != v else (0, v) for v in row)


def ref_unique(data: np.ndarray, axis, sorted_: bool, et: str):
    """Uniques, first indices, inverse and counts, worked out slice by slice:
    equal slices are equal element by element (NaN equal to nothing, -0.0
    to 0.0); sorted ascending (ties by first occurrence) or in order of
    first occurrence."""
    vals = values_of(data, et)
    if axis is None:
        rows = [[v] for v in vals.reshape(-1).tolist()]
    else:
        if not -data.ndim <= axis < data.ndim:
            raise RefError(f"axis {axis} out of range for rank {data.ndim}")
        axis %= data.ndim
        moved = np.moveaxis(vals, axis, 0)
        rows = [moved[i].reshape(-1).tolist() for i in range(moved.shape[0])]
    firsts, counts, inverse = [], [], []
    for i, r in enumerate(rows):
        for u, f in enumerate(firsts):
            if len(rows[f]) == len(r) and all(a == b for a, b in zip(rows[f], r)):
                counts[u] += 1
                inverse.append(u)
                break
        else:
            firsts.append(i)
            counts.append(1)
            inverse.append(len(firsts) - 1)
    order = list(range(len(firsts)))
    if sorted_:
        order.sort(key=lambda u: (order_key(rows[firsts[u]]), firsts[u]))
    place = {u: k for k, u in enumerate(order)}
    firsts = [firsts[u] for u in order]
    counts = [counts[u] for u in order]
    inverse = [place[u] for u in inverse]
    if axis is None:
        uniques = data.reshape(-1)[np.array(firsts, dtype=np.int64)]
    else:
        uniques = np.take(data, np.array(firsts, dtype=np.int64), axis=axis)
    return uniques, firsts, inverse, counts


def plugin_caveats(data: np.ndarray, et: str, sorted_: bool, along_axis: bool) -> list[str]:
    """Where the CPU plugin is known to differ: it compares 64-bit values
    and u32 ones as 32-bit, and sorts NaN wrongly."""
    notes = []
    if et in ("f16", "f32", "f64", "bf16") and sorted_ and np.isnan(data.astype(np.float64)).any():
        notes.append("the CPU plugin's sorted Unique loses NaNs")
    if et in CODED_FLOATS and sorted_ and np.isnan(values_of(data, et)).any():
        notes.append("the CPU plugin's sorted Unique loses NaNs")
    if et == "f64" and data.size and not np.array_equal(data.astype(np.float32).astype(np.float64), data,
                                                       equal_nan=True):
        notes.append("the CPU plugin compares f64 as f32")
    if et in ("i64", "u64", "u32") and data.size and (data.astype(object) > 2 ** 31 - 1).any():
        notes.append("the CPU plugin compares 64-bit and u32 integers as i32")
    if et == "i64" and data.size and (data.astype(object) < -2 ** 31).any():
        notes.append("the CPU plugin compares 64-bit integers as i32")
    if et in ("boolean", "i8", "u8") and along_axis:
        notes.append("the CPU plugin's Unique along an axis gives wrong indices and counts for 1-byte types")
    return notes


def evaluate_unique(call: Call):
    a = call.attrs
    data, et = call.args[0], call.arg_types[0]
    axis = None
    if len(call.args) > 1:
        axis_arr = call.args[1]
        if axis_arr.dtype.kind not in "iu" or axis_arr.size != 1:
            raise RefError("Unique's axis must be one integer")
        axis = int(axis_arr.reshape(-1)[0])
    uniques, firsts, inverse, counts = ref_unique(data, axis, bool(a["sorted"]), et)
    idx = NP_DTYPE[str(a["index_element_type"])]
    cnt = NP_DTYPE[str(a["count_element_type"])]
    out = [uniques, np.array(firsts, idx), np.array(inverse, idx), np.array(counts, cnt)]
    return out, plugin_caveats(data, et, bool(a["sorted"]), axis is not None)


def unique(data, axis=None, sorted_=True, idx="i64", cnt="i64", name="unique"):
    if axis is None:
        node = opset10.unique(_out(data), sorted=sorted_, index_element_type=idx, count_element_type=cnt)
    else:
        node = opset10.unique(_out(data), _out(axis), sorted=sorted_, index_element_type=idx,
                              count_element_type=cnt)
    node.set_friendly_name(name)
    return node


def unique_model(data, params, axis=None, **kw):
    u = unique(data, axis, **kw)
    outs = {"values": u.output(0), "indices": u.output(1), "rev_indices": u.output(2), "counts": u.output(3)}
    return model(outs, params, "unique")


def axis_const(value: int, et: str = "i64", shape=()):
    return const(np.array(value).reshape(shape), et, "axis")


def data_model(et: str, shape, axis=None, axis_et="i64", **kw):
    d = param("data", et, shape)
    a = None if axis is None else axis_const(axis, axis_et)
    return unique_model(d, [d], a, **kw)


# op_reference/unique.cpp: (tag, shape, data, sorted, axis, uniques, indices,
# rev_indices, counts) for integers and for reals.
PI, E, SQ2, SQ3 = 3.141592, 2.71828, 1.4142135, 1.7320508075
UPSTREAM_INT = [
    ("scalar_unsorted", (), [1], False, None, [1], [0], [0], [1]),
    ("scalar_sorted", (), [1], True, None, [1], [0], [0], [1]),
    ("one_unsorted", (1,), [2], False, None, [2], [0], [0], [1]),
    ("one_sorted", (1,), [2], True, None, [2], [0], [0], [1]),
    ("no_dups_unsorted", (5,), [5, 4, 3, 2, 1], False, None, [5, 4, 3, 2, 1], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4],
     [1] * 5),
    ("no_dups_sorted", (5,), [5, 4, 3, 2, 1], True, None, [1, 2, 3, 4, 5], [4, 3, 2, 1, 0], [4, 3, 2, 1, 0], [1] * 5),
    ("dups_unsorted", (7,), [1, 3, 5, 3, 2, 4, 2], False, None, [1, 3, 5, 2, 4], [0, 1, 2, 4, 5],
     [0, 1, 2, 1, 3, 4, 3], [1, 2, 1, 2, 1]),
    ("dups_sorted", (7,), [1, 3, 5, 3, 2, 4, 2], True, None, [1, 2, 3, 4, 5], [0, 4, 1, 5, 2],
     [0, 2, 4, 2, 1, 3, 1], [1, 2, 2, 1, 1]),
    ("dups_axis0", (7,), [1, 3, 5, 3, 2, 4, 2], True, 0, [1, 2, 3, 4, 5], [0, 4, 1, 5, 2], [0, 2, 4, 2, 1, 3, 1],
     [1, 2, 2, 1, 1]),
    ("2d_no_axis_unsorted", (2, 6), [3, 5, 3, 2, 4, 2, 1, 2, 3, 4, 5, 6], False, None, [3, 5, 2, 4, 1, 6],
     [0, 1, 3, 4, 6, 11], [0, 1, 0, 2, 3, 2, 4, 2, 0, 3, 1, 5], [3, 2, 3, 2, 1, 1]),
]
UPSTREAM_REAL = [
    ("scalar_unsorted", (), [PI], False, None, [PI], [0], [0], [1]),
    ("scalar_sorted", (), [PI], True, None, [PI], [0], [0], [1]),
    ("one_unsorted", (1,), [-E], False, None, [-E], [0], [0], [1]),
    ("one_sorted", (1,), [-E], True, None, [-E], [0], [0], [1]),
    ("no_dups_unsorted", (6,), [PI, -PI, -E, E, SQ3, SQ2], False, None, [PI, -PI, -E, E, SQ3, SQ2],
     [0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5], [1] * 6),
    ("no_dups_sorted", (6,), [PI, -PI, -E, E, SQ3, SQ2], True, None, [-PI, -E, SQ2, SQ3, E, PI],
     [1, 2, 5, 4, 3, 0], [5, 0, 1, 4, 3, 2], [1] * 6),
]


def repeats(et: str, shape, seed: int) -> np.ndarray:
    """Values of `et` with repeats: a few distinct values, the type's
    extremes among them."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dt = NP_DTYPE[et]
    if et == "boolean":
        pool = np.array([False, True])
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        pool = np.array([info.min, info.max, 0, 1, 7, info.max // 3], dtype=dt)
    elif et == "f16":
        pool = np.array([-65504, 65504, 0.5, -0.0, 1.5, np.inf], np.float16)
    elif et == "bf16":
        pool = np.array([-2.5, 3.0, 0.125, 1e30, -np.inf], np.float32)
    else:
        pool = np.array([-1e30, 3.5, 0.25, -0.0, np.inf, 1e-30], dt)
    return pool[rng.integers(0, len(pool), n)].astype(dt).reshape(shape)


def build(cases: Cases):
    # op_reference, integers on i32 with both index types, reals on f32.
    for values, ets in ((UPSTREAM_INT, ("i32",)), (UPSTREAM_REAL, ("f32",))):
        for tag, shape, data, sorted_, axis, *want in values:
            for et in ets:
                arr = np.array(data, NP_DTYPE[et]).reshape(shape)
                got = ref_unique(arr, axis, sorted_, et)
                assert np.array_equal(got[0].reshape(-1), np.array(want[0], NP_DTYPE[et])), tag
                assert [list(got[1]), list(got[2]), list(got[3])] == want[1:], tag
                for idx in ("i32", "i64"):
                    m = data_model(et, shape, axis, axis_et="i32", sorted_=sorted_, idx=idx)
                    cases.add(f"unique_upstream_{tag}_{et}_{idx}", m, {"data": arr})

    # Every ordinary type, flattened and along axis 0, sorted and not.
    for k, et in enumerate(ALL_TYPES):
        data = repeats(et, (5, 4), 100 + k)
        data[3] = data[1]
        for sorted_ in (True, False):
            tag = "sorted" if sorted_ else "unsorted"
            cases.add(f"unique_{et}_{tag}", data_model(et, (5, 4), sorted_=sorted_), {"data": data})
            cases.add(f"unique_{et}_rows_{tag}", data_model(et, (5, 4), 0, sorted_=sorted_), {"data": data})

    # The 64-bit types on values the CPU plugin compares exactly.
    for et in ("i64", "u64", "f64"):
        data = np.array([[5, 1, 5, 2], [1, 1, 0, 2], [5, 1, 5, 2]], NP_DTYPE[et])
        cases.add(f"unique_{et}_small", data_model(et, (3, 4), sorted_=False), {"data": data})
        cases.add(f"unique_{et}_small_rows", data_model(et, (3, 4), 0), {"data": data})

    # Axes of 3-D data: first, last, negative; both index and count types.
    data = (np.arange(3 * 6 * 4) * 7 % 5).astype(np.float32).reshape(3, 6, 4)
    data[:, 4] = data[:, 1]
    data[:, :, 3] = data[:, :, 0]
    data[2] = data[0]
    for axis in (0, 1, 2, -1, -2, -3):
        for sorted_ in (True, False):
            for idx, cnt in (("i64", "i64"), ("i32", "i32"), ("i32", "i64"), ("i64", "i32")):
                if (idx, cnt) != ("i64", "i64") and axis not in (1, -1):
                    continue
                tag = f"axis{str(axis).replace('-', 'm')}_{'sorted' if sorted_ else 'unsorted'}_{idx}_{cnt}"
                m = data_model("f32", data.shape, axis, axis_et="i32" if axis < 0 else "i64", sorted_=sorted_,
                               idx=idx, cnt=cnt)
                cases.add(f"unique_3d_{tag}", m, {"data": data})
    # The axis as a tensor of one element.
    d = param("data", "i16", (4, 3))
    m = unique_model(d, [d], axis_const(1, "i32", (1,)))
    cases.add("unique_axis_vector", m, {"data": np.array([[1, 2, 1], [3, 4, 3], [1, 2, 1], [0, 0, 0]], np.int16)})

    # A dynamic shape, given at run time, with and without an axis.
    cases.add("unique_dynamic", data_model("i32", "[?,?]", sorted_=False),
              {"data": np.array([[4, 2, 4], [9, 2, 4]], np.int32)})
    cases.add("unique_dynamic_axis", data_model("i32", "[?,?]", 1),
              {"data": np.array([[4, 2, 4, 4], [9, 2, 9, 9]], np.int32)})

    # Empty data: nothing unique; slices of no element are one.
    cases.add("unique_empty", data_model("f32", (0,)), {"data": np.zeros((0,), np.float32)},
              no_check="the CPU plugin fails on empty data without an axis")
    cases.add("unique_empty_rows", data_model("f32", (0, 3), 0), {"data": np.zeros((0, 3), np.float32)})
    cases.add("unique_empty_columns", data_model("f32", (0, 3), 1), {"data": np.zeros((0, 3), np.float32)},
              no_check="the CPU plugin fails on slices of no element")

    # NaN and -0.0: -0.0 and 0.0 are one (the first kept), each NaN its own.
    reals = np.array([np.nan, -0.0, 1.0, np.nan, 0.0, -1.0, 1.0], np.float32)
    cases.add("unique_nan_unsorted", data_model("f32", (7,), sorted_=False), {"data": reals})
    cases.add("unique_nan_sorted", data_model("f32", (7,)), {"data": reals})
    cases.add("unique_negative_zero_first", data_model("f32", (4,)),
              {"data": np.array([-0.0, 0.0, 2.0, 0.0], np.float32)})
    rows = np.array([[np.nan, 1], [np.nan, 1], [0, 1], [0, 1]], np.float64)
    cases.add("unique_nan_rows_unsorted", data_model("f64", (4, 2), 0, sorted_=False), {"data": rows})
    cases.add("unique_nan_rows_sorted", data_model("f64", (4, 2), 0), {"data": rows})

    # Constant data: folded when the model compiles.
    m = unique_model(const([[3, 1], [3, 1], [0, 2]], "i64", "words", (3, 2)), [], axis_const(0))
    cases.add("unique_const_rows", m, {})
    # Strings, packed types and 8-bit floats, given at run time (OpenVINO's
    # shape inference crashes on a Const of them feeding Unique).
    words = np.array(["b", "a", "b", "日本", "a", ""])
    cases.add("unique_string", data_model("string", (6,)), {"data": words},
              no_check="the CPU plugin's Unique does not take strings")
    cases.add("unique_string_rows", data_model("string", (3, 2), 0, sorted_=False),
              {"data": np.array([["x", "y"], ["x", "y"], ["", "y"]])},
              no_check="the CPU plugin's Unique does not take strings")
    for et, codes in (("u4", [3, 15, 3, 0, 15, 7]), ("i4", [-8, 7, -8, 0, 7, -1]), ("u1", [1, 0, 1, 1, 0, 0]),
                      ("nf4", [15, 0, 7, 15, 7, 2]), ("f4e2m1", [0x9, 0x1, 0x8, 0x0, 0xf, 0x9]),
                      ("f8e4m3", [0xb8, 0x38, 0x00, 0x80, 0xb8, 0x7f]),
                      ("f8e5m2", [0xbc, 0x3c, 0x7c, 0x00, 0xbc, 0x80]),
                      ("f8e8m0", [0x7f, 0x80, 0x7f, 0x00, 0xff, 0x80])):
        arr = np.array(codes, NP_DTYPE[et]).reshape(2, 3)
        for sorted_ in (True, False):
            why = "the CPU plugin does not run u1" if et == "u1" else None
            cases.add(f"unique_{et}_{'sorted' if sorted_ else 'unsorted'}", data_model(et, (2, 3), sorted_=sorted_),
                      {"data": arr}, no_check=why)

    # What OpenVINO refuses when the model loads.
    x, w = serialize_text(data_model("f32", (2, 3), 1))
    assert len(w) == 8
    cases.bad("unique_axis_out_of_range", x, struct.pack("<q", 2), "out of range")
    float_axis = x.replace('precision="I64"', 'precision="FP64"')
    float_axis = edit_layer(float_axis, "axis", lambda b: b.replace('element_type="i64"', 'element_type="f64"'))
    cases.bad("unique_float_axis", float_axis, struct.pack("<d", 1.0), "i32 or i64")
    param_axis = edit_layer(x, "axis", lambda b: sub_once(
        sub_once(b, 'type="Const"', 'type="Parameter"'),
        '<data element_type="i64" shape="" offset="0" size="8" />', '<data shape="" element_type="i64" />'))
    cases.bad("unique_axis_not_const", param_axis, b"", "must be a Const")
    cases.bad("unique_index_type_f32", set_attr(x, "unique", "index_element_type", "f32"), w, "i32 or i64")


GENERATOR = Generator("unique", build, references={"Unique": evaluate_unique})
