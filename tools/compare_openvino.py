#!/usr/bin/env python3
"""Side-by-side latency of ovir and OpenVINO's CPU plugin on large tensors.

Run by hand (never in CI), from the repository root:

    cargo build --release -p ovir-cli
    python3 tools/compare_openvino.py [--iterations 30] [--ovir-iterations 1000] [--only NAME]
        [--markdown] [--keep DIR] [--ovir LABEL=PATH]... [--rounds N] [--ovir-only]

`--ovir` may be given several times to time several builds of ovir side by
side in the same run (for example a build from before a change and one from
after it); by default it times target/release/ovir as "ovir". `--rounds N` times the
builds in turns N times per workload and reports each build's median over
the rounds, and, with several builds, each one's ratio to the first: the
way to check that a change made no workload slower. `--ovir-only` leaves
out every runtime but ovir (and the memcpy), for such a check.

For every workload below it writes one IR with OpenVINO's own serializer
(ReverseSubsequences, which OpenVINO does not have, through the sample
generator's rules), one input file, and then times in this one process and
run:
  * OpenVINO's CPU plugin with 1 thread and with its default threads,
  * `np.flip(...).copy()` (for Reverse workloads),
  * a memcpy of the same bytes (`np.copyto` between two preallocated arrays;
    for Convert, of the larger of the input and the output),
  * `ovir bench` with 1 thread and with 2 threads, on the same IR and input,
  * ONNX Runtime with 1 thread, when it is installed, for the ReverseSequence
    workloads ONNX can express (batch and sequence axes 0 and 1) and the
    Gather, Slice, Concat and Broadcast (Expand) workloads; its
    session allocates each output, as its `run` does.
  * rten with 1 thread on the same ONNX models, through tools/rten-bench
    when it is built (`cargo build --release --manifest-path
    tools/rten-bench/Cargo.toml`), for the element types rten holds (f32
    and i8 here); its `run` also allocates each output.
The table gives median latencies in milliseconds and each one's ratio to the
memcpy. `ovir bench` runs take more iterations than the others (they cost
little), so that the ratio to its own memcpy, timed in turns of 50 runs,
rests on many turns.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset3 as ops3
import openvino.opset8 as ops8
from openvino.utils.node_factory import NodeFactory

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OVIR = os.path.join(REPO, "target", "release", "ovir")
RTEN = os.path.join(REPO, "tools", "rten-bench", "target", "release", "rten-bench")
SHAPE = (8, 64, 128, 128)  # 32 MiB of f32, as in the performance targets


def reverse_model(dtype, shape, mode, axes):
    data = ops1.parameter(shape, dtype, name="data")
    data.output(0).set_names({"data"})
    if mode == "index":
        second = ops1.constant(np.array(axes, dtype=np.int64))
    else:
        second = ops1.constant(np.array(axes, dtype=bool))
    node = NodeFactory("opset1").create("Reverse", [data.output(0), second.output(0)], {"mode": mode})
    node.output(0).set_names({"out"})
    return ov.Model([ops1.result(node)], [data], "reverse")


def rseq_model(dtype, shape, batch_axis, seq_axis, lengths):
    data = ops1.parameter(shape, dtype, name="data")
    data.output(0).set_names({"data"})
    lens = ops1.constant(lengths.astype(np.int32))
    node = ops1.reverse_sequence(data, lens, batch_axis, seq_axis)
    node.output(0).set_names({"out"})
    return ov.Model([ops1.result(node)], [data], "reverse_sequence")


TYPES = ((np.float32, "f32"), (np.int8, "i8"), (np.float16, "f16"), (np.int64, "i64"))

# Reverse configurations: (name, mode, axes). "mask_1010" reverses axes 0
# and 2 through a boolean mask.
REVERSES = (
    ("axis0", "index", [0]),
    ("axis1", "index", [1]),
    ("axis2", "index", [2]),
    ("axis3", "index", [3]),
    ("all", "index", [0, 1, 2, 3]),
    ("mask_1010", "mask", [True, False, True, False]),
)


def convert_model(dtype, shape, to):
    data = ops1.parameter(shape, dtype, name="data")
    data.output(0).set_names({"data"})
    node = ops1.convert(data, to)
    node.output(0).set_names({"out"})
    return ov.Model([ops1.result(node)], [data], "convert")


# Convert pairs: (source dtype, its short name, target type name).
CONVERTS = (
    (np.float32, "f32", "f16"),
    (np.float16, "f16", "f32"),
    (np.float32, "f32", "bf16"),
    (np.float32, "f32", "u8"),
    (np.float32, "f32", "i8"),
    (np.float32, "f32", "i32"),
    (np.int32, "i32", "f32"),
    (np.uint8, "u8", "f32"),
)


# The ops converters write that move data without a Reverse: a Gather,
# Slice, Concat or Broadcast, each an OpenVINO model and an ONNX one.
def movement_models(op, dtype, shape, a):
    """(OpenVINO model, ONNX model or None) of `op` on a `data` input of
    `shape`, with its other inputs constants made from `a`."""
    data = ops1.parameter(shape, dtype, name="data")
    i64 = lambda v: ops1.constant(np.array(v, np.int64))  # noqa: E731
    if op == "gather":
        indices, axis = a
        node = ops8.gather(data, i64(indices), i64(axis))
    elif op == "gather_nd":
        node = ops8.gather_nd(data, i64(a), 0)
    elif op == "slice":
        start, stop, step, axis = a
        node = ops8.slice(data, i64([start]), i64([stop]), i64([step]), i64([axis]))
    elif op == "concat":
        node = ops1.concat([data, data], a)
    else:
        node = ops3.broadcast(data, i64(a), "numpy")
    model = ov.Model([ops1.result(node)], [data], op)
    try:
        import onnx
        import onnx.helper as oh
        import onnx.numpy_helper  # noqa: F401
    except ImportError:
        return model, None
    elem = oh.np_dtype_to_tensor_dtype(np.dtype(dtype))
    out_shape = list(model.output(0).get_shape())
    const = lambda n, v: oh.make_tensor(n, onnx.TensorProto.INT64, [len(v)] if isinstance(v, list) else [], v if isinstance(v, list) else [v])  # noqa: E731
    if op == "gather":
        indices = np.asarray(a[0], np.int64)
        nodes = [oh.make_node("Gather", ["data", "i"], ["out"], axis=a[1])]
        inits = [onnx.numpy_helper.from_array(indices, "i")]
    elif op == "gather_nd":
        nodes = [oh.make_node("GatherND", ["data", "i"], ["out"])]
        inits = [onnx.numpy_helper.from_array(np.asarray(a, np.int64), "i")]
    elif op == "slice":
        nodes = [oh.make_node("Slice", ["data", "b", "e", "x", "s"], ["out"])]
        inits = [const("b", [a[0]]), const("e", [a[1]]), const("x", [a[3]]), const("s", [a[2]])]
    elif op == "concat":
        nodes, inits = [oh.make_node("Concat", ["data", "data"], ["out"], axis=a)], []
    else:
        nodes, inits = [oh.make_node("Expand", ["data", "t"], ["out"])], [const("t", list(a))]
    graph = oh.make_graph(nodes, op, [oh.make_tensor_value_info("data", elem, list(shape))],
                          [oh.make_tensor_value_info("out", elem, out_shape)], inits)
    return model, oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)])


# Rows picked in random order (with repeats) from data of 64 MiB, out of
# the cache, into 32 MiB outputs: rows of 64 bytes and of 256 bytes, by
# Gather and by GatherND.
_PICK = np.random.default_rng(11)
RAND64 = _PICK.integers(0, 1 << 20, size=1 << 19)
RAND256 = _PICK.integers(0, 1 << 18, size=1 << 17)

# (name, dtype, shape, op, its other inputs): a BGR<->RGB swap as
# PrePostProcessor's `reverse_channels` writes it, the channels rotated
# (a permutation that is not a reversal), reversed indices along
# the innermost axis and along rows of 1 KiB, every other element of each
# row, pairs put side by side, a column broadcast along its rows, and the
# random row gathers.
MOVEMENT = (("gather_bgr_u8", np.uint8, (1, 1080, 1920, 3), "gather", ([2, 1, 0], 3)),
            ("gather_rotate3_u8", np.uint8, (1, 1080, 1920, 3), "gather", ([1, 2, 0], 3)),
            ("gather_revlast_f32", np.float32, (64, 512, 256), "gather", (list(range(255, -1, -1)), 2)),
            ("gather_revrows_f32", np.float32, (64, 512, 256), "gather", (list(range(511, -1, -1)), 1)),
            ("slice_step2_f32", np.float32, (2048, 4096), "slice", (0, 4096, 2, 1)),
            ("concat_pairs_f32", np.float32, (1 << 20, 2), "concat", 1),
            ("broadcast_col_f32", np.float32, (2048, 1), "broadcast", [2048, 4096]),
            ("gather_rand64_f32", np.float32, (1 << 20, 16), "gather", (RAND64, 0)),
            ("gather_rand256_f32", np.float32, (1 << 18, 64), "gather", (RAND256, 0)),
            ("gathernd_rand64_f32", np.float32, (1 << 20, 16), "gather_nd", RAND64.reshape(-1, 1)),
            ("gathernd_rand256_f32", np.float32, (1 << 18, 64), "gather_nd", RAND256.reshape(-1, 1)))
ONNX_MODELS = {}


def _perms(rank):
    import itertools
    return [p for p in itertools.permutations(range(rank)) if list(p) != list(range(rank))]


# The layout ops, 32 MiB each (name, dtype, shape, op, its arguments):
# Transpose in every order of rank 2 to 4 of the shapes the targets name,
# and NHWC to NCHW of a 1080p image; the other layout ops on long
# stretches (64 bytes and more) and on short ones.
LAYOUT = tuple(
    [(f"transpose_64x512x256_{''.join(map(str, p))}_f32", np.float32, (64, 512, 256), "transpose", p)
     for p in _perms(3)]
    + [(f"transpose_8x64x128x128_{''.join(map(str, p))}_f32", np.float32, (8, 64, 128, 128), "transpose", p)
       for p in _perms(4)]
    + [("transpose_4096x2048_10_f32", np.float32, (4096, 2048), "transpose", (1, 0)),
       ("transpose_2x4194304_10_f32", np.float32, (2, 4194304), "transpose", (1, 0)),
       ("transpose_8192x4096_10_u8", np.uint8, (8192, 4096), "transpose", (1, 0)),
       ("transpose_nhwc_to_nchw_u8", np.uint8, (1, 1080, 1920, 3), "transpose", (0, 3, 1, 2)),
       ("transpose_nchw_to_nhwc_u8", np.uint8, (1, 3, 1080, 1920), "transpose", (0, 2, 3, 1)),
       ("roll_rows_f32", np.float32, (64, 512, 256), "roll", ([100], [1])),
       ("roll_inner_f32", np.float32, (64, 512, 256), "roll", ([-100], [2])),
       ("roll_short_u8", np.uint8, (1 << 22, 8), "roll", ([3], [1])),
       ("tile_rows_f32", np.float32, (64, 256, 256), "tile", [2, 1, 1]),
       ("tile_inner_f32", np.float32, (64, 512, 128), "tile", [1, 1, 2]),
       ("tile_short_u8", np.uint8, (1 << 22, 4), "tile", [1, 2]),
       ("pad_image_f32", np.float32, (8, 64, 126, 126), "pad", ("constant", [0, 0, 1, 1], [0, 0, 1, 1])),
       ("pad_reflect_f32", np.float32, (8, 64, 126, 126), "pad", ("reflect", [0, 0, 1, 1], [0, 0, 1, 1])),
       ("pad_short_u8", np.uint8, (1 << 22, 6), "pad", ("edge", [0, 1], [0, 1])),
       ("depth_to_space_f32", np.float32, (8, 256, 64, 64), "depth_to_space", ("blocks_first", 2)),
       ("space_to_depth_f32", np.float32, (8, 64, 128, 128), "space_to_depth", ("blocks_first", 2)),
       ("shuffle_channels_f32", np.float32, (8, 64, 128, 128), "shuffle_channels", 4),
       ("split_channels_f32", np.float32, (8, 64, 128, 128), "split", (1, 2)),
       ("split_batch_f32", np.float32, (8, 64, 128, 128), "split", (0, 2)),
       ("variadic_split_inner_f32", np.float32, (64, 512, 256), "variadic_split", (2, [100, 156])),
       ("strided_slice_step2_f32", np.float32, (2048, 4096), "strided_slice", ([0, 0], [0, 0], [1, 2])),
       ("strided_slice_flip_f32", np.float32, (2048, 4096), "strided_slice", ([0, 0], [0, 0], [-1, 1])),
       ("batch_to_space_f32", np.float32, (32, 64, 64, 64), "batch_to_space", [1, 1, 2, 2]),
       ("space_to_batch_f32", np.float32, (8, 64, 128, 128), "space_to_batch", [1, 1, 2, 2])])


def layout_models(op, dtype, shape, a):
    """(OpenVINO model, ONNX model or None) of layout op `op` on a `data`
    input of `shape`, its other inputs constants made from `a`."""
    data = ops1.parameter(shape, dtype, name="data")
    i64 = lambda v: ops1.constant(np.array(v, np.int64)).output(0)  # noqa: E731
    opset = lambda n: NodeFactory(f"opset{n}")  # noqa: E731
    d = data.output(0)
    if op == "transpose":
        node = ops1.transpose(data, i64(list(a)))
    elif op == "roll":
        node = opset(7).create("Roll", [d, i64(a[0]), i64(a[1])], {})
    elif op == "tile":
        node = ops1.tile(data, i64(a))
    elif op == "pad":
        node = opset(12).create("Pad", [d, i64(a[1]), i64(a[2])], {"pad_mode": a[0]})
    elif op in ("depth_to_space", "space_to_depth"):
        kind = "DepthToSpace" if op == "depth_to_space" else "SpaceToDepth"
        node = opset(1).create(kind, [d], {"mode": a[0], "block_size": a[1]})
    elif op == "shuffle_channels":
        node = opset(1).create("ShuffleChannels", [d], {"axis": 1, "group": a})
    elif op == "split":
        node = opset(1).create("Split", [d, i64(a[0])], {"num_splits": a[1]})
    elif op == "variadic_split":
        node = opset(1).create("VariadicSplit", [d, i64(a[0]), i64(a[1])], {})
    elif op == "strided_slice":
        begin, end, strides = a
        node = opset(1).create("StridedSlice", [d, i64(begin), i64(end), i64(strides)],
                               {"begin_mask": [1] * len(begin), "end_mask": [1] * len(end), "new_axis_mask": [],
                                "shrink_axis_mask": [], "ellipsis_mask": []})
    else:
        block = a
        zeros = [0] * len(shape)
        kind = "BatchToSpace" if op == "batch_to_space" else "SpaceToBatch"
        node = opset(2).create(kind, [d, i64(block), i64(zeros), i64(zeros)], {})
    model = ov.Model([ops1.result(o) for o in node.outputs()], [data], op)
    try:
        import onnx
        import onnx.helper as oh
        import onnx.numpy_helper  # noqa: F401
    except ImportError:
        return model, None
    elem = oh.np_dtype_to_tensor_dtype(np.dtype(dtype))
    ints = lambda n, v: oh.make_tensor(n, onnx.TensorProto.INT64, [len(v)], list(v))  # noqa: E731
    outs = [f"out{i}" for i in range(len(node.outputs()))]
    if op == "transpose":
        nodes, inits = [oh.make_node("Transpose", ["data"], outs, perm=list(a))], []
    elif op == "tile":
        nodes, inits = [oh.make_node("Tile", ["data", "r"], outs)], [ints("r", a)]
    elif op == "pad":
        nodes, inits = [oh.make_node("Pad", ["data", "p"], outs, mode=a[0])], [ints("p", list(a[1]) + list(a[2]))]
    elif op in ("depth_to_space", "space_to_depth") and a[0] == "blocks_first":
        kind = "DepthToSpace" if op == "depth_to_space" else "SpaceToDepth"
        extra = {"mode": "DCR"} if op == "depth_to_space" else {}
        nodes, inits = [oh.make_node(kind, ["data"], outs, blocksize=a[1], **extra)], []
    elif op == "split":
        nodes, inits = [oh.make_node("Split", ["data"], outs, axis=a[0], num_outputs=a[1])], []
    elif op == "variadic_split":
        nodes, inits = [oh.make_node("Split", ["data", "l"], outs, axis=a[0])], [ints("l", a[1])]
    elif op == "strided_slice":
        n = len(shape)
        starts = [0 if s > 0 else -1 for s in a[2]]
        ends = [2 ** 62 if s > 0 else -(2 ** 62) for s in a[2]]
        nodes = [oh.make_node("Slice", ["data", "b", "e", "x", "s"], outs)]
        inits = [ints("b", starts), ints("e", ends), ints("x", list(range(n))), ints("s", a[2])]
    else:
        return model, None
    graph = oh.make_graph(nodes, op, [oh.make_tensor_value_info("data", elem, list(shape))],
                          [oh.make_tensor_value_info(o, elem, None) for o in outs], inits)
    return model, oh.make_model(graph, opset_imports=[oh.make_opsetid("", 18)])


# Short rows: ReverseSequence whose sequences are 32-byte rows, and
# Reverse of rows of 32 bytes along the innermost axis; 32 MiB each.
ROWS32_U8 = (128, 8192, 32)
ROWS32_F32 = (1 << 20, 8)
ROWS32_BYTES = (1 << 20, 32)
# Rows shorter than a register, a head reversed in each: (dtype, name,
# shape), 8 MiB each.
HEAD_ROWS = ((np.int8, "i8", (1 << 20, 8)), (np.int8, "i8", ((8 << 20) // 24, 24)),
             (np.float32, "f32", ((2 << 20) // 6, 6)))
# Short rows along the sequence axis in runs of two that share their batch
# index's length (batch 0, sequence 2; ONNX cannot put the sequence axis
# there): (dtype, name, shape), 8 MiB each.
RUN_ROWS = ((np.float32, "f32", ((2 << 20) // 12, 2, 6)), (np.int8, "i8", ((8 << 20) // 16, 2, 8)))
# Few elements per batch index and position: time-major `[T, B]` (batch
# 1, sequence 0), and two, twelve and sixteen bytes after the sequence
# axis (batch 0, sequence 1); 8 MiB each. (name, dtype, shape, batch
# axis, seq axis)
SMALL_BLOCKS = (("rseq_tm_f32", np.float32, (4096, 512), 1, 0),
                ("rseq_inner2_i8", np.int8, ((8 << 20) // 16, 8, 2), 0, 1),
                ("rseq_blocks12_f32", np.float32, ((2 << 20) // 24, 8, 3), 0, 1),
                ("rseq_blocks16_f32", np.float32, ((2 << 20) // 32, 8, 4), 0, 1))
# Time-major (batch 1, sequence 0) with longer blocks per batch index and
# position, each read from its own position: `[512, 64, 256]` as in the
# targets, blocks of 32 bytes along 4096 positions, and blocks of 256
# bytes in 32 MiB, an output large enough to stream.
TIME_MAJOR = (("rseq_tm256_u8", np.uint8, (512, 64, 256)),
              ("rseq_tm1k_f32", np.float32, (512, 64, 256)),
              ("rseq_tm32_u8", np.uint8, (4096, 64, 32)),
              ("rseq_tm256_u8_32m", np.uint8, (2048, 64, 256)))

# Images with their channels swapped (RGB to BGR and back): Reverse of
# the innermost axis of a 1080p NHWC image, rows of three elements; and
# flipped left to right.
RGB = ((np.uint8, "u8"), (np.float16, "f16"), (np.float32, "f32"))
RGB_SHAPE = (1, 1080, 1920, 3)
# Images of four channels (RGBA) flipped left to right: pixels of 4 bytes
# (`u8`) and 16 bytes (`f32`), which move as one element.
RGBA = ((np.uint8, "u8"), (np.float32, "f32"))
RGBA_SHAPE = (1, 1080, 1920, 4)

# ReverseSubsequences with a random length per line: (axis, dtype, short
# name). OpenVINO has no such op, so these rows have no OpenVINO column.
SUBSEQUENCES = ((0, np.float32, "f32"), (1, np.float32, "f32"), (2, np.float32, "f32"),
                (3, np.float32, "f32"), (0, np.uint8, "u8"), (1, np.uint8, "u8"), (3, np.uint8, "u8"),
                (1, np.float16, "f16"), (1, np.int64, "i64"))


def subsequences_writer(dtype, tname, axis, rng):
    """Writes a ReverseSubsequences IR over SHAPE with random i32 lengths
    (a Const), through the sample generator's XML rules."""
    sys.path.insert(0, os.path.join(REPO, "tools"))
    from samples.generators.reverse_subsequences import subsequences_xml  # noqa: E402  (only these workloads)

    lengths_shape = tuple(1 if i == axis else d for i, d in enumerate(SHAPE))
    lengths = rng.integers(1, SHAPE[axis] + 1, size=lengths_shape).astype(np.int32)

    def write(xml_path):
        with open(xml_path, "w") as f:
            f.write(subsequences_xml(SHAPE, tname, lengths_shape, "i32", axis, False))
        with open(xml_path[:-4] + ".bin", "wb") as f:
            f.write(lengths.tobytes())
    return write


