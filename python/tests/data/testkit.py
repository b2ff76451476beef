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


IMB_COMMAND_LINE = "# IMB-MPI1 PingPong Allreduce Bcast -msglog 3:12 "


def imported_everywhere(tmp_path: Path, command_tail: str):
    """IMB's real output with ``command_tail`` added to its command line (tmp_path/in/imb.txt),
    imported (tmp_path/imported), reported (tmp_path/report.html), added to a store
    (tmp_path/store/results.duckdb) and made a site (tmp_path/www): (the imported folder, the
    store, everything the commands printed, meta.json of the import)."""
    import json

    from click.testing import CliRunner

    from mpimeter.cli import main

    text = (DATA / "peers" / "imb-pingpong-allreduce-bcast.txt").read_text()
    assert IMB_COMMAND_LINE in text
    source = tmp_path / "in" / "imb.txt"
    source.parent.mkdir()
    source.write_text(text.replace(IMB_COMMAND_LINE, f"{IMB_COMMAND_LINE}{command_tail} "))
    out, store = tmp_path / "imported", tmp_path / "store" / "results.duckdb"
    store.parent.mkdir()
    runner, printed = CliRunner(), ""
    for args in (["import", "imb", source, "--out", out], ["report", out, "-o", tmp_path / "report.html"],
                 ["store", "add", out, "--store", store], ["site", "--store", store, "-o", tmp_path / "www"]):
        done = runner.invoke(main, [str(a) for a in args])
        assert done.exit_code == 0, done.output
        printed += done.output
    return out, store, printed, json.loads((out / "launches" / "000" / "meta.json").read_text())
