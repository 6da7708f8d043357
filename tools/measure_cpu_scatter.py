#!/usr/bin/env python3
"""What OpenVINO's CPU plugin and its reference (a node's `evaluate`, what
constant folding runs) do with the scatters where the three witnesses may
part: ScatterUpdate's negative and repeated indices, ScatterNDUpdate-3's
negative indices, and ScatterNDUpdate-15's reductions on booleans and on
repeated tuples.

    python3 tools/measure_cpu_scatter.py

Each line names a case and gives the plugin's output, then the
reference's, or the first line of an error. docs/movement-ops.md quotes
these results. Needs the `numpy` and `openvino` pip packages.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset3 as opset3
import openvino.opset4 as opset4
import openvino.opset15 as opset15

CORE = ov.Core()


def last_line(e: Exception) -> str:
    lines = [l.strip() for l in str(e).strip().splitlines() if l.strip()]
    return "error: " + (lines[-1] if lines else "")


def on_cpu(build, inputs: list[np.ndarray]) -> str:
    params = parameters(inputs)
    try:
        compiled = CORE.compile_model(ov.Model([build(*params)], params), "CPU")
        return str(compiled(inputs)[0].tolist())
    except RuntimeError as e:
        return last_line(e)


def parameters(inputs: list[np.ndarray]) -> list:
    return [opset3.parameter(v.shape, ov.Type.boolean if v.dtype == bool else ov.Type(v.dtype)) for v in inputs]


def reference(build, inputs: list[np.ndarray]) -> str:
    node = build(*parameters(inputs))
    out = ov.Tensor(node.get_output_element_type(0), node.get_output_shape(0))
    try:
        if not node.evaluate([out], [ov.Tensor(np.ascontiguousarray(v)) for v in inputs]):
            return "error: no evaluate"
        return str(out.data.tolist())
    except RuntimeError as e:
        return last_line(e)


def bf16_tensor(values) -> ov.Tensor:
    """A bf16 tensor of `values` (exact in bf16), from the top halves of
    their f32 bits."""
    arr = np.array(values, np.float32)
    t = ov.Tensor(ov.Type.bf16, ov.Shape(list(arr.shape)))
    np.asarray(t.data).view(np.uint16)[:] = (arr.view(np.uint32) >> 16).astype(np.uint16)
    return t


def bf16_reference() -> str:
    """ScatterNDUpdate-15 summing 1 four times into 256, in bf16, by the
    reference."""
    data, ones = opset3.parameter([1], ov.Type.bf16), opset3.parameter([4], ov.Type.bf16)
    node = opset15.scatter_nd_update(data, opset3.parameter([4, 1], ov.Type.i32), ones, "sum")
    out = ov.Tensor(ov.Type.bf16, [1])
    node.evaluate([out], [bf16_tensor([256]), ov.Tensor(np.zeros((4, 1), np.int32)), bf16_tensor([1, 1, 1, 1])])
    bits = np.asarray(out.data).view(np.uint16).astype(np.uint32) << 16
    return str(bits.view(np.float32).tolist())


def show(name: str, build, inputs: list[np.ndarray]):
    print(f"{name}\n  CPU plugin: {on_cpu(build, inputs)}\n  reference:  {reference(build, inputs)}")


def main():
    data = np.arange(5, dtype=np.float32)
    axis = np.array(0, np.int64)
    for idx in ([-1], [5], [1, 1], [0, 4, 0]):
        indices = np.array(idx, np.int64)
        updates = np.arange(10, 10 + len(idx), dtype=np.float32)
        show(f"ScatterUpdate of {data.tolist()} at {idx} by {updates.tolist()}",
             lambda d, i, u, a: opset3.scatter_update(d, i, u, a), [data, indices, updates, axis])

    data = np.array([1, 2, 3, 4], np.float32)
    indices = np.array([[0], [2], [-3], [-3], [0]], np.int32)
    updates = np.array([10, 20, 30, 40, 50], np.float32)
    show("ScatterNDUpdate-3 with negative and repeated indices (the spec's example)",
         lambda d, i, u: opset4.scatter_nd_update(d, i, u), [data, indices, updates])
    for reduction in ("none", "sum", "sub", "prod", "min", "max"):
        show(f"ScatterNDUpdate-15 {reduction}, the spec's example",
             lambda d, i, u, r=reduction: opset15.scatter_nd_update(d, i, u, r), [data, indices, updates])

    booleans = np.array([True, False, True, False])
    indices = np.array([[0], [1], [2], [3], [1]], np.int32)
    updates = np.array([True, True, False, False, True])
    for reduction in ("sum", "sub", "prod", "min", "max"):
        show(f"ScatterNDUpdate-15 {reduction} on booleans {booleans.tolist()} by {updates.tolist()} at "
             f"{indices.reshape(-1).tolist()}",
             lambda d, i, u, r=reduction: opset15.scatter_nd_update(d, i, u, r), [booleans, indices, updates])

    halves = np.array([2048], np.float16)
    show("ScatterNDUpdate-15 sum of 1 four times into 2048 in f16",
         lambda d, i, u: opset15.scatter_nd_update(d, i, u, "sum"),
         [halves, np.zeros((4, 1), np.int32), np.ones(4, np.float16)])
    # bf16 has no NumPy type: the model takes f32 and converts.
    build = lambda d, i, u: opset3.convert(  # noqa: E731
        opset15.scatter_nd_update(opset3.convert(d, "bf16"), i, opset3.convert(u, "bf16"), "sum"), "f32")
    cpu = on_cpu(build, [np.array([256], np.float32), np.zeros((4, 1), np.int32), np.ones(4, np.float32)])
    print(f"ScatterNDUpdate-15 sum of 1 four times into 256 in bf16\n  CPU plugin: {cpu}\n"
          f"  reference:  {bf16_reference()}")

    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    show("ScatterNDUpdate-3 of one element where tuples pick a scalar",
         lambda d, i, u: opset4.scatter_nd_update(d, i, u), [data, np.array([1, 2], np.int32), np.array([9.0], np.float32)])
    show("ScatterNDUpdate-15 sum by two tuples of no index (each the whole data)",
         lambda d, i, u: opset15.scatter_nd_update(d, i, u, "sum"),
         [data, np.zeros((2, 0), np.int32), np.arange(12, dtype=np.float32).reshape(2, 2, 3)])


if __name__ == "__main__":
    main()
