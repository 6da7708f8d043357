"""Edits of the text OpenVINO's serializer writes: how the malformed cases
and the extension ops OpenVINO cannot serialize get their model.xml."""

from __future__ import annotations

import re
from typing import Callable


def sub_once(text: str, old: str, new: str) -> str:
    n = text.count(old)
    if n != 1:
        raise ValueError(f"expected exactly one {old!r}, found {n}")
    return text.replace(old, new)


def resub_once(text: str, pattern: str, new: str) -> str:
    out, n = re.subn(pattern, new, text, flags=re.S)
    if n != 1:
        raise ValueError(f"expected exactly one match of {pattern!r}, found {n}")
    return out


def layer_span(xml: str, name: str) -> tuple[int, int]:
    m = re.search(r'<layer id="[^"]*" name="%s" .*?</layer>' % re.escape(name), xml, re.S)
    if m is None:
        raise ValueError(f"layer {name} not found")
    return m.start(), m.end()


def edit_layer(xml: str, name: str, fn: Callable[[str], str]) -> str:
    a, b = layer_span(xml, name)
    return xml[:a] + fn(xml[a:b]) + xml[b:]


def edit_port(block: str, port_id: int, fn: Callable[[str], str]) -> str:
    m = re.search(r'<port id="%d"[^>]*>.*?</port>' % port_id, block, re.S)
    if m is None:
        raise ValueError(f"port {port_id} not found")
    return block[:m.start()] + fn(m.group(0)) + block[m.end():]


def set_dims(port: str, dims) -> str:
    indent = re.search(r"\n(\s*)<dim>", port)
    pad = indent.group(1) if indent else "\t\t\t\t\t"
    body = "".join(f"\n{pad}<dim>{d}</dim>" for d in dims)
    head = re.match(r"<port[^>]*>", port).group(0)
    tail_pad = pad[:-1] if pad else ""
    return f"{head}{body}\n{tail_pad}</port>"


def set_port_dims(xml: str, layer: str, port_id: int, dims) -> str:
    return edit_layer(xml, layer, lambda b: edit_port(b, port_id, lambda p: set_dims(p, dims)))


def layer_id(xml: str, name: str) -> str:
    a, b = layer_span(xml, name)
    return re.match(r'<layer id="([^"]*)"', xml[a:b]).group(1)


def set_attr(xml: str, layer: str, attr: str, value: str) -> str:
    return edit_layer(xml, layer, lambda b: resub_once(b, r'\b%s="[^"]*"' % attr, f'{attr}="{value}"'))


def const_span(xml: str, layer: str) -> tuple[int, int]:
    a, b = layer_span(xml, layer)
    block = xml[a:b]
    off = int(re.search(r'offset="(\d+)"', block).group(1))
    size = int(re.search(r'size="(\d+)"', block).group(1))
    return off, size


def to_ir_v10(xml: str) -> str:
    return sub_once(xml, 'version="11">', 'version="10">')
