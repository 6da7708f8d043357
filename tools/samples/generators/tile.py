"""Tile-1: the values of OpenVINO's op_reference tests (a scalar tiled into
a vector, repeats shorter and longer than the rank, zero and negative
repeats) on every ordinary type and every repeats type, repeats given at
run time, strings and packed types, and repeats too large for memory,
which are an error."""

from __future__ import annotations

import numpy as np

from ..cases import Cases
from ..elements import ALL_TYPES, INT_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import FACTORY, _out, arange, code_const, const, model, param, string_const, strings
from ..registry import Generator


def ref_tile(data: np.ndarray, repeats: np.ndarray, repeats_type: str) -> np.ndarray:
    if repeats_type not in INT_TYPES:
        raise RefError("tile repeats must be integers")
    if repeats.ndim != 1:
        raise RefError("tile repeats must be 1-D")
    reps = [max(int(r), 0) for r in repeats.tolist()]
    shape = [1] * (len(reps) - data.ndim) + list(data.shape)
    size = data.itemsize * int(np.prod([d * r for d, r in zip(shape, [1] * (len(shape) - len(reps)) + reps)]))
    if size > 1 << 40:
        raise RefError(f"tile output of {size} bytes is too large for memory")
    return np.ascontiguousarray(np.tile(data, reps)) if reps else data.copy()


def evaluate_tile(call: Call) -> tuple[np.ndarray, list[str]]:
    return ref_tile(call.args[0], call.args[1], call.arg_types[1]), []


def tile(data, repeats, name: str = "tile"):
    node = FACTORY.create("Tile", [_out(data), _out(repeats)], {})
    node.set_friendly_name(name)
    return node


# Measured with OpenVINO 2026.4.1.
STRING_CRASH = "the CPU plugin aborts the process (munmap_chunk(): invalid pointer) tiling strings"
PACKED_CRASH = "the CPU plugin aborts the process (corrupted size vs. prev_size) tiling packed data"

# op_reference/tile.cpp: (tag, data shape, repeats); the data is 1..n.
REFERENCE = [
    ("0d_to_1d", (), (2,)),
    ("1d_to_1d", (6,), (4,)),
    ("1d_to_3d", (3,), (2, 2, 1)),
    ("3d_repeats_broadcast", (2, 1, 3), (2, 1)),
    ("zero_on_axis_0", (1,), (0, 2, 3)),
    ("zero_on_axis_1", (3,), (2, 0, 3)),
    ("negative_repeats", (3,), (-1,)),
]


def one_to_n(shape, et: str) -> np.ndarray:
    n = int(np.prod(shape))
    if et == "boolean":
        return (np.arange(1, n + 1) % 2).astype(bool).reshape(shape)
    return np.arange(1, n + 1).astype(NP_DTYPE[et]).reshape(shape)


def build(cases: Cases):
    # op_reference: every case on f32, and one on every other type, with
    # i64 repeats.
    for tag, shape, reps in REFERENCE:
        for et in ALL_TYPES if tag == "3d_repeats_broadcast" else ["f32"]:
            d = param("data", et, shape)
            m = model({"out": tile(d, const(reps, "i64", "repeats"))}, [d], "tile")
            cases.add(f"tile_{tag}_{et}", m, {"data": one_to_n(shape, et)})
    # Every repeats type, on f32 data (op_reference's float values).
    for rt in sorted(INT_TYPES):
        d = param("data", "f32", (2, 1, 3))
        m = model({"out": tile(d, const((2, 1), rt, "repeats"))}, [d], "tile")
        cases.add(f"tile_repeats_{rt}", m,
                  {"data": np.array([1.1, 2.2, 3.3, 4.4, 5.5, 6.6], np.float32).reshape(2, 1, 3)})

    # Rows long enough to copy whole, and repeats of the outer axes only.
    for tag, shape, reps in (("long_rows", (3, 40), (2, 3)), ("outer_only", (2, 3, 16), (3, 1, 1))):
        d = param("data", "f32", shape)
        m = model({"out": tile(d, const(reps, "i64", "repeats"))}, [d], "tile")
        cases.add(f"tile_{tag}", m, {"data": arange(shape)})

    # Repeats given at run time.
    d, r = param("data", "u8", (2, 3)), param("repeats", "i32", (3,))
    m = model({"out": tile(d, r)}, [d, r], "tile")
    cases.add("tile_runtime_repeats", m, {"data": arange((2, 3), "u8"), "repeats": np.array([2, 1, 2], np.int32)})

    # Strings and packed types, as Consts.
    sc = string_const(strings((2, 3)), "strings")
    cases.add("tile_string_const", model({"out": tile(sc, const((2, 2), "i64", "repeats"))}, [], "tile"),
              no_check=STRING_CRASH)
    for et, low, high in (("u4", 0, 16), ("u1", 0, 2), ("i4", -8, 8)):
        codes = (np.arange(10) * 3 % (high - low) + low).astype(NP_DTYPE[et]).reshape(2, 5)
        data = code_const(codes, et, "data")
        cases.add(f"tile_type_{et}", model({"out": tile(data, const((2, 3), "i64", "repeats"))}, [], "tile"),
                  no_check="the CPU plugin cannot return u1 outputs" if et == "u1" else PACKED_CRASH)

    # Repeats that ask for more memory than there is: an error, not an abort.
    d, r = param("data", "f32", (2,)), param("repeats", "i64", (2,))
    m = model({"out": tile(d, r)}, [d, r], "tile")
    cases.add("tile_runtime_repeats_too_large", m,
              {"data": arange((2,)), "repeats": np.array([10 ** 9, 10 ** 9], np.int64)},
              expected_error="memory")


GENERATOR = Generator("tile", build, references={"Tile": evaluate_tile})
