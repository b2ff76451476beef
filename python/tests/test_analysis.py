# SPDX-License-Identifier: BSD-3-Clause
"""mpimeter.analysis end to end on golden folders and in-memory campaigns."""

import csv

import numpy as np
import pytest
from data.synth import memory_campaign, write_campaign, write_launch
from data.testkit import golden_copy

from mpimeter import analysis
from mpimeter.stats import outliers


def manual_launch_medians(folder, op, size, outlier="tukey"):
    """Per-launch medians computed by hand from raw.csv: global run time, valid only, filter."""
    out = []
    for launch in sorted((folder / "launches").iterdir()):
        reps: dict[int, list] = {}
        with open(launch / "raw.csv") as f:
            for row in csv.DictReader(f):
                if row["op"] == op and int(row["size"]) == size:
                    reps.setdefault(int(row["rep"]), []).append(row)
        times = np.array([max(int(r["gend_ns"]) for r in rs) - min(int(r["gstart_ns"]) for r in rs)
                          for _, rs in sorted(reps.items()) if all(r["valid"] == "1" for r in rs)], dtype=float)
        out.append(float(np.median(times[outliers.keep_mask(times, outlier)])))
    return out


def test_per_launch_medians_match_a_hand_computation(tmp_path):
    camp = golden_copy(tmp_path, "campaign_a")
    res = analysis.analyze(analysis.load_campaign(camp))
    for op, size in (("allreduce", 8), ("bcast", 1024)):
        row = res.row(op, size)
        assert [s.median_ns for s in row.per_launch] == manual_launch_medians(camp, op, size)
        assert row.median_ns == pytest.approx(np.median(manual_launch_medians(camp, op, size)))
        assert row.launches == 4
        assert row.median_ci_low_ns is None  # 4 launches: no 95 % interval
        assert row.clock == "global-online"


def test_rows_have_intervals_and_spread_with_enough_launches(tmp_path):
    write_campaign(tmp_path / "c", 8, seed=3, nrep=40)
    res = analysis.analyze(analysis.load_campaign(tmp_path / "c"))
    for row in res.rows:
        meds = sorted(s.median_ns for s in row.per_launch)
        assert (row.median_ci_low_ns, row.median_ci_high_ns) == (meds[0], meds[-1])  # n = 8 → ranks 1, 8
        assert row.spread == pytest.approx(meds[-1] / meds[0])
        assert row.mean_ci_low_ns < row.mean_ns < row.mean_ci_high_ns
        assert row.repetitions == 8 * 40
    assert not any(w.code in ("too-few-launches", "one-launch") for w in res.warnings)


def test_outlier_methods_change_what_is_removed(tmp_path):
    camp = analysis.load_campaign(golden_copy(tmp_path, "campaign_a"))
    removed = {m: sum(r.outliers_removed for r in analysis.analyze(camp, outlier=m).rows)
               for m in ("none", "tukey", "mpibench", "trim25")}
    assert removed["none"] == 0
    assert removed["trim25"] == 16 * 10  # 16 launch tests × (5 + 5) of 20
    assert removed["tukey"] > 0
    with pytest.raises(analysis.AnalysisError, match="unknown outlier filter"):
        analysis.analyze(camp, outlier="grubbs")


def test_warmup_is_categorized_and_can_be_dropped(tmp_path):
    write_launch(tmp_path / "w" / "launches" / "000", seed=5, nrep=200, warmup_reps=30, ops=("allreduce",), sizes=(8,))
    camp = analysis.load_campaign(tmp_path / "w")
    res = analysis.analyze(camp, outlier="none")
    s = res.rows[0].per_launch[0]
    assert s.warmup_length == 29 and s.n_first == 1 and s.n_warmup == 29
    reps = res.repetitions
    assert list(reps["category"][:31]) == ["first"] + ["warmup"] * 29 + [reps["category"][30]]
    assert any(w.code == "long-warmup" for w in res.warnings)
    dropped = analysis.analyze(camp, outlier="none", drop_warmup=True)
    d = dropped.rows[0].per_launch[0]
    assert d.n_warmup_dropped == 30 and d.n == 170
    assert d.max_ns < s.max_ns
    assert not dropped.repetitions["kept"][:30].any()


def test_resync_clock_is_used_and_beats_the_online_clock(tmp_path):
    # the same launches without drift are the truth for the drifting ones. The synthetic ranks start
    # together in true time, not at a start planned on the (drifting) online clock: a barrier, not a
    # window, whose online start spread the start-spread check would rightly refuse
    write_campaign(tmp_path / "drift", 2, seed=9, syncs=4, drift_ppm=300.0, nrep=50, procsync="barrier")
    write_campaign(tmp_path / "truth", 2, seed=9, syncs=4, drift_ppm=0.0, nrep=50, procsync="barrier")
    drift = analysis.analyze(analysis.load_campaign(tmp_path / "drift"))
    truth = analysis.analyze(analysis.load_campaign(tmp_path / "truth"))
    online = analysis.analyze(analysis.load_campaign(tmp_path / "drift"), clock="online")
    assert "recomputed after the fact" in drift.clock_note
    assert all(li.clock == "global-resync" for li in drift.provenance)
    for row, t, o in zip(drift.rows, truth.rows, online.rows):
        assert abs(row.median_ns - t.median_ns) <= 10  # rounding and the synthetic clock's approximation
        assert abs(o.median_ns - t.median_ns) > 100  # the online clock drifted away


