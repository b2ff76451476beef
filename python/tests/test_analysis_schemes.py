# SPDX-License-Identifier: BSD-3-Clause
"""The schemes on campaigns, launch by launch (mpimeter.analysis.schemes), and their commands
(`mpimeter schemes`, `mpimeter analyze --scheme`): hand-made launches whose numbers are computed
by hand, --raw reduced launches, and imported ones (what each can give, and why not)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mpimeter import analysis
from mpimeter.analysis import schemes
from mpimeter.cli import main
from mpimeter.io.peers import read_peer

from test_io_peers import IMB, OSU_FULL, OSU_LAT, REP_BARRIER, REP_WINDOW

HEADER = "test,op,size,rank,rep,start_ns,end_ns,valid,gstart_ns,gend_ns"
# rank × repetition local run times (ns); the last repetition is invalid on rank 1 and must be dropped
LOCAL = [[1, 2, 3, 4, 500], [2, 2, 10, 1, 900]]


def hand_launch(folder: Path, *, reduced: bool = False, factor: int = 1, global_clock: bool = False) -> Path:
    """With ``global_clock``: gstart/gend on a clock where rank 1 starts 5 ns after rank 0."""
    folder.mkdir(parents=True)
    rows = [HEADER]
    if reduced:
        for rep in range(5):
            dur = max(LOCAL[0][rep], LOCAL[1][rep]) * factor
            rows.append(f"0,allreduce,8,-1,{rep},{1000 * rep},{1000 * rep + dur},{int(rep < 4)},,")
    else:
        for rank in (0, 1):
            for rep, dur in enumerate(LOCAL[rank]):
                g = f"{1000 * rep + 5 * rank},{1000 * rep + 5 * rank + dur * factor}" if global_clock else ","
                rows.append(f"0,allreduce,8,{rank},{rep},{1000 * rep},{1000 * rep + dur * factor},"
                            f"{int(rank == 0 or rep < 4)},{g}")
    (folder / "raw.csv").write_text("\n".join(rows) + "\n")
    meta = {"schema_version": 3, "status": "complete", "nprocs": 2,
            "config": {"raw": "reduced" if reduced else "full", "nrep": 5,
                       "clocksync": "hca3" if global_clock else "none", "procsync": "barrier"},
            "clock_sync": {"method": "hca3" if global_clock else "none"}, "proc_sync": {"method": "barrier"},
            "tests": [{"test": 0, "op": "allreduce", "size": 8, "status": "complete", "nrep": 5}]}
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


def hand_campaign(root: Path, **kw) -> Path:
    hand_launch(root / "launches/000", **kw)
    hand_launch(root / "launches/001", factor=3, **kw)
    return root


def rows_of(path, names=schemes.NAMES):
    campaign = analysis.load_campaign(path, cache=False, store=False)
    ours = analysis.analyze(campaign)
    rows, warnings = schemes.scheme_rows(campaign, names, ours, cache=False)
    return {r.scheme: r for r in rows}, warnings


LOCAL_SCHEMES = tuple(n for n in schemes.NAMES if n != "mpiblib-global")  # PS4 needs a global clock


def test_every_scheme_on_per_rank_data(tmp_path):
    got, warnings = rows_of(hand_campaign(tmp_path / "c"), LOCAL_SCHEMES)
    # launch 0: maxima 2, 2, 10, 4 (the invalid repetition dropped); launch 1: three times that;
    # mpptest: rank 0's fastest repetition, 1
    expect = {"skampi": 3.0, "mpiblib": 4.5, "osu": 3.125, "mpibench": 3.125, "imb": 3.75, "ours": 3.0,
              "mpptest": 1.0}
    for name, value in expect.items():
        r = got[name]
        assert r.launches == 2 and r.per_launch_ns == pytest.approx((value, 3 * value)), name
        assert r.headline_ns == pytest.approx(2 * value)  # the median of two launches: their mean
        assert r.ci_low_ns is None  # two launches are too few for an interval
    assert got["imb"].stats_ns == pytest.approx({"t_max": 7.5, "t_min": 5.0, "t_avg": 6.25})
    assert got["skampi"].removed == 4  # 2 trimmed per launch
    assert not [w for w in warnings if w.code == "scheme-not-computable"]
    assert schemes.spread_across(list(got.values())) == pytest.approx(4.5 / 1.0)  # mpiblib over mpptest


def test_mpiblib_on_global_times_and_mpptest(tmp_path):
    """PS4: per repetition the latest global end minus rank 0's global start. Launch 0: rank 1
    starts 5 ns later, so max(d0, 5 + d1) over the valid repetitions = 7, 7, 15, 6 (mean 8.75);
    launch 1 (durations × 3): 11, 11, 35, 12 (mean 17.25). PS7: rank 0's minimum, 1 and 3."""
    got, warnings = rows_of(hand_campaign(tmp_path / "c", global_clock=True), ("mpiblib-global", "mpptest"))
    ps4 = got["mpiblib-global"]
    assert ps4.per_launch_ns == pytest.approx((8.75, 17.25)) and ps4.headline_ns == pytest.approx(13.0)
    assert ps4.stats_ns["min"] == pytest.approx((6 + 11) / 2) and ps4.stats_ns["max"] == pytest.approx((15 + 35) / 2)
    assert got["mpptest"].per_launch_ns == pytest.approx((1.0, 3.0))
    assert not warnings
    # without a global clock PS4 says why, and mpptest still has rank 0's times
    got, warnings = rows_of(hand_campaign(tmp_path / "local"), ("mpiblib-global",))
    assert got["mpiblib-global"].headline_ns is None and "needs a global clock" in got["mpiblib-global"].why
    assert {w.code for w in warnings} == {"scheme-not-computable"}


