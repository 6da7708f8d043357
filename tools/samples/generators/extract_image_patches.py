"""ExtractImagePatches-3: the values of OpenVINO's op_reference tests (the
spec's five examples) on every ordinary type, same_lower and same_upper
padding with rates and strides that leave the last patch partly outside,
batches and channels, a dynamic shape, patches larger than the image (no
patches), one-element patches (the data itself), strings and packed types,
and what OpenVINO refuses when the model loads."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import _out, arange, code_const, model, param, serialize_text, string_const, strings
from ..registry import Generator
from ..xmltext import set_attr

OPSET3 = NodeFactory("opset3")


def pads_before(n: int, size: int, stride: int, rate: int, auto_pad: str) -> int:
    """The zeros before the data along an axis of `n`, as OpenVINO's
    reference works them out."""
    if auto_pad == "valid":
        return 0
    span = size + (rate - 1) * (size - 1)
    total = (-(-n // stride) - 1) * stride + span - n
    if total <= 0:
        return 0
    if total % 2 == 0:
        return total // 2
    return (total + 1) // 2 if auto_pad == "same_lower" else (total - 1) // 2


def patches(n: int, size: int, stride: int, rate: int, auto_pad: str) -> int:
    """The patches along an axis of `n`, as OpenVINO 2026 infers them."""
    if auto_pad == "valid":
        return -(-max(n - rate * (size - 1), 0) // stride)
    return -(-n // stride)


def ref_extract_image_patches(data: np.ndarray, sizes, strides, rates, auto_pad: str) -> np.ndarray:
    if data.ndim != 4:
        raise RefError("ExtractImagePatches needs 4-D data")
    n, c, h, w = data.shape
    (kh_n, kw_n), (sh, sw), (rh, rw) = sizes, strides, rates
    oh, ow = patches(h, kh_n, sh, rh, auto_pad), patches(w, kw_n, sw, rw, auto_pad)
    pt, pl = pads_before(h, kh_n, sh, rh, auto_pad), pads_before(w, kw_n, sw, rw, auto_pad)
    if data.dtype.kind == "U":
        out = np.full((n, kh_n, kw_n, c, oh, ow), "", dtype=data.dtype)
    else:
        out = np.zeros((n, kh_n, kw_n, c, oh, ow), dtype=data.dtype)
    for kh in range(kh_n):
        for kw in range(kw_n):
            for y in range(oh):
                for x in range(ow):
                    iy, ix = y * sh - pt + kh * rh, x * sw - pl + kw * rw
                    if 0 <= iy < h and 0 <= ix < w:
                        out[:, kh, kw, :, y, x] = data[:, :, iy, ix]
    return np.ascontiguousarray(out.reshape(n, kh_n * kw_n * c, oh, ow))


def ints(value) -> list[int]:
    return [int(v) for v in (value.split(",") if isinstance(value, str) else value)]


def evaluate_extract_image_patches(call: Call) -> tuple[np.ndarray, list[str]]:
    a = call.attrs
    out = ref_extract_image_patches(call.args[0], ints(a["sizes"]), ints(a["strides"]), ints(a["rates"]),
                                    str(a["auto_pad"]).lower())
    return out, []


def eip(data, sizes, strides, rates, auto_pad: str, name: str = "patches"):
    node = OPSET3.create("ExtractImagePatches", [_out(data)],
                         {"sizes": list(sizes), "strides": list(strides), "rates": list(rates), "auto_pad": auto_pad})
    node.set_friendly_name(name)
    return node


# op_reference/extract_image_patches.cpp: (tag, data shape, sizes, strides,
# rates, auto_pad, expected), data 1..n.
UPSTREAM = [
    ("3x3_s5", (1, 1, 10, 10), (3, 3), (5, 5), (1, 1), "valid",
     [1, 6, 51, 56, 2, 7, 52, 57, 3, 8, 53, 58, 11, 16, 61, 66, 12, 17, 62, 67, 13, 18, 63, 68,
      21, 26, 71, 76, 22, 27, 72, 77, 23, 28, 73, 78]),
    ("4x4_s8", (1, 1, 10, 10), (4, 4), (8, 8), (1, 1), "valid",
     [1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24, 31, 32, 33, 34]),
    ("4x4_s9_same_upper", (1, 1, 10, 10), (4, 4), (9, 9), (1, 1), "same_upper",
     [0, 0, 0, 89, 0, 0, 81, 90, 0, 0, 82, 0, 0, 0, 83, 0, 0, 9, 0, 99, 1, 10, 91, 100, 2, 0, 92, 0, 3, 0, 93, 0,
      0, 19, 0, 0, 11, 20, 0, 0, 12, 0, 0, 0, 13, 0, 0, 0, 0, 29, 0, 0, 21, 30, 0, 0, 22, 0, 0, 0, 23, 0, 0, 0]),
    ("3x3_s5_r2", (1, 1, 10, 10), (3, 3), (5, 5), (2, 2), "valid",
     [1, 6, 51, 56, 3, 8, 53, 58, 5, 10, 55, 60, 21, 26, 71, 76, 23, 28, 73, 78, 25, 30, 75, 80,
      41, 46, 91, 96, 43, 48, 93, 98, 45, 50, 95, 100]),
    ("2x2_s3_two_channels", (1, 2, 5, 5), (2, 2), (3, 3), (1, 1), "valid",
     [1, 4, 16, 19, 26, 29, 41, 44, 2, 5, 17, 20, 27, 30, 42, 45, 6, 9, 21, 24, 31, 34, 46, 49,
      7, 10, 22, 25, 32, 35, 47, 50]),
]


def upstream_data(shape, et: str) -> np.ndarray:
    n = int(np.prod(shape))
    if et == "boolean":
        return (np.arange(1, n + 1) % 3 != 0).reshape(shape)
    return np.arange(1, n + 1).astype(NP_DTYPE[et]).reshape(shape)


def build(cases: Cases):
    # op_reference: every case on i32 and f32, the padded one and the
    # first on every ordinary type too.
    for tag, shape, sizes, strides, rates, auto_pad, want in UPSTREAM:
        got = ref_extract_image_patches(upstream_data(shape, "i32"), sizes, strides, rates, auto_pad)
        assert got.reshape(-1).tolist() == want, tag
        types = ALL_TYPES if tag in ("3x3_s5", "4x4_s9_same_upper") else ["f32", "i32"]
        for et in types:
            d = param("data", et, shape)
            m = model({"out": eip(d, sizes, strides, rates, auto_pad)}, [d], "extract_image_patches")
            cases.add(f"eip_upstream_{tag}_{et}", m, {"data": upstream_data(shape, et)})

    # Padding that leaves the last patch partly outside, odd totals split
    # both ways, with rates, on batches of several channels.
    for auto_pad in ("same_lower", "same_upper", "valid"):
        for tag, shape, sizes, strides, rates in (("3x3_s2_r1x2", (2, 3, 9, 11), (3, 3), (2, 2), (1, 2)),
                                                  ("2x4_s3x1_r2x1", (1, 2, 7, 6), (2, 4), (3, 1), (2, 1)),
                                                  ("5x1_s4_r1", (1, 4, 13, 3), (5, 1), (4, 4), (1, 1))):
            d = param("data", "f32", shape)
            m = model({"out": eip(d, sizes, strides, rates, auto_pad)}, [d], "extract_image_patches")
            cases.add(f"eip_{auto_pad}_{tag}", m, {"data": arange(shape)})

    # A dynamic shape, given at run time.
    d = param("data", "f32", "[?,?,?,?]")
    m = model({"out": eip(d, (3, 2), (2, 3), (1, 1), "same_upper")}, [d], "extract_image_patches")
    cases.add("eip_dynamic_same_upper", m, {"data": arange((2, 3, 8, 7))})

    # Patches longer than the image: none along that axis.
    d = param("data", "f32", (1, 1, 9, 10))
    m = model({"out": eip(d, (4, 4), (1, 1), (3, 3), "valid")}, [d], "extract_image_patches")
    cases.add("eip_patch_longer_than_rows", m, {"data": arange((1, 1, 9, 10))})

    # One-element patches one apart: the data itself.
    d = param("data", "i32", (2, 3, 4, 5))
    m = model({"out": eip(d, (1, 1), (1, 1), (3, 2), "same_lower")}, [d], "extract_image_patches")
    cases.add("eip_one_element_patches", m, {"data": arange((2, 3, 4, 5), "i32")})

    # Strings and packed codes, as Consts feeding the op.
    m = model({"out": eip(string_const(strings((1, 2, 3, 3)), "words"), (2, 2), (2, 2), (1, 1), "same_upper")},
              [], "extract_image_patches")
    cases.add("eip_string_const", m, {}, no_check="the CPU plugin's ExtractImagePatches does not take strings")
    codes = (np.arange(2 * 5 * 4) * 7 % 16).astype(NP_DTYPE["u4"]).reshape(1, 2, 5, 4)
    m = model({"out": eip(code_const(codes, "u4", "codes"), (2, 3), (2, 1), (1, 1), "same_lower")}, [],
              "extract_image_patches")
    cases.add("eip_u4_const", m, {})

    # What OpenVINO refuses when the model loads.
    d = param("data", "f32", (1, 1, 4, 4))
    x, w = serialize_text(model({"out": eip(d, (2, 2), (1, 1), (1, 1), "valid")}, [d], "bad_base"))
    cases.bad("eip_strides_zero", set_attr(x, "patches", "strides", "1,0"), w, "strides")
    cases.bad("eip_rates_one_value", set_attr(x, "patches", "rates", "1"), w, "rates")
    cases.bad("eip_auto_pad_explicit", set_attr(x, "patches", "auto_pad", "explicit"), w, "padding")


GENERATOR = Generator("extract_image_patches", build,
                      references={"ExtractImagePatches": evaluate_extract_image_patches})
