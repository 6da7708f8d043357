"""Convert-1 between the ordinary types, bf16 constants, and constants that
OpenVINO's serializer compresses to f16. The reference here covers every
pair, the packed types and small float formats included (convert_packed
and convert_pairs make those cases)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import convert_reference as small  # the small float formats, from ml_dtypes

from ..cases import Cases
from ..elements import FLOAT_TYPES, INT_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import const, convert, model, param, reverse, reverse_sequence
from ..registry import Generator

SMALL_FLOATS = {"f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "nf4"}
PACKED_INTS = {"u1": (0, 1), "u2": (0, 3), "u3": (0, 7), "u4": (0, 15), "u6": (0, 63), "i4": (-8, 7)}
SMALL_ENCODERS = {"f8e4m3": small.enc_f8e4m3, "f8e5m2": small.enc_f8e5m2, "f8e8m0": small.enc_f8e8m0,
                  "f4e2m1": small.enc_f4e2m1, "nf4": small.enc_nf4}
SATURATES = "ovir saturates out-of-range reals into integers, where OpenVINO's result is undefined"


def ref_convert(x: np.ndarray, src: str, dst: str) -> np.ndarray:
    """Convert-1: float -> integer truncates toward zero (in-range values
    only), anything -> boolean is `!= 0`, other conversions round to nearest
    even (float narrowing) or wrap (integer narrowing), as NumPy does."""
    if dst == "boolean":
        return np.asarray(x != 0)
    if dst == "bf16":
        raise RefError("conversion to bf16 is not used by the samples")
    target = NP_DTYPE[dst]
    if src in FLOAT_TYPES and dst in INT_TYPES:
        info = np.iinfo(target)
        t = np.trunc(x.astype(np.float64))
        if not np.all(np.isfinite(t)) or t.min() < info.min or t.max() > info.max:
            raise RefError("float to integer conversion out of range")
        return t.astype(target)
    with np.errstate(over="ignore"):     # f32 -> f16 overflow gives inf
        return x.astype(target)


def saturate(x: np.ndarray, lo: int, hi: int, notes: list[str]) -> np.ndarray:
    """Truncate toward zero, saturate at [lo, hi], NaN to 0 (ovir's rule for
    reals to integers)."""
    with np.errstate(invalid="ignore"):
        t = np.trunc(x.astype(np.float64))
    # Python integers, so that the 64-bit bounds stay exact.
    values = t.reshape(-1).tolist()
    out = [0 if np.isnan(v) else lo if v <= lo else hi if v >= hi else int(v) for v in values]
    if not all(lo <= v <= hi for v in values):  # NaN compares false too
        notes.append(SATURATES)
    return np.array(out, dtype=object).reshape(t.shape)


def ref_convert_coded(x: np.ndarray, src: str, dst: str) -> tuple[np.ndarray, list[str]]:
    """Convert-1 where either side is a packed integer or a small float
    format, on codes (one per element, as the .npy files carry them): the
    source's exact value (ml_dtypes' decoding; nf4 through its table), then
    the target's rule (see tools/convert_reference.py and
    docs/element-types.md)."""
    notes: list[str] = []
    if src == dst:
        return x.copy(), notes
    if src in PACKED_INTS:
        v, vsrc = x.astype(np.int8), "i8"
    elif src in SMALL_FLOATS:
        v, vsrc = small.decode(src)[x.astype(np.int64)].view(np.float32), "f32"
    else:
        v, vsrc = x, src
    if dst in SMALL_FLOATS:
        with np.errstate(all="ignore"):
            f = v.astype(np.float32)
        return SMALL_ENCODERS[dst](f.reshape(-1)).reshape(v.shape).astype(np.uint8), notes
    if dst in PACKED_INTS:
        lo, hi = PACKED_INTS[dst]
        if vsrc in FLOAT_TYPES:
            t = saturate(v, lo, hi, notes).astype(np.int64)
        else:
            t = v.astype(np.int64) & (15 if dst == "i4" else hi)
            t = np.where(t > hi, t - 16, t)
        return t.astype(NP_DTYPE[dst]), notes
    if dst == "bf16":
        return to_bf16(v, notes), notes
    if src == "f8e5m2" and dst == "f16":
        if np.isin(x.astype(np.uint8) & 0x7F, [0x7D]).any():
            notes.append("the CPU plugin quiets the signalling f8e5m2 NaN 0x7D into the f16 0x7F00, "
                         "where OpenVINO's reference and ovir keep its payload (0x7D00)")
        # The high byte of an f16, NaN payloads included.
        return (x.astype(np.uint16) << 8).view(np.float16), notes
    if vsrc in FLOAT_TYPES and dst in INT_TYPES:
        info = np.iinfo(NP_DTYPE[dst])
        return saturate(v, int(info.min), int(info.max), notes).astype(NP_DTYPE[dst]), notes
    return ref_convert(v, vsrc, dst), notes


def ov_bf16_bits(x: np.ndarray) -> np.ndarray:
    """bf16 bits by OpenVINO's rule: half a unit is added only when the kept
    lowest bit is 1, so the rest truncates."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((b + ((b >> 1) & 0x8000)) >> 16).astype(np.uint16)