def test_reduced_launches_give_the_schemes_on_the_maximum_only(tmp_path):
    got, warnings = rows_of(hand_campaign(tmp_path / "c", reduced=True))
    assert got["skampi"].per_launch_ns == pytest.approx((3.0, 9.0))
    assert got["mpiblib"].per_launch_ns == pytest.approx((4.5, 13.5))
    for name in ("osu", "mpibench", "imb"):
        assert got[name].headline_ns is None and "needs each rank's times" in got[name].why
    assert got["mpptest"].headline_ns is None and "needs rank 0's times" in got["mpptest"].why
    assert {w.code for w in warnings} == {"scheme-not-computable"}


def test_imported_aggregates_give_what_the_tool_printed(tmp_path):
    r = CliRunner().invoke(main, ["import", "imb", str(IMB), "--out", str(tmp_path / "imb")])
    assert r.exit_code == 0, r.output
    campaign = analysis.load_campaign(tmp_path / "imb", cache=False, store=False)
    rows, _ = schemes.scheme_rows(campaign, schemes.NAMES, analysis.analyze(campaign), cache=False)
    by = {(r.op, r.size, r.scheme): r for r in rows}
    assert by[("allreduce", 1024, "imb")].headline_ns == 720  # t_max
    assert by[("allreduce", 1024, "imb")].stats_ns == {"t_max": 720, "t_min": 710, "t_avg": 710}
    assert by[("allreduce", 1024, "osu")].headline_ns == 710  # IMB's t_avg is OSU's avg of the same means
    assert by[("pingpong-send-recv", 8, "imb")].headline_ns == 180  # IMB's t of a single transfer
    assert by[("pingpong-send-recv", 8, "osu")].headline_ns is None
    for s in ("ours", "skampi", "mpiblib", "mpibench"):
        assert by[("bcast", 8, s)].headline_ns is None and by[("bcast", 8, s)].why


def test_imported_osu_and_reprompi(tmp_path):
    for tool, f, name, extra in (("osu", OSU_FULL, "osu", ["--np", "2"]), ("osu", OSU_LAT, "lat", []),
                                 ("reprompi", REP_BARRIER, "barrier", []), ("reprompi", REP_WINDOW, "window", [])):
        assert CliRunner().invoke(main, ["import", tool, str(f), "--out", str(tmp_path / name), *extra]).exit_code == 0
    campaign = analysis.load_campaigns([tmp_path / n for n in ("osu", "lat", "barrier", "window")], cache=False,
                                       store=False)
    rows, _ = schemes.scheme_rows(campaign, schemes.NAMES, analysis.analyze(campaign), cache=False)
    by = {(r.alternative, r.op, r.size, r.scheme): r for r in rows}
    assert by[("osu", "allreduce", 8192, "imb")].headline_ns == 16630  # OSU's Max = IMB's t_max
    assert by[("osu", "allreduce", 8192, "osu")].stats_ns == {"avg": 14500, "min": 12370, "max": 16630}
    assert by[("lat", "pingpong-send-recv", 1, "osu")].headline_ns == 400
    assert by[("lat", "pingpong-send-recv", 1, "imb")].headline_ns is None  # rank 0 only: no max over ranks
    run = read_peer("reprompi", REP_BARRIER)
    rt = [t for t in run.tests if (t.op, t.size) == ("bcast", 1024)][0].run_times_ns
    assert by[("barrier", "bcast", 1024, "mpiblib")].headline_ns == pytest.approx(sum(rt) / len(rt))
    assert by[("barrier", "bcast", 1024, "skampi")].headline_ns is not None
    assert by[("barrier", "bcast", 1024, "osu")].headline_ns is None
    win = by[("window", "allreduce", 1024, "skampi")]
    assert win.headline_ns is None and "global run times" in win.why
    assert by[("window", "allreduce", 1024, "ours")].headline_ns is not None


