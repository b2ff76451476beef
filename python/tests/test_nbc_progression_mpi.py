# SPDX-License-Identifier: BSD-3-Clause
"""bench/nbc_progress.py on a tiny real run (both libraries, 2 ranks, one round, 2 repetitions,
barrier starts: none is invalid for its start spread, whatever the load):
each progression variant's variables reach the ranks (every launch's meta.json records them),
each progress thread runs (MPICH's under the binary's plain MPI_Init: it does not print that it
lacks MPI_THREAD_MULTIPLE, and a rank has a thread more than without it), and the study's table
has every strategy of the suite side by side for each library, operation and size. Skipped with a
reason when a binary or a launcher is missing."""

import json
import subprocess
import sys
from pathlib import Path

from data.testkit import LIBS, missing_bench

REPO = Path(__file__).resolve().parents[2]
BENCH_DIR, MISSING, pytestmark = missing_bench()

WANT = {"mpich": {"none", "tests", "thread", "thread+tests"},
        "openmpi": {"none", "tests", "tcp", "tcp+tests", "tcp-thread", "tcp-thread+tests"}}


def test_a_tiny_study_runs_every_strategy_with_its_variables_in_the_ranks(tmp_path):
    out = tmp_path / "study.json"
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "nbc_progress.py"), "--rounds", "1", "--nrep", "2", "--np", "2",
         "--procsync", "barrier",
         "--dir", str(tmp_path / "runs"), "--out", str(out)],
        capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(out.read_text())
    for campaign in doc["campaigns"]:
        folder = Path(campaign["folder"])
        disk = json.loads((folder / "campaign.json").read_text())
        assert all(x["status"] == "complete" for x in disk["launches"]), disk["launches"]
        for alt in disk["alternatives"]:
            meta = json.loads((folder / alt["name"] / "launches" / "000" / "meta.json").read_text())
            recorded = meta["environment"]
            assert all(recorded.get(k) == v for k, v in alt["env"].items()), (alt, recorded)
            if alt["name"] == "mpich-thread":
                assert recorded["MPIR_CVAR_ASYNC_PROGRESS"] == "1"
                printed = "".join(p.read_text() for p in (folder / alt["name"] / "logs").iterdir())
                assert "No MPI_THREAD_MULTIPLE support" not in printed, printed
    seen: dict[tuple, set] = {}
    for r in doc["table"]:
        seen.setdefault((r["library"], r["op"], r["size"]), set()).add(r["strategy"])
        assert r["launches"] == 1 and r["overlap_low"] <= r["overlap"] <= r["overlap_high"], r
        assert r["stretch"] is not None and r["stretch"] > 0, r  # --nbc-scheme work: the work alone was timed
    assert {(lib, op) for lib, op, _ in seen} == {(lib, op) for lib in LIBS
                                                  for op in ("iallreduce", "ibcast", "ialltoall")}
    assert all(strategies == WANT[key[0]] for key, strategies in seen.items()), seen
    assert out.with_suffix(".png").is_file()
    # each progress thread is a thread more in every rank than its library without it
    threads = doc["threads_per_rank"]
    assert None not in threads.values(), threads
    assert threads["mpich-thread"] > threads["mpich"], threads
    assert threads["openmpi-tcp-thread"] > threads["openmpi-tcp"], threads
