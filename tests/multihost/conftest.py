# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures of the multi-host tests: one test bed (3 hosts) per module, always deleted."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from netns_bed import REPO, BedUnavailable, TestBed  # noqa: E402

# One rank per host; the ping-pong within one host puts two ranks on the first.
NHOSTS = 3
SLOTS = [1, 1, 1]
NP = sum(SLOTS)
# The hosts share this machine's CPUs: MPI makes each its own node, but the binary groups ranks by
# kernel (boot id), so with more ranks than CPUs it yields while waiting and says "oversubscribed".
# A rank may still be preempted for a scheduler time slice (milliseconds) by another host's rank
# or anyone else's process: fixed 20 ms windows and a 5 ms start tolerance leave valid repetitions
# on a busy 2-core machine whatever the count of ranks.
WINDOW_ARGS = ["--procsync", "window", "--window-us", "20000", "--start-tolerance-ns", "5000000"]


@contextlib.contextmanager
def running_bed(nhosts: int, tag: str) -> Iterator[TestBed]:
    """A bed made for the `with` block and deleted after it, also when the block fails or
    creating the bed failed half-way."""
    bed = TestBed(nhosts, tag)
    try:
        bed.create()
        yield bed
    finally:
        problems = bed.delete()
        assert not problems, f"the test bed's namespaces were not all deleted: {problems}"


@pytest.fixture(scope="module")
def bed(tmp_path_factory) -> Iterator[TestBed]:
    try:
        with running_bed(NHOSTS, f"{os.getpid()}") as made:
            yield made
    except BedUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def hostfile(bed, tmp_path_factory) -> Path:
    return bed.write_hostfile(tmp_path_factory.mktemp("bed") / "hostfile", SLOTS)


@pytest.fixture(scope="module")
def hostfile_shared_first(bed, tmp_path_factory) -> Path:
    """Two slots on the first host: ranks 0 and 1 of a 2-rank launch share it."""
    return bed.write_hostfile(tmp_path_factory.mktemp("bed") / "hostfile-2", [2] + SLOTS[1:])


@pytest.fixture(scope="module")
def bench() -> Path:
    path = REPO / "build" / "openmpi" / "bin" / "mpimeter-bench"
    assert path.exists(), f"{path} is missing: run `make build` first"
    return path


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "mpi: launches MPI ranks (mpirun, mpiexec)")


def pytest_collection_modifyitems(items) -> None:
    """Every test here launches Open MPI across the bed's hosts (`make check` runs none)."""
    here = Path(__file__).resolve().parent
    for item in items:
        if item.path.resolve().is_relative_to(here):
            item.add_marker("mpi")
