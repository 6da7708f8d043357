"""Col2Im-15: the values of OpenVINO's op_reference tests on every type
they take (i32, i64, u32, u64, f16, f32) with i32 and i64 sizes, every
ordinary type and bf16, batched and unbatched data, strides, dilations (0
too), pads, blocks that overlap and blocks that leave pixels out, sizes
given at run time, a shape computed in the graph as the output size,
zero-sized data and images, sums that wrap or round, and what OpenVINO
refuses when the model loads or runs."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, NP_DTYPE, WIDE_TYPES
from ..evaluate import Call, RefError
from ..graph import _out, const, convert, model, param, serialize_text
from ..registry import Generator
from ..xmltext import const_span, edit_layer, edit_port, set_attr, set_port_dims
from .scatter import bf16_round

OPSET15 = NodeFactory("opset15")

# Measured with OpenVINO 2026.4.1.
F16_IN_F32 = ("the CPU plugin adds f16 in f32 and rounds once (this machine has no f16 arithmetic), where the "
              "reference rounds after each addition")
WIDE = "the CPU plugin runs i64, u64 and f64 in 32 bits"
EMPTY_DATA = "the CPU plugin leaves the image unwritten when the data holds no element"
RUN_TIME_CHECKS = "the CPU plugin does not check the sizes given at run time (it reads past the data or crashes)"


def blocks(size: int, kernel: int, stride: int, dilation: int, pad_begin: int, pad_end: int) -> int:
    """The blocks along one axis; none when the kernel does not fit."""
    room = size + pad_begin + pad_end - (dilation * (kernel - 1) + 1)
    return room // stride + 1 if room >= 0 else 0


def ints(value) -> list[int]:
    return [int(v) for v in (value.split(",") if isinstance(value, str) else value)]


def add(a: np.ndarray, b: np.ndarray, et: str) -> np.ndarray:
    """`a + b` in the element type, as OpenVINO's reference adds: integers
    wrap, booleans OR, floats round to their type after each addition."""
    if et == "boolean":
        return a | b
    with np.errstate(all="ignore"):
        r = (a + b).astype(a.dtype)
    return bf16_round(r) if et == "bf16" else r


def ref_col2im(data: np.ndarray, output_size: np.ndarray, kernel_size: np.ndarray, types: list[str],
               strides, dilations, pads_begin, pads_end) -> np.ndarray:
    et, size_types = types[0], types[1:]
    if any(t not in ("i32", "i64") for t in size_types) or size_types[0] != size_types[1]:
        raise RefError("Col2Im output_size and kernel_size must be both i32 or both i64")
    if output_size.shape != (2,) or kernel_size.shape != (2,):
        raise RefError("Col2Im output_size and kernel_size must hold 2 values")
    if data.ndim not in (2, 3):
        raise RefError("Col2Im data must be 2-D or 3-D")
    (h, w), (kh, kw) = [int(v) for v in output_size], [int(v) for v in kernel_size]
    if h < 0 or w < 0:
        raise RefError("Col2Im output_size must not be negative")
    if kh < 1 or kw < 1:
        raise RefError("Col2Im kernel_size must be positive")
    batched = data.ndim == 3
    cols = data if batched else data[None]
    n, ck, length = cols.shape
    if ck % (kh * kw):
        raise RefError("Col2Im channels are not a multiple of the kernel area")
    c = ck // (kh * kw)
    bh = blocks(h, kh, strides[0], dilations[0], pads_begin[0], pads_end[0])
    bw = blocks(w, kw, strides[1], dilations[1], pads_begin[1], pads_end[1])
    if bh * bw != length:
        raise RefError(f"Col2Im data holds {length} blocks, not {bh} x {bw}")
    out = np.zeros((n, c, h, w), dtype=data.dtype)
    cols = cols.reshape(n, c, kh, kw, bh, bw)
    # A pixel takes its values in the order of the data's columns: kernel
    # offset after kernel offset.
    xs_all = np.arange(bw) * strides[1] - pads_begin[1]
    for i in range(kh):
        for j in range(kw):
            xs = xs_all + j * dilations[1]
            inside = (xs >= 0) & (xs < w)
            for r in range(bh):
                y = r * strides[0] - pads_begin[0] + i * dilations[0]
                if 0 <= y < h and inside.any():
                    at = (slice(None), slice(None), y, xs[inside])
                    out[at] = add(out[at], cols[:, :, i, j, r, inside], et)
    return out if batched else out[0]


def evaluate_col2im(call: Call) -> tuple[np.ndarray, list[str]]:
    a = call.attrs
    data = call.args[0]
    out = ref_col2im(data, call.args[1], call.args[2], call.arg_types, ints(a["strides"]), ints(a["dilations"]),
                     ints(a["pads_begin"]), ints(a["pads_end"]))
    caveats = []
    et = call.arg_types[0]
    if et == "f16":
        once = ref_col2im(data.astype(np.float32), call.args[1], call.args[2], ["f32", *call.arg_types[1:]],
                          ints(a["strides"]), ints(a["dilations"]), ints(a["pads_begin"]), ints(a["pads_end"]))
        if not np.array_equal(once.astype(np.float16), out):
            caveats.append(F16_IN_F32)
    if et in WIDE_TYPES and data.size and (np.abs(data.astype(np.float64)).max() >= 2 ** 24
                                           or np.abs(out.astype(np.float64)).max() >= 2 ** 24):
        caveats.append(WIDE)
    if data.size == 0 and out.size:
        caveats.append(EMPTY_DATA)
    return out, caveats


def col2im(data, output_size, kernel_size, strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0),
           name: str = "col2im"):
    node = OPSET15.create("Col2Im", [_out(data), _out(output_size), _out(kernel_size)],
                          {"strides": list(strides), "dilations": list(dilations), "pads_begin": list(pads_begin),
                           "pads_end": list(pads_end)})
    node.set_friendly_name(name)
    return node


# op_reference/col2im.cpp: (tag, data shape, output_size, kernel_size,
# strides, dilations, pads_begin, pads_end); the data is 1..n.
UPSTREAM = [
    ("unbatched_1x1", (3, 4), (2, 2), (1, 1), (1, 1), (1, 1), (0, 0), (0, 0)),
    ("unbatched_2x2", (12, 9), (4, 4), (2, 2), (1, 1), (1, 1), (0, 0), (0, 0)),
    ("unbatched_pads", (12, 25), (4, 4), (2, 2), (1, 1), (1, 1), (1, 1), (1, 1)),
    ("unbatched_strides_pads", (12, 25), (4, 4), (2, 2), (2, 2), (1, 1), (3, 3), (3, 3)),
    ("unbatched_3x3_dilations", (36, 3), (5, 5), (3, 3), (2, 2), (2, 2), (0, 2), (0, 2)),
    ("batched_pads", (2, 12, 9), (2, 2), (2, 2), (1, 1), (1, 1), (1, 1), (1, 1)),
    ("batched_strides", (2, 8, 8), (5, 5), (2, 2), (2, 2), (1, 1), (0, 2), (0, 2)),
    ("batched_dilations", (1, 12, 25), (5, 5), (2, 2), (1, 1), (2, 2), (1, 1), (1, 1)),
    ("batched_1_channel", (1, 4, 3), (4, 4), (2, 2), (2, 2), (2, 2), (2, 0), (2, 0)),
    ("batched_4x4", (2, 32, 12), (6, 6), (4, 4), (2, 2), (2, 2), (4, 3), (4, 3)),
]

# The expected values op_reference lists for some of them, checked here
# against the reference.
UPSTREAM_EXPECTED = {
    "unbatched_2x2": [1, 12, 14, 12, 23, 66, 70, 45, 29, 78, 82, 51, 25, 60, 62, 36],
    "unbatched_strides_pads": [82, 58, 83, 59, 37, 13, 38, 14, 87, 63, 88, 64, 42, 18, 43, 19],
    "batched_pads": [66, 70, 78, 82, 210, 214, 222, 226, 354, 358, 366, 370],
    "batched_1_channel": [9, 0, 15, 0, 0, 0, 0, 0, 11, 0, 17, 0, 0, 0, 0, 0],
    "batched_dilations": [7, 39, 41, 43, 34, 64, 178, 182, 186, 118],
}


def one_to_n(shape, et: str) -> np.ndarray:
    n = int(np.prod(shape))
    if et == "boolean":
        return (np.arange(1, n + 1) % 3 == 0).reshape(shape)
    return np.arange(1, n + 1).astype(NP_DTYPE[et]).reshape(shape)


def mixed(shape, et: str, seed: int) -> np.ndarray:
    """Values of every sign, small enough that f16 sums stay exact."""
    rng = np.random.default_rng(seed)
    if et == "boolean":
        return rng.integers(0, 2, shape).astype(bool)
    lo = 0 if et.startswith("u") else -40
    return rng.integers(lo, 40, shape).astype(NP_DTYPE[et])


def sizes_of(shape, out, kernel, strides, dilations, pads_begin, pads_end):
    n = [blocks(out[a], kernel[a], strides[a], dilations[a], pads_begin[a], pads_end[a]) for a in (0, 1)]
    return n[0] * n[1]


def build(cases: Cases):
    # op_reference: every case on its types, i32 and i64 sizes.
    for tag, shape, out, kernel, strides, dilations, pads_begin, pads_end in UPSTREAM:
        want = UPSTREAM_EXPECTED.get(tag)
        if want is not None:
            got = ref_col2im(one_to_n(shape, "i64"), np.array(out), np.array(kernel), ["i64", "i64", "i64"],
                             strides, dilations, pads_begin, pads_end)
            assert got.reshape(-1)[:len(want)].tolist() == want, tag
        for et in ("i32", "i64", "u32", "u64", "f16", "f32"):
            for st in ("i32", "i64"):
                if st == "i64" and et not in ("i32", "f32"):
                    continue
                d = param("data", et, shape)
                m = model({"out": col2im(d, const(out, st, "output_size"), const(kernel, st, "kernel_size"), strides,
                                         dilations, pads_begin, pads_end)}, [d], "col2im")
                cases.add(f"col2im_upstream_{tag}_{et}_{st}", m, {"data": one_to_n(shape, et)})

    # Every ordinary type and bf16, batched, blocks that overlap. The f16
    # sums stay exact, so the CPU plugin's f32 additions check them too.
    for et in [*ALL_TYPES, "bf16"]:
        shape = (2, 3 * 2 * 3, sizes_of(None, (5, 6), (2, 3), (1, 2), (1, 1), (1, 0), (0, 1)))
        sizes = (const((5, 6), "i64", "output_size"), const((2, 3), "i64", "kernel_size"), (1, 2), (1, 1), (1, 0),
                 (0, 1))
        if et == "bf16":
            # bf16 as a Const (its values travel as f32), the image
            # converted to f32.
            out = col2im(const(mixed(shape, "f32", 5), "bf16", "data"), *sizes)
            cases.add("col2im_types_bf16", model({"out": convert(out, "f32")}, [], "col2im"), {})
            continue
        d = param("data", et, shape)
        cases.add(f"col2im_types_{et}", model({"out": col2im(d, *sizes)}, [d], "col2im"), {"data": mixed(shape, et, 5)})

    # Geometries: strides past the kernel (pixels no block covers),
    # dilations of 0 (every offset on one pixel), large pads, one row.
    for tag, batch, out, kernel, strides, dilations, pads_begin, pads_end in (
            ("strides_past_kernel", 1, (7, 9), (2, 2), (3, 4), (1, 1), (0, 0), (0, 0)),
            ("dilation_0", None, (3, 4), (3, 2), (1, 1), (0, 0), (0, 0), (0, 0)),
            ("dilation_3x2_pads", 2, (8, 7), (2, 3), (2, 1), (3, 2), (2, 1), (1, 2)),
            ("pads_larger_than_image", None, (2, 3), (2, 2), (1, 1), (1, 1), (3, 2), (2, 4)),
            ("one_row", 3, (1, 10), (1, 4), (1, 3), (1, 2), (0, 1), (0, 1)),
            ("kernel_is_image", 1, (4, 5), (4, 5), (1, 1), (1, 1), (0, 0), (0, 0))):
        ck = 2 * kernel[0] * kernel[1]
        length = sizes_of(None, out, kernel, strides, dilations, pads_begin, pads_end)
        shape = (ck, length) if batch is None else (batch, ck, length)
        d = param("data", "f32", shape)
        m = model({"out": col2im(d, const(out, "i32", "output_size"), const(kernel, "i32", "kernel_size"), strides,
                                 dilations, pads_begin, pads_end)}, [d], "col2im")
        cases.add(f"col2im_{tag}", m, {"data": mixed(shape, "f32", 7).astype(np.float32) * np.float32(0.25)})

    # Sizes given at run time, and a dynamic data shape.
    for st in ("i32", "i64"):
        d, o, k = param("data", "f32", "[?,?,?]"), param("output_size", st, (2,)), param("kernel_size", st, (2,))
        m = model({"out": col2im(d, o, k, (2, 1), (1, 2), (1, 1), (0, 1))}, [d, o, k], "col2im")
        shape = (2, 3 * 6, sizes_of(None, (6, 7), (3, 2), (2, 1), (1, 2), (1, 1), (0, 1)))
        cases.add(f"col2im_run_time_sizes_{st}", m, {
            "data": mixed(shape, "f32", 9), "output_size": np.array([6, 7], NP_DTYPE[st]),
            "kernel_size": np.array([3, 2], NP_DTYPE[st])})
    # The output size from the shape of another input.
    d, like = param("data", "i32", (12, 20)), param("like", "f32", "[3..6,6]")
    shape_of = OPSET15.create("ShapeOf", [_out(like)], {"output_type": "i64"})
    m = model({"out": col2im(d, shape_of, const((2, 2), "i64", "kernel_size"))}, [d, like], "col2im")
    cases.add("col2im_output_size_of_shape", m, {"data": one_to_n((12, 20), "i32"),
                                                 "like": np.zeros((5, 6), np.float32)})

    # Sums that wrap, and f16 sums that round after each addition.
    d = param("data", "u8", (4, 4))
    m = model({"out": col2im(d, const((3, 3), "i64", "output_size"), const((2, 2), "i64", "kernel_size"))}, [d],
              "col2im")
    cases.add("col2im_u8_wraps", m, {"data": np.full((4, 4), 200, np.uint8)})
    d = param("data", "i32", (5, 1))
    m = model({"out": col2im(d, const((1, 1), "i64", "output_size"), const((5, 1), "i64", "kernel_size"),
                             dilations=(0, 1))}, [d], "col2im")
    cases.add("col2im_i32_wraps", m, {"data": np.array([[2 ** 31 - 1], [1], [5], [-7], [2 ** 30]], np.int32)})
    d = param("data", "f16", (5, 1))
    m = model({"out": col2im(d, const((1, 1), "i64", "output_size"), const((5, 1), "i64", "kernel_size"),
                             dilations=(0, 1))}, [d], "col2im")
    cases.add("col2im_f16_rounds_each_addition", m,
              {"data": np.array([[2048], [1], [1], [1], [1]], np.float16)})
    out = col2im(const([[256], [1], [1], [1], [1]], "bf16", "data"), const((1, 1), "i64", "output_size"),
                 const((5, 1), "i64", "kernel_size"), dilations=(0, 1))
    cases.add("col2im_bf16_rounds_each_addition", model({"out": convert(out, "f32")}, [], "col2im"), {})

    # Zero-sized: no batch, no channels, no rows, and a kernel longer than
    # the image (no blocks: an image of zeros).
    for tag, shape, out, kernel, pads in (("no_batch", (0, 8, 6), (3, 4), (2, 2), (0, 0)),
                                          ("no_channels", (0, 6), (3, 4), (2, 2), (0, 0)),
                                          ("no_rows", (4, 2), (0, 3), (2, 2), (1, 0)),
                                          ("kernel_longer_than_image", (1, 8, 0), (1, 3), (2, 2), (0, 0))):
        d = param("data", "f32", shape)
        m = model({"out": col2im(d, const(out, "i64", "output_size"), const(kernel, "i64", "kernel_size"),
                                 pads_begin=pads, pads_end=pads)}, [d], "col2im")
        cases.add(f"col2im_zero_{tag}", m, {"data": np.ones(shape, np.float32)})

    # Sizes at run time that do not fit the data: errors.
    d, o, k = param("data", "f32", (8, 6)), param("output_size", "i64", (2,)), param("kernel_size", "i64", (2,))
    m = model({"out": col2im(d, o, k)}, [d, o, k], "col2im")
    for tag, out, kernel in (("blocks", (3, 5), (2, 2)), ("channels", (4, 5), (3, 1)),
                             ("kernel_zero", (3, 4), (0, 2)), ("negative_size", (-3, 4), (2, 2))):
        cases.add(f"col2im_run_time_bad_{tag}", m, {
            "data": np.ones((8, 6), np.float32), "output_size": np.array(out, np.int64),
            "kernel_size": np.array(kernel, np.int64)}, expected_error="Col2Im", no_check=RUN_TIME_CHECKS)

    # What OpenVINO refuses when the model loads.
    d = param("data", "f32", (8, 6))
    base = model({"out": col2im(d, const((3, 4), "i64", "output_size"), const((2, 2), "i64", "kernel_size"))}, [d],
                 "bad_base")
    x, w = serialize_text(base)
    cases.bad("col2im_strides_zero", set_attr(x, "col2im", "strides", "1, 0"), w, "strides")
    cases.bad("col2im_strides_one_value", set_attr(x, "col2im", "strides", "2"), w, "strides")
    cases.bad("col2im_pads_negative", set_attr(x, "col2im", "pads_end", "-1, 0"), w, "pads_end")
    for tag, dims, phrase in ((("blocks", (8, 7), "blocks")), ("channels", (7, 6), "multiple of 4"),
                              ("rank_4", (1, 1, 8, 6), "3-D")):
        bad = set_port_dims(set_port_dims(x, "data", 0, dims), "col2im", 0, dims)
        bad = set_attr(bad, "data", "shape", ",".join(str(v) for v in dims))
        cases.bad(f"col2im_bad_{tag}", bad, w, phrase)
    at, size = const_span(x, "kernel_size")
    zero = w[:at] + np.array([0, 2], np.int64).tobytes() + w[at + size:]
    cases.bad("col2im_bad_kernel_zero", x, zero, "kernel_size")
    d, o, k = param("data", "f32", (8, 6)), param("output_size", "i64", (2,)), param("kernel_size", "i64", (2,))
    x, w = serialize_text(model({"out": col2im(d, o, k)}, [d, o, k], "bad_base"))
    x = edit_layer(x, "output_size", lambda b: b.replace('element_type="i64"', 'element_type="i32"')
                   .replace('precision="I64"', 'precision="I32"'))
    x = edit_layer(x, "col2im", lambda b: edit_port(b, 1, lambda p: p.replace('precision="I64"', 'precision="I32"')))
    cases.bad("col2im_size_types_differ", x, w, "one element type")


GENERATOR = Generator("col2im", build, references={"Col2Im": evaluate_col2im})
