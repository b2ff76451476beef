#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The length of every function of c/src, checked against the bound a reader can take in.

A function is counted from the line its definition starts on (a name and '(' at column 0) to
the '}' at column 0 that ends it, as clang-format lays the code out. A function over MAX_LINES
fails the check, and so does the measurement loop over LOOP_MAX_LINES (its timed region must
stay visible at a glance, CONTRIBUTING.md principle 3), unless LONG lists it; a listed function
that now fits is reported so that its entry goes.

    c/tests/tools/function_length.py [SRC_DIR]   (default: the repository's c/src)

Exits 1 when a function is too long. Only the standard library.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

MAX_LINES = 80
LOOP = "mm_bench_run_test"
LOOP_MAX_LINES = 60
# still longer than MAX_LINES, each to be cut into its steps: (file under c/src, function)
LONG: frozenset[tuple[str, str]] = frozenset()  # none left: every function in c/src fits

_START = re.compile(r"^(?!typedef|struct|enum|union|static_assert)[A-Za-z_][^;]*?(\w+)\s*\(")
# a macro used at file scope, `MM__NBC_SETUP(neighbor_allgather)`: not a function's first line
_MACRO_USE = re.compile(r"^[A-Z][A-Z0-9_]*\s*\(.*\)\s*$")


def functions(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, number of lines) of every function defined in a C file's text."""
    lines = text.split("\n")
    found = []
    i = 0
    while i < len(lines):
        m = _START.match(lines[i])
        if m and not lines[i].rstrip().endswith(";") and not _MACRO_USE.match(lines[i]):
            j = i
            while j < len(lines) and not lines[j].rstrip().endswith(("{", ";", "}")):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith("}"):  # on one line: "{ return x; }"
                found.append((m.group(1), i + 1, j - i + 1))
                i = j
            elif j < len(lines) and lines[j].rstrip().endswith("{") and "=" not in lines[i]:
                k = j
                while k < len(lines) and lines[k] != "}":
                    k += 1
                found.append((m.group(1), i + 1, k - i + 1))
                i = k
        i += 1
    return found


def main(argv: list[str]) -> int:
    src = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[2] / "src"
    too_long, fits = [], []
    for path in sorted(src.rglob("*.c")):
        rel = path.relative_to(src).as_posix()
        for name, line, n in functions(path.read_text(encoding="utf-8")):
            bound = LOOP_MAX_LINES if name == LOOP else MAX_LINES
            listed = (rel, name) in LONG
            if n > bound and not listed:
                too_long.append(f"{rel}:{line} {name}: {n} lines (at most {bound})")
            elif n <= bound and listed:
                fits.append(f"{rel}:{line} {name}: {n} lines now: remove it from LONG")
    for message in fits + too_long:
        print(message)
    return 1 if too_long else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
