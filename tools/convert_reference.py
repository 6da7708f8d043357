#!/usr/bin/env python3
"""Reference values for Convert on the small float formats and the packed
integers, printed as Rust tables for crates/exec/tests/kernels/convert_formats.rs.

    python3 tools/convert_reference.py > /tmp/tables.rs

The values come from NumPy and ml_dtypes, with the steps OpenVINO 2026.4's
reference Convert adds on top of the plain formats (rounding through f16
first for f8e4m3 and f8e5m2, its own f8e8m0 and NaN rules; see
docs/element-types.md). Every value is then compared with OpenVINO's own
`Convert::evaluate`; the differences are listed on stderr and must be the
known ones (ovir's integer saturation, OpenVINO's f16 subnormal slip).
Needs the `numpy`, `ml_dtypes` and `openvino` pip packages.
"""

from __future__ import annotations

import sys

import ml_dtypes as md
import numpy as np
import openvino as ov
import openvino.opset13 as ops

# ---------------------------------------------------------------------------
# Decoding: every code to f32
# ---------------------------------------------------------------------------

# OpenVINO's nf4 table (src/core/src/type/nf4.cpp), as written there.
NF4 = np.array([
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0], np.float32)


def bits32(a) -> np.ndarray:
    return np.asarray(a, np.float32).view(np.uint32)


def decode(fmt: str) -> np.ndarray:
    """f32 bits of every code of `fmt`."""
    if fmt == "nf4":
        return bits32(NF4)
    if fmt == "f4e2m1":
        return bits32(np.arange(16, dtype=np.uint8).view(md.float4_e2m1fn).astype(np.float32))
    codes = np.arange(256, dtype=np.uint8)
    if fmt == "f8e5m2":
        # f8e5m2 is the high byte of an f16; NumPy's f16 widening keeps NaN
        # payloads, as OpenVINO's does (ml_dtypes makes them canonical).
        wide = (codes.astype(np.uint16) << 8).view(np.float16).astype(np.float32)
        plain = codes.view(md.float8_e5m2).astype(np.float32)
        same = (bits32(wide) == bits32(plain)) | np.isnan(plain)
        assert same.all(), "f8e5m2 through f16 differs from ml_dtypes"
        return bits32(wide)
    dtype = {"f8e4m3": md.float8_e4m3fn, "f8e8m0": md.float8_e8m0fnu}[fmt]
    return bits32(codes.view(dtype).astype(np.float32))


# ---------------------------------------------------------------------------
# Encoding: f32 to each format
# ---------------------------------------------------------------------------


def ov_f16(x: np.ndarray) -> np.ndarray:
    """f16 bits of f32 values: NumPy's nearest-even rounding; a NaN keeps
    the top ten bits of its payload (payload 1 when they are zero)."""
    x = np.asarray(x, np.float32)
    b = x.view(np.uint32)
    with np.errstate(all="ignore"):
        h = x.astype(np.float16).view(np.uint16).copy()
    nan = np.isnan(x)
    payload = ((b >> 13) & 0x3FF).astype(np.uint16)
    payload = np.where(payload == 0, 1, payload)
    h[nan] = (((b[nan] >> 16) & 0x8000).astype(np.uint16) | 0x7C00 | payload[nan])
    return h


def enc_f8e4m3(x):
    with np.errstate(all="ignore"):
        return ov_f16(x).view(np.float16).astype(md.float8_e4m3fn).view(np.uint8)


def enc_f8e5m2(x):
    h = ov_f16(x)
    with np.errstate(all="ignore"):
        rounded = h.view(np.float16).astype(md.float8_e5m2).view(np.uint8)
    special = (h & 0x7C00) == 0x7C00
    return np.where(special, (h >> 8).astype(np.uint8), rounded)


def enc_f8e8m0(x):
    """Nearest power of two 2^(c - 127), c in 0..254; a tie goes to the even
    c. Zero and negatives give 0, +inf 254, NaN 255 (-NaN 0)."""
    out = []
    for v in np.asarray(x, np.float32).tolist():
        sign = bits32(v) >> 31
        if sign:
            out.append(0)
        elif np.isnan(v):
            out.append(255)
        elif v == 0:
            out.append(0)
        elif np.isinf(v):
            out.append(254)
        else:
            e = max(min(int(np.floor(np.log2(v))), 127), -127)
            while 2.0 ** e > v and e > -127:
                e -= 1
            while e < 127 and 2.0 ** (e + 1) <= v:
                e += 1
            lo, hi = 2.0 ** e, 2.0 ** (e + 1)
            c = e + 127
            if e < 127 and (v - lo > hi - v or (v - lo == hi - v and c % 2 == 1)):
                c += 1
            out.append(c)
    return np.array(out, np.uint8)


def enc_f4e2m1(x):
    x = np.asarray(x, np.float32)
    sign = ((x.view(np.uint32) >> 31) << 3).astype(np.uint8)
    with np.errstate(all="ignore"):
        mag = np.abs(x).astype(md.float4_e2m1fn).view(np.uint8) & 7
    mag = np.where(np.isnan(x) | np.isinf(x), 7, mag)
    return (sign | mag).astype(np.uint8)


