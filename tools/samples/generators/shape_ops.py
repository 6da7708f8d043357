"""The references of the ops OpenVINO's front ends put around Reverse and
ReverseSequence when they convert a framework's model: ShapeOf, Gather-8,
Broadcast, Unsqueeze, Squeeze, Reshape, Concat and Slice-8. Their cases are
the converted models of onnx_frontend, tensorflow_frontend and
torch_frontend."""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..elements import NP_DTYPE
from ..evaluate import Call, RefError, norm_axis
from ..registry import Generator


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


def optional_arg(call: Call, k: int) -> Optional[np.ndarray]:
    return call.args[k] if len(call.args) > k else None


REFERENCES = {
    "ShapeOf": lambda c: (np.array(c.args[0].shape, dtype=NP_DTYPE[c.out_type]), []),
    "Gather": lambda c: (ref_gather(c.args[0], c.args[1], int(c.args[2].reshape(-1)[0]),
                                    int(c.attrs.get("batch_dims", 0))), []),
    "Broadcast": lambda c: (ref_broadcast(c.args[0], c.args[1], c.attrs["mode"], optional_arg(c, 2)), []),
    "Unsqueeze": lambda c: (ref_unsqueeze(c.args[0], c.args[1]), []),
    "Squeeze": lambda c: (ref_squeeze(c.args[0], optional_arg(c, 1)), []),
    "Reshape": lambda c: (ref_reshape(c.args[0], c.args[1], bool(c.attrs["special_zero"])), []),
    "Concat": lambda c: (np.concatenate(c.args, axis=int(c.attrs["axis"])), []),
    "Slice": lambda c: (ref_slice(*c.args[:4], optional_arg(c, 4)), []),
}

GENERATOR = Generator("shape_ops", None, references=REFERENCES)
