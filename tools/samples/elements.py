"""Element types: the NumPy dtype each OpenVINO type travels as in the .npy
files and the reference, and the bit layouts of the packed sub-byte types."""

from __future__ import annotations

import re

import numpy as np
import openvino as ov

# OpenVINO element type name -> NumPy dtype used for the .npy files and the
# reference.  bf16 values are carried as float32 (bf16 is a subset of f32).
NP_DTYPE = {
    "boolean": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "u8": np.dtype(np.uint8),
    "i16": np.dtype(np.int16),
    "u16": np.dtype(np.uint16),
    "i32": np.dtype(np.int32),
    "u32": np.dtype(np.uint32),
    "i64": np.dtype(np.int64),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(np.float32),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
INT_TYPES = {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"}
FLOAT_TYPES = {"f16", "bf16", "f32", "f64"}

# The packed sub-byte types (bits per element) and the 8-bit floats have no
# NumPy type: .npy files and the reference carry one code per byte, u8, or
# i8 for i4 (its code sign-extended).
PACKED_BITS = {"u1": 1, "u2": 2, "u3": 3, "u4": 4, "i4": 4, "nf4": 4, "f4e2m1": 4, "u6": 6}
F8_TYPES = ["f8e4m3", "f8e5m2", "f8e8m0"]
NP_DTYPE.update({et: np.dtype(np.int8 if et == "i4" else np.uint8) for et in [*PACKED_BITS, *F8_TYPES]})

# The ordinary types, in the order the per-type cases take them.
ALL_TYPES = ["boolean", "i8", "u8", "i16", "u16", "f16", "i32", "u32", "f32", "i64", "u64", "f64"]

# Where the OpenVINO 2026.4 CPU plugin is not exact (so no cross-check).
WIDE_TYPES = {"i64", "u64", "f64"}


def ov_type(name: str) -> ov.Type:
    return getattr(ov.Type, name)


def type_name(t: ov.Type) -> str:
    return t.get_type_name()


def safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def pack_codes(codes: np.ndarray, et: str) -> bytes:
    """Packs one code per element the way OpenVINO 2026.4 lays `et` out:
    u1 first element in the top bit; u2 and the 4-bit types first element in
    the lowest bits; u3 (8 per 3 bytes) and u6 (4 per 3 bytes) split into
    low bits, first element highest, and a byte of high bits."""
    bits = PACKED_BITS[et]
    c = np.asarray(codes).reshape(-1).astype(np.int64) & ((1 << bits) - 1)
    group = {"u1": 8, "u2": 4, "u3": 8, "u6": 4}.get(et, 2)
    c = np.concatenate([c, np.zeros(-len(c) % group, np.int64)]).reshape(-1, group)
    if et == "u1":
        out = sum(c[:, k] << (7 - k) for k in range(8))[:, None]
    elif et == "u2":
        out = sum(c[:, k] << (2 * k) for k in range(4))[:, None]
    elif et == "u3":
        low = [sum((c[:, 4 * h + k] & 3) << (2 * (3 - k)) for k in range(4)) for h in range(2)]
        high = sum((c[:, k] >> 2) << (7 - k) for k in range(8))
        out = np.stack([low[0], low[1], high], axis=1)
    elif et == "u6":
        low = [((c[:, 2 * h] & 15) << 4) | (c[:, 2 * h + 1] & 15) for h in range(2)]
        high = sum((c[:, k] >> 4) << (2 * (3 - k)) for k in range(4))
        out = np.stack([low[0], low[1], high], axis=1)
    else:
        out = (c[:, 0] | (c[:, 1] << 4))[:, None]
    return out.astype(np.uint8).tobytes()


def unpack_codes(raw: bytes, et: str, count: int) -> np.ndarray:
    """The inverse of pack_codes: `count` codes as u8, or i8 for i4."""
    bits = PACKED_BITS[et]
    b = np.frombuffer(raw, np.uint8).astype(np.int64)
    if et == "u1":
        c = np.stack([(b >> (7 - k)) & 1 for k in range(8)], axis=1)
    elif et == "u2":
        c = np.stack([(b >> (2 * k)) & 3 for k in range(4)], axis=1)
    elif et == "u3":
        g = b.reshape(-1, 3)
        c = np.stack([((g[:, k // 4] >> (2 * (3 - k % 4))) & 3) | (((g[:, 2] >> (7 - k)) & 1) << 2)
                      for k in range(8)], axis=1)
    elif et == "u6":
        g = b.reshape(-1, 3)
        c = np.stack([((g[:, k // 2] >> (4 * (1 - k % 2))) & 15) | (((g[:, 2] >> (2 * (3 - k))) & 3) << 4)
                      for k in range(4)], axis=1)
    else:
        c = np.stack([b & 15, b >> 4], axis=1)
    c = c.reshape(-1)[:count]
    if et == "i4":
        return np.where(c >= 8, c - 16, c).astype(np.int8)
    assert c.max(initial=0) < (1 << bits)
    return c.astype(np.uint8)


def tight_strings(arr: np.ndarray) -> np.ndarray:
    """A unicode array as wide as its longest string (at least 1), the
    width ovir writes."""
    width = max([len(s) for s in arr.reshape(-1).tolist()] + [1])
    return arr.astype(f"<U{width}")


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
