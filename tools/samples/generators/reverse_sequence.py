"""ReverseSequence-1: OpenVINO's op_reference shapes, every axis pair of
ranks 2 to 6, every lengths type, lengths known at run time, every ordinary
data type, and run-time lengths out of range. The packed types and strings
are in packed_and_strings."""

from __future__ import annotations

import numpy as np

from ..cases import Cases
from ..elements import ALL_TYPES, FLOAT_TYPES, NP_DTYPE, PACKED_BITS, WIDE_TYPES
from ..evaluate import Call, RefError
from ..graph import arange, const, model, param, reverse_sequence, rng_values
from ..registry import Generator


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


def evaluate_reverse_sequence(call: Call) -> tuple[np.ndarray, list[str]]:
    data, data_type = call.args[0], call.arg_types[0]
    caveats = []
    if data_type in WIDE_TYPES:
        caveats.append(f"CPU truncates {data_type} ReverseSequence data")
    if data_type in PACKED_BITS:
        caveats.append(f"CPU reverses {data_type} data byte by byte, not element by element")
    if data_type == "string":
        caveats.append("CPU plugin does not support string ReverseSequence")
    if data_type in {"i32", "u32"} and data.size and np.abs(data.astype(np.int64)).max() > 2 ** 24:
        caveats.append(f"CPU routes {data_type} ReverseSequence through f32")
    attrs = call.attrs
    out = ref_reverse_sequence(data, call.args[1], call.arg_types[1],
                               int(attrs["batch_axis"]), int(attrs["seq_axis"]))
    return out, caveats


def rseq_case(cases: Cases, name, shape, lengths, batch_axis, seq_axis, data_et="f32", lengths_et="i32",
              data=None, **kw):
    d = param("data", data_et, shape)
    ln = const(lengths, lengths_et, "lengths")
    m = model({"out": reverse_sequence(d, ln, batch_axis, seq_axis)}, [d], "reverse_sequence")
    cases.add(name, m, {"data": arange(shape, data_et) if data is None else data}, **kw)


def all_lengths(batch: int, seq: int) -> list[int]:
    """Lengths in [0, seq]: the full length first, then 0, then a walk over
    the values in between."""
    return [seq if i == 0 else 0 if i == 1 else (seq - i + 1) % (seq + 1) for i in range(batch)]


def build(cases: Cases):
    # OpenVINO op_reference shapes
    rseq_case(cases, "rseq_b1_s0_4x4", (4, 4), [4, 3, 2, 1], 1, 0)
    rseq_case(cases, "rseq_b2_s1_2x3x4x2", (2, 3, 4, 2), [1, 2, 1, 2], 2, 1)
    rseq_case(cases, "rseq_b0_s2_4x2x3x2x2", (4, 2, 3, 2, 2), [1, 2, 1, 2], 0, 2)

    # axis combinations on rank 3, negatives included
    shape = (3, 4, 5)
    for ba, sa in ((0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1), (-3, -1), (-1, -2), (0, -1)):
        bdim = shape[ba]
        sdim = shape[sa]
        lengths = [(i * 3 + 2) % (sdim + 1) for i in range(bdim)]
        tag = f"b{ba}_s{sa}".replace("-", "m")
        rseq_case(cases, f"rseq_axes_{tag}", shape, lengths, ba, sa)

    # the lengths element types
    shape = (4, 5)
    rseq_case(cases, "rseq_lengths_i32", shape, [5, 2, 3, 1], 0, 1, lengths_et="i32")
    rseq_case(cases, "rseq_lengths_i64", shape, [5, 2, 3, 1], 0, 1, lengths_et="i64")
    rseq_case(cases, "rseq_lengths_f32_truncated", shape, [2.7, 4.99, 1.5, 5.0], 0, 1, lengths_et="f32")
    rseq_case(cases, "rseq_lengths_f16_truncated", shape, [3.5, 2.0, 4.75, 0.5], 0, 1, lengths_et="f16")
    rseq_case(cases, "rseq_lengths_u8", shape, [1, 5, 4, 2], 0, 1, lengths_et="u8")
    rseq_case(cases, "rseq_lengths_i8", shape, [3, 3, 5, 2], 0, 1, lengths_et="i8")
    rseq_case(cases, "rseq_lengths_u64", shape, [4, 1, 5, 3], 0, 1, lengths_et="u64")
    rseq_case(cases, "rseq_lengths_f64", shape, [2.999, 5.0, 1.0, 3.25], 0, 1, lengths_et="f64")
    rseq_case(cases, "rseq_lengths_bf16_const", shape, [2.5, 4.0, 5.0, 3.0], 0, 1, lengths_et="bf16")
    rseq_case(cases, "rseq_length_zero", shape, [0, 5, 0, 3], 0, 1)
    rseq_case(cases, "rseq_batch_equals_seq", (3, 3), [1, 0, 1], 0, 0)

    # lengths known at run time
    for et, lengths in (("i32", [3, 1, 5, 0]), ("i64", [5, 5, 2, 4])):
        d = param("data", "f32", shape)
        ln = param("lengths", et, (4,))
        m = model({"out": reverse_sequence(d, ln, 0, 1)}, [d, ln], "reverse_sequence")
        cases.add(f"rseq_runtime_lengths_{et}", m,
                  {"data": arange(shape), "lengths": np.array(lengths, NP_DTYPE[et])})

    # every element type
    for et in ALL_TYPES:
        shape = (4, 6)
        rseq_case(cases, f"rseq_type_{et}", shape, [6, 2, 5, 3], 0, 1, data_et=et,
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
        cases.add(f"rseq_all_axis_pairs_r{rank}", model(outs, [d], f"rseq_all_r{rank}"),
                  {"data": arange(shape)})

    # valid IR whose run-time lengths are out of range
    shape = (4, 5)
    for name, lengths in (("rseq_runtime_length_above_dim", [2, 6, 1, 3]),
                          ("rseq_runtime_length_negative", [2, -1, 1, 3])):
        d = param("data", "f32", shape)
        ln = param("lengths", "i32", (4,))
        m = model({"out": reverse_sequence(d, ln, 0, 1)}, [d, ln], "rseq_bad_lengths")
        cases.add(name, m, {"data": arange(shape), "lengths": np.array(lengths, np.int32)},
                  expected_error="length")

    d = param("data", "f32", shape)
    ln = param("lengths", "f32", (4,))
    m = model({"out": reverse_sequence(d, ln, 0, 1)}, [d, ln], "rseq_bad_lengths")
    cases.add("rseq_runtime_length_float_above_dim", m,
              {"data": arange(shape), "lengths": np.array([1.0, 5.5, 6.25, 2.0], np.float32)},
              expected_error="length")


GENERATOR = Generator("reverse_sequence", build, references={"ReverseSequence": evaluate_reverse_sequence},
                      streams=("values",))
