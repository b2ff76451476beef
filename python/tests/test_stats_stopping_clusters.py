# SPDX-License-Identifier: BSD-3-Clause
"""`--launches auto` when the launches form clusters (mpimeter.stats.stopping,
campaign/adaptive.py): with half the launches 1.1× slower, the median of the per-launch medians
lies between the groups, and an interval narrow enough to stop on sits inside one group — such
stops covered 39 %. The rule now holds a precision stop while the launches form two groups with a
group outside the interval, and says so; the recorded interval covers ≥ 93 % (the real rule,
launch by launch, on seeded campaigns; bench/stats_dependence.py runs 2000 of each)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize
from scipy import stats as st

from mpimeter.campaign import adaptive
from mpimeter.stats.stopping import launch_verdict


def mixture_median(p_high: float, ratio: float, sd: float) -> float:
    """The median of per-launch medians exp(N(0, sd)), times ``ratio`` with probability p_high."""
    f = lambda x: (1 - p_high) * st.norm.cdf(x / sd) + p_high * st.norm.cdf((x - np.log(ratio)) / sd) - 0.5  # noqa: E731
    return float(np.exp(optimize.brentq(f, -2, 2)))


def _run(rng, p_high: float, ratio: float, sd: float):
    x = np.exp(rng.normal(0, sd, 30) + np.log(ratio) * (rng.random(30) < p_high))
    for n in range(10, 31):
        v = launch_verdict(x[:n])
        if v.status != "more":
            return v
    raise AssertionError("the rule did not stop at max")


@pytest.mark.parametrize("sd", [0.01, 0.02])
def test_balanced_clusters_are_covered(sd):
    rng = np.random.default_rng(int(sd * 1000))
    truth = mixture_median(0.5, 1.1, sd)
    verdicts = [_run(rng, 0.5, 1.1, sd) for _ in range(400)]
    covered = sum(v.interval.low <= truth <= v.interval.high for v in verdicts)
    # ~0.94 (bench: 2000 campaigns); 0.915 of 400 fails a true 0.94 with chance 2 %, and the
    # rule without the cluster check (0.916 and below, stops inside one group) mostly
    assert covered / 400 >= 0.915, covered
    assert sum(v.status == "precision" for v in verdicts) <= 8  # stops inside one group are held


def test_held_stops_say_why_and_iid_launches_still_stop_at_the_minimum():
    rng = np.random.default_rng(3)
    x = np.r_[np.exp(rng.normal(0, 0.003, 10)), 1.1 * np.exp(rng.normal(0, 0.003, 1))]
    v = launch_verdict(x, min_launches=10)
    assert v.precision <= 0.02 and v.status == "more" and v.held is not None
    assert "two groups" in v.reason and "10 and 1 launches" in v.reason
    stops = [launch_verdict(np.exp(rng.normal(0, 0.005, 10))) for _ in range(100)]
    # no clusters: most stop as before (a held stop costs a launch: CLUSTER_ALPHA = 0.2 holds ~1 in 10)
    assert sum(s.status == "precision" for s in stops) >= 80
    assert "no launch clusters" in stops[0].reason


def test_the_campaign_record_counts_held_judgements_and_reads_back():
    rule = adaptive.AdaptiveLaunches(min=10, max=30)
    rng = np.random.default_rng(4)
    x = list(np.r_[np.exp(rng.normal(0, 0.003, 10)), 1.1 * np.exp(rng.normal(0, 0.003, 1))])
    adaptive.update(rule, {("a", "bcast", 8): x})
    (rec,) = rule.pairs
    assert rec.status == "more" and rec.held_by_clusters == 1 and "two groups" in rec.reason
    errors = []

    def fail(where, what):
        errors.append((where, what))
        raise ValueError(where)

    back = adaptive.read(rule.to_json(), fail, ["a"])
    assert back.pairs[0].held_by_clusters == 1 and back.pairs[0].reason == rec.reason
    bad = rule.to_json()
    bad["pairs"][0]["held_by_clusters"] = -1
    with pytest.raises(ValueError):
        adaptive.read(bad, fail, ["a"])
    assert errors[-1][0].endswith("held_by_clusters")


def test_medians_between_two_timer_steps_do_not_hold_the_stop_on_the_recorded_grid():
    # medians of an even count of repetitions on a 10 ns timer: 30, 35 and 40 ns; read on their
    # own grid (5 ns) 30 against 40 is a split that holds the stop, on the timer's it is not one
    values = [30.0] * 7 + [35.0] + [40.0] * 2
    assert launch_verdict(values, precision=0.3).held is not None
    on_grid = launch_verdict(values, precision=0.3, grid_ns=10.0)
    assert on_grid.held is None and on_grid.status == "precision"


def test_the_rule_reads_the_medians_on_the_grid_their_campaign_recorded():
    values = [30.0] * 7 + [35.0] + [40.0] * 2
    for grid, status in ((None, "more"), (10.0, "precision")):
        rule = adaptive.AdaptiveLaunches(min=10, max=30, precision=0.3)
        adaptive.update(rule, {("a", "barrier", 0): adaptive.PairMedians(values, grid_ns=grid)})
        assert rule.pair(("a", "barrier", 0)).status == status, grid
