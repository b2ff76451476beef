# SPDX-License-Identifier: BSD-3-Clause
"""One rank fails where the others go on, and every rank learns it: the launch ends on every rank
with exit code 1 and one line saying what failed, none waiting in a collective for the rank that
failed and none crashing. The failures are made by mpimeter-bench-fail-one-rank
(c/tests/tools/mm_fail_one_rank.c: mpimeter-bench with MPI_Allreduce, MPI_Comm_split, malloc and
the sync-log collection wrapped at link time), on one rank only:

- the one-clock question before the clock sync (`--clocksync auto` with a kernel-wide timer and
  a process sync on the global clock) fails on rank 1: rank 0 must not wait in the clock sync's
  first collective;
- the grouping of the ranks by kernel for the oversubscription check (its MPI_Comm_split, the
  launch's second) fails on rank 1: rank 0 must not count its host's CPUs with it;
- each of the three allocations of rank 0's collection of the clock sync's records fails: no
  rank may gather into what rank 0 could not allocate.

A hang ends at the run's timeout, which fails the test with the reason."""

from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest
from conftest import bench_path, launcher

FAST = ["--ops", "barrier", "--nrep", "5", "--warmup", "0", "--copy-probe-bytes", "0", "--quiet"]
TIMEOUT_S = 180  # a loaded machine starts MPI slowly; a hang is minutes beyond it


def _run(lib: str, tmp_path, fail_rank: int, fail_at: str, args: list[str]) -> subprocess.CompletedProcess:
    program = bench_path(lib).parent.parent / "tests" / "mpimeter-bench-fail-one-rank"
    assert program.exists(), f"{program} is missing: build the test tools (make build)"
    cmd = launcher(lib, 2) + [str(program), *FAST, *args, "--out", str(tmp_path / "launch")]
    env = {**os.environ, "MM_FAIL_RANK": str(fail_rank), "MM_FAIL_AT": fail_at}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
        pytest.fail(f"{fail_at} on rank {fail_rank}: the launch still ran after {TIMEOUT_S} s (a rank "
                    f"waiting for the one that failed)\nstderr:\n{err}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _one_line(proc: subprocess.CompletedProcess) -> str:
    """The launch failed on every rank with exit code 1 and said so in one line of its own."""
    assert proc.returncode == 1, proc.stderr
    said = [line for line in proc.stderr.splitlines() if line.startswith("mpimeter-bench:")]
    assert len(said) == 1, proc.stderr
    assert "wrote" not in proc.stdout, proc.stdout
    return said[0]


def test_a_failed_one_clock_question_on_one_rank_stops_every_rank(lib, tmp_path):
    proc = _run(lib, tmp_path, 1, "one-clock", ["--clocksync", "auto", "--timer", "monotonic",
                                                   "--procsync", "window"])
    line = _one_line(proc)
    assert line.startswith("mpimeter-bench: rank 1: MPI failed before the tests: MPI_Allreduce: "), line
    assert not (tmp_path / "launch").exists()  # stopped before the launch folder was made


def test_a_failed_grouping_by_kernel_on_one_rank_stops_every_rank(lib, tmp_path):
    proc = _run(lib, tmp_path, 1, "comm-split-2", ["--procsync", "barrier"])
    line = _one_line(proc)
    assert line.startswith("mpimeter-bench: rank 1: MPI failed before the tests: MPI_Comm_split: "), line
    # rank 0 made the folder while the ranks agreed on the failure (before the clock sync): it
    # says the launch failed
    meta = json.loads((tmp_path / "launch" / "meta.json").read_text())
    assert meta["status"] == "failed"


@pytest.mark.parametrize("allocation", [1, 2, 3])
def test_rank0_out_of_memory_for_the_sync_records_stops_every_rank(lib, tmp_path, allocation):
    proc = _run(lib, tmp_path, 0, f"sync-log-alloc-{allocation}", ["--clocksync", "hca3", "--procsync", "barrier"])
    line = _one_line(proc)
    what = "the clock sync's records" if allocation == 3 else "the counts of the clock sync's records"
    assert line == f"mpimeter-bench: rank 0: out of memory for {what}", line
    meta = json.loads((tmp_path / "launch" / "meta.json").read_text())
    assert meta["status"] == "failed"
