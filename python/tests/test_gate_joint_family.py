# SPDX-License-Identifier: BSD-3-Clause
"""The gate's family with machine states, adjusted by Westfall–Young step-down min-p over a joint
relabelling of the launches within each state (stats.joint_permutation, analysis.gating;
docs/ALGORITHMS.md, "Decisions by design"): the adjusted p-values are the textbook procedure's
(Westfall & Young 1993, algorithm 2.8, checked against a direct enumeration), never above
Holm's, on either statistic (the rank sum, or the mean log: Fisher–Pitman's exact p); a
regression of one state that the rows share is found where Holm misses it, A/A with two states
and a launch-wide effect stays at its level, a state's launches_needed is at the family's own
first level, and the JSON says which adjustment and statistic ran."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from data.synth import write_state_campaign
from scipy import stats

from mpimeter.analysis import gating
from mpimeter.cli.gate import command as gate_command
from mpimeter.stats import hypothesis
from mpimeter.stats import joint_permutation as jp

NAMES = ("faster", "slower")


def _reference(blocks_values: list[list[np.ndarray]], sizes: list[tuple[int, int]], alpha: float,
               statistic: str = jp.RANK_SUM, weights: np.ndarray | None = None):
    """Westfall–Young step-down min-p by direct enumeration: tests are a state test per (block,
    row) and a row test per row (van Elteren's, or the mean-log statistic summed over the blocks);
    every combination of every block's splits. ``weights``: each test's p over its weight in the
    min-p (Westfall, Kropf & Finos 2004), the tests ordered by p / w."""
    splits = [list(itertools.combinations(range(nb + nc), nc)) for nb, nc in sizes]
    rows = len(blocks_values[0])

    def u(values, chosen):
        if statistic == jp.MEAN_LOG:  # the candidate's logs about the block's mean log
            x = np.log(values)
            return float((x[list(chosen)] - x.mean()).sum())
        r = stats.rankdata(values)  # (W − E) / (N + 1) of the units labelled candidate
        return (r[list(chosen)].sum() - len(chosen) * (values.size + 1) / 2) / (values.size + 1)
    stat = []  # per relabelling: the tests' statistics
    for combo in itertools.product(*splits):
        per_block = [[u(blocks_values[s][j], combo[s]) for j in range(rows)] for s in range(len(sizes))]
        stat.append([sum(per_block[s][j] for s in range(len(sizes))) for j in range(rows)] +
                    [per_block[s][j] for j in range(rows) for s in range(len(sizes))])
    stat = np.array(stat)
    observed_index = next(i for i, combo in enumerate(itertools.product(*splits))
                          if all(c == tuple(range(nb, nb + nc)) for c, (nb, nc) in zip(combo, sizes)))
    p = np.array([[np.mean(stat[:, k] >= stat[g, k] - 1e-9) for k in range(stat.shape[1])]
                  for g in range(stat.shape[0])])
    w = np.ones(p.shape[1]) if weights is None else np.asarray(weights, float) * p.shape[1] / np.sum(weights)
    q = p / w
    obs = p[observed_index]
    order = np.argsort(q[observed_index], kind="stable")
    adj = np.empty(obs.size)
    for step, k in enumerate(order):
        rest = order[step:]
        adj[k] = np.mean(q[:, rest].min(axis=1) <= q[observed_index, k] + 1e-12)
    running = 0.0
    for k in order:
        running = max(running, adj[k], obs[k])
        adj[k] = running
    return obs, adj


@pytest.mark.parametrize("statistic", [jp.RANK_SUM, jp.MEAN_LOG])
def test_step_down_min_p_is_the_direct_enumeration_and_never_above_holm(statistic):
    rng = np.random.default_rng(4)
    sizes = [(3, 3), (2, 4)]
    for trial in range(3):
        launch = [rng.normal(0, 0.02, nb + nc) for nb, nc in sizes]  # shared by both rows of a launch
        shift = [np.r_[np.zeros(nb), np.full(nc, 0.03 * trial)] for nb, nc in sizes]
        values = [[np.round(1000 * np.exp(launch[s] + shift[s] + rng.normal(0, 0.01, launch[s].size)), -trial)
                   for _ in range(2)] for s in range(2)]  # rounding: ties in the later trials
        obs, adj = _reference(values, sizes, 0.05, statistic)
        blocks = [jp.Block(candidate=np.r_[np.zeros(nb, bool), np.ones(nc, bool)]) for nb, nc in sizes]
        tests = [jp.JointTest(values={s: values[s][j] for s in range(2)}) for j in range(2)] + \
            [jp.JointTest(values={s: values[s][j]}) for j in range(2) for s in range(2)]
        res = jp.step_down_min_p(blocks, tests, 0.05, statistic=statistic)
        assert res.exact and res.relabellings == 20 * 15 and res.seed is None
        assert res.p_values == pytest.approx(obs, abs=1e-12)
        assert res.adjusted == pytest.approx(adj, abs=1e-12)
        assert (res.adjusted <= hypothesis.holm(res.p_values) + 1e-12).all()
        # the first step's level decides as its adjusted p does (Holm's α / m, here the family's own)
        first = int(np.argmin(obs))
        assert (res.p_values[first] <= res.levels[first] + 1e-12) == (adj[first] <= 0.05)


def test_weighted_step_down_min_p_is_the_direct_enumeration_and_weights_of_one_change_nothing():
    # the rows' tests weighted 0.25 against 1 for the state tests (weights fixed in advance): each test's p over
    # its weight in the min-p, as the enumeration does it; equal weights are the unweighted procedure, float for
    # float (the gate's family, ROW_WEIGHT 1)
    rng = np.random.default_rng(6)
    sizes = [(3, 3), (2, 4)]
    launch = [rng.normal(0, 0.02, nb + nc) for nb, nc in sizes]
    shift = [np.r_[np.zeros(nb), np.full(nc, 0.03)] for nb, nc in sizes]
    values = [[1000 * np.exp(launch[s] + shift[s] + rng.normal(0, 0.01, launch[s].size)) for _ in range(2)]
              for s in range(2)]
    blocks = [jp.Block(candidate=np.r_[np.zeros(nb, bool), np.ones(nc, bool)]) for nb, nc in sizes]
    tests = [jp.JointTest(values={s: values[s][j] for s in range(2)}) for j in range(2)] + \
        [jp.JointTest(values={s: values[s][j]}) for j in range(2) for s in range(2)]
    weights = [0.25, 0.25, 1, 1, 1, 1]
    obs, adj = _reference(values, sizes, 0.05, jp.MEAN_LOG, np.array(weights))
    res = jp.step_down_min_p(blocks, tests, 0.05, statistic=jp.MEAN_LOG, weights=weights)
    assert res.p_values == pytest.approx(obs, abs=1e-12) and res.adjusted == pytest.approx(adj, abs=1e-12)
    assert res.weights.sum() == pytest.approx(6) and res.weights[0] == pytest.approx(res.weights[2] / 4)
    plain = jp.step_down_min_p(blocks, tests, 0.05, statistic=jp.MEAN_LOG)
    ones = jp.step_down_min_p(blocks, tests, 0.05, statistic=jp.MEAN_LOG, weights=[1.0] * 6)
    for field in ("p_values", "adjusted", "levels"):
        assert (getattr(ones, field) == getattr(plain, field)).all()
    with pytest.raises(ValueError):
        jp.step_down_min_p(blocks, tests, 0.05, weights=[1, 0, 1, 1, 1, 1])


def test_monte_carlo_relabellings_are_seeded_and_near_the_exact_ones():
    rng = np.random.default_rng(9)
    blocks = [jp.Block(candidate=np.r_[np.zeros(5, bool), np.ones(5, bool)])] * 2
    values = [rng.normal(0, 1, 10) + np.r_[np.zeros(5), np.full(5, 1.5)] for _ in range(2)]
    tests = [jp.JointTest(values={0: values[0], 1: values[1]}), jp.JointTest(values={0: values[0]}),
             jp.JointTest(values={1: values[1]})]
    exact = jp.step_down_min_p(blocks, tests, 0.05)
    drawn = jp.step_down_min_p(blocks, tests, 0.05, exact_max=1000, resamples=20_000)
    again = jp.step_down_min_p(blocks, tests, 0.05, exact_max=1000, resamples=20_000)
    assert exact.exact and exact.relabellings == 252 ** 2
    assert not drawn.exact and drawn.relabellings == 20_000 and drawn.seed == jp.SEED
    assert (drawn.adjusted == again.adjusted).all()
    assert drawn.adjusted == pytest.approx(exact.adjusted, abs=0.006)


def _campaign(rng, fast_b, fast_c, rows: int, cand_fast: float, *, max_slowdown=0.05, launch_sigma=0.02,
              row_sigma=0.002):
    """Per-launch medians of ``rows`` rows sharing each launch's factor, two states 2.5× apart."""
    def side(fast, truth_fast):
        launch = rng.lognormal(0, launch_sigma, fast.size) * np.where(fast, truth_fast, 2.5)
        return 1000.0 * launch[:, None] * rng.lognormal(0, row_sigma, (fast.size, rows))
    fb, fc = np.arange(10) < fast_b, np.arange(10) < fast_c
    base, cand = side(fb, 1.0), side(fc, cand_fast)
    sb = {i: NAMES[0] if f else NAMES[1] for i, f in enumerate(fb)}
    sc = {i: NAMES[0] if f else NAMES[1] for i, f in enumerate(fc)}
    keys = [("allreduce", 8 << r) for r in range(rows)]

    def matched(op, size):
        j = keys.index((op, size))
        return gating.split_by_state(dict(enumerate(base[:, j])), dict(enumerate(cand[:, j])), sb, sc, NAMES)
    return gating.gate_rows({k: base[:, j] for j, k in enumerate(keys)}, {k: cand[:, j] for j, k in enumerate(keys)},
                            max_slowdown=max_slowdown, alpha=0.05, matched=matched, grid_ns=1.0)


def test_a_regression_of_one_state_that_every_row_shows_fails_the_gate_where_holm_did_not():
    # 5 v 5 launches a side in each state, 3 rows sharing the launch factor (row noise 0.2 %), the fast
    # state 10 % slower. Seeded campaign whose fast-state tests reach U ≤ 2 (p = 4/252) but not 1/252:
    # Holm over 3 rows + 6 state tests needs p ≤ 0.05 / 9 = 1.4/252 — no regression; the joint relabelling
    # sees the rows move together and counts the fast state's evidence once
    rows = _campaign(np.random.default_rng(17), 5, 5, 3, 1.10)
    fast = [st for r in rows for st in r.state_tests if st.stratum == "faster"]
    assert all(st.p_value > 1 / 252 + 1e-12 for st in fast) and min(st.p_value for st in fast) <= 4 / 252 + 1e-12
    holm = hypothesis.holm(np.array([r.p_value for r in rows] + [st.p_value for r in rows for st in r.state_tests]))
    assert (holm > 0.05).all()
    assert any(r.regression for r in rows)
    assert all(r.correction == gating.WESTFALL_YOUNG and r.relabellings == 252 ** 2 for r in rows)
    found = [st for st in fast if st.regression]
    assert found and all(st.p_adjusted <= 0.05 for st in found)
    # the interval of a regression's state at its step's level lies above the threshold
    assert all(st.ratio_ci_low > 1.05 for st in found)
    assert not any(st.regression for r in rows for st in r.state_tests if st.stratum == "slower")


def test_a_and_a_with_two_states_and_a_shared_launch_effect_keeps_the_level():
    # 120 seeded A/A campaigns at the 0 % margin (the null's boundary), 8/2 v 2/8 mixes and 5/5, 3 rows
    # dominated by the launch factor: the family fails at most 5 % of them in expectation; 12 of 120 would be
    # 0.1, outside the binomial's 99.9 % range at 0.05
    rng = np.random.default_rng(23)
    fails = 0
    for i in range(120):
        fb, fc = (8, 2) if i % 2 else (5, 5)
        fails += any(r.regression for r in _campaign(rng, fb, fc, 3, 1.0, max_slowdown=0.0))
    assert fails <= 12


def test_gate_json_says_which_family_adjustment_ran(tmp_path):
    base = write_state_campaign(tmp_path / "base", 5, 5, seed=11, sizes=(8,), ops=("allreduce",))
    cand = write_state_campaign(tmp_path / "cand", 5, 5, seed=12, fast_factor=0.44, sizes=(8,), ops=("allreduce",))
    r = CliRunner().invoke(gate_command, [str(base), str(cand), "--no-cache", "--format", "json"])
    assert r.exit_code == 1, r.output
    out = json.loads(r.stdout)
    assert (out["correction"], out["relabellings"], out["relabellings_seed"]) == (gating.WESTFALL_YOUNG,
                                                                                   252 ** 2, None)
    assert "westfall-young" in out["test"] and out["statistic"] == jp.MEAN_LOG
    (row,) = out["rows"]
    assert row["correction"] == gating.WESTFALL_YOUNG and row["relabellings"] == 252 ** 2
    r = CliRunner().invoke(gate_command, [str(base), str(cand), "--no-cache"], env={"COLUMNS": "250"})
    assert "Westfall–Young step-down min-p over 1 rows and 2 state tests" in " ".join(r.output.split())
    # without states: Holm over the rows, as before
    plain = write_state_campaign(tmp_path / "plain", 10, 0, seed=13, sizes=(8,), ops=("allreduce",))
    plain2 = write_state_campaign(tmp_path / "plain2", 10, 0, seed=14, sizes=(8,), ops=("allreduce",))
    out = json.loads(CliRunner().invoke(gate_command, [str(plain), str(plain2), "--no-cache", "--format",
                                                       "json"]).stdout)
    assert (out["correction"], out["relabellings"], out["statistic"]) == (gating.HOLM, None, None)
    assert math.isfinite(out["rows"][0]["p_adjusted"])


def test_rows_at_several_p_are_relabelled_per_p_and_state_with_seeded_draws_beyond_the_exact_count():
    # 8 + 8 launches a side at each of p = 4 and 8: four blocks of C(16, 8) = 12 870 splits, 2.7e16 together —
    # the family takes 10 000 seeded relabellings, says so, and finds the fast state's 12 % regression at each p
    rng = np.random.default_rng(2)
    fast = np.arange(16) < 8
    states = {i: NAMES[0] if f else NAMES[1] for i, f in enumerate(fast)}
    keys = [("allreduce", 8, (4, None, None)), ("allreduce", 8, (8, None, None))]
    base = {k: 1000 * np.where(fast, 1.0, 2.0) * rng.lognormal(0, 0.02, 16) for k in keys}
    cand = {k: 1000 * np.where(fast, 1.12, 2.0) * rng.lognormal(0, 0.02, 16) for k in keys}

    def matched(op, size, where):
        k = (op, size, where)
        return gating.split_by_state(dict(enumerate(base[k])), dict(enumerate(cand[k])), states, states, NAMES)
    rows = gating.gate_rows(base, cand, max_slowdown=0.05, alpha=0.05, matched=matched, grid_ns=1.0)
    assert [r.nprocs for r in rows] == [4, 8]
    assert all((r.correction, r.relabellings, r.relabellings_seed) == (gating.WESTFALL_YOUNG, jp.RESAMPLES, jp.SEED)
               for r in rows)
    assert [[st.regression for st in r.state_tests] for r in rows] == [[True, False], [True, False]]
    again = gating.gate_rows(base, cand, max_slowdown=0.05, alpha=0.05, matched=matched, grid_ns=1.0)
    assert [r.p_adjusted for r in again] == [r.p_adjusted for r in rows]  # seeded: the same every run


def test_the_mean_log_state_test_is_fisher_pitmans_exact_p_finer_than_the_rank_sums():
    # one state of 5 v 5: the p is the share of the 252 splits whose candidate sum of logs is at least the
    # observed one (Lehmann & Romano 2005, §5.9); where the rank sum takes one of its 26 values, this one
    # separates the splits the ranks tie (a swap across the boundary between close or far values)
    rng = np.random.default_rng(3)
    block = jp.Block(candidate=np.r_[np.zeros(5, bool), np.ones(5, bool)])
    splits = np.array(list(itertools.combinations(range(10), 5)))
    distinct = {jp.RANK_SUM: set(), jp.MEAN_LOG: set()}
    for _ in range(20):
        x = 1000 * rng.lognormal(0, 0.02, 10) * np.r_[np.ones(5), np.full(5, 1.03)]
        logs = np.log(x)
        direct = np.mean(logs[splits].sum(axis=1) >= logs[5:].sum() - 1e-12)
        for statistic in distinct:
            res = jp.step_down_min_p([block], [jp.JointTest(values={0: x})], 0.05, statistic=statistic)
            distinct[statistic].add(round(float(res.p_values[0]) * 252))
            if statistic == jp.MEAN_LOG:
                assert res.p_values[0] == pytest.approx(direct, abs=1e-12)
    assert len(distinct[jp.MEAN_LOG]) > len(distinct[jp.RANK_SUM])


def test_launches_needed_is_at_the_level_the_joint_family_tests_a_state_at():
    # 2 rows sharing the launch factor, 5 v 5 in each of two states, the fast state 10 % slower: the
    # family's first step cuts the least p of 2 rows + 4 state tests where at most 5 % of the relabellings
    # fall, a level above Holm's 0.05 / 6 because the rows move together — and a state's launches_needed
    # is the mean log's test's n (jp.launches_needed) at that level, not at Holm's
    rng = np.random.default_rng(5)
    fast = np.arange(10) < 5
    states = {i: NAMES[0] if f else NAMES[1] for i, f in enumerate(fast)}
    launch_b, launch_c = rng.lognormal(0, 0.02, 10), rng.lognormal(0, 0.02, 10)
    keys = [("allreduce", 8), ("allreduce", 16)]
    base = {k: 1000 * np.where(fast, 1.0, 2.5) * launch_b * rng.lognormal(0, 0.01, 10) for k in keys}
    cand = {k: 1000 * np.where(fast, 1.10, 2.5) * launch_c * rng.lognormal(0, 0.01, 10) for k in keys}

    def matched(op, size):
        k = (op, size)
        return gating.split_by_state(dict(enumerate(base[k])), dict(enumerate(cand[k])), states, states, NAMES)
    rows = gating.gate_rows(base, cand, max_slowdown=0.05, alpha=0.05, matched=matched, grid_ns=1.0)
    assert all(r.correction == gating.WESTFALL_YOUNG and r.statistic == jp.MEAN_LOG for r in rows)
    tested = [st for r in rows for st in r.state_tests if st.tested]
    assert len(tested) == 4
    first = min([r.interval_level for r in rows] + [st.interval_level for st in tested])
    assert first > 0.05 / 6
    shift = math.log(1.10 / 1.05)
    for r, k in zip(rows, keys):
        for st, mask in zip(r.state_tests, (fast, ~fast)):
            a, b = base[k][mask] + 0.5, cand[k][mask] - 0.5  # the 1 ns grid: half a step each way
            spread = gating._log_spread(base[k][mask], cand[k][mask])
            assert st.launches_needed == jp.launches_needed(spread, shift, first)
            assert st.p_value == pytest.approx(jp.step_down_min_p(
                [jp.Block(candidate=np.r_[np.zeros(5, bool), np.ones(5, bool)])],
                [jp.JointTest(values={0: np.r_[a * 1.05, b]})], 0.05, statistic=jp.MEAN_LOG).p_values[0])
    # Holm's first level asks for more launches in some state of this campaign
    assert any(st.launches_needed < jp.launches_needed(gating._log_spread(base[k][m], cand[k][m]), shift, 0.05 / 6)
               for r, k in zip(rows, keys) for st, m in zip(r.state_tests, (fast, ~fast)))


def test_a_decision_the_interval_disagrees_with_is_explained_by_the_family_that_ran(capsys):
    # under the joint family the decision's test is the mean log's, the interval the rank test's:
    # the footnote names those two, not a Holm step that did not run
    from dataclasses import replace

    from mpimeter.cli.gate import print_gate

    rows = tuple(replace(r, interval_agrees=False) for r in _campaign(np.random.default_rng(17), 5, 5, 3, 1.10))
    print_gate(gating.GateResult(baseline="b", candidate="c", max_slowdown=0.05, alpha=0.05, rows=rows, warnings=()),
               "b", "c")
    text = " ".join(capsys.readouterr().out.split())
    assert "decision and interval differ for" in text
    assert "the difference of mean logs); the decision is the adjusted p's" in text
    assert "Holm stopped" not in text


def test_the_launches_line_names_the_sample_size_of_the_test_the_state_was_given():
    # under the joint family a state is tested on the mean log (jp.launches_needed, the noncentral t's n);
    # under Holm with the rank sum (Noether's n): the line says which
    from dataclasses import replace

    from mpimeter.cli.gate import launches_needed_lines

    rows = [replace(r, state_tests=tuple(replace(st, launches_needed=9) for st in r.state_tests))
            for r in _campaign(np.random.default_rng(17), 5, 5, 2, 1.10)]
    joint = " ".join(launches_needed_lines(rows, 0.05))
    holm = " ".join(launches_needed_lines([replace(r, correction=gating.HOLM, statistic=None) for r in rows], 0.05))
    assert "needs about 9 launches a side (it has 5)" in joint and "the mean log test's sample size" in joint
    assert "Noether's sample size" in holm and "mean log" not in holm
