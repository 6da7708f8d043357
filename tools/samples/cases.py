"""The kinds of case a generator makes and how each is written: a valid
model with inputs and expected outputs (checked against the CPU plugin
where it is exact), and a malformed one that must be refused or warned
about. A generator may define its own kind (see reverse_subsequences.py and
unsupported.py): anything with a `name`, a `folder` under ir-samples/ and a
`write` method."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Callable, Mapping, Optional, Protocol

import numpy as np
import openvino as ov

from .elements import F8_TYPES, PACKED_BITS, ov_type, pack_codes, safe_name, same_bits, tight_strings, \
    type_name, unpack_codes
from .evaluate import Reference, RefError, evaluate
from .graph import stable_names
from .report import Report

CORE = ov.Core()


@dataclasses.dataclass
class Context:
    """What writing a case needs besides the case: the op references and
    the report."""

    references: Mapping[str, Reference]
    report: Report


class Case(Protocol):
    name: str

    @property
    def folder(self) -> str:
        """The case's folder, relative to ir-samples/."""

    def write(self, case_dir: Path, ctx: Context) -> None:
        """Fill the (new, empty) `case_dir`."""


class Cases:
    """The cases one generator makes, in order."""

    def __init__(self, generator: str):
        self.generator = generator
        self.items: list[Case] = []

    def append(self, case: Case):
        if any(c.folder == case.folder for c in self.items):
            raise ValueError(f"{self.generator}: duplicate case {case.folder}")
        self.items.append(case)

    def add(self, name: str, m: Optional[ov.Model], inputs=None, **kw):
        """A valid case: `m` with `inputs`, expected outputs from the
        references."""
        self.append(ModelCase(name, m, dict(inputs or {}), **kw))

    def bad(self, name: str, xml, binary: Optional[bytes], phrase: str):
        """A malformed model that must be refused with an error containing
        `phrase`."""
        self.append(BadCase(name, as_bytes(xml), binary, phrase))

    def warn(self, name: str, xml, binary: Optional[bytes], phrase: str):
        """A model loaded with a warning containing `phrase`."""
        self.append(BadCase(name, as_bytes(xml), binary, phrase, warning=True))


def as_bytes(xml) -> bytes:
    return xml.encode() if isinstance(xml, str) else xml


# ---------------------------------------------------------------------------
# Valid cases
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class ModelCase:
    name: str
    model: Optional[ov.Model]
    inputs: dict[str, np.ndarray]
    compress: bool = False
    xml_edit: Optional[Callable[[str], str]] = None
    expected_error: Optional[str] = None
    no_check: Optional[str] = None       # reason to skip the CPU cross-check
    onnx: Optional[bytes] = None          # source ONNX model (converted at write time)

    @property
    def folder(self) -> str:
        return self.name

    def write(self, case_dir: Path, ctx: Context):
        write_valid(self, case_dir, ctx)


def save_npy(path: Path, arr: np.ndarray):
    # ascontiguousarray alone would make a scalar 1-D.
    arr = np.ascontiguousarray(arr).reshape(np.shape(arr))
    if arr.dtype.kind == "U":
        arr = tight_strings(arr)
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, arr, allow_pickle=False)


def split_names(attr: str) -> list[str]:
    """Split a `names` attribute on unescaped commas."""
    parts = re.split(r"(?<!\\),", attr)
    return [p.replace("\\,", ",").strip() for p in parts if p.strip()]


def xml_output_names(xml_text: str) -> dict[str, str]:
    """Result layer name -> sanitized first tensor name of the port feeding it."""
    root = ET.fromstring(xml_text)
    layers = {l.get("id"): l for l in root.find("layers")}
    names = {}
    for edge in root.find("edges"):
        dst = layers[edge.get("to-layer")]
        if dst.get("type") != "Result":
            continue
        src = layers[edge.get("from-layer")]
        port = next(p for p in src.find("output") if p.get("id") == edge.get("from-port"))
        tensor = split_names(port.get("names", ""))
        if not tensor:
            raise ValueError(f"output feeding {dst.get('name')} has no tensor name")
        names[dst.get("name")] = safe_name(tensor[0])
    return names


def xml_input_names(xml_text: str) -> dict[str, str]:
    """Parameter layer name -> sanitized first tensor name of its output port."""
    root = ET.fromstring(xml_text)
    names = {}
    for layer in root.find("layers"):
        if layer.get("type") == "Parameter":
            port = layer.find("output").find("port")
            tensor = split_names(port.get("names", ""))
            if not tensor:
                raise ValueError(f"parameter {layer.get('name')} has no tensor name")
            names[layer.get("name")] = safe_name(tensor[0])
    return names


