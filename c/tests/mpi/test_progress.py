# SPDX-License-Identifier: BSD-3-Clause
"""mpimeter-bench's line per finished test: with --progress, one line on
stderr per test as it ends - operation, size, valid repetitions, median run time and how it was
measured - printed by the application layer; none with --quiet or when stderr is not a terminal
(as under `mpimeter run`, whose launches write stderr to a log)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import assert_refused, read_launch, rule_runtimes, run_bench

LINE = re.compile(r"^mpimeter-bench: \[(\d+)/(\d+)\] (\w+) (\d+) (B|ns): (\d+) of (\d+) valid, "
                  r"median (?:(\S+) (ns|us|ms|s)|none) \((\S+), (global|local) clock\)$")
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def _lines(stderr: str) -> list[re.Match]:
    return [m for m in map(LINE.match, stderr.splitlines()) if m]


def _median_from_raw(lib: str, raw, meta, test: int) -> tuple[int, float]:
    """How many repetitions the binary's rule keeps, and their median run time (conftest.rule_runtimes)."""
    x = rule_runtimes(lib, meta, raw, test)
    return x.size, float(np.median(x)) if x.size else float("nan")


def test_progress_prints_one_line_per_test_with_the_median_of_the_rows(lib, tmp_path):
    out = tmp_path / "launch"
    proc = run_bench(lib, 2, ["--ops", "bcast,delay", "--sizes", "8,4096", "--nrep", "40",
                              "--progress", "--out", out])
    lines = _lines(proc.stderr)
    meta, raw = read_launch(out)
    assert len(lines) == len(meta["tests"]) == 4, proc.stderr
    assert [int(m.group(1)) for m in lines] == [1, 2, 3, 4]
    assert {int(m.group(2)) for m in lines} == {4}
    by_test = {(t["op"], t["size"]): t for t in meta["tests"]}
    for m in lines:
        test = by_test[(m.group(3), int(m.group(4)))]
        assert m.group(5) == ("ns" if m.group(3) == "delay" else "B")
        assert int(m.group(7)) == test["nrep"] == 40
        # the method the test ended with: the window's policy may have switched it on a busy machine
        switches = test["procsync_switches"]
        assert m.group(10) == (switches[-1]["to"] if switches else meta["config"]["procsync"])
        valid, median = _median_from_raw(lib, raw, meta, test["test"])
        assert int(m.group(6)) == valid
        if not valid:  # a busy machine may leave a test without a valid repetition
            assert m.group(8) is None
            continue
        shown = float(m.group(8)) * UNIT_NS[m.group(9)]
        assert shown == pytest.approx(median, rel=0.006), (m.group(0), median)  # 3 digits
    # the lines come in the order the tests ran (the shuffled plan), before "wrote"
    assert [(m.group(3), int(m.group(4))) for m in lines] == [
        (t["op"], t["size"]) for t in sorted(meta["tests"], key=lambda t: t["started_s"])]
    assert proc.stdout.strip().endswith("(4 tests)")


def test_quiet_and_a_pipe_print_no_test_line_and_write_the_same_folder(tmp_path):
    for flags in (["--quiet"], []):  # stderr is a pipe here: no terminal
        out = tmp_path / ("q" if flags else "pipe")
        proc = run_bench("openmpi", 2, ["--ops", "bcast", "--sizes", "8", "--nrep", "10",
                                        *flags, "--out", out])
        assert not _lines(proc.stderr) and "[1/1]" not in proc.stderr, proc.stderr
        meta, _ = read_launch(out)
        assert meta["tests"][0]["adaptive"] is None


def test_progress_and_quiet_together_are_refused(tmp_path):
    assert_refused("openmpi", ["--progress", "--quiet"], "--progress and --quiet: give one",
                   tmp_path)


