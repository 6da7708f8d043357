"""The packed sub-byte types, the 8-bit floats and strings through Reverse
and ReverseSequence: constants of each (elements that move inside bytes),
packed Parameters fed from unpacked .npy files, and string constants and
Parameters."""

from __future__ import annotations

from ..cases import Cases
from ..elements import F8_TYPES, PACKED_BITS
from ..graph import code_const, const, model, param, random_codes, reverse, reverse_sequence, string_const, \
    strings
from ..registry import Generator

# Measured with OpenVINO 2026.4.1: string Reverse computes the right values,
# but the process then dies in the allocator, which would take the generator
# with it.
STRING_CRASH = "the CPU plugin aborts the process (free(): invalid pointer) after a string Reverse"


def build(cases: Cases):
    # Consts of every packed type and 8-bit float, reversed along rows that
    # cross byte boundaries (7 elements), so elements move inside bytes.
    shape = (3, 7)
    for et in [*PACKED_BITS, *F8_TYPES]:
        data = code_const(random_codes(et, shape), et, "data")
        axes = const([1], "i64", "axes")
        cases.add(f"reverse_type_{et}", model({"out": reverse(data, axes, "index")}, [], "reverse"))
    # A mask over both axes on the split layout, whose groups span rows.
    data = code_const(random_codes("u3", (5, 3)), "u3", "data")
    cases.add("reverse_type_u3_both_axes",
              model({"out": reverse(data, const([True, True], "boolean", "mask"), "mask")}, [], "reverse"))

    # ReverseSequence on packed and 8-bit float Consts.
    for et in ("u1", "u2", "u3", "u4", "u6", "i4", "nf4", "f4e2m1", "f8e5m2"):
        data = code_const(random_codes(et, (4, 6)), et, "data")
        lengths = const([6, 2, 0, 5], "i32", "lengths")
        cases.add(f"rseq_type_{et}",
                  model({"out": reverse_sequence(data, lengths, 0, 1)}, [], "reverse_sequence"))

    # Packed Parameters, fed unpacked from u8 (i8 for i4) .npy files.
    for et, op in (("u4", "rseq"), ("i4", "reverse"), ("u3", "rseq"), ("u1", "reverse")):
        shape = (4, 5)
        d = param("data", et, shape)
        if op == "rseq":
            out = reverse_sequence(d, const([5, 3, 0, 4], "i32", "lengths"), 0, 1)
        else:
            out = reverse(d, const([1], "i64", "axes"), "index")
        cases.add(f"{op}_param_{et}", model({"out": out}, [d], op), {"data": random_codes(et, shape)},
                  no_check=f"CPU reverses {et} data byte by byte, not element by element")

    # Strings: Consts (OpenVINO's packed string format in model.bin) and
    # Parameters fed from <U .npy files.
    sc = string_const(strings((2, 3)), "strings")
    cases.add("reverse_string_const",
              model({"out": reverse(sc, const([0, 1], "i64", "axes"), "index")}, [], "reverse"),
              no_check=STRING_CRASH)
    sc = string_const(strings((3, 4)), "strings")
    cases.add("rseq_string_const",
              model({"out": reverse_sequence(sc, const([4, 0, 2], "i32", "lengths"), 0, 1)}, [],
                    "reverse_sequence"))
    d = param("text", "string", (3, 4))
    cases.add("reverse_string_param",
              model({"out": reverse(d, const([1], "i64", "axes"), "index")}, [d], "reverse"),
              {"text": strings((3, 4))}, no_check=STRING_CRASH)
    d = param("text", "string", (4, 3))
    cases.add("rseq_string_param",
              model({"out": reverse_sequence(d, const([4, 0, 3], "i64", "lengths"), 1, 0)}, [d],
                    "reverse_sequence"),
              {"text": strings((4, 3))[:, ::-1].copy()})


GENERATOR = Generator("packed_and_strings", build, streams=("codes",))