def test_schemes_command_and_analyze_scheme(tmp_path):
    c = hand_campaign(tmp_path / "c")
    r = CliRunner().invoke(main, ["schemes", str(c), "--no-cache"])
    assert r.exit_code == 0, r.output
    for name in schemes.NAMES:
        assert name in r.output
    assert "4.500" in r.output  # max/min: mpiblib 9 ns over mpptest's 2 ns
    r = CliRunner().invoke(main, ["schemes", str(c), "--no-cache", "--format", "json"])
    doc = json.loads(r.output)
    assert doc["command"] == "schemes" and doc["rows"][0]["schemes"]["imb"]["headline_ns"] == pytest.approx(7.5)
    r = CliRunner().invoke(main, ["analyze", str(c), "--no-cache", "--scheme", "osu", "--format", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["scheme"] == "osu" and doc["rows"][0]["stats_ns"] == pytest.approx({"avg": 6.25, "min": 5.0,
                                                                                     "max": 7.5})
    r = CliRunner().invoke(main, ["analyze", str(c), "--no-cache", "--scheme", "skampi"])
    assert r.exit_code == 0 and "mean of the central half" in r.output
    r = CliRunner().invoke(main, ["analyze", str(c), "--scheme", "skampi", "--outlier", "none"])
    assert r.exit_code == 2 and "--outlier applies to --scheme ours only" in r.output


def test_analyze_scheme_says_removed_is_a_sum_over_the_launches(tmp_path):
    """The footer called every column but the headline a median of the launches' values; `removed`
    is their sum (SKaMPI's trimming: about half of each launch's repetitions, so the column read
    as more than a launch holds)."""
    c = hand_campaign(tmp_path / "c")
    r = CliRunner().invoke(main, ["analyze", str(c), "--no-cache", "--scheme", "skampi", "--format", "json"])
    (row,) = json.loads(r.output)["rows"]
    assert row["launches"] == 2 and row["removed"] == 4  # 2 of each launch's 4 valid maxima: a sum, not a median
    r = CliRunner().invoke(main, ["analyze", str(c), "--no-cache", "--scheme", "skampi"], env={"COLUMNS": "400"})
    assert r.exit_code == 0, r.output
    assert "removed: the values the scheme's filter dropped, summed over the launches" in r.output
    assert "the other columns are medians" not in r.output


def test_mw_workpieces_get_a_row_per_number_of_pieces(tmp_path):
    # `schemes` of `--workpieces 1,4,16` keyed a launch's values by (op, size, p, root): the
    # tests of each number of pieces overwrote one another (the last kept), and `ours` took one
    # row of analyze's three — one line mixing 1, 4 and 16 µs work
    from test_analysis_workpieces import NS_PER_PIECE, PIECES, pieces_launch

    camp = tmp_path / "mw"
    for i in range(3):
        pieces_launch(camp / "launches" / f"{i:03d}", seed=i, sizes=(8,))
    result = CliRunner().invoke(main, ["schemes", str(camp), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = [r for r in json.loads(result.stdout)["rows"] if r["op"] == "mw-workpieces"]
    assert sorted({r["workpieces"] for r in rows}) == list(PIECES)
    for r in rows:  # every scheme of a row is of its own number of pieces: 1 µs a piece (+ 8 ns)
        expected = NS_PER_PIECE * r["workpieces"] + 8
        computed = [s for s in r["schemes"].values() if s["headline_ns"] is not None]
        assert len(computed) >= 6, r
        for s in computed:  # a minimum (mpptest) or a maximum over ranks lies around it, not a piece away
            assert s["launches"] == 3 and s["workpieces"] == r["workpieces"], s
            assert 0.5 < s["headline_ns"] / expected < 2, (r["workpieces"], s["scheme"], s["headline_ns"])
    table = CliRunner().invoke(main, ["schemes", str(camp)], env={"COLUMNS": "250"})
    assert table.exit_code == 0 and "workpieces" in table.stdout, table.output
    one = CliRunner().invoke(main, ["analyze", str(camp), "--scheme", "skampi", "--format", "json"])
    assert one.exit_code == 0, one.output
    assert sorted(r["workpieces"] for r in json.loads(one.stdout)["rows"] if r["op"] == "mw-workpieces") == list(PIECES)
