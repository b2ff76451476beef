# SPDX-License-Identifier: BSD-3-Clause
"""Helpers shared by the tests: fresh copies of the golden folders, planted secrets found."""

from __future__ import annotations

import shutil
from pathlib import Path

DATA = Path(__file__).resolve().parent
GOLDEN = DATA / "golden"


def golden_copy(tmp_path: Path, name: str) -> Path:
    """A fresh copy of golden/<name> under tmp_path, so that the Parquet and DuckDB caches the
    code under test writes stay out of the repository."""
    dst = tmp_path / name
    if not dst.exists():
        shutil.copytree(GOLDEN / name, dst)
    return dst


def leaks(folder: Path, planted) -> list[str]:
    """Every (file, secret) where one of the ``planted`` strings is found, in any regular file
    under ``folder`` (a symbolic link is not read through)."""
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            found += [f"{path.relative_to(folder)}: {s}" for s in planted if s.encode() in data]
    return found
