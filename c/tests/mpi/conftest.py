"""Helpers for the MPI tests: run build/<lib>/bin/mpimeter-bench under the right launcher."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[3]
LIBS = ("openmpi", "mpich")


def bench_path(lib: str) -> Path:
    path = REPO / "build" / lib / "bin" / "mpimeter-bench"
    assert path.exists(), f"{path} is missing: run `make build` first"
    return path


def launcher(lib: str, np: int) -> list[str]:
    """The launcher this machine needs (root and oversubscription flags for Open MPI)."""
    if lib == "openmpi":
        cmd = ["mpirun.openmpi", "--oversubscribe", "-np", str(np)]
        if os.geteuid() == 0:
            cmd.insert(1, "--allow-run-as-root")
        return cmd
    return ["mpiexec.mpich", "-np", str(np)]


def run_bench(lib: str, np: int, args: list[str], *, timeout: float = 300,
              check: bool = True) -> subprocess.CompletedProcess:
    cmd = launcher(lib, np) + [str(bench_path(lib))] + [str(a) for a in args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd)} exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def assert_refused(lib: str, args: list, needle: str, tmp_path: Path, np: int = 2) -> None:
    """Bad input: exit 2 on every rank within seconds, one line from the binary naming the
    problem (mpirun may add its own report below it), and no launch folder written."""
    import time

    out = tmp_path / "never"
    start = time.monotonic()
    proc = run_bench(lib, np, list(args) + ["--out", out], timeout=60, check=False)
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr
    assert sum(line.startswith("mpimeter-bench:") for line in proc.stderr.splitlines()) == 1, proc.stderr
    assert time.monotonic() - start < 30
    assert not out.exists(), "nothing may be written on bad input"


def read_launch(folder: Path) -> tuple[dict, pd.DataFrame]:
    meta = json.loads((folder / "meta.json").read_text())
    raw = pd.read_csv(folder / "raw.csv")
    return meta, raw


@pytest.fixture(params=LIBS)
def lib(request) -> str:
    return request.param
