#!/usr/bin/env python3
"""Regenerate the ir-samples/ conformance tree.

Run from the repository root:

    python3 tools/gen_samples.py

Every run deletes ir-samples/ and writes it again from scratch; the output is
deterministic for a given OpenVINO/NumPy/ONNX installation.

Layout of one valid case (see ir-samples/README.md):

    ir-samples/<case>/model.xml               OpenVINO's serializer output
    ir-samples/<case>/model.bin               weights (when there are any)
    ir-samples/<case>/in/<input>.npy          one per model input
    ir-samples/<case>/expected/<output>.npy   one per model output
    ir-samples/<case>/expected_error          (instead of expected/) a short
                                              phrase the run-time error must contain
    ir-samples/bad/<case>/model.xml (+ model.bin) + expected_error

Expected outputs come from the NumPy reference in this file, evaluated over the
graph read back from the written model.xml. Where the OpenVINO CPU plugin is
known to be exact, its results are compared bit for bit with the reference.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Callable, Optional

import ml_dtypes
import numpy as np
import openvino as ov
import openvino.opset1 as ops
from openvino.utils.node_factory import NodeFactory

sys.path.insert(0, str(Path(__file__).resolve().parent))
import convert_reference as small  # noqa: E402  (the small float formats, from ml_dtypes)

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "ir-samples"

# ---------------------------------------------------------------------------
# Element types
# ---------------------------------------------------------------------------

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


def ov_type(name: str) -> ov.Type:
    return getattr(ov.Type, name)


def type_name(t: ov.Type) -> str:
    return t.get_type_name()


def safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


# ---------------------------------------------------------------------------
# NumPy reference of the specifications
# ---------------------------------------------------------------------------


class RefError(Exception):
    """The reference refuses the computation (a run-time error)."""


def ref_reverse(data: np.ndarray, axes: np.ndarray, axes_type: str, mode: str) -> np.ndarray:
    rank = data.ndim
    mode = mode.lower()
    if axes.ndim != 1:
        raise RefError("reverse axes must be 1-D")
    if mode == "index":
        if axes_type not in INT_TYPES:
            raise RefError("reverse index-mode axes must be integer")
        chosen = set()
        for a in axes.tolist():
            if not -rank <= a < rank:
                raise RefError(f"reverse axis {a} out of bounds for rank {rank}")
            chosen.add(a % rank)
    elif mode == "mask":
        if axes_type != "boolean":
            raise RefError("reverse mask-mode axes must be boolean")
        if axes.shape[0] != rank:
            raise RefError("reverse mask length differs from the data rank")
        chosen = {i for i, m in enumerate(axes.tolist()) if m}
    else:
        raise RefError(f"reverse mode {mode!r} is invalid")
    if not chosen:
        return data.copy()
    return np.ascontiguousarray(np.flip(data, axis=tuple(sorted(chosen))))


def ref_reverse_sequence(data: np.ndarray, lengths: np.ndarray, lengths_type: str,
                         batch_axis: int, seq_axis: int) -> np.ndarray:
    rank = data.ndim
    if rank < 2:
        raise RefError("reverse_sequence data rank must be at least 2")
    if lengths.ndim != 1:
        raise RefError("reverse_sequence lengths must be 1-D")
    if lengths_type == "boolean":
        raise RefError("reverse_sequence lengths must be numeric")
    for ax in (batch_axis, seq_axis):
        if not -rank <= ax < rank:
            raise RefError(f"axis {ax} out of range for rank {rank}")
    ba, sa = batch_axis % rank, seq_axis % rank
    if lengths.shape[0] != data.shape[ba]:
        raise RefError("lengths size differs from the batch dimension")
    if lengths_type in FLOAT_TYPES:
        lens = [int(np.trunc(float(v))) for v in lengths.tolist()]
    else:
        lens = [int(v) for v in lengths.tolist()]
    out = data.copy()
    for b, n in enumerate(lens):
        if n < 0:
            raise RefError(f"sequence length {n} is negative")
        if n > data.shape[sa]:
            raise RefError(f"sequence length {n} exceeds dimension {data.shape[sa]}")
        if n <= 1:
            continue
        if ba == sa:
            raise RefError("batch_axis == seq_axis needs every length <= 1")
        for s in range(n):
            dst = [slice(None)] * rank
            src = [slice(None)] * rank
            dst[ba] = src[ba] = b
            dst[sa] = n - 1 - s
            src[sa] = s
            out[tuple(dst)] = data[tuple(src)]
    return out


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


SMALL_FLOATS = {"f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "nf4"}
PACKED_INTS = {"u1": (0, 1), "u2": (0, 3), "u3": (0, 7), "u4": (0, 15), "u6": (0, 63), "i4": (-8, 7)}
SMALL_ENCODERS = {"f8e4m3": small.enc_f8e4m3, "f8e5m2": small.enc_f8e5m2, "f8e8m0": small.enc_f8e8m0,
                  "f4e2m1": small.enc_f4e2m1, "nf4": small.enc_nf4}
SATURATES = "ovir saturates out-of-range reals into integers, where OpenVINO's result is undefined"


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


def norm_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise RefError(f"axis {axis} out of range for rank {rank}")
    return axis % rank


def ref_gather(data: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int) -> np.ndarray:
    """Gather-8: negative indices count from the end; out-of-range indices
    give zeros; the first batch_dims axes of data and indices pair up."""
    axis = norm_axis(int(axis), data.ndim)
    bd = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    if not 0 <= bd <= min(axis, indices.ndim) or data.shape[:bd] != indices.shape[:bd]:
        raise RefError("gather batch_dims does not fit")
    size = data.shape[axis]
    idx = np.where(indices < 0, indices.astype(np.int64) + size, indices.astype(np.int64))
    valid = (idx >= 0) & (idx < size)
    out_shape = data.shape[:axis] + indices.shape[bd:] + data.shape[axis + 1:]
    out = np.zeros(out_shape, dtype=data.dtype)
    for b in np.ndindex(*data.shape[:bd]):
        d, i, ok = data[b], idx[b], valid[b]
        picked = np.take(d, np.where(ok, i, 0), axis=axis - bd)
        mask = ok.reshape((1,) * (axis - bd) + ok.shape + (1,) * (d.ndim - axis + bd - 1))
        out[b] = np.where(mask, picked, np.zeros((), dtype=data.dtype))
    return out


def ref_broadcast(data: np.ndarray, target: np.ndarray, mode: str, axes=None) -> np.ndarray:
    target = [int(v) for v in target.tolist()]
    if any(v < 0 for v in target):
        raise RefError("negative target shape")
    mode = mode.lower()
    if mode == "numpy":
        if len(target) < data.ndim:
            raise RefError("broadcast target rank too small")
        for d, t in zip(data.shape[::-1], target[::-1]):
            if d != 1 and d != t:
                raise RefError("broadcast dims do not fit")
        return np.ascontiguousarray(np.broadcast_to(data, target))
    if mode == "bidirectional":
        try:
            shape = np.broadcast_shapes(data.shape, tuple(target))
        except ValueError as e:
            raise RefError(str(e))
        return np.ascontiguousarray(np.broadcast_to(data, shape))
    if mode in ("explicit", "none"):
        axes = [int(a) for a in axes.tolist()]
        aligned = [1] * len(target)
        for d, a in zip(data.shape, axes):
            aligned[a] = d
        return np.ascontiguousarray(np.broadcast_to(data.reshape(aligned), target))
    raise RefError(f"broadcast mode {mode} is not supported by the reference")


def ref_unsqueeze(data: np.ndarray, axes: np.ndarray) -> np.ndarray:
    values = sorted(set(int(a) for a in axes.reshape(-1).tolist()))
    rank = data.ndim + len(values)
    shape = list(data.shape)
    for a in sorted(set(norm_axis(v, rank) for v in values)):
        shape.insert(min(a, len(shape)), 1)
    return data.reshape(shape)


def ref_squeeze(data: np.ndarray, axes: Optional[np.ndarray]) -> np.ndarray:
    if axes is None or axes.size == 0:
        listed = set(range(data.ndim))
    else:
        listed = {norm_axis(int(a), data.ndim) for a in axes.reshape(-1).tolist()}
    return data.reshape([d for k, d in enumerate(data.shape) if not (k in listed and d == 1)])


def ref_reshape(data: np.ndarray, pattern: np.ndarray, special_zero: bool) -> np.ndarray:
    shape = [int(v) for v in pattern.reshape(-1).tolist()]
    if special_zero:
        shape = [data.shape[k] if v == 0 else v for k, v in enumerate(shape)]
    return data.reshape(shape)


# ---------------------------------------------------------------------------
# Graph evaluation with the reference
# ---------------------------------------------------------------------------

# Where the OpenVINO 2026.4 CPU plugin is not exact (so no cross-check).
WIDE_TYPES = {"i64", "u64", "f64"}


def const_value(node) -> np.ndarray:
    et = type_name(node.get_output_element_type(0))
    shape = tuple(node.get_output_shape(0))
    if et == "bf16":
        bits = np.asarray(node.get_data()).view(np.uint16).astype(np.uint32)
        return (bits << 16).view(np.float32).reshape(shape)
    if et == "string":
        return np.array(node.get_tensor_view().str_data, dtype=str).reshape(shape)
    if et in PACKED_BITS:
        raw = np.asarray(node.get_data()).view(np.uint8).tobytes()
        return unpack_codes(raw, et, int(np.prod(shape))).reshape(shape)
    if et in F8_TYPES:
        return np.asarray(node.get_data()).view(np.uint8).reshape(shape).copy()
    if et not in NP_DTYPE:
        raise RefError(f"constant of type {et} is not supported by the reference")
    return np.asarray(node.get_data()).astype(NP_DTYPE[et]).reshape(shape)


def ref_slice(data, start, stop, step, axes):
    """Slice-8: Python slicing along the listed axes (the first ones by
    default); negative and out-of-range bounds follow Python's rules."""
    start, stop, step = (np.asarray(v).reshape(-1).tolist() for v in (start, stop, step))
    axes = list(range(len(start))) if axes is None else np.asarray(axes).reshape(-1).tolist()
    if not len(start) == len(stop) == len(step) == len(axes):
        raise ValueError("Slice start, stop, step and axes differ in length")
    if 0 in step:
        raise ValueError("Slice step is 0")
    index = [slice(None)] * data.ndim
    for b, e, s, a in zip(start, stop, step, axes):
        a = a + data.ndim if a < 0 else a
        if not 0 <= a < data.ndim or index[a] != slice(None):
            raise ValueError(f"Slice axis {a} out of range or repeated")
        index[a] = slice(int(b), int(e), int(s))
    return data[tuple(index)].copy()


