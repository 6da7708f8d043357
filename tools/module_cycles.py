#!/usr/bin/env python3
"""Finds module circles in the workspace's crates: two modules that import
each other, directly or through others.

For every crate under `crates/` the tool walks the module tree from
`src/lib.rs` (and `src/main.rs`), following `mod name;` into files and
`mod name { ... }` inline, and reads every `use` declaration and every path
written out in code that starts with `crate::`, `super::`, `self::` or the
name of a child module. Each path is resolved to the module that defines
what it names: through the re-exports (`pub use`, `pub(crate) use`, ...)
of the modules it passes, so that `use super::KernelError` in a kernel
counts as a use of `kernels::error`, where `KernelError` lives.

A module may use its ancestors and its descendants freely: a parent
lists and re-exports its children, and a child takes shared items from its
parent. What must not circle are siblings: a use from `a::x::y` of
`a::z::w` is an edge `a::x -> a::z` between the children of their closest
common ancestor, and the tool reports every set of sibling modules whose
edges go round (strongly connected components of two or more), with the
uses that make each edge.

Uses made by test-only modules (`#[cfg(test)]`) are left out unless
`--tests` is given: a test may drive its crate from the top.

Comments and string literals are skipped; macros are read as plain tokens,
and paths built by macros (`$crate::...`) are not followed. External crates
are left out: Cargo already keeps the crates themselves from circling.

    python3 tools/module_cycles.py            # every crate; exit 1 on a circle
    python3 tools/module_cycles.py crates/exec
    python3 tools/module_cycles.py --edges    # also print every sibling edge
    python3 tools/module_cycles.py --tests    # count the tests' uses too

Exit status: 0 when no crate has a circle, 1 when one does.
"""

import argparse
import os
import re
import sys
from collections import defaultdict

TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*)
  | (?P<raw_string>b?r(?P<hashes>\#*)")
  | (?P<string>b?"(?:[^"\\]|\\.)*")
  | (?P<char>b?'(?:[^'\\\n]|\\[^\n]+?)')
  | (?P<lifetime>'[A-Za-z_][A-Za-z0-9_]*)
  | (?P<ident>r\#[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*)
  | (?P<path_sep>::)
  | (?P<punct>.)
    """,
    re.VERBOSE | re.DOTALL,
)


def tokens(text):
    """The identifiers, `::` and punctuation of `text`, without comments,
    strings, characters and lifetimes."""
    out = []
    at = 0
    n = len(text)
    while at < n:
        m = TOKEN.match(text, at)
        if m is None:
            at += 1
            continue
        kind = m.lastgroup
        if kind == "hashes":
            kind = "raw_string"
        if kind == "block_comment":
            depth, i = 1, m.end()
            while depth and i < n:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            at = i
            continue
        if kind == "raw_string":
            close = '"' + m.group("hashes")
            end = text.find(close, m.end())
            at = n if end < 0 else end + len(close)
            continue
        at = m.end()
        if kind in ("ws", "line_comment", "string", "char", "lifetime"):
            continue
        value = m.group(0)
        if kind == "ident" and value.startswith("r#"):
            value = value[2:]
        out.append(value)
    return out


class Module:
    def __init__(self, path, file, parent):
        self.path = path  # tuple of names from the crate root
        self.file = file
        self.parent = parent
        self.children = {}
        # name -> (absolute-ish path tuple, base module) for re-exports and imports
        self.imports = {}
        self.reexports = {}
        self.globs = []  # (path, base module, public)
        self.uses = []  # paths as written
        # Whether the module is compiled only for tests (`#[cfg(test)]` on
        # it or on an ancestor).
        self.test = parent is not None and parent.test


def module_file(directory, name, is_mod_rs, owner_file):
    """The file of `mod name;` declared in `owner_file`."""
    base = directory if is_mod_rs else os.path.join(directory, os.path.splitext(os.path.basename(owner_file))[0])
    for candidate in (os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")):
        if os.path.exists(candidate):
            return candidate
    return None


def parse_use_tree(toks, i, prefix, out):
    """Reads a use tree starting at `toks[i]` into `out` as (path, alias,
    glob) and returns the index after it."""
    path = list(prefix)
    while i < len(toks):
        t = toks[i]
        if t == "{":
            i += 1
            while i < len(toks) and toks[i] != "}":
                i = parse_use_tree(toks, i, path, out)
                if i < len(toks) and toks[i] == ",":
                    i += 1
            return i + 1
        if t == "*":
            out.append((tuple(path), None, True))
            return i + 1
        if t == "::":
            i += 1
            continue
        if re.match(r"[A-Za-z_]", t):
            path.append(t)
            i += 1
            if i < len(toks) and toks[i] == "as":
                out.append((tuple(path), toks[i + 1], False))
                return i + 2
            if i < len(toks) and toks[i] == "::":
                continue
            out.append((tuple(path), path[-1], False))
            return i
        return i
    return i


def read_module(module, toks, crate_modules, is_mod_rs):
    """Reads the tokens of one module (a file, or an inline module's
    body), creating the modules it declares."""
    i = 0
    directory = os.path.dirname(module.file)
    depth = 0
    public = False
    while i < len(toks):
        t = toks[i]
        if t == "pub":
            public = True
            i += 1
            if i < len(toks) and toks[i] == "(":
                while i < len(toks) and toks[i] != ")":
                    i += 1
                i += 1
            continue
        if t == "mod" and i + 1 < len(toks) and re.match(r"[A-Za-z_]", toks[i + 1]) and depth == 0:
            name = toks[i + 1]
            child_path = module.path + (name,)
            # `#[cfg(test)]` just before the declaration (its visibility
            # skipped).
            k = i
            while k > 0 and toks[k - 1] in ("pub", "crate", "super", "self", "in", "(", ")", "::"):
                k -= 1
            test_only = toks[max(0, k - 7) : k] == ["#", "[", "cfg", "(", "test", ")", "]"]
            if i + 2 < len(toks) and toks[i + 2] == ";":
                file = module_file(directory, name, is_mod_rs, module.file)
                child = Module(child_path, file, module)
                child.test = child.test or test_only
                module.children[name] = child
                crate_modules[child_path] = child
                if file:
                    child_toks = tokens(open(file, encoding="utf-8").read())
                    read_module(child, child_toks, crate_modules, os.path.basename(file) == "mod.rs")
                i += 3
                public = False
                continue
            if i + 2 < len(toks) and toks[i + 2] == "{":
                # An inline module: its body up to the matching brace.
                j, d = i + 3, 1
                while j < len(toks) and d:
                    if toks[j] == "{":
                        d += 1
                    elif toks[j] == "}":
                        d -= 1
                    j += 1
                child = Module(child_path, module.file, module)
                child.test = child.test or test_only
                module.children[name] = child
                crate_modules[child_path] = child
                # An inline module's own `mod x;` would live in a folder of
                # its name; none in this workspace does.
                read_module(child, toks[i + 3 : j - 1], crate_modules, False)
                i = j
                public = False
                continue
        if t == "use" and (i == 0 or toks[i - 1] in (";", "}", "{", ")", "]") or toks[i - 1] in ("pub",)):
            if depth > 0:
                # A `use` inside a function body: counts as a use, never as
                # a re-export.
                public_here = False
            else:
                public_here = public
            out = []
            j = parse_use_tree(toks, i + 1, [], out)
            for path, alias, glob in out:
                if path and path[0] == "self" and len(path) == 1:
                    continue
                if glob:
                    module.globs.append((path, public_here))
                    module.uses.append(path)
                    continue
                if alias == "self":
                    alias = path[-2] if len(path) > 1 else None
                    path = path[:-1]
                if alias and alias != "_":
                    module.imports[alias] = path
                    if public_here:
                        module.reexports[alias] = path
                module.uses.append(path)
            i = j
            public = False
            continue
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
        elif t == ";":
            public = False
        # A path written out in code: `crate::`, `super::`, `self::`.
        if t in ("crate", "super", "self") and i + 1 < len(toks) and toks[i + 1] == "::":
            if i > 0 and toks[i - 1] == "::":
                i += 1
                continue
            path = [t]
            j = i + 1
            while j + 1 < len(toks) and toks[j] == "::" and re.match(r"[A-Za-z_]", toks[j + 1]):
                path.append(toks[j + 1])
                j += 2
            module.uses.append(tuple(path))
            i = j
            continue
        if re.match(r"[A-Za-z_]", t) and i + 1 < len(toks) and toks[i + 1] == "::":
            if i == 0 or toks[i - 1] != "::":
                path = [t]
                j = i + 1
                while j + 1 < len(toks) and toks[j] == "::" and re.match(r"[A-Za-z_]", toks[j + 1]):
                    path.append(toks[j + 1])
                    j += 2
                module.uses.append(("<local>",) + tuple(path))
                i = j
                continue
        i += 1


def resolve(crate_modules, module, path, seen=None):
    """The module that defines what `path`, written in `module`, names; None
    for paths outside the crate."""
    if seen is None:
        seen = set()
    key = (module.path, path)
    if key in seen or len(seen) > 50:
        return None
    seen.add(key)
    if not path:
        return module
    head, rest = path[0], path[1:]
    if head == "<local>":
        if not rest:
            return None
        first = rest[0]
        if first in module.children:
            return walk(crate_modules, module, rest, seen)
        if first in module.imports:
            return resolve(crate_modules, module, module.imports[first] + rest[1:], seen)
        return None
    if head == "crate":
        return walk(crate_modules, crate_modules[()], rest, seen)
    if head == "self":
        return walk(crate_modules, module, rest, seen)
    if head == "super":
        base = module
        while path and path[0] == "super":
            if base.parent is None:
                return None
            base = base.parent
            path = path[1:]
        if path and path[0] == "self":
            path = path[1:]
        return walk(crate_modules, base, path, seen)
    # A path starting with a name: a child module, or something imported.
    if head in module.children:
        return walk(crate_modules, module, path, seen)
    if head in module.imports and module.imports[head] != path:
        return resolve(crate_modules, module, module.imports[head] + rest, seen)
    return None


def walk(crate_modules, base, path, seen):
    """Follows `path` down from module `base` through child modules and
    re-exports; the module that defines the last name found."""
    current = base
    for k, name in enumerate(path):
        if name in current.children:
            current = current.children[name]
            continue
        if name in current.reexports or name in current.imports:
            target = current.reexports.get(name) or current.imports[name]
            found = resolve(crate_modules, current, target, seen)
            if found is None:
                return current
            if k + 1 < len(path) and found.path == current.path + (name,):
                current = found
                continue
            return found if k + 1 == len(path) else walk(crate_modules, found, path[k + 1 :], seen)
        # An item defined here, or reached through a glob re-export.
        for glob_path, public in current.globs:
            if public:
                via = resolve(crate_modules, current, glob_path, seen)
                if via is not None and via is not current:
                    deeper = walk(crate_modules, via, path[k:], seen)
                    if deeper is not None and deeper is not via:
                        return deeper
        return current
    return current


def crate_roots(crate_dir):
    for name in ("lib.rs", "main.rs"):
        file = os.path.join(crate_dir, "src", name)
        if os.path.exists(file):
            yield name, file


def sibling_edges(crate_modules, tests):
    """Edges between siblings, each with the uses that make it; uses made
    by modules compiled only for tests count only when `tests` is set."""
    edges = defaultdict(list)
    for module in list(crate_modules.values()):
        if module.test and not tests:
            continue
        for path in module.uses:
            target = resolve(crate_modules, module, path)
            if target is None:
                continue
            a, b = module.path, target.path
            common = 0
            while common < min(len(a), len(b)) and a[common] == b[common]:
                common += 1
            if common == len(a) or common == len(b):
                continue  # one is an ancestor of the other
            parent = a[:common]
            edges[(parent, a[common], b[common])].append(("::".join(a) or "crate", "::".join(p for p in path if p != "<local>")))
    return edges


def circles(edges):
    """The strongly connected components of two or more siblings."""
    graphs = defaultdict(lambda: defaultdict(set))
    for parent, x, y in edges:
        graphs[parent][x].add(y)
    found = []
    for parent, graph in graphs.items():
        index, low, stack, on, counter = {}, {}, [], set(), [0]

        def connect(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in graph.get(v, ()):
                if w not in index:
                    connect(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append((parent, sorted(component)))

        for v in sorted(set(graph) | {w for ws in graph.values() for w in ws}):
            if v not in index:
                connect(v)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("crates", nargs="*", help="crate folders (default: every crates/*)")
    parser.add_argument("--edges", action="store_true", help="print every edge between siblings")
    parser.add_argument("--tests", action="store_true", help="count the uses of test-only modules too")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    crates = args.crates or sorted(
        os.path.join(root, "crates", d) for d in os.listdir(os.path.join(root, "crates"))
    )
    sys.setrecursionlimit(10000)
    any_circle = False
    for crate_dir in crates:
        for root_name, root_file in crate_roots(crate_dir):
            crate_modules = {}
            top = Module((), root_file, None)
            crate_modules[()] = top
            read_module(top, tokens(open(root_file, encoding="utf-8").read()), crate_modules, True)
            edges = sibling_edges(crate_modules, args.tests)
            name = f"{os.path.basename(os.path.normpath(crate_dir))} ({root_name})"
            if args.edges:
                for (parent, x, y), uses in sorted(edges.items()):
                    where = "::".join(parent) or "crate"
                    print(f"{name}: {where}: {x} -> {y} ({len(uses)} uses)")
            found = circles(edges)
            if not found:
                print(f"{name}: {len(crate_modules)} modules, no circle")
                continue
            any_circle = True
            for parent, component in found:
                where = "::".join(parent) or "crate"
                print(f"{name}: circle among {where}::{{{', '.join(component)}}}")
                for (p, x, y), uses in sorted(edges.items()):
                    if p == parent and x in component and y in component:
                        shown = "; ".join(f"{m} uses {u}" for m, u in uses[:3])
                        more = f" (+{len(uses) - 3} more)" if len(uses) > 3 else ""
                        print(f"    {x} -> {y}: {shown}{more}")
    return 1 if any_circle else 0


if __name__ == "__main__":
    sys.exit(main())
