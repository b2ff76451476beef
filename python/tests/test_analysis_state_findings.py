# SPDX-License-Identifier: BSD-3-Clause
"""A state is a finding, not a label (analysis/strata.py, analysis/launch_effects.py,
analysis/matching.py): groups that a property separates no better than chance give no states,
a state never holds one launch, a state is called rare only when it is, the probe's own clusters
decide the states before the run times do, a comparison names every launch it sets aside, and
`model` fits each state and names the headline."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from data.synth import memory_campaign, write_launch

from mpimeter import analysis
from mpimeter.analysis.comparison import compare
from mpimeter.analysis.models import fit_models
from mpimeter.analysis.scalingmodels import fit_scaling_models
from mpimeter.analysis.strata import machine_states

TESTS = [("allreduce", 8), ("allreduce", 1024), ("bcast", 8), ("bcast", 1024)]
FAST_PROBE, SLOW_PROBE = (49.0, 111.0), (344.0, 414.0)  # the test machine's two states


def _launches(rng, fast: int, slow: int, *, ratio: float = 1.18, nrep: int = 30, tests=TESTS):
    """(samples, probes) of a campaign on a machine whose slow state runs ``ratio``× as long."""
    flags = np.array([True] * fast + [False] * slow)
    rng.shuffle(flags)
    x = np.empty((flags.size, len(tests), nrep))
    probes = []
    for i, is_fast in enumerate(flags):
        factor = (1.0 if is_fast else ratio) * rng.lognormal(0.0, 0.03)
        for t, (_, size) in enumerate(tests):
            x[i, t] = (1500.0 + size) * factor * rng.lognormal(0.0, 0.03, nrep)
        probes.append(float(rng.uniform(*(FAST_PROBE if is_fast else SLOW_PROBE))))
    return x, probes


def _analyze_folder(folder):
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))


def _patched_campaign(root, factors, patch):
    """A campaign folder of one launch per factor, each launch's meta.json changed by patch(i, meta)."""
    for i, f in enumerate(factors):
        folder = write_launch(root / "launches" / f"{i:03d}", seed=100 + i, launch_factor=f, schema=2, nrep=60)
        meta = json.loads((folder / "meta.json").read_text())
        patch(i, meta)
        (folder / "meta.json").write_text(json.dumps(meta))
    return root


def test_a_cpu_share_of_70_against_71_to_78_percent_gives_no_states(tmp_path):
    # Open MPI's real case: one launch ran faster, and the CPU share of other processes "explained"
    # it (70 % there, 71–78 % in the others): a chance of 0.2 for one property, what chance gives
    shares = [0.74, 0.70, 0.71, 0.78, 0.76, 0.72, 0.75, 0.73, 0.77, 0.745]

    def patch(i, meta):
        meta["load"]["other_cpu_s"] = shares[i] * meta["load"]["wall_s"] * meta["system"]["ncpus"]

    res = _analyze_folder(_patched_campaign(tmp_path / "c", [1.0] + [0.5] + [1.0] * 8, patch))
    assert not any(s.explained for s in res.states)
    (effect,) = res.launch_effects
    share = next(s for s in effect.separating if "CPU share" in s.what)
    assert share.chance == pytest.approx(0.2) and share.adjusted_chance > 0.05 and not share.explains
    (w,) = [w for w in res.warnings if w.code == "launch-clusters"]
    assert "too likely by chance to explain them" in w.message and "Holm's correction" in w.message
    assert all(not r.per_state for r in res.rows)


def test_a_probe_of_8399_against_8396_ms_gives_no_states(tmp_path):
    # MPICH's `make demo`: three slower launches with a probe of 8.399 ms, the others 8.396 ms — a
    # separation, and no difference of machine state
    slow = {1, 4, 7}

    def patch(i, meta):
        rtt = 8_399_000.0 + i if i in slow else 8_396_000.0 + i
        meta["probes"] = {"cacheline_rtt_ns": [{"ranks": [0, 1], "host": "h", "cpus": [0, 1], "rtt_ns": rtt}]}

    res = _analyze_folder(_patched_campaign(tmp_path / "c", [1.3 if i in slow else 1.0 for i in range(10)], patch))
    assert res.launch_effects  # the times do split
    assert not any(s.explained for s in res.states)
    assert all(not r.per_state for r in res.rows)
    assert not any(w.code == "states" for w in res.warnings)


