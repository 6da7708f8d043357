"""Models whose ports declare `<dim>`s or a `precision` that inference
contradicts. OpenVINO ignores what ports declare and loads them; ovir
loads them too and warns, and `ovir check --strict` refuses them. Each goes
to bad/ with an `expected_warning` phrase instead of `expected_error`."""

from __future__ import annotations

from ..cases import Cases
from ..registry import Generator
from ..xmltext import edit_layer, edit_port, set_attr, set_port_dims, sub_once
from .bad import base_reverse


def build(cases: Cases):
    x, w = base_reverse()
    # The Parameter's `shape` says [2,5,4]; its port says [2,3,4].
    cases.warn("port_parameter_dims", set_port_dims(x, "data", 0, [2, 3, 4]), w, "declares shape")
    # A `shape` whose element count overflows, under ports of [2,5,4]: every
    # port that carries the data disagrees.
    cases.warn("port_parameter_shape_overflows",
               set_attr(x, "data", "shape", "4294967296,4294967296,16"), w, "declares shape")
    # An input port that disagrees with the output feeding it.
    cases.warn("port_input_dims", set_port_dims(x, "reverse", 0, [2, 5, 3]), w, "declares shape")
    # A port of another rank.
    cases.warn("port_rank", set_port_dims(x, "result", 0, [2, 20]), w, "declares shape")
    # An output port whose precision is not the data's type.
    cases.warn("port_output_precision",
               edit_layer(x, "reverse", lambda b: edit_port(b, 2, lambda p: sub_once(p, 'precision="FP32"',
                                                                                  'precision="I32"'))),
               w, "declares precision")


GENERATOR = Generator("port_warnings", build)
