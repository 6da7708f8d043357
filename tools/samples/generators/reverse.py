"""Reverse-1: index and mask modes on every rank and axis subset, every
ordinary element type, axes known at run time, and run-time axes out of
bounds. The packed types and strings are in packed_and_strings."""

from __future__ import annotations

import numpy as np

from ..cases import Cases
from ..elements import ALL_TYPES, INT_TYPES, PACKED_BITS, WIDE_TYPES
from ..evaluate import Call, RefError
from ..graph import arange, axes_tag, const, model, param, reverse, rng_values
from ..registry import Generator


def ref_reverse(data: np.ndarray, axes: np.ndarray, axes_type: str, mode: str) -> np.ndarray:
    rank = data.ndim
    mode = mode.lower()
    if axes.ndim != 1:
        raise RefError("reverse axes must be 1-D")
    if mode == "index":
        if axes_type not in INT_TYPES:
            raise RefError("reverse index-mode axes must be integer")
        chosen = set()
        for a in axes.tolist():
            if not -rank <= a < rank:
                raise RefError(f"reverse axis {a} out of bounds for rank {rank}")
            chosen.add(a % rank)
    elif mode == "mask":
        if axes_type != "boolean":
            raise RefError("reverse mask-mode axes must be boolean")
        if axes.shape[0] != rank:
            raise RefError("reverse mask length differs from the data rank")
        chosen = {i for i, m in enumerate(axes.tolist()) if m}
    else:
        raise RefError(f"reverse mode {mode!r} is invalid")
    if not chosen:
        return data.copy()
    return np.ascontiguousarray(np.flip(data, axis=tuple(sorted(chosen))))


def evaluate_reverse(call: Call) -> tuple[np.ndarray, list[str]]:
    data_type = call.arg_types[0]
    caveats = []
    if data_type in WIDE_TYPES:
        caveats.append(f"CPU truncates {data_type} Reverse data")
    if data_type in PACKED_BITS:
        caveats.append(f"CPU reverses {data_type} data byte by byte, not element by element")
    return ref_reverse(call.args[0], call.args[1], call.arg_types[1], call.attrs["mode"]), caveats


