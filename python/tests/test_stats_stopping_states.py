# SPDX-License-Identifier: BSD-3-Clause
"""`--launches auto` on a machine with two explained states (stats/stopping.py,
campaign/adaptive.py): each state is judged on its own — a pair is done once every state's own
interval is within the precision, a state too rare to reach its interval by the maximum is named
with its share instead of holding the stop — and campaign.json records the states (read back
untrusted)."""

from __future__ import annotations

import numpy as np
import pytest
from data.synth import write_state_campaign

from mpimeter.campaign import adaptive
from mpimeter.stats.stopping import launch_verdict, launches_for_interval, state_is_rare


def _campaign(rng, p_fast: float, sd: float, n: int = 30):
    fast = rng.random(n) < p_fast
    x = np.exp(rng.normal(0, sd, n)) * np.where(fast, 0.4, 1.0)
    return x, ["faster" if f else "slower" for f in fast]


def _run(x, states, **kw):
    for n in range(10, x.size + 1):
        v = launch_verdict(x[:n], states=states[:n], **kw)
        if v.status != "more":
            return v
    raise AssertionError("the rule did not stop at max")


def test_each_state_gets_its_interval_and_covers_its_median():
    rng = np.random.default_rng(1)
    covered = {"faster": 0, "slower": 0}
    stops = []
    for _ in range(300):
        v = _run(*_campaign(rng, 0.5, 0.01))
        stops.append(v.launches)
        for st in v.states:
            assert not st.rare and st.precision is not None and st.precision <= 0.02
            truth = 0.4 if st.stratum == "faster" else 1.0
            covered[st.stratum] += st.interval.low <= truth <= st.interval.high
    # the states' own intervals at the corrected level: ≥ 93 % each (stats/stopping.py)
    assert min(covered.values()) / 300 >= 0.93, covered
    # the pooled interval of this mix never reaches 2 % (it spans the gap); the states stop soon after 12 launches
    assert np.median(stops) <= 14


def test_a_rare_state_is_named_with_its_share_and_does_not_hold_the_stop():
    rng = np.random.default_rng(2)
    x = np.r_[np.exp(rng.normal(0, 0.01, 19)) * 0.4, np.exp(rng.normal(0, 0.01, 1))]
    v = launch_verdict(x, states=["faster"] * 19 + ["slower"])
    assert v.status == "precision"
    (fast, slow) = v.states
    assert not fast.rare and slow.rare and slow.share == pytest.approx(1 / 20)
    assert "the slower state is rare (1 launch, 5 %)" in v.reason
    # 1 of 12 may still be a share of 38 % (its upper 95 % bound): the rule keeps launching
    v = launch_verdict(x[8:], states=["faster"] * 11 + ["slower"])
    assert v.status == "more" and not v.states[1].rare
    # at 4 of 12 the state can reach the 6 launches its interval needs by 30: it holds the stop
    x = np.r_[np.exp(rng.normal(0, 0.01, 8)) * 0.4, np.exp(rng.normal(0, 0.01, 4))]
    v = launch_verdict(x, states=["faster"] * 8 + ["slower"] * 4)
    assert v.status == "more" and "the slower state (4 launches, 33 %) has no interval yet" in v.reason
    # … and at the maximum it is named as what held it
    v = launch_verdict(x, states=["faster"] * 8 + ["slower"] * 4, max_launches=12)
    assert v.status == "max" and "the maximum, 12 launches" in v.reason
    assert "the slower state is rare (4 launches, 33 %)" in v.reason


def test_rarity_follows_the_launches_an_interval_needs():
    assert launches_for_interval(0.95) == 6
    # the upper 95 % bound of the share: 1 of 20 → 0.216, 1 + 0.216·10 = 3.2 < 6
    assert state_is_rare(1, 20, 30, 0.95)
    assert not state_is_rare(1, 12, 30, 0.95)  # 1 of 12 → 0.339, 1 + 0.339·18 = 7.1
    assert state_is_rare(5, 30, 30, 0.95) and not state_is_rare(6, 30, 30, 0.95)
    assert not state_is_rare(0, 0, 30, 0.95)


def test_without_states_the_rule_is_unchanged():
    rng = np.random.default_rng(3)
    x = np.exp(rng.normal(0, 0.005, 10))
    assert launch_verdict(x) == launch_verdict(x, states=None) == launch_verdict(x, states=["slower"] * 10)


def test_campaign_record_keeps_the_states_and_reads_them_back(tmp_path):
    folder = write_state_campaign(tmp_path / "c", 10, 1, seed=8, launch_sigma=0.005)
    medians = adaptive.analysis_medians(folder, ["c"])
    key = ("c", "allreduce", 8)
    assert sorted(set(medians[key].states)) == ["faster", "slower"]
    assert medians[key].grid_ns == 1.0  # meta.json's timer.resolution_ns: the grid the cluster check reads
    rule = adaptive.AdaptiveLaunches(min=10, max=14)  # 1 of 11, 3 launches left: the slow state is rare
    adaptive.update(rule, medians)
    rec = rule.pair(key)
    assert rec.status == "precision" and [s["stratum"] for s in rec.states] == ["faster", "slower"], rec.reason
    assert rec.states[1]["rare"] and rec.states[1]["launches"] == 1 and "rare" in rec.reason
    errors = []

    def fail(where, what):
        errors.append((where, what))
        raise ValueError(where)

    back = adaptive.read(rule.to_json(), fail, ["c"])
    assert back.pair(key).states == rec.states
    for bad_value in ({"share": "x"}, {"launches": -1}, {"rare": 1}, {"extra": 0}):
        bad = rule.to_json()
        bad["pairs"][0]["states"][0].update(bad_value)
        with pytest.raises(ValueError):
            adaptive.read(bad, fail, ["c"])
        assert ".states[0]" in errors[-1][0]