def test_run_alone_on_a_terminal_the_lines_come_without_asking(tmp_path):
    """Without a launcher (one rank, MPI started by the binary) rank 0's stderr is the
    terminal: the default is then on; script(1) gives the binary a terminal."""
    import shlex
    import shutil
    import subprocess

    from conftest import bench_path

    if not shutil.which("script"):
        pytest.skip("script(1) (util-linux) is not installed: no terminal to run under")
    out = tmp_path / "tty"
    cmd = [str(bench_path("mpich")), "--ops", "bcast", "--sizes", "8,64", "--nrep", "10",
           "--out", str(out)]
    proc = subprocess.run(["script", "-qec", shlex.join(cmd), "/dev/null"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = _lines(proc.stdout.replace("\r\n", "\n"))
    assert [int(m.group(1)) for m in lines] == [1, 2], proc.stdout


def test_a_round_trip_run_back_to_back_shows_none_and_its_local_median(lib, tmp_path):
    """A ping-pong under the automatic window runs with none from its first repetition: its line
    names that method and the local clock, and its median is the initiator's local duration, as
    the analysis takes it (not the answering rank's, which holds its wait for the next message)."""
    out = tmp_path / "pp"
    proc = run_bench(lib, 2, ["--ops", "pingpong-send-recv", "--sizes", "8", "--nrep", "40", "--progress",
                              "--out", out])
    (line,) = [s for s in proc.stderr.splitlines() if "[1/1]" in s]
    m = re.search(r"(\d+) of 40 valid, median (\S+) (ns|us|ms) \((\S+), (global|local) clock\)$", line)
    assert m and m.group(4) == "none" and m.group(5) == "local", line
    meta, raw = read_launch(out)
    mine = raw[raw["rank"] == meta["probes"]["pingpong_pair"]["ranks"][0]]
    local = (mine["end_ns"] - mine["start_ns"]).groupby(mine["rep"]).max()
    assert int(m.group(1)) == 40
    assert float(m.group(2)) * UNIT_NS[m.group(3)] == pytest.approx(float(np.median(local)), rel=0.006), line


LABELLED = re.compile(r"^mpimeter-bench: \[\d+/\d+\] (\S+) (\d+) B(?: \(([^)]*)\))?: (\d+) of (\d+) valid, "
                      r"median (.*) \((\S+), (global|local) clock\)$")


def _labelled(stderr: str) -> list[re.Match]:
    return [m for m in map(LABELLED.match, stderr.splitlines()) if m]


def test_each_line_names_the_root_or_ranks_that_tell_its_test_apart(tmp_path):
    """Several roots (--root) or communicator sizes (--nprocs) make several tests of one operation
    and size: each line names its own, so that no two lines read alike; an operation they do not
    split (allreduce has no root) and a launch that does not vary them keep the plain line."""
    out = tmp_path / "roots"
    proc = run_bench("openmpi", 2, ["--ops", "bcast,allreduce", "--sizes", "8", "--root", "0,1",
                                    "--nrep", "10", "--procsync", "barrier", "--progress", "--out", out])
    meta, _ = read_launch(out)
    lines = _labelled(proc.stderr)
    assert len(lines) == len(meta["tests"]) == 3, proc.stderr
    by_root = {t["root"]: t for t in meta["tests"] if t["op"] == "bcast"}
    assert sorted(m.group(3) or "" for m in lines if m.group(1) == "bcast") == ["root 0", "root 1"]
    assert [m.group(3) for m in lines if m.group(1) == "allreduce"] == [None]
    assert set(by_root) == {0, 1}


def test_a_sub_communicator_test_reports_the_valid_repetitions_meta_json_records(tmp_path):
    """A --nprocs test on fewer ranks than the launch: its run times are not collected while it
    runs, so its line says the median was not collected (never "none", which would say no
    repetition was valid) and gives the valid count meta.json records, not 0."""
    out = tmp_path / "sub"
    proc = run_bench("openmpi", 2, ["--ops", "allreduce", "--sizes", "8", "--nprocs", "1,2",
                                    "--nrep", "10", "--procsync", "barrier", "--progress", "--out", out])
    meta, _ = read_launch(out)
    lines = {m.group(3): m for m in _labelled(proc.stderr)}
    assert set(lines) == {"1 rank", "2 ranks"}, proc.stderr
    for test in meta["tests"]:
        m = lines["1 rank" if test["nprocs"] == 1 else "2 ranks"]
        assert int(m.group(4)) == test["nrep"] - test["invalid"] > 0, (m.group(0), test)
        assert int(m.group(5)) == test["nrep"] == 10
    assert lines["1 rank"].group(6).startswith("not collected"), lines["1 rank"].group(0)
    assert re.fullmatch(r"\S+ (ns|us|ms|s)", lines["2 ranks"].group(6)), lines["2 ranks"].group(0)


def test_a_test_its_time_budget_ended_reports_its_rows_not_a_failure(tmp_path):
    """A test that --launch-budget-s ended before --nrep is incomplete, not failed: its rows are in
    raw.csv and the analysis uses them. Its line gives their valid count and median and says the
    budget ended it (it said 'failed (: )', with no error, and 0 valid)."""
    out = tmp_path / "budget"
    proc = run_bench("openmpi", 2, ["--ops", "delay", "--sizes", "100000", "--nrep", "100000",
                                    "--launch-budget-s", "0.3", "--procsync", "barrier", "--progress",
                                    "--out", out])
    meta, _ = read_launch(out)
    (test,) = meta["tests"]
    assert test["status"] == "incomplete" and test["ended_by"] == "budget", test
    (line,) = [s for s in proc.stderr.splitlines() if "[1/1]" in s]
    assert "failed" not in line, line
    m = re.search(r": (\d+) of (\d+) valid, median (\S+) (us|ms) \(barrier, local clock\); its time budget "
                  r"ended it at (\d+) of 100000 repetitions$", line)
    assert m, line
    assert int(m.group(1)) == test["nrep"] - test["invalid"] and int(m.group(2)) == int(m.group(5)) == test["nrep"]


def test_a_nonblocking_collective_says_its_median_is_the_blocking_phase(tmp_path):
    """A nonblocking collective's raw.csv rows hold its overlap phase (the I-call, --nbc-compute-ns
    of computation, the wait: docs/FORMAT.md), but the median its line gives is the blocking
    phase's (I-call + MPI_Wait, the phase judged): the line says so, and its number is the rows'
    blocking time (what `mpimeter analyze` shows as "blocking"), not their run time (it read as the
    run time, a tenth of the one analyze gives for the same test)."""
    out = tmp_path / "nbc"
    proc = run_bench("openmpi", 2, ["--ops", "ibcast", "--sizes", "64", "--nbc-compute-ns", "1000000",
                                    "--nrep", "20", "--procsync", "barrier", "--progress", "--out", out])
    meta, raw = read_launch(out)
    (line,) = [s for s in proc.stderr.splitlines() if "[1/1]" in s]
    m = re.search(r": (\d+) of 20 valid, median (\S+) (ns|us|ms|s) \(barrier, local clock; blocking phase: "
                  r"I-call \+ MPI_Wait\)$", line)
    assert m, line
    per_rep = raw.groupby("rep").agg(valid=("valid", "min"), blocking=("blocking_ns", "max"))
    if int(m.group(1)) == len(per_rep) == (per_rep["valid"] == 1).sum():  # both phases valid throughout
        shown = float(m.group(2)) * UNIT_NS[m.group(3)]
        assert shown == pytest.approx(float(per_rep["blocking"].median()), rel=0.006), line
