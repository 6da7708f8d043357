"""The command line of tools/gen_samples.py: which generators run, and
where their cases go."""

from __future__ import annotations

import argparse
import collections
import importlib.util
import shutil
from pathlib import Path

from .cases import Case, Cases, Context, write_cases
from .graph import Stream
from .readme import README
from .registry import Generator, load, references, summary
from .report import Report

OUT_DIR = Path(__file__).resolve().parents[2] / "ir-samples"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="gen_samples.py",
        description="Regenerate the ir-samples/ conformance tree, all of it or some generators' cases.")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="regenerate only this generator's cases (repeatable); every other case "
                             "folder is left as it is")
    parser.add_argument("--list", action="store_true", help="print the generators' names and exit")
    return parser.parse_args(argv)


def needed_builds(generators: list[Generator], selected: list[Generator]) -> list[Generator]:
    """The generators to build, in registry order: the selected ones, and
    before them every earlier generator that draws from a stream a later
    selected one draws from, so that the selected ones draw what they draw
    in a full run."""
    chosen = {g.name for g in selected}
    needed = []
    for i, g in enumerate(generators):
        later = [h for h in generators[i + 1:] if h.name in chosen]
        if g.name in chosen or any(set(g.streams) & set(h.streams) for h in later):
            needed.append(g)
    return needed


def missing_frameworks(generators: list[Generator]) -> dict[str, list[str]]:
    """Package -> the generators that need it, for packages not installed."""
    missing: dict[str, list[str]] = {}
    for g in generators:
        for package in g.frameworks:
            if importlib.util.find_spec(package) is None:
                missing.setdefault(package, []).append(g.name)
    return missing


def build_cases(generators: list[Generator], selected: list[Generator]) -> list[Case]:
    """The selected generators' cases, in registry order, after replaying
    the earlier users of their streams."""
    chosen = {g.name for g in selected}
    cases: list[Case] = []
    for g in needed_builds(generators, selected):
        if g.build is None:
            continue
        Stream.open_for(g.name, g.streams)
        made = Cases(g.name)
        g.build(made)
        if g.name in chosen:
            cases += made.items
    Stream.open_for("", ())
    twice = sorted(f for f, n in collections.Counter(c.folder for c in cases).items() if n > 1)
    if twice:
        raise ValueError(f"several cases write {', '.join(twice)}")
    return cases


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    generators = load()
    by_name = {g.name: g for g in generators}
    if args.list:
        for g in generators:
            needs = f" (needs {', '.join(g.frameworks)})" if g.frameworks else ""
            print(f"{g.name:22}{summary(g.name)}{needs}")
        return 0

    if args.only:
        unknown = [n for n in args.only if n not in by_name]
        if unknown:
            print(f"error: no generator named {', '.join(unknown)}; --list names them")
            return 2
        selected = [g for g in generators if g.name in args.only]
    else:
        selected = generators

    missing = missing_frameworks(needed_builds(generators, selected))
    if missing:
        for package, users in missing.items():
            print(f"error: the {package} package is not installed (pip install {package}); "
                  f"needed by {', '.join(users)}")
        if args.only:
            print("nothing was written")
        else:
            print("ir-samples/ was left as it is: a full run rebuilds every case. Install the packages, "
                  "or regenerate some generators with --only NAME")
        return 2

    cases = build_cases(generators, selected)
    if args.only:
        OUT_DIR.mkdir(exist_ok=True)
        for case in cases:
            if (OUT_DIR / case.folder).exists():
                shutil.rmtree(OUT_DIR / case.folder)
    else:
        if OUT_DIR.exists():
            shutil.rmtree(OUT_DIR)
        OUT_DIR.mkdir()
        (OUT_DIR / "README.md").write_text(README)

    report = Report()
    write_cases(cases, OUT_DIR, Context(references(generators), report))
    report.print(OUT_DIR)
    return 1 if report.cpu_problems else 0