def output_names(graph: ov.Model, xml_text: str) -> list[str]:
    """Output names in the order of graph.get_results()."""
    by_result = xml_output_names(xml_text)
    names = [by_result[r.get_friendly_name()] for r in graph.get_results()]
    if len(set(names)) != len(names):
        raise ValueError(f"output names are not unique: {names}")
    return names


def run_cpu(m: ov.Model, inputs: dict[str, np.ndarray], out_names: list[str]) -> dict[str, np.ndarray]:
    compiled = CORE.compile_model(m, "CPU")
    request = compiled.create_infer_request()
    feeds = {}
    for inp in compiled.inputs:
        name = next(n for n in inputs if n in inp.get_names())
        et, codes = type_name(inp.get_element_type()), inputs[name]
        if et in PACKED_BITS or et in F8_TYPES:
            # Codes, one per element: lay them out as OpenVINO does.
            t = ov.Tensor(ov_type(et), ov.Shape(list(codes.shape)))
            raw = pack_codes(codes, et) if et in PACKED_BITS else codes.astype(np.uint8).tobytes()
            np.asarray(t.data).view(np.uint8).reshape(-1)[:] = np.frombuffer(raw, np.uint8)
            feeds[name] = t
        else:
            feeds[name] = codes
    request.infer(feeds)
    out = {}
    for name, o in zip(out_names, compiled.outputs):
        t = request.get_tensor(o)
        et = type_name(t.get_element_type())
        if t.get_element_type() == ov.Type.string:
            out[name] = tight_strings(np.array(t.str_data, dtype=str))
        elif et in PACKED_BITS:
            raw = np.asarray(t.data).view(np.uint8).tobytes()
            out[name] = unpack_codes(raw, et, int(np.prod(list(t.shape)))).reshape(tuple(t.shape))
        elif et in F8_TYPES:
            out[name] = np.asarray(t.data).view(np.uint8).reshape(tuple(t.shape)).copy()
        else:
            out[name] = np.array(t.data)
    return out


def tidy_bin(case_dir: Path):
    xml = (case_dir / "model.xml").read_text()
    bin_path = case_dir / "model.bin"
    if bin_path.exists() and bin_path.stat().st_size == 0 and 'type="Const"' not in xml:
        bin_path.unlink()


def write_valid(case: ModelCase, case_dir: Path, ctx: Context):
    report = ctx.report
    xml_path = case_dir / "model.xml"

    if case.onnx is not None:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / f"{case.name}.onnx"
            src.write_bytes(case.onnx)
            case.model = ov.convert_model(str(src))
        stable_names(case.model)
    ov.save_model(case.model, str(xml_path), compress_to_fp16=case.compress)
    if case.xml_edit is not None:
        xml_path.write_text(case.xml_edit(xml_path.read_text()))
    tidy_bin(case_dir)

    # The reference runs on the graph read back from the written files, so
    # the expected values reflect exactly what model.xml/model.bin hold
    # (e.g. constants compressed to f16).
    graph = CORE.read_model(str(xml_path))
    out_names = output_names(graph, xml_path.read_text())

    # model inputs and the files holding them
    feeds = {}
    in_names = xml_input_names(xml_path.read_text())
    for p in graph.get_parameters():
        name = in_names[p.get_friendly_name()]
        if name not in case.inputs:
            raise ValueError(f"{case.name}: no data for input {name}")
        if name not in p.output(0).get_names():
            raise ValueError(f"{case.name}: input {name} is not a tensor name of its Parameter")
        feeds[name] = case.inputs[name]
        save_npy(case_dir / "in" / f"{name}.npy", case.inputs[name])
    extra = set(case.inputs) - set(feeds)
    if extra:
        raise ValueError(f"{case.name}: data for unknown inputs {extra}")

    try:
        expected, caveats = evaluate(graph, feeds, out_names, ctx.references)
        ref_error = None
    except RefError as e:
        expected, caveats, ref_error = None, {}, str(e)

    if case.expected_error is not None:
        if ref_error is None:
            raise ValueError(f"{case.name}: the reference did not refuse the case")
        (case_dir / "expected_error").write_text(case.expected_error + "\n")
        report.runtime_error.append(case.name)
        if case.no_check:
            report.skipped.append((case.name, case.no_check))
            return
        try:
            run_cpu(graph, feeds, out_names)
            report.cpu_line(case.name, "CPU plugin did NOT refuse (reference: %s)" % ref_error, ok=False)
        except RuntimeError as e:
            report.cpu_line(case.name, "CPU plugin refuses too: " + first_line(str(e)), ok=True)
        return
    if ref_error is not None:
        raise ValueError(f"{case.name}: reference refused: {ref_error}")

    for name, arr in expected.items():
        if arr.dtype.kind == "U":
            expected[name] = arr = tight_strings(arr)
        save_npy(case_dir / "expected" / f"{name}.npy", arr)
    report.valid.append(case.name)

    unchecked = {n: why for n, why in caveats.items() if why}
    if case.no_check or len(unchecked) == len(expected):
        why = case.no_check or "; ".join(sorted({w for ws in unchecked.values() for w in ws}))
        report.skipped.append((case.name, why))
        return
    try:
        got = run_cpu(graph, feeds, out_names)
    except RuntimeError as e:
        report.cpu_line(case.name, "CPU plugin failed: " + first_line(str(e)), ok=False)
        return
    for n, why in unchecked.items():
        report.skipped.append((f"{case.name} {n}", "; ".join(why)))
    bad = [n for n in expected if n not in unchecked and (n not in got or not same_bits(expected[n], got[n]))]
    if bad:
        detail = ", ".join(f"{n}: ref {expected[n].reshape(-1)[:6]} cpu {got.get(n, np.array([])).reshape(-1)[:6]}"
                           for n in bad)
        report.cpu_line(case.name, "MISMATCH " + detail, ok=False)
    else:
        report.checked.append(case.name)


