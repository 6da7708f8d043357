"""Transpose-1: the layout changes converters and PrePostProcessor write
(NHWC to NCHW and back), every axis order of a rank-3 tensor, higher
ranks, an empty order (the axes reversed), an order that keeps every axis,
an order given at run time, and every ordinary element type."""

from __future__ import annotations

import itertools

import numpy as np

from ..cases import Cases
from ..elements import ALL_TYPES, INT_TYPES
from ..evaluate import Call, RefError
from ..graph import FACTORY, _out, arange, const, model, param
from ..registry import Generator


def ref_transpose(data: np.ndarray, order: np.ndarray, order_type: str) -> np.ndarray:
    if order_type not in INT_TYPES:
        raise RefError("transpose order must be integer")
    if order.ndim != 1:
        raise RefError("transpose order must be 1-D")
    axes = [int(a) for a in order.tolist()] or list(range(data.ndim))[::-1]
    if sorted(axes) != list(range(data.ndim)):
        raise RefError(f"transpose order {axes} is no permutation of {data.ndim} axes")
    return np.ascontiguousarray(np.transpose(data, axes))


def evaluate_transpose(call: Call) -> tuple[np.ndarray, list[str]]:
    # The samples' 64-bit values are small, so the CPU plugin, which
    # narrows them to 32 bits, is checked on them too.
    return ref_transpose(call.args[0], call.args[1], call.arg_types[1]), []


def transpose(data, order, name: str = "transpose"):
    node = FACTORY.create("Transpose", [_out(data), _out(order)], {})
    node.set_friendly_name(name)
    return node


def build(cases: Cases):
    # NHWC to NCHW, as converters and PrePostProcessor's convert_layout
    # write it, and back.
    for tag, shape, order in (("nhwc_to_nchw", (1, 5, 7, 3), (0, 3, 1, 2)),
                              ("nchw_to_nhwc", (2, 3, 5, 7), (0, 2, 3, 1))):
        d = param("data", "f32", shape)
        m = model({"out": transpose(d, const(order, "i64", "order"))}, [d], "transpose")
        cases.add(f"transpose_{tag}_f32", m, {"data": arange(shape)})

    # Every order of three axes, one of them of size 1.
    shape = (2, 1, 4)
    for order in itertools.permutations(range(3)):
        d = param("data", "i32", shape)
        m = model({"out": transpose(d, const(order, "i32", "order"))}, [d], "transpose")
        cases.add(f"transpose_r3_{''.join(map(str, order))}_i32", m, {"data": arange(shape, "i32")})

    # Higher ranks, the empty order, and an order that keeps every axis.
    for tag, shape, order in (("r5", (2, 1, 3, 2, 2), (4, 2, 0, 3, 1)),
                              ("r6", (2, 2, 1, 3, 1, 2), (5, 0, 3, 1, 4, 2)),
                              ("empty_order", (2, 3, 4), ()),
                              ("identity", (3, 4), (0, 1))):
        d = param("data", "f32", shape)
        m = model({"out": transpose(d, const(order, "i64", "order"))}, [d], "transpose")
        cases.add(f"transpose_{tag}_f32", m, {"data": arange(shape)})

    # The order at run time.
    d, o = param("data", "f32", (2, 3, 4)), param("order", "i64", (3,))
    m = model({"out": transpose(d, o)}, [d, o], "transpose")
    cases.add("transpose_runtime_order_f32", m, {"data": arange((2, 3, 4)), "order": np.array([2, 0, 1], np.int64)})

    # Every ordinary element type, on a matrix.
    for et in ALL_TYPES:
        d = param("data", et, (3, 5))
        m = model({"out": transpose(d, const((1, 0), "i64", "order"))}, [d], "transpose")
        cases.add(f"transpose_matrix_{et}", m, {"data": arange((3, 5), et)})


GENERATOR = Generator("transpose", build, references={"Transpose": evaluate_transpose})