def test_one_sync_uses_the_online_clock_and_no_sync_the_local_one(tmp_path):
    res = analysis.analyze(analysis.load_campaign(golden_copy(tmp_path, "local_only")))
    assert {r.clock for r in res.rows} == {"local"}
    assert "local clock" in res.clock_note
    on = analysis.analyze(analysis.load_campaign(golden_copy(tmp_path, "campaign_a")))
    assert {r.clock for r in on.rows} == {"global-online"}
    loc = analysis.analyze(analysis.load_campaign(golden_copy(tmp_path, "campaign_a")), clock="local")
    assert {r.clock for r in loc.rows} == {"local"}
    assert all(r.median_ns != o.median_ns for r, o in zip(loc.rows, on.rows))


def test_bandwidth_of_point_to_point_rows_is_a_harmonic_mean(tmp_path):
    res = analysis.analyze(analysis.load_campaign(golden_copy(tmp_path, "pingpong")))
    for row in res.rows:
        rates = [s.bandwidth_Bps for s in row.per_launch]
        assert row.bandwidth_Bps == pytest.approx(len(rates) / sum(1 / r for r in rates))
        assert row.bandwidth_Bps < np.mean(rates) or np.ptp(rates) == 0
    assert analysis.analyze(analysis.load_campaign(golden_copy(tmp_path, "campaign_a"))).rows[0].bandwidth_Bps is None


def test_one_launch_says_the_between_launch_variance_is_unknown(tmp_path):
    write_launch(tmp_path / "one" / "launches" / "000", seed=1)
    res = analysis.analyze(analysis.load_campaign(tmp_path / "one" / "launches" / "000"))
    w = [w for w in res.warnings if w.code == "one-launch"]
    assert w and "between-launch variance is unknown" in w[0].message
    assert res.alternatives == ("one",)


def test_incomplete_launch_contributes_its_finished_tests(tmp_path):
    res = analysis.analyze(analysis.load_campaign(golden_copy(tmp_path, "incomplete")))
    counts = {(r.op, r.size): r.launches for r in res.rows}
    assert sorted(counts.values()) == [2, 2, 3, 3]
    assert any(w.code == "incomplete-launch" for w in res.warnings)


def test_machine_load_and_sync_residual_warnings(tmp_path):
    write_campaign(tmp_path / "busy", 3, seed=4, load_other_cpu_s=4.0, residual_ns=5000)
    res = analysis.analyze(analysis.load_campaign(tmp_path / "busy"))
    by_code = {w.code: w for w in res.warnings}
    for code in ("machine-load", "sync-residual"):  # one warning each, naming the three launches
        w = by_code[code]
        assert w.count == 3 and w.message.startswith("3 cases; ") and w.where == "busy/000, busy/001, busy/002"
    assert "other processes used 40 %" in by_code["machine-load"].message
    quiet = analysis.analyze(analysis.load_campaign(golden_copy(tmp_path, "campaign_a")))
    assert not {"machine-load", "sync-residual"} & {w.code for w in quiet.warnings}


def test_rank_tests_name_the_slowest_rank(tmp_path):
    res = analysis.analyze(analysis.load_campaign(golden_copy(tmp_path, "campaign_a")))
    # synth: the last rank ends last, the others earlier → rank 1 is the slowest of 2 in each of the 4
    # launches; the exact sign test over launches gives 2 / 2**4, the smallest p 4 launches allow
    for t in res.rank_tests:
        assert t.slowest_ranks[0] == 1 and t.p_value == pytest.approx(0.125) and not t.differ
    d = res.rank_durations(op="bcast", size=8)
    assert set(d["rank"]) == {0, 1} and (d["duration_ns"] > 0).all()


def test_analysis_result_is_frozen_and_serializable(tmp_path):
    res = analysis.analyze(analysis.load_campaign(golden_copy(tmp_path, "campaign_a")))
    with pytest.raises(AttributeError):
        res.rows = ()
    d = res.to_dict()
    need = {"op", "size", "launches", "median_ns", "median_ci_low_ns", "median_ci_high_ns", "mean_ns", "spread",
            "outliers_removed"}
    assert need <= set(d["rows"][0])
    assert {"code", "message", "hint"} <= set(d["warnings"][0])
    assert d["provenance"][0]["mpi_library_version"].startswith("Open MPI")


# --- compare and gate ---------------------------------------------------------------------


TESTS = [("allreduce", 8), ("allreduce", 1024), ("bcast", 8), ("bcast", 1024)]