def evaluate(model: ov.Model, feeds: dict[str, np.ndarray], out_names: list[str]):
    """Evaluate `model` with the NumPy reference.

    Returns (outputs by sanitized name, and for each output the reasons why
    the CPU plugin cannot be used as an exact cross-check of it). A reason
    follows the values it concerns through the graph, so one Convert the
    plugin does differently leaves the model's other outputs checked."""
    values: dict[tuple[int, int], np.ndarray] = {}
    reasons: dict[tuple[int, int], set[str]] = {}
    for node in model.get_ordered_ops():
        kind = node.get_type_name()
        args = []
        arg_types = []
        caveats: list[str] = []
        for v in node.input_values():
            key = (v.get_node().get_instance_id(), v.get_index())
            args.append(values[key])
            arg_types.append(type_name(v.get_element_type()))
            caveats += reasons[key]
        out_type = type_name(node.get_output_element_type(0)) if node.get_output_size() else None
        if kind == "Parameter":
            name = next(n for n in feeds if n in node.output(0).get_names())
            arr = feeds[name]
            if out_type == "string":
                if arr.dtype.kind != "U":
                    raise ValueError(f"input {name}: dtype {arr.dtype} is not a unicode string type")
            elif arr.dtype != NP_DTYPE[out_type]:
                raise ValueError(f"input {name}: dtype {arr.dtype} != {out_type}")
            if not node.get_output_partial_shape(0).compatible(ov.PartialShape(list(arr.shape))):
                raise ValueError(f"input {name}: shape {arr.shape} does not fit")
            val = arr
        elif kind == "Constant":
            val = const_value(node)
        elif kind == "Convert":
            src, dst = arg_types[0], out_type
            if src in FLOAT_TYPES and dst in {"i64", "u64"}:
                caveats.append("CPU converts float->i64 through i32")
            if {src, dst} & (SMALL_FLOATS | set(PACKED_INTS)):
                val, notes = ref_convert_coded(args[0], src, dst)
                caveats += notes
            else:
                val, notes = ref_convert_ordinary(args[0], src, dst)
                caveats += notes
        elif kind == "Reverse":
            mode = node.get_attributes()["mode"]
            if arg_types[0] in WIDE_TYPES:
                caveats.append(f"CPU truncates {arg_types[0]} Reverse data")
            if arg_types[0] in PACKED_BITS:
                caveats.append(f"CPU reverses {arg_types[0]} data byte by byte, not element by element")
            val = ref_reverse(args[0], args[1], arg_types[1], mode)
        elif kind == "ReverseSequence":
            attrs = node.get_attributes()
            if arg_types[0] in WIDE_TYPES:
                caveats.append(f"CPU truncates {arg_types[0]} ReverseSequence data")
            if arg_types[0] in PACKED_BITS:
                caveats.append(f"CPU reverses {arg_types[0]} data byte by byte, not element by element")
            if arg_types[0] == "string":
                caveats.append("CPU plugin does not support string ReverseSequence")
            if arg_types[0] in {"i32", "u32"} and args[0].size and \
                    np.abs(args[0].astype(np.int64)).max() > 2 ** 24:
                caveats.append(f"CPU routes {arg_types[0]} ReverseSequence through f32")
            val = ref_reverse_sequence(args[0], args[1], arg_types[1],
                                       int(attrs["batch_axis"]), int(attrs["seq_axis"]))
        elif kind == "ShapeOf":
            val = np.array(args[0].shape, dtype=NP_DTYPE[out_type])
        elif kind == "Gather":
            batch_dims = int(node.get_attributes().get("batch_dims", 0))
            val = ref_gather(args[0], args[1], int(args[2].reshape(-1)[0]), batch_dims)
        elif kind == "Broadcast":
            mode = node.get_attributes()["mode"]
            val = ref_broadcast(args[0], args[1], mode, args[2] if len(args) > 2 else None)
        elif kind == "Unsqueeze":
            val = ref_unsqueeze(args[0], args[1])
        elif kind == "Squeeze":
            val = ref_squeeze(args[0], args[1] if len(args) > 1 else None)
        elif kind == "Reshape":
            val = ref_reshape(args[0], args[1], bool(node.get_attributes()["special_zero"]))
        elif kind == "Concat":
            val = np.concatenate(args, axis=int(node.get_attributes()["axis"]))
        elif kind == "Slice":
            val = ref_slice(args[0], args[1], args[2], args[3], args[4] if len(args) > 4 else None)
        elif kind == "Result":
            val = args[0]
        else:
            raise ValueError(f"operation {kind} is not part of the supported set")
        if kind != "Result":
            values[(node.get_instance_id(), 0)] = val
            reasons[(node.get_instance_id(), 0)] = set(caveats)
            if out_type in NP_DTYPE and val.dtype != NP_DTYPE[out_type]:
                raise ValueError(f"{node.get_friendly_name()}: reference dtype {val.dtype} != {out_type}")
    outputs, caveats = {}, {}
    for res, name in zip(model.get_results(), out_names):
        src = res.input_value(0)
        key = (src.get_node().get_instance_id(), src.get_index())
        outputs[name], caveats[name] = values[key], sorted(reasons[key])
    return outputs, caveats


def split_names(attr: str) -> list[str]:
    """Split a `names` attribute on unescaped commas."""
    parts = re.split(r"(?<!\\),", attr)
    return [p.replace("\\,", ",").strip() for p in parts if p.strip()]


def xml_output_names(xml_text: str) -> dict[str, str]:
    """Result layer name -> sanitized first tensor name of the port feeding it."""
    root = ET.fromstring(xml_text)
    layers = {l.get("id"): l for l in root.find("layers")}
    names = {}
    for edge in root.find("edges"):
        dst = layers[edge.get("to-layer")]
        if dst.get("type") != "Result":
            continue
        src = layers[edge.get("from-layer")]
        port = next(p for p in src.find("output") if p.get("id") == edge.get("from-port"))
        tensor = split_names(port.get("names", ""))
        if not tensor:
            raise ValueError(f"output feeding {dst.get('name')} has no tensor name")
        names[dst.get("name")] = safe_name(tensor[0])
    return names


def xml_input_names(xml_text: str) -> dict[str, str]:
    """Parameter layer name -> sanitized first tensor name of its output port."""
    root = ET.fromstring(xml_text)
    names = {}
    for layer in root.find("layers"):
        if layer.get("type") == "Parameter":
            port = layer.find("output").find("port")
            tensor = split_names(port.get("names", ""))
            if not tensor:
                raise ValueError(f"parameter {layer.get('name')} has no tensor name")
            names[layer.get("name")] = safe_name(tensor[0])
    return names


def output_names(graph: ov.Model, xml_text: str) -> list[str]:
    """Output names in the order of graph.get_results()."""
    by_result = xml_output_names(xml_text)
    names = [by_result[r.get_friendly_name()] for r in graph.get_results()]
    if len(set(names)) != len(names):
        raise ValueError(f"output names are not unique: {names}")
    return names


# ---------------------------------------------------------------------------
# Model building helpers
# ---------------------------------------------------------------------------

FACTORY = NodeFactory("opset1")


def _out(x):
    return x if isinstance(x, ov.Output) else x.output(0)


def param(name: str, et: str, shape) -> ov.Node:
    pshape = ov.PartialShape(shape) if isinstance(shape, str) else ov.PartialShape(list(shape))
    p = ops.parameter(pshape, ov_type(et), name=name)
    p.output(0).set_names({name})
    return p


def const(values, et: str, name: str, shape=None) -> ov.Node:
    if et == "bf16":
        arr = np.asarray(values, dtype=np.float32)
        bits = (arr.view(np.uint32) >> 16).astype(np.uint16)
        t = ov.Tensor(ov.Type.bf16, ov.Shape(list(arr.shape)))
        np.copyto(np.asarray(t.data).view(np.uint16).reshape(arr.shape), bits)
        node = ov.op.Constant(t)
    else:
        arr = np.asarray(values, dtype=NP_DTYPE[et])
        if shape is not None:
            arr = arr.reshape(shape)
        if arr.size == 0:
            node = ov.op.Constant(ov_type(et), ov.Shape(list(arr.shape)), [])
        else:
            node = ops.constant(arr, dtype=ov_type(et))
    node.set_friendly_name(name)
    return node


def reverse(data, axes, mode: str, name: str = "reverse") -> ov.Node:
    node = FACTORY.create("Reverse", [_out(data), _out(axes)], {"mode": mode})
    node.set_friendly_name(name)
    return node


def reverse_sequence(data, lengths, batch_axis: int, seq_axis: int,
                     name: str = "reverse_sequence") -> ov.Node:
    return ops.reverse_sequence(_out(data), _out(lengths), batch_axis, seq_axis, name=name)


def convert(x, et: str, name: str = "convert") -> ov.Node:
    return ops.convert(_out(x), ov_type(et), name=name)


def model(outputs: dict, params: list, name: str) -> ov.Model:
    """`outputs` maps a tensor name to the node producing it."""
    results = []
    for tensor, node in outputs.items():
        _out(node).set_names({tensor})
        results.append(ops.result(_out(node), name=f"result_{tensor}" if len(outputs) > 1 else "result"))
    return ov.Model(results, params, name)


# ---------------------------------------------------------------------------
# Case descriptions
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class Case:
    name: str
    model: ov.Model
    inputs: dict[str, np.ndarray]
    compress: bool = False
    xml_edit: Optional[Callable[[str], str]] = None
    expected_error: Optional[str] = None
    no_check: Optional[str] = None       # reason to skip the CPU cross-check
    onnx: Optional[bytes] = None          # source ONNX model (converted at write time)


CASES: list[Case] = []


def add(name, m, inputs=None, **kw):
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name}")
    CASES.append(Case(name, m, dict(inputs or {}), **kw))


def arange(shape, et="f32"):
    return np.arange(int(np.prod(shape))).reshape(shape).astype(NP_DTYPE[et])


RNG = np.random.default_rng(20240611)


def rng_values(et: str, shape) -> np.ndarray:
    """Deterministic values that exercise the range of `et`."""
    n = int(np.prod(shape))
    dt = NP_DTYPE[et]
    if et == "boolean":
        v = RNG.integers(0, 2, n).astype(bool)
    elif et in INT_TYPES:
        info = np.iinfo(dt)
        v = RNG.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        v[:2] = [info.min, info.max]
    elif et == "f16":
        v = (RNG.standard_normal(n) * 1000).astype(np.float16)
        special = np.array([65504, -65504, 6e-8, -0.0, np.inf, -np.inf, 0.1], np.float16)
        v[: len(special)] = special[:n]
    elif et == "f32":
        v = (RNG.standard_normal(n) * 1e6).astype(np.float32)
        special = np.array([3.4028235e38, -1.1754944e-38, 1e-45, -0.0, np.inf, np.nan, 0.1], np.float32)
        v[: len(special)] = special[:n]
    elif et == "f64":
        v = RNG.standard_normal(n) * 1e200
        special = np.array([1.7976931348623157e308, 1 + 2.0 ** -40, 5e-324, -0.0, -np.inf, 0.1], np.float64)
        v[: len(special)] = special[:n]
    else:
        raise ValueError(et)
    return v.astype(dt).reshape(shape)


ALL_TYPES = ["boolean", "i8", "u8", "i16", "u16", "f16", "i32", "u32", "f32", "i64", "u64", "f64"]


def axes_tag(axes) -> str:
    return "none" if len(axes) == 0 else "_".join(str(a).replace("-", "m") for a in axes)


# --- Reverse ---------------------------------------------------------------


