# SPDX-License-Identifier: BSD-3-Clause
"""Measurement-level retry with real launches (Open MPI, 2 ranks): a test that crashes or hangs
costs that test, not its launch (campaign.testretry).

The fault is the binary's own test-only `--inject-fault KIND:OP:SIZE` (rank 0 dies by SIGKILL or
stops at the start of that test). A test that fails once only runs a stand-in for mpimeter-bench
that adds the fault to the first launch alone (the binary cannot know about other launches)."""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mpimeter.campaign import describe, launcher

BENCH_DIR = launcher.default_bench_dir()
REAL = launcher.bench_binary(BENCH_DIR, "openmpi")
pytestmark = pytest.mark.skipif(
    not REAL.is_file() or not shutil.which(launcher.local_template("openmpi").split()[0]),
    reason=f"no mpimeter-bench or mpirun for openmpi under {BENCH_DIR} (run `make build`)")


def _offers_fault() -> bool:
    try:
        return describe.describe(REAL).has_option("inject-fault")
    except describe.DescribeError:
        return False


needs_fault = pytest.mark.skipif(not REAL.is_file() or not _offers_fault(),
                                 reason=f"{REAL} has no --inject-fault (built before it: `make build`)")

STAND_IN = """#!{python}
import os, sys
REAL, FAULT = {real!r}, {fault!r}
args = sys.argv[1:]
if "--out" in args and args[args.index("--out") + 1].endswith("launches/000"):
    args += ["--inject-fault", FAULT]  # the first launch only
os.execv(REAL, [REAL, *args])
"""

OPS, SIZES = "delay,barrier", "20000000,30000000,40000000"  # delays of 20-40 ms; barrier: one test
FAULTY = ("delay", 30000000)


def _first_launch_only(tmp_path: Path, fault: str) -> Path:
    path = tmp_path / "bench" / "openmpi" / "bin" / "mpimeter-bench"
    path.parent.mkdir(parents=True)
    path.write_text(STAND_IN.format(python=sys.executable, real=str(REAL), fault=fault))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return tmp_path / "bench"


FAULT = f"{FAULTY[0]}:{FAULTY[1]}"


def _run(tmp_path: Path, bench: Path, *extra: str, launches: int = 2) -> tuple[subprocess.CompletedProcess, dict]:
    """A campaign; `extra`: more options of mpimeter run (after `--`: of the bench)."""
    out = tmp_path / "campaign"
    done = subprocess.run(
        [sys.executable, "-m", "mpimeter", "run", "--np", "2", "--launches", str(launches), "--mpi", "openmpi",
         "--bench-dir", str(bench), "--ops", OPS, "--sizes", SIZES, "--nrep", "4", "--warmup", "1",
         "--procsync", "barrier", "--seed", "7", "--out", str(out), "--no-analyze", *extra],
        capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    return done, json.loads((out / "campaign.json").read_text())


def _tests_measured(out: Path, rec: dict) -> list[tuple[str, int]]:
    meta = json.loads((out / rec["folder"] / "meta.json").read_text())
    return sorted((t["op"], t["size"]) for t in meta["tests"] if t["status"] == "complete")


ALL_TESTS = sorted([("barrier", 0)] + [("delay", int(s)) for s in SIZES.split(",")])


def _check_every_other_test_kept(tmp_path: Path, disk: dict, planned: int) -> None:
    """Each planned launch's tests other than the faulty one were measured once, by the launch
    or its continuation launches."""
    out = tmp_path / "campaign"
    for index in range(planned):
        pieces = [r for r in disk["launches"] if r["index"] == index
                  or (r["piece"] or {}).get("of") == index and r["piece"]["kind"] == "rest"]
        measured = sorted(t for r in pieces for t in _tests_measured(out, r))
        assert measured == [t for t in ALL_TESTS if t != FAULTY], (index, measured)


@needs_fault
def test_a_test_crashing_in_every_launch_is_retried_last_and_reported_failed(tmp_path):
    done, disk = _run(tmp_path, BENCH_DIR, "--retries", "1", "--", "--inject-fault", f"crash:{FAULT}")
    assert done.returncode == 1, done.stdout + done.stderr
    launches = disk["launches"]
    planned = [r for r in launches if r["piece"] is None]
    assert len(planned) == 2 and all(r["status"] == "cut" for r in planned), launches
    for r in planned:
        assert (r["cut"]["op"], r["cut"]["size"], r["cut"]["how"]) == (*FAULTY, "crashed")
    _check_every_other_test_kept(tmp_path, disk, 2)
    retries = [r for r in launches if (r["piece"] or {}).get("kind") == "retry"]
    assert len(retries) == 2 and all(r["tests"] == {"ops": ["delay"], "sizes": [30000000]} for r in retries)
    # retried last: after every other launch
    assert launches.index(retries[0]) == len(launches) - 2 and launches.index(retries[1]) == len(launches) - 1
    assert [(f["launch"], f["status"], len(f["attempts"])) for f in disk["failed_tests"]] == [
        (0, "failed", 2), (1, "failed", 2)]
    assert "2 test(s) crashed or hung in every attempt" in done.stdout + done.stderr


@needs_fault
def test_a_test_failing_once_passes_on_its_retry(tmp_path):
    done, disk = _run(tmp_path, _first_launch_only(tmp_path, f"crash:{FAULT}"), launches=1)
    assert done.returncode == 0, done.stdout + done.stderr
    assert disk["launches"][0]["status"] == "cut"
    _check_every_other_test_kept(tmp_path, disk, 1)
    retry = disk["launches"][-1]
    assert retry["piece"] == {"of": 0, "kind": "retry"} and retry["status"] == "complete"
    assert _tests_measured(tmp_path / "campaign", retry) == [FAULTY]
    assert [(f["status"], len(f["attempts"])) for f in disk["failed_tests"]] == [("passed", 1)]
    # the pieces stay readable as launches: the analysis reads the campaign
    analyzed = subprocess.run([sys.executable, "-m", "mpimeter", "analyze", str(tmp_path / "campaign")],
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert analyzed.returncode == 0, analyzed.stdout + analyzed.stderr


@needs_fault
def test_a_hanging_test_is_stopped_at_its_timeout_and_the_next_tests_run(tmp_path):
    done, disk = _run(tmp_path, BENCH_DIR, "--retries", "0", "--test-timeout", "5", "--launch-timeout", "120",
                      "--", "--inject-fault", f"hang:{FAULT}", launches=1)
    assert done.returncode == 1, done.stdout + done.stderr
    first = disk["launches"][0]
    assert first["status"] == "cut" and first["cut"]["how"] == "hung", first
    assert "--test-timeout 5 s" in first["reason"]
    _check_every_other_test_kept(tmp_path, disk, 1)
    assert [(f["status"], f["attempts"][0]["how"]) for f in disk["failed_tests"]] == [("failed", "hung")]
    assert disk["test_timeout_s"] == 5
