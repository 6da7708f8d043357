"""Dynamic and interval shapes, and graph structure: fan-out, chains of
ops with an intermediate output, several inputs and outputs, and the IR
version 10 header."""

from __future__ import annotations

import numpy as np

from ..cases import Cases
from ..graph import arange, const, convert, model, param, reverse, reverse_sequence, rng_values
from ..registry import Generator
from ..xmltext import to_ir_v10


def build(cases: Cases):
    d = param("data", "f32", "?,3,4")
    m = model({"out": reverse_sequence(d, const([3, 1], "i32", "lengths"), 0, 1)}, [d], "dyn")
    cases.add("dynamic_rseq_batch_dim", m, {"data": arange((2, 3, 4))})

    d = param("data", "f32", "1..5,4")
    m = model({"out": reverse_sequence(d, const([4, 2, 3], "i64", "lengths"), 0, 1)}, [d], "dyn")
    cases.add("interval_rseq_1_5x4", m, {"data": arange((3, 4))})

    d = param("data", "f32", "2,?")
    m = model({"out": reverse(d, const([1], "i64", "axes"), "index")}, [d], "dyn")
    cases.add("dynamic_reverse_2xq", m, {"data": arange((2, 7))})

    d = param("data", "i32", "1..5,?,2..")
    m = model({"out": reverse(d, const([True, False, True], "boolean", "axes"), "mask")}, [d], "dyn")
    cases.add("interval_reverse_mask", m, {"data": arange((3, 2, 4), "i32")})

    d = param("data", "f32", "?,?")
    ln = param("lengths", "i32", "?")
    m = model({"out": reverse_sequence(d, ln, 1, 0)}, [d, ln], "dyn")
    cases.add("dynamic_rseq_runtime_lengths", m,
              {"data": arange((5, 3)), "lengths": np.array([5, 2, 4], np.int32)})

    d = param("data", "f32", "...")
    m = model({"out": reverse(d, const([0], "i64", "axes"), "index")}, [d], "dyn")
    cases.add("dynamic_rank_reverse", m, {"data": arange((3, 2, 2))},
              no_check="CPU plugin does not support dynamic-rank Parameters")

    # fan-out: one Parameter, two Reverse ops, two Results
    d = param("data", "f32", (2, 4, 3))
    r0 = reverse(d, const([0], "i64", "axes0"), "index", "reverse0")
    r1 = reverse(d, const([True, False, True], "boolean", "axes1"), "mask", "reverse1")
    m = model({"out0": r0, "out1": r1}, [d], "fan_out")
    cases.add("fanout_two_reverse_two_results", m, {"data": arange((2, 4, 3))})

    # chain Reverse -> ReverseSequence -> Reverse, intermediate output too
    d = param("data", "i16", (3, 4))
    a = reverse(d, const([1], "i32", "axes_a"), "index", "reverse_a")
    b = reverse_sequence(a, const([2, 4, 3], "i32", "lengths"), 0, 1)
    c = reverse(b, const([0], "i64", "axes_c"), "index", "reverse_c")
    m = model({"out": c}, [d], "chain")
    cases.add("chain_reverse_rseq_reverse", m, {"data": arange((3, 4), "i16")})

    d = param("data", "f32", (3, 4))
    a = reverse(d, const([-1], "i64", "axes_a"), "index", "reverse_a")
    b = reverse_sequence(a, const([1, 4, 2], "i64", "lengths"), 0, 1)
    m = model({"mid": a, "out": b}, [d], "chain_two_outputs")
    cases.add("chain_with_intermediate_output", m, {"data": arange((3, 4))})

    d = param("data", "u8", (2, 5))
    c = convert(d, "f32")
    m = model({"out": reverse(c, const([1], "i64", "axes"), "index")}, [d], "convert_chain")
    cases.add("chain_convert_reverse", m,
              {"data": np.array([[0, 1, 2, 254, 255], [7, 8, 9, 10, 11]], np.uint8)})

    d = param("data", "f16", (3, 4))
    r = reverse_sequence(d, const([4, 0, 2], "i32", "lengths"), 0, 1)
    m = model({"out": convert(r, "f32")}, [d], "rseq_convert")
    cases.add("chain_rseq_convert", m, {"data": rng_values("f16", (3, 4))})

    # two Parameters feeding two independent outputs
    x = param("x", "i8", (4,))
    y = param("y", "f32", (2, 3))
    m = model({"rx": reverse(x, const([0], "i64", "axes_x"), "index", "reverse_x"),
               "ry": reverse_sequence(y, const([3, 2], "u8", "lengths_y"), 0, 1)}, [x, y], "two_inputs")
    cases.add("two_inputs_two_outputs", m, {"x": np.array([-128, -1, 5, 127], np.int8), "y": arange((2, 3))})

    # IR version 10 header
    d = param("data", "f32", (2, 4, 3))
    m = model({"out": reverse(d, const([0, 2], "i64", "axes"), "index")}, [d], "ir_v10")
    cases.add("ir_v10_reverse", m, {"data": arange((2, 4, 3))}, xml_edit=to_ir_v10)

    d = param("data", "i32", (4, 3))
    m = model({"out": reverse_sequence(d, const([3, 1, 2, 0], "i32", "lengths"), 0, 1)}, [d], "ir_v10")
    cases.add("ir_v10_rseq", m, {"data": arange((4, 3), "i32")}, xml_edit=to_ir_v10)


GENERATOR = Generator("structure", build, streams=("values",))
