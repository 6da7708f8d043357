"""ScatterUpdate-3: the values of OpenVINO's op_reference tests (every axis,
indices of several ranks, the axis at run time as upstream gives it) on every
ordinary type and every integer index type, negative axes, repeated indices
(the last update wins), indices negative or past the end (run-time errors),
constant indices and axis, dynamic shapes, empty inputs, packed types, and
float indices, refused when the model loads."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, INT_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import _out, arange, code_const, const, model, param, serialize_text
from ..registry import Generator
from ..xmltext import set_attr

OPSET3 = NodeFactory("opset3")


def ref_scatter_update(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: np.ndarray,
                       indices_type: str) -> np.ndarray:
    if indices_type not in INT_TYPES and indices_type not in ("u4", "i4", "u1"):
        raise RefError("ScatterUpdate indices must be integers")
    if axis.size != 1:
        raise RefError("ScatterUpdate axis must be one element")
    a = int(axis.reshape(-1)[0])
    if not -data.ndim <= a < data.ndim:
        raise RefError("ScatterUpdate axis out of range")
    a = a + data.ndim if a < 0 else a
    want = data.shape[:a] + indices.shape + data.shape[a + 1:]
    if updates.shape != want:
        raise RefError(f"ScatterUpdate updates must have shape {want}, not {updates.shape}")
    size = data.shape[a]
    wide = indices.astype(np.int64).reshape(-1)
    if wide.size and (wide.min() < 0 or wide.max() >= size):
        raise RefError(f"ScatterUpdate index out of range [0, {size})")
    out = data.copy()
    flat_updates = updates.reshape(data.shape[:a] + (wide.size,) + data.shape[a + 1:])
    # In index order: where indices repeat, the last update wins.
    for j, i in enumerate(wide):
        out[(slice(None),) * a + (i,)] = flat_updates[(slice(None),) * a + (j,)]
    return out


def evaluate_scatter_update(call: Call) -> tuple[np.ndarray, list[str]]:
    return ref_scatter_update(call.args[0], call.args[1], call.args[2], call.args[3], call.arg_types[1]), []


def scatter_update(data, indices, updates, axis, name: str = "scatter_update"):
    node = OPSET3.create("ScatterUpdate", [_out(data), _out(indices), _out(updates), _out(axis)], {})
    node.set_friendly_name(name)
    return node


# op_reference/scatter_update.cpp: (tag, data shape, indices shape, indices,
# updates shape, axis, expected); data zeros, updates 1..n unless given
# (updates shape, values).
UPSTREAM = [
    ("4d_axis_2", (3, 2, 2, 3), (2, 1), [0, 1], (3, 3, 2, 2, 2), 2, None),
    ("3x3_axis_1", (3, 3), (2,), [1, 2], ((3, 2), [1, 1, 1, 2, 2, 2]), 1, [0, 1, 1, 0, 1, 2, 0, 2, 2]),
    ("3x3_axis_0", (3, 3), (2,), [1, 2], ((2, 3), [1, 1, 1, 2, 2, 2]), 0, [0, 0, 0, 1, 1, 1, 2, 2, 2]),
    ("3x4_axis_0", (3, 4), (2,), [0, 2], (3, 4), 0, None),
    ("3x3_wide_updates", (3, 3), (2,), [0, 2], (3, 5), 1, None),
    ("3x3_indices_1x2_axis_0", (3, 3), (1, 2), [1, 2], (1, 2, 3), 0, [0, 0, 0, 1, 2, 3, 4, 5, 6]),
    ("3x3_indices_1x2_axis_1", (3, 3), (1, 2), [1, 2], (3, 1, 2), 1, [0, 1, 2, 0, 3, 4, 0, 5, 6]),
    ("3x3_updates_4x4x4", (3, 3), (1, 2), [1, 2], (4, 4, 4), 1, None),
    ("2x2x2_indices_1x2", (2, 2, 2), (1, 2), [0, 1], (2, 2, 3, 2), 1, None),
    ("1x3x2x2_indices_1x3", (1, 3, 2, 2), (1, 3), [2, 0, 1], (1, 3, 2, 2, 2), 1, None),
    ("2x3x4x2_indices_3x1", (2, 3, 4, 2), (3, 1), [0, 1, 2], (3, 2, 3, 3, 2), 2, None),
]

# The upstream cases whose updates are not of the spec's shape, data[:axis] +
# indices + data[axis+1:]: upstream gives the axis as a Parameter, so its
# shape inference cannot check them, and the reference reads a corner of the
# larger updates. The spec and OpenVINO's shape inference with a constant
# axis refuse them, and so does ovir.
WRONG_UPDATES = ("OpenVINO's reference reads a corner of updates larger than the spec's shape; the spec and "
                 "OpenVINO's shape inference with a constant axis refuse them")

# Measured with OpenVINO 2026.4.1: the CPU plugin writes repeated indices in
# order, the last one winning, on these cases.
REPEATS = [(6, 4), (7,), [2, 3, 2, 2, 5, 3, 2], 0]


def add_update(cases: Cases, name: str, dshape, ishape, ushape, data, indices, updates, axis: int,
               et="f32", it="i32", axis_const=True, **kw):
    d, i, u = param("data", et, dshape), param("indices", it, ishape), param("updates", et, ushape)
    feeds = {"data": data, "indices": indices, "updates": updates}
    params = [d, i, u]
    if axis_const:
        a = const([axis], "i64", "axis")
    else:
        a = param("axis", "i64", (1,))
        feeds["axis"] = np.array([axis], np.int64)
        params.append(a)
    m = model({"out": scatter_update(d, i, u, a)}, params, "scatter_update")
    cases.add(name, m, feeds, **kw)


def build(cases: Cases):
    # op_reference: the axis a run-time input, as upstream gives it; the
    # valid cases on every ordinary type, with i32 indices.
    for tag, dshape, ishape, idx, ushape, axis, want in UPSTREAM:
        data = np.zeros(dshape, np.float32)
        indices = np.array(idx, np.int32).reshape(ishape)
        if isinstance(ushape[0], tuple):
            ushape, values = ushape
            updates = np.array(values, np.float32).reshape(ushape)
        else:
            updates = np.arange(1, int(np.prod(ushape)) + 1, dtype=np.float32).reshape(ushape)
        if want is None:
            add_update(cases, f"scatter_update_upstream_{tag}", dshape, ishape, ushape, data, indices, updates,
                       axis, axis_const=False, expected_error="updates", no_check=WRONG_UPDATES)
            continue
        got = ref_scatter_update(data, indices, updates, np.array([axis]), "i32")
        assert got.reshape(-1).tolist() == want, tag
        add_update(cases, f"scatter_update_upstream_{tag}", dshape, ishape, ushape, data, indices, updates, axis,
                   axis_const=False)
    for et in ALL_TYPES:
        dshape, ishape, ushape = (3, 4, 2), (2, 2), (3, 2, 2, 2)
        data = arange(dshape, et) if et != "boolean" else (arange(dshape, "i32") % 3 == 0)
        upd = (np.arange(24).reshape(ushape) + 100).astype(NP_DTYPE[et]) if et != "boolean" else \
            (np.arange(24).reshape(ushape) % 2 == 0)
        add_update(cases, f"scatter_update_type_{et}", dshape, ishape, ushape, data,
                   np.array([[3, 0], [1, 2]], np.int32), upd, -2, et=et)

    # Every integer type of indices.
    for it in sorted(INT_TYPES):
        add_update(cases, f"scatter_update_indices_{it}", (4, 3), (2,), (2, 3), arange((4, 3)),
                   np.array([3, 1]).astype(NP_DTYPE[it]), arange((2, 3)) + 50, 0, it=it)

    # Negative axes, on a constant axis.
    for axis in (-1, -2, -3):
        dshape = (2, 3, 4)
        a = axis + 3
        ishape = (2,)
        ushape = dshape[:a] + ishape + dshape[a + 1:]
        idx = np.array([dshape[a] - 1, 0], np.int64)
        add_update(cases, f"scatter_update_axis_minus_{-axis}", dshape, ishape, ushape, arange(dshape), idx,
                   arange(ushape) + 100, axis, it="i64")

    # Repeated indices: the last update wins.
    dshape, ishape, idx, axis = REPEATS
    add_update(cases, "scatter_update_repeated_indices", dshape, ishape, (7, 4), np.zeros(dshape, np.float32),
               np.array(idx, np.int32), arange((7, 4)), axis)

    # Indices out of range, negative or past the end.
    for tag, idx in (("negative", [0, -1]), ("past_the_end", [3, 0])):
        add_update(cases, f"scatter_update_index_{tag}", (3, 2), (2,), (2, 2), arange((3, 2)),
                   np.array(idx, np.int64), arange((2, 2)), 0, it="i64", expected_error="out of range")

    # Constant indices and updates, over a larger tensor (the layout and the
    # copy worked out when the model compiles).
    d = param("data", "f32", (16, 8, 4))
    idx = const(np.array([[7, 3], [5, 0]]), "i64", "indices")
    upd = const(np.arange(16 * 2 * 2 * 4).reshape(16, 2, 2, 4).astype(np.float32), "f32", "updates")
    m = model({"out": scatter_update(d, idx, upd, const([-2], "i32", "axis"))}, [d], "scatter_update")
    cases.add("scatter_update_const_indices", m, {"data": arange((16, 8, 4))})

    # Dynamic shapes.
    d, i, u = param("data", "f32", "[?,?]"), param("indices", "i32", "[?]"), param("updates", "f32", "[?,?]")
    m = model({"out": scatter_update(d, i, u, const(1, "i64", "axis", shape=()))}, [d, i, u], "scatter_update")
    cases.add("scatter_update_dynamic", m, {"data": arange((3, 5)), "indices": np.array([4, 0], np.int32),
                                            "updates": arange((3, 2)) + 10})

    # Zero-sized dimensions: no indices, and empty data.
    add_update(cases, "scatter_update_no_indices", (2, 3), (0,), (2, 0), arange((2, 3)),
               np.zeros(0, np.int32), np.zeros((2, 0), np.float32), 1)
    add_update(cases, "scatter_update_empty_data", (0, 3), (2,), (0, 2), np.zeros((0, 3), np.float32),
               np.array([2, 0], np.int32), np.zeros((0, 2), np.float32), 1)

    # Packed types, as Consts.
    for et, high in (("u4", 16), ("i4", 8), ("u1", 2)):
        codes = (np.arange(12) * 5 % high - (8 if et == "i4" else 0)).astype(NP_DTYPE[et]).reshape(3, 4)
        new = (np.arange(8) * 3 % high - (8 if et == "i4" else 0)).astype(NP_DTYPE[et]).reshape(2, 4)
        i = param("indices", "i32", (2,))
        m = model({"out": scatter_update(code_const(codes, et, "data"), i, code_const(new, et, "updates"),
                                         const([0], "i64", "axis"))}, [i], "scatter_update")
        cases.add(f"scatter_update_type_{et}", m, {"indices": np.array([2, 0], np.int32)},
                  no_check="the CPU plugin cannot return u1 outputs" if et == "u1" else None)

    # Float indices: refused when the model loads.
    d, i, u = param("data", "f32", (3, 2)), param("indices", "i32", (2,)), param("updates", "f32", (2, 2))
    x, w = serialize_text(model({"out": scatter_update(d, i, u, const([0], "i64", "axis"))}, [d, i, u], "bad_base"))
    x = set_attr(x, "indices", "element_type", "f32").replace('precision="I32"', 'precision="FP32"')
    cases.bad("scatter_update_float_indices", x, w, "must hold integers")


GENERATOR = Generator("scatter", build, references={"ScatterUpdate": evaluate_scatter_update})