def reverse_cases():
    # index mode, every axis subset on the op_reference shapes
    subsets = {
        (8,): [(0,)],
        (4, 3): [(0,), (1,), (0, 1)],
        (2, 4, 3): [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)],
    }
    for shape, all_axes in subsets.items():
        rank = len(shape)
        for axes in all_axes:
            for axes_et in ("i64", "i32"):
                if axes_et == "i32" and rank != 3:
                    continue
                data_et = "f32" if axes_et == "i64" else "i32"
                d = param("data", data_et, shape)
                m = model({"out": reverse(d, const(axes, axes_et, "axes"), "index")}, [d],
                          f"reverse_r{rank}")
                add(f"reverse_index_r{rank}_{data_et}_axes_{axes_et}_{axes_tag(axes)}", m,
                    {"data": arange(shape, data_et)})

    # higher ranks
    for shape, axes in (((2, 3, 2, 4), (1, 3)), ((2, 1, 3, 2, 3), (0, 2, 4)),
                        ((2, 2, 1, 3, 2, 2), (0, 3, 5))):
        d = param("data", "f32", shape)
        m = model({"out": reverse(d, const(axes, "i64", "axes"), "index")}, [d], "reverse")
        add(f"reverse_index_r{len(shape)}_axes_{axes_tag(axes)}", m, {"data": arange(shape)})

    # mask mode
    for shape, mask in (((8,), [True]), ((4, 3), [False, True]), ((4, 3), [True, True]),
                        ((2, 4, 3), [True, False, True]), ((2, 4, 3), [False, True, False]),
                        ((2, 4, 3), [True, True, True]), ((2, 3, 2, 4), [False, True, True, False])):
        tag = "".join("t" if b else "f" for b in mask)
        d = param("data", "f32", shape)
        m = model({"out": reverse(d, const(mask, "boolean", "axes"), "mask")}, [d], "reverse_mask")
        add(f"reverse_mask_r{len(shape)}_{tag}", m, {"data": arange(shape)})

    d = param("data", "f32", (2, 4, 3))
    m = model({"out": reverse(d, const([False] * 3, "boolean", "axes"), "mask")}, [d], "reverse_mask")
    add("reverse_mask_all_false", m, {"data": arange((2, 4, 3))})

    # negative, duplicate and empty axes
    for axes, tag in (([-1], "neg_last"), ([-3, -2], "neg_two"), ([0, -3], "duplicate_0_m3"),
                      ([2, 2, -1], "duplicate_triple")):
        d = param("data", "f32", (2, 4, 3))
        m = model({"out": reverse(d, const(axes, "i64", "axes"), "index")}, [d], "reverse")
        add(f"reverse_axes_{tag}", m, {"data": arange((2, 4, 3))})

    d = param("data", "f32", (2, 4, 3))
    m = model({"out": reverse(d, const([], "i64", "axes"), "index")}, [d], "reverse_empty")
    add("reverse_axes_empty", m, {"data": arange((2, 4, 3))})

    # axes known at run time
    for shape, axes, pshape in (((2, 4, 3), [0, -1], "?"), ((4, 3), [1], "1"),
                                ((2, 4, 3), [], "?")):
        d = param("data", "f32", shape)
        a = param("axes", "i64", pshape)
        m = model({"out": reverse(d, a, "index")}, [d, a], "reverse_runtime_axes")
        tag = "empty" if not axes else axes_tag(axes)
        add(f"reverse_runtime_axes_r{len(shape)}_{tag}", m,
            {"data": arange(shape), "axes": np.array(axes, np.int64)},
            no_check=None if axes else "CPU plugin fails on empty run-time axes (ptr is Null)")

    # every element type
    for et in ALL_TYPES:
        shape = (3, 5)
        d = param("data", et, shape)
        m = model({"out": reverse(d, const([0, 1], "i64", "axes"), "index")}, [d], "reverse_types")
        add(f"reverse_type_{et}", m, {"data": rng_values(et, shape)})

    # every non-empty axis subset of ranks 4 to 6, one Reverse and Result each
    for shape in ((2, 3, 2, 3), (2, 3, 1, 2, 2), (2, 1, 3, 2, 2, 2)):
        rank = len(shape)
        d = param("data", "f32", shape)
        outs = {}
        for bits in range(1, 2 ** rank):
            axes = [a for a in range(rank) if bits >> a & 1]
            tag = axes_tag(axes)
            outs[f"axes_{tag}"] = reverse(d, const(axes, "i64", f"const_axes_{tag}"), "index",
                                          f"reverse_axes_{tag}")
        add(f"reverse_all_axis_subsets_r{rank}", model(outs, [d], f"reverse_all_r{rank}"),
            {"data": arange(shape)})

    # all 2^6 masks of rank 6, the all-false one included
    shape = (2, 1, 3, 2, 2, 2)
    d = param("data", "f32", shape)
    outs = {}
    for bits in range(2 ** len(shape)):
        mask = [bool(bits >> a & 1) for a in range(len(shape))]
        tag = "".join("1" if b else "0" for b in mask)
        outs[f"mask_{tag}"] = reverse(d, const(mask, "boolean", f"const_mask_{tag}"), "mask",
                                      f"reverse_mask_{tag}")
    add("reverse_all_masks_r6", model(outs, [d], "reverse_all_masks_r6"), {"data": arange(shape)})


# --- ReverseSequence -------------------------------------------------------


def rseq_case(name, shape, lengths, batch_axis, seq_axis, data_et="f32", lengths_et="i32",
              data=None, **kw):
    d = param("data", data_et, shape)
    ln = const(lengths, lengths_et, "lengths")
    m = model({"out": reverse_sequence(d, ln, batch_axis, seq_axis)}, [d], "reverse_sequence")
    add(name, m, {"data": arange(shape, data_et) if data is None else data}, **kw)


def reverse_sequence_cases():
    # OpenVINO op_reference shapes
    rseq_case("rseq_b1_s0_4x4", (4, 4), [4, 3, 2, 1], 1, 0)
    rseq_case("rseq_b2_s1_2x3x4x2", (2, 3, 4, 2), [1, 2, 1, 2], 2, 1)
    rseq_case("rseq_b0_s2_4x2x3x2x2", (4, 2, 3, 2, 2), [1, 2, 1, 2], 0, 2)

    # axis combinations on rank 3, negatives included
    shape = (3, 4, 5)
    for ba, sa in ((0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1), (-3, -1), (-1, -2), (0, -1)):
        bdim = shape[ba]
        sdim = shape[sa]
        lengths = [(i * 3 + 2) % (sdim + 1) for i in range(bdim)]
        tag = f"b{ba}_s{sa}".replace("-", "m")
        rseq_case(f"rseq_axes_{tag}", shape, lengths, ba, sa)

    # the lengths element types
    shape = (4, 5)
    rseq_case("rseq_lengths_i32", shape, [5, 2, 3, 1], 0, 1, lengths_et="i32")
    rseq_case("rseq_lengths_i64", shape, [5, 2, 3, 1], 0, 1, lengths_et="i64")
    rseq_case("rseq_lengths_f32_truncated", shape, [2.7, 4.99, 1.5, 5.0], 0, 1, lengths_et="f32")
    rseq_case("rseq_lengths_f16_truncated", shape, [3.5, 2.0, 4.75, 0.5], 0, 1, lengths_et="f16")
    rseq_case("rseq_lengths_u8", shape, [1, 5, 4, 2], 0, 1, lengths_et="u8")
    rseq_case("rseq_lengths_i8", shape, [3, 3, 5, 2], 0, 1, lengths_et="i8")
    rseq_case("rseq_lengths_u64", shape, [4, 1, 5, 3], 0, 1, lengths_et="u64")
    rseq_case("rseq_lengths_f64", shape, [2.999, 5.0, 1.0, 3.25], 0, 1, lengths_et="f64")
    rseq_case("rseq_lengths_bf16_const", shape, [2.5, 4.0, 5.0, 3.0], 0, 1, lengths_et="bf16")
    rseq_case("rseq_length_zero", shape, [0, 5, 0, 3], 0, 1)
    rseq_case("rseq_batch_equals_seq", (3, 3), [1, 0, 1], 0, 0)

    # lengths known at run time
    for et, lengths in (("i32", [3, 1, 5, 0]), ("i64", [5, 5, 2, 4])):
        d = param("data", "f32", shape)
        ln = param("lengths", et, (4,))
        m = model({"out": reverse_sequence(d, ln, 0, 1)}, [d, ln], "reverse_sequence")
        add(f"rseq_runtime_lengths_{et}", m,
            {"data": arange(shape), "lengths": np.array(lengths, NP_DTYPE[et])})

    # every element type
    for et in ALL_TYPES:
        shape = (4, 6)
        rseq_case(f"rseq_type_{et}", shape, [6, 2, 5, 3], 0, 1, data_et=et,
                  data=rng_values(et, shape))

    # every ordered (batch_axis, seq_axis) pair of ranks 2 to 6, plus one
    # pair written with negative axes, one ReverseSequence and Result each
    for shape in ((3, 4), (2, 3, 4), (3, 2, 1, 4), (2, 3, 1, 2, 3), (2, 1, 3, 2, 2, 2)):
        rank = len(shape)
        pairs = [(ba, sa) for ba in range(rank) for sa in range(rank) if ba != sa]
        pairs.append((-1, -rank))
        d = param("data", "f32", shape)
        outs = {}
        for ba, sa in pairs:
            tag = f"b{ba}_s{sa}".replace("-", "m")
            outs[tag] = reverse_sequence(d, const(all_lengths(shape[ba], shape[sa]), "i32",
                                                  f"lengths_{tag}"),
                                         ba, sa, f"reverse_sequence_{tag}")
        add(f"rseq_all_axis_pairs_r{rank}", model(outs, [d], f"rseq_all_r{rank}"),
            {"data": arange(shape)})


def all_lengths(batch: int, seq: int) -> list[int]:
    """Lengths in [0, seq]: the full length first, then 0, then a walk over
    the values in between."""
    return [seq if i == 0 else 0 if i == 1 else (seq - i + 1) % (seq + 1) for i in range(batch)]


# --- Convert ---------------------------------------------------------------


def convert_case(name, src, dst, values, shape=None):
    values = np.asarray(values, NP_DTYPE[src])
    shape = shape or values.shape
    p = param("data", src, shape)
    m = model({"out": convert(p, dst)}, [p], "convert")
    add(name, m, {"data": values.reshape(shape)})


def convert_cases():
    # 2049 and 4097 lie between f16 neighbours: ties go to the even one.
    convert_case("convert_f32_to_f16", "f32", "f16",
                 [2049.0, 2051.0, 4097.0, 1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 65519.0, 65520.0,
                  -0.0, 1e-8, 6.1e-5, -2.5, 0.1], (3, 4))
    convert_case("convert_f32_to_i32", "f32", "i32",
                 [-2.9, -2.5, -0.7, -0.0, 0.4, 1.5, 2.5, 2.9999, 1e9, -2.147483e9, 123456.78, -7.0],
                 (2, 6))
    convert_case("convert_i32_to_f32", "i32", "f32",
                 [0, -1, 16777216, 16777217, 16777219, -2147483648, 2147483647, 123456789],
                 (2, 4))
    convert_case("convert_u8_to_boolean", "u8", "boolean", [0, 1, 2, 255, 0, 128], (2, 3))
    convert_case("convert_boolean_to_f32", "boolean", "f32", [True, False, True, True], (4,))
    convert_case("convert_f64_to_f32", "f64", "f32",
                 [0.1, 1 + 2 ** -30, -1e30, 3.0e38, 1e-40, -0.0, 2.0 ** 24 + 1, np.pi], (2, 4))
    convert_case("convert_i64_to_i32", "i64", "i32",
                 [0, -1, 2147483647, -2147483648, 123456789, -987654321], (3, 2))
    convert_case("convert_f16_to_f32", "f16", "f32",
                 [65504, -65504, 6e-8, 0.1, -0.0, np.inf, 1.5, -3.25], (2, 4))
    convert_case("convert_i8_to_u8", "i8", "u8", [-128, -1, 0, 1, 127, -2], (6,))
    convert_case("convert_f32_to_boolean", "f32", "boolean", [0.0, -0.0, 0.5, -3.0, np.inf, 1e-30], (6,))

    # bf16 constant inside the graph
    c = const([1.5, -2.25, 3.0e38, 1.0 / 3.0, 0.0, -7.0], "bf16", "values")
    m = model({"out": reverse(convert(c, "f32"), const([0], "i64", "axes"), "index")}, [],
              "bf16_const")
    add("convert_bf16_const_to_f32_reverse", m)

    # Const(f32) compressed to f16 by save_model -> Convert(f32)
    vals = np.linspace(-3.3, 7.7, 24, dtype=np.float32).reshape(2, 3, 4)
    c = const(vals, "f32", "weights")
    m = model({"out": reverse(c, const([1, 2], "i64", "axes"), "index")}, [], "compressed")
    add("compressed_f16_const_reverse", m, compress=True)

    c = const(vals, "f32", "weights")
    a = param("axes", "i64", "?")
    m = model({"out": reverse(c, a, "index")}, [a], "compressed")
    add("compressed_f16_const_reverse_runtime_axes", m, {"axes": np.array([-1, 0], np.int64)},
        compress=True)

    c = const(vals.reshape(4, 6), "f32", "weights")
    ln = param("lengths", "i32", (4,))
    m = model({"out": reverse_sequence(c, ln, 0, 1)}, [ln], "compressed")
    add("compressed_f16_const_rseq", m, {"lengths": np.array([6, 0, 3, 2], np.int32)},
        compress=True)


# --- Dynamic shapes and graph structure ------------------------------------


