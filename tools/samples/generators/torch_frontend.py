"""torch.flip converted by OpenVINO's PyTorch front end (a Slice with step
-1 along each flipped axis). Needs `torch` (imported only when these cases
are built)."""

from __future__ import annotations

import openvino as ov

from ..cases import Cases
from ..graph import arange, stable_names
from ..registry import Generator


def build(cases: Cases):
    import torch

    class Flip(torch.nn.Module):
        def __init__(self, dims):
            super().__init__()
            self.dims = dims

        def forward(self, x):
            return torch.flip(x, self.dims)

    for tag, dims, shape in (("dim0", [0], (3, 4)), ("dims_0_m1", [0, -1], (2, 3, 4)),
                             ("dim1_dynamic", [1], (2, 5, 3))):
        dynamic = tag.endswith("dynamic")
        example = torch.from_numpy(arange(shape))
        m = ov.convert_model(Flip(dims), example_input=example,
                             input=[ov.PartialShape([-1] * len(shape) if dynamic else list(shape))])
        p = m.get_parameters()[0]
        p.output(0).set_names({"x"})
        p.set_friendly_name("x")
        m.output(0).get_tensor().set_names({"out"})
        stable_names(m)
        cases.add(f"torch_flip_{tag}", m, {"x": arange(shape)})


GENERATOR = Generator("torch_frontend", build, frameworks=("torch",))
