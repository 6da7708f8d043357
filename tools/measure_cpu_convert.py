#!/usr/bin/env python3
"""What OpenVINO's CPU plugin does with Convert on the packed types and the
small float formats, next to its reference `Convert::evaluate`.

    python3 tools/measure_cpu_convert.py

Each line names a conversion, the values given, and what the CPU plugin and
the reference return (or the first line of the error). The README's section
on where ovir differs from the CPU plugin quotes these results. Needs the
`numpy` and `openvino` pip packages.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops

sys.path.insert(0, str(Path(__file__).resolve().parent))
from samples.elements import pack_codes, unpack_codes  # noqa: E402  (OpenVINO's bit layouts)

T = ov.Type
CORE = ov.Core()
PACKED = {"u1", "u2", "u3", "u4", "u6", "i4", "nf4", "f4e2m1"}


def tensor(et: str, values) -> ov.Tensor:
    """A tensor of `et` from values (codes for the packed and f8 types)."""
    t = ov.Tensor(getattr(T, et), ov.Shape([len(values)]))
    raw = np.asarray(t.data).view(np.uint8).reshape(-1)
    if isinstance(values, np.ndarray):
        data = values.view(np.uint8)  # bits as they are, NaN payloads included
    elif et in PACKED:
        data = np.frombuffer(pack_codes(np.array(values), et), np.uint8)
    elif et.startswith("f8"):
        data = np.array(values, np.uint8)
    else:
        data = np.asarray(values, {"f32": np.float32, "f16": np.float16, "i32": np.int32}[et]).view(np.uint8)
    raw[:] = data
    return t


def values_of(t: ov.Tensor, n: int) -> list:
    et = t.get_element_type().get_type_name()
    raw = np.asarray(t.data).view(np.uint8).tobytes()
    if et in PACKED:
        return unpack_codes(raw, et, n).tolist()
    if et.startswith("f8"):
        return [f"{b:#04x}" for b in raw[:n]]
    if et in ("bf16", "f16"):
        return [f"{b:#06x}" for b in np.frombuffer(raw, np.uint16)[:n]]
    return np.asarray(t.data).reshape(-1)[:n].tolist()


def first_line(e: Exception) -> str:
    lines = [l.strip() for l in str(e).splitlines() if l.strip() and not l.startswith(("Exception", "Check"))]
    return (lines[0] if lines else str(e))[:110]


def cpu(src: str, dst: str, values, const: bool) -> str:
    n = len(values)
    try:
        if const:
            m = ov.Model([ops.result(ops.convert(ops.constant(tensor(src, values)), getattr(T, dst)))], [])
            request = CORE.compile_model(m, "CPU").create_infer_request()
            request.infer()
        else:
            p = ops.parameter([n], getattr(T, src))
            m = ov.Model([ops.result(ops.convert(p, getattr(T, dst)))], [p])
            request = CORE.compile_model(m, "CPU").create_infer_request()
            request.infer([tensor(src, values)])
        return str(values_of(request.get_output_tensor(0), n))
    except Exception as e:  # noqa: BLE001 (any failure is a measurement)
        return "error: " + first_line(e)


def reference(src: str, dst: str, values) -> str:
    n = len(values)
    node = ops.convert(ops.parameter([n], getattr(T, src)), getattr(T, dst))
    out = ov.Tensor(getattr(T, dst), ov.Shape([n]))
    if not node.evaluate([out], [tensor(src, values)]):
        return "refused"
    return str(values_of(out, n))


MEASUREMENTS = [
    # (what, src, dst, values, const)
    ("compressed weights decode as the reference", "u4", "f32", [0, 1, 7, 8, 15], True),
    ("", "i4", "f16", [0, 1, 7, 8, 15], True),
    ("", "nf4", "f32", [0, 1, 7, 8, 15], True),
    ("", "f4e2m1", "f16", [0, 1, 7, 8, 15], True),
    ("", "u3", "i32", [0, 3, 5, 7], True),
    ("", "f8e4m3", "f32", [0x01, 0x7E, 0x7F, 0xFE], True),
    ("", "f8e5m2", "f16", [0x01, 0x7B, 0x7C, 0x7D], True),
    ("f8e5m2 signalling NaNs to f16 (bits)", "f8e5m2", "f16", [0x7D, 0x7E, 0xFD], True),
    ("NaN and infinity to i32", "f8e4m3", "i32", [0x7E, 0xFE, 0x7F], True),
    ("", "f8e5m2", "i32", [0x7B, 0x7C, 0xFC, 0x7E], True),
    ("nf4 to bf16 (bits)", "nf4", "bf16", [8, 9, 13, 14], True),
    ("f8e8m0 code 0 (2^-127) as a constant", "f8e8m0", "f32", [0x00, 0x01, 0x7F, 0xFF], True),
    ("f8e8m0 code 0 (2^-127) as an input", "f8e8m0", "f32", [0x00, 0x01, 0x7F, 0xFF], False),
    ("reals out of range wrap into packed integers", "f32", "u4", [300.0, -1.5, 16.0, float("nan")], False),
    ("", "f32", "i4", [9.0, -9.0, 2.5, float("inf")], False),
    ("", "f32", "u2", [5.0, -1.0, 3.0, 1e10], False),
    ("u1 outputs", "f32", "u1", [0.0, 1.0, 2.0, 1.0], False),
    ("u3 outputs", "f32", "u3", [0.0, 1.0, 7.0, 3.0], False),
    ("u6 outputs", "f32", "u6", [0.0, 1.0, 63.0, 3.0], False),
    ("u1 inputs", "u1", "f32", [0, 1, 1, 0], False),
    ("f32 to nf4 (refused by the reference)", "f32", "nf4", [-1.0, -0.5, 0.04, 0.9], False),
    ("f16 NaNs with a low payload to f8e5m2", "f16", "f8e5m2", [], False),
    ("f32 just below 2^-17, 2^-16, 2^-15 to f8e5m2", "f32", "f8e5m2", [], False),
    ("f32 to f8e4m3: overflow and inf give NaN", "f32", "f8e4m3", [448.0, 464.0, 465.0, float("inf")], False),
    ("f32 to f8e8m0", "f32", "f8e8m0", [0.0, -1.0, 1.5, 3.0, float("inf"), float("nan")], False),
    ("f32 to f4e2m1", "f32", "f4e2m1", [0.25, 2.5, 7.0, float("nan"), -0.1], False),
    ("f32 subnormals to bf16 (bits; AVX512_BF16 CPUs flush them)", "f32", "bf16", [], False),
]

SPECIAL_INPUTS = {
    "f16 NaNs with a low payload to f8e5m2": np.array([0x7C01, 0x7CFF, 0x7D00, 0xFC01], np.uint16).view(np.float16),
    "f32 just below 2^-17, 2^-16, 2^-15 to f8e5m2":
        np.array([0x36FFF800, 0x377FF000, 0x37FFFFFF], np.uint32).view(np.float32),
    # 1e-40 and its negative, the largest subnormal, and a normal value.
    "f32 subnormals to bf16 (bits; AVX512_BF16 CPUs flush them)":
        np.array([0x000116C2, 0x800116C2, 0x007FFFFF, 0x3F800000], np.uint32).view(np.float32),
}


def main() -> int:
    print(f"OpenVINO {ov.__version__}")
    for what, src, dst, values, const in MEASUREMENTS:
        if what in SPECIAL_INPUTS:
            values = SPECIAL_INPUTS[what]
        where = "Const" if const else "Parameter"
        bits = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32}
        shown = ([hex(b) for b in values.view(bits[values.dtype]).tolist()] if isinstance(values, np.ndarray)
                 else values)
        print(f"{what or '  ...'}: {where} {src} {shown} -> {dst}")
        print(f"    CPU:       {cpu(src, dst, values, const)}")
        print(f"    reference: {reference(src, dst, values)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