def enc_nf4(x):
    """The nearest table value, a tie going to the lower code; NaN gives 0."""
    out = []
    for v in np.asarray(x, np.float32).astype(np.float64).tolist():
        if np.isnan(v):
            out.append(0)
            continue
        v = min(max(v, -2.0), 2.0)  # infinities clamp to the ends
        d = np.abs(NF4.astype(np.float64) - v)
        out.append(int(np.flatnonzero(d == d.min())[0]))
    return np.array(out, np.uint8)


PACKED = {"u1": (0, 1), "u2": (0, 3), "u3": (0, 7), "u4": (0, 15), "u6": (0, 63), "i4": (-8, 7)}


def enc_packed(x, et):
    """ovir's rule for reals to integers: truncate, saturate, NaN to 0; the
    code is the low bits (i4's two's complement)."""
    lo, hi = PACKED[et]
    with np.errstate(invalid="ignore"):
        x = np.asarray(x, np.float64)
        t = np.where(np.isnan(x), 0, np.clip(np.trunc(np.nan_to_num(x, posinf=1e300, neginf=-1e300)), lo, hi))
    return (t.astype(np.int64) & ((1 << (4 if et == "i4" else hi.bit_length())) - 1)).astype(np.uint8)


# ---------------------------------------------------------------------------
# OpenVINO's reference Convert, for the cross-check
# ---------------------------------------------------------------------------

T = ov.Type


def ov_convert(src: str, dst: str, raw: bytes, n: int) -> bytes | None:
    node = ops.convert(ops.parameter([n], getattr(T, src)), getattr(T, dst))
    inp = ov.Tensor(getattr(T, src), ov.Shape([n]))
    view = np.asarray(inp.data).view(np.uint8).reshape(-1)
    view[:] = np.frombuffer(raw, np.uint8)[:view.size]
    out = ov.Tensor(getattr(T, dst), ov.Shape([n]))
    if not node.evaluate([out], [inp]):
        return None
    return np.asarray(out.data).view(np.uint8).tobytes()


def unnibble(raw: bytes, n: int) -> np.ndarray:
    b = np.frombuffer(raw, np.uint8)
    return np.stack([b & 15, b >> 4], axis=1).reshape(-1)[:n]


def nibble(codes: np.ndarray) -> bytes:
    c = np.concatenate([codes, np.zeros(len(codes) % 2, np.uint8)]).reshape(-1, 2)
    return (c[:, 0] | (c[:, 1] << 4)).astype(np.uint8).tobytes()


def cross_check_decode(fmt: str, want: np.ndarray):
    n = len(want)
    codes = np.arange(n, dtype=np.uint8)
    raw = nibble(codes) if n == 16 else codes.tobytes()
    got = np.frombuffer(ov_convert(fmt, "f32", raw, n), np.uint32)
    for c in np.flatnonzero(got != want):
        warn(f"{fmt} code {c} -> f32: reference {want[c]:#010x}, OpenVINO {got[c]:#010x}")


def cross_check_encode(fmt: str, xs: np.ndarray, want: np.ndarray, src="f32"):
    n = len(xs)
    raw = ov_convert(src, fmt, xs.tobytes(), n)
    got = unnibble(raw, n) if fmt in ("f4e2m1", "nf4") else np.frombuffer(raw, np.uint8)
    for k in np.flatnonzero(got != want):
        bits = xs.view(np.uint16 if src == "f16" else np.uint32)[k]
        warn(f"{src} {bits:#x} ({float(xs[k])!r}) -> {fmt}: reference {want[k]:#04x}, OpenVINO {got[k]:#04x}")


def cross_check_packed(et: str, xs: np.ndarray, want: np.ndarray):
    """ovir saturates where OpenVINO keeps the low bits of an int32; every
    other value must agree."""
    from samples.elements import unpack_codes  # the generator's unpacking, pinned to OpenVINO's bytes
    raw = ov_convert("f32", et, xs.tobytes(), len(xs))
    got = unpack_codes(raw, et, len(xs)).astype(np.int64) & ((1 << (4 if et == "i4" else 8)) - 1)
    lo, hi = PACKED[et]
    with np.errstate(invalid="ignore"):
        inside = np.isfinite(xs) & (np.trunc(xs) >= lo) & (np.trunc(xs) <= hi)
    bad = np.flatnonzero((got != want) & inside)
    for k in bad:
        warn(f"f32 {float(xs[k])!r} -> {et}: ovir {want[k]}, OpenVINO {got[k]}")
    saturated = np.count_nonzero((got != want) & ~inside)
    print(f"note: f32 -> {et}: {saturated} out-of-range values saturate in ovir and wrap in OpenVINO",
          file=sys.stderr)


def warn(text: str):
    print("differs: " + text, file=sys.stderr)


# ---------------------------------------------------------------------------
# The values
# ---------------------------------------------------------------------------

