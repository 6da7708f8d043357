"""Convert-1 on the packed types and the small float formats: compressed
weight constants of every code, f32 and f16 edge values converted to the
small floats and packed integers, every f16 to both 8-bit floats, and
packed constants through Reverse or ReverseSequence into every ordinary
type. The reference is in convert.py."""

from __future__ import annotations

import numpy as np

import convert_reference as small  # the small float formats, from ml_dtypes

from ..cases import Cases
from ..elements import F8_TYPES, PACKED_BITS
from ..graph import code_const, const, convert, model, param, random_codes, reverse, reverse_sequence
from ..registry import Generator
from .convert import PACKED_INTS, convert_case

ORDINARY = ["boolean", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32", "f64"]
WEIGHT_TYPES = ["u4", "i4", "nf4", "u1", "u2", "u3", "u6", "f4e2m1", "f8e4m3", "f8e5m2", "f8e8m0"]
# Measured with OpenVINO 2026.4.1 (tools/measure_cpu_convert.py).
CPU_NO_U1_OUTPUT = "the CPU plugin cannot return a u1 output (output byte size 1 != 4)"
CPU_NO_SPLIT_OUTPUT = "the CPU plugin refuses a Convert to u3 or u6 (unsupported operation)"
CPU_E8M0_FLUSH = "the CPU plugin flushes the f8e8m0 constant 2^-127 (code 0) to 0"
CPU_QUIETS_NAN = ("the CPU plugin quiets signalling f16 NaNs on their way to f8e5m2 (0x7C01 gives 0x7E), "
                  "where OpenVINO's reference and ovir keep their high byte (0x7C, an infinity)")
F16_SLIP = ("OpenVINO (reference and CPU plugin) doubles f32 values just below 2^-17, 2^-16 and 2^-15 "
            "on their way through f16; ovir rounds them correctly")
# f32 values OpenVINO's f16 step doubles (tools/convert_reference.py lists them).
SLIP_BITS = {0x36FFF800, 0xB77FF000, 0x37FFFFFF}


def build(cases: Cases):
    # Compressed weights: a Const of every code, as OpenVINO's serializer
    # writes it, followed by Convert to f32 and f16 (and i32, or bf16 and
    # back where OpenVINO defines no integer conversion).
    for et in WEIGHT_TYPES:
        shape = (16, 16) if et in F8_TYPES else (4, 8)
        c = code_const(random_codes(et, shape), et, "weights")
        outs = {"out_f32": convert(c, "f32", "to_f32"), "out_f16": convert(c, "f16", "to_f16")}
        if et in ("nf4", "f4e2m1", "f8e8m0"):
            outs["out_bf16"] = convert(convert(c, "bf16", "to_bf16"), "f32", "bf16_to_f32")
        else:
            outs["out_i32"] = convert(c, "i32", "to_i32")
        cases.add(f"convert_const_{et}", model(outs, [], "compressed"),
                  no_check=CPU_E8M0_FLUSH if et == "f8e8m0" else None)

    # f32 and f16 Parameters converted to the small floats and the packed
    # integers: edge values (ties, overflow, subnormals, NaN, infinities).
    edges = small.edges()
    slip = np.isin(edges.view(np.uint32), list(SLIP_BITS))
    for et in ("f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1"):
        convert_case(cases, f"convert_f32_to_{et}", "f32", et, edges[~slip] if et == "f8e5m2" else edges)
    p = param("data", "f32", (int(slip.sum()),))
    cases.add("convert_f32_to_f8e5m2_f16_subnormals", model({"out": convert(p, "f8e5m2")}, [p], "convert"),
              {"data": edges[slip]}, no_check=F16_SLIP)
    convert_case(cases, "convert_f16_to_nf4", "f16", "nf4", small.nf4_inputs())
    reals = np.array([0.0, -0.0, 0.7, -0.7, 1.5, -1.5, 2.5, 3.9, -3.9, 5.0, 6.99, 7.5, -8.5, 15.9, 0.2, 1.0],
                     np.float32)
    for et, (lo, hi) in PACKED_INTS.items():
        values = reals[(np.trunc(reals) >= lo) & (np.trunc(reals) <= hi)]
        reason = {"u1": CPU_NO_U1_OUTPUT, "u3": CPU_NO_SPLIT_OUTPUT, "u6": CPU_NO_SPLIT_OUTPUT}.get(et)
        p = param("data", "f32", values.shape)
        cases.add(f"convert_f32_to_{et}", model({"out": convert(p, et)}, [p], "convert"), {"data": values},
                  no_check=reason)
    # Every f16 to both 8-bit floats.
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16).reshape(256, 256)
    for et in ("f8e4m3", "f8e5m2"):
        p = param("data", "f16", every.shape)
        cases.add(f"convert_f16_every_value_to_{et}", model({"out": convert(p, et)}, [p], "convert"),
                  {"data": every}, no_check=CPU_QUIETS_NAN if et == "f8e5m2" else None)

    # Packed and 8-bit float Consts through Reverse or ReverseSequence, then
    # Convert to every ordinary type. Codes whose values every target holds
    # exactly keep OpenVINO's results defined.
    finite_e4m3 = np.array([0x00, 0x80, 0x01, 0x08, 0x30, 0x38, 0x3C, 0x40, 0x44, 0x48, 0x4C, 0x50], np.uint8)
    chains = [("u4", random_codes("u4", (3, 4)), "rseq"),
              ("f8e4m3", finite_e4m3.reshape(3, 4), "reverse"),
              ("i4", np.array([[0, 1, 7, 3], [2, 5, 6, 4], [1, 1, 0, 7]], np.int8), "reverse")]
    for et, codes, op in chains:
        c = code_const(codes, et, "weights")
        if op == "reverse":
            moved = reverse(c, const([1], "i64", "axes"), "index")
        else:
            moved = reverse_sequence(c, const([4, 2, 0], "i32", "lengths"), 0, 1)
        outs = {f"out_{to}": convert(moved, to, f"to_{to}") for to in ORDINARY}
        cases.add(f"chain_{et}_const_{op}_to_every_type", model(outs, [], "chain"),
                  no_check=f"CPU reverses {et} data byte by byte, not element by element"
                  if et in PACKED_BITS else None)


GENERATOR = Generator("convert_packed", build, streams=("codes",))
