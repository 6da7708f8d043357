"""ReverseSubsequences, ovir's built-in extension
(`type="ReverseSubsequences" version="ovir"`, DirectML's
DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC). OpenVINO cannot serialize an op it
does not know, so each model.xml is a ReverseSequence written by OpenVINO
and then edited into a ReverseSubsequences; the expected outputs come from
the NumPy reference here, with no CPU cross-check.

`subsequences_xml` is also how tools/compare_openvino.py writes its
ReverseSubsequences workloads."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from ..cases import Cases, Context, save_npy
from ..elements import NP_DTYPE
from ..evaluate import RefError
from ..graph import arange, const, model, param, reverse_sequence, serialize_text
from ..registry import Generator
from ..xmltext import edit_layer, resub_once, set_attr, set_port_dims, sub_once


def ref_reverse_subsequences(data: np.ndarray, lengths: np.ndarray, axis: int) -> np.ndarray:
    """Every line along `axis` reverses its first `length` elements; lengths
    above the axis size count as that size, 0 and 1 reverse nothing."""
    rank = data.ndim
    if not 1 <= rank <= 8:
        raise RefError(f"data rank {rank} is not between 1 and 8")
    if not -rank <= axis < rank:
        raise RefError(f"axis {axis} out of range for rank {rank}")
    axis %= rank
    want = tuple(1 if i == axis else d for i, d in enumerate(data.shape))
    if lengths.shape != want:
        raise RefError(f"lengths shape {lengths.shape} is not {want}")
    if lengths.dtype.kind == "i" and (lengths < 0).any():
        raise RefError("a length is negative")
    size = data.shape[axis]
    out = data.copy()
    for line in np.ndindex(*want):
        n = min(int(lengths[line]), size)
        for k in range(n):
            dst = list(line)
            src = list(line)
            dst[axis] = k
            src[axis] = n - 1 - k
            out[tuple(dst)] = data[tuple(src)]
    return out


def subsequences_xml(data_shape, data_et: str, lengths_shape, lengths_et: str, axis: int,
                     lengths_input: bool) -> str:
    """A ReverseSequence over data of `data_shape`, written by OpenVINO and
    edited into ReverseSubsequences with lengths of `lengths_shape`."""
    rank = len(data_shape)
    batch = (axis % rank + 1) % rank
    d = param("data", data_et, data_shape)
    if lengths_input:
        ln = param("lengths", lengths_et, (data_shape[batch],))
        params = [d, ln]
    else:
        ln = const(np.zeros(data_shape[batch]), lengths_et, "lengths")
        params = [d]
    xml, _ = serialize_text(model({"out": reverse_sequence(d, ln, batch, axis)}, params, "reverse_subsequences"))
    shape_text = ",".join(str(v) for v in lengths_shape)
    count = int(np.prod(lengths_shape))
    xml = set_attr(xml, "lengths", "shape", shape_text)
    if not lengths_input:
        xml = set_attr(xml, "lengths", "size", str(count * np.dtype(NP_DTYPE[lengths_et]).itemsize))
    xml = set_port_dims(xml, "lengths", 0, lengths_shape)
    xml = set_port_dims(xml, "reverse_sequence", 1, lengths_shape)
    xml = edit_layer(xml, "reverse_sequence", lambda b: sub_once(
        resub_once(b, r'<data batch_axis="[^"]*" seq_axis="[^"]*"\s*/>', f'<data axis="{axis}" />'),
        'type="ReverseSequence" version="opset1"', 'type="ReverseSubsequences" version="ovir"'))
    return sub_once(xml, 'name="reverse_sequence"', 'name="reverse_subsequences"')


@dataclasses.dataclass
class SubsequencesCase:
    """A valid ReverseSubsequences case: its model.xml is edited text, its
    expected output comes from ref_reverse_subsequences."""

    name: str
    data: np.ndarray
    data_et: str
    lengths: np.ndarray
    lengths_et: str
    axis: int
    lengths_input: bool = False   # lengths as a model input instead of a Const

    @property
    def folder(self) -> str:
        return self.name

    def write(self, case_dir: Path, ctx: Context):
        xml = subsequences_xml(self.data.shape, self.data_et, self.lengths.shape, self.lengths_et, self.axis,
                               self.lengths_input)
        (case_dir / "model.xml").write_text(xml)
        save_npy(case_dir / "in" / "data.npy", self.data)
        if self.lengths_input:
            save_npy(case_dir / "in" / "lengths.npy", self.lengths)
        else:
            little = self.lengths.astype(self.lengths.dtype.newbyteorder("<"))
            (case_dir / "model.bin").write_bytes(np.ascontiguousarray(little).tobytes())
        expected = ref_reverse_subsequences(self.data, self.lengths, self.axis)
        save_npy(case_dir / "expected" / "out.npy", expected)
        ctx.report.valid.append(self.name)
        ctx.report.skipped.append((self.name, "OpenVINO has no ReverseSubsequences (an ovir extension)"))


def subsequences_case(cases: Cases, name, data, data_et, lengths, lengths_et, axis, lengths_input=False):
    lengths = np.asarray(lengths, dtype=NP_DTYPE[lengths_et])
    cases.append(SubsequencesCase(name, data, data_et, lengths, lengths_et, axis, lengths_input))


def build(cases: Cases):
    # The two worked examples of DirectML's documentation, exactly.
    example = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)
    subsequences_case(cases, "reverse_subsequences_dml_example1", example, "f32",
                      np.array([2, 4, 3]).reshape(1, 1, 3, 1), "u32", 3)
    subsequences_case(cases, "reverse_subsequences_dml_example2", example, "f32",
                      np.array([2, 3, 1, 0]).reshape(1, 1, 1, 4), "u32", 2)
    # Lengths above the axis size are clamped; 0 and 1 reverse nothing.
    # The lengths arrive at run time here, as u64 (DirectML's other type).
    data = arange((2, 5, 3), "i16")
    subsequences_case(cases, "reverse_subsequences_clamped", data, "i16",
                      np.array([[7, 0, 5], [1, 2, 100]]).reshape(2, 1, 3), "u64", -2, lengths_input=True)

    # Malformed: the lengths must have the data's shape with 1 at the axis;
    # here the axis dimension is 2.
    xml = subsequences_xml((1, 1, 3, 4), "f32", (1, 1, 3, 2), "u32", 3, lengths_input=False)
    cases.bad("reverse_subsequences_lengths_shape", xml, np.arange(6, dtype="<u4").tobytes(),
              "the lengths must have the data's shape with 1 at axis 3")


GENERATOR = Generator("reverse_subsequences", build)