def workloads(rng):
    """(name, dtype, shape, model builder or None, numpy reference or None,
    IR writer for ops OpenVINO cannot build, or None)."""
    for ty, tname in TYPES:
        for cname, mode, axes in REVERSES:
            flip_axes = tuple(i for i, a in enumerate(axes) if a is True) if mode == "mask" else tuple(axes)
            yield (f"reverse_{cname}_{tname}", ty, SHAPE,
                   (lambda t=ty, m=mode, a=axes: reverse_model(t, SHAPE, m, a)),
                   (lambda x, f=flip_axes: np.flip(x, f)), None)
    # Lengths drawn at random in [1, dim], as in the targets.
    lens1 = rng.integers(1, SHAPE[1] + 1, size=SHAPE[0])
    lens3 = rng.integers(1, SHAPE[3] + 1, size=SHAPE[0])
    lens0 = rng.integers(1, SHAPE[0] + 1, size=SHAPE[1])
    for ty, tname in TYPES:
        ONNX_RSEQ[f"rseq_b0_s1_{tname}"] = (0, 1, lens1)
        ONNX_RSEQ[f"rseq_b1_s0_{tname}"] = (1, 0, lens0)
        yield f"rseq_b0_s1_{tname}", ty, SHAPE, (lambda t=ty: rseq_model(t, SHAPE, 0, 1, lens1)), None, None
        yield f"rseq_b0_s3_{tname}", ty, SHAPE, (lambda t=ty: rseq_model(t, SHAPE, 0, 3, lens3)), None, None
        yield f"rseq_b1_s0_{tname}", ty, SHAPE, (lambda t=ty: rseq_model(t, SHAPE, 1, 0, lens0)), None, None
    for ty, tname, to in CONVERTS:
        yield f"convert_{tname}_{to}", ty, SHAPE, (lambda t=ty, o=to: convert_model(t, SHAPE, o)), None, None
    lens_rows = rng.integers(1, ROWS32_U8[1] + 1, size=ROWS32_U8[0])
    yield ("rseq_rows32_u8", np.uint8, ROWS32_U8,
           (lambda: rseq_model(np.uint8, ROWS32_U8, 0, 1, lens_rows)), None, None)
    for ty, tname, shape in ((np.float32, "f32", ROWS32_F32), (np.uint8, "u8", ROWS32_BYTES)):
        yield (f"reverse_rows32_{tname}", ty, shape,
               (lambda t=ty, sh=shape: reverse_model(t, sh, "index", [1])),
               (lambda x: np.flip(x, 1)), None)
    for ty, tname in RGB:
        yield (f"reverse_rgb_{tname}", ty, RGB_SHAPE,
               (lambda t=ty: reverse_model(t, RGB_SHAPE, "index", [3])),
               (lambda x: np.flip(x, 3)), None)
    # The same images flipped left to right: pixels of three elements in
    # descending order along each line.
    for ty, tname in RGB:
        yield (f"reverse_hflip_{tname}", ty, RGB_SHAPE,
               (lambda t=ty: reverse_model(t, RGB_SHAPE, "index", [2])),
               (lambda x: np.flip(x, 2)), None)
    for ty, tname in RGBA:
        yield (f"reverse_hflip4_{tname}", ty, RGBA_SHAPE,
               (lambda t=ty: reverse_model(t, RGBA_SHAPE, "index", [2])),
               (lambda x: np.flip(x, 2)), None)
    # A head of random length reversed in every short row (batch 0,
    # sequence 1): one length per row, so reading the lengths costs as
    # much as a good part of the copy.
    for ty, tname, shape in HEAD_ROWS:
        lens_heads = rng.integers(1, shape[1] + 1, size=shape[0])
        name = f"rseq_heads{shape[1] * np.dtype(ty).itemsize}_{tname}"
        ONNX_RSEQ[name] = (0, 1, lens_heads)
        yield (name, ty, shape, (lambda t=ty, sh=shape, l=lens_heads: rseq_model(t, sh, 0, 1, l)), None, None)
    # The same with every length shared by a run of two rows.
    for ty, tname, shape in RUN_ROWS:
        lens_runs = rng.integers(0, shape[2] + 1, size=shape[0])
        name = f"rseq_runs{shape[2] * np.dtype(ty).itemsize}_{tname}"
        yield (name, ty, shape, (lambda t=ty, sh=shape, l=lens_runs: rseq_model(t, sh, 0, 2, l)), None, None)
    for name, ty, shape, batch, seq in SMALL_BLOCKS:
        lens_blocks = rng.integers(0, shape[seq] + 1, size=shape[batch])
        ONNX_RSEQ[name] = (batch, seq, lens_blocks)
        yield (name, ty, shape,
               (lambda t=ty, sh=shape, b=batch, q=seq, l=lens_blocks: rseq_model(t, sh, b, q, l)), None, None)
    for axis, ty, tname in SUBSEQUENCES:
        yield (f"subseq_axis{axis}_{tname}", ty, SHAPE, None, None,
               subsequences_writer(ty, tname, axis, rng))
    for name, ty, shape, op, a in MOVEMENT:
        model, onnx_model = movement_models(op, ty, shape, a)
        ONNX_MODELS[name] = onnx_model
        yield name, ty, shape, (lambda m=model: m), None, None
    for name, ty, shape, op, a in LAYOUT:
        model, onnx_model = layout_models(op, ty, shape, a)
        ONNX_MODELS[name] = onnx_model
        yield name, ty, shape, (lambda m=model: m), None, None
    for name, ty, shape in TIME_MAJOR:
        lens_tm = rng.integers(1, shape[0] + 1, size=shape[1])
        ONNX_RSEQ[name] = (1, 0, lens_tm)
        yield (name, ty, shape, (lambda t=ty, sh=shape, l=lens_tm: rseq_model(t, sh, 1, 0, l)), None, None)


