"""ONNX ReverseSequence models converted by OpenVINO's ONNX front end: two
of our own, and the ReverseSequence node tests that ship with the `onnx`
package. Needs `onnx` (imported only when these cases are built)."""

from __future__ import annotations

import numpy as np

from ..cases import Cases
from ..graph import arange
from ..registry import Generator


def onnx_rseq_model(batch_axis: int, time_axis: int, shape) -> bytes:
    import onnx
    from onnx import TensorProto, helper

    batch = shape[batch_axis]
    node = helper.make_node("ReverseSequence", ["x", "sequence_lens"], ["y"],
                            batch_axis=batch_axis, time_axis=time_axis, name="reverse_sequence")
    graph = helper.make_graph(
        [node], "rseq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape)),
         helper.make_tensor_value_info("sequence_lens", TensorProto.INT64, [batch])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="gen_samples")
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


def node_test_cases(cases: Cases):
    """The ReverseSequence node tests that ship with the onnx package, as
    their own models and data."""
    import warnings

    from onnx.backend.test.case.node import collect_testcases

    # Collecting imports every node test, some of which warn about their
    # own data.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tests = collect_testcases("ReverseSequence")
    for test in tests:
        # The bfloat16 variant has data that .npy files cannot hold.
        if test.name not in ("test_reversesequence_time", "test_reversesequence_batch"):
            continue
        (inputs, _outputs), = test.data_sets
        names = [i.name for i in test.model.graph.input]
        feeds = {n: np.asarray(v) for n, v in zip(names, inputs)}
        cases.add("onnx_node_" + test.name[len("test_"):], None, feeds, onnx=test.model.SerializeToString())


def build(cases: Cases):
    shape = (4, 4)
    cases.add("onnx_rseq_time_major", None,
              {"x": arange(shape), "sequence_lens": np.array([4, 3, 2, 1], np.int64)},
              onnx=onnx_rseq_model(1, 0, shape))
    shape = (4, 3, 2)
    cases.add("onnx_rseq_batch_major", None,
              {"x": arange(shape), "sequence_lens": np.array([1, 2, 3, 0], np.int64)},
              onnx=onnx_rseq_model(0, 1, shape))
    node_test_cases(cases)


GENERATOR = Generator("onnx_frontend", build, frameworks=("onnx",))
