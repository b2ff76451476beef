# SPDX-License-Identifier: BSD-3-Clause
"""The Slurm tests' cluster: one real cluster (scripts/slurm-test-cluster) for the whole session,
started before the first test and stopped after the last, also when a test fails or pytest is
interrupted (the fixture's finally, and atexit for a pytest that dies in between). Where this
machine cannot run one (not root, the packages cannot be installed) every test is skipped with
the script's one-line reason."""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "slurm-test-cluster"
EXIT_UNAVAILABLE = 3  # the script's "this machine cannot run a cluster"
START_TIMEOUT_S = 900  # a fresh machine installs the packages first


@dataclass
class Cluster:
    root: Path

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a client (and of the jobs it submits): the cluster's slurm.conf,
        this checkout's mpimeter package."""
        return {**os.environ, "SLURM_CONF": str(self.root / "slurm.conf"),
                "PYTHONPATH": str(REPO / "python" / "src"), **extra}

    def argv(self, *command: str) -> list[str]:
        """`command` run on the cluster's login host (the controller's namespace)."""
        return [sys.executable, str(SCRIPT), "exec", str(self.root), *command]

    def run(self, *command: str, timeout: float, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(self.argv(*command), capture_output=True, text=True,
                              timeout=timeout, env=env or self.env(), cwd=cwd)

    def stop(self) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(SCRIPT), "stop", str(self.root)],
                              capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    made = Cluster(Path(tempfile.mkdtemp(prefix="mpimeter-slurm-")))
    stopped = False

    def stop_once() -> None:
        nonlocal stopped
        if not stopped:
            stopped = True
            done = made.stop()
            assert done.returncode == 0, f"the cluster did not stop cleanly: {done.stdout}" \
                                         f"{done.stderr}"
            assert not made.root.exists(), f"{made.root} is left after stop"

    atexit.register(lambda: stopped or made.stop())
    try:
        started = subprocess.run([sys.executable, str(SCRIPT), "start", str(made.root)],
                                 capture_output=True, text=True, timeout=START_TIMEOUT_S)
        if started.returncode == EXIT_UNAVAILABLE:
            pytest.skip(started.stderr.strip())
        assert started.returncode == 0, started.stdout + started.stderr
        yield made
    finally:
        stop_once()


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "mpi: launches MPI ranks (mpirun, mpiexec, srun)")


def pytest_collection_modifyitems(items) -> None:
    """Every test here starts ranks through Slurm (`make check` runs none)."""
    here = Path(__file__).resolve().parent
    for item in items:
        if item.path.resolve().is_relative_to(here):
            item.add_marker("mpi")
