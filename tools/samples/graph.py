"""Building the models the cases hold: nodes with stable names, and the
deterministic values their inputs and constants take."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
import numpy as np
import openvino as ov
import openvino.opset1 as ops
from openvino.utils.node_factory import NodeFactory

from .elements import INT_TYPES, NP_DTYPE, PACKED_BITS, ov_type, pack_codes

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


def string_const(values: np.ndarray, name: str) -> ov.Node:
    node = ov.op.Constant(ov.Tensor(np.asarray(values, dtype=str)))
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


def stable_names(m: ov.Model):
    """Renumber the names a converter makes up from OpenVINO's process-wide
    counters (a node's `Convert_612980`, a folded constant's
    `Reshape_889457`, a model's `Model137`), so that they depend neither on
    the cases built before nor on which generators run: a node's number
    becomes its index in the model."""
    if re.fullmatch(r"Model\d+", m.get_friendly_name()):
        m.set_friendly_name("Model")
    for i, node in enumerate(m.get_ordered_ops()):
        made_up = re.fullmatch(r"([A-Z][A-Za-z0-9]*)_\d+", node.get_friendly_name())
        if made_up:
            node.set_friendly_name(f"{made_up.group(1)}_{i}")


def serialize_text(m: ov.Model) -> tuple[str, bytes]:
    """The model.xml text and model.bin bytes OpenVINO's serializer writes."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "m.xml"
        ov.save_model(m, str(xml), compress_to_fp16=False)
        binp = xml.with_suffix(".bin")
        return xml.read_text(), (binp.read_bytes() if binp.exists() else b"")


def axes_tag(axes) -> str:
    return "none" if len(axes) == 0 else "_".join(str(a).replace("-", "m") for a in axes)


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


class Stream:
    """A seeded random stream that several generators draw from, each in
    turn in the registry's order, so a generator's values depend on the draws
    of the earlier ones. A generator lists the streams it draws from; a run
    of some generators (`--only`) replays the earlier users of their streams
    first, so that their values are those of a full run. New generators
    should seed their own `np.random.default_rng` instead: these two streams
    are kept so that the existing samples keep their values."""

    _open: tuple[str, frozenset[str]] = ("", frozenset())

    def __init__(self, name: str, seed: int):
        self.name = name
        self._rng = np.random.default_rng(seed)

    def rng(self) -> np.random.Generator:
        generator, streams = Stream._open
        if self.name not in streams:
            raise RuntimeError(f"generator {generator!r} draws from the {self.name!r} stream "
                               f"without listing it in its streams")
        return self._rng

    @staticmethod
    def open_for(generator: str, streams: tuple[str, ...]):
        """Lets the generator about to build draw from `streams`."""
        Stream._open = (generator, frozenset(streams))


VALUES = Stream("values", 20240611)
# Its own stream, so that the sub-byte cases leave the values of the others alone.
CODES = Stream("codes", 20260401)


def arange(shape, et="f32"):
    return np.arange(int(np.prod(shape))).reshape(shape).astype(NP_DTYPE[et])


def rng_values(et: str, shape) -> np.ndarray:
    """Deterministic values that exercise the range of `et` (from the
    `values` stream)."""
    rng = VALUES.rng()
    n = int(np.prod(shape))
    dt = NP_DTYPE[et]
    if et == "boolean":
        v = rng.integers(0, 2, n).astype(bool)
    elif et in INT_TYPES:
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        v[:2] = [info.min, info.max]
    elif et == "f16":
        v = (rng.standard_normal(n) * 1000).astype(np.float16)
        special = np.array([65504, -65504, 6e-8, -0.0, np.inf, -np.inf, 0.1], np.float16)
        v[: len(special)] = special[:n]
    elif et == "f32":
        v = (rng.standard_normal(n) * 1e6).astype(np.float32)
        special = np.array([3.4028235e38, -1.1754944e-38, 1e-45, -0.0, np.inf, np.nan, 0.1], np.float32)
        v[: len(special)] = special[:n]
    elif et == "f64":
        v = rng.standard_normal(n) * 1e200
        special = np.array([1.7976931348623157e308, 1 + 2.0 ** -40, 5e-324, -0.0, -np.inf, 0.1], np.float64)
        v[: len(special)] = special[:n]
    else:
        raise ValueError(et)
    return v.astype(dt).reshape(shape)


def random_codes(et: str, shape) -> np.ndarray:
    """Every code of `et` in turn, then random ones (from the `codes`
    stream)."""
    n = int(np.prod(shape))
    if et == "i4":
        low, high = -8, 7
    else:
        low, high = 0, (1 << PACKED_BITS.get(et, 8)) - 1
    v = CODES.rng().integers(low, high, n, endpoint=True)
    first = np.arange(low, high + 1)[:n]
    v[: len(first)] = first
    return v.astype(NP_DTYPE[et]).reshape(shape)


WORDS = ["", "a", "bé", "日本語", "🙂x", "tab\tnew\nline", "naïve", "Ω", "longer words here", "z"]


def strings(shape) -> np.ndarray:
    n = int(np.prod(shape))
    return np.array([WORDS[(i * 7 + 3) % len(WORDS)] + ("" if i % 3 else str(i)) for i in range(n)],
                    dtype=str).reshape(shape)
