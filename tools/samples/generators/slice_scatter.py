"""SliceScatter-15: the spec's examples and OpenVINO's op_reference cases
(1-D and 2-D, with and without axes), every ordinary type, strings and
packed types, negative steps, clamped and negative bounds, axes counted
from the end, bounds as Consts and given at run time, dynamic and empty
shapes, and the errors: updates of another shape and a step of 0 given at
run time."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import _out, arange, code_const, const, model, param, string_const, strings
from ..registry import Generator

OPSET15 = NodeFactory("opset15")


def region(data: np.ndarray, start, stop, step, axes) -> tuple:
    """The index of the slice Slice-8 takes (Python slicing)."""
    start, stop, step = (np.asarray(v).reshape(-1).tolist() for v in (start, stop, step))
    axes = list(range(len(start))) if axes is None else np.asarray(axes).reshape(-1).tolist()
    if not len(start) == len(stop) == len(step) == len(axes) or len(start) > data.ndim:
        raise RefError("SliceScatter start, stop, step and axes differ in length")
    if 0 in step:
        raise RefError("SliceScatter step is 0")
    if data.ndim == 0:
        raise RefError("SliceScatter data is a scalar")
    index = [slice(None)] * data.ndim
    for b, e, s, a in zip(start, stop, step, axes):
        a = a + data.ndim if a < 0 else a
        if not 0 <= a < data.ndim or index[a] != slice(None):
            raise RefError(f"SliceScatter axis {a} out of range or repeated")
        index[a] = slice(int(b), int(e), int(s))
    return tuple(index)


def ref_slice_scatter(data, updates, start, stop, step, axes=None) -> np.ndarray:
    """The spec's NumPy snippet: out[slices] = updates, the updates of the
    slice's shape."""
    index = region(data, start, stop, step, axes)
    if data[index].shape != updates.shape:
        raise RefError(f"SliceScatter updates {updates.shape} do not fit the slice {data[index].shape}")
    out = data.copy()
    out[index] = updates
    return out


def evaluate_slice_scatter(call: Call) -> tuple[np.ndarray, list[str]]:
    axes = call.args[5] if len(call.args) > 5 else None
    return ref_slice_scatter(*call.args[:5], axes), []


def slice_scatter(data, updates, start, stop, step, axes=None, name: str = "slice_scatter"):
    args = [data, updates, start, stop, step] + ([axes] if axes is not None else [])
    node = OPSET15.create("SliceScatter", [_out(a) for a in args], {})
    node.set_friendly_name(name)
    return node


def ints(values, name: str, et: str = "i64"):
    return const(np.array(values, dtype=np.int64).reshape(-1), et, name)


# Measured with OpenVINO 2026.4.1.
RUNTIME = ("the CPU plugin dies of a division by zero (SIGFPE) on every SliceScatter whose start, stop and step are "
           "given at run time")
STRINGS = "the CPU plugin aborts the process on a SliceScatter of strings"


# OpenVINO's op_reference/slice_scatter.cpp (its 1-D and 2-D cases, their
# names shortened: 1D_full_replace_empty_slice_params is 1d_no_bounds) and
# the spec's examples: (tag, data shape, updates, start, stop, step, axes,
# expected), data 0.. in the 2-D cases and 1..4 in the 1-D ones.
UPSTREAM = [
    ("1d_full", (4,), [10, 20, 30, 40], [0], [5], [1], None, [10, 20, 30, 40]),
    ("1d_half", (4,), [10, 20], [0], [2], [1], None, [10, 20, 3, 4]),
    ("1d_step2", (4,), [10, 20], [1], [5], [2], [0], [1, 10, 3, 20]),
    ("1d_no_bounds", (4,), [10, 20, 30, 40], [], [], [], None, [10, 20, 30, 40]),
    ("2d_full_all", (4, 4), list(range(16, 31)) + [32], [0, 0], [4, 5], [1, 1], None,
     list(range(16, 31)) + [32]),
    ("2d_full_axis0", (4, 4), list(range(16, 31)) + [32], [0], [5], [1], None, list(range(16, 31)) + [32]),
    ("2d_full_axis1", (4, 4), list(range(16, 31)) + [32], [0], [5], [1], [1], list(range(16, 31)) + [32]),
    ("2d_part_all", (4, 4), [16, 17, 18, 19], [2, 0], [4, 2], [1, 1], None,
     [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 10, 11, 18, 19, 14, 15]),
    ("2d_part_axis0", (4, 4), list(range(16, 24)), [1], [4], [2], [0],
     [0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 20, 21, 22, 23]),
    ("2d_part_axis1", (4, 4), list(range(16, 24)), [0], [4], [2], [1],
     [16, 1, 17, 3, 18, 5, 19, 7, 20, 9, 21, 11, 22, 13, 23, 15]),
    ("spec_1", (2, 5), [10, 20, 30, 40, 50], [0], [1], [1], [0], [10, 20, 30, 40, 50, 5, 6, 7, 8, 9]),
    ("spec_2", (2, 5), [10, 20, 30, 40, 50, 60], [-25], [25], [2], [1], [10, 1, 20, 3, 30, 40, 6, 50, 8, 60]),
    ("spec_3", (3, 5), [50, 60, 70, 80], [0, 1], [3, 5], [2, 2], None,
     [0, 50, 2, 60, 4, 5, 6, 7, 8, 9, 10, 70, 12, 80, 14]),
]


