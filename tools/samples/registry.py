"""The generators, in the order a full run builds them.

Each name is a module of samples/generators/ that defines `GENERATOR`; a new
generator is a new module there and its name here. The order matters only
to the generators that draw from the shared `values` and `codes` streams
(graph.Stream): they draw in this order. A new generator seeds its own
random generator, so it can go anywhere; the end is as good a place as
any."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Callable, Optional

from .cases import Cases
from .evaluate import Reference

GENERATORS = [
    "reverse",
    "reverse_sequence",
    "convert",
    "shape_ops",
    "structure",
    "onnx_frontend",
    "tensorflow_frontend",
    "torch_frontend",
    "packed_and_strings",
    "convert_packed",
    "convert_pairs",
    "reverse_subsequences",
    "bad",
    "hostile",
    "port_warnings",
    "unsupported",
    "transpose",
    "roll",
    "block_ops",
    "tile",
    "split",
    "pad",
    "pipelines",
    "strided_slice",
    "identity",
    "squeeze",
    "gather_elements",
    "gather_nd",
    "gather_tree",
    "scatter",
    "scatter_elements",
    "extract_image_patches",
    "col2im",
    "slice_scatter",
    "string_tensor",
    "unique",
]


@dataclasses.dataclass(frozen=True)
class Generator:
    """One generator: the cases it makes and the references of the ops it
    owns."""

    name: str
    # Appends the generator's cases; None for a generator that only brings
    # references (its ops reach the samples through converted models).
    build: Optional[Callable[[Cases], None]]
    # Op type -> NumPy reference, for every op whose reference lives here.
    references: dict[str, Reference] = dataclasses.field(default_factory=dict)
    # The packages (beyond openvino, numpy and ml_dtypes) the build imports.
    frameworks: tuple[str, ...] = ()
    # The shared random streams (graph.VALUES, graph.CODES) it draws from.
    streams: tuple[str, ...] = ()


def module(name: str):
    return importlib.import_module(f"{__package__}.generators.{name}")


def summary(name: str) -> str:
    """The first sentence of the generator's module doc."""
    doc = " ".join((module(name).__doc__ or "").split())
    return doc.split(": ")[0].split(". ")[0].rstrip(".")


def load() -> list[Generator]:
    """Every generator, in registry order."""
    generators = []
    for name in GENERATORS:
        generator = module(name).GENERATOR
        if generator.name != name:
            raise ValueError(f"module {name} defines the generator {generator.name!r}")
        generators.append(generator)
    return generators


def references(generators: list[Generator]) -> dict[str, Reference]:
    """Op type -> reference, gathered from every generator."""
    table: dict[str, Reference] = {}
    owner: dict[str, str] = {}
    for g in generators:
        for op, ref in g.references.items():
            if op in table:
                raise ValueError(f"both {owner[op]} and {g.name} define the reference of {op}")
            table[op], owner[op] = ref, g.name
    return table
