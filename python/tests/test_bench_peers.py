# SPDX-License-Identifier: BSD-3-Clause
"""bench/peers.py without MPI: the value it takes from each peer's real output (the tools' own
files, as `mpimeter import` reads them), the state a peer launch inherits, the spread and the
paired-by-round ratios, its option checks; and bench/_launches.py's timeout and CPU hogs."""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
from data.synth import write_launch

from mpimeter.io.peers import read_peer

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data" / "peers"
sys.path.append(str(REPO / "bench"))  # peers.py imports _launches from beside it (last: shadows nothing)
_spec = importlib.util.spec_from_file_location("bench_peers", REPO / "bench" / "peers.py")
peers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peers)
import _launches  # noqa: E402


def _read(tool: str, name: str):
    return read_peer(tool, DATA / name, nprocs=2 if tool == "osu" else None)


def test_imb_values_are_t_avg_and_the_one_way_t_not_the_importers_round_trip():
    run = _read("imb", "imb-pingpong-allreduce-bcast.txt")
    pingpong, aggregates = peers.peer_values(run, "pingpong")
    # t[usec] 0.18 and 0.34 as printed: half the round trip (the importer's raw row holds twice it)
    assert pingpong == {8: 180.0, 1024: 340.0}
    assert aggregates[8] == {"t": 180}
    allreduce, _ = peers.peer_values(run, "allreduce")
    # t_avg, not t_max (0.34 / 0.72) nor t_min; the file stops at 4096 B: no 64 KiB value
    assert allreduce == {8: 330.0, 1024: 710.0}


def test_osu_values_are_its_average_one_way_latency():
    latency, _ = peers.peer_values(_read("osu", "osu-latency.txt"), "pingpong")
    assert latency == {8: 450.0, 1024: 980.0, 65536: 8180.0}
    allreduce, aggregates = peers.peer_values(_read("osu", "osu-allreduce-full.txt"), "allreduce")
    assert allreduce == {8: 580.0, 1024: 1600.0, 65536: 57340.0}
    assert aggregates[65536] == {"avg": 57340, "min": 57310, "max": 57370}
    # another operation's table gives nothing for this one
    assert peers.peer_values(_read("osu", "osu-latency.txt"), "allreduce") == ({}, {})



def test_osu_p50_is_osus_median_of_its_round_trips_and_runs_only_when_asked(tmp_path):
    run = _read("osu", "osu-7.4-latency-tail.txt")  # osu_latency -z, taken under load
    assert peers.peer_values(run, "pingpong", "osu_p50")[0] == {8: 380.0, 1024: 700.0}
    assert peers.peer_values(run, "pingpong")[0] == {8: 3660.0, 1024: 92730.0}  # its average, as "osu"
    assert peers.peer_argv("osu_p50", "pingpong", "osu_latency", tmp_path) == ["osu_latency", "-m", "8:65536", "-z50"]
    assert peers.peer_argv("osu", "pingpong", "osu_latency", tmp_path) == ["osu_latency", "-m", "8:65536"]
    osu = tmp_path / "osu_latency"
    osu.write_text("#!/bin/sh\n")
    osu.chmod(0o755)
    common = ["--bench", str(osu), "--methods", "batch", "--ops", "pingpong", "--osu-latency", str(osu),
              "--out", str(tmp_path / "peers.json")]
    assert peers.configurations(peers.parse_args(common)) == [("batch", "pingpong"), ("osu", "pingpong")]
    assert peers.configurations(peers.parse_args([*common, "--osu-latency-p50", str(osu)])) == [
        ("batch", "pingpong"), ("osu", "pingpong"), ("osu_p50", "pingpong")]

def _reprompi_rows(name: str, size: str, *, valid_only: bool) -> list[float]:
    """The file's MPI_Allreduce run times (ns) at ``size``, split by hand; a window run's rows
    carry an errorcode before the run time (non-zero: invalid)."""
    rows = [line.split() for line in (DATA / name).read_text().splitlines() if line.split()[:1] == ["MPI_Allreduce"]]
    return [float(r[-1]) * 1e9 for r in rows if r[2] == size and (not valid_only or len(r) == 4 or r[3] == "0")]


def test_reprompi_value_is_the_median_of_its_valid_repetitions():
    barrier, _ = peers.peer_values(_read("reprompi", "reprompi-bcast-allreduce-barrier.txt"), "allreduce")
    assert barrier.keys() == {8, 1024}  # the MPI_Bcast rows are another operation's
    for size in (8, 1024):
        assert barrier[size] == pytest.approx(statistics.median(_reprompi_rows(
            "reprompi-bcast-allreduce-barrier.txt", str(size), valid_only=True)), abs=0.5)
    window, _ = peers.peer_values(_read("reprompi", "reprompi-allreduce-window-global.txt"), "allreduce")
    valid = statistics.median(_reprompi_rows("reprompi-allreduce-window-global.txt", "1024", valid_only=True))
    every = statistics.median(_reprompi_rows("reprompi-allreduce-window-global.txt", "1024", valid_only=False))
    assert valid != pytest.approx(every, abs=1)  # two of its 200 repetitions are invalid and move the median
    assert window[1024] == pytest.approx(valid, abs=0.5)