def test_a_state_of_one_launch_is_never_reported(tmp_path):
    # one launch in the slow state, its probe far from the others': too few for a state
    def patch(i, meta):
        rtt = 380.0 if i == 3 else 60.0 + i
        meta["probes"] = {"cacheline_rtt_ns": [{"ranks": [0, 1], "host": "h", "cpus": [0, 1], "rtt_ns": rtt}]}

    res = _analyze_folder(_patched_campaign(tmp_path / "c", [2.5 if i == 3 else 1.0 for i in range(10)], patch))
    assert not any(s.explained for s in res.states)
    assert all(not r.per_state for r in res.rows)
    (w,) = [w for w in res.warnings if w.code == "state-too-few"]
    assert "launch 003 apart from the other 9" in w.message and "a state needs 3 launches" in w.message


def test_mild_states_the_times_do_not_show_are_found_by_the_probe():
    # 1.18× states in 5 of 10 launches: the probe separates them in every launch
    rng = np.random.default_rng(7)
    x, probes = _launches(rng, 5, 5)
    res = analysis.analyze(memory_campaign({"a": x}, TESTS, probes={"a": probes}))
    (states,) = res.states
    assert states.explained and "cache-line" in states.property and "level 0.05" in states.test
    assert sorted(len(s.launches) for s in states.states) == [5, 5]
    for r in res.rows:
        faster, slower = r.per_state
        assert 1.1 < slower.median_ns / faster.median_ns < 1.27


# a seed at which the pooled comparison (the code before) calls every row of this A/A pair
# significant (p 0.003 after Holm; 12 % of such pairs do so)
AA_SEED = 0


def test_compare_aa_of_mild_states_in_mixes_8_2_and_2_8_is_made_state_by_state():
    rng = np.random.default_rng(AA_SEED)
    a, pa = _launches(rng, 8, 2)
    b, pb = _launches(rng, 2, 8)
    ra = analysis.analyze(memory_campaign({"a": a}, TESTS, probes={"a": pa}))
    rb = analysis.analyze(memory_campaign({"b": b}, TESTS, probes={"b": pb}))
    res = compare([ra, rb])
    assert all(r.stratified for r in res.rows)
    assert not any(r.significant for r in res.rows)
    for r in res.rows:  # per state the sides agree; pooled they differ by the mix
        assert all(0.93 < s.ratio_of_medians < 1.07 for s in r.per_state)
        assert r.ratio_of_medians > 1.1
    # each side alone holds a state of 2 launches: no states of its own
    assert not any(s.explained for s in ra.states + rb.states)


def test_compare_names_a_launch_it_sets_aside():
    # one launch of b ran 2351× slower and recorded no probe: it is in no state, so the
    # state-by-state test leaves it out — and says so
    rng = np.random.default_rng(3)
    a, pa = _launches(rng, 5, 5, ratio=2.5)
    b, pb = _launches(rng, 5, 5, ratio=2.5)
    b[6] *= 2351.0
    pb[6] = None
    ra = analysis.analyze(memory_campaign({"a": a}, TESTS, probes={"a": pa}))
    rb = analysis.analyze(memory_campaign({"b": b}, TESTS, probes={"b": pb}))
    res = compare([ra, rb])
    assert all(r.stratified for r in res.rows)
    (w,) = [w for w in res.warnings if w.code == "launches-set-aside"]
    assert "b's launch 006" in w.message and "a's" not in w.message and "was set aside" in w.message
    (states,) = rb.states
    assert states.unplaced == (6,)
    assert any(w.code == "state-unplaced" and "launch 006" in w.message for w in rb.warnings)


def test_machine_states_puts_the_launches_of_several_sides_in_states_by_one_cut():
    rng = np.random.default_rng(5)
    a, pa = _launches(rng, 8, 2, nrep=5)
    b, pb = _launches(rng, 2, 8, nrep=5)
    ca = memory_campaign({"a": a}, TESTS, probes={"a": pa})
    cb = memory_campaign({"b": b}, TESTS, probes={"b": pb})
    split = machine_states([(ca, "a", None), (cb, "b", None)])
    assert split.found and len(split.faster) == len(split.slower) == 10
    for side, probes in enumerate((pa, pb)):
        for launch, rtt in enumerate(probes):
            assert split.state_of((side, launch)) == ("faster" if rtt < 200 else "slower")
    # one side alone: a state of 2 launches does not stand
    alone = machine_states([(ca, "a", None)])
    assert alone.apart and not alone.found and alone.state_of((0, 0)) is None


