# SPDX-License-Identifier: BSD-3-Clause
"""analysis.counters end to end on synthetic campaigns with known truth: the counter that goes with
the run time explains it in every (op, size) and the independent one nowhere; medians per Roth
category; the read cost from meta.json; the perturbation of a campaign with counters against the
same one without, with its warning only when looking slowed the run."""

from __future__ import annotations

import json

from data.synth import write_campaign
from data.synth_counters import add_counters, follows, independent

from mpimeter import analysis


def _with_counters(root, launches=4, seed=0, **kw):
    write_campaign(root, launches, seed=seed, nrep=80, schema=2, **kw)
    for i, folder in enumerate(sorted((root / "launches").iterdir())):
        add_counters(folder, {"bytes_sent": follows, "queue": independent}, seed=seed * 100 + i,
                     read_ns=140.0 + i)
    return root


def test_the_counter_that_follows_the_run_time_explains_it(tmp_path):
    root = _with_counters(tmp_path / "ctr")
    result = analysis.analyze(analysis.load_campaign(root))
    c = result.counters
    assert c is not None and c.launches == 4
    explained = {(r.op, r.size, r.metric) for r in c.rows if r.explains}
    tests = {(r.op, r.size) for r in result.rows}
    assert explained == {(op, size, "bytes_sent") for op, size in tests}
    for r in c.rows:
        assert r.launches == 4 and r.repetitions > 0
        assert set(r.median_by_category) == {"first", "warmup", "outlier", "good"}
    slow = [r for r in c.rows if r.metric == "bytes_sent" and r.n_by_category["outlier"] > 0]
    assert slow and all(r.median_by_category["outlier"] > r.median_by_category["good"] for r in slow)
    codes = {w.code: w for w in result.warnings}
    assert codes["counter-correlation"].count == len(tests)
    assert "bytes_sent" in codes["counter-correlation"].message
    # the cost of looking, from meta.json
    (cost,) = c.costs
    assert (cost.launches, cost.counters, cost.min_ns, cost.max_ns) == (4, 2, 140.0, 143.0)
    assert set(c.points.columns) >= {"alternative", "launch", "op", "size", "rep", "metric", "value", "run_time_ns",
                                     "category"}
    doc = json.loads(json.dumps(result.to_dict()))
    assert doc["counters"]["rows"] and doc["counters"]["costs"][0]["median_ns"] == 141.5
    assert doc["counters"]["perturbation"] == []


def test_perturbation_compares_the_same_runs_without_counters(tmp_path):
    write_campaign(tmp_path / "both" / "plain", 6, seed=1, nrep=60, schema=2)
    _with_counters(tmp_path / "both" / "counters", launches=6, seed=2, shift=1.25)
    result = analysis.analyze(analysis.load_campaign(tmp_path / "both"))
    pert = result.counters.perturbation
    assert pert and all(p.a == "plain" and p.b == "counters" for p in pert)
    assert all(p.significant and 1.1 < p.ratio < 1.4 for p in pert)
    assert any(w.code == "counter-perturbation" for w in result.warnings)
    # the same runs without a slowdown: nothing to warn about
    write_campaign(tmp_path / "same" / "plain", 6, seed=1, nrep=60, schema=2)
    _with_counters(tmp_path / "same" / "counters", launches=6, seed=2)
    result = analysis.analyze(analysis.load_campaign(tmp_path / "same"))
    assert not any(p.significant for p in result.counters.perturbation)
    assert not any(w.code == "counter-perturbation" for w in result.warnings)
