"""ScatterUpdate-3 and ScatterNDUpdate-3 and -15: the values of OpenVINO's
op_reference tests (ScatterUpdate's every axis and indices of several ranks,
the axis at run time as upstream gives it; ScatterNDUpdate's tuples of every
length, repeated ones and every reduction) on every ordinary type and every
index type, negative axes and indices, repeated indices (the last update
wins, or the reduction combines them in index order), indices out of range
(run-time errors), constant indices, dynamic shapes, empty inputs, packed
types, and index types OpenVINO refuses when the model loads."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, INT_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import _out, arange, code_const, const, convert, model, param, serialize_text
from ..registry import Generator
from ..xmltext import set_attr

OPSET3 = NodeFactory("opset3")
OPSET8 = NodeFactory("opset8")


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

    # A KV cache as LLMs write it: the new step's keys written into the
    # cache at the position given, then the beams reordered by a Gather.
    cache, step = param("cache", "f32", (4, 2, 8, 4)), param("new_keys", "f32", (4, 2, 1, 4))
    position, beams = param("position", "i64", (1,)), param("beam_idx", "i32", (4,))
    written = scatter_update(cache, position, step, const([2], "i64", "seq_axis"), name="write_step")
    reordered = OPSET8.create("Gather", [_out(written), _out(beams), _out(const(0, "i64", "beam_axis", shape=()))],
                              {"batch_dims": 0})
    reordered.set_friendly_name("reorder_beams")
    m = model({"present_keys": reordered}, [cache, step, position, beams], "kv_cache")
    cases.add("scatter_update_kv_cache", m, {
        "cache": arange((4, 2, 8, 4)), "new_keys": -arange((4, 2, 1, 4)) - 1,
        "position": np.array([5], np.int64), "beam_idx": np.array([2, 2, 0, 3], np.int32)})

    # Float indices: refused when the model loads.
    d, i, u = param("data", "f32", (3, 2)), param("indices", "i32", (2,)), param("updates", "f32", (2, 2))
    x, w = serialize_text(model({"out": scatter_update(d, i, u, const([0], "i64", "axis"))}, [d, i, u], "bad_base"))
    x = set_attr(x, "indices", "element_type", "f32").replace('precision="I32"', 'precision="FP32"')
    cases.bad("scatter_update_float_indices", x, w, "must hold integers")


OPSETS_ND = {3: NodeFactory("opset4"), 15: NodeFactory("opset15")}


def bf16_round(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to bf16 (nearest even), as float32."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    nan = np.isnan(np.asarray(x, np.float32))
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(nan, np.asarray(x, np.float32), out).astype(np.float32)


def combine(a: np.ndarray, b: np.ndarray, reduction: str, et: str) -> np.ndarray:
    """One update `b` combined with the elements `a` it lands on, as
    OpenVINO's reference computes it: booleans as logic (sub is XOR),
    integers wrapping, floats rounded to their type after each update."""
    if reduction == "none":
        return b
    if et == "boolean":
        return {"sum": a | b, "max": a | b, "sub": a ^ b, "prod": a & b, "min": a & b}[reduction]
    with np.errstate(all="ignore"):
        if reduction == "sum":
            r = a + b
        elif reduction == "sub":
            r = a - b
        elif reduction == "prod":
            r = a * b
        elif reduction == "min":
            r = np.where(a < b, a, b)
        else:
            r = np.where(a > b, a, b)
    r = np.asarray(r).astype(a.dtype)
    return bf16_round(r) if et == "bf16" else r


def ref_scatter_nd_update(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, reduction: str,
                          indices_type: str, et: str) -> np.ndarray:
    if indices_type not in ("i32", "i64"):
        raise RefError("ScatterNDUpdate indices must be i32 or i64")
    if data.ndim == 0 or indices.ndim == 0 or indices.shape[-1] > data.ndim:
        raise RefError("ScatterNDUpdate shapes do not fit")
    k = indices.shape[-1]
    want = indices.shape[:-1] + data.shape[k:]
    if updates.shape != want and not (want == () and updates.size == 1):
        raise RefError(f"ScatterNDUpdate updates must have shape {want}, not {updates.shape}")
    count = int(np.prod(indices.shape[:-1]))
    tuples = indices.astype(np.int64).reshape(count, k)
    sizes = np.array(data.shape[:k], np.int64)
    if tuples.size and ((tuples < -sizes).any() or (tuples >= sizes).any()):
        raise RefError("ScatterNDUpdate index out of range")
    tuples = np.where(tuples < 0, tuples + sizes, tuples)
    slices = updates.reshape((count,) + data.shape[k:])
    # f16 and bf16 reduce in f32 and round once at the end, as OpenVINO's
    # reference does.
    wide = reduction != "none" and et in ("f16", "bf16")
    out = data.astype(np.float32) if wide else data.copy()
    if wide:
        slices = slices.astype(np.float32)
    # In index order: where tuples repeat, the last update wins, or the
    # reduction combines them in that order.
    for t, u in zip(tuples, slices):
        at = tuple(int(v) for v in t)
        out[at] = combine(np.asarray(out[at]), np.asarray(u), reduction, "f32" if wide else et)
    if wide:
        out = out.astype(np.float16) if et == "f16" else bf16_round(out)
    return out


def evaluate_scatter_nd_update(call: Call) -> tuple[np.ndarray, list[str]]:
    reduction = str(call.attrs.get("reduction", "none")).lower()
    out = ref_scatter_nd_update(call.args[0], call.args[1], call.args[2], reduction, call.arg_types[1],
                                call.arg_types[0])
    caveats = []
    k = call.args[1].shape[-1]
    tuples = [tuple(t) for t in call.args[1].reshape(-1, k).tolist()] if k else []
    repeated = len(set(tuples)) < len(tuples) or (k == 0 and call.args[1].size == 0 and call.args[1].ndim > 1
                                                  and call.args[1].shape[0] > 1)
    if call.arg_types[0] == "boolean" and reduction == "sub":
        caveats.append(BOOLEAN_SUB)
    if call.arg_types[0] == "bf16" and reduction in ("sum", "sub", "prod") and repeated:
        caveats.append(BF16_ONCE)
    return out, caveats


def scatter_nd_update(data, indices, updates, version: int, reduction: str = "none", name: str = "scatter_nd"):
    attrs = {"reduction": reduction} if version == 15 else {}
    node = OPSETS_ND[version].create("ScatterNDUpdate", [_out(data), _out(indices), _out(updates)], attrs)
    node.set_friendly_name(name)
    return node


# Measured with OpenVINO 2026.4.1 (tools/measure_cpu_scatter.py).
ONE_ELEMENT = ("the CPU plugin refuses updates of one element where the tuples pick single elements (a scalar "
               "each), which the spec allows and OpenVINO's shape inference and reference take")
EMPTY_TUPLES = ("the CPU plugin leaves the data unchanged for tuples of no index, each of which picks the whole "
                "data in the reference (and the spec's definition): [0..5] plus two slices gives [6, 9, 12, ...]")
BF16_ONCE = ("the CPU plugin rounds bf16 after every update of a reduction (256 + 1 four times gives 256), where "
             "OpenVINO's reference reduces in f32 and rounds once (260), as it does f16")
BOOLEAN_SUB = ("the CPU plugin subtracts booleans as integers (false - true - true gives true), where the spec "
               "and the reference take sub on booleans as XOR")

D333 = [11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39]
D444 = [1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1] * 2 + [8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8] * 2
R333 = [8, 12, 1, 5, 3, 19, 2, 4, 13, 7, 6, 25, 5, 12, 11, 23, 17, 2, 18, 23, 16, 17, 11, 22, 0, 10, 20]
U233 = [4, 15, 11, 13, 15, 23, 1, 4, 4, 11, 2, 10, 1, 25, 25, 19, 23, 10]

# op_reference/scatter_nd_update.cpp: (tag, data shape, data, indices shape,
# indices, updates shape, updates, reduction, expected or None). The
# version 3 cases run on both versions; the repeated and reduced ones on
# version 15 only.
UPSTREAM_ND = [
    ("1x1", (1,), [1], (1,), [0], (), [40], "none", [40]),
    ("2x2_by_1", (2, 2), [1, 2, 3, 4], (2, 1), [1, 0], (2, 2), [10, 20, 30, 40], "none", [30, 40, 10, 20]),
    ("2x2_by_2", (2, 2), [1, 2, 3, 4], (2, 2), [0, 0, 1, 1], (2,), [10, 40], "none", [10, 2, 3, 40]),
    ("3x3_by_1", (3, 3, 3), D333, (2, 1), [0, 2], (2, 3, 3), list(range(91, 100)) + list(range(81, 90)), "none",
     list(range(91, 100)) + D333[9:18] + list(range(81, 90))),
    ("3x3_by_2v2", (3, 3, 3), D333, (2, 2, 3), [0, 0, 0, 2, 2, 2, 1, 0, 0, 1, 2, 2], (2, 2), [91, 92, 81, 82], "none",
     [91] + D333[1:9] + [81] + D333[10:17] + [82] + D333[18:26] + [92]),
    ("3x3_by_2", (3, 3, 3), D333, (2, 2), [0, 0, 2, 2], (2, 3), [91, 92, 93, 87, 88, 89], "none",
     [91, 92, 93] + D333[3:24] + [87, 88, 89]),
    ("3x3_by_3", (3, 3, 3), D333, (2, 3), [0, 0, 0, 2, 2, 2], (2,), [91, 99], "none", [91] + D333[1:26] + [99]),
    ("1d_from_examples", (8,), [1, 2, 3, 4, 5, 6, 7, 8], (4, 1), [4, 3, 1, 7], (4,), [9, 10, 11, 12], "none",
     [1, 11, 3, 10, 9, 6, 7, 12]),
    ("4x4_shape_from_examples", (4, 4, 4), D444, (2, 1), [0, 2], (2, 4, 4),
     [5] * 4 + [6] * 4 + [7] * 4 + [8] * 4 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4, "none",
     [5] * 4 + [6] * 4 + [7] * 4 + [8] * 4 + D444[16:32] + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + D444[48:]),
    ("4x4_v2", (4, 4, 4), D444, (2, 2, 2), [0, 0, 2, 2, 1, 1, 3, 3], (2, 2, 4),
     [15, 16, 17, 18, 25, 26, 27, 28, 35, 36, 37, 38, 45, 46, 47, 58], "none", None),
]
UPSTREAM_ND15 = [
    ("1x1_repeated", (1,), [1], (2, 1), [0, 0], (2,), [40, 50], "none", [50]),
    ("tf_example_repeated", (3, 2), [1] * 6, (2, 2), [0, 1, 0, 1], (2,), [5, 10], "none", [1, 10, 1, 1, 1, 1]),
    ("3x3_by_1_repeated", (3, 3, 3), R333, (2, 1), [2, 2], (2, 3, 3), U233, "none", R333[:18] + U233[9:]),
    ("3x3_by_3_repeated", (3, 3, 3), D333, (3, 3), [0, 0, 0, 2, -1, 2, -1, 2, -1], (3,), [91, 99, 100], "none",
     [91] + D333[1:26] + [100]),
    ("1d_from_examples_repeated", (8,), [1, 2, 3, 4, 5, 6, 7, 8], (5, 1), [4, 3, 1, 7, 1], (5,),
     [9, 10, 11, 12, 22], "none", [1, 22, 3, 10, 9, 6, 7, 12]),
    ("1x1_sum", (1,), [1], (1,), [0], (), [40], "sum", [41]),
    ("1x1_sub", (1,), [40], (1,), [0], (), [40], "sub", [0]),
    ("1x1_prod", (1,), [2], (1,), [0], (), [40], "prod", [80]),
    ("1x1_max", (1,), [2], (1,), [0], (), [40], "max", [40]),
    ("1x1_min", (1,), [2], (1,), [0], (), [40], "min", [2]),
    ("tf_example_sum", (3, 2), [1] * 6, (2, 2), [0, 1, 2, 0], (2,), [5, 10], "sum", [1, 6, 1, 1, 11, 1]),
    ("tf_example_sub", (3, 2), [1, 6, 1, 1, 11, 1], (2, 2), [0, 1, 2, 0], (2,), [5, 10], "sub", [1] * 6),
    ("tf_example_prod", (3, 2), [1, 2, 1, 1, 2, 1], (2, 2), [0, 1, 2, 0], (2,), [5, 10], "prod",
     [1, 10, 1, 1, 20, 1]),
    ("tf_example_max", (3, 2), [1] * 6, (2, 2), [0, 1, 2, 0], (2,), [5, 10], "max", [1, 5, 1, 1, 10, 1]),
    ("tf_example_min", (3, 2), [15] * 6, (2, 2), [0, 1, 2, 0], (2,), [5, 10], "min", [15, 5, 15, 15, 10, 15]),
    ("3x3_by_1_sum", (3, 3, 3), R333, (2, 1), [0, 2], (2, 3, 3), U233, "sum",
     [12, 27, 12, 18, 18, 42, 3, 8, 17] + R333[9:18] + [29, 25, 26, 18, 36, 47, 19, 33, 30]),
    ("3x3_by_1_prod", (3, 3, 3), R333, (2, 1), [0, 2], (2, 3, 3), U233, "prod",
     [32, 180, 11, 65, 45, 437, 2, 16, 52] + R333[9:18] + [198, 46, 160, 17, 275, 550, 0, 230, 200]),
    ("3x3_by_1_max", (3, 3, 3), R333, (2, 1), [0, 2], (2, 3, 3), U233, "max",
     [8, 15, 11, 13, 15, 23, 2, 4, 13] + R333[9:18] + [18, 23, 16, 17, 25, 25, 19, 23, 20]),
    ("3x3_by_1_min", (3, 3, 3), R333, (2, 1), [0, 2], (2, 3, 3), U233, "min",
     [4, 12, 1, 5, 3, 19, 1, 4, 4] + R333[9:18] + [11, 2, 10, 1, 11, 22, 0, 10, 10]),
    ("3x3_by_3_repeated_sum", (3, 3, 3), D333, (3, 3), [0, 0, 0, 2, -1, 2, -1, 2, -1], (3,), [2, 4, 6], "sum",
     [13] + D333[1:26] + [49]),
    ("3x3_by_3_repeated_sub", (3, 3, 3), D333, (3, 3), [0, 0, 0, 2, -1, 2, -1, 2, -1], (3,), [2, 4, 6], "sub",
     [9] + D333[1:26] + [29]),
    ("3x3_by_3_repeated_prod", (3, 3, 3), D333, (3, 3), [0, 0, 0, 2, -1, 2, -1, 2, -1], (3,), [2, 4, 6], "prod",
     [22] + D333[1:26] + [936]),
    ("3x3_by_3_repeated_max", (3, 3, 3), D333, (3, 3), [0, 0, 0, 2, -1, 2, -1, 2, -1], (3,), [2, 4, 6], "max",
     D333),
    ("3x3_by_3_repeated_min", (3, 3, 3), D333, (3, 3), [0, 0, 0, 2, -1, 2, -1, 2, -1], (3,), [2, 4, 6], "min",
     [2] + D333[1:26] + [4]),
]

REDUCTIONS = ["none", "sum", "sub", "prod", "min", "max"]


def add_nd(cases: Cases, name: str, version: int, reduction: str, dshape, ishape, ushape, data, indices, updates,
           et="f32", it="i32", const_indices=False, **kw):
    d, u = param("data", et, dshape), param("updates", et, ushape)
    feeds = {"data": data, "updates": updates}
    if const_indices:
        i, params = const(indices, it, "indices"), [d, u]
    else:
        i = param("indices", it, ishape)
        params = [d, i, u]
        feeds["indices"] = indices
    m = model({"out": scatter_nd_update(d, i, u, version, reduction)}, params, "scatter_nd_update")
    cases.add(name, m, feeds, **kw)


def build_nd(cases: Cases):
    for tag, dshape, dvals, ishape, idx, ushape, uvals, reduction, want in UPSTREAM_ND + UPSTREAM_ND15:
        versions = (3, 15) if (tag, dshape) in [(c[0], c[1]) for c in UPSTREAM_ND] else (15,)
        data = np.array(dvals, np.float32).reshape(dshape)
        indices = np.array(idx, np.int32).reshape(ishape)
        updates = np.array(uvals, np.float32).reshape(ushape)
        got = ref_scatter_nd_update(data, indices, updates, reduction, "i32", "f32")
        if want is not None:
            assert got.reshape(-1).tolist() == want, tag
        for version in versions:
            add_nd(cases, f"scatter_nd{version}_upstream_{tag}", version, reduction, dshape, ishape, ushape, data,
                   indices, updates)

    # Every ordinary type with every reduction (and i64 indices), on
    # repeated tuples and a negative one: the reductions combine in index
    # order.
    dshape, ishape, ushape = (4, 3), (5, 1), (5, 3)
    idx = np.array([[1], [3], [-3], [0], [1]], np.int64)
    for et in ALL_TYPES:
        if et == "boolean":
            data = (np.arange(12).reshape(dshape) % 3 == 0)
            upd = (np.arange(15).reshape(ushape) % 2 == 0)
        else:
            data = (np.arange(12).reshape(dshape) % 7 + 1).astype(NP_DTYPE[et])
            upd = (np.arange(15).reshape(ushape) % 5 + 2).astype(NP_DTYPE[et])
        for reduction in REDUCTIONS:
            add_nd(cases, f"scatter_nd15_{reduction}_type_{et}", 15, reduction, dshape, ishape, ushape, data, idx,
                   upd, et=et, it="i64")
        add_nd(cases, f"scatter_nd3_type_{et}", 3, "none", dshape, (3, 1), (3, 3), data,
               np.array([[2], [0], [-1]], np.int64), upd[:3], et=et, it="i64")

    # Integer reductions wrap; f16 rounds after every update.
    data = np.array([120, -120, 100, 0], np.int8)
    add_nd(cases, "scatter_nd15_sum_i8_wraps", 15, "sum", (4,), (4, 1), (4,), data,
           np.array([[0], [1], [2], [2]], np.int32), np.array([10, -10, 100, 100], np.int8), et="i8")
    add_nd(cases, "scatter_nd15_prod_u8_wraps", 15, "prod", (2,), (2, 1), (2,), np.array([200, 3], np.uint8),
           np.array([[0], [1]], np.int32), np.array([3, 100], np.uint8), et="u8")
    add_nd(cases, "scatter_nd15_sum_f16_rounds_once", 15, "sum", (1,), (4, 1), (4,),
           np.array([2048], np.float16), np.zeros((4, 1), np.int32), np.ones(4, np.float16), et="f16")
    # bf16 as Consts (its values travel as f32), the result converted to f32.
    i = param("indices", "i32", (4, 1))
    out = scatter_nd_update(const([256, 3], "bf16", "data"), i, const([1, 1, 1, 1.5], "bf16", "updates"), 15, "sum")
    m = model({"out": convert(out, "f32")}, [i], "scatter_nd_update")
    cases.add("scatter_nd15_sum_bf16_rounds_once", m, {"indices": np.array([[0], [0], [0], [1]], np.int32)})

    # Every index type OpenVINO takes, and ones it refuses when the model
    # loads.
    for it in ("i32", "i64"):
        add_nd(cases, f"scatter_nd3_indices_{it}", 3, "none", (3, 4), (2, 2), (2,), arange((3, 4)),
               np.array([[2, 3], [0, -4]]).astype(NP_DTYPE[it]), np.array([50, 60], np.float32), it=it)

    # Indices out of range, both versions.
    for version in (3, 15):
        for tag, idx in (("past_the_end", [[0, 1], [2, 0]]), ("below_minus_s", [[0, 1], [-3, 0]])):
            add_nd(cases, f"scatter_nd{version}_index_{tag}", version, "none", (2, 3), (2, 2), (2,),
                   arange((2, 3)), np.array(idx, np.int64), np.array([7, 8], np.float32), it="i64",
                   expected_error="out of range")

    # Constant indices over a larger tensor; dynamic shapes; no tuples; a
    # scalar update given as one element; tuples of no index.
    rng = np.random.default_rng(20261129)
    idx = np.stack([rng.integers(0, 16, (6,)), rng.integers(0, 8, (6,))], axis=-1)
    add_nd(cases, "scatter_nd15_const_indices", 15, "sum", (16, 8, 4), (6, 2), (6, 4), arange((16, 8, 4)), idx,
           arange((6, 4)), it="i64", const_indices=True)
    d, i, u = param("data", "f32", "[?,?]"), param("indices", "i32", "[?,?]"), param("updates", "f32", "[?]")
    m = model({"out": scatter_nd_update(d, i, u, 15, "max")}, [d, i, u], "scatter_nd_update")
    cases.add("scatter_nd15_dynamic", m, {"data": arange((3, 5)), "indices": np.array([[2, 4], [0, 0]], np.int32),
                                          "updates": np.array([100, -1], np.float32)})
    add_nd(cases, "scatter_nd3_no_tuples", 3, "none", (2, 3), (0, 1), (0, 3), arange((2, 3)),
           np.zeros((0, 1), np.int32), np.zeros((0, 3), np.float32))
    add_nd(cases, "scatter_nd3_one_element_update", 3, "none", (2, 3), (2,), (1,), arange((2, 3)),
           np.array([1, 2], np.int32), np.array([9], np.float32), no_check=ONE_ELEMENT)
    add_nd(cases, "scatter_nd15_whole_data_tuple", 15, "sum", (2, 3), (2, 0), (2, 2, 3), arange((2, 3)),
           np.zeros((2, 0), np.int32), arange((2, 2, 3)), no_check=EMPTY_TUPLES)

    # Packed types, as Consts, without a reduction.
    for et, high in (("u4", 16), ("i4", 8), ("u1", 2)):
        codes = (np.arange(12) * 5 % high - (8 if et == "i4" else 0)).astype(NP_DTYPE[et]).reshape(3, 4)
        new = (np.arange(8) * 3 % high - (8 if et == "i4" else 0)).astype(NP_DTYPE[et]).reshape(2, 4)
        i = param("indices", "i32", (2, 1))
        m = model({"out": scatter_nd_update(code_const(codes, et, "data"), i, code_const(new, et, "updates"), 15)},
                  [i], "scatter_nd_update")
        cases.add(f"scatter_nd15_type_{et}", m, {"indices": np.array([[2], [-3]], np.int32)},
                  no_check="the CPU plugin cannot return u1 outputs" if et == "u1" else None)

    # Indices other than i32 and i64: refused when the model loads.
    for ty, prec in (("f32", "FP32"), ("u8", "U8")):
        d, i, u = param("data", "f32", (3, 2)), param("indices", "i32", (2, 1)), param("updates", "f32", (2, 2))
        x, w = serialize_text(model({"out": scatter_nd_update(d, i, u, 15)}, [d, i, u], "bad_base"))
        x = set_attr(x, "indices", "element_type", ty).replace('precision="I32"', f'precision="{prec}"')
        cases.bad(f"scatter_nd_indices_{ty}", x, w, "must be i32 or i64")


GENERATOR = Generator("scatter", lambda cases: (build(cases), build_nd(cases)),
                      references={"ScatterUpdate": evaluate_scatter_update,
                                  "ScatterNDUpdate": evaluate_scatter_nd_update})
