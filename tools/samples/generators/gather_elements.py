"""GatherElements-6: the values of OpenVINO's op_reference tests (every axis,
indices longer and shorter than the data along it, i32 and i64 indices) on
every ordinary type, indices out of range and negative (run-time errors),
constant indices, dynamic shapes, an empty output, strings and packed types,
and float indices, refused when the model loads."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import _out, arange, code_const, const, model, param, serialize_text, string_const, strings
from ..registry import Generator
from ..xmltext import set_attr

OPSET6 = NodeFactory("opset6")


def ref_gather_elements(data: np.ndarray, indices: np.ndarray, axis: int, indices_type: str) -> np.ndarray:
    if indices_type not in ("i32", "i64"):
        raise RefError("GatherElements indices must be i32 or i64")
    if data.ndim != indices.ndim or data.ndim == 0:
        raise RefError("GatherElements data and indices must have one rank of 1 or more")
    axis = axis + data.ndim if axis < 0 else axis
    size = data.shape[axis]
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        raise RefError(f"GatherElements index out of range [0, {size})")
    return np.ascontiguousarray(np.take_along_axis(data, indices.astype(np.int64), axis))


def evaluate_gather_elements(call: Call) -> tuple[np.ndarray, list[str]]:
    caveats = []
    if call.arg_types[0] == "i64":
        caveats.append("the CPU plugin moves i64 GatherElements data as i32")
    return ref_gather_elements(call.args[0], call.args[1], int(call.attrs["axis"]), call.arg_types[1]), caveats


def gather_elements(data, indices, axis: int, name: str = "gather_elements"):
    node = OPSET6.create("GatherElements", [_out(data), _out(indices)], {"axis": axis})
    node.set_friendly_name(name)
    return node


# Measured with OpenVINO 2026.4.1.
NEGATIVE = ("the CPU plugin takes the index -1 as the last one along the axis, where the spec ([0, s-1]) and the "
            "reference refuse it")

# op_reference/gather_elements.cpp: (tag, data shape, indices shape, indices,
# axis, expected), data 1..n.
UPSTREAM = [
    ("1d", (3,), (7,), [1, 2, 0, 2, 0, 0, 2], 0, [2, 3, 1, 3, 1, 1, 3]),
    ("2x2_axis_0", (2, 2), (2, 2), [0, 1, 0, 0], 0, [1, 4, 1, 2]),
    ("2x2_axis_1", (2, 2), (2, 2), [0, 1, 0, 0], 1, [1, 2, 3, 3]),
    ("2x2_axis_minus_1", (2, 2), (2, 2), [0, 1, 0, 0], -1, [1, 2, 3, 3]),
    ("2x3_indices", (3, 3), (2, 3), [1, 2, 0, 2, 0, 0], 0, [4, 8, 3, 7, 2, 3]),
    ("3x2x2", (3, 2, 2), (3, 2, 2), [1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1], -1, [2, 1, 3, 4, 6, 6, 8, 7, 9, 9, 12, 12]),
    ("3x2x2x4", (3, 2, 2, 2), (3, 2, 2, 4),
     [1, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0,
      0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0], -1,
     [2, 1, 1, 1, 3, 4, 4, 3, 6, 6, 6, 6, 8, 7, 7, 8, 9, 9, 9, 10, 12, 12, 12, 11,
      13, 13, 13, 13, 16, 15, 16, 15, 18, 18, 18, 18, 20, 19, 20, 19, 22, 21, 21, 22, 23, 23, 23, 23]),
    ("4x2x1", (2, 2, 1), (4, 2, 1), [0, 0, 1, 1, 1, 1, 0, 1], 0, [5, 4, 1, 4, 1, 4, 5, 4]),
]


def upstream_data(shape, et: str, tag: str) -> np.ndarray:
    values = [5, 4, 1, 4] if tag == "4x2x1" else list(range(1, int(np.prod(shape)) + 1))
    return np.array(values).astype(NP_DTYPE[et]).reshape(shape)


def build(cases: Cases):
    # op_reference: every case on i32 and f32 data with i32 and i64
    # indices, both given at run time as upstream does; the 4-D case on
    # every ordinary type.
    for tag, dshape, ishape, idx, axis, want in UPSTREAM:
        for et, it in (("f32", "i32"), ("i32", "i64")):
            data = upstream_data(dshape, et, tag)
            indices = np.array(idx, NP_DTYPE[it]).reshape(ishape)
            got = ref_gather_elements(data, indices, axis, it)
            assert got.reshape(-1).tolist() == want, tag
            d, i = param("data", et, dshape), param("indices", it, ishape)
            m = model({"out": gather_elements(d, i, axis)}, [d, i], "gather_elements")
            cases.add(f"gather_elements_upstream_{tag}_{et}_{it}", m, {"data": data, "indices": indices})
    tag, dshape, ishape, idx, axis, _ = UPSTREAM[6]
    for et in ALL_TYPES:
        d, i = param("data", et, dshape), param("indices", "i32", ishape)
        m = model({"out": gather_elements(d, i, axis)}, [d, i], "gather_elements")
        data = (np.arange(24) % 3 == 0).reshape(dshape) if et == "boolean" else upstream_data(dshape, et, tag)
        cases.add(f"gather_elements_type_{et}", m, {"data": data, "indices": np.array(idx, np.int32).reshape(ishape)})
    # op_reference's boolean case.
    d, i = param("data", "boolean", (3, 2)), param("indices", "i32", (2, 2))
    m = model({"out": gather_elements(d, i, 0)}, [d, i], "gather_elements")
    cases.add("gather_elements_upstream_3x2_bool", m,
              {"data": np.array([True, False, True, True, False, False]).reshape(3, 2),
               "indices": np.array([[0, 1], [0, 2]], np.int32)})

    # op_reference's negative tests, an index of -1 (the spec allows
    # [0, s-1]) and one past the end on the last axis: run-time errors.
    for tag, dshape, ishape, idx, axis in (("past_the_end_1d", (3,), (7,), [1, 2, 0, 2, 0, 0, 8], 0),
                                           ("past_the_end_2d", (3, 3), (2, 3), [1, 3, 0, 2, 0, 0], 0),
                                           ("negative", (2, 3), (2, 2), [0, 1, -1, 2], 1),
                                           ("past_the_end_last_axis", (2, 3), (2, 2), [0, 1, 2, 3], -1)):
        d, i = param("data", "i32", dshape), param("indices", "i32", ishape)
        m = model({"out": gather_elements(d, i, axis)}, [d, i], "gather_elements")
        cases.add(f"gather_elements_index_{tag}", m,
                  {"data": arange(dshape, "i32"), "indices": np.array(idx, np.int32).reshape(ishape)},
                  expected_error="out of range", no_check=NEGATIVE if tag == "negative" else None)

    # Random indices over a larger tensor along each axis, indices as a
    # Const (worked out when the model compiles).
    rng = np.random.default_rng(20261129)
    dshape = (4, 5, 6)
    for axis in range(3):
        ishape = list(dshape)
        ishape[axis] = 9
        idx = rng.integers(0, dshape[axis], ishape)
        d = param("data", "f32", dshape)
        m = model({"out": gather_elements(d, const(idx, "i64", "indices"), axis)}, [d], "gather_elements")
        cases.add(f"gather_elements_const_indices_axis_{axis}", m, {"data": arange(dshape)})

    # Dynamic shapes, and an empty output.
    d, i = param("data", "f32", "[?,?]"), param("indices", "i64", "[?,?]")
    m = model({"out": gather_elements(d, i, 1)}, [d, i], "gather_elements")
    cases.add("gather_elements_dynamic", m,
              {"data": arange((3, 4)), "indices": rng.integers(0, 4, (3, 6)).astype(np.int64)})
    d, i = param("data", "f32", (3, 4)), param("indices", "i32", (3, 0))
    m = model({"out": gather_elements(d, i, 1)}, [d, i], "gather_elements")
    cases.add("gather_elements_empty", m, {"data": arange((3, 4)), "indices": np.zeros((3, 0), np.int32)})

    # Strings and packed types, as Consts.
    i = param("indices", "i32", (2, 3))
    m = model({"out": gather_elements(string_const(strings((2, 3)), "strings"), i, 1)}, [i], "gather_elements")
    cases.add("gather_elements_string_const", m, {"indices": np.array([[2, 0, 0], [1, 2, 1]], np.int32)},
              no_check="the CPU plugin's GatherElements does not take strings")
    for et, high in (("u4", 16), ("i4", 8), ("u1", 2)):
        codes = (np.arange(8) * 5 % high - (8 if et == "i4" else 0)).astype(NP_DTYPE[et]).reshape(2, 4)
        m = model({"out": gather_elements(code_const(codes, et, "data"), i, 1)}, [i], "gather_elements")
        cases.add(f"gather_elements_type_{et}", m, {"indices": np.array([[3, 0, 1], [2, 2, 0]], np.int32)},
                  no_check="the CPU plugin cannot return u1 outputs" if et == "u1" else None)

    # Float indices: refused when the model loads.
    d, i = param("data", "f32", (2, 3)), param("indices", "i32", (2, 3))
    x, w = serialize_text(model({"out": gather_elements(d, i, 1)}, [d, i], "bad_base"))
    x = set_attr(x, "indices", "element_type", "f32").replace('precision="I32"', 'precision="FP32"')
    cases.bad("gather_elements_float_indices", x, w, "i32 or i64")


GENERATOR = Generator("gather_elements", build, references={"GatherElements": evaluate_gather_elements})
