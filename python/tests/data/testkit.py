# SPDX-License-Identifier: BSD-3-Clause
"""Helpers shared by the analysis tests: fresh copies of the golden folders."""

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
