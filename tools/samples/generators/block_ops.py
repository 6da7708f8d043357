"""The block ops, DepthToSpace-1 and SpaceToDepth-1: both modes, block
sizes 1 to 4, ranks 3 to 5, every ordinary element type, strings and
packed types, zero-sized axes, data whose shape is known only at run
time, OpenVINO's own op_reference cases, a pixel shuffle beside its
Reshape-Transpose-Reshape form, and shapes the blocks do not divide."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset2  # noqa: F401  (ov.opset2)

from ..cases import Cases
from ..elements import ALL_TYPES, INT_TYPES, NP_DTYPE, PACKED_BITS
from ..evaluate import Call, RefError, norm_axis
from ..graph import FACTORY, _out, arange, code_const, const, model, param, serialize_text, \
    string_const, strings
from ..registry import Generator
from ..xmltext import set_attr


# --- references ---------------------------------------------------------------


def ref_depth_to_space(data: np.ndarray, mode: str, bs: int) -> np.ndarray:
    """DepthToSpace as the spec writes it: a reshape of the channels into
    blocks and depth, a transpose and a reshape."""
    if data.ndim < 3:
        raise RefError("DepthToSpace needs rank 3 or more")
    n, c, spatial = data.shape[0], data.shape[1], data.shape[2:]
    k = len(spatial)
    if c % bs ** k:
        raise RefError(f"DepthToSpace channels {c} are not a multiple of {bs ** k}")
    depth = c // bs ** k
    if mode == "blocks_first":
        x = data.reshape(n, *([bs] * k), depth, *spatial)
        order = [0, k + 1] + [a for i in range(k) for a in (k + 2 + i, 1 + i)]
    else:
        x = data.reshape(n, depth, *([bs] * k), *spatial)
        order = [0, 1] + [a for i in range(k) for a in (k + 2 + i, 2 + i)]
    return np.ascontiguousarray(x.transpose(order).reshape(n, depth, *(d * bs for d in spatial)))


def ref_space_to_depth(data: np.ndarray, mode: str, bs: int) -> np.ndarray:
    """SpaceToDepth as the spec writes it: each spatial axis split into
    blocks, the block offsets moved next to the channels, a reshape."""
    if data.ndim < 3:
        raise RefError("SpaceToDepth needs rank 3 or more")
    n, c, spatial = data.shape[0], data.shape[1], data.shape[2:]
    k = len(spatial)
    if any(d % bs for d in spatial):
        raise RefError(f"SpaceToDepth spatial axes {spatial} are not multiples of {bs}")
    x = data.reshape(n, c, *[v for d in spatial for v in (d // bs, bs)])
    blocks = [3 + 2 * i for i in range(k)]
    if mode == "blocks_first":
        order = [0, *blocks, 1]
    else:
        order = [0, 1, *blocks]
    order += [2 + 2 * i for i in range(k)]
    return np.ascontiguousarray(x.transpose(order).reshape(n, c * bs ** k, *(d // bs for d in spatial)))


def ref_shuffle_channels(data: np.ndarray, axis: int, group: int) -> np.ndarray:
    """ShuffleChannels as the spec writes it: the axis split into
    [group, n / group], the two swapped."""
    if data.ndim < 1:
        raise RefError("ShuffleChannels needs rank 1 or more")
    a = norm_axis(axis, data.ndim)
    n = data.shape[a]
    if group < 1 or n % group:
        raise RefError(f"ShuffleChannels axis of {n} is not a multiple of {group} groups")
    x = data.reshape(*data.shape[:a], group, n // group, *data.shape[a + 1:])
    return np.ascontiguousarray(np.swapaxes(x, a, a + 1).reshape(data.shape))


def evaluate_shuffle_channels(call: Call) -> tuple[np.ndarray, list[str]]:
    return ref_shuffle_channels(call.args[0], int(call.attrs["axis"]), int(call.attrs["group"])), []


def block_values(call: Call, names: tuple[str, str, str]) -> list[list[int]]:
    """Block, and crops or pads, as lists of ints, checked as the spec
    asks."""
    values = []
    for arr, et, name in zip(call.args[1:], call.arg_types[1:], names):
        if et not in INT_TYPES or arr.ndim != 1 or arr.shape[0] != call.args[0].ndim:
            raise RefError(f"{name} must be an integer vector of one element per data axis")
        values.append([int(v) for v in arr.tolist()])
    block, begin, end = values
    if block[0] != 1 or min(block) < 1:
        raise RefError(f"block_shape {block} must be 1 on the batch and 1 or more elsewhere")
    if min(begin + end) < 0:
        raise RefError(f"{names[1]} and {names[2]} must be 0 or more")
    return values


def ref_batch_to_space(data: np.ndarray, block, begin, end) -> np.ndarray:
    """BatchToSpace as the spec writes it: the batch split into the
    blocks, each moved after its spatial axis, then the crops."""
    n, spatial = data.shape[0], data.shape[1:]
    k = len(spatial)
    product = int(np.prod(block[1:]))
    if n % product:
        raise RefError(f"the batch {n} is not a multiple of the blocks' product {product}")
    x = data.reshape(*block[1:], n // product, *spatial)
    order = [k] + [a for i in range(k) for a in (k + 1 + i, i)]
    x = x.transpose(order).reshape(n // product, *(d * b for d, b in zip(spatial, block[1:])))
    if any(b + e > d for b, e, d in zip(begin, end, x.shape)):
        raise RefError("the crops take more than an axis has")
    return np.ascontiguousarray(x[tuple(slice(b, d - e) for b, e, d in zip(begin, end, x.shape))])


def ref_space_to_batch(data: np.ndarray, block, begin, end) -> np.ndarray:
    """SpaceToBatch as the spec writes it: the spatial axes padded with
    zeros (empty strings), split into blocks whose offsets move into the
    batch."""
    shape = [d + b + e for d, b, e in zip(data.shape, begin, end)]
    if any(d % b for d, b in zip(shape[1:], block[1:])):
        raise RefError(f"the padded axes {shape[1:]} are not multiples of the blocks {block[1:]}")
    padded = np.zeros(shape, data.dtype)
    padded[tuple(slice(b, b + d) for b, d in zip(begin, data.shape))] = data
    n, k = shape[0], data.ndim - 1
    x = padded.reshape(n, *[v for d, b in zip(shape[1:], block[1:]) for v in (d // b, b)])
    order = [2 + 2 * i for i in range(k)] + [0] + [1 + 2 * i for i in range(k)]
    out = (n * int(np.prod(block[1:])), *(d // b for d, b in zip(shape[1:], block[1:])))
    return np.ascontiguousarray(x.transpose(order).reshape(out))


def evaluate_batch_to_space(call: Call) -> tuple[np.ndarray, list[str]]:
    return ref_batch_to_space(call.args[0], *block_values(call, ("block_shape", "crops_begin", "crops_end"))), []


def evaluate_space_to_batch(call: Call) -> tuple[np.ndarray, list[str]]:
    return ref_space_to_batch(call.args[0], *block_values(call, ("block_shape", "pads_begin", "pads_end"))), []


def evaluate_depth_to_space(call: Call) -> tuple[np.ndarray, list[str]]:
    return ref_depth_to_space(call.args[0], call.attrs["mode"], int(call.attrs["block_size"])), []


def evaluate_space_to_depth(call: Call) -> tuple[np.ndarray, list[str]]:
    return ref_space_to_depth(call.args[0], call.attrs["mode"], int(call.attrs["block_size"])), []


# --- nodes ----------------------------------------------------------------------


def depth_to_space(data, mode: str, bs: int, name: str = "depth_to_space"):
    node = FACTORY.create("DepthToSpace", [_out(data)], {"mode": mode, "block_size": bs})
    node.set_friendly_name(name)
    return node


def space_to_depth(data, mode: str, bs: int, name: str = "space_to_depth"):
    node = FACTORY.create("SpaceToDepth", [_out(data)], {"mode": mode, "block_size": bs})
    node.set_friendly_name(name)
    return node


def codes(et: str, shape) -> np.ndarray:
    """Every code of a packed type in turn, as the .npy files carry them."""
    bits = PACKED_BITS[et]
    low = -(1 << (bits - 1)) if et == "i4" else 0
    n = int(np.prod(shape))
    return (np.arange(n) * 5 % (1 << bits) + low).astype(NP_DTYPE[et]).reshape(shape)


# Measured with OpenVINO 2026.4.1's CPU plugin (tools/measure_cpu_block_ops.py).
STRINGS_EMPTY = ("the CPU plugin's string DepthToSpace and SpaceToDepth give empty strings from a Parameter "
                 "and abort the process on a Const")
PACKED_D2S = "the CPU plugin's DepthToSpace of packed data corrupts its heap (the process aborts)"
PACKED_S2D = "the CPU plugin's SpaceToDepth moves packed data byte by byte, not element by element"
SHUFFLE_STRINGS = ("the CPU plugin refuses a string ShuffleChannels from a Parameter and aborts the process on "
                   "a Const")
BATCH_STRINGS = "the CPU plugin's string BatchToSpace aborts the process (free(): invalid pointer)"
BATCH_PACKED = ("the CPU plugin's BatchToSpace and SpaceToBatch move packed data byte by byte, or refuse it "
                "(u1 both, u4 and i4 SpaceToBatch)")
SHUFFLE_PACKED = "the CPU plugin's ShuffleChannels moves packed data byte by byte (u1: it fails)"

def shuffle_channels(data, axis: int, group: int, name: str = "shuffle_channels"):
    node = FACTORY.create("ShuffleChannels", [_out(data)], {"axis": axis, "group": group})
    node.set_friendly_name(name)
    return node


def batch_to_space(data, block, begin, end, name: str = "batch_to_space"):
    node = ov.opset2.batch_to_space(_out(data), _out(block), _out(begin), _out(end))
    node.set_friendly_name(name)
    return node


def space_to_batch(data, block, pads_begin, pads_end, name: str = "space_to_batch"):
    node = ov.opset2.space_to_batch(_out(data), _out(block), _out(pads_begin), _out(pads_end))
    node.set_friendly_name(name)
    return node


MODES = ("blocks_first", "depth_first")
SHORT = {"blocks_first": "bf", "depth_first": "df"}

# OpenVINO's op_reference cases (depth_to_space.cpp, space_to_depth.cpp):
# name, data shape, data, mode, block size, expected output.
D2S_UPSTREAM = [
    ("block_first_k1_bs2", (1, 8, 2), [0, 2, 8, 10, 16, 18, 24, 26, 1, 3, 9, 11, 17, 19, 25, 27],
     "blocks_first", 2, list(range(0, 4)) + list(range(8, 12)) + list(range(16, 20)) + list(range(24, 28))),
    ("block_first_k2_bs2", (1, 8, 2, 2),
     [0, 2, 8, 10, 16, 18, 24, 26, 1, 3, 9, 11, 17, 19, 25, 27, 4, 6, 12, 14, 20, 22, 28, 30, 5, 7, 13, 15,
      21, 23, 29, 31], "blocks_first", 2, list(range(32))),
    ("block_first_k2_bs4", (1, 16, 2, 1),
     [v for i in range(16) for v in (i, i + 16)], "blocks_first", 4, list(range(32))),
    ("depth_first_1k_bs2", (1, 8, 2), [0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15],
     "depth_first", 2, list(range(16))),
    ("depth_first_2k_bs2", (1, 8, 2, 2),
     [0, 2, 8, 10, 16, 18, 24, 26, 1, 3, 9, 11, 17, 19, 25, 27, 4, 6, 12, 14, 20, 22, 28, 30, 5, 7, 13, 15,
      21, 23, 29, 31], "depth_first", 2,
     [0, 16, 2, 18, 1, 17, 3, 19, 8, 24, 10, 26, 9, 25, 11, 27, 4, 20, 6, 22, 5, 21, 7, 23, 12, 28, 14, 30,
      13, 29, 15, 31]),
    ("depth_first_2k_bs4", (1, 16, 2, 1),
     [v for i in range(16) for v in (i, i + 16)], "depth_first", 4, list(range(32))),
]
S2D_UPSTREAM = [
    ("block_first_k2_bs2", (1, 2, 4, 4), list(range(32)), "blocks_first", 2,
     [0, 2, 8, 10, 16, 18, 24, 26, 1, 3, 9, 11, 17, 19, 25, 27, 4, 6, 12, 14, 20, 22, 28, 30, 5, 7, 13, 15,
      21, 23, 29, 31]),
    ("block_first_k2_bs3", (1, 2, 6, 3),
     [0, 4, 8, 12, 16, 20, 24, 28, 32, 1, 5, 9, 13, 17, 21, 25, 29, 33, 2, 6, 10, 14, 18, 22, 26, 30, 34, 3,
      7, 11, 15, 19, 23, 27, 31, 35], "blocks_first", 3, list(range(36))),
    ("block_first_k1_bs3", (1, 2, 6), [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11], "blocks_first", 3,
     list(range(12))),
    ("depth_first_k2_bs2", (1, 2, 4, 4),
     [0, 16, 2, 18, 1, 17, 3, 19, 8, 24, 10, 26, 9, 25, 11, 27, 4, 20, 6, 22, 5, 21, 7, 23, 12, 28, 14, 30,
      13, 29, 15, 31], "depth_first", 2,
     [0, 2, 8, 10, 16, 18, 24, 26, 1, 3, 9, 11, 17, 19, 25, 27, 4, 6, 12, 14, 20, 22, 28, 30, 5, 7, 13, 15,
      21, 23, 29, 31]),
    ("depth_first_k2_bs3", (1, 2, 6, 3),
     [0, 2, 4, 6, 8, 10, 12, 14, 16, 1, 3, 5, 7, 9, 11, 13, 15, 17, 18, 20, 22, 24, 26, 28, 30, 32, 34, 19,
      21, 23, 25, 27, 29, 31, 33, 35], "depth_first", 3, list(range(36))),
    ("depth_first_k1_bs3", (1, 2, 6), [0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11], "depth_first", 3,
     list(range(12))),
]


def build_depth(cases: Cases):
    # OpenVINO's op_reference cases, their expected values checked against
    # the reference here.
    for ops, make, ref, table in (("d2s", depth_to_space, ref_depth_to_space, D2S_UPSTREAM),
                                  ("s2d", space_to_depth, ref_space_to_depth, S2D_UPSTREAM)):
        for tag, shape, values, mode, bs, want in table:
            data = np.array(values, np.float32).reshape(shape)
            if ref(data, mode, bs).reshape(-1).tolist() != want:
                raise ValueError(f"{ops}_{tag}: the reference does not give OpenVINO's answer")
            d = param("data", "f32", shape)
            cases.add(f"{ops}_upstream_{tag}", model({"out": make(d, mode, bs)}, [d], ops), {"data": data})

    # Both modes, block sizes 1 to 4, ranks 3 to 5, batches of 1 and more.
    for mode in MODES:
        for shape, bs in (((2, 9, 4), 3), ((2, 16, 3, 5), 2), ((1, 48, 2, 3), 4), ((2, 8, 2, 3, 2), 2),
                          ((3, 4, 2, 5), 1)):
            d = param("data", "i32", shape)
            tag = f"{SHORT[mode]}_bs{bs}_r{len(shape)}"
            cases.add(f"d2s_{tag}_i32", model({"out": depth_to_space(d, mode, bs)}, [d], "d2s"),
                      {"data": arange(shape, "i32")})
        for shape, bs in (((2, 3, 6), 3), ((2, 3, 4, 10), 2), ((1, 2, 8, 4), 4), ((2, 2, 4, 2, 6), 2),
                          ((3, 4, 2, 5), 1)):
            d = param("data", "i32", shape)
            tag = f"{SHORT[mode]}_bs{bs}_r{len(shape)}"
            cases.add(f"s2d_{tag}_i32", model({"out": space_to_depth(d, mode, bs)}, [d], "s2d"),
                      {"data": arange(shape, "i32")})

    # Every ordinary element type, a mode each.
    for et in ALL_TYPES:
        d = param("data", et, (2, 8, 3, 2))
        cases.add(f"d2s_type_{et}", model({"out": depth_to_space(d, "depth_first", 2)}, [d], "d2s"),
                  {"data": arange((2, 8, 3, 2), et)})
        d = param("data", et, (2, 3, 4, 6))
        cases.add(f"s2d_type_{et}", model({"out": space_to_depth(d, "blocks_first", 2)}, [d], "s2d"),
                  {"data": arange((2, 3, 4, 6), et)})

    # Strings and packed types, elements moving inside their bytes.
    d = param("data", "string", (1, 4, 2, 3))
    cases.add("d2s_string_param", model({"out": depth_to_space(d, "blocks_first", 2)}, [d], "d2s"),
              {"data": strings((1, 4, 2, 3))}, no_check=STRINGS_EMPTY)
    sc = string_const(strings((1, 2, 2, 4)), "strings")
    cases.add("s2d_string_const", model({"out": space_to_depth(sc, "depth_first", 2)}, [], "s2d"),
              no_check=STRINGS_EMPTY)
    for et in ("u4", "i4", "u1", "u3"):
        data = code_const(codes(et, (1, 4, 3, 3)), et, "data")
        cases.add(f"d2s_type_{et}", model({"out": depth_to_space(data, "depth_first", 2)}, [], "d2s"),
                  no_check=PACKED_D2S)
        data = code_const(codes(et, (1, 1, 6, 2)), et, "data")
        cases.add(f"s2d_type_{et}", model({"out": space_to_depth(data, "blocks_first", 2)}, [], "s2d"),
                  no_check=PACKED_S2D)

    # Zero-sized axes: a batch of none, and no channels.
    for shape in ((0, 8, 2, 2), (2, 0, 2, 2)):
        d = param("data", "f32", shape)
        cases.add(f"d2s_empty_{'x'.join(map(str, shape))}",
                  model({"out": depth_to_space(d, "blocks_first", 2)}, [d], "d2s"), {"data": arange(shape)})
    d = param("data", "f32", (2, 0, 4, 4))
    cases.add("s2d_empty_2x0x4x4", model({"out": space_to_depth(d, "depth_first", 2)}, [d], "s2d"),
              {"data": arange((2, 0, 4, 4))})

    # Data whose shape is known only at run time.
    d = param("data", "f32", "[?,?,?,?]")
    cases.add("d2s_dynamic_f32", model({"out": depth_to_space(d, "depth_first", 2)}, [d], "d2s"),
              {"data": arange((2, 12, 3, 4))})
    d = param("data", "f32", "[1,?,?,?]")
    cases.add("s2d_dynamic_f32", model({"out": space_to_depth(d, "blocks_first", 3)}, [d], "s2d"),
              {"data": arange((1, 2, 6, 9))})
    # ... and one the blocks do not divide.
    d = param("data", "f32", "[?,?,?,?]")
    cases.add("d2s_runtime_bad_channels", model({"out": depth_to_space(d, "blocks_first", 2)}, [d], "d2s"),
              {"data": arange((1, 6, 2, 2))}, expected_error="multiple of 4")
    d = param("data", "f32", "[?,?,?]")
    cases.add("s2d_runtime_bad_spatial", model({"out": space_to_depth(d, "blocks_first", 2)}, [d], "s2d"),
              {"data": arange((1, 2, 5))}, expected_error="multiple of 2")

    # What OpenVINO refuses when it reads the model.
    d = param("data", "f32", (1, 8, 2, 2))
    x, w = serialize_text(model({"out": depth_to_space(d, "blocks_first", 2)}, [d], "d2s"))
    cases.bad("d2s_channels_not_divisible", set_attr(x, "depth_to_space", "block_size", "3"), w, "multiple of 9")
    cases.bad("d2s_block_size_zero", set_attr(x, "depth_to_space", "block_size", "0"), w, "1 or more")
    cases.bad("d2s_unknown_mode", set_attr(x, "depth_to_space", "mode", "pixels"), w, "pixels")
    d = param("data", "f32", (1, 2, 4, 6))
    x, w = serialize_text(model({"out": space_to_depth(d, "depth_first", 2)}, [d], "s2d"))
    cases.bad("s2d_spatial_not_divisible", set_attr(x, "space_to_depth", "block_size", "3"), w, "multiple of 3")

    # A pixel shuffle (ESPCN's upscaling by 3), and the same as the
    # Reshape, Transpose and Reshape that PyTorch's pixel_shuffle becomes:
    # the two give the same bytes.
    n, c, h, w, r = 1, 2, 4, 5, 3
    shape = (n, c * r * r, h, w)
    values = arange(shape)
    d = param("data", "f32", shape)
    cases.add("pixel_shuffle_depth_to_space",
              model({"out": depth_to_space(d, "depth_first", r)}, [d], "pixel_shuffle"), {"data": values})
    d = param("data", "f32", shape)
    x = FACTORY.create("Reshape", [_out(d), _out(const([n, c, r, r, h, w], "i64", "split_shape"))],
                       {"special_zero": False})
    x = FACTORY.create("Transpose", [_out(x), _out(const([0, 1, 4, 2, 5, 3], "i64", "order"))], {})
    x = FACTORY.create("Reshape", [_out(x), _out(const([n, c, h * r, w * r], "i64", "out_shape"))],
                       {"special_zero": False})
    cases.add("pixel_shuffle_reshape_transpose", model({"out": x}, [d], "pixel_shuffle"), {"data": values})
    want = values.reshape(n, c, r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c, h * r, w * r)
    if not np.array_equal(ref_depth_to_space(values, "depth_first", r), want):
        raise ValueError("pixel shuffle: DepthToSpace differs from its Reshape-Transpose-Reshape form")


# OpenVINO's op_reference cases (shuffle_channels.cpp): name, data shape,
# axis, group, expected output of np.arange data (every case's data is
# 0..59, the 5-D case's four times over, which arange modulo 60 gives).
SHUFFLE_ROW = [v for g in range(3) for j in range(5) for v in range(12 * j + 4 * g, 12 * j + 4 * g + 4)]
SHUFFLE_UPSTREAM = [
    ("simple", (1, 15, 2, 2), 1, 5, SHUFFLE_ROW),
    ("negative_axis", (15, 2, 1, 2), -4, 5, SHUFFLE_ROW),
    ("float", (6, 1, 1, 1), 0, 2, [0, 3, 1, 4, 2, 5]),
    ("1d", (15,), 0, 5, [0, 3, 6, 9, 12, 1, 4, 7, 10, 13, 2, 5, 8, 11, 14]),
    ("2d", (15, 4), 0, 5, SHUFFLE_ROW),
    ("3d", (15, 2, 2), 0, 5, SHUFFLE_ROW),
    ("5d", (2, 2, 15, 2, 2), 2, 5, SHUFFLE_ROW * 4),
]


def build_shuffle(cases: Cases):
    for tag, shape, axis, group, want in SHUFFLE_UPSTREAM:
        data = (np.arange(int(np.prod(shape))) % 60).astype(np.float32).reshape(shape)
        if ref_shuffle_channels(data, axis, group).reshape(-1).tolist() != want:
            raise ValueError(f"shuffle_channels_{tag}: the reference does not give OpenVINO's answer")
        d = param("data", "f32", shape)
        cases.add(f"shuffle_channels_upstream_{tag}",
                  model({"out": shuffle_channels(d, axis, group)}, [d], "shuffle_channels"), {"data": data})

    # Every axis of a rank-4 tensor, negative ones, and groups from one to
    # the whole axis (which moves nothing).
    shape = (2, 6, 4, 6)
    for axis, group in ((0, 2), (1, 3), (-2, 2), (3, 3), (-1, 2), (1, 1), (1, 6)):
        d = param("data", "i32", shape)
        tag = f"axis{axis}_g{group}".replace("-", "m")
        cases.add(f"shuffle_channels_{tag}_i32",
                  model({"out": shuffle_channels(d, axis, group)}, [d], "shuffle_channels"),
                  {"data": arange(shape, "i32")})

    # Every ordinary element type.
    for et in ALL_TYPES:
        d = param("data", et, (2, 6, 3))
        cases.add(f"shuffle_channels_type_{et}",
                  model({"out": shuffle_channels(d, 1, 3)}, [d], "shuffle_channels"), {"data": arange((2, 6, 3), et)})

    # Strings and packed types.
    d = param("data", "string", (2, 4, 3))
    cases.add("shuffle_channels_string_param",
              model({"out": shuffle_channels(d, 1, 2)}, [d], "shuffle_channels"), {"data": strings((2, 4, 3))},
              no_check=SHUFFLE_STRINGS)
    for et in ("u4", "i4", "u1", "u3"):
        data = code_const(codes(et, (3, 6)), et, "data")
        cases.add(f"shuffle_channels_type_{et}",
                  model({"out": shuffle_channels(data, -1, 3)}, [], "shuffle_channels"), no_check=SHUFFLE_PACKED)

    # An empty batch, and data whose shape is known only at run time,
    # fitting the groups or not.
    d = param("data", "f32", (0, 6, 2))
    cases.add("shuffle_channels_empty", model({"out": shuffle_channels(d, 1, 2)}, [d], "shuffle_channels"),
              {"data": arange((0, 6, 2))})
    d = param("data", "f32", "[?,?,?]")
    cases.add("shuffle_channels_dynamic_f32", model({"out": shuffle_channels(d, 1, 4)}, [d], "shuffle_channels"),
              {"data": arange((2, 8, 3))})
    d = param("data", "f32", "[?,?,?]")
    cases.add("shuffle_channels_runtime_bad_groups",
              model({"out": shuffle_channels(d, 1, 4)}, [d], "shuffle_channels"), {"data": arange((2, 6, 3))},
              expected_error="multiple of its 4 groups")

    # What OpenVINO refuses when it reads the model.
    d = param("data", "f32", (2, 6, 3))
    x, w = serialize_text(model({"out": shuffle_channels(d, 1, 3)}, [d], "shuffle_channels"))
    cases.bad("shuffle_channels_groups_not_dividing", set_attr(x, "shuffle_channels", "group", "4"), w,
              "multiple of its 4 groups")
    cases.bad("shuffle_channels_group_zero", set_attr(x, "shuffle_channels", "group", "0"), w, "1 or more")
    cases.bad("shuffle_channels_axis_out_of_range", set_attr(x, "shuffle_channels", "axis", "3"), w, "axis")


# OpenVINO's op_reference cases (batch_to_space.cpp, space_to_batch.cpp):
# name, data shape, data, block, begin, end, expected output.
B2S_DATA_24 = list(range(1, 25))
B2S_UPSTREAM = [
    ("4x3", (4, 3), list(range(1, 13)), [1, 2], [0, 0], [0, 0], [1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12]),
    ("4x1x3", (4, 1, 3), list(range(1, 13)), [1, 1, 2], [0, 0, 0], [0, 0, 0],
     [1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12]),
    ("4x1x1x3", (4, 1, 1, 3), list(range(1, 13)), [1, 1, 1, 2], [0] * 4, [0] * 4,
     [1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12]),
    ("4x1x1x3_1", (4, 1, 1, 3), list(range(1, 13)), [1, 1, 2, 1], [0] * 4, [0] * 4,
     [1, 2, 3, 7, 8, 9, 4, 5, 6, 10, 11, 12]),
    ("4x1x1x3_2", (4, 1, 1, 3), list(range(1, 13)), [1, 1, 2, 2], [0] * 4, [0] * 4,
     [1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12]),
    ("4x1x2x3", (4, 1, 2, 3), B2S_DATA_24, [1, 1, 1, 2], [0] * 4, [0] * 4,
     [1, 13, 2, 14, 3, 15, 4, 16, 5, 17, 6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23, 12, 24]),
    ("4x1x2x3_1", (4, 1, 2, 3), B2S_DATA_24, [1, 1, 2, 1], [0] * 4, [0] * 4,
     [1, 2, 3, 13, 14, 15, 4, 5, 6, 16, 17, 18, 7, 8, 9, 19, 20, 21, 10, 11, 12, 22, 23, 24]),
    ("4x1x2x3_2", (4, 1, 2, 3), B2S_DATA_24, [1, 1, 2, 2], [0] * 4, [0] * 4,
     [1, 7, 2, 8, 3, 9, 13, 19, 14, 20, 15, 21, 4, 10, 5, 11, 6, 12, 16, 22, 17, 23, 18, 24]),
    ("crop_4x1x2x3", (4, 1, 2, 3), B2S_DATA_24, [1, 1, 2, 2], [0] * 4, [0, 0, 0, 2],
     [1, 7, 2, 8, 13, 19, 14, 20, 4, 10, 5, 11, 16, 22, 17, 23]),
    ("crop_4x1x2x3_1", (4, 1, 2, 3), B2S_DATA_24, [1, 1, 2, 2], [0, 0, 0, 2], [0] * 4,
     [2, 8, 3, 9, 14, 20, 15, 21, 5, 11, 6, 12, 17, 23, 18, 24]),
    ("crop_4x1x2x3_2", (4, 1, 2, 3), B2S_DATA_24, [1, 1, 2, 2], [0, 0, 1, 0], [0, 0, 1, 0],
     [13, 19, 14, 20, 15, 21, 4, 10, 5, 11, 6, 12]),
]
S2B_UPSTREAM = [
    ("4d", (1, 1, 2, 2), [1, 1, 1, 1], [1, 1, 1, 1], [0] * 4, [0] * 4, [1, 1, 1, 1]),
    ("5d", (1, 1, 3, 2, 1), [1] * 6, [1, 1, 3, 2, 2], [0, 0, 1, 0, 3], [0, 0, 2, 0, 0],
     [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0,
      0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0]),
    ("4x4", (1, 1, 4, 4), [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], [1, 1, 1, 1], [0, 0, 1, 0],
     [0] * 4, [0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]),
]


def block_model(make, shape, et, block, begin, end, ints="i64", runtime=False):
    """A model of `make` on data of `shape`, with block and crops or pads
    as Consts or (runtime) Parameters; the inputs it takes."""
    d = param("data", et, shape)
    values = {"block": block, "begin": begin, "end": end}
    if runtime:
        ps = [param(n, ints, (len(block),)) for n in values]
        inputs = {n: np.array(v, NP_DTYPE[ints]) for n, v in values.items()}
        return model({"out": make(d, *ps)}, [d, *ps], make.__name__), inputs
    cs = [const(v, ints, n) for n, v in values.items()]
    return model({"out": make(d, *cs)}, [d], make.__name__), {}


def build_batch(cases: Cases):
    for tag, shape, values, block, begin, end, want in B2S_UPSTREAM:
        data = np.array(values, np.float32).reshape(shape)
        if ref_batch_to_space(data, block, begin, end).reshape(-1).tolist() != want:
            raise ValueError(f"b2s_{tag}: the reference does not give OpenVINO's answer")
        # As upstream: block and crops are Parameters.
        m, inputs = block_model(batch_to_space, shape, "f32", block, begin, end, runtime=True)
        cases.add(f"b2s_upstream_{tag}", m, {"data": data, **inputs})
    for tag, shape, values, block, begin, end, want in S2B_UPSTREAM:
        data = np.array(values, np.float32).reshape(shape)
        if ref_space_to_batch(data, block, begin, end).reshape(-1).tolist() != want:
            raise ValueError(f"s2b_{tag}: the reference does not give OpenVINO's answer")
        m, _ = block_model(space_to_batch, shape, "f32", block, begin, end)
        cases.add(f"s2b_upstream_{tag}", m, {"data": data})

    # Blocks on every axis, crops and pads that cut blocks or not, i32
    # parameters, and blocks of 1 with nothing to crop (the data itself).
    for tag, shape, block, begin, end in (
            ("nchw", (12, 2, 3, 4), [1, 1, 3, 2], [0, 1, 1, 1], [0, 0, 2, 3]),
            ("aligned", (8, 2, 3, 2), [1, 2, 2, 2], [0, 0, 2, 0], [0, 0, 0, 2]),
            ("r3", (6, 2, 5), [1, 3, 2], [0, 1, 3], [0, 2, 0]),
            ("identity", (2, 3, 4), [1, 1, 1], [0, 0, 0], [0, 0, 0])):
        m, _ = block_model(batch_to_space, shape, "i32", block, begin, end, ints="i32")
        cases.add(f"b2s_{tag}_i32", m, {"data": arange(shape, "i32")})
    for tag, shape, block, begin, end in (
            ("nchw", (2, 3, 4, 5), [1, 1, 2, 4], [0, 0, 0, 1], [0, 0, 0, 2]),
            ("uneven", (2, 2, 5, 7), [1, 2, 3, 2], [0, 1, 2, 0], [0, 1, 2, 1]),
            ("nhwc", (1, 4, 6, 3), [1, 2, 2, 1], [0, 1, 1, 0], [0, 1, 1, 0]),
            ("wide_pads", (3, 1, 2), [1, 1, 4], [0, 0, 5], [0, 0, 1]),
            ("identity", (2, 3, 4), [1, 1, 1], [0, 0, 0], [0, 0, 0])):
        m, _ = block_model(space_to_batch, shape, "i32", block, begin, end, ints="i32")
        cases.add(f"s2b_{tag}_i32", m, {"data": arange(shape, "i32") + 1})

    # Every ordinary element type.
    for et in ALL_TYPES:
        m, _ = block_model(batch_to_space, (8, 3, 2), et, [1, 2, 4], [0, 1, 2], [0, 0, 3])
        cases.add(f"b2s_type_{et}", m, {"data": arange((8, 3, 2), et)})
        m, _ = block_model(space_to_batch, (2, 3, 5), et, [1, 1, 2], [0, 0, 1], [0, 0, 0])
        cases.add(f"s2b_type_{et}", m, {"data": arange((2, 3, 5), et)})

    # Strings (the pads are empty strings) and packed types.
    m, inputs = block_model(space_to_batch, (2, 5), "string", [1, 2], [0, 1], [0, 2], runtime=True)
    cases.add("s2b_string_param", m, {"data": strings((2, 5)), **inputs})
    m, _ = block_model(batch_to_space, (4, 3), "string", [1, 2], [0, 1], [0, 0])
    cases.add("b2s_string_param", m, {"data": strings((4, 3))}, no_check=BATCH_STRINGS)
    for et in ("u4", "i4", "u1", "u3"):
        data = code_const(codes(et, (2, 5)), et, "data")
        out = space_to_batch(data, const([1, 2], "i64", "block"), const([0, 1], "i64", "begin"),
                             const([0, 0], "i64", "end"))
        cases.add(f"s2b_type_{et}", model({"out": out}, [], "space_to_batch"), no_check=BATCH_PACKED)
        data = code_const(codes(et, (4, 3)), et, "data")
        out = batch_to_space(data, const([1, 2], "i64", "block"), const([0, 1], "i64", "begin"),
                             const([0, 2], "i64", "end"))
        cases.add(f"b2s_type_{et}", model({"out": out}, [], "batch_to_space"), no_check=BATCH_PACKED)

    # Zero-sized axes: crops that take a whole axis, an empty axis padded.
    m, _ = block_model(batch_to_space, (4, 2, 3), "f32", [1, 1, 2], [0, 0, 3], [0, 0, 3])
    cases.add("b2s_cropped_to_nothing", m, {"data": arange((4, 2, 3))})
    m, _ = block_model(space_to_batch, (2, 0, 3), "f32", [1, 1, 2], [0, 1, 1], [0, 1, 0])
    cases.add("s2b_empty_axis_padded", m, {"data": arange((2, 0, 3))})

    # Everything at run time, and what the kernel refuses then.
    m, inputs = block_model(space_to_batch, "[?,?,?,?]", "f32", [1, 1, 2, 3], [0, 0, 1, 2], [0, 0, 1, 1],
                            runtime=True)
    cases.add("s2b_runtime_all_f32", m, {"data": arange((2, 3, 4, 3)), **inputs})
    m, inputs = block_model(batch_to_space, "[?,?,?,?]", "f32", [1, 1, 2, 3], [0, 1, 1, 2], [0, 0, 0, 1],
                            runtime=True)
    cases.add("b2s_runtime_all_f32", m, {"data": arange((12, 3, 2, 3)), **inputs})
    for tag, make, shape, block, begin, end, phrase in (
            ("b2s_runtime_batch_not_divisible", batch_to_space, (6, 2), [1, 4], [0, 0], [0, 0], "multiple of 4"),
            ("b2s_runtime_crops_too_large", batch_to_space, (4, 2), [1, 2], [0, 3], [0, 2], "more than the 4"),
            ("b2s_runtime_negative_crop", batch_to_space, (4, 2), [1, 2], [0, -1], [0, 0], "negative"),
            ("b2s_runtime_batch_block", batch_to_space, (4, 2), [2, 2], [0, 0], [0, 0], "block_shape[0]"),
            ("s2b_runtime_pads_not_divisible", space_to_batch, (1, 5), [1, 2], [0, 0], [0, 0], "multiple of 2"),
            ("s2b_runtime_block_zero", space_to_batch, (1, 4), [1, 0], [0, 0], [0, 0], "1 or more")):
        m, inputs = block_model(make, shape, "f32", block, begin, end, runtime=True)
        cases.add(tag, m, {"data": arange(shape), **inputs}, expected_error=phrase)


def build(cases: Cases):
    build_depth(cases)
    build_shuffle(cases)
    build_batch(cases)


GENERATOR = Generator("block_ops", build, references={
    "DepthToSpace": evaluate_depth_to_space,
    "SpaceToDepth": evaluate_space_to_depth,
    "ShuffleChannels": evaluate_shuffle_channels,
    "BatchToSpace": evaluate_batch_to_space,
    "SpaceToBatch": evaluate_space_to_batch,
})
