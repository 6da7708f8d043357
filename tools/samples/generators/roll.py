"""Roll-7: the values of OpenVINO's op_reference tests (repeated axes,
negative axes, negative shifts and shifts past the dim, on every ordinary
type), a scalar shift over several axes, an empty dim, shifts and axes
given at run time, strings and packed types, and torch.roll converted by
OpenVINO's PyTorch front end."""

from __future__ import annotations

import numpy as np
import openvino as ov
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import _out, arange, code_const, const, model, param, stable_names, \
    string_const, strings
from ..registry import Generator


def ref_roll(data: np.ndarray, shift: np.ndarray, axes: np.ndarray, shift_type: str,
             axes_type: str) -> np.ndarray:
    if shift_type not in ("i32", "i64") or axes_type not in ("i32", "i64"):
        raise RefError("roll shift and axes must be i32 or i64")
    if shift.ndim > 1 or axes.ndim > 1:
        raise RefError("roll shift and axes must be scalars or 1-D")
    axes = [int(a) for a in np.atleast_1d(axes).tolist()]
    shifts = [int(s) for s in np.atleast_1d(shift).tolist()]
    if shift.ndim == 0:
        shifts = shifts * len(axes)
    if len(shifts) != len(axes):
        raise RefError("roll needs one shift per axis")
    for a in axes:
        if not -data.ndim <= a < data.ndim:
            raise RefError(f"roll axis {a} is outside rank {data.ndim}")
    # np.roll adds up the shifts of an axis named twice, as Roll does.
    return np.ascontiguousarray(np.roll(data, shifts, axes)) if axes else data.copy()


def evaluate_roll(call: Call) -> tuple[np.ndarray, list[str]]:
    return ref_roll(call.args[0], call.args[1], call.args[2], call.arg_types[1], call.arg_types[2]), []


OPSET7 = NodeFactory("opset7")


def roll(data, shift, axes, name: str = "roll"):
    node = OPSET7.create("Roll", [_out(data), _out(shift), _out(axes)], {})
    node.set_friendly_name(name)
    return node


# Measured with OpenVINO 2026.4.1 (tools/plugin_differences.py).
SCALAR_SHIFT = ("the CPU plugin refuses a scalar shift with several axes ('shift' and 'axes' dimensions "
                "mismatch), which the spec allows: each axis listed rolls by the one shift")

# op_reference/roll.cpp's floating-point data, [4, 3] and [4, 2, 3].
FLOATS_2D = [50.2907, 70.8054, -68.3403, 62.6444, 4.9748, -18.5551, 40.5383, -15.3859, -4.5881,
             -43.3479, 94.1676, -95.7097]
FLOATS_3D = [94.0773, 33.0599, 58.1724, -20.3640, 54.5372, -54.3023, 10.4662, 11.7532, -11.7692,
             56.4223, -95.3774, 8.8978, 1.9305, 13.8025, 12.0827, 81.4669, 19.5321, -8.9553,
             -75.3226, 20.8033, 20.7660, 62.7361, 14.9372, -33.0825]


def build(cases: Cases):
    # op_reference: repeated axes and negative axes, on every type, data 1..n.
    for tag, shape, shift, axes in (("repeated_axes", (4, 3), (1, 2, 1), (0, 1, 0)),
                                    ("negative_axes", (4, 2, 3), (2, -1, -7), (-1, -1, -2))):
        for et in ALL_TYPES:
            d = param("data", et, shape)
            m = model({"out": roll(d, const(shift, "i64", "shift"), const(axes, "i64", "axes"))}, [d], "roll")
            values = (np.arange(1, int(np.prod(shape)) + 1) % 2).astype(bool) if et == "boolean" else None
            data = values.reshape(shape) if values is not None else (arange(shape, et) + 1).astype(
                arange(shape, et).dtype)
            cases.add(f"roll_{tag}_{et}", m, {"data": data})

    # op_reference: the floating-point cases.
    for tag, values, shape, shift, axes in (("2d", FLOATS_2D, (4, 3), (1,), (0,)),
                                            ("2d_negative_shift", FLOATS_2D, (4, 3), (-1, 2), (0, 1)),
                                            ("3d", FLOATS_3D, (4, 2, 3), (2, 1, 3), (0, 1, 2)),
                                            ("3d_negative_shift", FLOATS_3D, (4, 2, 3), (-5, 1, 3), (0, 1, 1))):
        d = param("data", "f32", shape)
        m = model({"out": roll(d, const(shift, "i64", "shift"), const(axes, "i64", "axes"))}, [d], "roll")
        cases.add(f"roll_{tag}_f32", m, {"data": np.array(values, np.float32).reshape(shape)})

    # A scalar shift over several axes, i32 parameters, a shift far past the
    # dim, a rank-4 roll of every axis, and an empty dim.
    for tag, shape, shift, axes, et in (("scalar_shift", (3, 4, 5), 2, (0, 2), "i32"),
                                        ("past_the_dim", (3, 4), (-10,), (1,), "i64"),
                                        ("r4_every_axis", (2, 3, 4, 5), (1, -1, 3, 7), (0, 1, 2, 3), "i64"),
                                        ("empty_dim", (0, 4), (1,), (1,), "i64")):
        d = param("data", "f32", shape)
        m = model({"out": roll(d, const(shift, et, "shift"), const(axes, et, "axes"))}, [d], "roll")
        cases.add(f"roll_{tag}", m, {"data": arange(shape)},
                  no_check=SCALAR_SHIFT if tag == "scalar_shift" else None)

    # Shifts and axes given at run time.
    d, s, a = param("data", "i16", (3, 5)), param("shift", "i64", (2,)), param("axes", "i32", (2,))
    m = model({"out": roll(d, s, a)}, [d, s, a], "roll")
    cases.add("roll_runtime_shift_axes_i16", m,
              {"data": arange((3, 5), "i16"), "shift": np.array([4, -2], np.int64),
               "axes": np.array([0, -1], np.int32)})

    # Strings and packed types, as Consts.
    sc = string_const(strings((3, 4)), "strings")
    cases.add("roll_string_const",
              model({"out": roll(sc, const((1, -1), "i64", "shift"), const((0, 1), "i64", "axes"))}, [], "roll"),
              no_check="the CPU plugin's Roll does not take strings")
    for et, low, high in (("u4", 0, 16), ("u1", 0, 2), ("i4", -8, 8)):
        codes = (np.arange(21) * 5 % (high - low) + low).astype(NP_DTYPE[et]).reshape(3, 7)
        data = code_const(codes, et, "data")
        cases.add(f"roll_type_{et}",
                  model({"out": roll(data, const((3,), "i64", "shift"), const((1,), "i64", "axes"))}, [], "roll"),
                  no_check="the CPU plugin cannot return u1 outputs" if et == "u1" else None)

    # torch.roll, as OpenVINO's PyTorch front end converts it.
    import torch

    class Roll(torch.nn.Module):
        def forward(self, x):
            return torch.roll(x, shifts=(1, -2), dims=(0, 2))

    shape = (3, 4, 5)
    m = ov.convert_model(Roll(), example_input=torch.from_numpy(arange(shape)), input=[ov.PartialShape(list(shape))])
    p = m.get_parameters()[0]
    p.output(0).set_names({"x"})
    p.set_friendly_name("x")
    m.output(0).get_tensor().set_names({"out"})
    stable_names(m)
    cases.add("torch_roll", m, {"x": arange(shape)})


GENERATOR = Generator("roll", build, references={"Roll": evaluate_roll}, frameworks=("torch",))
