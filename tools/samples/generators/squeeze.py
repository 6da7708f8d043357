"""Squeeze-15: allow_axis_skip on and off over listed axes that are 1, that
are not (they stay), negative, repeated or none at all, dynamic shapes whose
listed axis may be 1, axes given at run time, every ordinary type, and
strings. Squeeze-15 runs as Squeeze-1; the flag changes only what is
inferred before the sizes are known."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES
from ..graph import _out, arange, const, model, param, string_const, strings
from ..registry import Generator

OPSET15 = NodeFactory("opset15")


def squeeze15(data, axes=None, allow_axis_skip: bool = False, name: str = "squeeze"):
    inputs = [_out(data)] + ([_out(axes)] if axes is not None else [])
    node = OPSET15.create("Squeeze", inputs, {"allow_axis_skip": allow_axis_skip})
    node.set_friendly_name(name)
    return node


# Measured with OpenVINO 2026.4.1.
DYNAMIC_RANK = "the CPU plugin refuses a Squeeze whose output rank is unknown, as allow_axis_skip makes it"
KEPT_AXIS = ("the CPU plugin fails when a listed axis inferred as squeezed turns out not to be 1, which the "
             "spec and the reference keep")


def build(cases: Cases):
    for skip in (False, True):
        tag = "skip" if skip else "noskip"
        for name, shape, axes in (("two_axes", (1, 2, 1, 3, 1, 1), (2, 4)),
                                  ("negative_axes", (1, 2, 1, 3), (-4, -2)),
                                  ("repeated_axis", (1, 2, 1), (0, -3)),
                                  ("axis_not_one_stays", (1, 2, 3), (1,)),
                                  ("empty_axes", (1, 2, 1), ())):
            d = param("data", "f32", shape)
            m = model({"out": squeeze15(d, const(axes, "i64", "axes"), skip)}, [d], "squeeze")
            cases.add(f"squeeze15_{name}_{tag}", m, {"data": arange(shape)})

        # A listed axis whose size is not known: squeezed when it is 1, kept
        # when it is not (allow_axis_skip only leaves the rank unknown).
        for size in (1, 3):
            d = param("data", "f32", "[2,?,4]")
            m = model({"out": squeeze15(d, const((1,), "i32", "axes"), skip)}, [d], "squeeze")
            cases.add(f"squeeze15_dynamic_axis_{size}_{tag}", m, {"data": arange((2, size, 4))},
                      no_check=DYNAMIC_RANK if skip else KEPT_AXIS if size != 1 else None)

        # Axes given at run time.
        d, a = param("data", "i16", (1, 3, 1)), param("axes", "i64", (1,))
        m = model({"out": squeeze15(d, a, skip)}, [d, a], "squeeze")
        cases.add(f"squeeze15_runtime_axes_{tag}", m,
                  {"data": arange((1, 3, 1), "i16"), "axes": np.array([-1], np.int64)},
                  no_check=DYNAMIC_RANK if skip else None)

    # No axes input: every axis of size 1 goes.
    d = param("data", "u8", (1, 4, 1, 2))
    cases.add("squeeze15_no_axes", model({"out": squeeze15(d)}, [d], "squeeze"), {"data": arange((1, 4, 1, 2), "u8")})

    for et in ALL_TYPES:
        d = param("data", et, (3, 1, 2))
        m = model({"out": squeeze15(d, const((1,), "i64", "axes"), True)}, [d], "squeeze")
        data = (np.arange(6) % 2).astype(bool).reshape(3, 1, 2) if et == "boolean" else arange((3, 1, 2), et)
        cases.add(f"squeeze15_type_{et}", m, {"data": data})

    cases.add("squeeze15_string_const",
              model({"out": squeeze15(string_const(strings((1, 3)), "strings"), const((0,), "i64", "axes"))}, [],
                    "squeeze"),
              no_check="the CPU plugin does not take string tensors")


GENERATOR = Generator("squeeze", build)
