# SPDX-License-Identifier: BSD-3-Clause
"""Measurement-level retry with real launches (Open MPI, 2 ranks): a test that crashes or hangs
costs that test, not its launch (campaign.testretry).

The fault is made by a stand-in for mpimeter-bench in a bench dir of the test's own: it runs the
real binary and, once the launch's meta.json shows the named test running (the tests before it
finished), kills that rank (a crash) or stops it (SIGSTOP: a hang). The named test is a `delay`
of tens of milliseconds per repetition, so that the stand-in sees it running."""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mpimeter.campaign import launcher

BENCH_DIR = launcher.default_bench_dir()
REAL = launcher.bench_binary(BENCH_DIR, "openmpi")
pytestmark = pytest.mark.skipif(
    not REAL.is_file() or not shutil.which(launcher.local_template("openmpi").split()[0]),
    reason=f"no mpimeter-bench or mpirun for openmpi under {BENCH_DIR} (run `make build`)")

STAND_IN = '''#!{python}
import json, os, signal, subprocess, sys, time
REAL, FAULT, OP, SIZE, ONCE = {real!r}, {fault!r}, {op!r}, {size!r}, {once!r}
args = sys.argv[1:]
if "--out" not in args:
    os.execv(REAL, [REAL, *args])
meta_path = os.path.join(args[args.index("--out") + 1], "meta.json")
child = subprocess.Popen([REAL, *args])
while child.poll() is None:
    time.sleep(0.002)
    try:
        with open(meta_path) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        continue
    began = (((meta.get("phases") or {{}}).get("probes") or {{}}).get("start_s") or -1) >= 0
    left = sorted((t for t in meta.get("tests") or [] if t["status"] not in ("complete", "incomplete", "failed")),
                  key=lambda t: t["test"])
    if not (began and left and (left[0]["op"], left[0]["size"]) == (OP, SIZE)):
        continue
    if ONCE:
        try:
            os.close(os.open(ONCE, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            break  # the fault happened once already
    if FAULT == "crash":
        child.kill()
        child.wait()
        sys.exit(137)
    child.send_signal(signal.SIGSTOP)
    time.sleep(3600)
sys.exit(child.wait() & 0xff)
'''

OPS, SIZES = "delay,barrier", "20000000,30000000,40000000"  # delays of 20-40 ms; barrier: one test
FAULTY = ("delay", 30000000)


def _bench_dir(tmp_path: Path, fault: str, once: bool = False) -> Path:
    path = tmp_path / "bench" / "openmpi" / "bin" / "mpimeter-bench"
    path.parent.mkdir(parents=True)
    path.write_text(STAND_IN.format(python=sys.executable, real=str(REAL), fault=fault, op=FAULTY[0],
                                    size=FAULTY[1], once=str(tmp_path / "faulted") if once else ""))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return tmp_path / "bench"


def _run(tmp_path: Path, bench: Path, *extra: str, launches: int = 2) -> tuple[subprocess.CompletedProcess, dict]:
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


def test_a_test_crashing_in_every_launch_is_retried_last_and_reported_failed(tmp_path):
    done, disk = _run(tmp_path, _bench_dir(tmp_path, "crash"), "--retries", "1")
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


def test_a_test_failing_once_passes_on_its_retry(tmp_path):
    done, disk = _run(tmp_path, _bench_dir(tmp_path, "crash", once=True), launches=1)
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


def test_a_hanging_test_is_stopped_at_its_timeout_and_the_next_tests_run(tmp_path):
    done, disk = _run(tmp_path, _bench_dir(tmp_path, "hang"), "--retries", "0", "--test-timeout", "5",
                      "--launch-timeout", "120", launches=1)
    assert done.returncode == 1, done.stdout + done.stderr
    first = disk["launches"][0]
    assert first["status"] == "cut" and first["cut"]["how"] == "hung", first
    assert "--test-timeout 5 s" in first["reason"]
    _check_every_other_test_kept(tmp_path, disk, 1)
    assert [(f["status"], f["attempts"][0]["how"]) for f in disk["failed_tests"]] == [("failed", "hung")]
    assert disk["test_timeout_s"] == 5
