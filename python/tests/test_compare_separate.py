# SPDX-License-Identifier: BSD-3-Clause
"""`compare` of two campaigns run one after the other: the test widened by the launches' serial
dependence (stats.campaign_drift, analysis.separate_campaigns), its null and power on the
simulated drifting machine of bench/compare_aa_sim.py, and what the command prints and writes."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
from click.testing import CliRunner
from data.synth import write_launch

from mpimeter.cli.compare import command
from mpimeter.stats import campaign_drift as drift
from mpimeter.stats import hypothesis

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("compare_aa_sim", REPO / "bench" / "compare_aa_sim.py")
sim = importlib.util.module_from_spec(_spec)
sys.modules["compare_aa_sim"] = sim  # its dataclass looks its module up while it is made
_spec.loader.exec_module(sim)


def _ar1(rng, rho: float, n: int) -> np.ndarray:
    x = np.empty(n)
    x[0] = rng.normal()
    for t in range(1, n):
        x[t] = rho * x[t - 1] + rng.normal() * np.sqrt(1 - rho ** 2)
    return x


def test_independent_launches_keep_the_plain_test():
    assert drift.ar1_inflation(0.0, 10, 10) == 1.0
    rng = np.random.default_rng(3)
    series = [rng.normal(size=200) for _ in range(4)]
    assert drift.serial_rho(series) < 0.1 and drift.inflation(series) < 1.3
    assert drift.widen(0.004, 1.0, "two-sided", 20) == 0.004


def test_dependent_launches_are_found_and_widen_the_test():
    rng = np.random.default_rng(4)
    series = [_ar1(rng, 0.6, 10) for _ in range(12)]  # twelve series of ten launches, as compare sees them
    rho = drift.serial_rho(series)
    assert 0.35 < rho < 0.85  # the centring bias removed: the raw lag-1 estimate is far lower
    assert drift.lag1(series) < rho
    # between two adjacent campaigns an AR(1) at 0.5 moves the difference of means 2.4× as much
    assert 2.3 < drift.ar1_inflation(0.5, 10, 10) < 2.5
    ps = [drift.widen(0.004, f, "two-sided", 20) for f in (1.0, 1.5, 2.5)]
    assert ps[0] < ps[1] < ps[2]


def test_widened_interval_is_the_widened_test_inverted():
    rng = np.random.default_rng(5)
    for f in (1.5, 2.5):
        for shift in (0.6, 1.2, 2.0):
            a, b = np.exp(rng.normal(0, 1, 10)), np.exp(rng.normal(shift, 1, 10))
            p, how = drift.widened_p(a, b, f, "two-sided")
            assert how.endswith("widened")
            ci = hypothesis.hodges_lehmann_ratio(a, b, confidence=drift.widened_confidence(0.95, f, 20))
            excludes = (ci.low is not None and ci.low > 1) or (ci.high is not None and ci.high < 1)
            assert excludes == (p <= 0.05)


def test_null_and_power_on_a_drifting_machine():
    # the A/A share of the plain rank-sum rule on an AR(1) machine at ρ 0.5 is three times α;
    # widened it is at most α (bench/results/compare_aa_sim.json holds the full cells)
    null = sim.cell(sim.Machine(rho=0.5), 1.0, 200, seed=11)
    assert null["plain"]["share"] > 0.10
    assert null["widened"]["share"] <= 0.05
    # power where the launches are independent: a 30 % shift is still found
    power = sim.cell(sim.Machine(rho=0.0), 1.3, 100, seed=12)
    assert power["widened"]["share"] >= 0.8


def test_null_holds_on_medians_tied_on_a_timer_grid():
    # rows of about 35 ns read on a 10 ns grid: nearly every per-launch median is 30 or 40 ns, so
    # the ranks are mostly ties and a constant campaign has no serial correlation to estimate
    m = sim.Machine(rho=0.5, level_ns=(35.0, 35.0), grid_ns=10.0)
    a, b, _ = sim.campaigns(np.random.default_rng(13), m, 1.0)
    assert set(np.unique(np.concatenate([a.ravel(), b.ravel()]))) <= {20.0, 30.0, 40.0, 50.0}
    null = sim.cell(m, 1.0, 200, seed=13)
    assert null["widened"]["called"] <= 10  # 0.05 of 200


def test_null_holds_on_a_launch_cluster_split_both_campaigns_share():
    # two machine states 2.5x apart, half the launches each, in episodes (a launch keeps the state
    # of the one before with chance 0.6) running on across both campaigns: pooled over the mix
    # (no recorded property explains the clusters) the plain rule calls one build different
    # three times as often as alpha and the widened one at most alpha; compared state by state
    # (matched states: van Elteren, f from each state's launches centred) at most alpha as well
    m = sim.Machine(split=float(np.log(2.5)), split_stay=0.6)
    pooled = sim.cell(m, 1.0, 200, seed=14)
    assert pooled["plain"]["called"] > 20 and pooled["widened"]["called"] <= 10
    by_state = sim.cell(sim.Machine(split=float(np.log(2.5)), split_stay=0.6, stratified=True), 1.0, 200, seed=15)
    assert by_state["widened"]["called"] <= 10


def _campaign(root: Path, log_factors: np.ndarray, minute: int, seed: int) -> Path:
    """A campaign whose launches ran one a second from 05:MM:00, each × exp(log factor)."""
    for i, lf in enumerate(log_factors):
        folder = write_launch(root / "launches" / f"{i:03d}", seed=seed * 1000 + i, launch_factor=float(np.exp(lf)),
                              nrep=30)
        meta = json.loads((folder / "meta.json").read_text())
        meta["wall_start"] = f"2026-11-22T05:{minute:02d}:{i:02d}Z"
        (folder / "meta.json").write_text(json.dumps(meta, indent=1))
    return root


def test_compare_widens_separate_campaigns_and_says_so(tmp_path):
    # one build, a machine that drifts slowly: the first campaign's launches run slower
    drift_path = 0.12 * np.cos(np.linspace(0, np.pi, 20))
    a = _campaign(tmp_path / "a", drift_path[:10], 10, seed=1)
    b = _campaign(tmp_path / "b", drift_path[10:], 20, seed=2)
    r = CliRunner().invoke(command, [str(a), str(b), "--format", "json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    (d,) = out["separate_campaigns"]
    assert d["inflation"] > 1.5 and d["effective_launches"] < 10 / 1.5 and d["launches_needed"] > 10
    rows = out["rows"]
    assert all(x["design_reason"] == "separate campaigns" and x["drift_inflation"] == d["inflation"] for x in rows)
    assert all(x["p_value"] > x["p_unwidened"] for x in rows)
    plain = hypothesis.holm(np.array([x["p_unwidened"] for x in rows]))
    assert (plain <= 0.05).any() and not any(x["significant"] for x in rows)
    text = CliRunner().invoke(command, [str(a), str(b)]).stdout
    assert "separate campaigns a vs b: neighbouring launches are alike" in text and "launches per side" in text


def test_campaigns_not_known_to_be_apart_keep_the_plain_test(tmp_path):
    # the same launches, all with one start time: nothing says the campaigns ran apart
    drift_path = 0.12 * np.cos(np.linspace(0, np.pi, 20))
    a = _campaign(tmp_path / "a", drift_path[:10], 10, seed=1)
    b = _campaign(tmp_path / "b", drift_path[10:], 10, seed=2)
    for folder in (a, b):
        for meta_path in folder.glob("launches/*/meta.json"):
            meta = json.loads(meta_path.read_text())
            meta["wall_start"] = "2026-11-22T05:10:00Z"
            meta_path.write_text(json.dumps(meta, indent=1))
    out = json.loads(CliRunner().invoke(command, [str(a), str(b), "--format", "json"]).stdout)
    assert out["separate_campaigns"] == [] and all(x["p_unwidened"] is None for x in out["rows"])


def _state_campaigns_apart(root: Path, *, slowdown_b: float) -> None:
    """Campaigns a and b of 5 fast and 5 slow launches each (data.synth.write_state_campaign), b's
    times × ``slowdown_b``, b's launches started ten minutes after a's."""
    from data.synth import write_state_campaign

    for name, minute, seed, slowdown in (("a", 10, 1, 1.0), ("b", 20, 2, slowdown_b)):
        write_state_campaign(root / name, 5, 5, seed=seed, slowdown=slowdown)
        for i, meta_path in enumerate(sorted((root / name).glob("launches/*/meta.json"))):
            meta = json.loads(meta_path.read_text())
            meta["wall_start"] = f"2026-11-22T05:{minute:02d}:{i:02d}Z"
            meta_path.write_text(json.dumps(meta, indent=1))


def test_campaigns_apart_compared_state_by_state_are_measured_within_the_states(tmp_path):
    # two campaigns in two machine states, run apart: van Elteren's rows count as separate
    # campaigns too, their dependence taken with each state's launches centred on their own
    _state_campaigns_apart(tmp_path, slowdown_b=1.0)
    out = json.loads(CliRunner().invoke(command, [str(tmp_path / "a"), str(tmp_path / "b"), "--format",
                                                  "json"]).stdout)
    rows = out["rows"]
    assert rows and all(x["stratified"] for x in rows)
    (d,) = out["separate_campaigns"]
    assert d["rows"] == len(rows) and d["inflation"] >= 1
    assert all(x["drift_inflation"] == d["inflation"] for x in rows)
    assert all(x["p_unwidened"] is None or x["p_value"] >= x["p_unwidened"] for x in rows)


def test_significant_rows_compared_state_by_state_still_say_the_campaigns_ran_apart(tmp_path):
    # compared within the machine states, a difference between campaigns run apart can still be
    # the machine's drift between them: the caution holds for stratified rows too
    _state_campaigns_apart(tmp_path, slowdown_b=1.5)
    out = json.loads(CliRunner().invoke(command, [str(tmp_path / "a"), str(tmp_path / "b"), "--format",
                                                  "json"]).stdout)
    significant = [x for x in out["rows"] if x["significant"]]
    assert significant and all(x["stratified"] for x in significant)
    (warned,) = [w for w in out["warnings"] if w["code"] == "separate-campaigns"]
    assert f"{len(significant)} significant row(s) of a vs b" in warned["message"]


def test_strong_dependence_that_does_not_widen_the_test_is_not_told_as_a_contradiction():
    # lag-1 0.95 over 6 launches a side: so slow a drift moves both blocks' means alike, f = 1.00;
    # "no serial dependence" or "alike, so × 1.00" beside it read as contradictions
    from mpimeter.analysis.separate_campaigns import CampaignDrift
    from mpimeter.cli.compare import separate_line

    d = CampaignDrift(a="t1", b="t2", nprocs=2, lag1=0.437, rho=0.95, inflation=1.0, launches=6,
                      effective_launches=6.0, rows=6, shift=0.05, launches_needed=40)
    line = separate_line(d)
    assert "no serial dependence" not in line and "× 1.00" not in line
    assert "neighbouring launches are alike (lag-1 autocorrelation 0.95" in line
    assert "moves both campaigns' means alike over 6 launches a side" in line and "plain test" in line
    plain = separate_line(CampaignDrift(**{**d.__dict__, "rho": 0.0, "lag1": -0.1}))
    assert "launches show no serial dependence (lag-1 autocorrelation 0.00" in plain
