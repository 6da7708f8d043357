"""Evaluating a model with the NumPy references of the operator
specifications. Each op's reference lives in the module of the generator
that owns the op (its `GENERATOR.references`); the registry gathers them
into the table `evaluate` dispatches on."""

from __future__ import annotations

import dataclasses
from typing import Callable, Mapping, Optional

import numpy as np
import openvino as ov

from .elements import F8_TYPES, NP_DTYPE, PACKED_BITS, type_name, unpack_codes


class RefError(Exception):
    """The reference refuses the computation (a run-time error)."""


@dataclasses.dataclass
class Call:
    """One node to evaluate: the values and element types of its inputs,
    and the element type of its first output."""

    node: ov.Node
    args: list[np.ndarray]
    arg_types: list[str]
    out_type: Optional[str]

    @property
    def attrs(self) -> dict:
        return self.node.get_attributes()


# An op's reference: its output value (a list of them, in port order, for an
# op with several outputs), and the reasons why the CPU plugin cannot be
# used as an exact cross-check of it (empty when it can).
Reference = Callable[[Call], tuple[np.ndarray, list[str]]]


def const_value(node) -> np.ndarray:
    et = type_name(node.get_output_element_type(0))
    shape = tuple(node.get_output_shape(0))
    if et == "bf16":
        bits = np.asarray(node.get_data()).view(np.uint16).astype(np.uint32)
        return (bits << 16).view(np.float32).reshape(shape)
    if et == "string":
        return np.array(node.get_tensor_view().str_data, dtype=str).reshape(shape)
    if et in PACKED_BITS:
        raw = np.asarray(node.get_data()).view(np.uint8).tobytes()
        return unpack_codes(raw, et, int(np.prod(shape))).reshape(shape)
    if et in F8_TYPES:
        return np.asarray(node.get_data()).view(np.uint8).reshape(shape).copy()
    if et not in NP_DTYPE:
        raise RefError(f"constant of type {et} is not supported by the reference")
    return np.asarray(node.get_data()).astype(NP_DTYPE[et]).reshape(shape)


def parameter_value(node, feeds: dict[str, np.ndarray], out_type: str) -> np.ndarray:
    name = next(n for n in feeds if n in node.output(0).get_names())
    arr = feeds[name]
    if out_type == "string":
        if arr.dtype.kind != "U":
            raise ValueError(f"input {name}: dtype {arr.dtype} is not a unicode string type")
    elif arr.dtype != NP_DTYPE[out_type]:
        raise ValueError(f"input {name}: dtype {arr.dtype} != {out_type}")
    if not node.get_output_partial_shape(0).compatible(ov.PartialShape(list(arr.shape))):
        raise ValueError(f"input {name}: shape {arr.shape} does not fit")
    return arr


def evaluate(model: ov.Model, feeds: dict[str, np.ndarray], out_names: list[str],
             references: Mapping[str, Reference]):
    """Evaluate `model` with the NumPy references.

    Returns (outputs by sanitized name, and for each output the reasons why
    the CPU plugin cannot be used as an exact cross-check of it). A reason
    follows the values it concerns through the graph, so one Convert the
    plugin does differently leaves the model's other outputs checked."""
    values: dict[tuple[int, int], np.ndarray] = {}
    reasons: dict[tuple[int, int], set[str]] = {}
    for node in model.get_ordered_ops():
        kind = node.get_type_name()
        args = []
        arg_types = []
        caveats: list[str] = []
        for v in node.input_values():
            key = (v.get_node().get_instance_id(), v.get_index())
            args.append(values[key])
            arg_types.append(type_name(v.get_element_type()))
            caveats += reasons[key]
        out_type = type_name(node.get_output_element_type(0)) if node.get_output_size() else None
        if kind == "Result":
            continue
        if kind == "Parameter":
            val = parameter_value(node, feeds, out_type)
        elif kind == "Constant":
            val = const_value(node)
        elif kind in references:
            val, notes = references[kind](Call(node, args, arg_types, out_type))
            caveats += notes
        else:
            raise ValueError(f"operation {kind} is not part of the supported set")
        ports = list(val) if isinstance(val, list) else [val]
        if len(ports) != node.get_output_size():
            raise ValueError(f"{node.get_friendly_name()}: reference gave {len(ports)} outputs, "
                             f"the node has {node.get_output_size()}")
        for port, v in enumerate(ports):
            values[(node.get_instance_id(), port)] = v
            reasons[(node.get_instance_id(), port)] = set(caveats)
            # Each port against its own type (StringTensorUnpack's differ).
            port_type = type_name(node.get_output_element_type(port))
            if port_type in NP_DTYPE and v.dtype != NP_DTYPE[port_type]:
                raise ValueError(f"{node.get_friendly_name()}: reference dtype {v.dtype} != {port_type}")
    outputs, caveats = {}, {}
    for res, name in zip(model.get_results(), out_names):
        src = res.input_value(0)
        key = (src.get_node().get_instance_id(), src.get_index())
        outputs[name], caveats[name] = values[key], sorted(reasons[key])
    return outputs, caveats


def norm_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise RefError(f"axis {axis} out of range for rank {rank}")
    return axis % rank
