# SPDX-License-Identifier: BSD-3-Clause
"""mpimeter-bench on real ranks: every operation under every process sync, the launch-folder
contract, bad input, a launch killed with SIGKILL, and the accuracy of the `delay` operation."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pandas as pd
import pytest
from conftest import LIBS, NO_EXTRA_CALLS, QuietRuns, assert_refused, bench_path, launcher, read_launch, run_bench

from mpimeter.io import rawformat

ALL_OPS = ["allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "barrier", "bcast",
           "exscan", "gather", "gatherv", "reduce", "reduce_scatter", "reduce_scatter_block",
           "scan", "scatter", "scatterv", "delay"]
# every process sync the binary has, one launch each (test_help_and_list_ops_without_mpirun checks
# that this is the binary's whole list)
PROCSYNCS = ["window", "barrier", "none", "loop-barrier", "roundtime", "harmonize"]
RAW_COLUMNS = list(rawformat.FIELDS)  # the one definition (mpimeter.io.rawformat)


def _procsyncs_of(lib: str) -> list[str]:
    """Every process sync the binary lists in --help."""
    out = subprocess.run([str(bench_path(lib)), "--help"], capture_output=True, text=True,
                         check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("process syncs:"))
    return [n.strip() for n in line.split(":", 1)[1].split(",")]


def test_help_and_list_ops_without_mpirun(lib):
    help_out = subprocess.run([str(bench_path(lib)), "--help"], capture_output=True, text=True,
                              timeout=30)
    assert help_out.returncode == 0
    for option in ["--ops", "--sizes", "--nrep", "--warmup", "--timer", "--clocksync",
                   "--procsync", "--window-us", "--seed", "--cold-cache", "--root", "--datatype",
                   "--reduce-op", "--out", "--force", "--raw"]:
        assert option in help_out.stdout, option
    listing = subprocess.run([str(bench_path(lib)), "--list-ops"], capture_output=True,
                             text=True, timeout=30)
    assert listing.returncode == 0
    names = [line.split()[0] for line in listing.stdout.splitlines() if line.strip()]
    assert names == sorted(set(names), key=names.index)  # one line per op
    assert set(ALL_OPS) <= set(names)
    # test_every_op_under_every_procsync launches under each of them: a new one must join it
    assert sorted(_procsyncs_of(lib)) == sorted(PROCSYNCS)


@pytest.mark.parametrize("procsync", PROCSYNCS)
@pytest.mark.parametrize("np_", [2, 4])
def test_every_op_under_every_procsync(lib, np_, procsync, tmp_path):
    # MPICH busy-polls: oversubscribed it is correctness-only (docs/GUIDE.md, "Ranks outnumbering
    # cores"): few repetitions of one size (every op still runs under every scheme; the sizes'
    # tests are checked on 2 ranks and with Open MPI)
    small = lib == "mpich" and np_ > 2
    nrep = 4 if small else 12
    sizes = [8] if small else [8, 1024]
    out = tmp_path / procsync
    args = ["--ops", ",".join(ALL_OPS), "--sizes", ",".join(map(str, sizes)),
            "--nrep", nrep, *NO_EXTRA_CALLS, "--procsync", procsync, "--datatype", "int",
            "--seed", 7, "--out", out]
    if procsync in ("roundtime", "harmonize"):
        args += ["--roundtime-budget-s", "5"]
    if (np_ > 2 and procsync == "window") or procsync in ("roundtime", "harmonize"):
        # 4 ranks share 2 cores: never are all of them running at a planned start, so the
        # late-start check (on when oversubscribed: test_busy_machine.py) would leave every
        # round late until its budget; this test is about every op running under every scheme.
        # On 2 ranks too, roundtime and harmonize redo each round a rank started late: with
        # another process on a core that is most rounds, redone for seconds in each of the 33
        # tests (73 to 111 s a launch at load 17; 23 s with this tolerance). The late-start
        # check itself: test_busy_machine.py, test_describe_and_errors.py, test_procsync_rounds.py
        args += ["--start-tolerance-ns", "1000000000"]
    if lib == "mpich" and np_ > 2:
        args += ["--clocksync", "none"] if procsync != "barrier" else []
    run_bench(lib, np_, args, timeout=600)
    meta, raw = read_launch(out)
    assert meta["schema_version"] == 4
    assert meta["status"] == "complete"
    assert meta["nprocs"] == np_
    assert meta["config"]["procsync"] == procsync
    # barrier has no size: one test; every other op: one test per size
    ntests = (len(ALL_OPS) - 1) * len(sizes) + 1
    assert len(meta["tests"]) == ntests
    assert list(raw.columns) == RAW_COLUMNS
    # roundtime/harmonize redo rounds some rank started late; on a loaded machine their time
    # budget may end a test first, which meta.json says (ended_by, status incomplete) and the
    # rows match; a test none of whose repetitions was valid (a busy machine: late starts
    # everywhere) is failed with that reason, never for another one
    for t in meta["tests"]:
        if t["status"] == "failed":
            assert t["error"]["code"] == "no-valid-repetitions" and t["nrep"] == 0, t
            continue
        assert t["status"] in ("complete", "incomplete"), t
        # the window's own policy may have gone on with roundtime, whose rounds may end by
        # the test's budget too
        assert (t["ended_by"] == "nrep" or procsync in ("roundtime", "harmonize")
                or t["procsync_switches"]), t
        assert t["nrep"] == nrep or t["ended_by"] == "budget", t
        assert (t["status"] == "incomplete") == (t["ended_by"] == "budget"), t
    assert len(raw) == np_ * sum(t["nrep"] for t in meta["tests"]), procsync
    assert set(raw["op"]) == {t["op"] for t in meta["tests"] if t["nrep"] > 0}
    assert (raw["end_ns"] >= raw["start_ns"]).all()
    assert set(raw["valid"].unique()) <= {0, 1}
    per_test = raw.groupby("test").size()
    nrep_of = {t["test"]: t["nrep"] for t in meta["tests"]}
    assert all(n == np_ * nrep_of[test] for test, n in per_test.items())
    assert sorted(raw["rank"].unique()) == list(range(np_))


def test_launch_folder_contract(tmp_path):
    out = tmp_path / "m1"
    run_bench("openmpi", 2, ["--ops", "allreduce,bcast", "--sizes", "8:64:x8", "--nrep", 20,
                             "--procsync", "window", "--seed", 42, "--out", out])
    meta, raw = read_launch(out)
    text = (out / "meta.json").read_text()
    assert text.lstrip().startswith('{\n  "schema_version"') or text.lstrip().startswith(
        '{"schema_version"')
    cfg = meta["config"]
    assert cfg["seed"] == 42 and cfg["nrep"] == 20 and cfg["sizes"] == [8, 64]
    assert meta["timer"]["name"] == "monotonic"
    assert meta["timer"]["resolution_ns"] > 0 and meta["timer"]["overhead_ns"] > 0
    assert meta["clock_sync"]["method"] not in (None, "auto")
    assert meta["proc_sync"]["method"] == "window"
    assert "Open MPI" in meta["mpi"]["library_version"]
    assert len(meta["ranks"]) == 2 and all(r["host"] for r in meta["ranks"])
    assert meta["wall_end"] is not None
    # the global columns are filled under a window sync
    assert raw["gstart_ns"].notna().all() and raw["gend_ns"].notna().all()
    sync = pd.read_csv(out / "sync.csv")
    assert list(sync.columns) == ["rank", "phase", "kind", "peer", "local_ns", "offset_ns",
                                  "rtt_ns"]
    assert (sync["kind"] == "model").sum() >= 2  # one per rank for the initial sync
    # the same seed gives the same order
    out2 = tmp_path / "m2"
    run_bench("openmpi", 2, ["--ops", "allreduce,bcast", "--sizes", "8:64:x8", "--nrep", 5,
                             "--seed", 42, "--out", out2])
    meta2, _ = read_launch(out2)
    order = [(t["op"], t["size"]) for t in meta["tests"]]
    assert order == [(t["op"], t["size"]) for t in meta2["tests"]]


def test_reduced_raw_and_barrier_without_global_clock(tmp_path):
    out = tmp_path / "r"
    run_bench("openmpi", 4, ["--ops", "bcast", "--sizes", "8,1024", "--nrep", 10,
                             "--procsync", "barrier", "--raw", "reduced", "--out", out])
    meta, raw = read_launch(out)
    assert meta["config"]["raw"] == "reduced"
    assert len(raw) == 2 * 10
    assert (raw["rank"] == -1).all()
    assert raw["gstart_ns"].isna().all()  # barrier with clocksync none: no global clock


BAD_INPUTS = [
    (["--ops", "allreduce,frobnicate"], "frobnicate"),
    (["--bogus-option", "1"], "--bogus-option"),
    (["--sizes", "8,abc"], "--sizes"),
    (["--sizes", "8:1024:y2"], "--sizes"),
    (["--nrep", "0"], "--nrep"),
    (["--timer", "sundial"], "--timer"),
    (["--ops", "allreduce", "--datatype", "int", "--sizes", "10"], "multiple"),
    (["--procsync", "psychic"], "--procsync"),
    (["--root", "9", "--ops", "bcast"], "--root"),
]


@pytest.mark.parametrize("args,needle", BAD_INPUTS, ids=[b[1] for b in BAD_INPUTS])
def test_bad_option_exits_2_everywhere(lib, args, needle, tmp_path):
    assert_refused(lib, args, needle, tmp_path)


def test_out_exists_and_not_empty(lib, tmp_path):
    out = tmp_path / "full"
    out.mkdir()
    (out / "keep.txt").write_text("user data")
    proc = run_bench(lib, 2, ["--ops", "bcast", "--sizes", "8", "--out", out], timeout=60,
                     check=False)
    assert proc.returncode == 2 and "--out" in proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    # --force writes anyway
    run_bench(lib, 2, ["--ops", "bcast", "--sizes", "8", "--nrep", 3, "--out", out, "--force"])
    assert (out / "raw.csv").exists()


def test_unwritable_out(tmp_path):
    proc = run_bench("openmpi", 2, ["--out", "/proc/mpimeter/x"], timeout=60, check=False)
    assert proc.returncode == 2 and "--out" in proc.stderr


def test_meta_json_that_cannot_be_written_says_why(lib, tmp_path):
    """A launch whose meta.json cannot be written at its start ends on every rank with exit 1 and
    one line naming the file and the system's reason (a folder where its temporary file goes:
    EISDIR even for root), instead of ending unexplained."""
    out = tmp_path / "blocked"
    (out / ".meta.json.tmp").mkdir(parents=True)
    proc = run_bench(lib, 2, ["--ops", "barrier", "--sizes", "0", "--nrep", 3, "--procsync", "barrier",
                              "--out", out, "--force"], timeout=120, check=False)
    assert proc.returncode == 1, proc.stderr
    assert f"mpimeter-bench: cannot write {out}/meta.json: Is a directory" in proc.stderr.splitlines(), proc.stderr
    assert "wrote" not in proc.stdout, proc.stdout


def test_sigkill_midway_leaves_readable_folder(tmp_path):
    out = tmp_path / "killed"
    # 16 tests of 40 x 25 ms delay: ~1 s each; kill after the second has finished, with ~14 s of
    # tests left (meta.json was seen to show a finished test seconds late on a loaded machine)
    sizes = ",".join(str(25_000_000 + i) for i in range(16))
    args = ["--ops", "delay", "--sizes", sizes, "--nrep", 40, "--warmup", 0, "--procsync", "barrier",
            "--copy-probe-bytes", "0", "--out", out]  # no copy probe (conftest.run_bench says why)
    cmd = launcher("openmpi", 2) + [str(bench_path("openmpi"))] + [str(a) for a in args]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            meta_path = out / "meta.json"
            if meta_path.exists():
                meta = json.loads(meta_path.read_text())
                if sum(t["status"] == "complete" for t in meta["tests"]) >= 2:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the launch never finished two tests")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    # SIGKILL is delivered asynchronously: read once rank 0 is gone, as the reader sees it
    from mpimeter.io.launch import read_launch as read_for_analysis
    deadline = time.monotonic() + 10
    data = read_for_analysis(out, cache=False)
    while data.status == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
        data = read_for_analysis(out, cache=False)
    meta, raw = read_launch(out)
    assert meta["status"] == "running"  # the process is gone: readers call it incomplete
    done = [t["test"] for t in meta["tests"] if t["status"] == "complete"]
    assert len(done) >= 2 and len(done) < 16
    for test in done:
        assert len(raw[raw["test"] == test]) == 2 * 40
    assert set(raw["test"]) <= set(done) | {max(done) + 1}
    # the reader of the analysis calls it incomplete and keeps exactly the finished tests
    assert data.status == "incomplete"
    assert set(data.finished_tests) == set(done)


@pytest.mark.parametrize("lib_", LIBS)
def test_delay_accuracy_window(lib_, tmp_path):
    """A 200 us delay measures 200 us (+-5 %, median of the valid repetitions' global run times).
    Correct on any machine: every rank's local duration is at least the delay, and every
    repetition is written. Accurate on a quiet one (conftest.QuietRuns: retried while
    other processes held the cores; bench/busy.py has the figures, quiet and loaded)."""
    out = tmp_path / "delay"

    def run():
        run_bench(lib_, 2, ["--ops", "delay", "--sizes", "200000", "--nrep", 200,
                            "--procsync", "window", "--out", out, "--force"])
        return read_launch(out)

    def accurate(launch):
        _, raw = launch
        valid = raw.groupby("rep").filter(lambda g: (g["valid"] == 1).all())
        per_rep = valid.groupby("rep").agg(start=("gstart_ns", "min"), end=("gend_ns", "max"))
        median = (per_rep["end"] - per_rep["start"]).median()
        assert len(per_rep) >= 20, f"only {len(per_rep)} valid repetitions of 200"
        assert abs(median - 200_000) <= 0.05 * 200_000, median

    runs = QuietRuns(run, f"{lib_}: 200 us delay within 5 %")
    meta, raw = runs.result
    assert len(raw) == 2 * 200 and meta["tests"][0]["nrep"] == 200
    assert ((raw["end_ns"] - raw["start_ns"]) >= 200_000).all()  # a delay waits at least as asked
    runs.check(accurate)
