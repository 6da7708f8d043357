"""GatherND-5 and GatherND-8: the values of OpenVINO's op_reference tests
(tuples that pick elements and slices, leading index dimensions, one to
three batch dimensions, GatherND-5 folding them into one) on every ordinary
type and every integer index type, negative indices (GatherND-8 counts them
from the end, and so does GatherND-5, as OpenVINO does), indices out of
range, constant indices, dynamic shapes, empty outputs, strings and packed
types, and float indices, refused when the model loads."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, INT_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import _out, arange, code_const, const, model, param, serialize_text, string_const, strings
from ..registry import Generator
from ..xmltext import set_attr

FACTORIES = {5: NodeFactory("opset5"), 8: NodeFactory("opset8")}


def ref_gather_nd(data: np.ndarray, indices: np.ndarray, batch_dims: int, version: int,
                  indices_type: str) -> np.ndarray:
    if indices_type not in INT_TYPES:
        raise RefError("GatherND indices must be integers")
    length = indices.shape[-1]
    if not batch_dims < min(data.ndim, indices.ndim) or batch_dims + length > data.ndim:
        raise RefError("GatherND shapes do not fit")
    batch = data.shape[:batch_dims]
    if indices.shape[:batch_dims] != batch:
        raise RefError("GatherND batch dimensions differ")
    sizes = np.array(data.shape[batch_dims:batch_dims + length], np.int64)
    wide = indices.astype(np.int64)
    # Both versions count negative indices from the end: GatherND-5's spec
    # asks for [0, s-1], but OpenVINO's reference and CPU plugin agree.
    low = -sizes
    if wide.size and ((wide < low).any() or (wide >= sizes).any()):
        raise RefError("GatherND index out of range")
    wide = np.where(wide < 0, wide + sizes, wide)
    flat_data = data.reshape((int(np.prod(batch)),) + data.shape[batch_dims:])
    flat_idx = wide.reshape((int(np.prod(batch)), -1, length))
    slices = [[flat_data[b][tuple(t)] for t in flat_idx[b]] for b in range(flat_data.shape[0])]
    lead = indices.shape[batch_dims:-1]
    rest = data.shape[batch_dims + length:]
    out = np.array(slices, dtype=data.dtype).reshape(batch + lead + rest)
    if version < 8 and batch_dims > 1:
        out = out.reshape((int(np.prod(batch)),) + lead + rest)
    return out.copy()


def evaluate_gather_nd(call: Call) -> tuple[np.ndarray, list[str]]:
    version = int(call.node.get_type_info().version_id.replace("opset", ""))
    caveats = []
    if call.arg_types[0] == "i64":
        caveats.append("the CPU plugin moves i64 GatherND data as i32")
    out = ref_gather_nd(call.args[0], call.args[1], int(call.attrs["batch_dims"]), version, call.arg_types[1])
    return out, caveats


def gather_nd(data, indices, batch_dims: int, version: int, name: str = "gather_nd"):
    node = FACTORIES[version].create("GatherND", [_out(data), _out(indices)], {"batch_dims": batch_dims})
    node.set_friendly_name(name)
    return node


D33 = list(range(10, 19))
D22 = [10, 11, 12, 13]
D222 = [10, 11, 12, 13, 20, 21, 22, 23]
D234 = list(range(1, 25))
D2342 = list(range(1, 49))
D2345 = list(range(1, 121))

# op_reference/gather_nd.cpp: (tag, data shape, data, indices shape,
# indices, batch_dims, GatherND-5's output shape or None when it refuses
# the case, expected).
UPSTREAM = [
    ("single_indices", (3, 3), D33, (2,), [1, 2], 0, (), [15]),
    ("single_negative_indices", (3, 3), D33, (2,), [-2, -1], 0, (), [15]),
    ("scalar_from_2d", (2, 2), D22, (2, 2), [0, 0, 1, 1], 0, (2,), [10, 13]),
    ("1d_from_2d", (2, 2), D22, (2, 1), [1, 0], 0, (2, 2), [12, 13, 10, 11]),
    ("scalar_from_3d", (2, 2, 2), D222, (2, 3), [0, 0, 1, 1, 0, 1], 0, (2,), [11, 21]),
    ("1d_from_3d", (2, 2, 2), D222, (2, 2), [0, 1, 1, 0], 0, (2, 2), [12, 13, 20, 21]),
    ("2d_from_3d", (2, 2, 2), D222, (1, 1), [1], 0, (1, 2, 2), [20, 21, 22, 23]),
    ("batch_scalar_from_2d", (2, 2), D22, (2, 1, 2), [0, 0, 0, 1], 0, (2, 1), [10, 11]),
    ("batch_1d_from_2d", (2, 2), D22, (2, 1, 1), [1, 0], 0, (2, 1, 2), [12, 13, 10, 11]),
    ("batch_1d_from_2d_negative", (2, 2), D22, (2, 1, 1), [-1, -2], 0, (2, 1, 2), [12, 13, 10, 11]),
    ("batch_scalar_from_3d", (2, 2, 2), D222, (2, 2, 3), [0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0], 0, (2, 2),
     [11, 21, 13, 22]),
    ("batch_1d_from_3d", (2, 2, 2), D222, (2, 2, 2), [0, 1, 1, 0, 0, 0, 1, 1], 0, (2, 2, 2),
     [12, 13, 20, 21, 10, 11, 22, 23]),
    ("batch_1d_from_3d_negative", (2, 2, 2), D222, (2, 2, 2), [0, -1, -1, 0, 0, 0, 1, 1], 0, (2, 2, 2),
     [12, 13, 20, 21, 10, 11, 22, 23]),
    ("batch_2d_from_3d", (2, 2, 2), D222, (2, 1, 1), [1, 0], 0, (2, 1, 2, 2), [20, 21, 22, 23, 10, 11, 12, 13]),
    ("batch_dims1", (2, 3, 4), D234, (2, 1), [1, 0], 1, (2, 4), [5, 6, 7, 8, 13, 14, 15, 16]),
    ("batch_dims2", (2, 3, 4, 2), D2342, (2, 3, 3, 2),
     [1, 0, 3, 1, 2, 1, 0, 1, 1, 1, 2, 0, 3, 0, 3, 1, 2, 1, 2, 0, 1, 1, 3, 1, 1, 1, 2, 0, 2, 0, 0, 0, 3, 1, 3, 1],
     2, (6, 3), [3, 8, 6, 10, 12, 13, 23, 24, 22, 29, 28, 32, 36, 37, 37, 41, 48, 48]),
    ("batch_dims2_lead_dims", (2, 3, 4), D234, (2, 3, 1, 1), [1, 0, 2, 0, 2, 2], 2, (6, 1),
     [2, 5, 11, 13, 19, 23]),
    ("batch_dims2_non_scalar_slices", (2, 3, 4, 5), D2345, (2, 3, 2, 1), [1, 0, 2, 0, 2, 0, 1, 0, 2, 0, 2, 0], 2,
     (6, 2, 5),
     [6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 31, 32, 33, 34, 35, 21, 22, 23, 24, 25, 51, 52, 53, 54, 55, 41, 42, 43, 44, 45,
      66, 67, 68, 69, 70, 61, 62, 63, 64, 65, 91, 92, 93, 94, 95, 81, 82, 83, 84, 85, 111, 112, 113, 114, 115,
      101, 102, 103, 104, 105]),
]

# Measured with OpenVINO 2026.4.1.
OUT_OF_RANGE = ("the CPU plugin reads outside the data for an index out of range (gather_nd5_index_past_the_end "
                "gives [1, 1537] where data[2] does not exist), which the spec and the reference forbid")

def build(cases: Cases):
    # op_reference, both versions, i32 indices given at run time as
    # upstream does: on f32 data for every case, and each case's
    # GatherND-8 on every ordinary type with a few of them.
    for tag, dshape, values, ishape, idx, batch_dims, v5_shape, want in UPSTREAM:
        for version in (5, 8):
            data = np.array(values, np.float32).reshape(dshape)
            indices = np.array(idx, np.int32).reshape(ishape)
            d, i = param("data", "f32", dshape), param("indices", "i32", ishape)
            m = model({"out": gather_nd(d, i, batch_dims, version)}, [d, i], "gather_nd")
            name = f"gather_nd{version}_upstream_{tag}"
            got = ref_gather_nd(data, indices, batch_dims, version, "i32")
            assert got.reshape(-1).tolist() == want, tag
            if version == 5:
                assert got.shape == v5_shape, (tag, got.shape)
            cases.add(name, m, {"data": data, "indices": indices})
    for et in ALL_TYPES:
        for tag, dshape, values, ishape, idx, batch_dims, _, _ in (UPSTREAM[12], UPSTREAM[17]):
            data = (np.array(values) % 2 == 0) if et == "boolean" else np.array(values).astype(NP_DTYPE[et])
            d, i = param("data", et, dshape), param("indices", "i32", ishape)
            m = model({"out": gather_nd(d, i, batch_dims, 8)}, [d, i], "gather_nd")
            cases.add(f"gather_nd8_type_{et}_{tag}", m,
                      {"data": data.reshape(dshape), "indices": np.array(idx, np.int32).reshape(ishape)})

    # Every integer type of indices.
    for it in sorted(INT_TYPES):
        d, i = param("data", "f32", (3, 4)), param("indices", it, (5, 2))
        idx = np.array([[2, 3], [0, 0], [1, 2], [2, 0], [0, 3]]).astype(NP_DTYPE[it])
        m = model({"out": gather_nd(d, i, 0, 8)}, [d, i], "gather_nd")
        cases.add(f"gather_nd8_indices_{it}", m, {"data": arange((3, 4)), "indices": idx})

    # Indices out of range: past the end in both versions, below -s in
    # GatherND-8.
    for version, tag, idx in ((5, "past_the_end", [[0, 1], [2, 0]]), (8, "past_the_end", [[0, 3], [1, 0]]),
                              (8, "below_minus_s", [[0, 1], [-3, 0]])):
        d, i = param("data", "i32", (2, 3)), param("indices", "i64", (2, 2))
        m = model({"out": gather_nd(d, i, 0, version)}, [d, i], "gather_nd")
        cases.add(f"gather_nd{version}_index_{tag}", m,
                  {"data": arange((2, 3), "i32"), "indices": np.array(idx, np.int64)}, expected_error="out of range",
                  no_check=OUT_OF_RANGE)

    # Constant indices (worked out when the model compiles), random over a
    # larger tensor, with one and two batch dimensions.
    rng = np.random.default_rng(20261129)
    for version in (5, 8):
        for batch_dims, ishape in ((1, (4, 7, 2)), (2, (4, 5, 3, 1))):
            dshape = (4, 5, 6, 3)
            sizes = dshape[batch_dims:batch_dims + ishape[-1]]
            idx = np.stack([rng.integers(0, s, ishape[:-1]) for s in sizes], axis=-1)
            d = param("data", "f32", dshape)
            m = model({"out": gather_nd(d, const(idx, "i64", "indices"), batch_dims, version)}, [d], "gather_nd")
            cases.add(f"gather_nd{version}_const_indices_batch_{batch_dims}", m, {"data": arange(dshape)})

    # Dynamic shapes, and empty outputs.
    for version in (5, 8):
        d, i = param("data", "f32", "[?,?,?]"), param("indices", "i64", "[?,?,2]")
        m = model({"out": gather_nd(d, i, 1, version)}, [d, i], "gather_nd")
        cases.add(f"gather_nd{version}_dynamic", m,
                  {"data": arange((2, 3, 4)), "indices": np.array([[[1, 2], [0, 3], [2, 1]],
                                                                   [[0, 0], [1, 1], [2, 3]]], np.int64)})
    d, i = param("data", "f32", (3, 4)), param("indices", "i32", (0, 1))
    m = model({"out": gather_nd(d, i, 0, 8)}, [d, i], "gather_nd")
    cases.add("gather_nd8_no_tuples", m, {"data": arange((3, 4)), "indices": np.zeros((0, 1), np.int32)})
    d, i = param("data", "f32", (3, 0)), param("indices", "i32", (2, 1))
    m = model({"out": gather_nd(d, i, 0, 8)}, [d, i], "gather_nd")
    cases.add("gather_nd8_empty_slices", m, {"data": np.zeros((3, 0), np.float32),
                                             "indices": np.array([[2], [0]], np.int32)})

    # Strings and packed types, as Consts.
    i = param("indices", "i32", (3, 1))
    m = model({"out": gather_nd(string_const(strings((3, 2)), "strings"), i, 0, 8)}, [i], "gather_nd")
    cases.add("gather_nd8_string_const", m, {"indices": np.array([[2], [0], [-1]], np.int32)},
              no_check="the CPU plugin's GatherND does not take strings")
    for et, high in (("u4", 16), ("i4", 8), ("u1", 2)):
        codes = (np.arange(12) * 5 % high - (8 if et == "i4" else 0)).astype(NP_DTYPE[et]).reshape(3, 4)
        m = model({"out": gather_nd(code_const(codes, et, "data"), i, 0, 8)}, [i], "gather_nd")
        cases.add(f"gather_nd8_type_{et}", m, {"indices": np.array([[2], [0], [1]], np.int32)},
                  no_check="the CPU plugin cannot return u1 outputs" if et == "u1" else None)

    # Float indices: refused when the model loads.
    d, i = param("data", "f32", (2, 3)), param("indices", "i32", (2, 1))
    x, w = serialize_text(model({"out": gather_nd(d, i, 0, 8)}, [d, i], "bad_base"))
    x = set_attr(x, "indices", "element_type", "f32").replace('precision="I32"', 'precision="FP32"')
    cases.bad("gather_nd_float_indices", x, w, "must hold integers")


GENERATOR = Generator("gather_nd", build, references={"GatherND": evaluate_gather_nd})