def _pingpong_launch(folder: Path, *, round_trip: bool, sizes=(8, 1024), nprocs: int = 2) -> Path:
    write_launch(folder, seed=7, ops=("pingpong",), sizes=sizes, nrep=60, schema=2, invalid_fraction=0.2,
                 nprocs=nprocs)
    meta = json.loads((folder / "meta.json").read_text())
    meta["operations"]["pingpong"]["round_trip"] = round_trip
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


def test_mpimeter_values_are_analyze_s_one_way_medians_with_a_local_clock_twin(tmp_path):
    one_way = peers.mpimeter_values(_pingpong_launch(tmp_path / "rt", round_trip=True, nprocs=1))
    timed = peers.mpimeter_values(_pingpong_launch(tmp_path / "plain", round_trip=False, nprocs=1))
    assert one_way["values_ns"].keys() == {8, 1024}
    for size in (8, 1024):  # the same repetitions: a round trip's value is half the plain one's
        assert one_way["values_ns"][size] == pytest.approx(timed["values_ns"][size] / 2)
        assert one_way["local_ns"][size] == pytest.approx(timed["local_ns"][size] / 2)
    assert one_way["clock"] == ["global-online"]  # the window launch's own clock; local_ns beside it
    rows = [line.split(",") for line in (tmp_path / "rt" / "raw.csv").read_text().splitlines()[1:]]
    assert 0 < one_way["invalid_share"] == pytest.approx(sum(r[7] == "0" for r in rows) / len(rows), abs=1e-4)
    # two ranks: the round trip is its initiator's (rank 0's) call alone, on either clock alike,
    # where the plain op spans both ranks' calls on the global clock
    pair = peers.mpimeter_values(_pingpong_launch(tmp_path / "pair", round_trip=True))
    spans = peers.mpimeter_values(_pingpong_launch(tmp_path / "spans", round_trip=False))
    for size in (8, 1024):
        assert pair["values_ns"][size] == pytest.approx(pair["local_ns"][size], rel=1e-3)
        assert spans["values_ns"][size] != pytest.approx(spans["local_ns"][size], rel=1e-3)
    # a size outside the study's is left out
    assert peers.mpimeter_values(_pingpong_launch(tmp_path / "big", round_trip=True, sizes=(8, 4096)))[
        "values_ns"].keys() == {8}


def _rec(tool: str, state: str | None = None) -> dict:
    return {"tool": tool, "state": state}


def test_a_peer_launch_takes_the_state_of_the_mpimeter_launch_before_it_else_after_it():
    records = [_rec("imb"), _rec("mpimeter", "fast"), _rec("osu"), _rec("mpimeter", "slow"), _rec("reprompi")]
    peers.assign_peer_states(records)
    assert [r["state"] for r in records] == ["fast", "fast", "fast", "slow", "slow"]
    assert records[0]["state_from"] == "the mpimeter launch after it"
    assert records[2]["state_from"] == "the mpimeter launch before it"
    alone = [_rec("imb"), _rec("osu")]
    peers.assign_peer_states(alone)
    assert [r["state"] for r in alone] == ["unknown", "unknown"]


def test_spread_is_the_normal_scaled_mad_of_the_logs_in_percent():
    # logs of 100, 110, 90, 100, 105 around their median ln 100: |dev| 0, .0953, .1054, 0, .0488;
    # median .04879 × 1.4826 = 7.23 %
    assert peers.spread_pct([100, 110, 90, 100, 105]) == pytest.approx(7.23, abs=0.01)
    assert peers.spread_pct([100, 200]) is None  # below 3 launches
    assert peers.spread_pct([100, 100, 100]) == 0.0


def test_spread_on_the_peers_print_grid_rounds_to_10_ns_first():
    assert peers.on_grid([134.0, 135.0, 144.9, 1004.0]) == [130.0, 140.0, 140.0, 1000.0]
    # 137, 141, 143, 146, 139 ns: 2.1 % apart in ns; all print as 0.14 us, so on the grid 0
    launches = [_launch("default", k, "fast", {8: v}, 1.0) for k, v in enumerate([137.0, 141.0, 143.0, 146.0, 139.0], 1)]
    entry = peers.summarize(launches)["fast"]["pingpong"]["default"]
    assert entry["spread_pct"]["8"] > 1.0
    assert entry["spread_on_grid_pct"]["8"] == 0.0


