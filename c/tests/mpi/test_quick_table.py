# SPDX-License-Identifier: BSD-3-Clause
"""The quick table: mpimeter-bench without --out, as OSU's osu_latency is run. A table on stdout
with a row per size as it finishes, each operation's sizes in ascending order, the one-way
latency (half the median round trip) for a ping-pong as the analysis reports it, into a new
temporary folder named at the end, synchronized by a barrier with each rank's own clock (as OSU);
what the user gives (--order, --copy-probe-bytes, --procsync, --quiet) wins, and --force without
--out is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import read_launch, run_bench

ROW = re.compile(r"^  (\d+)\s+(\S+)(?:\s+(\S+))?\s+(\d+)/(\d+)$")
WROTE = re.compile(r"^mpimeter-bench: wrote (/\S+) \((\d+) tests\)$", re.M)


def _run(lib, tmp_path, args):
    import os
    import subprocess

    from conftest import bench_path, launcher

    cmd = launcher(lib, 2) + [str(bench_path(lib)), *args, "--nrep", "30", "--warmup", "2"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [(folder, ntests)] = WROTE.findall(proc.stdout)
    assert Path(folder).parent == tmp_path and Path(folder).name.startswith("mpimeter-")
    return proc, Path(folder), int(ntests)


def _local_median(raw, test: int, timed_rank: int | None = None) -> tuple[int, float]:
    """The run time on the ranks' own clocks (the longest duration of the timed ranks: every
    rank, or a round trip's initiator alone), median over the repetitions valid on every rank:
    what the binary reports under --procsync barrier."""
    rows = raw[raw["test"] == test].assign(duration=lambda r: r["end_ns"] - r["start_ns"])
    if timed_rank is not None:
        rows = rows.assign(duration=rows["duration"].where(rows["rank"] == timed_rank))
    per_rep = rows.groupby("rep").agg(valid=("valid", "min"), duration=("duration", "max"))
    kept = per_rep[per_rep["valid"] == 1]
    return len(kept), float(kept["duration"].median()) if len(kept) else float("nan")


def _tables(stdout: str) -> dict[str, list[re.Match]]:
    """Each operation's rows, under its header line '# OP: ...'."""
    tables: dict[str, list[re.Match]] = {}
    current = None
    for line in stdout.splitlines():
        if line.startswith("# ") and ":" in line and not line.startswith("# Size") \
                and not line.startswith("# Delay"):
            current = line[2:].split(":")[0]
            tables[current] = []
        elif (m := ROW.match(line)) and current:
            tables[current].append(m)
    return tables


def test_without_out_a_table_in_ascending_order_one_way_for_a_ping_pong(lib, tmp_path):
    proc, folder, ntests = _run(lib, tmp_path, ["--ops", "pingpong-send-recv,allreduce",
                                                "--sizes", "4096,8,512,64"])
    meta, raw = read_launch(folder)
    assert ntests == len(meta["tests"]) == 8
    assert meta["config"]["order"] == "ascending" and meta["config"]["copy_probe_bytes"] == 0
    # OSU's way: a barrier and each rank's own clock, no clock sync
    assert meta["config"]["procsync"] == "barrier" and meta["config"]["clocksync"] == "none"
    assert "one-way latency" in proc.stdout and "run time" in proc.stdout
    tables = _tables(proc.stdout)
    assert list(tables) == ["pingpong-send-recv", "allreduce"], proc.stdout
    # measured in the order printed: each operation's sizes from the smallest
    ran = [(t["op"], t["size"]) for t in sorted(meta["tests"], key=lambda t: t["started_s"])]
    assert ran == [(op, s) for op in tables for s in (8, 64, 512, 4096)]
    by_test = {(t["op"], t["size"]): t["test"] for t in meta["tests"]}
    for op, rows in tables.items():
        assert [int(m.group(1)) for m in rows] == [8, 64, 512, 4096]
        for m in rows:
            initiator = meta["probes"]["pingpong_pair"]["ranks"][0] if op == "pingpong-send-recv" else None
            valid, median = _local_median(raw, by_test[(op, int(m.group(1)))], initiator)
            assert int(m.group(4)) == valid and int(m.group(5)) == 30
            if not valid:
                continue  # a busy machine may leave a test without a valid repetition
            if op == "pingpong-send-recv":  # one-way: half the round trip, and size / one-way
                one_way_us = median / 2 / 1e3
                assert float(m.group(2)) == pytest.approx(one_way_us, abs=0.006), m.group(0)
                assert float(m.group(3)) == pytest.approx(int(m.group(1)) / one_way_us, rel=0.01, abs=0.006)  # printed to 0.01
            else:
                assert float(m.group(2)) == pytest.approx(median / 1e3, abs=0.006), m.group(0)
    assert proc.stdout.rstrip().splitlines()[-1].startswith("mpimeter-bench: wrote ")


