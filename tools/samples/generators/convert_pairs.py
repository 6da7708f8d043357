"""Every pair of element types that OpenVINO's reference Convert defines:
one case per source type, its values converted to each target it may
take. The reference is in convert.py."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import openvino as ov

import convert_reference as small  # the pairs OpenVINO defines

from ..cases import Cases
from ..elements import F8_TYPES, INT_TYPES, NP_DTYPE, PACKED_BITS
from ..graph import code_const, convert, model, param, random_codes
from ..registry import Generator

ALL_CONVERT_TYPES = ["boolean", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "bf16", "f32",
                     "f64", "u1", "u2", "u3", "u4", "u6", "i4", "nf4", "f4e2m1", "f8e4m3", "f8e5m2", "f8e8m0"]
PAIR_REALS = [0.0, -0.0, 0.5, -0.7, 1.0, 1.5, -1.5, 2.5, 3.9, -8.5, 15.9, 100.25, 300.0, -300.0, 448.0, 464.0,
              500.0, 57344.0, 61440.0, 65504.0, 70000.0, 3e9, -3e9, 1e10, 2.0 ** -10, 3 * 2.0 ** -11, 1e-7,
              np.inf, -np.inf, np.nan]
PAIR_INTS = [0, 1, -1, 2, 7, 8, -8, 15, 16, 63, 64, -100, 127, -128, 255, 256, 300, 448, 65504, 65535, 70000,
             -70000, 16777217, 2 ** 31 - 1, -2 ** 31, 2 ** 32 - 1, 2 ** 53 + 1, 2 ** 63 - 1, -2 ** 63, 2 ** 64 - 1]
# The CPU plugin holds these types in 32 bits (see the README).
CPU_EVERY_PAIR = ("the CPU plugin compiles no model with a u3 or u6 Convert or a u1 output; "
                  "tools/measure_cpu_convert.py and the other convert_* samples compare it")


def pair_source(et: str):
    """The values each source type gives: every code of the coded types,
    the booleans, the integers that fit, and the edge reals."""
    if et in PACKED_BITS or et in F8_TYPES:
        return random_codes(et, (16 if et == "i4" else 1 << PACKED_BITS.get(et, 8),))
    if et == "boolean":
        return np.array([False, True])
    if et in INT_TYPES:
        info = np.iinfo(NP_DTYPE[et])
        return np.array([v for v in PAIR_INTS if info.min <= v <= info.max], NP_DTYPE[et])
    with np.errstate(over="ignore"):
        reals = np.array(PAIR_REALS, np.float64)
        if et == "bf16":
            return reals.astype(np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)
        return reals.astype(NP_DTYPE[et])


def defined_targets(src: str) -> list[str]:
    return [dst for dst in ALL_CONVERT_TYPES if small.ov_convert(src, dst, bytes(64), 8) is not None]


def build(cases: Cases):
    for src in ALL_CONVERT_TYPES:
        values = pair_source(src)
        if src in ("bf16", "u1", "u3", "u6"):
            # ovir's .npy exchange has no bf16, and the CPU plugin takes no
            # u1, u3 or u6 inputs: these sources are Consts.
            if src == "bf16":
                t = ov.Tensor(ov.Type.bf16, ov.Shape([len(values)]))
                np.asarray(t.data).view(np.uint8).reshape(-1)[:] = \
                    values.astype(ml_dtypes.bfloat16).view(np.uint8)
                data, params, feeds = ov.op.Constant(t), [], {}
                data.set_friendly_name("data")
            else:
                data, params, feeds = code_const(values, src, "data"), [], {}
        else:
            data = param("data", src, values.shape)
            params, feeds = [data], {"data": values}
        outs = {}
        for dst in defined_targets(src):
            c = convert(data, dst, f"to_{dst}")
            outs[f"out_{dst}"] = convert(c, "f32", f"{dst}_to_f32") if dst == "bf16" else c
        cases.add(f"convert_every_pair_from_{src}", model(outs, params, "convert"), feeds,
                  no_check=CPU_EVERY_PAIR)


GENERATOR = Generator("convert_pairs", build, streams=("codes",))
