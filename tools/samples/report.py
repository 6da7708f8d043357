"""What a run wrote and how the CPU plugin's results compare, printed at
the end."""

from __future__ import annotations

import dataclasses
from pathlib import Path


@dataclasses.dataclass
class Report:
    valid: list = dataclasses.field(default_factory=list)
    runtime_error: list = dataclasses.field(default_factory=list)
    checked: list = dataclasses.field(default_factory=list)
    skipped: list = dataclasses.field(default_factory=list)
    cpu_problems: list = dataclasses.field(default_factory=list)
    cpu_notes: list = dataclasses.field(default_factory=list)
    bad: list = dataclasses.field(default_factory=list)

    def cpu_line(self, case, text, ok):
        (self.cpu_notes if ok else self.cpu_problems).append((case, text))

    def print(self, out_dir: Path):
        print(f"valid cases:              {len(self.valid)}")
        print(f"  cross-checked on CPU:   {len(self.checked)} (bit-exact)")
        print(f"  not cross-checked:      {len(self.skipped)}")
        for name, why in self.skipped:
            print(f"    {name}: not cross-checked: {why}")
        print(f"run-time error cases:     {len(self.runtime_error)}")
        for name, text in self.cpu_notes:
            print(f"    {name}: {text}")
        print(f"malformed (bad/) cases:   {len(self.bad)}")
        accepted = [b for b in self.bad if not b[2].startswith("REFUSED")]
        for name, phrase, verdict in self.bad:
            print(f"    {name} [{phrase}]: OpenVINO {verdict}")
        if accepted:
            print(f"  OpenVINO does not refuse {len(accepted)} of them: "
                  + ", ".join(b[0] for b in accepted))
        if self.cpu_problems:
            print(f"CPU cross-check problems: {len(self.cpu_problems)}")
            for name, text in self.cpu_problems:
                print(f"    {name}: {text}")
        else:
            print("CPU cross-check problems: none")
        files = [f for f in out_dir.rglob("*") if f.is_file()]
        total = sum(f.stat().st_size for f in files)
        print(f"ir-samples size: {total / 1024:.1f} KiB in {len(files)} files")