EDGE_BITS = [
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00400000, 0x00600000, 0x00600001, 0x00800000,
    0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FA00000,
    0x7F000000, 0x7F400000, 0x7EFFFFFF, 0x3F800000, 0xBF800000, 0x40080001, 0x3F900001,
    0x36FFF800, 0xB77FF000, 0x37FFFFFF, 0xB9100001,
]
EDGE_VALUES = [
    0.5, 0.25, 0.26, 0.75, 1.25, 1.5, 1.75, 2.5, 3.0, 3.5, 5.0, 6.0, 7.0, 8.0, 100.0, -0.1, -0.3, -2.5,
    448, 460, 464, 464.125, 464.13, 465, 480, -448, -465, 1e6, 57344, 61423.99, 61424, 61440, 65504, 65520,
    2.0 ** -6, 2.0 ** -7, 2.0 ** -9, 2.0 ** -10, 3 * 2.0 ** -11, 2.0 ** -12, 2.0 ** -14, 2.0 ** -16,
    2.0 ** -17, 1.5 * 2.0 ** -16, 2.0 ** -24, 2.0 ** -25, 0.1, 1 / 3, 0.0796, 0.6, 1.6, 0.7, 300.0, -300.0,
    2.0 ** 127, 1.5 * 2.0 ** 126, 2.0 ** -126, 1.5 * 2.0 ** -126, 0.375, 0.625,
]


def edges() -> np.ndarray:
    return np.concatenate([np.array(EDGE_BITS, np.uint32).view(np.float32),
                           np.array(EDGE_VALUES, np.float32)])


def nf4_inputs() -> np.ndarray:
    """f16 values on both sides of each nf4 midpoint, the table values and
    the specials."""
    thresholds = (NF4[:-1].astype(np.float64) + NF4[1:]) / 2
    picks = [0.0, -0.0, np.inf, -np.inf, np.nan, 2.0, -2.0, 1e-7]
    for t in thresholds:
        h = np.float16(t)
        picks += [h, np.nextafter(h, np.float16(-2)), np.nextafter(h, np.float16(2))]
    picks += NF4.tolist()
    return np.array(picks, np.float16)


def rust_array(name: str, ty: str, rows: list[str], per_line: int) -> str:
    lines = [", ".join(rows[i:i + per_line]) for i in range(0, len(rows), per_line)]
    body = "".join(f"    {line},\n" for line in lines)
    return f"const {name}: [{ty}; {len(rows)}] = [\n{body}];\n"


def main() -> int:
    out = ["// Generated by tools/convert_reference.py (NumPy, ml_dtypes); do not edit.\n"]
    for fmt in ("f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "nf4"):
        want = decode(fmt)
        cross_check_decode(fmt, want)
        name = fmt.upper() + "_TO_F32"
        out.append(rust_array(name, "u32", [f"0x{v:08X}" for v in want], 8))

    xs = edges()
    cols = {fmt: fn(xs) for fmt, fn in
            [("f8e4m3", enc_f8e4m3), ("f8e5m2", enc_f8e5m2), ("f8e8m0", enc_f8e8m0), ("f4e2m1", enc_f4e2m1)]}
    for fmt, want in cols.items():
        cross_check_encode(fmt, xs, want)
    packed = {et: enc_packed(xs, et) for et in PACKED}
    for et, want in packed.items():
        cross_check_packed(et, xs, want)
    rows = [f"(0x{b:08X}, 0x{cols['f8e4m3'][k]:02X}, 0x{cols['f8e5m2'][k]:02X}, 0x{cols['f8e8m0'][k]:02X}, "
            f"0x{cols['f4e2m1'][k]:X}, [{', '.join(str(packed[et][k]) for et in PACKED)}])"
            for k, b in enumerate(xs.view(np.uint32))]
    out.append("/// f32 bits, then the code in f8e4m3, f8e5m2, f8e8m0, f4e2m1, and in\n"
               "/// u1, u2, u3, u4, u6, i4 (two's complement).\n"
               + rust_array("F32_TO_CODES", "CodeRow", rows, 1))

    hs = nf4_inputs()
    want = enc_nf4(hs.astype(np.float32))
    cross_check_encode("nf4", hs, want, src="f16")
    rows = [f"(0x{b:04X}, {c})" for b, c in zip(hs.view(np.uint16), want)]
    out.append("/// f16 bits and their nf4 code.\n" + rust_array("F16_TO_NF4", "(u16, u8)", rows, 6))
    types = ["boolean", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64",
             "u1", "u2", "u3", "u4", "u6", "i4", "nf4", "f4e2m1", "f8e4m3", "f8e5m2", "f8e8m0"]
    rows = []
    for src in types:
        zeros = bytes(64)
        accepted = [dst for dst in types if ov_convert(src, dst, zeros, 8) is not None]
        rows.append(f'("{src}", "{" ".join(accepted)}")')
    out.append("/// Each type and the types OpenVINO's reference Convert takes it to.\n"
               + rust_array("DEFINED", "(&str, &str)", rows, 1))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
    sys.exit(main())