# The ReverseSequence workloads ONNX can express: name -> (batch axis,
# sequence axis, lengths).
ONNX_RSEQ = {}


def onnx_rseq(name, dtype, x):
    """The workload as an ONNX model (opset 13, every input but the data a
    constant): a ReverseSequence, or the Gather, Slice, Concat or Expand
    of a movement workload; None when it has no ONNX form or `onnx` is
    missing."""
    if name in ONNX_MODELS:
        return ONNX_MODELS[name]
    if name not in ONNX_RSEQ:
        return None
    try:
        import onnx
        import onnx.helper as oh
        import onnx.numpy_helper  # noqa: F401
    except ImportError:
        return None
    batch, seq, lengths = ONNX_RSEQ[name]
    elem = oh.np_dtype_to_tensor_dtype(np.dtype(dtype))
    node = oh.make_node("ReverseSequence", ["data", "lens"], ["out"], batch_axis=batch, time_axis=seq)
    graph = oh.make_graph(
        [node], "rseq",
        [oh.make_tensor_value_info("data", elem, list(x.shape))],
        [oh.make_tensor_value_info("out", elem, list(x.shape))],
        [oh.make_tensor("lens", onnx.TensorProto.INT64, [len(lengths)], lengths.astype(np.int64).tolist())])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)])