def upstream_case(cases: Cases, tag, dshape, upd, start, stop, step, axes, want, et: str, ind: str,
                  runtime: bool):
    data = (np.arange(1, 5) if tag.startswith("1d") else np.arange(int(np.prod(dshape)))).reshape(dshape)
    data = data.astype(NP_DTYPE[et])
    upd_shape = data[region(data, start, stop, step, axes)].shape
    updates = np.array(upd).astype(NP_DTYPE[et]).reshape(upd_shape)
    got = ref_slice_scatter(data, updates, start, stop, step, axes)
    assert got.reshape(-1).tolist() == want, tag
    d, u = param("data", et, dshape), param("updates", et, upd_shape)
    feeds = {"data": data, "updates": updates}
    if runtime:
        # Bounds given at run time, as upstream gives them.
        ps = [param(n, ind, (len(start),)) for n in ("start", "stop", "step")]
        ps += [param("axes", ind, (len(axes),))] if axes is not None else []
        m = model({"out": slice_scatter(d, u, *ps)}, [d, u, *ps], "slice_scatter")
        for n, v in zip(("start", "stop", "step", "axes"), (start, stop, step, axes)):
            if v is not None:
                feeds[n] = np.array(v, dtype=NP_DTYPE[ind]).reshape(-1)
    else:
        bounds = [ints(v, n, ind) for n, v in zip(("start", "stop", "step", "axes"), (start, stop, step, axes))
                  if v is not None]
        m = model({"out": slice_scatter(d, u, *bounds)}, [d, u], "slice_scatter")
    where = "runtime" if runtime else "const"
    cases.add(f"slice_scatter_upstream_{tag}_{et}_{ind}_{where}", m, feeds, no_check=RUNTIME if runtime else None)