def structure_cases():
    d = param("data", "f32", "?,3,4")
    m = model({"out": reverse_sequence(d, const([3, 1], "i32", "lengths"), 0, 1)}, [d], "dyn")
    add("dynamic_rseq_batch_dim", m, {"data": arange((2, 3, 4))})

    d = param("data", "f32", "1..5,4")
    m = model({"out": reverse_sequence(d, const([4, 2, 3], "i64", "lengths"), 0, 1)}, [d], "dyn")
    add("interval_rseq_1_5x4", m, {"data": arange((3, 4))})

    d = param("data", "f32", "2,?")
    m = model({"out": reverse(d, const([1], "i64", "axes"), "index")}, [d], "dyn")
    add("dynamic_reverse_2xq", m, {"data": arange((2, 7))})

    d = param("data", "i32", "1..5,?,2..")
    m = model({"out": reverse(d, const([True, False, True], "boolean", "axes"), "mask")}, [d], "dyn")
    add("interval_reverse_mask", m, {"data": arange((3, 2, 4), "i32")})

    d = param("data", "f32", "?,?")
    ln = param("lengths", "i32", "?")
    m = model({"out": reverse_sequence(d, ln, 1, 0)}, [d, ln], "dyn")
    add("dynamic_rseq_runtime_lengths", m,
        {"data": arange((5, 3)), "lengths": np.array([5, 2, 4], np.int32)})

    d = param("data", "f32", "...")
    m = model({"out": reverse(d, const([0], "i64", "axes"), "index")}, [d], "dyn")
    add("dynamic_rank_reverse", m, {"data": arange((3, 2, 2))},
        no_check="CPU plugin does not support dynamic-rank Parameters")

    # fan-out: one Parameter, two Reverse ops, two Results
    d = param("data", "f32", (2, 4, 3))
    r0 = reverse(d, const([0], "i64", "axes0"), "index", "reverse0")
    r1 = reverse(d, const([True, False, True], "boolean", "axes1"), "mask", "reverse1")
    m = model({"out0": r0, "out1": r1}, [d], "fan_out")
    add("fanout_two_reverse_two_results", m, {"data": arange((2, 4, 3))})

    # chain Reverse -> ReverseSequence -> Reverse, intermediate output too
    d = param("data", "i16", (3, 4))
    a = reverse(d, const([1], "i32", "axes_a"), "index", "reverse_a")
    b = reverse_sequence(a, const([2, 4, 3], "i32", "lengths"), 0, 1)
    c = reverse(b, const([0], "i64", "axes_c"), "index", "reverse_c")
    m = model({"out": c}, [d], "chain")
    add("chain_reverse_rseq_reverse", m, {"data": arange((3, 4), "i16")})

    d = param("data", "f32", (3, 4))
    a = reverse(d, const([-1], "i64", "axes_a"), "index", "reverse_a")
    b = reverse_sequence(a, const([1, 4, 2], "i64", "lengths"), 0, 1)
    m = model({"mid": a, "out": b}, [d], "chain_two_outputs")
    add("chain_with_intermediate_output", m, {"data": arange((3, 4))})

    d = param("data", "u8", (2, 5))
    c = convert(d, "f32")
    m = model({"out": reverse(c, const([1], "i64", "axes"), "index")}, [d], "convert_chain")
    add("chain_convert_reverse", m, {"data": np.array([[0, 1, 2, 254, 255], [7, 8, 9, 10, 11]], np.uint8)})

    d = param("data", "f16", (3, 4))
    r = reverse_sequence(d, const([4, 0, 2], "i32", "lengths"), 0, 1)
    m = model({"out": convert(r, "f32")}, [d], "rseq_convert")
    add("chain_rseq_convert", m, {"data": rng_values("f16", (3, 4))})

    # two Parameters feeding two independent outputs
    x = param("x", "i8", (4,))
    y = param("y", "f32", (2, 3))
    m = model({"rx": reverse(x, const([0], "i64", "axes_x"), "index", "reverse_x"),
               "ry": reverse_sequence(y, const([3, 2], "u8", "lengths_y"), 0, 1)}, [x, y], "two_inputs")
    add("two_inputs_two_outputs", m, {"x": np.array([-128, -1, 5, 127], np.int8), "y": arange((2, 3))})

    # IR version 10 header
    d = param("data", "f32", (2, 4, 3))
    m = model({"out": reverse(d, const([0, 2], "i64", "axes"), "index")}, [d], "ir_v10")
    add("ir_v10_reverse", m, {"data": arange((2, 4, 3))}, xml_edit=to_ir_v10)

    d = param("data", "i32", (4, 3))
    m = model({"out": reverse_sequence(d, const([3, 1, 2, 0], "i32", "lengths"), 0, 1)}, [d], "ir_v10")
    add("ir_v10_rseq", m, {"data": arange((4, 3), "i32")}, xml_edit=to_ir_v10)


def to_ir_v10(xml: str) -> str:
    return sub_once(xml, 'version="11">', 'version="10">')


# --- ONNX ReverseSequence --------------------------------------------------


def onnx_rseq_model(batch_axis: int, time_axis: int, shape) -> bytes:
    import onnx
    from onnx import TensorProto, helper

    batch = shape[batch_axis]
    node = helper.make_node("ReverseSequence", ["x", "sequence_lens"], ["y"],
                            batch_axis=batch_axis, time_axis=time_axis, name="reverse_sequence")
    graph = helper.make_graph(
        [node], "rseq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape)),
         helper.make_tensor_value_info("sequence_lens", TensorProto.INT64, [batch])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="gen_samples")
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


def onnx_cases():
    shape = (4, 4)
    add("onnx_rseq_time_major", None,
        {"x": arange(shape), "sequence_lens": np.array([4, 3, 2, 1], np.int64)},
        onnx=onnx_rseq_model(1, 0, shape))
    shape = (4, 3, 2)
    add("onnx_rseq_batch_major", None,
        {"x": arange(shape), "sequence_lens": np.array([1, 2, 3, 0], np.int64)},
        onnx=onnx_rseq_model(0, 1, shape))


def onnx_node_test_cases():
    """The ReverseSequence node tests that ship with the onnx package, as
    their own models and data."""
    import warnings

    from onnx.backend.test.case.node import collect_testcases

    # Collecting imports every node test, some of which warn about their
    # own data.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = collect_testcases("ReverseSequence")
    for case in cases:
        # The bfloat16 variant has data that .npy files cannot hold.
        if case.name not in ("test_reversesequence_time", "test_reversesequence_batch"):
            continue
        (inputs, _outputs), = case.data_sets
        names = [i.name for i in case.model.graph.input]
        feeds = {n: np.asarray(v) for n, v in zip(names, inputs)}
        add("onnx_node_" + case.name[len("test_"):], None, feeds, onnx=case.model.SerializeToString())


# --- TensorFlow and Keras ----------------------------------------------------


def tf_model(fn, signature) -> ov.Model:
    """A TensorFlow function converted by OpenVINO's TensorFlow front end."""
    import tensorflow as tf

    m = ov.convert_model(tf.function(fn, input_signature=signature))
    # TensorFlow may suffix argument names (`x_0`); the inputs keep the
    # names of their specs, in order.
    for p, spec in zip(m.get_parameters(), signature):
        p.output(0).set_names({spec.name})
        p.set_friendly_name(spec.name)
    stable_names(m)
    return m


def tf_cases():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    # tf.reverse on one axis: the front end builds the sequence lengths from
    # ShapeOf, Gather and Broadcast, and adds Unsqueeze and Squeeze around
    # ReverseSequence for the first and the last axis.
    for tag, axis, shape, spec in (("axis0", 0, (3, 2, 4), [None, 2, 4]),
                                   ("axis1", 1, (2, 5, 3), [None, None, 3]),
                                   ("axis_m1", -1, (2, 3, 4), [None, 3, None]),
                                   ("axis1_static", 1, (2, 5, 3), [2, 5, 3])):
        m = tf_model(lambda x, axis=axis: tf.reverse(x, axis=[axis]),
                     [tf.TensorSpec(spec, tf.float32, name="x")])
        add(f"tf_reverse_{tag}", m, {"x": arange(shape)})

    # tf.reverse_sequence with run-time lengths of either integer type.
    for et, dtype in (("i32", tf.int32), ("i64", tf.int64)):
        m = tf_model(lambda x, lengths: tf.reverse_sequence(x, lengths, seq_axis=1, batch_axis=0),
                     [tf.TensorSpec([None, None, 2], tf.float32, name="x"),
                      tf.TensorSpec([None], dtype, name="lengths")])
        add(f"tf_reverse_sequence_{et}", m,
            {"x": arange((4, 5, 2)), "lengths": np.array([5, 0, 3, 1], NP_DTYPE[et])})

    # The merge step of a Keras bidirectional layer: the backward direction
    # sees the sequence reversed in time, and the two directions are joined
    # on the feature axis (merge_mode="concat"). A real recurrent layer
    # converts to recurrent ops, so the step is taken on its own.
    import keras

    inp = keras.Input(shape=(None, 3), name="x")
    backward = keras.layers.Lambda(lambda t: keras.ops.flip(t, axis=1), name="backward")(inp)
    out = keras.layers.Concatenate(axis=-1, name="merge")([inp, backward])
    km = keras.Model(inp, out)
    m = tf_model(lambda x: km(x), [tf.TensorSpec([None, None, 3], tf.float32, name="x")])
    add("keras_bidirectional_merge", m, {"x": arange((2, 4, 3))})


def torch_cases():
    """torch.flip converted by OpenVINO's PyTorch front end (a Slice with
    step -1 along each flipped axis), when torch is installed."""
    try:
        import torch
    except ImportError:
        print("torch is not installed: no torch.flip samples")
        return

    class Flip(torch.nn.Module):
        def __init__(self, dims):
            super().__init__()
            self.dims = dims

        def forward(self, x):
            return torch.flip(x, self.dims)

    for tag, dims, shape in (("dim0", [0], (3, 4)), ("dims_0_m1", [0, -1], (2, 3, 4)),
                             ("dim1_dynamic", [1], (2, 5, 3))):
        dynamic = tag.endswith("dynamic")
        example = torch.from_numpy(arange(shape))
        m = ov.convert_model(Flip(dims), example_input=example,
                             input=[ov.PartialShape([-1] * len(shape) if dynamic else list(shape))])
        p = m.get_parameters()[0]
        p.output(0).set_names({"x"})
        p.set_friendly_name("x")
        m.output(0).get_tensor().set_names({"out"})
        stable_names(m)
        add(f"torch_flip_{tag}", m, {"x": arange(shape)})


# --- Strings, sub-byte types and 8-bit floats ------------------------------

# Its own generator, so that these cases leave the values of the others alone.
SUBBYTE_RNG = np.random.default_rng(20260401)


def code_const(codes: np.ndarray, et: str, name: str) -> ov.Node:
    """A Constant of a packed or 8-bit float type holding `codes` (one per
    element, as the .npy files carry them)."""
    codes = np.asarray(codes)
    t = ov.Tensor(ov_type(et), ov.Shape(list(codes.shape)))
    raw = np.asarray(t.data).view(np.uint8).reshape(-1)
    packed = pack_codes(codes, et) if et in PACKED_BITS else codes.astype(np.uint8).tobytes()
    raw[:] = np.frombuffer(packed, np.uint8)
    if et in PACKED_BITS and et not in ("nf4", "f4e2m1"):
        # OpenVINO packs integer values itself: its bytes pin the order that
        # pack_codes follows.
        own = ov.op.Constant(ov_type(et), ov.Shape(list(codes.shape)), codes.reshape(-1).tolist())
        own_bytes = np.asarray(own.get_data()).view(np.uint8).tobytes()
        if own_bytes != packed:
            raise ValueError(f"{et}: packing differs from OpenVINO's: {own_bytes.hex()} != {packed.hex()}")
    node = ov.op.Constant(t)
    node.set_friendly_name(name)
    return node


def random_codes(et: str, shape) -> np.ndarray:
    """Every code of `et` in turn, then random ones."""
    n = int(np.prod(shape))
    if et == "i4":
        low, high = -8, 7
    else:
        low, high = 0, (1 << PACKED_BITS.get(et, 8)) - 1
    v = SUBBYTE_RNG.integers(low, high, n, endpoint=True)
    first = np.arange(low, high + 1)[:n]
    v[: len(first)] = first
    return v.astype(NP_DTYPE[et]).reshape(shape)


# Measured with OpenVINO 2026.4.1: string Reverse computes the right values,
# but the process then dies in the allocator, which would take the generator
# with it.
STRING_CRASH = "the CPU plugin aborts the process (free(): invalid pointer) after a string Reverse"

WORDS = ["", "a", "bé", "日本語", "🙂x", "tab\tnew\nline", "naïve", "Ω", "longer words here", "z"]


def strings(shape) -> np.ndarray:
    n = int(np.prod(shape))
    return np.array([WORDS[(i * 7 + 3) % len(WORDS)] + ("" if i % 3 else str(i)) for i in range(n)],
                    dtype=str).reshape(shape)


def string_const(values: np.ndarray, name: str) -> ov.Node:
    node = ov.op.Constant(ov.Tensor(np.asarray(values, dtype=str)))
    node.set_friendly_name(name)
    return node


