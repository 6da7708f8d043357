"""The hand-written hostile files of tools/hostile-samples/, carried into
ir-samples/bad/ as `hostile_<case>` so that they run and are snapshotted
with every other malformed sample."""

from __future__ import annotations

from pathlib import Path

from ..cases import Cases
from ..registry import Generator

HOSTILE_DIR = Path(__file__).resolve().parents[2] / "hostile-samples"


def build(cases: Cases):
    for d in sorted(p for p in HOSTILE_DIR.iterdir() if p.is_dir()):
        binary = (d / "model.bin").read_bytes() if (d / "model.bin").exists() else None
        phrase = (d / "expected_error").read_text().strip()
        cases.bad(f"hostile_{d.name}", (d / "model.xml").read_bytes(), binary, phrase)


GENERATOR = Generator("hostile", build)
