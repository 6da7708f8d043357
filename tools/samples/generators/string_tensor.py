"""StringTensorUnpack-15 and StringTensorPack-15: the spec's examples both
ways, a round trip, constant strings (folded), i32 and i64 offsets, skipped
symbols, empty tensors and strings, multi-byte characters, ranges outside
the symbols or backwards (run-time errors), bytes that are not UTF-8, and
the types and shapes OpenVINO refuses when the model loads."""

from __future__ import annotations

import numpy as np
from openvino import opset15

from ..cases import Cases
from ..evaluate import Call, RefError
from ..graph import const, model, param, serialize_text, string_const
from ..registry import Generator
from ..xmltext import set_attr


def ref_unpack(data: np.ndarray) -> list[np.ndarray]:
    if data.dtype.kind != "U":
        raise RefError("StringTensorUnpack needs string data")
    encoded = [s.encode() for s in data.reshape(-1).tolist()]
    ends = np.cumsum([len(b) for b in encoded], dtype=np.int64)
    begins = ends - np.array([len(b) for b in encoded], dtype=np.int64)
    symbols = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
    return [begins.astype(np.int32).reshape(data.shape), ends.astype(np.int32).reshape(data.shape), symbols]


def ref_pack(begins: np.ndarray, ends: np.ndarray, symbols: np.ndarray) -> np.ndarray:
    raw = symbols.tobytes()
    out = []
    for b, e in zip(begins.reshape(-1).tolist(), ends.reshape(-1).tolist()):
        if not 0 <= b <= e <= len(raw):
            raise RefError(f"string range [{b}, {e}) is not a range of the {len(raw)} symbols")
        try:
            out.append(raw[b:e].decode())
        except UnicodeDecodeError as err:
            raise RefError(f"string range [{b}, {e}) is not UTF-8") from err
    return np.array(out, dtype=str).reshape(begins.shape) if out else np.zeros(begins.shape, dtype="<U1")


def evaluate_unpack(call: Call):
    return ref_unpack(call.args[0]), []


def evaluate_pack(call: Call):
    return ref_pack(*call.args), []


def unpack(data):
    node = opset15.string_tensor_unpack(data)
    node.set_friendly_name("unpack")
    return node


def pack(begins, ends, symbols):
    node = opset15.string_tensor_pack(begins, ends, symbols)
    node.set_friendly_name("pack")
    return node


def unpack_model(shape):
    d = param("data", "string", shape)
    u = unpack(d)
    return model({"begins": u.output(0), "ends": u.output(1), "symbols": u.output(2)}, [d], "string_unpack")


def pack_model(shape, et: str, symbols_len):
    b, e, s = param("begins", et, shape), param("ends", et, shape), param("symbols", "u8", symbols_len)
    return model({"out": pack(b, e, s)}, [b, e, s], "string_pack")


# The spec's examples: strings, begins, ends and symbols.
EXAMPLES = [
    ("two", [2], ["Intel", "OpenVINO"], [0, 5], [5, 13], b"IntelOpenVINO"),
    ("empty_string", [5], ["OMZ", "", "GenAI", " ", "2024"], [0, 3, 3, 8, 9], [3, 3, 8, 9, 13], b"OMZGenAI 2024"),
    ("2d", [2, 2], ["Intel", "OpenVINO", "OMZ", "GenAI"], [0, 5, 13, 16], [5, 13, 16, 21], b"IntelOpenVINOOMZGenAI"),
]


def symbols_of(raw: bytes) -> np.ndarray:
    return np.frombuffer(raw, dtype=np.uint8).copy()


