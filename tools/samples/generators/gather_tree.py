"""GatherTree-1: the values of OpenVINO's op_reference tests (i32 and f32),
every ordinary numeric type, a beam search's worth of beams with lengths
of their own, parameters as Consts, dynamic and empty shapes, lengths
clamped to the steps and of zero, a real end token compared as a value,
parent indices out of range and negative lengths (run-time errors), and
boolean inputs, refused when the model loads."""

from __future__ import annotations

import numpy as np
from openvino.utils.node_factory import NodeFactory

from ..cases import Cases
from ..elements import ALL_TYPES, NP_DTYPE
from ..evaluate import Call, RefError
from ..graph import _out, const, model, param, serialize_text
from ..registry import Generator
from ..xmltext import set_attr

OPSET1 = NodeFactory("opset1")


def whole(v) -> float:
    """A value as an index or a length: truncated toward zero."""
    v = float(v)
    if np.isnan(v):
        raise RefError("GatherTree reads NaN as an index or a length")
    return float(np.trunc(v))


def ref_gather_tree(steps: np.ndarray, parents: np.ndarray, lengths: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The spec's pseudocode; a length of 0 leaves the beam all end_token
    (the reference's reading), and a parent index that the walk follows
    must name a beam."""
    if steps.ndim != 3 or parents.shape != steps.shape or lengths.shape != (steps.shape[1],) or end.shape != ():
        raise RefError("GatherTree shapes")
    time, batch, beam = steps.shape
    out = np.full_like(steps, end)
    for b in range(batch):
        n = whole(lengths[b])
        if n < 0:
            raise RefError("GatherTree max_seq_len must not be negative")
        n = int(min(n, time))
        for k in range(beam):
            if n == 0:
                continue
            out[n - 1, b, k] = steps[n - 1, b, k]
            frm = k
            for level in reversed(range(n - 1)):
                p = whole(parents[level + 1, b, frm])
                if not 0 <= p < beam:
                    raise RefError("GatherTree parent index out of range")
                frm = int(p)
                out[level, b, k] = steps[level, b, frm]
            finished = False
            for t in range(n):
                if finished:
                    out[t, b, k] = end
                elif out[t, b, k] == end:
                    finished = True
    return out


def evaluate_gather_tree(call: Call) -> tuple[np.ndarray, list[str]]:
    caveats = []
    if call.arg_types[0] in ("i8", "u8"):
        caveats.append("the CPU plugin's GatherTree does not take i8 or u8")
    return ref_gather_tree(*call.args), caveats


def gather_tree(steps, parents, lengths, end, name: str = "gather_tree"):
    node = OPSET1.create("GatherTree", [_out(steps), _out(parents), _out(lengths), _out(end)], {})
    node.set_friendly_name(name)
    return node


def params(et: str, dims, lengths_shape=None):
    lengths_shape = lengths_shape if lengths_shape is not None else (dims[1],) if not isinstance(dims, str) else "[?]"
    return [param("step_ids", et, dims), param("parent_idx", et, dims), param("max_seq_len", et, lengths_shape),
            param("end_token", et, ())]


def case_model(ps, name="gather_tree"):
    return model({"out": gather_tree(*ps)}, [p for p in ps if p.get_type_name() == "Parameter"], name)


def feeds(et: str, steps, parents, lengths, end) -> dict:
    dt = NP_DTYPE[et]
    return {"step_ids": np.asarray(steps).astype(dt), "parent_idx": np.asarray(parents).astype(dt),
            "max_seq_len": np.asarray(lengths).astype(dt), "end_token": np.asarray(end).astype(dt)}


# op_reference/gather_tree.cpp: (tag, shape, step_ids = parent_idx,
# max_seq_len, end_token, expected).
REF_VALUES_20 = [1, 4, 9, 7, 9, 1, 2, 3, 9, 2, 3, 1, 4, 2, 4, 4, 7, 4, 9, 5, 8, 4, 3, 7, 5, 2, 4, 8, 3,
                 1, 5, 7, 9, 4, 5, 6, 4, 2, 9, 2, 8, 8, 7, 9, 8, 3, 1, 7, 5, 8, 8, 9, 8, 1, 8, 1, 3, 2,
                 1, 8, 7, 1, 6, 4, 7, 9, 4, 5, 2, 7, 3, 3, 2, 7, 8, 8, 4, 1, 1, 7, 6, 9, 6, 7, 3, 3, 5,
                 8, 2, 1, 1, 5, 5, 9, 1, 3, 9, 3, 2, 2, 5, 1, 1, 7, 9, 2, 9, 3, 3, 5, 6, 1, 6, 6, 6, 2,
                 9, 6, 3, 7, 3, 1, 5, 4, 9, 7, 5, 4, 5, 1, 7, 5, 1, 6, 2, 5, 8, 9, 1, 6, 8, 9, 5, 2, 5,
                 2, 9, 8, 4, 4, 5, 2, 6, 9, 4, 4, 6, 7, 6, 7, 2, 8, 7, 6, 6, 7, 4, 4, 7, 3, 4, 9, 7, 4,
                 8, 9, 1, 6, 5, 6, 1, 2, 8, 9, 1, 5, 4, 6, 9, 4, 4, 3, 7, 9, 7, 6, 3, 1, 7, 9]
REF_VALUES_5 = REF_VALUES_20[:49] + [9]
UPSTREAM = [
    ("1", (1, 1, 10), [1, 4, 9, 7, 9, 1, 2, 3, 9, 9], [1, 4, 9, 7, 9, 1, 2, 3, 9, 9]),
    ("5", (5, 1, 10), REF_VALUES_5,
     [4, 4, 9, 9, 4, 9, 2, 9, 9, 9, 1, 1, 9, 9, 1, 9, 9, 9, 9, 9, 1, 1, 9, 9, 1, 9] + [9] * 24),
    ("10", (20, 1, 10), REF_VALUES_20,
     [9, 4, 9, 4, 4, 4, 9, 4, 9, 9, 9, 1, 9, 1, 1, 1, 9, 1, 9, 9, 9, 1, 9, 1, 1, 1, 9, 1, 9] + [9] * 171),
]

# Measured with OpenVINO 2026.4.1.
ZERO_LENGTH = ("the CPU plugin leaves a beam of length 0 unwritten (whatever its buffer held), where the reference "
               "fills it with end_token")
NEGATIVE_LENGTH = "the CPU plugin leaves a beam of negative length unwritten, where ovir refuses the length"


def beams(rng, time, batch, beam, tokens=50):
    steps = rng.integers(0, tokens, (time, batch, beam))
    parents = rng.integers(0, beam, (time, batch, beam))
    return steps, parents


def build(cases: Cases):
    # op_reference: every case on i32 and f32, all inputs at run time as
    # upstream gives them.
    for tag, shape, values, want in UPSTREAM:
        for et in ("i32", "f32"):
            v = np.array(values).reshape(shape)
            f = feeds(et, v, v, [9], 9)
            got = ref_gather_tree(*f.values())
            assert got.reshape(-1).tolist() == want, tag
            cases.add(f"gather_tree_upstream_{tag}_{et}", case_model(params(et, shape)), f)

    rng = np.random.default_rng(20261130)
    # Every ordinary numeric type (boolean is not numeric: refused below).
    steps, parents = beams(rng, 5, 2, 3, tokens=8)
    for et in ALL_TYPES:
        if et == "boolean":
            continue
        cases.add(f"gather_tree_type_{et}", case_model(params(et, (5, 2, 3))),
                  feeds(et, steps, parents, [5, 3], 2))

    # A beam search: 12 steps of 4 beams for 3 sentences of their own
    # lengths, tokens from a vocabulary of 1000 with 2 as the end; the
    # beams whose path meets the end token are filled with it after.
    steps, parents = beams(rng, 12, 3, 4, tokens=1000)
    steps[rng.random(steps.shape) < 0.08] = 2
    cases.add("gather_tree_beam_search", case_model(params("i32", (12, 3, 4))),
              feeds("i32", steps, parents, [12, 7, 10], 2))
    # The same with the parents, lengths and end token as Consts.
    s = param("step_ids", "i32", (12, 3, 4))
    ps = [s, const(parents, "i32", "parent_idx"), const([12, 7, 10], "i32", "max_seq_len"),
          const(2, "i32", "end_token", ())]
    cases.add("gather_tree_const_parents", case_model(ps), {"step_ids": steps.astype(np.int32)})

    # Dynamic shapes, and empty ones.
    steps, parents = beams(rng, 4, 2, 5)
    cases.add("gather_tree_dynamic", case_model(params("f32", "[?,?,?]", "[?]")),
              feeds("f32", steps, parents, [4, 2], 7))
    for tag, dims in (("no_steps", (0, 2, 3)), ("no_beams", (3, 2, 0)), ("no_batch", (3, 0, 2))):
        z = np.zeros(dims)
        cases.add(f"gather_tree_empty_{tag}", case_model(params("i32", dims)),
                  feeds("i32", z, z, [1] * dims[1], 1))

    # Lengths past the steps (clamped), of 1, and of 0 (all end_token).
    steps, parents = beams(rng, 4, 3, 2, tokens=5)
    cases.add("gather_tree_lengths_clamped", case_model(params("i64", (4, 3, 2))),
              feeds("i64", steps, parents, [9, 1, 4], 4))
    cases.add("gather_tree_length_zero", case_model(params("i32", (4, 3, 2))),
              feeds("i32", steps, parents, [0, 2, 4], 4), no_check=ZERO_LENGTH)
    # Real lengths are truncated; a real end token is compared as a value
    # (6.5 is not 6), as the spec and the CPU plugin compare it.
    cases.add("gather_tree_real_lengths", case_model(params("f32", (4, 3, 2))),
              feeds("f32", steps, parents, [1.5, 2.9, 4.0], 3.0))
    steps6 = np.full((3, 1, 2), 6.0)
    cases.add("gather_tree_end_token_real", case_model(params("f32", (3, 1, 2))),
              feeds("f32", steps6, np.zeros((3, 1, 2)), [3], 6.5))

    # Run-time errors: a parent index the walk follows that names no beam
    # (the CPU plugin refuses it too), and a negative length.
    steps, parents = beams(rng, 3, 1, 2, tokens=5)
    for tag, value in (("past_the_end", 2), ("negative", -1)):
        bad = parents.copy()
        bad[2, 0, 1] = value
        cases.add(f"gather_tree_parent_{tag}", case_model(params("i32", (3, 1, 2))),
                  feeds("i32", steps, bad, [3], 4), expected_error="out of range")
    cases.add("gather_tree_length_negative", case_model(params("i32", (3, 1, 2))),
              feeds("i32", steps, parents, [-1], 4), expected_error="is not a length", no_check=NEGATIVE_LENGTH)

    # Boolean inputs: refused when the model loads.
    x, w = serialize_text(case_model(params("i32", (2, 1, 2)), "bad_base"))
    for name in ("step_ids", "parent_idx", "max_seq_len", "end_token"):
        x = set_attr(x, name, "element_type", "boolean")
    x = x.replace('precision="I32"', 'precision="BOOL"')
    cases.bad("gather_tree_boolean", x, w, "GatherTree takes integers")


GENERATOR = Generator("gather_tree", build, references={"GatherTree": evaluate_gather_tree})
