#!/usr/bin/env python3
"""Does OpenVINO read back what ovir writes?

Run by hand (never in CI), from the repository root:

    cargo build --release -p ovir-cli
    python3 tools/ov_readback.py [--ovir target/release/ovir] [--only SUBSTRING] [--fold] [--keep DIR]

For every valid sample in ir-samples/ it writes the model again with
`ovir convert` (with `--fold` when given), reads the result with OpenVINO's
`Core.read_model`, runs it on the CPU plugin with the sample's inputs and
compares every output bit for bit with the sample's expected outputs. The
original model.xml is run the same way, so that a sample OpenVINO cannot run
in the first place (sub-byte element types the CPU plugin does not take,
ovir's own ReverseSubsequences) is told apart from one that ovir wrote
badly. Samples with an expected_error must be refused by OpenVINO in both
forms or in neither.

Exit status 1 when any written model runs worse in OpenVINO than its
original.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import openvino as ov

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
from samples.cases import first_line, output_names, xml_input_names  # noqa: E402  (the samples' naming)
from samples.elements import F8_TYPES, PACKED_BITS, pack_codes, safe_name, same_bits, tight_strings, \
    unpack_codes  # noqa: E402  (the samples' packing rules)

CORE = ov.Core()


def to_tensor(arr: np.ndarray, et: ov.Type) -> ov.Tensor:
    """A tensor of OpenVINO type `et` from the sample's npy data: packed
    sub-byte types are given as one code per element and packed here."""
    name = et.get_type_name()
    if name in PACKED_BITS:
        t = ov.Tensor(et, ov.Shape(list(arr.shape)))
        raw = np.frombuffer(pack_codes(arr, name), np.uint8)
        t.data.reshape(-1).view(np.uint8)[: raw.size] = raw
        return t
    if name in F8_TYPES or (name == "bf16" and arr.dtype == np.uint16):
        # Bit patterns: one u8 per 8-bit float, one u16 per bf16.
        t = ov.Tensor(et, ov.Shape(list(arr.shape)))
        t.data.reshape(-1).view(np.uint8)[:] = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
        return t
    if arr.dtype.kind == "U":
        return ov.Tensor(arr)
    # ascontiguousarray alone would make a scalar 1-D.
    return ov.Tensor(np.ascontiguousarray(arr).reshape(arr.shape))


def from_tensor(t: ov.Tensor) -> np.ndarray:
    et = t.get_element_type()
    name = et.get_type_name()
    shape = tuple(t.get_shape())
    if et == ov.Type.string:
        return tight_strings(np.array(t.str_data, dtype=str).reshape(shape))
    if name in PACKED_BITS:
        raw = np.array(t.data).reshape(-1).view(np.uint8).tobytes()
        count = int(np.prod(shape, dtype=np.int64))
        return unpack_codes(raw, name, count).reshape(shape)
    if name in F8_TYPES:
        return np.array(t.data).reshape(-1).view(np.uint8).reshape(shape).copy()
    if name == "bf16":
        return np.array(t.data).reshape(-1).view(np.uint16).reshape(shape).copy()
    return np.array(t.data)


def run(xml: Path, case: Path) -> dict:
    """The outputs OpenVINO computes for the sample's inputs, by expected
    file name; raises when OpenVINO refuses the model or the run."""
    graph = CORE.read_model(str(xml))
    text = xml.read_text()
    in_names = xml_input_names(text)
    out_names = output_names(graph, text)
    compiled = CORE.compile_model(graph, "CPU")
    request = compiled.create_infer_request()
    for i, p in enumerate(compiled.inputs):
        name = in_names[graph.get_parameters()[i].get_friendly_name()]
        arr = np.load(case / "in" / f"{name}.npy", allow_pickle=False)
        request.set_input_tensor(i, to_tensor(arr, graph.get_parameters()[i].get_element_type()))
    request.infer()
    # Every name an output answers to: folding can give an output read
    # straight from an input that input's name first.
    outputs = {}
    for i, n in enumerate(out_names):
        value = from_tensor(request.get_output_tensor(i))
        for name in [n, *map(safe_name, compiled.outputs[i].get_names())]:
            outputs.setdefault(name, value)
    return outputs


def attempt(xml: Path, case: Path, scratch: Path):
    """`run` in a child process, since OpenVINO can crash outright (it
    frees a string Const twice); (outputs, None) or (None, why not)."""
    result = scratch / "outputs.npz"
    result.unlink(missing_ok=True)
    child = subprocess.run([sys.executable, __file__, "--attempt", str(xml), str(case), str(result)],
                           capture_output=True, text=True)
    if child.returncode != 0 or not result.exists():
        why = child.stdout.strip() or (child.stderr.strip().splitlines() or ["no message"])[-1]
        return None, f"{why} (exit {child.returncode})"
    with np.load(result, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}, None


def attempt_here(xml: str, case: str, result: str) -> int:
    try:
        outputs = run(Path(xml), Path(case))
    except Exception as e:  # OpenVINO raises RuntimeError, and more
        print(first_line(str(e)))
        return 1
    np.savez(result, **outputs)
    return 0


def same(got: dict, case: Path) -> list:
    """The outputs that differ from the expected ones."""
    bad = []
    for f in sorted((case / "expected").glob("*.npy")):
        want = np.load(f, allow_pickle=False)
        have = got.get(f.stem)
        if have is None or not same_bits(want, have):
            bad.append(f.stem)
    return bad


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--attempt":
        return attempt_here(*sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ovir", default=str(REPO / "target" / "release" / "ovir"))
    ap.add_argument("--only", default="")
    ap.add_argument("--fold", action="store_true", help="write with `ovir convert --fold`")
    ap.add_argument("--keep", help="write the converted models here instead of a temporary folder")
    args = ap.parse_args()

    cases = sorted(p for p in (REPO / "ir-samples").iterdir() if (p / "model.xml").is_file() and args.only in p.name)
    tmp = tempfile.TemporaryDirectory()
    out_root = Path(args.keep or tmp.name)
    counts = {"same": 0, "refused both": 0, "openvino cannot run the original": 0, "failed": 0}
    failures, cannot = [], []
    for case in cases:
        out = out_root / case.name / "model.xml"
        out.parent.mkdir(parents=True, exist_ok=True)
        cmd = [args.ovir, "convert", str(case / "model.xml"), "-o", str(out)] + (["--fold"] if args.fold else [])
        conv = subprocess.run(cmd, capture_output=True, text=True)
        if conv.returncode != 0:
            counts["failed"] += 1
            failures.append(f"{case.name}: ovir convert failed: {conv.stderr.strip().splitlines()[0]}")
            continue
        orig, orig_err = attempt(case / "model.xml", case, out.parent)
        got, err = attempt(out, case, out.parent)
        if (case / "expected_error").exists():
            if (orig_err is None) == (err is None):
                counts["refused both" if err else "same"] += 1
            else:
                counts["failed"] += 1
                failures.append(f"{case.name}: original {'refused' if orig_err else 'ran'}, written "
                                f"{'refused: ' + err if err else 'ran'}")
            continue
        if orig_err is not None:
            counts["openvino cannot run the original"] += 1
            cannot.append(f"{case.name}: {orig_err}")
            continue
        if err is not None:
            counts["failed"] += 1
            failures.append(f"{case.name}: OpenVINO refuses the written model: {err}")
            continue
        bad, bad_orig = same(got, case), same(orig, case)
        if not bad:
            counts["same"] += 1
        elif bad == bad_orig and all(same_bits(got[n], orig[n]) for n in bad if n in got and n in orig):
            # OpenVINO's CPU plugin disagrees with the reference on the
            # original too, and gives the same bits on both.
            counts["same"] += 1
        else:
            counts["failed"] += 1
            failures.append(f"{case.name}: outputs differ: {', '.join(bad)}")
    print(f"{len(cases)} samples written by `{' '.join(['ovir convert'] + (['--fold'] if args.fold else []))}`"
          " and run by OpenVINO " + ov.get_version())
    for k, v in counts.items():
        print(f"  {k}: {v}")
    for line in cannot:
        print("  cannot run original: " + line)
    for line in failures:
        print("  FAILED " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