def to_bf16(v: np.ndarray, notes: list[str]) -> np.ndarray:
    """ovir's bf16: nearest even from the exact value (as f32 values)."""
    with np.errstate(all="ignore"):
        out = v.astype(ml_dtypes.bfloat16)
        f32 = v.astype(np.float32)
    same = (out.view(np.uint16) == ov_bf16_bits(f32)) | np.isnan(f32)
    if not same.all():
        notes.append("OpenVINO rounds to bf16 by its own rule (truncating when the kept lowest bit is 0), "
                     "ovir to nearest even")
    # A NaN keeps the top of its payload (f8e5m2's NaNs carry one), where
    # ml_dtypes makes every NaN canonical.
    high = (f32.view(np.uint32) >> 16).astype(np.uint16)
    keep = np.isnan(f32) & ((high & 0x7F) != 0)
    bits = np.where(keep, high, out.view(np.uint16))
    return (bits.astype(np.uint32) << 16).view(np.float32)


def ref_convert_ordinary(x: np.ndarray, src: str, dst: str) -> tuple[np.ndarray, list[str]]:
    """Convert-1 between the ordinary types as ovir does it: reals into
    integers truncate and saturate (NaN to 0), reals round to nearest even,
    integers wrap around."""
    notes: list[str] = []
    if src in FLOAT_TYPES and dst == "boolean" and np.isnan(x).any():
        notes.append("the CPU plugin converts NaN to false")
    if dst == "bf16":
        return to_bf16(x, notes), notes
    if src in FLOAT_TYPES and dst in INT_TYPES:
        info = np.iinfo(NP_DTYPE[dst])
        return saturate(x, int(info.min), int(info.max), notes).astype(NP_DTYPE[dst]), notes
    return ref_convert(x, src, dst), notes


def evaluate_convert(call: Call) -> tuple[np.ndarray, list[str]]:
    src, dst = call.arg_types[0], call.out_type
    caveats = []
    if src in FLOAT_TYPES and dst in {"i64", "u64"}:
        caveats.append("CPU converts float->i64 through i32")
    if {src, dst} & (SMALL_FLOATS | set(PACKED_INTS)):
        val, notes = ref_convert_coded(call.args[0], src, dst)
    else:
        val, notes = ref_convert_ordinary(call.args[0], src, dst)
    return val, caveats + notes


def convert_case(cases: Cases, name, src, dst, values, shape=None):
    values = np.asarray(values, NP_DTYPE[src])
    shape = shape or values.shape
    p = param("data", src, shape)
    m = model({"out": convert(p, dst)}, [p], "convert")
    cases.add(name, m, {"data": values.reshape(shape)})


def build(cases: Cases):
    # 2049 and 4097 lie between f16 neighbours: ties go to the even one.
    convert_case(cases, "convert_f32_to_f16", "f32", "f16",
                 [2049.0, 2051.0, 4097.0, 1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 65519.0, 65520.0,
                  -0.0, 1e-8, 6.1e-5, -2.5, 0.1], (3, 4))
    convert_case(cases, "convert_f32_to_i32", "f32", "i32",
                 [-2.9, -2.5, -0.7, -0.0, 0.4, 1.5, 2.5, 2.9999, 1e9, -2.147483e9, 123456.78, -7.0],
                 (2, 6))
    convert_case(cases, "convert_i32_to_f32", "i32", "f32",
                 [0, -1, 16777216, 16777217, 16777219, -2147483648, 2147483647, 123456789],
                 (2, 4))
    convert_case(cases, "convert_u8_to_boolean", "u8", "boolean", [0, 1, 2, 255, 0, 128], (2, 3))
    convert_case(cases, "convert_boolean_to_f32", "boolean", "f32", [True, False, True, True], (4,))
    convert_case(cases, "convert_f64_to_f32", "f64", "f32",
                 [0.1, 1 + 2 ** -30, -1e30, 3.0e38, 1e-40, -0.0, 2.0 ** 24 + 1, np.pi], (2, 4))
    convert_case(cases, "convert_i64_to_i32", "i64", "i32",
                 [0, -1, 2147483647, -2147483648, 123456789, -987654321], (3, 2))
    convert_case(cases, "convert_f16_to_f32", "f16", "f32",
                 [65504, -65504, 6e-8, 0.1, -0.0, np.inf, 1.5, -3.25], (2, 4))
    convert_case(cases, "convert_i8_to_u8", "i8", "u8", [-128, -1, 0, 1, 127, -2], (6,))
    convert_case(cases, "convert_f32_to_boolean", "f32", "boolean", [0.0, -0.0, 0.5, -3.0, np.inf, 1e-30], (6,))

    # bf16 constant inside the graph
    c = const([1.5, -2.25, 3.0e38, 1.0 / 3.0, 0.0, -7.0], "bf16", "values")
    m = model({"out": reverse(convert(c, "f32"), const([0], "i64", "axes"), "index")}, [],
              "bf16_const")
    cases.add("convert_bf16_const_to_f32_reverse", m)

    # Const(f32) compressed to f16 by save_model -> Convert(f32)
    vals = np.linspace(-3.3, 7.7, 24, dtype=np.float32).reshape(2, 3, 4)
    c = const(vals, "f32", "weights")
    m = model({"out": reverse(c, const([1, 2], "i64", "axes"), "index")}, [], "compressed")
    cases.add("compressed_f16_const_reverse", m, compress=True)

    c = const(vals, "f32", "weights")
    a = param("axes", "i64", "?")
    m = model({"out": reverse(c, a, "index")}, [a], "compressed")
    cases.add("compressed_f16_const_reverse_runtime_axes", m, {"axes": np.array([-1, 0], np.int64)},
              compress=True)

    c = const(vals.reshape(4, 6), "f32", "weights")
    ln = param("lengths", "i32", (4,))
    m = model({"out": reverse_sequence(c, ln, 0, 1)}, [ln], "compressed")
    cases.add("compressed_f16_const_rseq", m, {"lengths": np.array([6, 0, 3, 2], np.int32)},
              compress=True)


GENERATOR = Generator("convert", build, references={"Convert": evaluate_convert})