def build(cases: Cases):
    for tag, shape, words, begins, ends, raw in EXAMPLES:
        data = np.array(words, dtype=str).reshape(shape)
        got = ref_unpack(data)
        assert got[0].reshape(-1).tolist() == begins and got[1].reshape(-1).tolist() == ends, tag
        assert got[2].tobytes() == raw, tag
        cases.add(f"string_unpack_spec_{tag}", unpack_model(shape), {"data": data})
        for et in ("i32", "i64"):
            dt = np.int32 if et == "i32" else np.int64
            cases.add(f"string_pack_spec_{tag}_{et}", pack_model(shape, et, [len(raw)]),
                      {"begins": np.array(begins, dt).reshape(shape), "ends": np.array(ends, dt).reshape(shape),
                       "symbols": symbols_of(raw)})
    # The spec's skipped symbols.
    cases.add("string_pack_spec_skipped_symbols", pack_model([2], "i64", [9]),
              {"begins": np.array([0, 8], np.int64), "ends": np.array([1, 9], np.int64),
               "symbols": symbols_of(b"123456789")})

    # A round trip, with multi-byte characters and empty strings, of a
    # dynamic shape.
    d = param("data", "string", "[?,?]")
    u = unpack(d)
    m = model({"out": pack(u.output(0), u.output(1), u.output(2))}, [d], "string_round_trip")
    cases.add("string_round_trip", m, {"data": np.array([["héllo", ""], ["日本語", "a b"], ["", "ü"]], dtype=str)})
    cases.add("string_unpack_multibyte", unpack_model([3]), {"data": np.array(["日本", "", "naïve"], dtype=str)})
    # An empty tensor given at run time (of a static empty shape, ovir
    # infers symbols of 0 bytes where OpenVINO leaves the length unknown).
    cases.add("string_unpack_empty_tensor", unpack_model("[?,3]"), {"data": np.zeros((0, 3), dtype="<U1")},
              no_check="the CPU plugin fails on it: Cannot get dims for non static shape")
    cases.add("string_unpack_all_empty", unpack_model([2]), {"data": np.array(["", ""], dtype=str)})

    # Constant strings: the whole unpack is known when the model loads.
    c = unpack(string_const(np.array([["Intel", "OpenVINO"], ["", "GenAI"]], dtype=str), "words"))
    m = model({"begins": c.output(0), "ends": c.output(1), "symbols": c.output(2)}, [], "string_unpack_const")
    cases.add("string_unpack_const", m, {})
    # Constant offsets, symbols at run time.
    s = param("symbols", "u8", [13])
    m = model({"out": pack(const([0, 3, 3, 8, 9], "i32", "begins"), const([3, 3, 8, 9, 13], "i32", "ends"), s)},
              [s], "string_pack_const_offsets")
    cases.add("string_pack_const_offsets", m, {"symbols": symbols_of(b"OMZGenAI 2024")})

    # Ranges outside the symbols or backwards: run-time errors. The plugin
    # reads past the end of the symbols for the first, and fails inside
    # its string copy for the second.
    cases.add("string_pack_end_past_symbols", pack_model([2], "i64", [13]),
              {"begins": np.array([0, 5], np.int64), "ends": np.array([5, 14], np.int64),
               "symbols": symbols_of(b"IntelOpenVINO")},
              expected_error="not a range", no_check="the CPU plugin reads past the end of the symbols")
    cases.add("string_pack_backwards", pack_model([2], "i32", [13]),
              {"begins": np.array([0, 6], np.int32), "ends": np.array([5, 5], np.int32),
               "symbols": symbols_of(b"IntelOpenVINO")},
              expected_error="not a range")
    # Bytes that are not UTF-8: ovir's strings are UTF-8 text.
    cases.add("string_pack_not_utf8", pack_model([2], "i32", [4]),
              {"begins": np.array([0, 1], np.int32), "ends": np.array([1, 3], np.int32),
               "symbols": symbols_of(b"I\xff\xfel")},
              expected_error="utf-8", no_check="the CPU plugin packs any bytes")

    # What OpenVINO refuses when the model loads.
    x, w = serialize_text(pack_model([2], "i32", [13]))
    cases.bad("string_pack_u32_offsets", x.replace('element_type="i32"', 'element_type="u32"')
              .replace('precision="I32"', 'precision="U32"'), w, "i32 or i64")
    cases.bad("string_pack_i8_symbols", set_attr(x, "symbols", "element_type", "i8")
              .replace('precision="U8"', 'precision="I8"'), w, "u8")
    x, w = serialize_text(unpack_model([2]))
    cases.bad("string_unpack_f32_data", set_attr(x, "data", "element_type", "f32"), w, "string")


GENERATOR = Generator("string_tensor", build,
                      references={"StringTensorUnpack": evaluate_unpack, "StringTensorPack": evaluate_pack})
