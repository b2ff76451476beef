# SPDX-License-Identifier: BSD-3-Clause
"""Ping-pongs and the systematic overhead of one measurement:

- an op whose timed call the binary calls a round trip (meta.json ``operations[op].round_trip``)
  is reported as the one-way latency, half of every repetition's run time, and its bandwidth is
  size / one-way latency (harmonic mean); the same op without the flag is left as it is;
- ``probes.empty_region_ns`` is shown by ``analyze`` (table, JSON) and the HTML report as the
  systematic overhead of one measurement, never subtracted; launches without it are read.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from data.synth import write_launch

from mpimeter import analysis
from mpimeter.cli.analyze import command as analyze_command
from mpimeter.report.html_report import build_report


def _launch(folder: Path, *, round_trip: bool | None, empty_ns: float | None = None, seed: int = 5,
            nprocs: int = 1) -> Path:
    # one rank by default: its rows are the run time with the flag or without (a round trip's
    # initiator alone: test_a_round_trip_is_its_initiators_call_alone)
    write_launch(folder, seed=seed, ops=("pingpong",), sizes=(8, 4096), nrep=60, schema=2, nprocs=nprocs)
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text())
    if round_trip is not None:
        meta["operations"]["pingpong"]["round_trip"] = round_trip
    if empty_ns is not None:
        meta["probes"]["empty_region_ns"] = empty_ns
    meta_path.write_text(json.dumps(meta))
    return folder


def _analyze(folder: Path, **kw) -> analysis.AnalysisResult:
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False), **kw)


@pytest.mark.parametrize("clock", ["auto", "local"])
def test_round_trips_are_halved_into_one_way_latency(tmp_path, clock):
    plain = _analyze(_launch(tmp_path / "plain", round_trip=None), clock=clock, outlier="none")
    halved = _analyze(_launch(tmp_path / "rt", round_trip=True), clock=clock, outlier="none")
    for p, h in zip(plain.rows, halved.rows, strict=True):
        assert (p.op, p.size) == (h.op, h.size)
        assert not p.one_way and h.one_way
        assert h.median_ns == pytest.approx(p.median_ns / 2)
        assert h.mean_ns == pytest.approx(p.mean_ns / 2)
        # bandwidth = size / one-way latency, summarized with the harmonic mean
        assert h.bandwidth_Bps == pytest.approx(2 * p.bandwidth_Bps)
        rates = [s.bandwidth_Bps for s in h.per_launch]
        assert h.bandwidth_Bps == pytest.approx(len(rates) / sum(1 / r for r in rates))
    reps_plain = plain.repetitions["run_time_ns"].to_numpy()
    reps_rt = halved.repetitions["run_time_ns"].to_numpy()
    assert np.allclose(reps_rt, reps_plain / 2, equal_nan=True)


def test_explicit_false_is_a_run_time(tmp_path):
    res = _analyze(_launch(tmp_path / "f", round_trip=False))
    assert not any(r.one_way for r in res.rows)


def test_one_way_latency_function():
    from mpimeter.analysis.pipeline import one_way_latency

    assert one_way_latency(np.array([10, 7, 0])).tolist() == [5.0, 3.5, 0.0]


def test_analyze_labels_one_way_rows_and_shows_the_overhead(tmp_path):
    folder = _launch(tmp_path / "l", round_trip=True, empty_ns=31.0)
    r = CliRunner().invoke(analyze_command, [str(folder)])
    assert r.exit_code == 0, r.output
    assert "one-way" in r.output and "half the timed round trip" in r.output
    assert "systematic overhead of one measurement: 31 ns (1 launch)" in r.output
    assert "never subtracted" in " ".join(r.output.split())
    doc = json.loads(CliRunner().invoke(analyze_command, [str(folder), "--format", "json"]).output)
    assert all(row["one_way"] for row in doc["rows"])
    assert doc["measurement_overhead"] == [
        {"alternative": doc["alternatives"][0], "launches": 1, "median_ns": 31.0, "min_ns": 31.0, "max_ns": 31.0}]


def test_per_launch_table_says_which_times_are_one_way(tmp_path):
    folder = _launch(tmp_path / "l", round_trip=True)
    out = CliRunner().invoke(analyze_command, [str(folder), "--per-launch"], terminal_width=240).output
    per_launch = out[out.index("per launch"):]
    assert "time" in per_launch.splitlines()[2]  # the header row names the column
    assert sum("one-way" in line for line in per_launch.splitlines()) == 2  # one launch, sizes 8 and 4096
    plain = _launch(tmp_path / "p", round_trip=False)
    out = CliRunner().invoke(analyze_command, [str(plain), "--per-launch"], terminal_width=240).output
    assert "one-way" not in out


def test_figures_name_one_way_latency(tmp_path):
    from mpimeter.report.fingerprint import fingerprint_data
    from mpimeter.report.fingerprint_svg import fingerprint_svg
    from mpimeter.report.overview import draw_operation

    res = _analyze(_launch(tmp_path / "l", round_trip=True))
    data = fingerprint_data(res, "pingpong", 8)
    assert data.quantity == "one-way latency"
    assert "one-way latency (" in fingerprint_svg(data) and "run time (" not in fingerprint_svg(data)
    fig = draw_operation("pingpong", res.rows, res.alternatives)
    assert "one-way latency across sizes" in fig._suptitle.get_text()
    assert fig.axes[0].get_ylabel().startswith("one-way latency (")
    plain = _analyze(_launch(tmp_path / "p", round_trip=False))
    assert fingerprint_data(plain, "pingpong", 8).quantity == "run time"
    assert draw_operation("pingpong", plain.rows, plain.alternatives).axes[0].get_ylabel().startswith("run time (")


def test_overhead_is_not_subtracted(tmp_path):
    with_probe = _analyze(_launch(tmp_path / "a", round_trip=None, empty_ns=500.0))
    without = _analyze(_launch(tmp_path / "b", round_trip=None))
    assert [r.median_ns for r in with_probe.rows] == [r.median_ns for r in without.rows]


def test_launches_without_the_probe_are_read_and_say_nothing(tmp_path):
    folder = _launch(tmp_path / "old", round_trip=None)
    res = _analyze(folder)
    assert res.measurement_overhead == ()
    r = CliRunner().invoke(analyze_command, [str(folder)])
    assert r.exit_code == 0, r.output
    assert "systematic overhead" not in r.output


def test_overhead_over_launches_is_summarized_per_alternative(tmp_path):
    camp = tmp_path / "camp" / "launches"
    for i, ns in enumerate((20.0, 40.0, 30.0)):
        _launch(camp / f"{i:03d}", round_trip=True, empty_ns=ns, seed=i)
    res = _analyze(tmp_path / "camp")
    (o,) = res.measurement_overhead
    assert (o.launches, o.median_ns, o.min_ns, o.max_ns) == (3, 30.0, 20.0, 40.0)
    assert o.text(name_alternative=False) == "30 ns (3 launches: 20 ns – 40 ns)"


def test_negative_overhead_is_refused(tmp_path):
    folder = _launch(tmp_path / "neg", round_trip=None, empty_ns=-1.0)
    with pytest.raises(analysis.InputError, match="empty_region_ns"):
        _analyze(folder)


def test_report_shows_the_overhead_and_one_way_latency(tmp_path):
    res = _analyze(_launch(tmp_path / "r", round_trip=True, empty_ns=25.0))
    text, _ = build_report(res, None)
    assert "Systematic overhead of one measurement" in text
    assert "25 ns (1 launch)" in text
    assert "one-way latency" in text


def test_compare_and_gate_use_and_name_the_one_way_latency(tmp_path):
    from mpimeter.cli.compare import command as compare_command
    from mpimeter.cli.gate import command as gate_command

    folders = []
    for name in ("a", "b"):
        for i in range(3):
            _launch(tmp_path / name / "launches" / f"{i:03d}", round_trip=True, seed=10 * i + len(name))
        folders.append(tmp_path / name)
    res_a = _analyze(folders[0])
    cmp = analysis.compare([res_a, _analyze(folders[1])])
    assert all(r.one_way for r in cmp.rows)
    row = next(r for r in cmp.rows if r.size == 8)
    assert row.median_a_ns == pytest.approx(res_a.row("pingpong", 8).median_ns)
    out = CliRunner().invoke(compare_command, [str(f) for f in folders])
    assert "are one-way latencies" in " ".join(out.output.split()), out.output
    out = CliRunner().invoke(gate_command, [str(f) for f in folders])
    assert "are one-way latencies" in " ".join(out.output.split()), out.output


def test_a_round_trip_is_its_initiators_call_alone(tmp_path):
    # the answering rank's call waits for the ping (back to back, or after a barrier it left
    # first): its longer duration is not the round trip, which the initiator's call is alone
    from mpimeter.io.launch import read_launch
    from mpimeter.io.runtimes import repetition_times

    folder = tmp_path / "rt"
    write_launch(folder, seed=5, ops=("pingpong",), sizes=(8, 4096), nrep=60, schema=2, longest_rank=1)
    meta = json.loads((folder / "meta.json").read_text())
    meta["operations"]["pingpong"]["round_trip"] = True
    (folder / "meta.json").write_text(json.dumps(meta))
    raw = read_launch(folder).raw
    df = raw.to_pandas()
    df["duration"] = (df["end_ns"] - df["start_ns"]).astype(float)
    for clock in ("local", "auto"):
        for row in _analyze(folder, clock=clock, outlier="none").rows:
            of = df[(df["size"] == row.size) & (df["valid"] == 1)]
            own = float(of[of["rank"] == 0]["duration"].median())
            longer = float(of[of["rank"] == 1]["duration"].median())
            assert longer > own * 1.05  # the answering rank's calls are the longer here
            assert row.median_ns == pytest.approx(own / 2, rel=0.01), clock
    # the general (SQL) reduction gives what the blocks' fast path does
    table = analysis.load_campaign(folder, cache=False, store=False).raw
    fast = repetition_times(table, timed_ranks={"pingpong": 0})
    general = repetition_times(table, fast=False, timed_ranks={"pingpong": 0})
    assert np.array_equal(fast.local_ns, general.local_ns) and np.array_equal(fast.online_ns, general.online_ns)
    every = repetition_times(table, fast=False)
    assert (every.local_ns >= general.local_ns).all() and (every.local_ns > general.local_ns).any()