NOISE = ("Exception from", "Check '", "While validating", "Converting input model", "Node ")


def first_line(msg: str) -> str:
    """The informative line of an OpenVINO error message."""
    lines = [l.strip() for l in msg.strip().splitlines() if l.strip()]
    useful = [l for l in lines if not l.startswith(NOISE)] or lines
    return useful[0][:160] if useful else ""


# ---------------------------------------------------------------------------
# Malformed cases
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class BadCase:
    """A model under bad/: refused with an error containing `phrase`, or,
    with `warning`, loaded with a warning containing it."""

    name: str
    xml: bytes
    bin: Optional[bytes]
    phrase: str
    warning: bool = False

    @property
    def folder(self) -> str:
        return f"bad/{self.name}"

    def write(self, case_dir: Path, ctx: Context):
        (case_dir / "model.xml").write_bytes(self.xml)
        # A refused model keeps an empty model.bin when it has a Const.
        keep_empty = not self.warning and b'type="Const"' in self.xml
        if self.bin is not None and (len(self.bin) or keep_empty):
            (case_dir / "model.bin").write_bytes(self.bin)
        (case_dir / ("expected_warning" if self.warning else "expected_error")).write_text(self.phrase + "\n")


OV_PROBE = r"""
import sys, openvino as ov
core = ov.Core()
try:
    core.compile_model(core.read_model(sys.argv[1]), "CPU")
    print("ACCEPTED")
except Exception as e:
    print("REFUSED\n" + str(e))
"""


def probe_openvino(xml: Path) -> str:
    """Ask OpenVINO, in a separate process (malformed input may crash it),
    whether it loads the IR."""
    try:
        p = subprocess.run([sys.executable, "-c", OV_PROBE, str(xml)], capture_output=True, errors="replace",
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "TIMEOUT"
    out = p.stdout.strip()
    if p.returncode != 0 or not out:
        return f"CRASHED (exit {p.returncode})"
    verdict, _, message = out.partition("\n")
    return verdict if verdict == "ACCEPTED" else "REFUSED: " + first_line(message)


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def write_cases(cases: list[Case], out_dir: Path, ctx: Context):
    """Write each case into its new folder under `out_dir`, then ask
    OpenVINO about the malformed ones (in parallel, each in its own
    process)."""
    for case in cases:
        case_dir = out_dir / case.folder
        case_dir.mkdir(parents=True)
        case.write(case_dir, ctx)
    bad = [c for c in cases if isinstance(c, BadCase)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
        verdicts = list(pool.map(lambda c: probe_openvino(out_dir / c.folder / "model.xml"), bad))
    for case, verdict in zip(bad, verdicts):
        ctx.report.bad.append((case.name, case.phrase, verdict))