def build(cases: Cases):
    for case in UPSTREAM:
        # Bounds at run time, as upstream gives them, and as Consts (which
        # the CPU plugin runs).
        for et, ind, runtime in (("f32", "i64", True), ("i32", "i32", True), ("f32", "i32", False)):
            upstream_case(cases, *case, et, ind, runtime)

    rng = np.random.default_rng(20261131)
    dshape = (3, 4, 5)

    def const_case(name, et, start, stop, step, axes=None, shape=dshape, data=None, **kw):
        data = data if data is not None else arange(shape, et)
        index = region(data, start, stop, step, axes)
        upd_shape = data[index].shape
        updates = (rng.integers(50, 100, upd_shape) % (2 if et == "boolean" else 100)).astype(NP_DTYPE[et])
        d, u = param("data", et, shape), param("updates", et, upd_shape)
        bounds = [ints(start, "start"), ints(stop, "stop"), ints(step, "step")]
        if axes is not None:
            bounds.append(ints(axes, "axes"))
        m = model({"out": slice_scatter(d, u, *bounds)}, [d, u], "slice_scatter")
        cases.add(name, m, {"data": data, "updates": updates}, **kw)

    # Every ordinary type: every other element of the last two axes, back
    # to front on one.
    for et in ALL_TYPES:
        data = (np.arange(60) % 3 == 0).reshape(dshape) if et == "boolean" else None
        const_case(f"slice_scatter_type_{et}", et, [-1, 0], [-100, 5], [-2, 2], [1, 2], data=data)
    # Negative steps, clamped bounds, axes from the end, one axis whole.
    const_case("slice_scatter_negative_steps", "f32", [2, 3, 4], [-10, -10, 0], [-1, -2, -3])
    const_case("slice_scatter_clamped", "f32", [-100, 1], [100, 100], [1, 3], [-1, -3])
    const_case("slice_scatter_middle_axis", "i16", [1], [3], [1], [-2])
    const_case("slice_scatter_empty_slice", "f32", [3], [1], [1], [2])
    const_case("slice_scatter_empty_data", "f32", [0], [2], [1], [1], shape=(3, 0, 2), data=np.zeros((3, 0, 2), np.float32))

    # Bounds at run time on dynamic shapes.
    d, u = param("data", "f32", "[?,?]"), param("updates", "f32", "[?,?]")
    ps = [param(n, "i32", (1,)) for n in ("start", "stop", "step", "axes")]
    m = model({"out": slice_scatter(d, u, *ps)}, [d, u, *ps], "slice_scatter")
    cases.add("slice_scatter_dynamic", m, no_check=RUNTIME, inputs=
              {"data": arange((4, 7)), "updates": np.arange(8, dtype=np.float32).reshape(4, 2) + 100,
               "start": np.array([5], np.int32), "stop": np.array([1], np.int32),
               "step": np.array([-3], np.int32), "axes": np.array([-1], np.int32)})

    d, u = param("data", "f32", "[?,?]"), param("updates", "f32", "[?,?]")
    bounds = [ints([5], "start"), ints([1], "stop"), ints([-3], "step"), ints([-1], "axes")]
    m = model({"out": slice_scatter(d, u, *bounds)}, [d, u], "slice_scatter")
    cases.add("slice_scatter_dynamic_const_bounds", m,
              {"data": arange((4, 7)), "updates": np.arange(8, dtype=np.float32).reshape(4, 2) + 100})

    # Strings and packed types, their data as Consts.
    u = param("updates", "string", (2, 2))
    m = model({"out": slice_scatter(string_const(strings((2, 5)), "data"), u, ints([4], "start"), ints([0], "stop"),
                                    ints([-3], "step"), ints([1], "axes"))}, [u], "slice_scatter")
    cases.add("slice_scatter_string_const", m, {"updates": np.array([["one", ""], ["three", "four"]])}, no_check=STRINGS)
    for et, high in (("u4", 16), ("i4", 8), ("u1", 2)):
        codes = (np.arange(10) * 3 % high - (8 if et == "i4" else 0)).astype(NP_DTYPE[et]).reshape(2, 5)
        new = (np.arange(4) * 5 % high - (8 if et == "i4" else 0)).astype(NP_DTYPE[et]).reshape(2, 2)
        m = model({"out": slice_scatter(code_const(codes, et, "data"), code_const(new, et, "updates"),
                                        ints([1], "start"), ints([5], "stop"), ints([2], "step"),
                                        ints([1], "axes"))}, [], f"slice_scatter_{et}")
        cases.add(f"slice_scatter_type_{et}", m, {},
                  no_check="the CPU plugin cannot return u1 outputs" if et == "u1" else None)

    # Errors when the model runs: updates that do not fit the slice, and a
    # step of 0.
    d, u = param("data", "f32", (2, 5)), param("updates", "f32", (2, 2))
    ps = [param(n, "i64", (1,)) for n in ("start", "stop", "step", "axes")]
    m = model({"out": slice_scatter(d, u, *ps)}, [d, u, *ps], "slice_scatter")
    bounds = {"start": np.array([0]), "stop": np.array([5]), "axes": np.array([1])}
    cases.add("slice_scatter_updates_wrong_shape", m,
              {"data": arange((2, 5)), "updates": arange((2, 2)), "step": np.array([2]), **bounds},
              expected_error="the slice they replace has shape", no_check=RUNTIME)
    d, u = param("data", "f32", (2, 5)), param("updates", "f32", "[?,?]")
    ps = [param(n, "i64", (1,)) for n in ("start", "stop", "step", "axes")]
    m = model({"out": slice_scatter(d, u, *ps)}, [d, u, *ps], "slice_scatter")
    cases.add("slice_scatter_step_zero", m,
              {"data": arange((2, 5)), "updates": arange((2, 2)), "step": np.array([0]), **bounds},
              expected_error="step 0 of SliceScatter is 0", no_check=RUNTIME)


GENERATOR = Generator("slice_scatter", build, references={"SliceScatter": evaluate_slice_scatter})
