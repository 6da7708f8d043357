"""ScatterElementsUpdate-3 and -12: the values of OpenVINO's op_reference
tests (both axes, the axis at run time as upstream gives it) on the types
upstream runs, every ordinary type with no reduction, every reduction with
and without use_init_val, negative axes and indices (counted from the end),
repeated indices (the last update wins, or the reduction combines them in
index order), integer means rounded toward minus infinity, indices out of
range (run-time errors), constant indices, dynamic shapes, empty indices, a
packed type, and inputs OpenVINO refuses when the model loads."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, INT_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import _out, arange, code_const, const, model, param, serialize_text
from ..registry import Generator
from ..xmltext import set_attr
from .scatter import bf16_round

OPSETS = {3: NodeFactory("opset3"), 12: NodeFactory("opset12")}
REDUCTIONS = ["none", "sum", "prod", "min", "max", "mean"]


def neutral(reduction: str, dtype: np.dtype):
    """The value an element starts from without use_init_val, as OpenVINO's
    reference sets it (the lowest and largest finite values for max and
    min)."""
    if reduction == "prod":
        return 1
    if reduction in ("sum", "mean"):
        return 0
    if dtype == np.bool_:
        return reduction == "min"
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else np.finfo(dtype)
    return info.max if reduction == "min" else info.min


def ref_scatter_elements(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: np.ndarray,
                         reduction: str, use_init_val: bool, indices_type: str, et: str) -> np.ndarray:
    if indices_type not in INT_TYPES:
        raise RefError("ScatterElementsUpdate indices must be integers")
    if reduction == "mean" and et == "boolean":
        raise RefError("ScatterElementsUpdate mean is refused for booleans")
    if axis.size != 1:
        raise RefError("ScatterElementsUpdate axis must be one element")
    a = int(axis.reshape(-1)[0])
    if not -data.ndim <= a < data.ndim:
        raise RefError("ScatterElementsUpdate axis out of range")
    a = a + data.ndim if a < 0 else a
    if indices.ndim != data.ndim or updates.shape != indices.shape:
        raise RefError("ScatterElementsUpdate shapes do not fit")
    if any(i > d for k, (i, d) in enumerate(zip(indices.shape, data.shape)) if k != a):
        raise RefError("ScatterElementsUpdate indices larger than the data")
    size = data.shape[a]
    wide_idx = indices.astype(np.int64)
    if wide_idx.size and (wide_idx.min() < -size or wide_idx.max() >= size):
        raise RefError(f"ScatterElementsUpdate index out of range [-{size}, {size})")
    wide_idx = np.where(wide_idx < 0, wide_idx + size, wide_idx)
    # f16 and bf16 reduce in f32 and round once.
    wide = reduction != "none" and et in ("f16", "bf16")
    out = data.astype(np.float32) if wide else data.copy()
    upd = updates.astype(np.float32) if wide else updates
    places = []
    for pos in np.ndindex(*indices.shape):
        at = list(pos)
        at[a] = int(wide_idx[pos])
        places.append((tuple(at), pos))
    if reduction != "none" and not use_init_val:
        n = neutral(reduction, data.dtype)
        if wide:
            n = {"min": 65504.0, "max": -65504.0}.get(reduction, n) if et == "f16" else \
                {"min": 3.3895313892515355e38, "max": -3.3895313892515355e38}.get(reduction, n)
        for at, _ in places:
            out[at] = n
    counts: dict = {}
    with np.errstate(all="ignore"):
        for at, pos in places:
            a_, b_ = out[at], upd[pos]
            if reduction == "none":
                out[at] = b_
            elif et == "boolean":
                out[at] = (a_ | b_) if reduction in ("sum", "max") else (a_ & b_)
            elif reduction in ("sum", "mean"):
                out[at] = a_ + b_
            elif reduction == "prod":
                out[at] = a_ * b_
            elif reduction == "min":
                out[at] = a_ if a_ < b_ else b_
            else:
                out[at] = a_ if a_ > b_ else b_
            counts[at] = counts.get(at, 0) + 1
        if reduction == "mean":
            for at, c in counts.items():
                n = c + int(use_init_val)
                if np.issubdtype(out.dtype, np.integer):
                    out[at] = np.floor(float(out[at]) / n)
                else:
                    out[at] = out[at] / out.dtype.type(n)
    if wide:
        out = out.astype(np.float16) if et == "f16" else bf16_round(out).astype(data.dtype)
    return out


def evaluate_scatter_elements(call: Call) -> tuple[np.ndarray, list[str]]:
    attrs = call.attrs
    reduction = str(attrs.get("reduction", "none")).lower()
    use_init_val = bool(attrs.get("use_init_val", True))
    out = ref_scatter_elements(call.args[0], call.args[1], call.args[2], call.args[3], reduction, use_init_val,
                               call.arg_types[1], call.arg_types[0])
    return out, []


def scatter_elements(data, indices, updates, axis, version: int = 12, reduction: str = "none",
                     use_init_val: bool = True, name: str = "scatter_elements"):
    attrs = {"reduction": reduction, "use_init_val": use_init_val} if version == 12 else {}
    node = OPSETS[version].create("ScatterElementsUpdate", [_out(data), _out(indices), _out(updates), _out(axis)],
                                  attrs)
    node.set_friendly_name(name)
    return node


# op_reference/scatter_elements_update.cpp: (tag, data shape, data, indices,
# updates, axis, expected); indices and updates of the data's shape.
UPSTREAM = [
    ("axis_0", (2, 2), [1, 2, 3, 4], [1, 1, 0, 0], [10, 20, 30, 40], 0, [30, 40, 10, 20]),
    ("axis_1", (2, 1), [1, 2], [0, 0], [10, 20], 1, [10, 20]),
]
UPSTREAM_TYPES = ["i16", "i32", "i64", "u32", "u64", "f16", "f32"]

# Measured with OpenVINO 2026.4.1 (docs/movement-ops.md).
OUT_OF_RANGE = ("the CPU plugin does not check indices: one past the end corrupts its heap and aborts the "
                "process (free(): invalid next size)")
INT_MEAN = ("the CPU plugin's integer mean does not round toward minus infinity as the reference does "
            "((-1 - 2) / 2 gives -1 there, -2 in the reference)")


def add_case(cases: Cases, name: str, dshape, ishape, data, indices, updates, axis: int, version=12,
             reduction="none", use_init_val=True, et="f32", it="i32", axis_const=True, axis_type="i64", **kw):
    d, i, u = param("data", et, dshape), param("indices", it, ishape), param("updates", et, ishape)
    feeds = {"data": data, "indices": indices, "updates": updates}
    params = [d, i, u]
    if axis_const:
        a = const([axis], axis_type, "axis")
    else:
        a = param("axis", axis_type, (1,))
        feeds["axis"] = np.array([axis], NP_DTYPE[axis_type])
        params.append(a)
    m = model({"out": scatter_elements(d, i, u, a, version, reduction, use_init_val)}, params,
              "scatter_elements_update")
    cases.add(name, m, feeds, **kw)


def typed(values, et: str) -> np.ndarray:
    v = np.asarray(values)
    return (v % 2 == 1) if et == "boolean" else v.astype(NP_DTYPE[et])


def build(cases: Cases):
    # op_reference, version 3, the axis a run-time input of the indices' type.
    for tag, dshape, dvals, idx, uvals, axis, want in UPSTREAM:
        for et in UPSTREAM_TYPES:
            data, updates = typed(dvals, et).reshape(dshape), typed(uvals, et).reshape(dshape)
            indices = np.array(idx, np.int32).reshape(dshape)
            got = ref_scatter_elements(data, indices, updates, np.array([axis]), "none", True, "i32", et)
            assert got.reshape(-1).astype(np.float64).tolist() == want, tag
            add_case(cases, f"scatter_elements3_upstream_{tag}_{et}", dshape, dshape, data, indices, updates, axis,
                     version=3, et=et, axis_const=False, axis_type="i32")

    # Every ordinary type, no reduction, negative indices and axis.
    dshape, ishape = (3, 4), (2, 4)
    idx = np.array([[2, -1, 0, 1], [-3, 2, 1, -2]], np.int32)
    for et in ALL_TYPES:
        data = typed(np.arange(12).reshape(dshape) * 3, et) if et != "boolean" else \
            (np.arange(12).reshape(dshape) % 3 == 0)
        upd = typed(np.arange(8).reshape(ishape) + 50, et)
        add_case(cases, f"scatter_elements_type_{et}", dshape, ishape, data, idx, upd, -2, et=et)

    # Every integer type of indices, version 3.
    for it in sorted(INT_TYPES):
        add_case(cases, f"scatter_elements3_indices_{it}", (2, 5), (2, 2), arange((2, 5)),
                 np.array([[4, 0], [1, 3]]).astype(NP_DTYPE[it]), arange((2, 2)) + 50, 1, version=3, it=it)

    # Every reduction, with and without the initial value, on repeated
    # indices: f32 and i32 data, axis 1.
    dshape, ishape = (2, 4), (2, 3)
    ridx = np.array([[1, 1, -1], [0, 2, 0]], np.int64)
    for reduction in REDUCTIONS[1:]:
        for init in (True, False):
            for et in ("f32", "i32"):
                data = (arange(dshape, et) - 3).astype(NP_DTYPE[et])
                upd = (np.array([[5, -7, 2], [4, 9, -3]])).astype(NP_DTYPE[et])
                add_case(cases, f"scatter_elements_{reduction}_{'init' if init else 'noinit'}_{et}", dshape,
                         ishape, data, ridx, upd, 1, reduction=reduction, use_init_val=init, et=et, it="i64",
                         no_check=INT_MEAN if reduction == "mean" and init and et == "i32" else None)

    # Each reduction on every number type (and sum, prod, min and max on
    # booleans, as OR, AND, AND and OR).
    for reduction in REDUCTIONS[1:]:
        for et in ALL_TYPES:
            if et == "boolean" and reduction == "mean":
                continue
            data = typed(np.array([[1, 6, 3], [4, 2, 8]]), et)
            upd = typed(np.array([[3, 5, 2], [7, 1, 4]]), et)
            idx = np.array([[0, 0, 1], [1, 1, 0]], np.int32)
            add_case(cases, f"scatter_elements_{reduction}_type_{et}", (2, 3), (2, 3), data, idx, upd, 0,
                     reduction=reduction, et=et)

    # Integer means round toward minus infinity.
    add_case(cases, "scatter_elements_mean_rounds_down", (3,), (5,), np.array([0, 0, 1], np.int32),
             np.array([0, 0, 1, 2, 2], np.int32), np.array([-1, -2, -1, 2, 3], np.int32), 0, reduction="mean",
             use_init_val=False, et="i32", no_check=INT_MEAN)

    # Repeated indices with no reduction: the last update wins.
    add_case(cases, "scatter_elements_repeated_indices", (5,), (6,), arange((5,)),
             np.array([1, 3, 1, -4, 3, 0], np.int32), arange((6,)) + 10, 0)

    # Indices out of range, below -s or past the end.
    for tag, idx in (("below_minus_s", [0, -4]), ("past_the_end", [3, 0])):
        add_case(cases, f"scatter_elements_index_{tag}", (2, 3), (1, 2), arange((2, 3)),
                 np.array([idx], np.int64), arange((1, 2)), 1, it="i64", expected_error="out of range",
                 no_check=OUT_OF_RANGE)

    # Constant indices and updates, over a larger tensor.
    d = param("data", "f32", (8, 16, 4))
    idx = const(np.arange(8 * 3 * 4).reshape(8, 3, 4) % 16, "i64", "indices")
    upd = const(np.arange(8 * 3 * 4).reshape(8, 3, 4).astype(np.float32) + 1000, "f32", "updates")
    m = model({"out": scatter_elements(d, idx, upd, const([1], "i32", "axis"), 3)}, [d], "scatter_elements_update")
    cases.add("scatter_elements3_const_indices", m, {"data": arange((8, 16, 4))})

    # Dynamic shapes.
    d, i, u = param("data", "f32", "[?,?]"), param("indices", "i32", "[?,?]"), param("updates", "f32", "[?,?]")
    m = model({"out": scatter_elements(d, i, u, const(0, "i64", "axis", shape=()), 12, "sum")}, [d, i, u],
              "scatter_elements_update")
    cases.add("scatter_elements_dynamic", m, {"data": arange((3, 4)), "indices": np.array([[2, 0, 1]], np.int32),
                                              "updates": arange((1, 3)) + 10})

    # No indices.
    add_case(cases, "scatter_elements_no_indices", (2, 3), (2, 0), arange((2, 3)), np.zeros((2, 0), np.int32),
             np.zeros((2, 0), np.float32), 1)

    # A packed type, as Consts.
    codes = (np.arange(8) * 5 % 16).astype(NP_DTYPE["u4"]).reshape(2, 4)
    new = (np.arange(4) * 3 % 16).astype(NP_DTYPE["u4"]).reshape(1, 4)
    i = param("indices", "i32", (1, 4))
    m = model({"out": scatter_elements(code_const(codes, "u4", "data"), i, code_const(new, "u4", "updates"),
                                       const([0], "i64", "axis"))}, [i], "scatter_elements_update")
    cases.add("scatter_elements_type_u4", m, {"indices": np.array([[1, 0, -1, 1]], np.int32)})

    # Refused when the model loads: float indices, and mean on booleans.
    d, i, u = param("data", "f32", (3, 2)), param("indices", "i32", (2, 2)), param("updates", "f32", (2, 2))
    x, w = serialize_text(model({"out": scatter_elements(d, i, u, const([0], "i64", "axis"))}, [d, i, u],
                                "bad_base"))
    x = set_attr(x, "indices", "element_type", "f32").replace('precision="I32"', 'precision="FP32"')
    cases.bad("scatter_elements_float_indices", x, w, "must hold integers")
    d, i, u = param("data", "boolean", (3,)), param("indices", "i32", (2,)), param("updates", "boolean", (2,))
    x, w = serialize_text(model({"out": scatter_elements(d, i, u, const([0], "i64", "axis"), 12, "sum")},
                                [d, i, u], "bad_base"))
    x = set_attr(x, "scatter_elements", "reduction", "mean")
    cases.bad("scatter_elements_mean_boolean", x, w, "mean reduction")


GENERATOR = Generator("scatter_elements", build, references={"ScatterElementsUpdate": evaluate_scatter_elements})