def _launch(config: str, round_: int, state: str, values: dict, wall: float, **extra) -> dict:
    return {"tool": "mpimeter" if config in peers.METHODS else config, "config": config, "op": "pingpong",
            "round": round_, "state": state, "values_ns": values, "wall_s": wall, "load1": 1.0,
            "other_cpu_share": 0.1, **extra}


def test_ratios_pair_launches_of_one_round_in_the_same_state_only():
    launches = [
        _launch("default", 0, "fast", {8: 300.0}, 1.0), _launch("imb", 0, "fast", {8: 200.0}, 0.5),
        _launch("default", 1, "fast", {8: 400.0}, 1.2), _launch("imb", 1, "slow", {8: 100.0}, 0.6),  # states differ
        _launch("default", 2, "slow", {8: 500.0}, 2.0), _launch("imb", 2, "slow", {8: 250.0}, 0.5),
        _launch("default", 3, "fast", {8: 330.0}, 1.0),  # IMB failed in round 3
        _launch("imb", 3, "fast", {}, 0.4, error="exit 1"),
    ]
    ok = [x for x in launches if "error" not in x]
    fast = peers.paired_ratios(ok, "default", "imb", "pingpong", "fast")
    assert fast["8"] == {"median": 1.5, "q1": 1.5, "q3": 1.5, "rounds": 1}
    assert fast["wall"]["median"] == 2.0
    pooled = peers.paired_ratios(ok, "default", "imb", "pingpong", "all")
    assert pooled["8"]["rounds"] == 3 and pooled["8"]["median"] == 2.0  # 1.5, 4, 2
    assert peers.paired_ratios(ok, "default", "osu", "pingpong", "fast") == {}


def test_a_baseline_build_runs_the_chosen_methods_again_and_is_paired_by_round(tmp_path):
    bench = tmp_path / "mpimeter-bench"
    bench.write_text("#!/bin/sh\n")
    bench.chmod(0o755)
    args = peers.parse_args(["--bench", str(bench), "--baseline-bench", str(bench), "--methods", "barrier,default",
                             "--ops", "pingpong", "--out", str(tmp_path / "peers.json")])
    assert args.methods == ["default", "barrier"]  # the table's order
    assert peers.configurations(args) == [("default", "pingpong"), ("barrier", "pingpong"),
                                          ("default@baseline", "pingpong"), ("barrier@baseline", "pingpong")]
    assert peers.method_of("default@baseline") == "default" and peers.method_of("imb") is None
    launches = [_launch("default", 0, "fast", {8: 90.0}, 0.9),
                _launch("default@baseline", 0, "fast", {8: 100.0}, 1.2, tool="mpimeter")]
    entry = peers.summarize(launches)["fast"]["pingpong"]
    assert entry["default"]["ratio_to"]["baseline"]["8"]["median"] == 0.9
    assert entry["default"]["ratio_to"]["baseline"]["wall"]["median"] == 0.75
    assert "baseline" not in entry["default@baseline"]["ratio_to"]


def test_the_output_names_the_commit_each_build_came_from(tmp_path):
    # what the binary's --describe names (CMake's revision at build time), or the `git describe`
    # of the source tree given, which also says whether that tree held changes
    doc = json.loads((REPO / "c" / "tests" / "mpi" / "data" / "identity" / "openmpi" / "describe.json").read_text())
    doc["tool"]["git_revision"] = "0123456789ab"
    (tmp_path / "describe.json").write_text(json.dumps(doc))
    bench = tmp_path / "mpimeter-bench"
    bench.write_text(f"#!/bin/sh\ncat {tmp_path / 'describe.json'}\n")
    bench.chmod(0o755)
    assert peers.build_commit(bench) == "0123456789ab"
    assert peers.build_commit(tmp_path / "missing") is None
    source = tmp_path / "src"
    source.mkdir()
    git = ["git", "-C", str(source), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (source / "a").write_text("1")
    subprocess.run([*git, "add", "a"], check=True)
    subprocess.run([*git, "commit", "-qm", "a"], check=True)
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert peers.build_commit(bench, source) == head
    (source / "a").write_text("2")
    assert peers.build_commit(bench, source) == head + "-dirty"
    args = peers.parse_args(["--bench", str(bench), "--baseline-bench", str(bench), "--baseline-source", str(source),
                             "--out", str(tmp_path / "peers.json")])
    header = peers._header(args, peers.configurations(args), [])
    assert header["bench_commit"] == "0123456789ab" and header["baseline_commit"] == head + "-dirty"


def test_summary_leaves_out_the_first_launch_and_failed_ones():
    launches = [_launch("default", -1, "fast", {8: 1e6}, 9.0)]
    launches += [_launch("default", r, "fast", {8: v}, 1.0, phases={"init": 0.5, "probes": p})
                 for r, (v, p) in enumerate([(100.0, 0.1), (110.0, 0.2), (90.0, 0.3), (100.0, 0.4), (105.0, 0.5)])]
    launches.append(_launch("default", 5, "fast", {8: 5000.0}, 1.0, error="analysis: refused"))
    entry = peers.summarize(launches)["fast"]["pingpong"]["default"]
    assert entry["launches"] == 5
    assert entry["median_ns"] == {"8": 100.0}
    assert entry["spread_pct"]["8"] == pytest.approx(7.23, abs=0.01)
    assert entry["phases_s_median"] == {"init": 0.5, "probes": 0.3}
    assert "slow" not in peers.summarize(launches)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "bench" / "peers.py"), *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(REPO / "python" / "src")})


