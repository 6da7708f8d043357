"""Pad-1 and Pad-12: OpenVINO's op_reference cases (1-D and 2-D constant
pads, with and without a pad value) on every ordinary type, the edge,
reflect and symmetric modes, Pad-12's negative pads that crop, pads and
values given at run time, strings, packed types and empty axes; the Pad
node tests that ship with the `onnx` package, and an ONNX model that flips with a Slice of step -1, pads and transposes,
converted by OpenVINO's ONNX front end."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, INT_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import FACTORY, _out, arange, code_const, const, model, param, string_const, strings
from ..registry import Generator

OPSET12 = NodeFactory("opset12")

# Measured with OpenVINO 2026.4.1 (tools/plugin_differences.py).
PACKED = "the CPU plugin's Pad scrambles packed u4 and i4 elements (its output is not the padded codes)"


def ref_pad(data: np.ndarray, begins: np.ndarray, ends: np.ndarray, value, mode: str,
            pads_type: str) -> np.ndarray:
    if pads_type not in INT_TYPES:
        raise RefError("pads must be integers")
    b = [int(v) for v in begins.tolist()]
    e = [int(v) for v in ends.tolist()]
    if len(b) != data.ndim or len(e) != data.ndim:
        raise RefError("one pad per axis")
    out = data
    # Positive pads with np.pad, then negative ones crop.
    widths = [(max(x, 0), max(y, 0)) for x, y in zip(b, e)]
    for a, (x, y) in enumerate(zip(b, e)):
        n = data.shape[a]
        if mode == "reflect" and max(x, y) > n - 1 or mode == "symmetric" and max(x, y) > n:
            raise RefError(f"{mode} pads beyond axis {a}")
        if n + x + y < 0:
            raise RefError("a negative size")
    if mode == "constant":
        fill = value if value is not None else np.zeros((), data.dtype)
        if data.dtype.kind == "U":
            out = np.full([n + x + y for n, (x, y) in zip(data.shape, widths)], fill, dtype=object)
            out[tuple(slice(x, x + n) for n, (x, _) in zip(data.shape, widths))] = data
            out = out.astype(str)
        else:
            out = np.pad(data, widths, mode="constant", constant_values=fill)
    else:
        out = np.pad(data, widths, mode={"edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}[mode])
    crop = tuple(slice(-min(x, 0), out.shape[a] + min(y, 0)) for a, (x, y) in enumerate(zip(b, e)))
    return np.ascontiguousarray(out[crop])


def evaluate_pad(call: Call) -> tuple[np.ndarray, list[str]]:
    mode = call.node.get_attributes().get("pad_mode", "constant").lower()
    value = call.args[3] if len(call.args) > 3 else None
    return ref_pad(call.args[0], call.args[1], call.args[2], value, mode, call.arg_types[1]), []


def pad(data, begins, ends, mode: str, value=None, version: int = 1, name: str = "pad"):
    factory = FACTORY if version == 1 else OPSET12
    args = [_out(data), _out(begins), _out(ends)] + ([_out(value)] if value is not None else [])
    node = factory.create("Pad", args, {"pad_mode": mode})
    node.set_friendly_name(name)
    return node


def one_to_n(shape, et: str) -> np.ndarray:
    n = int(np.prod(shape))
    if et == "boolean":
        return (np.arange(1, n + 1) % 2).astype(bool).reshape(shape)
    return np.arange(1, n + 1).astype(NP_DTYPE[et]).reshape(shape)


# op_reference/pad.cpp's constant cases: (tag, shape, begins, ends).
REFERENCE = [
    ("1d_both", (6,), (4,), (5,)),
    ("1d_begin", (6,), (4,), (0,)),
    ("1d_end", (6,), (0,), (3,)),
    ("2d_both", (2, 2), (1, 2), (3, 4)),
    ("2d_begin", (2, 2), (1, 2), (0, 0)),
    ("2d_end", (2, 2), (0, 0), (1, 2)),
]


def onnx_flip_pad_transpose() -> bytes:
    import onnx
    from onnx import TensorProto, helper

    ints = lambda name, v: helper.make_tensor(name, TensorProto.INT64, [len(v)], v)  # noqa: E731
    nodes = [
        helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["flipped"], name="flip"),
        helper.make_node("Pad", ["flipped", "pads"], ["padded"], mode="reflect", name="pad"),
        helper.make_node("Transpose", ["padded"], ["y"], perm=[0, 2, 3, 1], name="to_nhwc"),
    ]
    graph = helper.make_graph(
        nodes, "flip_pad_transpose",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 7, 3])],
        [ints("starts", [-1]), ints("ends", [-(2 ** 63)]), ints("axes", [3]), ints("steps", [-1]),
         ints("pads", [0, 0, 1, 1, 0, 0, 1, 1])])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], producer_name="gen_samples")
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


def onnx_node_tests(cases: Cases):
    """The Pad node tests that ship with the onnx package in the modes
    OpenVINO has (not `wrap`); the front end cuts their pads input in two
    with a Split."""
    import warnings

    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tests = collect_testcases("Pad")
    for test in tests:
        if test.name not in ("test_constant_pad", "test_edge_pad", "test_reflect_pad"):
            continue
        (inputs, _outputs), = test.data_sets
        names = [i.name for i in test.model.graph.input]
        feeds = {n: np.asarray(v) for n, v in zip(names, inputs)}
        cases.add("onnx_node_" + test.name[len("test_"):], None, feeds, onnx=test.model.SerializeToString())


def build(cases: Cases):
    # op_reference: constant pads with a value of 2112 and with none, every
    # type (pad values that fit: 2112 does not fit 8 bits, so 112 there).
    for tag, shape, b, e in REFERENCE:
        for et in ALL_TYPES if tag == "2d_both" else ["f32", "i32"]:
            fill = 1 if et == "boolean" else 112 if et in ("i8", "u8") else 2112
            for valued in (True, False):
                d = param("data", et, shape)
                value = const(np.array(fill, NP_DTYPE[et]), et, "value") if valued else None
                m = model({"out": pad(d, const(b, "i64", "begins"), const(e, "i64", "ends"), "constant", value)},
                          [d], "pad")
                cases.add(f"pad_{tag}_{'value' if valued else 'zero'}_{et}", m, {"data": one_to_n(shape, et)})

    # Every mode, on a matrix and a rank-4 image, both versions.
    for mode in ("constant", "edge", "reflect", "symmetric"):
        for version in (1, 12):
            for tag, shape, b, e in (("2d", (3, 4), (2, 1), (1, 3)), ("nchw", (1, 2, 3, 5), (0, 0, 2, 2), (0, 0, 1, 2))):
                d = param("data", "f32", shape)
                m = model({"out": pad(d, const(b, "i64", "begins"), const(e, "i64", "ends"), mode,
                                      version=version)}, [d], "pad")
                cases.add(f"pad{version}_{mode}_{tag}", m, {"data": arange(shape)})

    # Pad-12's negative pads crop, beside positive ones, in every mode.
    for mode in ("constant", "edge", "reflect", "symmetric"):
        d = param("data", "i16", (4, 5))
        m = model({"out": pad(d, const((-1, 2), "i32", "begins"), const((2, -3), "i32", "ends"), mode,
                              version=12)}, [d], "pad")
        cases.add(f"pad12_{mode}_negative", m, {"data": arange((4, 5), "i16")})

    # Rows long enough to copy whole, and an empty axis.
    d = param("data", "f32", (3, 40))
    m = model({"out": pad(d, const((1, 16), "i64", "begins"), const((2, 8), "i64", "ends"), "edge")}, [d], "pad")
    cases.add("pad_edge_long_rows", m, {"data": arange((3, 40))})
    d = param("data", "f32", (0, 3))
    m = model({"out": pad(d, const((1, 1), "i64", "begins"), const((1, 0), "i64", "ends"), "constant")}, [d], "pad")
    cases.add("pad_constant_empty_axis", m, {"data": np.zeros((0, 3), np.float32)})

    # Pads and value given at run time.
    d, b, e, v = param("data", "i32", (2, 3)), param("begins", "i64", (2,)), param("ends", "i64", (2,)), \
        param("value", "i32", ())
    m = model({"out": pad(d, b, e, "constant", v, version=12)}, [d, b, e, v], "pad")
    cases.add("pad12_runtime_pads_value", m,
              {"data": arange((2, 3), "i32"), "begins": np.array([1, -1], np.int64),
               "ends": np.array([0, 2], np.int64), "value": np.array(-7, np.int32)})

    # Strings in constant mode, and packed types.
    sc = string_const(strings((2, 3)), "strings")
    cases.add("pad12_string_const",
              model({"out": pad(sc, const((1, 0), "i64", "begins"), const((0, 2), "i64", "ends"), "constant",
                                version=12)}, [], "pad"))
    for et, low, high in (("u4", 0, 16), ("i4", -8, 8)):
        codes = (np.arange(10) * 3 % (high - low) + low).astype(NP_DTYPE[et]).reshape(2, 5)
        data = code_const(codes, et, "data")
        cases.add(f"pad_type_{et}",
                  model({"out": pad(data, const((1, 2), "i64", "begins"), const((0, 1), "i64", "ends"), "reflect")},
                        [], "pad"),
                  no_check=PACKED)

    # ONNX: the node tests of the onnx package, and a flip, pad and
    # transpose as a converter writes them.
    onnx_node_tests(cases)
    cases.add("onnx_flip_pad_transpose", None, {"x": arange((1, 3, 4, 5))}, onnx=onnx_flip_pad_transpose())


GENERATOR = Generator("pad", build, references={"Pad": evaluate_pad}, frameworks=("onnx",))
