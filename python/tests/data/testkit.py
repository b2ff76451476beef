# SPDX-License-Identifier: BSD-3-Clause
"""Helpers shared by the tests: fresh copies of the golden folders, planted secrets found, the
real binaries (or wrappers of them) and the skip when they are missing, a TOML reader."""

from __future__ import annotations

import shutil
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomli is the same parser (pytest depends on it there)
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

DATA = Path(__file__).resolve().parent
REPO = DATA.parents[2]
LIBS = ("openmpi", "mpich")
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


def missing_bench(libs=LIBS):
    """(the bench folder, the libraries among ``libs`` whose mpimeter-bench is not built there or
    whose launcher is not on PATH, the module mark that skips saying which): the tests that
    launch the real binaries are skipped with a reason when run by hand before `make build`."""
    import pytest

    from mpimeter.campaign import launcher

    bench = launcher.default_bench_dir()
    missing = [lib for lib in libs if not launcher.bench_binary(bench, lib).is_file()
               or not shutil.which(launcher.local_template(lib).split()[0])]
    mark = pytest.mark.skipif(bool(missing), reason=f"no mpimeter-bench or mpirun for {', '.join(missing)} "
                                                    f"under {bench} (run `make build`)")
    return bench, missing, mark


def wrapped_bench_dir(tmp_path: Path):
    """A bench binary per library (the real one's description and checks, behind a wrapper in a
    folder of the test's own), and a launcher template whose program exits 9: for the fake
    executor, which runs neither. (the bench folder, the template)"""
    from mpimeter.campaign import launcher

    for lib in LIBS:
        real = launcher.bench_binary(launcher.default_bench_dir(), lib)
        binary = tmp_path / "bench" / lib / "bin" / "mpimeter-bench"
        binary.parent.mkdir(parents=True)
        binary.write_text(f"#!/bin/sh\nexec {real} \"$@\"\n")
        binary.chmod(0o755)
    program = tmp_path / "fakerun"
    program.write_text("#!/bin/sh\nexit 9\n")
    program.chmod(0o755)
    return tmp_path / "bench", f"{program} -np {{np}} {{cmd}}"


def assert_refused(result, start: str, message: str, out: Path) -> None:
    """A refused command line (CONTRIBUTING.md, the first rule a review enforces): exit code 2,
    one line beginning with ``start`` and holding ``message``, and nothing written at ``out``."""
    assert result.exit_code == 2, result.output
    assert result.output.startswith(start) and message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()
