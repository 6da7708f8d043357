#!/usr/bin/env python3
"""Do OpenVINO's CPU plugin and ovir agree on a folder of conformance cases?

Run by hand (never in CI), from the repository root:

    python3 tools/ov_cases.py DIR

Every folder below DIR that holds a model.xml is a case as `ovir
conformance` reads it (those `ovir extract` writes, for example). Each is
read with OpenVINO's `Core.read_model`, run on the CPU plugin with the
case's in/*.npy, and its outputs compared bit for bit with expected/*.npy.
Cases with an expected_error must be refused. A case whose op OpenVINO
cannot run at all (ovir's own ReverseSubsequences, element types the CPU
plugin does not take) is counted apart from one whose outputs differ.

Exit status 1 when any case OpenVINO runs gives other outputs.
"""

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
import ov_readback  # noqa: E402  (its runner and packing rules)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path)
    args = ap.parse_args()
    cases = sorted(p.parent for p in args.dir.rglob("model.xml"))
    counts = {"same": 0, "refused as expected": 0, "openvino cannot run": 0, "differ": 0}
    lines = []
    with tempfile.TemporaryDirectory() as scratch:
        for case in cases:
            name = case.relative_to(args.dir) if case != args.dir else case.name
            got, err = ov_readback.attempt(case / "model.xml", case, Path(scratch))
            if (case / "expected_error").exists():
                key = "refused as expected" if err else "differ"
                counts[key] += 1
                if not err:
                    lines.append(f"  FAILED {name}: OpenVINO runs what should be refused")
                continue
            if err is not None:
                counts["openvino cannot run"] += 1
                lines.append(f"  cannot run {name}: {err}")
                continue
            bad = ov_readback.same(got, case)
            if bad:
                counts["differ"] += 1
                lines.append(f"  FAILED {name}: outputs differ: {', '.join(bad)}")
            else:
                counts["same"] += 1
    print(f"{len(cases)} cases in {args.dir} run by OpenVINO {ov_readback.ov.get_version()}")
    for k, v in counts.items():
        print(f"  {k}: {v}")
    print("\n".join(lines))
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
