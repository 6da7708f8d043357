"""Real models, converted by OpenVINO's ONNX front end, whose operations
ovir does not run (an LSTM, a small CNN): under unsupported/, with the
phrase running them must fail with. `ovir info` still describes them.
Needs `onnx` (imported only when these models are written)."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np
import openvino as ov

from ..cases import Cases, Context
from ..graph import stable_names
from ..registry import Generator


def onnx_lstm_model() -> bytes:
    """A one-layer LSTM over 5 steps of 3 features with 4 hidden units, as
    a sequence model exports it."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)
    seq, batch, features, hidden = 5, 1, 3, 4
    w = numpy_helper.from_array(rng.standard_normal((1, 4 * hidden, features)).astype(np.float32), "W")
    r = numpy_helper.from_array(rng.standard_normal((1, 4 * hidden, hidden)).astype(np.float32), "R")
    b = numpy_helper.from_array(rng.standard_normal((1, 8 * hidden)).astype(np.float32), "B")
    node = helper.make_node("LSTM", ["x", "W", "R", "B"], ["y", "y_h", "y_c"], hidden_size=hidden, name="lstm")
    graph = helper.make_graph(
        [node], "lstm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, batch, features])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [seq, 1, batch, hidden]),
         helper.make_tensor_value_info("y_h", TensorProto.FLOAT, [1, batch, hidden]),
         helper.make_tensor_value_info("y_c", TensorProto.FLOAT, [1, batch, hidden])],
        initializer=[w, r, b])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], producer_name="gen_samples")
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


def onnx_cnn_model() -> bytes:
    """A small image classifier: convolution, ReLU, max pooling, a dense
    layer and softmax over an 8x8 RGB image."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(11)
    conv_w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "conv_w")
    conv_b = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "conv_b")
    fc_w = numpy_helper.from_array(rng.standard_normal((64, 10)).astype(np.float32), "fc_w")
    fc_b = numpy_helper.from_array(rng.standard_normal(10).astype(np.float32), "fc_b")
    shape = numpy_helper.from_array(np.array([1, 64], np.int64), "flat_shape")
    nodes = [
        helper.make_node("Conv", ["image", "conv_w", "conv_b"], ["conv"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("MaxPool", ["relu"], ["pool"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
        helper.make_node("Reshape", ["pool", "flat_shape"], ["flat"], name="flatten"),
        helper.make_node("MatMul", ["flat", "fc_w"], ["fc"], name="fc"),
        helper.make_node("Add", ["fc", "fc_b"], ["logits"], name="fc_bias"),
        helper.make_node("Softmax", ["logits"], ["probabilities"], axis=1, name="softmax"),
    ]
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])],
        initializer=[conv_w, conv_b, fc_w, fc_b, shape])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gen_samples")
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


@dataclasses.dataclass
class UnsupportedCase:
    """An ONNX model converted when written, with the error phrase."""

    name: str
    build: Callable[[], bytes]

    @property
    def folder(self) -> str:
        return f"unsupported/{self.name}"

    def write(self, case_dir: Path, ctx: Context):
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / f"{self.name}.onnx"
            src.write_bytes(self.build())
            m = ov.convert_model(str(src))
        stable_names(m)
        ov.save_model(m, str(case_dir / "model.xml"), compress_to_fp16=False)
        (case_dir / "expected_error").write_text("unknown operation type\n")


def build(cases: Cases):
    cases.append(UnsupportedCase("onnx_lstm", onnx_lstm_model))
    cases.append(UnsupportedCase("onnx_cnn", onnx_cnn_model))


GENERATOR = Generator("unsupported", build, frameworks=("onnx",))