def time_onnxruntime(name, dtype, x, iterations):
    """Median ms of ONNX Runtime's model of the workload on `x`, 1 thread; None
    when onnxruntime is missing, the workload has no ONNX form, or the
    runtime refuses the element type."""
    model = onnx_rseq(name, dtype, x)
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    if model is None:
        return None
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001  (a type ONNX Runtime does not implement)
        print(f"onnxruntime refuses {name}: {str(e).splitlines()[0]}", file=sys.stderr)
        return None
    return median_ms(lambda: session.run(None, {"data": x}), iterations)


def time_rten(binary, name, dtype, x, npy, tmp, iterations):
    """Median ms of rten's ReverseSequence on `x`, 1 thread, through
    `tools/rten-bench`; None when that is not built, the workload has no
    ONNX form, or rten has no tensors of the element type (it holds f32,
    i32, i8 and u8)."""
    if not binary or not os.path.exists(binary):
        return None
    model = onnx_rseq(name, dtype, x)
    if model is None:
        return None
    path = os.path.join(tmp, f"{name}.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    # Without a backtrace, the error message is the last line of stderr.
    env = dict(os.environ, RUST_BACKTRACE="0", RUST_LIB_BACKTRACE="0")
    done = subprocess.run([binary, path, npy, str(iterations)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
        print(f"rten refuses {name}: {why}", file=sys.stderr)
        return None
    return float(json.loads(done.stdout)["median_ms"])


def median_ms(fn, iterations, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times) * 1e3)


def time_openvino(core, model, x, threads, iterations):
    config = {"INFERENCE_NUM_THREADS": threads} if threads else {}
    compiled = core.compile_model(model, "CPU", config)
    request = compiled.create_infer_request()
    request.set_input_tensor(0, ov.Tensor(x))
    return median_ms(request.infer, iterations)


def time_ovir(binary, xml, npy, threads, iterations):
    cmd = [binary, "bench", xml, "-i", f"data={npy}", "--iterations", str(iterations), "--warmup", "3",
           "--threads", str(threads), "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--ovir-iterations", type=int, default=1000, help="timed runs per `ovir bench`")
    parser.add_argument("--only", help="run only workloads whose name contains this (or one of these, comma-separated)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--keep", metavar="DIR", help="write the IR and input files here and keep them")
    parser.add_argument("--ovir", action="append", metavar="LABEL=PATH",
                        help="an ovir binary to time, under this label (repeatable; default ovir=target/release/ovir)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="time the ovir builds in turns this many times; report the median of the rounds")
    parser.add_argument("--ovir-only", action="store_true",
                        help="time only the ovir builds and the memcpy, not OpenVINO, ONNX Runtime, rten or NumPy")
    parser.add_argument("--rten", metavar="PATH", default=RTEN,
                        help="the rten-bench binary (default: tools/rten-bench's release build, when built)")
    args = parser.parse_args()
    builds = []
    for spec in args.ovir or [f"ovir={OVIR}"]:
        label, sep, path = spec.partition("=")
        if not sep or not label or not path:
            sys.exit(f"--ovir {spec!r}: expected LABEL=PATH")
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: run `cargo build --release -p ovir-cli` first")
        builds.append((label, path))

    rng = np.random.default_rng(7)
    core = ov.Core()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or scratch
        os.makedirs(tmp, exist_ok=True)
        for name, dtype, shape, build, flip, write in workloads(rng):
            if args.only and not any(part in name for part in args.only.split(",")):
                continue
            model = build() if build else None
            xml = os.path.join(tmp, f"{name}.xml")
            if model is not None:
                ov.save_model(model, xml, compress_to_fp16=False)
            else:
                write(xml)
            x = (np.arange(np.prod(shape)) % 251).astype(dtype).reshape(shape)
            npy = os.path.join(tmp, f"{name}.npy")
            np.save(npy, x)
            # The memcpy moves the larger of the input and the output (they
            # differ for Convert).
            out_bytes = x.nbytes
            if model is not None:
                out = model.output(0)
                out_bytes = int(np.prod(list(out.get_shape()))) * out.get_element_type().size
            nbytes = max(x.nbytes, out_bytes)
            src, dst = np.ones(nbytes, np.uint8), np.empty(nbytes, np.uint8)
            row = {"workload": name, "mib": nbytes / 2**20}
            row["memcpy"] = median_ms(lambda: np.copyto(dst, src), args.iterations)
            others = not args.ovir_only
            row["numpy_flip"] = median_ms(lambda: flip(x).copy(), args.iterations) if flip and others else None
            has_ov = model is not None and others
            row["ov_1t"] = time_openvino(core, model, x, 1, args.iterations) if has_ov else None
            row["ov_default"] = time_openvino(core, model, x, 0, args.iterations) if has_ov else None
            row["ort_1t"] = time_onnxruntime(name, dtype, x, args.iterations) if others else None
            row["rten_1t"] = time_rten(args.rten, name, dtype, x, npy, tmp, args.iterations) if others else None
            # Builds in turns, so that a busy spell of the host falls on
            # every build alike; the median over the rounds.
            rounds = {label: {"1t": [], "2t": [], "memcpy": []} for label, _ in builds}
            for _ in range(max(1, args.rounds)):
                for label, path in builds:
                    one = time_ovir(path, xml, npy, 1, args.ovir_iterations)
                    two = time_ovir(path, xml, npy, 2, args.ovir_iterations)
                    rounds[label]["1t"].append(one["median_ms"])
                    rounds[label]["2t"].append(two["median_ms"])
                    rounds[label]["memcpy"].append(one["memcpy_median_ms"])
            for label, _ in builds:
                row[f"{label}_1t"] = float(np.median(rounds[label]["1t"]))
                row[f"{label}_2t"] = float(np.median(rounds[label]["2t"]))
                row[f"{label}_memcpy"] = float(np.median(rounds[label]["memcpy"]))
            rows.append(row)
            print(f"done {name}", file=sys.stderr)

    cols = ["ov_1t", "ov_default", "ort_1t", "rten_1t", "numpy_flip"] + [f"{l}_{t}" for l, _ in builds for t in ("1t", "2t")]
    first = builds[0][0]
    later = [l for l, _ in builds[1:]]
    head = (["workload", "MiB", "memcpy ms"] + [f"{c} ms (×memcpy)" for c in cols]
            + [h for l, _ in builds for h in (f"{l}'s own memcpy ms", f"{l} 1t ÷ own memcpy")]
            + [h for l in later for h in (f"{l} 1t ÷ {first} 1t", f"{l} 2t ÷ {first} 2t")])

    def cell(row, c):
        v = row[c]
        return "—" if v is None else f"{v:.2f} ({v / row['memcpy']:.2f}×)"

    lines = []
    for row in rows:
        lines.append([row["workload"], f"{row['mib']:.0f}", f"{row['memcpy']:.2f}"]
                     + [cell(row, c) for c in cols]
                     + [v for l, _ in builds for v in (f"{row[f'{l}_memcpy']:.2f}",
                                                       f"{row[f'{l}_1t'] / row[f'{l}_memcpy']:.2f}×")]
                     + [f"{row[f'{l}_{t}'] / row[f'{first}_{t}']:.3f}" for l in later for t in ("1t", "2t")])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, OpenVINO {ov.get_version()}, numpy {np.__version__}, "
          f"{max(1, args.rounds)} round(s) of {args.ovir_iterations} ovir runs")
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(h), *(len(l[i]) for l in lines)) for i, h in enumerate(head)]
        print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
        for line in lines:
            print("  ".join(v.ljust(w) for v, w in zip(line, widths)))


if __name__ == "__main__":
    main()
