# SPDX-License-Identifier: BSD-3-Clause
"""The package's sources of this checkout, parsed once per test process: the tests that walk
them (records, layering, warning codes, the error mapping) only read the trees, and each parse
of the whole package costs a second of a worker's time."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "mpimeter"


@functools.cache
def package_trees() -> dict[Path, ast.Module]:
    """Each module's path below python/src/mpimeter → its syntax tree, in path order. Shared by
    every caller: read them, never change them."""
    return {path.relative_to(PACKAGE): ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for path in sorted(PACKAGE.rglob("*.py"))}
