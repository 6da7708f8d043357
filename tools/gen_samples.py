#!/usr/bin/env python3
"""Regenerate the ir-samples/ conformance tree.

Run from the repository root:

    python3 tools/gen_samples.py                    # every case, from scratch
    python3 tools/gen_samples.py --only reverse     # one generator's cases (repeatable)
    python3 tools/gen_samples.py --list             # the generators and what they need

A full run deletes ir-samples/ and writes it again; `--only NAME` replaces
the folders of NAME's cases and leaves every other folder untouched (a case
NAME no longer makes keeps its old folder until a full run). The output is
deterministic for a given OpenVINO/NumPy/ml_dtypes/ONNX/TensorFlow/PyTorch
installation, and a generator writes the same bytes alone as in a full run.

Every run needs `openvino`, `numpy` and `ml_dtypes`. `onnx`, `tensorflow`
(with `keras`) and `torch` are imported only by the generators that convert
models with them; a run that needs one that is not installed names it and
stops before it writes or deletes anything.

Layout of one valid case (see ir-samples/README.md):

    ir-samples/<case>/model.xml               OpenVINO's serializer output
    ir-samples/<case>/model.bin               weights (when there are any)
    ir-samples/<case>/in/<input>.npy          one per model input
    ir-samples/<case>/expected/<output>.npy   one per model output
    ir-samples/<case>/expected_error          (instead of expected/) a short
                                              phrase the run-time error must contain
    ir-samples/bad/<case>/model.xml (+ model.bin) + expected_error

Expected outputs come from the NumPy reference of each op, evaluated over
the graph read back from the written model.xml. Where the OpenVINO CPU
plugin is known to be exact, its results are compared bit for bit with the
reference.

The generators live in tools/samples/ (its __init__.py says how to add
one); this file is only the command line.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from samples.run import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
