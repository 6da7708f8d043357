"""The layout pipelines the README runs: an NHWC image transposed to NCHW
and its channels flipped; what PrePostProcessor writes for
`convert_layout` and `reverse_channels` in front of a model; and a
bidirectional RNN's time-major ReverseSequence followed by a Transpose to
batch-major. (The ONNX flip, pad and transpose is in `pad`, the pixel
shuffle beside its Reshape-Transpose-Reshape form in `block_ops`.)"""

from __future__ import annotations

import numpy as np
import openvino as ov
from openvino.preprocess import PrePostProcessor

from ..cases import Cases
from ..graph import FACTORY, _out, arange, const, model, param, reverse, reverse_sequence, stable_names
from ..registry import Generator


def transpose(data, order, name: str):
    node = FACTORY.create("Transpose", [_out(data), _out(order)], {})
    node.set_friendly_name(name)
    return node


def build(cases: Cases):
    # NHWC to NCHW, then the channels back to front (RGB to BGR).
    shape = (2, 4, 5, 3)
    d = param("image", "f32", shape)
    nchw = transpose(d, const((0, 3, 1, 2), "i64", "to_nchw"), "to_nchw")
    m = model({"out": reverse(nchw, const((1,), "i64", "channels"), "index", "flip_channels")}, [d],
              "pipeline_nhwc_flip")
    cases.add("pipeline_nhwc_to_nchw_flip_channels", m, {"image": arange(shape)})

    # PrePostProcessor: a u8 NHWC image in front of a model that takes
    # f32 NCHW, with the channels reversed.
    x = param("x", "f32", (1, 3, 6, 8))
    body = model({"y": reverse(x, const((2,), "i64", "rows"), "index", "flip_rows")}, [x], "ppp_body")
    ppp = PrePostProcessor(body)
    ppp.input().tensor().set_element_type(ov.Type.u8).set_layout(ov.Layout("NHWC"))
    ppp.input().model().set_layout(ov.Layout("NCHW"))
    ppp.input().preprocess().convert_element_type(ov.Type.f32).convert_layout(ov.Layout("NCHW")).reverse_channels()
    m = ppp.build()
    p = m.get_parameters()[0]
    p.output(0).set_names({"image"})
    p.set_friendly_name("image")
    stable_names(m)
    cases.add("pipeline_ppp_convert_layout_reverse_channels", m,
              {"image": (np.arange(1 * 6 * 8 * 3) % 251).astype(np.uint8).reshape(1, 6, 8, 3)})

    # A bidirectional RNN's backward direction: the time-major sequence
    # reversed within each length, then made batch-major.
    shape = (5, 3, 4)
    d = param("seq", "f32", shape)
    back = reverse_sequence(d, const((5, 2, 0), "i64", "lengths"), 1, 0)
    m = model({"out": transpose(back, const((1, 0, 2), "i64", "batch_major"), "batch_major")}, [d],
              "pipeline_birnn")
    cases.add("pipeline_birnn_reverse_then_batch_major", m, {"seq": arange(shape)})


GENERATOR = Generator("pipelines", build)
