#!/usr/bin/env python3
"""What OpenVINO's CPU plugin does with the block ops (DepthToSpace,
SpaceToDepth, ShuffleChannels, BatchToSpace, SpaceToBatch) on strings and packed sub-byte data, next to the NumPy
reference of tools/samples.

    python3 tools/measure_cpu_block_ops.py

Each line names an op, an element type and what the plugin returns: the
same elements as the reference, different ones (the first few of each), or
the first line of its error. Each case runs in a process of its own, since
some abort the process. The README's section on where ovir differs from
the CPU plugin quotes these results. Needs the `numpy` and `openvino` pip
packages.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

OPS = ("DepthToSpace", "SpaceToDepth", "ShuffleChannels", "BatchToSpace", "SpaceToBatch")
CASES = [(op, et) for op in OPS for et in ("string", "u4", "i4", "u3", "u1")]
SHAPES = {"DepthToSpace": (1, 4, 3, 3), "SpaceToDepth": (1, 1, 6, 2), "ShuffleChannels": (3, 6), "BatchToSpace": (4, 3),
          "SpaceToBatch": (2, 5)}


def one(op: str, et: str) -> str:
    import openvino as ov

    from samples.elements import unpack_codes
    from samples.generators import block_ops
    from samples.graph import code_const, const, model, string_const, strings

    def ints(*values):
        return [const(v, "i64", f"c{i}") for i, v in enumerate(values)]

    shape = SHAPES[op]
    make, ref = {
        "DepthToSpace": (lambda x: block_ops.depth_to_space(x, "blocks_first", 2),
                         lambda v: block_ops.ref_depth_to_space(v, "blocks_first", 2)),
        "SpaceToDepth": (lambda x: block_ops.space_to_depth(x, "blocks_first", 2),
                         lambda v: block_ops.ref_space_to_depth(v, "blocks_first", 2)),
        "ShuffleChannels": (lambda x: block_ops.shuffle_channels(x, -1, 3),
                            lambda v: block_ops.ref_shuffle_channels(v, -1, 3)),
        "BatchToSpace": (lambda x: block_ops.batch_to_space(x, *ints([1, 2], [0, 1], [0, 2])),
                         lambda v: block_ops.ref_batch_to_space(v, [1, 2], [0, 1], [0, 2])),
        "SpaceToBatch": (lambda x: block_ops.space_to_batch(x, *ints([1, 2], [0, 1], [0, 0])),
                         lambda v: block_ops.ref_space_to_batch(v, [1, 2], [0, 1], [0, 0])),
    }[op]
    data = strings(shape) if et == "string" else block_ops.codes(et, shape)
    node = string_const(data, "data") if et == "string" else code_const(data, et, "data")
    want = ref(data)
    try:
        out = list(ov.Core().compile_model(model({"out": make(node)}, [], "m"), "CPU")({})
                   .values())[0]
    except RuntimeError as e:
        return "error: " + str(e).strip().splitlines()[0][:100]
    if et == "string":
        got = np.asarray(out.str_data if hasattr(out, "str_data") else out).reshape(want.shape)
    else:
        raw = np.asarray(out.data).view(np.uint8).tobytes()
        got = unpack_codes(raw, et, want.size).reshape(want.shape)
    if np.array_equal(got, want):
        return "same as the reference"
    return f"differs: {got.reshape(-1)[:6].tolist()} where the reference gives {want.reshape(-1)[:6].tolist()}"


def main() -> int:
    if len(sys.argv) == 3:
        print(one(sys.argv[1], sys.argv[2]), flush=True)
        return 0
    for op, et in CASES:
        run = subprocess.run([sys.executable, __file__, op, et], capture_output=True, text=True)
        said = run.stdout.strip()
        if run.returncode:
            died = f"the process dies ({' '.join(run.stderr.strip().splitlines()[-1:])})"
            said = f"{said}, then {died}" if said else died
        print(f"{op:13} {et:7} {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