def test_what_the_user_gives_wins_over_the_quick_defaults(tmp_path):
    proc, folder, _ = _run("openmpi", tmp_path, ["--ops", "pingpong-send-recv", "--sizes", "8,64,512",
                                                 "--order", "shuffled", "--copy-probe-bytes", "4096",
                                                 "--procsync", "window", "--quiet", "--seed", "7"])
    meta, _ = read_launch(folder)
    assert "order" not in meta["config"] and meta["config"]["copy_probe_bytes"] == 4096
    assert meta["config"]["procsync"] == "window"
    assert not _tables(proc.stdout) and "# " not in proc.stdout


def test_with_out_the_order_stays_shuffled_and_nothing_is_tabled(tmp_path):
    out = tmp_path / "launch"
    proc = run_bench("openmpi", 2, ["--ops", "pingpong-send-recv", "--sizes", "8,64,512,4096",
                                    "--nrep", "10", "--seed", "3", "--out", out], copy_probe=True)
    meta, _ = read_launch(out)
    assert "order" not in meta["config"] and meta["config"]["copy_probe_bytes"] > 0
    assert not _tables(proc.stdout)


def test_force_without_out_is_refused_in_one_line(tmp_path):
    proc = run_bench("openmpi", 2, ["--ops", "pingpong-send-recv", "--force"], timeout=60, check=False)
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.startswith("mpimeter-bench:")]
    assert lines == ["mpimeter-bench: --force: only with --out (without --out the launch writes a "
                     "new temporary folder, which needs no --force)"], proc.stderr


def test_a_row_names_the_root_that_tells_it_from_the_rows_of_its_size(tmp_path):
    """--root 0,1 makes two tests of bcast at each size: each row ends with its root, so that the
    two rows of a size can be told apart (and matched with meta.json's tests[].root)."""
    proc, folder, ntests = _run("openmpi", tmp_path, ["--ops", "bcast", "--sizes", "8,64", "--root", "0,1"])
    meta, raw = read_launch(folder)
    rows = [m for m in map(re.compile(r"^  (\d+)\s+\S+\s+(\d+)/(\d+)(?:   root (\d+))?$").match,
                           proc.stdout.splitlines()) if m]
    assert ntests == len(meta["tests"]) == len(rows) == 4, proc.stdout
    assert sorted((int(m.group(1)), m.group(4)) for m in rows) == [
        (8, "0"), (8, "1"), (64, "0"), (64, "1")], proc.stdout
    by_test = {(t["size"], t["root"]): t["test"] for t in meta["tests"]}
    for m in rows:
        valid, _ = _local_median(raw, by_test[(int(m.group(1)), int(m.group(4)))])
        assert int(m.group(2)) == valid


def test_a_refused_launch_leaves_no_empty_folder_in_tmpdir(tmp_path):
    """Without --out rank 0 makes the temporary folder once the options parse; a refusal found
    after that (here an unknown performance variable, which needs MPI to look up) exits 2 with
    nothing written, and so leaves no folder behind (an empty mpimeter-XXXXXX stayed per attempt)."""
    import os
    import subprocess

    from conftest import bench_path, launcher

    cmd = launcher("openmpi", 2) + [str(bench_path("openmpi")), "--ops", "barrier", "--mpit-pvars",
                                     "no_such_variable", "--nrep", "5"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--mpit-pvars: unknown performance variable 'no_such_variable'" in proc.stderr
    assert not list(tmp_path.glob("mpimeter-*")), list(tmp_path.iterdir())