def subbyte_and_string_cases():
    # Consts of every packed type and 8-bit float, reversed along rows that
    # cross byte boundaries (7 elements), so elements move inside bytes.
    shape = (3, 7)
    for et in [*PACKED_BITS, *F8_TYPES]:
        data = code_const(random_codes(et, shape), et, "data")
        axes = const([1], "i64", "axes")
        add(f"reverse_type_{et}", model({"out": reverse(data, axes, "index")}, [], "reverse"))
    # A mask over both axes on the split layout, whose groups span rows.
    data = code_const(random_codes("u3", (5, 3)), "u3", "data")
    add("reverse_type_u3_both_axes",
        model({"out": reverse(data, const([True, True], "boolean", "mask"), "mask")}, [], "reverse"))

    # ReverseSequence on packed and 8-bit float Consts.
    for et in ("u1", "u2", "u3", "u4", "u6", "i4", "nf4", "f4e2m1", "f8e5m2"):
        data = code_const(random_codes(et, (4, 6)), et, "data")
        lengths = const([6, 2, 0, 5], "i32", "lengths")
        add(f"rseq_type_{et}", model({"out": reverse_sequence(data, lengths, 0, 1)}, [], "reverse_sequence"))

    # Packed Parameters, fed unpacked from u8 (i8 for i4) .npy files.
    for et, op in (("u4", "rseq"), ("i4", "reverse"), ("u3", "rseq"), ("u1", "reverse")):
        shape = (4, 5)
        d = param("data", et, shape)
        if op == "rseq":
            out = reverse_sequence(d, const([5, 3, 0, 4], "i32", "lengths"), 0, 1)
        else:
            out = reverse(d, const([1], "i64", "axes"), "index")
        add(f"{op}_param_{et}", model({"out": out}, [d], op), {"data": random_codes(et, shape)},
            no_check=f"CPU reverses {et} data byte by byte, not element by element")

    # Strings: Consts (OpenVINO's packed string format in model.bin) and
    # Parameters fed from <U .npy files.
    sc = string_const(strings((2, 3)), "strings")
    add("reverse_string_const",
        model({"out": reverse(sc, const([0, 1], "i64", "axes"), "index")}, [], "reverse"),
        no_check=STRING_CRASH)
    sc = string_const(strings((3, 4)), "strings")
    add("rseq_string_const",
        model({"out": reverse_sequence(sc, const([4, 0, 2], "i32", "lengths"), 0, 1)}, [], "reverse_sequence"))
    d = param("text", "string", (3, 4))
    add("reverse_string_param",
        model({"out": reverse(d, const([1], "i64", "axes"), "index")}, [d], "reverse"),
        {"text": strings((3, 4))}, no_check=STRING_CRASH)
    d = param("text", "string", (4, 3))
    add("rseq_string_param",
        model({"out": reverse_sequence(d, const([4, 0, 3], "i64", "lengths"), 1, 0)}, [d], "reverse_sequence"),
        {"text": strings((4, 3))[:, ::-1].copy()})


# --- Convert on the packed types and the small float formats ---------------

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


def convert_coded_cases():
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
        add(f"convert_const_{et}", model(outs, [], "compressed"),
            no_check=CPU_E8M0_FLUSH if et == "f8e8m0" else None)

    # f32 and f16 Parameters converted to the small floats and the packed
    # integers: edge values (ties, overflow, subnormals, NaN, infinities).
    edges = small.edges()
    slip = np.isin(edges.view(np.uint32), list(SLIP_BITS))
    for et in ("f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1"):
        convert_case(f"convert_f32_to_{et}", "f32", et, edges[~slip] if et == "f8e5m2" else edges)
    p = param("data", "f32", (int(slip.sum()),))
    add("convert_f32_to_f8e5m2_f16_subnormals", model({"out": convert(p, "f8e5m2")}, [p], "convert"),
        {"data": edges[slip]}, no_check=F16_SLIP)
    convert_case("convert_f16_to_nf4", "f16", "nf4", small.nf4_inputs())
    reals = np.array([0.0, -0.0, 0.7, -0.7, 1.5, -1.5, 2.5, 3.9, -3.9, 5.0, 6.99, 7.5, -8.5, 15.9, 0.2, 1.0],
                     np.float32)
    for et, (lo, hi) in PACKED_INTS.items():
        values = reals[(np.trunc(reals) >= lo) & (np.trunc(reals) <= hi)]
        reason = {"u1": CPU_NO_U1_OUTPUT, "u3": CPU_NO_SPLIT_OUTPUT, "u6": CPU_NO_SPLIT_OUTPUT}.get(et)
        p = param("data", "f32", values.shape)
        add(f"convert_f32_to_{et}", model({"out": convert(p, et)}, [p], "convert"), {"data": values},
            no_check=reason)
    # Every f16 to both 8-bit floats.
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16).reshape(256, 256)
    for et in ("f8e4m3", "f8e5m2"):
        p = param("data", "f16", every.shape)
        add(f"convert_f16_every_value_to_{et}", model({"out": convert(p, et)}, [p], "convert"), {"data": every},
            no_check=CPU_QUIETS_NAN if et == "f8e5m2" else None)

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
        add(f"chain_{et}_const_{op}_to_every_type", model(outs, [], "chain"),
            no_check=f"CPU reverses {et} data byte by byte, not element by element" if et in PACKED_BITS else None)


# Every pair of element types that OpenVINO's reference Convert defines: one
# case per source type, its values converted to each target it may take.
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


def convert_every_pair_cases():
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
            else:
                data, params, feeds = code_const(values, src, "data"), [], {}
        else:
            data = param("data", src, values.shape)
            params, feeds = [data], {"data": values}
        outs = {}
        for dst in defined_targets(src):
            c = convert(data, dst, f"to_{dst}")
            outs[f"out_{dst}"] = convert(c, "f32", f"{dst}_to_f32") if dst == "bf16" else c
        add(f"convert_every_pair_from_{src}", model(outs, params, "convert"), feeds, no_check=CPU_EVERY_PAIR)


# --- ReverseSubsequences (an ovir extension) --------------------------------

# DirectML's DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC, which ovir reads as
# type="ReverseSubsequences" version="ovir". OpenVINO cannot serialize an op
# it does not know, so each case is a ReverseSequence written by OpenVINO
# and then edited into a ReverseSubsequences; the expected outputs come
# from the NumPy reference below, with no CPU cross-check.


def ref_reverse_subsequences(data: np.ndarray, lengths: np.ndarray, axis: int) -> np.ndarray:
    """Every line along `axis` reverses its first `length` elements; lengths
    above the axis size count as that size, 0 and 1 reverse nothing."""
    rank = data.ndim
    if not 1 <= rank <= 8:
        raise RefError(f"data rank {rank} is not between 1 and 8")
    if not -rank <= axis < rank:
        raise RefError(f"axis {axis} out of range for rank {rank}")
    axis %= rank
    want = tuple(1 if i == axis else d for i, d in enumerate(data.shape))
    if lengths.shape != want:
        raise RefError(f"lengths shape {lengths.shape} is not {want}")
    if lengths.dtype.kind == "i" and (lengths < 0).any():
        raise RefError("a length is negative")
    size = data.shape[axis]
    out = data.copy()
    for line in np.ndindex(*want):
        n = min(int(lengths[line]), size)
        for k in range(n):
            dst = list(line)
            src = list(line)
            dst[axis] = k
            src[axis] = n - 1 - k
            out[tuple(dst)] = data[tuple(src)]
    return out


@dataclasses.dataclass
class SubsequencesCase:
    name: str
    data: np.ndarray
    data_et: str
    lengths: np.ndarray
    lengths_et: str
    axis: int
    lengths_input: bool = False   # lengths as a model input instead of a Const


SUBSEQUENCES: list[SubsequencesCase] = []


def subsequences_xml(data_shape, data_et: str, lengths_shape, lengths_et: str, axis: int,
                     lengths_input: bool) -> str:
    """A ReverseSequence over data of `data_shape`, written by OpenVINO and
    edited into ReverseSubsequences with lengths of `lengths_shape`."""
    rank = len(data_shape)
    batch = (axis % rank + 1) % rank
    d = param("data", data_et, data_shape)
    if lengths_input:
        ln = param("lengths", lengths_et, (data_shape[batch],))
        params = [d, ln]
    else:
        ln = const(np.zeros(data_shape[batch]), lengths_et, "lengths")
        params = [d]
    xml, _ = serialize_text(model({"out": reverse_sequence(d, ln, batch, axis)}, params, "reverse_subsequences"))
    shape_text = ",".join(str(v) for v in lengths_shape)
    count = int(np.prod(lengths_shape))
    xml = set_attr(xml, "lengths", "shape", shape_text)
    if not lengths_input:
        xml = set_attr(xml, "lengths", "size", str(count * np.dtype(NP_DTYPE[lengths_et]).itemsize))
    xml = set_port_dims(xml, "lengths", 0, lengths_shape)
    xml = set_port_dims(xml, "reverse_sequence", 1, lengths_shape)
    xml = edit_layer(xml, "reverse_sequence", lambda b: sub_once(
        resub_once(b, r'<data batch_axis="[^"]*" seq_axis="[^"]*"\s*/>', f'<data axis="{axis}" />'),
        'type="ReverseSequence" version="opset1"', 'type="ReverseSubsequences" version="ovir"'))
    return sub_once(xml, 'name="reverse_sequence"', 'name="reverse_subsequences"')


def subsequences_case(name, data, data_et, lengths, lengths_et, axis, lengths_input=False):
    if any(c.name == name for c in SUBSEQUENCES) or any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name}")
    lengths = np.asarray(lengths, dtype=NP_DTYPE[lengths_et])
    SUBSEQUENCES.append(SubsequencesCase(name, data, data_et, lengths, lengths_et, axis, lengths_input))


def reverse_subsequences_cases():
    # The two worked examples of DirectML's documentation, exactly.
    example = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)
    subsequences_case("reverse_subsequences_dml_example1", example, "f32",
                      np.array([2, 4, 3]).reshape(1, 1, 3, 1), "u32", 3)
    subsequences_case("reverse_subsequences_dml_example2", example, "f32",
                      np.array([2, 3, 1, 0]).reshape(1, 1, 1, 4), "u32", 2)
    # Lengths above the axis size are clamped; 0 and 1 reverse nothing.
    # The lengths arrive at run time here, as u64 (DirectML's other type).
    data = arange((2, 5, 3), "i16")
    subsequences_case("reverse_subsequences_clamped", data, "i16",
                      np.array([[7, 0, 5], [1, 2, 100]]).reshape(2, 1, 3), "u64", -2, lengths_input=True)


def write_subsequences(case: SubsequencesCase, report: "Report"):
    case_dir = OUT_DIR / case.name
    case_dir.mkdir(parents=True)
    xml = subsequences_xml(case.data.shape, case.data_et, case.lengths.shape, case.lengths_et, case.axis,
                           case.lengths_input)
    (case_dir / "model.xml").write_text(xml)
    save_npy(case_dir / "in" / "data.npy", case.data)
    if case.lengths_input:
        save_npy(case_dir / "in" / "lengths.npy", case.lengths)
    else:
        little = case.lengths.astype(case.lengths.dtype.newbyteorder("<"))
        (case_dir / "model.bin").write_bytes(np.ascontiguousarray(little).tobytes())
    expected = ref_reverse_subsequences(case.data, case.lengths, case.axis)
    save_npy(case_dir / "expected" / "out.npy", expected)
    report.valid.append(case.name)
    report.skipped.append((case.name, "OpenVINO has no ReverseSubsequences (an ovir extension)"))


def subsequences_bad_cases():
    # The lengths must have the data's shape with 1 at the axis: here the
    # axis dimension is 2.
    xml = subsequences_xml((1, 1, 3, 4), "f32", (1, 1, 3, 2), "u32", 3, lengths_input=False)
    bad("reverse_subsequences_lengths_shape", xml, np.arange(6, dtype="<u4").tobytes(),
        "the lengths must have the data's shape with 1 at axis 3")


# --- Valid IR, refused at run time ------------------------------------------


def runtime_error_cases():
    shape = (4, 5)
    for name, lengths, phrase in (("rseq_runtime_length_above_dim", [2, 6, 1, 3], "length"),
                                  ("rseq_runtime_length_negative", [2, -1, 1, 3], "length")):
        d = param("data", "f32", shape)
        ln = param("lengths", "i32", (4,))
        m = model({"out": reverse_sequence(d, ln, 0, 1)}, [d, ln], "rseq_bad_lengths")
        add(name, m, {"data": arange(shape), "lengths": np.array(lengths, np.int32)},
            expected_error=phrase)

    d = param("data", "f32", shape)
    ln = param("lengths", "f32", (4,))
    m = model({"out": reverse_sequence(d, ln, 0, 1)}, [d, ln], "rseq_bad_lengths")
    add("rseq_runtime_length_float_above_dim", m,
        {"data": arange(shape), "lengths": np.array([1.0, 5.5, 6.25, 2.0], np.float32)},
        expected_error="length")

    for name, axes in (("reverse_runtime_axis_out_of_range", [0, 3]),
                       ("reverse_runtime_axis_negative_out_of_range", [-4])):
        d = param("data", "f32", (2, 4, 3))
        a = param("axes", "i64", "?")
        m = model({"out": reverse(d, a, "index")}, [d, a], "reverse_bad_axes")
        add(name, m, {"data": arange((2, 4, 3)), "axes": np.array(axes, np.int64)},
            expected_error="out of bounds")