def test_model_fits_each_state_and_names_the_headline(tmp_path):
    # 3 sizes, 7 slow / 3 fast launches at 0.8×: one Hockney fit per state, the slow one the headline
    rng = np.random.default_rng(11)
    tests = [("allreduce", 8), ("allreduce", 4096), ("allreduce", 65536)]
    flags = [True] * 3 + [False] * 7
    x = np.empty((10, 3, 20))
    probes = []
    for i, is_fast in enumerate(flags):
        f = (0.8 if is_fast else 1.0) * rng.lognormal(0, 0.02)
        for t, (_, m) in enumerate(tests):
            x[i, t] = (1000.0 + 0.5 * m) * f * rng.lognormal(0, 0.02, 20)
        probes.append(float(rng.uniform(*(FAST_PROBE if is_fast else SLOW_PROBE))))
    res = analysis.analyze(memory_campaign({"a": x}, tests, probes={"a": probes}))
    (row,) = fit_models(res).rows
    assert row.headline == "slower" and [r.state for r in row.per_state] == ["faster", "slower"]
    faster, slower = row.per_state
    assert faster.launches == 3 and slower.launches == 7
    assert faster.hockney.beta_ns_per_byte / slower.hockney.beta_ns_per_byte == pytest.approx(0.8, abs=0.03)
    assert row.to_dict()["headline"] == "slower" and len(row.to_dict()["per_state"]) == 2
    from mpimeter.report.html_report import write_report

    write_report(tmp_path / "r.html", res)
    page = (tmp_path / "r.html").read_text()
    assert "a (all states)" in page and "a (faster state)" in page and "a (slower state, headline)" in page


def test_scaling_model_per_state_covers_each_state():
    # log family α·⌈log₂p⌉ + β·m, 30 % of the launches 0.8×: the pooled fit covers neither state
    rng = np.random.default_rng(2)
    tests = [("allreduce", m) for m in (8, 4096, 65536)]
    plan = [(p, k < 2) for p in (2, 4, 8, 16) for k in range(6)]
    rng.shuffle(plan)
    x = np.empty((len(plan), 3, 10))
    probes, counts = [], []
    for i, (p, is_fast) in enumerate(plan):
        f = (0.8 if is_fast else 1.0) * rng.lognormal(0, 0.02)
        for t, (_, m) in enumerate(tests):
            x[i, t] = (1000.0 * math.ceil(math.log2(p)) + 0.5 * m) * f * rng.lognormal(0, 0.02, 10)
        probes.append(float(rng.uniform(*(FAST_PROBE if is_fast else SLOW_PROBE))))
        counts.append(p)
    res = analysis.analyze(memory_campaign({"a": x}, tests, probes={"a": probes}, nprocs={"a": counts}))
    (row,), _ = fit_scaling_models(res)
    assert row.headline == "slower"
    states = {r.state: r for r in row.per_state}
    for name, alpha in (("faster", 800.0), ("slower", 1000.0)):
        fit = states[name].chosen
        assert fit.family == "log"
        low, high = fit.interval(0, 0.95)
        assert low <= alpha <= high, (name, low, high)
    low, high = row.chosen.interval(0, 0.95)
    assert not low <= 800.0 <= high  # the pooled fit misses the fast state


def test_the_probe_states_part_at_the_probe_s_own_widest_gap():
    # 12 launches at 54–108 ns, 28 at 346–414 ns: the states part between 108 and 346, not a
    # launch further (the two-cluster test's best split size reaches its floor p at several sizes)
    from mpimeter.analysis.strata import probe_split

    values = list(np.linspace(54, 108, 12)) + list(np.linspace(346, 414, 28))
    split = probe_split(dict(enumerate(values)))
    assert split.found and split.faster == tuple(range(12)) and split.gap == pytest.approx(346 / 108)