def draw(rng, launches, shift=1.0, sigma=0.02, nrep=60):
    base = np.array([2000.0, 2600, 2500, 3100])[None, :, None]
    return base * shift * rng.lognormal(0, sigma, (launches, 1, 1)) * (1 + rng.lognormal(-3, 0.6, (launches, 4, nrep)))


def test_compare_detects_a_shift_and_gives_its_ratio(tmp_path):
    res = analysis.analyze(analysis.load_campaigns([golden_copy(tmp_path, "campaign_a"),
                                                    golden_copy(tmp_path, "campaign_b")]))
    cmp = analysis.compare(res, alternative="less")
    assert cmp.groups == ("campaign_a", "campaign_b") and cmp.correction == "holm"
    for r in cmp.rows:
        assert r.ratio == pytest.approx(r.median_b_ns / r.median_a_ns, rel=0.05)  # Hodges–Lehmann, not equal
        assert 1.2 < r.ratio < 1.4
        assert r.p_value == pytest.approx(1 / 70)  # 4 vs 4, complete separation, exact
        assert r.p_adjusted == pytest.approx(min(1, 4 / 70))
        assert r.stars == "" and not r.significant
    assert any(w.code == "low-power" for w in cmp.warnings)


def test_compare_end_to_end_aa_and_ab():
    rng = np.random.default_rng(99)
    clean = 0
    trials = 60
    for _ in range(trials):
        res = analysis.analyze(memory_campaign({"a": draw(rng, 10), "b": draw(rng, 10)}, TESTS))
        clean += not any(r.significant for r in analysis.compare(res).rows)
    assert clean / trials >= 0.9  # the ≥ 95 % figure is in test_stats_simulation (2000 trials)
    for _ in range(3):
        res = analysis.analyze(memory_campaign({"a": draw(rng, 30), "b": draw(rng, 30, shift=1.03)}, TESTS))
        cmp = analysis.compare(res, alternative="less")
        assert all(r.significant and r.stars for r in cmp.rows)
        assert all(r.ratio_ci_low < 1.03 * 1.01 and r.ratio_ci_high > 1.0 for r in cmp.rows)


def test_compare_refuses_fewer_than_3_launches_unless_per_repetition():
    rng = np.random.default_rng(1)
    res = analysis.analyze(memory_campaign({"a": draw(rng, 2), "b": draw(rng, 5)}, TESTS))
    with pytest.raises(analysis.AnalysisError, match="a has 2 launches.*--per-repetition"):
        analysis.compare(res)
    cmp = analysis.compare(res, per_repetition=True)
    assert "repetitions pooled" in cmp.test
    assert any(w.code == "per-repetition" and "launch effect is ignored" in w.message for w in cmp.warnings)


def test_compare_more_than_two_groups_runs_kruskal_wallis_then_pairs():
    rng = np.random.default_rng(2)
    res = analysis.analyze(memory_campaign(
        {"a": draw(rng, 8), "b": draw(rng, 8), "c": draw(rng, 8, shift=1.2)}, TESTS))
    cmp = analysis.compare(res)
    assert len(cmp.omnibus) == 4 and all(o.p_adjusted < 0.05 for o in cmp.omnibus)
    # ε² = H / (n − 1) beside p, over the 3 × 8 per-launch medians
    assert all(o.epsilon_squared == pytest.approx(o.statistic / 23) for o in cmp.omnibus)
    assert all(0.2 < o.epsilon_squared <= 1 for o in cmp.omnibus)
    assert {(r.a, r.b) for r in cmp.rows} == {("a", "b"), ("a", "c"), ("b", "c")}
    assert len(cmp.rows) == 12
    assert all(r.significant for r in cmp.rows if r.b == "c")


def test_compare_with_nothing_in_common_is_refused(tmp_path):
    res = analysis.analyze(analysis.load_campaigns([golden_copy(tmp_path, "disjoint_a"),
                                                    golden_copy(tmp_path, "disjoint_b")]))
    with pytest.raises(analysis.AnalysisError, match="no \\(op, size\\) in common"):
        analysis.compare(res)


def test_gate_flags_only_slowdowns_beyond_the_threshold():
    rng = np.random.default_rng(3)
    base = analysis.analyze(memory_campaign({"base": draw(rng, 12)}, TESTS))
    slower = analysis.analyze(memory_campaign({"cand": draw(rng, 12, shift=1.10)}, TESTS))
    same = analysis.analyze(memory_campaign({"cand": draw(rng, 12)}, TESTS))
    g = analysis.gate(base, slower, max_slowdown=0.03)
    assert not g.passed and len(g.regressions) == 4
    assert analysis.gate(base, slower, max_slowdown=0.20).passed
    assert analysis.gate(base, same, max_slowdown=0.03).passed
    with pytest.raises(analysis.AnalysisError):
        analysis.gate(base, analysis.analyze(memory_campaign({"c": draw(rng, 2)}, TESTS)))