# ---------------------------------------------------------------------------
# Writing valid cases
# ---------------------------------------------------------------------------

CORE = ov.Core()


def tight_strings(arr: np.ndarray) -> np.ndarray:
    """A unicode array as wide as its longest string (at least 1), the
    width ovir writes."""
    width = max([len(s) for s in arr.reshape(-1).tolist()] + [1])
    return arr.astype(f"<U{width}")


def save_npy(path: Path, arr: np.ndarray):
    arr = np.ascontiguousarray(arr)
    if arr.dtype.kind == "U":
        arr = tight_strings(arr)
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, arr, allow_pickle=False)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def run_cpu(m: ov.Model, inputs: dict[str, np.ndarray], out_names: list[str]) -> dict[str, np.ndarray]:
    compiled = CORE.compile_model(m, "CPU")
    request = compiled.create_infer_request()
    feeds = {}
    for inp in compiled.inputs:
        name = next(n for n in inputs if n in inp.get_names())
        et, codes = type_name(inp.get_element_type()), inputs[name]
        if et in PACKED_BITS or et in F8_TYPES:
            # Codes, one per element: lay them out as OpenVINO does.
            t = ov.Tensor(ov_type(et), ov.Shape(list(codes.shape)))
            raw = pack_codes(codes, et) if et in PACKED_BITS else codes.astype(np.uint8).tobytes()
            np.asarray(t.data).view(np.uint8).reshape(-1)[:] = np.frombuffer(raw, np.uint8)
            feeds[name] = t
        else:
            feeds[name] = codes
    request.infer(feeds)
    out = {}
    for name, o in zip(out_names, compiled.outputs):
        t = request.get_tensor(o)
        et = type_name(t.get_element_type())
        if t.get_element_type() == ov.Type.string:
            out[name] = tight_strings(np.array(t.str_data, dtype=str))
        elif et in PACKED_BITS:
            raw = np.asarray(t.data).view(np.uint8).tobytes()
            out[name] = unpack_codes(raw, et, int(np.prod(list(t.shape)))).reshape(tuple(t.shape))
        elif et in F8_TYPES:
            out[name] = np.asarray(t.data).view(np.uint8).reshape(tuple(t.shape)).copy()
        else:
            out[name] = np.array(t.data)
    return out


def tidy_bin(case_dir: Path):
    xml = (case_dir / "model.xml").read_text()
    bin_path = case_dir / "model.bin"
    if bin_path.exists() and bin_path.stat().st_size == 0 and 'type="Const"' not in xml:
        bin_path.unlink()


def stable_names(m: ov.Model):
    """Renumber the names the converter makes up from a process-wide counter
    (e.g. `Convert_612980`), so they do not shift when cases are added."""
    for i, node in enumerate(m.get_ordered_ops()):
        kind = node.get_type_name()
        if re.fullmatch(r"%s_\d+" % re.escape(kind), node.get_friendly_name()):
            node.set_friendly_name(f"{kind}_{i}")


def write_valid(case: Case, report: "Report"):
    case_dir = OUT_DIR / case.name
    case_dir.mkdir(parents=True)
    xml_path = case_dir / "model.xml"

    if case.onnx is not None:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / f"{case.name}.onnx"
            src.write_bytes(case.onnx)
            case.model = ov.convert_model(str(src))
        stable_names(case.model)
    ov.save_model(case.model, str(xml_path), compress_to_fp16=case.compress)
    if case.xml_edit is not None:
        xml_path.write_text(case.xml_edit(xml_path.read_text()))
    tidy_bin(case_dir)

    # The reference runs on the graph read back from the written files, so
    # the expected values reflect exactly what model.xml/model.bin hold
    # (e.g. constants compressed to f16).
    graph = CORE.read_model(str(xml_path))
    out_names = output_names(graph, xml_path.read_text())

    # model inputs and the files holding them
    feeds = {}
    in_names = xml_input_names(xml_path.read_text())
    for p in graph.get_parameters():
        name = in_names[p.get_friendly_name()]
        if name not in case.inputs:
            raise ValueError(f"{case.name}: no data for input {name}")
        if name not in p.output(0).get_names():
            raise ValueError(f"{case.name}: input {name} is not a tensor name of its Parameter")
        feeds[name] = case.inputs[name]
        save_npy(case_dir / "in" / f"{name}.npy", case.inputs[name])
    extra = set(case.inputs) - set(feeds)
    if extra:
        raise ValueError(f"{case.name}: data for unknown inputs {extra}")

    try:
        expected, caveats = evaluate(graph, feeds, out_names)
        ref_error = None
    except RefError as e:
        expected, caveats, ref_error = None, {}, str(e)

    if case.expected_error is not None:
        if ref_error is None:
            raise ValueError(f"{case.name}: the reference did not refuse the case")
        (case_dir / "expected_error").write_text(case.expected_error + "\n")
        try:
            run_cpu(graph, feeds, out_names)
            report.cpu_line(case.name, "CPU plugin did NOT refuse (reference: %s)" % ref_error, ok=False)
        except RuntimeError as e:
            report.cpu_line(case.name, "CPU plugin refuses too: " + first_line(str(e)), ok=True)
        report.runtime_error.append(case.name)
        return
    if ref_error is not None:
        raise ValueError(f"{case.name}: reference refused: {ref_error}")

    for name, arr in expected.items():
        if arr.dtype.kind == "U":
            expected[name] = arr = tight_strings(arr)
        save_npy(case_dir / "expected" / f"{name}.npy", arr)
    report.valid.append(case.name)

    unchecked = {n: why for n, why in caveats.items() if why}
    if case.no_check or len(unchecked) == len(expected):
        why = case.no_check or "; ".join(sorted({w for ws in unchecked.values() for w in ws}))
        report.skipped.append((case.name, why))
        return
    try:
        got = run_cpu(graph, feeds, out_names)
    except RuntimeError as e:
        report.cpu_line(case.name, "CPU plugin failed: " + first_line(str(e)), ok=False)
        return
    for n, why in unchecked.items():
        report.skipped.append((f"{case.name} {n}", "; ".join(why)))
    bad = [n for n in expected if n not in unchecked and (n not in got or not same_bits(expected[n], got[n]))]
    if bad:
        detail = ", ".join(f"{n}: ref {expected[n].reshape(-1)[:6]} cpu {got.get(n, np.array([])).reshape(-1)[:6]}"
                           for n in bad)
        report.cpu_line(case.name, "MISMATCH " + detail, ok=False)
    else:
        report.checked.append(case.name)


NOISE = ("Exception from", "Check '", "While validating", "Converting input model", "Node ")


def first_line(msg: str) -> str:
    """The informative line of an OpenVINO error message."""
    lines = [l.strip() for l in msg.strip().splitlines() if l.strip()]
    useful = [l for l in lines if not l.startswith(NOISE)] or lines
    return useful[0][:160] if useful else ""


# ---------------------------------------------------------------------------
# Text mutation helpers for the malformed IR
# ---------------------------------------------------------------------------


def sub_once(text: str, old: str, new: str) -> str:
    n = text.count(old)
    if n != 1:
        raise ValueError(f"expected exactly one {old!r}, found {n}")
    return text.replace(old, new)


def resub_once(text: str, pattern: str, new: str) -> str:
    out, n = re.subn(pattern, new, text, flags=re.S)
    if n != 1:
        raise ValueError(f"expected exactly one match of {pattern!r}, found {n}")
    return out


def layer_span(xml: str, name: str) -> tuple[int, int]:
    m = re.search(r'<layer id="[^"]*" name="%s" .*?</layer>' % re.escape(name), xml, re.S)
    if m is None:
        raise ValueError(f"layer {name} not found")
    return m.start(), m.end()


def edit_layer(xml: str, name: str, fn: Callable[[str], str]) -> str:
    a, b = layer_span(xml, name)
    return xml[:a] + fn(xml[a:b]) + xml[b:]


def edit_port(block: str, port_id: int, fn: Callable[[str], str]) -> str:
    m = re.search(r'<port id="%d"[^>]*>.*?</port>' % port_id, block, re.S)
    if m is None:
        raise ValueError(f"port {port_id} not found")
    return block[:m.start()] + fn(m.group(0)) + block[m.end():]


def set_dims(port: str, dims) -> str:
    indent = re.search(r"\n(\s*)<dim>", port)
    pad = indent.group(1) if indent else "\t\t\t\t\t"
    body = "".join(f"\n{pad}<dim>{d}</dim>" for d in dims)
    head = re.match(r"<port[^>]*>", port).group(0)
    tail_pad = pad[:-1] if pad else ""
    return f"{head}{body}\n{tail_pad}</port>"


def set_port_dims(xml: str, layer: str, port_id: int, dims) -> str:
    return edit_layer(xml, layer, lambda b: edit_port(b, port_id, lambda p: set_dims(p, dims)))


def layer_id(xml: str, name: str) -> str:
    a, b = layer_span(xml, name)
    return re.match(r'<layer id="([^"]*)"', xml[a:b]).group(1)


def set_attr(xml: str, layer: str, attr: str, value: str) -> str:
    return edit_layer(xml, layer, lambda b: resub_once(b, r'\b%s="[^"]*"' % attr, f'{attr}="{value}"'))


def const_span(xml: str, layer: str) -> tuple[int, int]:
    a, b = layer_span(xml, layer)
    block = xml[a:b]
    off = int(re.search(r'offset="(\d+)"', block).group(1))
    size = int(re.search(r'size="(\d+)"', block).group(1))
    return off, size


