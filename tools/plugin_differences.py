#!/usr/bin/env python3
"""Runs conformance cases of ir-samples/ on OpenVINO's CPU plugin and says,
for each, whether the plugin refuses it, gives other values, or gives the
case's expected outputs bit for bit.

    python3 tools/plugin_differences.py                 # the documented differences
    python3 tools/plugin_differences.py roll_scalar_shift transpose_matrix_f32

With no case named, it runs the cases that docs/movement-ops.md and the
README's "Where ovir differs" list cite as the plugin's differences on the
data-movement ops. The expected outputs of every case are NumPy's (see
tools/gen_samples.py), so a case the plugin gets wrong shows where it
parts from the spec and the reference. Needs the `numpy` and `openvino`
pip packages.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import openvino as ov

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from samples.cases import run_cpu  # noqa: E402  (feeds packed and string inputs as OpenVINO lays them out)

# Case -> what the plugin does with it, as documented.
DOCUMENTED = {
    "roll_scalar_shift": "refuses a scalar shift with several axes, which the spec allows",
    "roll_string_const": "does not roll strings",
    "tile_string_const": "aborts the process tiling strings",
    "tile_type_u4": "aborts the process tiling packed data",
    "variadic_split_type_u4": "cuts packed data byte by byte, which scrambles every part after the first",
    "pad_type_u4": "scrambles packed elements",
    "split_string_const": "aborts the process splitting strings",
    "strided_slice_upstream_0": "gives other elements and uninitialised memory for a shrunk index before a new axis",
    "strided_slice_runtime_stride_zero": "dies of a division by zero on a stride of 0 given at run time",
    "strided_slice_string_const": "aborts the process slicing strings",
    "slice_scatter_upstream_1d_full_f32_i64_runtime": "dies of SIGFPE whenever the bounds are given at run time",
    "slice_scatter_string_const": "aborts the process on strings",
    "gather_tree_length_zero": "leaves a beam of length 0 unwritten, where the reference fills it with end_token",
    "gather_tree_length_negative": "runs a negative length, leaving the beam unwritten",
    "string_pack_end_past_symbols": "reads past the end of the symbols for a string that ends beyond them",
    "string_pack_backwards": "fails inside its string copy for a range that ends before it begins",
    "unique_nan_sorted": "sorts NaN into the numbers and counts some uniques 0 times",
    "unique_i8_rows_sorted": "gives wrong first indices and counts along an axis for 1-byte types",
    "unique_u32_sorted": "compares u32 as i32, so values from 2^31 sort first",
    "unique_i64_sorted": "compares 64-bit integers as 32-bit ones",
    "unique_empty": "fails on empty data without an axis",
    "col2im_f16_rounds_each_addition": "adds f16 in f32 and rounds once (2052), where the reference rounds after each "
                                       "addition (2048)",
    "col2im_zero_kernel_longer_than_image": "leaves the image unwritten when the data holds no element",
    "col2im_run_time_bad_blocks": "does not check the blocks against sizes given at run time, reading past the data",
    "col2im_run_time_bad_channels": "does not check the channels against a kernel given at run time",
    "col2im_run_time_bad_kernel_zero": "dies of a division by zero on a kernel size of 0 given at run time",
}


def run(case: str) -> str:
    folder = ROOT / "ir-samples" / case
    model = ov.Core().read_model(folder / "model.xml")
    inputs = {p.stem: np.load(p, allow_pickle=False) for p in sorted((folder / "in").glob("*.npy"))}
    expected = {p.stem: np.load(p, allow_pickle=False) for p in sorted((folder / "expected").glob("*.npy"))}
    names = [next(iter(o.get_names())) for o in model.outputs]
    try:
        got = run_cpu(model, inputs, names)
    except Exception as e:  # the plugin's refusal, whatever its type
        return "refused: " + str(e).strip().splitlines()[-1]
    refusal = folder / "expected_error"
    if refusal.exists():
        values = " ".join(f"{n}={v.reshape(-1)[:8].tolist()}" for n, v in got.items())
        return f"runs it where ovir refuses it ({refusal.read_text().strip()}): {values}"
    for name, want in expected.items():
        have = got.get(name)
        if have is None or have.shape != want.shape:
            return f"{name}: shape {None if have is None else have.shape}, expected {want.shape}"
        if have.dtype.kind in "US":
            same = (have == want).all()
        else:
            same = have.tobytes() == want.astype(have.dtype).tobytes()
        if not same:
            at = int(np.argmax(have.reshape(-1) != want.reshape(-1).astype(have.dtype)))
            return f"{name}: differs at flat index {at}: {have.reshape(-1)[at]!r}, expected {want.reshape(-1)[at]!r}"
    return "bit-exact"


def in_child(case: str) -> str:
    """`run(case)` in a process of its own, since the plugin aborts the
    process on some cases."""
    child = subprocess.run([sys.executable, __file__, "--one", case], capture_output=True, text=True)
    if child.returncode == 0:
        return child.stdout.strip()
    last = (child.stderr.strip().splitlines() or [""])[-1]
    return f"aborted the process (exit {child.returncode}): {last}"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        print(run(argv[1]))
        return 0
    cases = argv or list(DOCUMENTED)
    for case in cases:
        note = f"  ({DOCUMENTED[case]})" if case in DOCUMENTED and not argv else ""
        print(f"{case}: {in_child(case)}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
