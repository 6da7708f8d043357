"""Identity-16: the data passed on unchanged, on every ordinary type, strings
and packed types as Consts, dynamic and empty shapes, and an Identity whose
output is a model output and feeds another Identity."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, NP_DTYPE
from ..evaluate import Call
from ..graph import _out, code_const, const, model, param, string_const, strings
from ..registry import Generator

OPSET16 = NodeFactory("opset16")


def evaluate_identity(call: Call) -> tuple[np.ndarray, list[str]]:
    caveats = ["the CPU plugin passes i64 on as i32"] if call.arg_types[0] == "i64" else []
    return call.args[0].copy(), caveats


def identity(data, name: str = "identity"):
    node = OPSET16.create("Identity", [_out(data)], {})
    node.set_friendly_name(name)
    return node


def typed_values(et: str, shape, rng: np.random.Generator) -> np.ndarray:
    n = int(np.prod(shape))
    if et == "boolean":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if np.issubdtype(NP_DTYPE[et], np.integer):
        info = np.iinfo(NP_DTYPE[et])
        return rng.integers(info.min, info.max, n, dtype=NP_DTYPE[et], endpoint=True).reshape(shape)
    return (rng.standard_normal(n) * 100).astype(NP_DTYPE[et]).reshape(shape)


def build(cases: Cases):
    rng = np.random.default_rng(20261129)
    for et in ALL_TYPES:
        d = param("data", et, (2, 3, 4))
        cases.add(f"identity_{et}", model({"out": identity(d)}, [d], "identity"),
                  {"data": typed_values(et, (2, 3, 4), rng)})

    # A dynamic shape, an interval and an empty axis; a scalar.
    for tag, shape, value_shape in (("dynamic", "[?,3]", (5, 3)), ("interval", "[1..4,?]", (2, 7)),
                                    ("empty_axis", (3, 0), (3, 0)), ("scalar", (), ())):
        d = param("data", "f32", shape)
        cases.add(f"identity_{tag}", model({"out": identity(d)}, [d], "identity"),
                  {"data": typed_values("f32", value_shape, rng)})

    # An Identity whose output is a model output and goes on to another
    # Identity: both outputs hold the data.
    d = param("data", "i32", (4,))
    first = identity(d, "first")
    cases.add("identity_chain",
              model({"out": first, "again": identity(first, "second")}, [d], "identity"),
              {"data": typed_values("i32", (4,), rng)})

    # Strings, packed types and an Identity of a Const the model folds.
    cases.add("identity_string_const", model({"out": identity(string_const(strings((2, 3)), "strings"))}, [],
                                             "identity"),
              no_check="the CPU plugin's Identity does not take strings")
    for et in ("u1", "u4", "i4"):
        codes = (np.arange(11) * 3 % (2 if et == "u1" else 16) - (8 if et == "i4" else 0)).astype(NP_DTYPE[et])
        cases.add(f"identity_type_{et}", model({"out": identity(code_const(codes, et, "data"))}, [], "identity"),
                  no_check="the CPU plugin cannot return u1 outputs" if et == "u1" else None)
    cases.add("identity_folded_const", model({"out": identity(const([[1.5, -2], [0, 7]], "f32", "data"))}, [],
                                             "identity"))


GENERATOR = Generator("identity", build, references={"Identity": evaluate_identity})