def build(cases: Cases):
    # index mode, every axis subset on the op_reference shapes
    subsets = {
        (8,): [(0,)],
        (4, 3): [(0,), (1,), (0, 1)],
        (2, 4, 3): [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)],
    }
    for shape, all_axes in subsets.items():
        rank = len(shape)
        for axes in all_axes:
            for axes_et in ("i64", "i32"):
                if axes_et == "i32" and rank != 3:
                    continue
                data_et = "f32" if axes_et == "i64" else "i32"
                d = param("data", data_et, shape)
                m = model({"out": reverse(d, const(axes, axes_et, "axes"), "index")}, [d],
                          f"reverse_r{rank}")
                cases.add(f"reverse_index_r{rank}_{data_et}_axes_{axes_et}_{axes_tag(axes)}", m,
                          {"data": arange(shape, data_et)})

    # higher ranks
    for shape, axes in (((2, 3, 2, 4), (1, 3)), ((2, 1, 3, 2, 3), (0, 2, 4)),
                        ((2, 2, 1, 3, 2, 2), (0, 3, 5))):
        d = param("data", "f32", shape)
        m = model({"out": reverse(d, const(axes, "i64", "axes"), "index")}, [d], "reverse")
        cases.add(f"reverse_index_r{len(shape)}_axes_{axes_tag(axes)}", m, {"data": arange(shape)})

    # mask mode
    for shape, mask in (((8,), [True]), ((4, 3), [False, True]), ((4, 3), [True, True]),
                        ((2, 4, 3), [True, False, True]), ((2, 4, 3), [False, True, False]),
                        ((2, 4, 3), [True, True, True]), ((2, 3, 2, 4), [False, True, True, False])):
        tag = "".join("t" if b else "f" for b in mask)
        d = param("data", "f32", shape)
        m = model({"out": reverse(d, const(mask, "boolean", "axes"), "mask")}, [d], "reverse_mask")
        cases.add(f"reverse_mask_r{len(shape)}_{tag}", m, {"data": arange(shape)})

    d = param("data", "f32", (2, 4, 3))
    m = model({"out": reverse(d, const([False] * 3, "boolean", "axes"), "mask")}, [d], "reverse_mask")
    cases.add("reverse_mask_all_false", m, {"data": arange((2, 4, 3))})

    # negative, duplicate and empty axes
    for axes, tag in (([-1], "neg_last"), ([-3, -2], "neg_two"), ([0, -3], "duplicate_0_m3"),
                      ([2, 2, -1], "duplicate_triple")):
        d = param("data", "f32", (2, 4, 3))
        m = model({"out": reverse(d, const(axes, "i64", "axes"), "index")}, [d], "reverse")
        cases.add(f"reverse_axes_{tag}", m, {"data": arange((2, 4, 3))})

    d = param("data", "f32", (2, 4, 3))
    m = model({"out": reverse(d, const([], "i64", "axes"), "index")}, [d], "reverse_empty")
    cases.add("reverse_axes_empty", m, {"data": arange((2, 4, 3))})

    # axes known at run time
    for shape, axes, pshape in (((2, 4, 3), [0, -1], "?"), ((4, 3), [1], "1"),
                                ((2, 4, 3), [], "?")):
        d = param("data", "f32", shape)
        a = param("axes", "i64", pshape)
        m = model({"out": reverse(d, a, "index")}, [d, a], "reverse_runtime_axes")
        tag = "empty" if not axes else axes_tag(axes)
        cases.add(f"reverse_runtime_axes_r{len(shape)}_{tag}", m,
                  {"data": arange(shape), "axes": np.array(axes, np.int64)},
                  no_check=None if axes else "CPU plugin fails on empty run-time axes (ptr is Null)")

    # every element type
    for et in ALL_TYPES:
        shape = (3, 5)
        d = param("data", et, shape)
        m = model({"out": reverse(d, const([0, 1], "i64", "axes"), "index")}, [d], "reverse_types")
        cases.add(f"reverse_type_{et}", m, {"data": rng_values(et, shape)})

    # every non-empty axis subset of ranks 4 to 6, one Reverse and Result each
    for shape in ((2, 3, 2, 3), (2, 3, 1, 2, 2), (2, 1, 3, 2, 2, 2)):
        rank = len(shape)
        d = param("data", "f32", shape)
        outs = {}
        for bits in range(1, 2 ** rank):
            axes = [a for a in range(rank) if bits >> a & 1]
            tag = axes_tag(axes)
            outs[f"axes_{tag}"] = reverse(d, const(axes, "i64", f"const_axes_{tag}"), "index",
                                          f"reverse_axes_{tag}")
        cases.add(f"reverse_all_axis_subsets_r{rank}", model(outs, [d], f"reverse_all_r{rank}"),
                  {"data": arange(shape)})

    # all 2^6 masks of rank 6, the all-false one included
    shape = (2, 1, 3, 2, 2, 2)
    d = param("data", "f32", shape)
    outs = {}
    for bits in range(2 ** len(shape)):
        mask = [bool(bits >> a & 1) for a in range(len(shape))]
        tag = "".join("1" if b else "0" for b in mask)
        outs[f"mask_{tag}"] = reverse(d, const(mask, "boolean", f"const_mask_{tag}"), "mask",
                                      f"reverse_mask_{tag}")
    cases.add("reverse_all_masks_r6", model(outs, [d], "reverse_all_masks_r6"), {"data": arange(shape)})

    # valid IR whose run-time axes are out of bounds
    for name, axes in (("reverse_runtime_axis_out_of_range", [0, 3]),
                       ("reverse_runtime_axis_negative_out_of_range", [-4])):
        d = param("data", "f32", (2, 4, 3))
        a = param("axes", "i64", "?")
        m = model({"out": reverse(d, a, "index")}, [d, a], "reverse_bad_axes")
        cases.add(name, m, {"data": arange((2, 4, 3)), "axes": np.array(axes, np.int64)},
                  expected_error="out of bounds")


GENERATOR = Generator("reverse", build, references={"Reverse": evaluate_reverse}, streams=("values",))