def serialize_text(m: ov.Model) -> tuple[str, bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "m.xml"
        ov.save_model(m, str(xml), compress_to_fp16=False)
        binp = xml.with_suffix(".bin")
        return xml.read_text(), (binp.read_bytes() if binp.exists() else b"")


# --- base models for the mutations -----------------------------------------


def base_reverse(axes=(0, 2), axes_et="i64"):
    d = param("data", "f32", (2, 5, 4))
    return serialize_text(model({"out": reverse(d, const(list(axes), axes_et, "axes"), "index")},
                                [d], "bad_base"))


def base_reverse_mask():
    d = param("data", "f32", (2, 5, 4))
    return serialize_text(model({"out": reverse(d, const([True, False, True], "boolean", "axes"), "mask")},
                                [d], "bad_base"))


def base_rseq(lengths_et="i32"):
    d = param("data", "f32", (4, 3, 2))
    ln = const([1, 2, 3, 2], lengths_et, "lengths")
    return serialize_text(model({"out": reverse_sequence(d, ln, 0, 1)}, [d], "bad_base"))


def base_chain():
    d = param("data", "f32", (2, 5))
    a = reverse(d, const([0], "i64", "axes_a"), "index", "reverse_a")
    b = reverse(a, const([1], "i64", "axes_b"), "index", "reverse_b")
    return serialize_text(model({"out": b}, [d], "bad_base"))


def base_convert():
    d = param("data", "i32", (2, 3))
    return serialize_text(model({"out": convert(d, "f32")}, [d], "bad_base"))


def base_string():
    t = ov.Tensor(np.array(["ab", "cde", ""]))
    c = ov.op.Constant(t)
    c.set_friendly_name("strings")
    return serialize_text(model({"out": reverse(c, const([0], "i64", "axes"), "index")}, [], "bad_base"))


@dataclasses.dataclass
class BadCase:
    name: str
    xml: bytes
    bin: Optional[bytes]
    phrase: str


BAD: list[BadCase] = []


def bad(name: str, xml, binary: Optional[bytes], phrase: str):
    if any(c.name == name for c in BAD):
        raise ValueError(f"duplicate bad case {name}")
    data = xml.encode() if isinstance(xml, str) else xml
    BAD.append(BadCase(name, data, binary, phrase))


def bad_cases():
    x, w = base_reverse()
    rid = layer_id(x, "reverse")
    cid = layer_id(x, "axes")
    pid = layer_id(x, "data")

    # header and layer attributes
    bad("net_version_9", sub_once(x, 'version="11">', 'version="9">'), w, "version")
    bad("net_version_12", sub_once(x, 'version="11">', 'version="12">'), w, "version")
    bad("net_version_missing", resub_once(x, r'<net name="[^"]*" version="11">', '<net name="bad_base">'),
        w, "version")
    bad("root_not_net", sub_once(sub_once(x, '<net name="bad_base"', '<model name="bad_base"'),
                                 "</net>", "</model>"), w, "net")
    bad("layer_id_missing", edit_layer(x, "axes", lambda b: sub_once(b, f'<layer id="{cid}" ', "<layer ")),
        w, "id")
    bad("layer_id_non_numeric",
        resub_once(edit_layer(x, "axes", lambda b: sub_once(b, f'id="{cid}"', 'id="one"')),
                   r'from-layer="%s"' % cid, 'from-layer="one"'), w, "id")
    bad("layer_id_negative", edit_layer(x, "axes", lambda b: sub_once(b, f'id="{cid}"', 'id="-1"')), w, "id")
    bad("layer_id_duplicate", edit_layer(x, "axes", lambda b: sub_once(b, f'id="{cid}"', f'id="{pid}"')),
        w, "duplicate")
    bad("layer_type_missing", edit_layer(x, "reverse", lambda b: sub_once(b, ' type="Reverse"', "")), w, "type")
    bad("layer_version_missing", edit_layer(x, "reverse", lambda b: sub_once(b, ' version="opset1"', "")),
        w, "version")
    bad("unknown_op_type", edit_layer(x, "reverse", lambda b: sub_once(b, 'type="Reverse"', 'type="Flip"')),
        w, "unknown operation")
    bad("reverse_opset3", edit_layer(x, "reverse", lambda b: sub_once(b, 'version="opset1"', 'version="opset3"')),
        w, "opset")
    bad("unknown_opset_name", edit_layer(x, "reverse", lambda b: sub_once(b, 'version="opset1"', 'version="opsetX"')),
        w, "opset")

    # edges
    edge_data = f'<edge from-layer="{pid}" from-port="0" to-layer="{rid}" to-port="0" />'
    edge_axes = f'<edge from-layer="{cid}" from-port="0" to-layer="{rid}" to-port="1" />'
    bad("edge_to_missing_layer", sub_once(x, edge_axes, edge_axes.replace(f'to-layer="{rid}"', 'to-layer="42"')),
        w, "layer")
    bad("edge_from_missing_layer", sub_once(x, edge_axes, edge_axes.replace(f'from-layer="{cid}"', 'from-layer="42"')),
        w, "layer")
    bad("edge_to_missing_port", sub_once(x, edge_axes, edge_axes.replace('to-port="1"', 'to-port="5"')),
        w, "port")
    bad("edge_from_missing_port", sub_once(x, edge_axes, edge_axes.replace('from-port="0"', 'from-port="3"')),
        w, "port")
    bad("input_port_fed_twice",
        sub_once(x, edge_axes, edge_axes + "\n\t\t" + edge_data.replace('to-port="0"', 'to-port="1"')),
        w, "port")
    bad("input_port_not_fed", sub_once(x, "\t\t" + edge_axes + "\n", ""), w, "input")
    bad("edge_attr_non_numeric", sub_once(x, edge_axes, edge_axes.replace('to-port="1"', 'to-port="one"')),
        w, "port")

    cx, cw = base_chain()
    a_id, b_id, d_id = layer_id(cx, "reverse_a"), layer_id(cx, "reverse_b"), layer_id(cx, "data")
    bad("cycle", sub_once(cx, f'<edge from-layer="{d_id}" from-port="0" to-layer="{a_id}" to-port="0" />',
                          f'<edge from-layer="{b_id}" from-port="2" to-layer="{a_id}" to-port="0" />'),
        cw, "cycle")

    # shapes and types
    bad("dim_minus_2", edit_layer(x, "data", lambda b: sub_once(sub_once(b, 'shape="2,5,4"', 'shape="-2,5,4"'),
                                                                 "<dim>2</dim>", "<dim>-2</dim>")), w, "dim")
    bad("port_dim_non_numeric", edit_layer(x, "reverse", lambda b: edit_port(
        b, 2, lambda p: sub_once(p, "<dim>5</dim>", "<dim>five</dim>"))), w, "dim")
    bad("parameter_shape_non_numeric", set_attr(x, "data", "shape", "2,x,4"), w, "shape")
    bad("parameter_shape_bad_syntax", set_attr(x, "data", "shape", "2,,5..,4..2"), w, "shape")
    bad("parameter_shape_missing", edit_layer(x, "data", lambda b: sub_once(b, 'shape="2,5,4" ', "")), w, "shape")
    bad("unknown_element_type", set_attr(x, "data", "element_type", "f33"), w, "element")
    bad("port_id_non_numeric", edit_layer(x, "reverse", lambda b: sub_once(b, '<port id="2"', '<port id="two"')),
        w, "port")

    # weights
    off, size = const_span(x, "axes")
    bad("const_past_end_of_bin", x, w[: off + size - 3], "out of bounds")
    bad("const_offset_past_end", set_attr(x, "axes", "offset", str(len(w) + 8)), w, "out of bounds")
    bad("const_size_too_small", set_attr(x, "axes", "size", "8"), w, "size")
    bad("const_offset_non_numeric", set_attr(x, "axes", "offset", "zero"), w, "offset")
    bad("missing_bin", x, None, "weights")

    # Reverse semantics
    bad("reverse_bad_mode", set_attr(x, "reverse", "mode", "sideways"), w, "mode")
    bad("reverse_mode_missing", edit_layer(x, "reverse", lambda b: resub_once(b, r'\s*<data mode="index" />', "")),
        w, "mode")
    x3, w3 = base_reverse(axes=(0, 1, 2))
    o3, s3 = const_span(x3, "axes")
    bad("reverse_axes_out_of_range", x3, w3[:o3] + np.array([0, 3, 2], "<i8").tobytes() + w3[o3 + s3:],
        "out of bounds")
    xm, wm = base_reverse_mask()
    mask_short = edit_layer(xm, "axes", lambda b: sub_once(sub_once(sub_once(b, 'shape="3"', 'shape="2"'),
                                                                     'size="3"', 'size="2"'),
                                                           "<dim>3</dim>", "<dim>2</dim>"))
    mask_short = set_port_dims(mask_short, "reverse", 1, [2])
    bad("reverse_mask_length_not_rank", mask_short, wm, "mask")
    bad("reverse_mask_axes_integer",
        edit_layer(edit_layer(xm, "axes", lambda b: sub_once(sub_once(b, 'element_type="boolean"', 'element_type="u8"'),
                                                              'precision="BOOL"', 'precision="U8"')),
                   "reverse", lambda b: edit_port(b, 1, lambda p: sub_once(p, 'precision="BOOL"', 'precision="U8"'))),
        wm, "boolean")
    float_axes = edit_layer(x, "axes", lambda b: sub_once(sub_once(sub_once(b, 'element_type="i64"', 'element_type="f32"'),
                                                                    'size="16"', 'size="8"'),
                                                          'precision="I64"', 'precision="FP32"'))
    float_axes = edit_layer(float_axes, "reverse",
                            lambda b: edit_port(b, 1, lambda p: sub_once(p, 'precision="I64"', 'precision="FP32"')))
    bad("reverse_index_axes_float", float_axes,
        w[:off] + np.array([0.0, 2.0], "<f4").tobytes() + w[off + 8:], "integer")
    axes_2d = edit_layer(x, "axes", lambda b: sub_once(b, 'shape="2"', 'shape="1,2"'))
    axes_2d = set_port_dims(axes_2d, "axes", 0, [1, 2])
    axes_2d = set_port_dims(axes_2d, "reverse", 1, [1, 2])
    bad("reverse_axes_2d", axes_2d, w, "1-d")
    xs, ws = base_reverse(axes=(1,))
    axes_scalar = set_port_dims(set_port_dims(edit_layer(xs, "axes", lambda b: sub_once(b, 'shape="1"', 'shape=""')),
                                              "axes", 0, []), "reverse", 1, [])
    bad("reverse_axes_scalar", axes_scalar, ws, "1-d")

    # ReverseSequence semantics
    rx, rw = base_rseq()
    rank1 = set_attr(rx, "data", "shape", "4")
    for layer, port in (("data", 0), ("reverse_sequence", 0), ("reverse_sequence", 2), ("result", 0)):
        rank1 = set_port_dims(rank1, layer, port, [4])
    bad("rseq_data_rank1", rank1, rw, "rank")
    len2d = edit_layer(rx, "lengths", lambda b: sub_once(b, 'shape="4"', 'shape="4,1"'))
    len2d = set_port_dims(set_port_dims(len2d, "lengths", 0, [4, 1]), "reverse_sequence", 1, [4, 1])
    bad("rseq_lengths_rank2", len2d, rw, "rank")
    bad("rseq_batch_axis_out_of_range", set_attr(rx, "reverse_sequence", "batch_axis", "5"), rw, "axis")
    bad("rseq_seq_axis_out_of_range", set_attr(rx, "reverse_sequence", "seq_axis", "-4"), rw, "axis")
    short = edit_layer(rx, "lengths", lambda b: sub_once(sub_once(b, 'shape="4"', 'shape="3"'), 'size="16"', 'size="12"'))
    short = set_port_dims(set_port_dims(short, "lengths", 0, [3]), "reverse_sequence", 1, [3])
    bad("rseq_lengths_size_not_batch", short, rw, "batch")
    lo, ls = const_span(rx, "lengths")
    bool_len = edit_layer(rx, "lengths", lambda b: sub_once(sub_once(sub_once(b, 'element_type="i32"', 'element_type="boolean"'),
                                                                      'size="16"', 'size="4"'),
                                                            'precision="I32"', 'precision="BOOL"'))
    bool_len = edit_layer(bool_len, "reverse_sequence",
                          lambda b: edit_port(b, 1, lambda p: sub_once(p, 'precision="I32"', 'precision="BOOL"')))
    bad("rseq_lengths_boolean", bool_len, rw[:lo] + bytes([1, 1, 0, 1]) + rw[lo + ls:], "type")

    # Convert
    vx, vw = base_convert()
    bad("convert_unknown_destination_type", set_attr(vx, "convert", "destination_type", "f33"), vw or None, "type")
    bad("convert_destination_type_missing",
        edit_layer(vx, "convert", lambda b: resub_once(b, r'\s*<data destination_type="f32" />', "")),
        vw or None, "destination")

    # string constants
    sx, sw = base_string()
    so, ss = const_span(sx, "strings")
    neg = sw[:so] + struct.pack("<i", -1) + sw[so + 4:]
    bad("string_const_negative_count", sx, neg, "string")
    hdr = list(struct.unpack("<5i", sw[so:so + 20]))          # count, 0, end_1, end_2, end_3
    hdr[2], hdr[3] = hdr[3], hdr[2]
    bad("string_const_decreasing_offsets", sx, sw[:so] + struct.pack("<5i", *hdr) + sw[so + 20:], "string")

    # not XML at all
    bad("xml_truncated", x[: len(x) // 2], w, "xml")
    bad("xml_empty", "", w, "xml")
    bad("xml_binary_garbage", np.random.default_rng(7).integers(0, 256, 512, dtype=np.uint8).tobytes(), w, "xml")
    bad("xml_unclosed_layers", sub_once(x, "\t</layers>\n", ""), w, "xml")


OV_PROBE = r"""
import sys, openvino as ov
core = ov.Core()
try:
    core.compile_model(core.read_model(sys.argv[1]), "CPU")
    print("ACCEPTED")
except Exception as e:
    print("REFUSED\n" + str(e))
"""


def probe_openvino(xml: Path) -> str:
    """Ask OpenVINO, in a separate process (malformed input may crash it),
    whether it loads the IR."""
    try:
        p = subprocess.run([sys.executable, "-c", OV_PROBE, str(xml)], capture_output=True, errors="replace",
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "TIMEOUT"
    out = p.stdout.strip()
    if p.returncode != 0 or not out:
        return f"CRASHED (exit {p.returncode})"
    verdict, _, message = out.partition("\n")
    return verdict if verdict == "ACCEPTED" else "REFUSED: " + first_line(message)


HOSTILE_DIR = Path(__file__).resolve().parent / "hostile-samples"


def hostile_cases():
    """The hand-written hostile files in tools/hostile-samples/, carried into
    ir-samples/bad/ as `hostile_<case>` so that they run and are snapshotted
    with every other malformed sample."""
    for d in sorted(p for p in HOSTILE_DIR.iterdir() if p.is_dir()):
        binary = (d / "model.bin").read_bytes() if (d / "model.bin").exists() else None
        phrase = (d / "expected_error").read_text().strip()
        bad(f"hostile_{d.name}", (d / "model.xml").read_bytes(), binary, phrase)


def onnx_lstm_model() -> bytes:
    """A one-layer LSTM over 5 steps of 3 features with 4 hidden units, as
    a sequence model exports it."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)
    seq, batch, features, hidden = 5, 1, 3, 4
    w = numpy_helper.from_array(rng.standard_normal((1, 4 * hidden, features)).astype(np.float32), "W")
    r = numpy_helper.from_array(rng.standard_normal((1, 4 * hidden, hidden)).astype(np.float32), "R")
    b = numpy_helper.from_array(rng.standard_normal((1, 8 * hidden)).astype(np.float32), "B")
    node = helper.make_node("LSTM", ["x", "W", "R", "B"], ["y", "y_h", "y_c"], hidden_size=hidden, name="lstm")
    graph = helper.make_graph(
        [node], "lstm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, batch, features])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [seq, 1, batch, hidden]),
         helper.make_tensor_value_info("y_h", TensorProto.FLOAT, [1, batch, hidden]),
         helper.make_tensor_value_info("y_c", TensorProto.FLOAT, [1, batch, hidden])],
        initializer=[w, r, b])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], producer_name="gen_samples")
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


def onnx_cnn_model() -> bytes:
    """A small image classifier: convolution, ReLU, max pooling, a dense
    layer and softmax over an 8x8 RGB image."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(11)
    conv_w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "conv_w")
    conv_b = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "conv_b")
    fc_w = numpy_helper.from_array(rng.standard_normal((64, 10)).astype(np.float32), "fc_w")
    fc_b = numpy_helper.from_array(rng.standard_normal(10).astype(np.float32), "fc_b")
    shape = numpy_helper.from_array(np.array([1, 64], np.int64), "flat_shape")
    nodes = [
        helper.make_node("Conv", ["image", "conv_w", "conv_b"], ["conv"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("MaxPool", ["relu"], ["pool"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
        helper.make_node("Reshape", ["pool", "flat_shape"], ["flat"], name="flatten"),
        helper.make_node("MatMul", ["flat", "fc_w"], ["fc"], name="fc"),
        helper.make_node("Add", ["fc", "fc_b"], ["logits"], name="fc_bias"),
        helper.make_node("Softmax", ["logits"], ["probabilities"], axis=1, name="softmax"),
    ]
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])],
        initializer=[conv_w, conv_b, fc_w, fc_b, shape])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gen_samples")
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


# Models from OpenVINO's converters with operations ovir does not run:
# `ovir info` describes them in full, and running them is refused.
UNSUPPORTED = [("onnx_lstm", onnx_lstm_model), ("onnx_cnn", onnx_cnn_model)]


def write_unsupported():
    for name, build in UNSUPPORTED:
        d = OUT_DIR / "unsupported" / name
        d.mkdir(parents=True)
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / f"{name}.onnx"
            src.write_bytes(build())
            m = ov.convert_model(str(src))
        stable_names(m)
        ov.save_model(m, str(d / "model.xml"), compress_to_fp16=False)
        (d / "expected_error").write_text("unknown operation type\n")


def port_warning_cases():
    """Models whose ports declare `<dim>`s or a `precision` that inference
    contradicts. OpenVINO ignores what ports declare and loads them; ovir
    loads them too and warns, and `ovir check --strict` refuses them. Each
    goes to bad/ with an `expected_warning` phrase instead of
    `expected_error`."""
    x, w = base_reverse()
    pid, rid = layer_id(x, "data"), layer_id(x, "reverse")
    # The Parameter's `shape` says [2,5,4]; its port says [2,3,4].
    warn("port_parameter_dims", set_port_dims(x, "data", 0, [2, 3, 4]), w, "declares shape")
    # A `shape` whose element count overflows, under ports of [2,5,4]: every
    # port that carries the data disagrees.
    warn("port_parameter_shape_overflows",
         set_attr(x, "data", "shape", "4294967296,4294967296,16"), w, "declares shape")
    # An input port that disagrees with the output feeding it.
    warn("port_input_dims", set_port_dims(x, "reverse", 0, [2, 5, 3]), w, "declares shape")
    # A port of another rank.
    warn("port_rank", set_port_dims(x, "result", 0, [2, 20]), w, "declares shape")
    # An output port whose precision is not the data's type.
    warn("port_output_precision",
         edit_layer(x, "reverse", lambda b: edit_port(b, 2, lambda p: sub_once(p, 'precision="FP32"',
                                                                            'precision="I32"'))),
         w, "declares precision")
    assert pid != rid


WARN: list[BadCase] = []


def warn(name: str, xml, binary: Optional[bytes], phrase: str):
    if any(c.name == name for c in BAD + WARN):
        raise ValueError(f"duplicate bad case {name}")
    data = xml.encode() if isinstance(xml, str) else xml
    WARN.append(BadCase(name, data, binary, phrase))


def write_bad(report: "Report"):
    root = OUT_DIR / "bad"
    for case in BAD:
        d = root / case.name
        d.mkdir(parents=True)
        (d / "model.xml").write_bytes(case.xml)
        if case.bin is not None and (len(case.bin) or b'type="Const"' in case.xml):
            (d / "model.bin").write_bytes(case.bin)
        (d / "expected_error").write_text(case.phrase + "\n")
    for case in WARN:
        d = root / case.name
        d.mkdir(parents=True)
        (d / "model.xml").write_bytes(case.xml)
        if case.bin is not None and len(case.bin):
            (d / "model.bin").write_bytes(case.bin)
        (d / "expected_warning").write_text(case.phrase + "\n")
    cases = BAD + WARN
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
        verdicts = list(pool.map(lambda c: probe_openvino(root / c.name / "model.xml"), cases))
    for case, verdict in zip(cases, verdicts):
        report.bad.append((case.name, case.phrase, verdict))


# ---------------------------------------------------------------------------
# README and summary
# ---------------------------------------------------------------------------

README = """\
# ir-samples

Conformance cases for ovir. Generated by `tools/gen_samples.py`; do not edit by
hand. To regenerate (needs Python with `openvino`, `numpy`, `onnx` and
`tensorflow`):

    python3 tools/gen_samples.py

CI never runs Python: it only reads the files below.

## Valid cases: `ir-samples/<case>/`

- `model.xml` - written by OpenVINO's serializer (`ov.save_model`); the
  `ir_v10_*` cases have their header rewritten to `version="10"`.
- `model.bin` - the weights, present when the model has constants.
- `in/<input>.npy` - one per model input; `<input>` is the first tensor name of
  the Parameter's output port.
- `expected/<output>.npy` - one per model output; `<output>` is the first
  tensor name of the output port, with characters outside `[A-Za-z0-9._-]`
  replaced by `_`. Outputs must match bit for bit.
- `expected_error` - instead of `expected/`: the IR is valid but running it
  with the given inputs must fail; the file holds one short lowercase phrase
  the error message must contain.

## Malformed cases: `ir-samples/bad/<case>/`

`model.xml` (and `model.bin` when relevant) that must be refused while loading
or validating, plus `expected_error` with a short lowercase phrase.

The `port_*` cases hold `expected_warning` instead: their ports declare
`<dim>`s or a `precision` that inference contradicts. OpenVINO ignores what
ports declare and loads them, and so does ovir, with a warning that must
contain the phrase; `ovir check --strict` refuses them.

## Models ovir cannot run: `ir-samples/unsupported/<case>/`

`model.xml` and `model.bin` converted by OpenVINO's ONNX front end from
real models (an LSTM, a small CNN) whose operations ovir does not run, plus
`expected_error`. `ovir info` describes them in full; running them is
refused.

## Data

`.npy` files use native little-endian dtypes: bool, i8..i64, u8..u64, f16,
f32, f64, and fixed-width unicode (`<U`) for strings. The packed sub-byte
types (u1, u2, u3, u4, u6, i4, nf4, f4e2m1) and the 8-bit floats (f8e4m3,
f8e5m2, f8e8m0) have no NumPy type: their arrays hold one code per element,
as u8 (i8 for i4). Expected values come from a NumPy reference of the operator
specifications (Reverse-1, ReverseSequence-1, Convert-1, and ShapeOf, Gather,
Broadcast, Unsqueeze, Squeeze, Reshape, Concat and Slice for the converted
models), with ml_dtypes for the small float formats. docs/element-types.md
gives OpenVINO's conversion rules and where ovir departs from them.

The `reverse_subsequences_*` cases use ovir's built-in extension
`type="ReverseSubsequences" version="ovir"` (DirectML's reverse-subsequences).
OpenVINO cannot serialize that op, so their `model.xml` is a ReverseSequence
written by OpenVINO and then edited; OpenVINO itself refuses them.

## Converted models

`tf_*` and `keras_*` cases are TensorFlow functions converted by OpenVINO's
TensorFlow front end; `onnx_*` cases are ONNX models converted by its ONNX
front end (`onnx_node_*` are the ReverseSequence node tests that ship with
the `onnx` package).
"""


@dataclasses.dataclass
class Report:
    valid: list = dataclasses.field(default_factory=list)
    runtime_error: list = dataclasses.field(default_factory=list)
    checked: list = dataclasses.field(default_factory=list)
    skipped: list = dataclasses.field(default_factory=list)
    cpu_problems: list = dataclasses.field(default_factory=list)
    cpu_notes: list = dataclasses.field(default_factory=list)
    bad: list = dataclasses.field(default_factory=list)

    def cpu_line(self, case, text, ok):
        (self.cpu_notes if ok else self.cpu_problems).append((case, text))

    def print(self):
        print(f"valid cases:              {len(self.valid)}")
        print(f"  cross-checked on CPU:   {len(self.checked)} (bit-exact)")
        print(f"  not cross-checked:      {len(self.skipped)}")
        for name, why in self.skipped:
            print(f"    {name}: not cross-checked: {why}")
        print(f"run-time error cases:     {len(self.runtime_error)}")
        for name, text in self.cpu_notes:
            print(f"    {name}: {text}")
        print(f"malformed (bad/) cases:   {len(self.bad)}")
        accepted = [b for b in self.bad if not b[2].startswith("REFUSED")]
        for name, phrase, verdict in self.bad:
            print(f"    {name} [{phrase}]: OpenVINO {verdict}")
        if accepted:
            print(f"  OpenVINO does not refuse {len(accepted)} of them: "
                  + ", ".join(b[0] for b in accepted))
        if self.cpu_problems:
            print(f"CPU cross-check problems: {len(self.cpu_problems)}")
            for name, text in self.cpu_problems:
                print(f"    {name}: {text}")
        else:
            print("CPU cross-check problems: none")
        total = sum(f.stat().st_size for f in OUT_DIR.rglob("*") if f.is_file())
        print(f"ir-samples size: {total / 1024:.1f} KiB in {sum(1 for _ in OUT_DIR.rglob('*') if _.is_file())} files")


def main() -> int:
    reverse_cases()
    reverse_sequence_cases()
    convert_cases()
    structure_cases()
    onnx_cases()
    onnx_node_test_cases()
    tf_cases()
    torch_cases()
    runtime_error_cases()
    subbyte_and_string_cases()
    convert_coded_cases()
    convert_every_pair_cases()
    reverse_subsequences_cases()
    bad_cases()
    subsequences_bad_cases()
    hostile_cases()
    port_warning_cases()

    if OUT_DIR.exists():
        shutil.rmtree(OUT_DIR)
    OUT_DIR.mkdir()
    (OUT_DIR / "README.md").write_text(README)

    report = Report()
    for case in CASES:
        write_valid(case, report)
    for case in SUBSEQUENCES:
        write_subsequences(case, report)
    write_bad(report)
    write_unsupported()
    report.print()
    return 1 if report.cpu_problems else 0


if __name__ == "__main__":
    sys.exit(main())
