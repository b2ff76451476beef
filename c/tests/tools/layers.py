#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The C folders' order, checked on the compiled objects (docs/ARCHITECTURE.md).

For every object file of the binary and its library, `nm` tells which symbols it defines and
which it uses; a use of a symbol defined in another file is a call (or a read of its data) from
that file to the other. Reported: lines per C folder, every call up the folder order (a file
of a lower folder using a symbol of a higher one), calls between the sibling folders of one
level, and every circle of files (files that reach each other through such uses).

    c/tests/tools/layers.py BUILD_DIR [--check]

--check exits 1 when there is a call up the order that docs/ARCHITECTURE.md does not list as an
exception (ALLOWED below), or a circle of files. Only the standard library and binutils' nm.
"""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path

# top may call down, never up; folders of one level are siblings
ORDER = [["app"], ["bench"], ["procsync", "clocksync", "counters"], ["ops"], ["output"],
         ["config"], ["timer"], ["common"]]
LEVEL = {folder: i for i, level in enumerate(ORDER) for folder in level}
# documented exceptions (docs/ARCHITECTURE.md, "Documented exceptions"): (caller file, callee folder)
ALLOWED: set[tuple[str, str]] = set()  # none left


def _folder(obj: Path) -> tuple[str, str]:
    """(folder, file) of an object built from c/src/<folder>/<file>.c (main.c: app)."""
    parts = obj.as_posix().split("/c/src/")[-1].split("/")
    name = parts[-1].removesuffix(".o").removesuffix(".c")
    folder = parts[0] if len(parts) > 1 else "app"
    return folder, f"{folder}/{name}.c"


def _symbols(objs: list[Path]) -> dict[str, tuple[set[str], set[str]]]:
    """Per object, the symbols it defines and those it uses: one `nm -A` over all of them (one
    nm per object took 2.5 s a build), each line prefixed with its object's path."""
    table: dict[str, tuple[set[str], set[str]]] = {str(obj): (set(), set()) for obj in objs}
    if not objs:
        return table
    out = subprocess.run(["nm", "-A", *map(str, objs)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        path, _, rest = line.rpartition(":")  # a symbol line holds no colon; a path may
        if path not in table:
            raise SystemExit(f"layers.py: nm printed a line of no object given: {line!r}")
        defined, used = table[path]
        fields = rest.split()
        if len(fields) == 2 and fields[0] == "U":
            used.add(fields[1])
        elif len(fields) == 3 and fields[1] in "TDBRCGSV":
            defined.add(fields[2])
    return table


def circles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected groups of more than one node (Tarjan, iterative: no recursion limit);
    python/tests/test_layering.py finds the Python modules' circles with it too."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: set[frozenset[str]] = set()
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    group = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        group.add(w)
                        if w == v:
                            break
                    if len(group) > 1:
                        out.add(frozenset(group))
    return out


def main(argv: list[str]) -> int:
    build = Path(argv[1])
    check = "--check" in argv
    src = Path(__file__).resolve().parents[2] / "src"
    objs = sorted(p for p in build.glob("CMakeFiles/*/**/c/src/**/*.o")
                  if "mpimeter-bench-nopapi" not in p.as_posix())
    # a stale object of a file that moved is not read
    objs = [obj for obj in objs if (src / obj.as_posix().split("/c/src/")[-1].removesuffix(".o")).exists()]
    symbols = _symbols(objs)
    owner: dict[str, str] = {}
    uses: dict[str, set[str]] = {}
    for obj in objs:
        folder, name = _folder(obj)
        defined, used = symbols[str(obj)]
        for sym in defined:
            owner.setdefault(sym, name)
        uses[name] = used
    edges: dict[str, set[str]] = defaultdict(set)
    for name, used in uses.items():
        for sym in used:
            callee = owner.get(sym)
            if callee and callee != name:
                edges[name].add(callee)
    lines = defaultdict(int)
    for path in src.rglob("*.[ch]"):
        rel = path.relative_to(src).parts
        lines[rel[0] if len(rel) > 1 else "app"] += sum(1 for _ in path.open())
    print("lines per folder (c/src, .c and .h):")
    for folder in sorted(lines, key=lambda f: (LEVEL.get(f, 99), f)):
        print(f"  {folder:10s} {lines[folder]:6d}")
    up, side = [], []
    for caller, callees in sorted(edges.items()):
        for callee in sorted(callees):
            a, b = caller.split("/")[0], callee.split("/")[0]
            if a == b or a not in LEVEL or b not in LEVEL:
                continue
            if LEVEL[b] < LEVEL[a]:
                up.append((caller, callee))
            elif LEVEL[b] == LEVEL[a]:
                side.append((caller, callee))
    print(f"calls up the folder order: {len(up)} file pairs, "
          f"{len({(a.split('/')[0], b.split('/')[0]) for a, b in up})} folder pairs")
    for a, b in up:
        mark = " (documented exception)" if (a, b.split("/")[0]) in ALLOWED else ""
        print(f"  {a} -> {b}{mark}")
    print(f"calls between sibling folders: {len(side)}")
    for a, b in side:
        print(f"  {a} -> {b}")
    found = sorted(sorted(comp) for comp in circles(edges))
    print(f"circles of files: {len(found)}")
    for comp in found:
        print("  " + " <-> ".join(comp))
    bad = [p for p in up if (p[0], p[1].split("/")[0]) not in ALLOWED]
    return 1 if check and (bad or found) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