@pytest.mark.parametrize("args, said", [
    (["--rounds", "0"], "--rounds: 0 is out of range (allowed: 1 to 10000)"),
    (["--load", "two"], "--load: 'two' is not a whole number"),
    (["--load-nice", "20"], "--load-nice: 20 is out of range (allowed: 0 to 19)"),
    (["--imb", "/nonexistent/IMB-MPI1"], "--imb: '/nonexistent/IMB-MPI1' is not an executable file"),
    (["--out", "/nonexistent/peers.json"], "the folder /nonexistent does not exist"),
    (["--keep", str(REPO / "bench")], "already exists; give a new folder"),
    (["--methods", "default,windowed"], "--methods: 'default,windowed' names 'windowed' (allowed: default, barrier"),
    (["--ops", "alltoall"], "--ops: 'alltoall' names 'alltoall' (allowed: allreduce, pingpong"),
    (["--baseline-bench", "/nonexistent/mpimeter-bench"], "is not an executable file"),
])
def test_a_bad_option_is_one_line_and_exit_2(args, said, capsys):
    # in this process: the script's own process costs an interpreter with numpy and scipy per
    # case; the next test runs it as its own process once
    with pytest.raises(SystemExit) as stopped:
        peers.parse_args(args)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert said in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_the_script_refuses_a_bad_option_in_one_line_with_exit_2():
    done = _cli("--rounds", "0")
    assert done.returncode == 2
    assert "--rounds: 0 is out of range (allowed: 1 to 10000)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_read_launch_is_moved_into_keep_or_deleted(tmp_path):
    folder, output = tmp_path / "000-00-default-pingpong", tmp_path / "000-01-imb-pingpong.txt"
    folder.mkdir()
    (folder / "raw.csv").write_text("x\n")
    output.write_text("IMB\n")
    kept = argparse.Namespace(keep=tmp_path / "keep")
    peers._done_with(kept, folder)
    peers._done_with(kept, output)
    assert (tmp_path / "keep" / folder.name / "raw.csv").read_text() == "x\n"
    assert (tmp_path / "keep" / output.name).read_text() == "IMB\n"
    assert not folder.exists() and not output.exists()
    again = tmp_path / "001-00-barrier-allreduce"
    again.mkdir()
    peers._done_with(argparse.Namespace(keep=None), again)
    assert not again.exists()


def test_a_launch_past_its_timeout_is_killed_with_its_session():
    done, wall, load = _launches.timed(["sh", "-c", "sleep 30 & sleep 30"], timeout_s=0.5)
    assert done.returncode is None and "timed out after 0.5 s" in done.stderr
    assert wall < 20  # the shell and its background sleep are gone: communicate() returned
    assert 0 <= load["other_cpu_share"] and math.isfinite(load["load1"])


def _nice(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def _session_nice(pid: int) -> int | None:
    path = Path(f"/proc/{pid}/autogroup")  # "/autogroup-N nice K" (sched(7)); absent without autogroups
    return int(path.read_text().split()[-1]) if path.exists() else None


def test_cpu_hogs_run_at_nice_19_and_end_with_the_block():
    with _launches.cpu_hogs(2) as pids:
        assert len(pids) == 2
        assert [_nice(p) for p in pids] == [19, 19]  # set before the shell runs
        # their sessions weigh as nice 19 too: with autogroups a process's own nice value counts
        # only inside its session
        expected = 19 if _launches.AUTOGROUP.exists() else None
        assert [_session_nice(p) for p in pids] == [expected, expected]
    assert not any(Path(f"/proc/{p}").exists() for p in pids)


def test_cpu_hogs_at_nice_0_and_their_record():
    with _launches.cpu_hogs(1, nice=0) as pids:
        assert _nice(pids[0]) == 0  # set before the shell runs, whatever this process's own
        assert _session_nice(pids[0]) == (0 if _launches.AUTOGROUP.exists() else None)
    record = _launches.hog_record(2, 0)
    assert record["cpu_hogs"] == 2 and record["hog"].endswith("at nice 0")
    assert record["session_nice"] == (0 if _launches.AUTOGROUP.exists() else None)
