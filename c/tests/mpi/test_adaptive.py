# SPDX-License-Identifier: BSD-3-Clause
"""--nrep auto and --sizes auto on real ranks: all ranks stop after the same repetition,
meta.json records the rule's verdict, the precision it reports is the one the analysis's own
statistics give on raw.csv's valid run times, the time budget and the maximum stop a test, a
nonblocking test's overlap phase pairs the blocking phase's count, and sizes are added where
interpolation is worst; bad input is refused on every rank."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import NO_EXTRA_CALLS, assert_refused, read_launch, rule_runtimes, run_bench
from scipy import stats
from scipy.stats import mstats

from mpimeter.stats import dependence


def _precision(rule: str, x: np.ndarray, resolution_ns: float) -> float | None:
    """The precision the rule decides on, from the valid run times in repetition order: their
    dependence widens it (mpimeter.stats.dependence, the twin of the binary's decision)."""
    if rule == "ci":
        p = dependence.precision_ci(x, 0.95)
        return None if not np.isfinite(p) else p
    if x.size < 4:
        return None
    se = float(mstats.trimmed_stde(x, limits=(0.25, 0.25)))
    iid = max(se / stats.trim_mean(x, 0.25), resolution_ns / x.sum())
    return iid * float(np.sqrt(dependence.mean_variance_factor(dependence.sign_phi(x))))


@pytest.mark.parametrize("np_", [2, 4])
@pytest.mark.parametrize("rule", ["ci", "rse"])
def test_the_rule_stops_all_ranks_together_and_reports_the_analysis_precision(lib, np_, rule, tmp_path):
    small = lib == "mpich" and np_ > 2  # MPICH busy-polls when oversubscribed: correctness only
    nmin, nmax = (10, 20) if small else (20, 400)  # small: a decision at 10, then the maximum
    out = tmp_path / "auto"
    run_bench(lib, np_, ["--ops", "allreduce,bcast", "--sizes", "8,4096", "--nrep", f"auto:{rule}",
                         "--nrep-min", nmin, "--nrep-max", nmax, "--nrep-every", 10, "--precision", 0.05,
                         # no time budget: autocorrelated run times (a loaded machine) need more
                         # repetitions for the same precision, and the test is about the other two
                         "--nrep-budget-s", 600, "--seed", 14, "--out", out], timeout=600)
    meta, raw = read_launch(out)
    assert meta["config"]["nrep"] == nmax
    assert meta["config"]["nrep_auto"]["rule"] == rule and meta["config"]["nrep_auto"]["every"] == 10
    for t in meta["tests"]:
        a = t["adaptive"]
        assert t["status"] == "complete" and t["ended_by"] == "rule" and a["rule"] == rule
        assert nmin <= t["nrep"] <= nmax and t["nrep_asked"] == nmax
        assert t["nrep"] % 10 == 0 or t["nrep"] == nmax  # decisions every 10 repetitions
        assert a["decisions"] == -(-t["nrep"] // 10)
        # every rank recorded the same repetitions: rows 0 .. nrep-1 per rank
        rows = raw[raw["test"] == t["test"]]
        assert sorted(rows.groupby("rank").size().unique()) == [t["nrep"]]
        assert len(rows) == np_ * t["nrep"]
        x = rule_runtimes(lib, meta, raw, t["test"])
        assert a["valid"] == x.size
        expected = _precision(rule, x, meta["timer"]["resolution_ns"])
        if expected is None:
            assert a["precision"] is None
        else:
            assert a["precision"] == pytest.approx(expected, rel=1e-9)
        if a["stopped_by"] == "precision":
            assert a["precision"] <= 0.05
        else:
            assert a["stopped_by"] == "max" and t["nrep"] == nmax


def test_the_maximum_and_the_time_budget_end_a_test(lib, tmp_path):
    # rse at the smallest precision the option takes (a millionth): below what 40 repetitions of
    # a microsecond allow (the clock's term alone, 1 ns over 40 µs, is 2.5e-5) and what 0.3 s of
    # them reach (their spread over the square root of their number): never reached, where the
    # median's interval could be exactly 0 on tied integer nanoseconds
    out = tmp_path / "max"
    run_bench(lib, 2, ["--ops", "allreduce", "--sizes", "8", "--nrep", "auto:rse", "--nrep-max", 40,
                       "--nrep-min", 10, "--precision", 1e-6, "--out", out])
    meta, _ = read_launch(out)
    (t,) = meta["tests"]
    assert (t["nrep"], t["adaptive"]["stopped_by"]) == (40, "max")
    out = tmp_path / "budget"
    run_bench(lib, 2, ["--ops", "allreduce", "--sizes", "8", "--nrep", "auto:rse", "--nrep-max", 10000000,
                       "--precision", 1e-6, "--nrep-budget-s", 0.3, "--procsync", "barrier", "--out", out],
              timeout=300)
    meta, raw = read_launch(out)
    (t,) = meta["tests"]
    assert t["adaptive"]["stopped_by"] == "budget" and t["ended_by"] == "rule"
    # the budget is judged at the decisions (every 10), whatever --nrep-min says
    assert 10 <= t["nrep"] < 10000000 and t["nrep"] % 10 == 0 and len(raw) == 2 * t["nrep"]
    assert t["duration_s"] < 30


def test_a_nonblocking_test_pairs_the_blocking_phase_count(lib, tmp_path):
    out = tmp_path / "nbc"
    run_bench(lib, 2, ["--ops", "iallreduce", "--sizes", "8", "--nrep", "auto", "--nrep-max", 200,
                       "--precision", 0.1, "--out", out])
    meta, raw = read_launch(out)
    (t,) = meta["tests"]
    assert t["adaptive"]["stopped_by"] in ("precision", "max")
    assert t["nbc"]["blocking_nrep"] == t["nrep"] and len(raw) == 2 * t["nrep"]
    assert raw["blocking_ns"].notna().all()  # every overlap repetition has its blocking pair


@pytest.mark.parametrize("np_", [2, 4])
def test_sizes_are_added_where_interpolation_is_worst(lib, np_, tmp_path):
    out = tmp_path / "sizes"
    # the refinement is under test, not the timing: a barrier start and a launch budget that a busy
    # machine cannot use up (with the default 240 s over 34 tests, the added sizes, which come last,
    # ended by budget, incomplete, at load 25)
    # MPICH busy-polls when oversubscribed: each repetition a scheduler slice, so fewer of them
    nrep = 4 if (lib == "mpich" and np_ > 2) else 10
    run_bench(lib, np_, ["--ops", "allreduce,bcast", "--sizes", "auto:8:65536", "--sizes-budget", 3,
                         "--sizes-precision", 0.01, "--nrep", nrep, "--procsync", "barrier",
                         "--launch-budget-s", 3000, "--seed", 7, *NO_EXTRA_CALLS, "--out", out], timeout=1200)
    meta, raw = read_launch(out)
    grid = [8 * 2 ** k for k in range(14)]
    assert meta["config"]["sizes"] == grid and meta["config"]["sizes_auto"]["budget"] == 3
    refined = {r["op"]: r for r in meta["size_refinement"]}
    assert set(refined) == {"allreduce", "bcast"}
    for op, r in refined.items():
        tests = [t for t in meta["tests"] if t["op"] == op]
        added = [t for t in tests if t["size_added"]]
        assert [t["size"] for t in sorted(added, key=lambda t: t["refine_round"])] == r["added"]
        assert len(added) <= 3 and r["stopped_by"] in ("precision", "budget")
        assert r["stopped_by"] == "precision" or len(added) == 3
        assert sorted(t["size"] for t in tests if not t["size_added"]) == grid
        for t in added:
            assert t["size"] not in grid and t["size"] % 4 == 0 and 8 < t["size"] < 65536
            assert t["refine_round"] >= 1 and t["status"] == "complete"
            assert (raw["test"] == t["test"]).sum() == np_ * t["nrep"]
    assert [t["test"] for t in meta["tests"]] == list(range(len(meta["tests"])))
    assert all(t["refine_round"] == 0 for t in meta["tests"] if not t["size_added"])


@pytest.mark.parametrize("args, needle", [
    (["--nrep", "auto", "--nrep", "300"], "--nrep: given more than once ('auto', then '300')"),
    (["--nrep", "300", "--nrep-min", "5"], "--nrep-min 5 applies only to --nrep auto[:RULE]"),
    (["--nrep", "auto", "--precision", "0"], "--precision: 0 is out of range"),
    (["--nrep", "auto", "--precision", "1"], "--precision: 1 is out of range"),
    (["--nrep", "auto", "--nrep-min", "9", "--nrep-max", "8"], "--nrep-min 9 is above --nrep-max 8"),
    (["--sizes", "auto:64:8"], "--sizes auto:64:8: the bounds must increase"),
    (["--sizes", "auto:8:17179869184"], "--sizes auto:8:17179869184: size 8589934592 is too large"),
])
def test_bad_input_is_refused_on_every_rank(lib, args, needle, tmp_path):
    assert_refused(lib, args, needle, tmp_path)


def test_sizes_beyond_memory_are_refused(lib, tmp_path):
    # 2^30 ints per buffer on each of 2 ranks, alltoall's p buffers: beyond this machine's memory
    assert_refused(lib, ["--ops", "alltoall", "--sizes", "auto:8:4294967296", "--datatype", "long"],
                   "--sizes 4294967296", tmp_path)
