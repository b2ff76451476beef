# SPDX-License-Identifier: BSD-3-Clause
"""Launch effects in `analyze` (analysis/launch_effects.py): per-launch medians in two groups are
reported with the recorded property that separates them, or with the words that none does; i.i.d.
launches give no such warning; the JSON carries them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from data.synth import write_campaign, write_launch

from mpimeter import analysis
from mpimeter.cli.analyze import command


def _campaign(root: Path, factors, *, rtt=None) -> Path:
    for i, f in enumerate(factors):
        folder = root / "launches" / f"{i:03d}"
        write_launch(folder, seed=500 + i, launch_factor=f, schema=2, nrep=60)
        if rtt is not None:
            meta_path = folder / "meta.json"
            meta = json.loads(meta_path.read_text())
            meta["probes"] = {"cacheline_rtt_ns": [{"ranks": [0, 1], "host": "h", "cpus": [0, 1],
                                                    "rtt_ns": rtt[i]}]}
            meta_path.write_text(json.dumps(meta))
    return root


def _effects(folder):
    res = analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))
    return res, [w for w in res.warnings if w.code == "launch-clusters"]


def test_a_fast_launch_is_found_and_its_probe_named(tmp_path):
    rng = np.random.default_rng(3)
    factors = list(np.exp(rng.normal(0, 0.02, 10)))
    factors[3] *= 0.48  # launch 003 runs everything about twice as fast
    rtt = [180.0 + 5 * i for i in range(10)]
    rtt[3] = 53.0  # ... and its two ranks bounce a cache line much faster
    res, (w,) = _effects(_campaign(tmp_path / "c", factors, rtt=rtt))
    (e,) = res.launch_effects
    assert e.low_launches == (3,) and len(e.high_launches) == 9
    assert e.ratio > 1.9 and len(e.rows) >= 3
    names = [s.what for s in e.separating]
    assert any("cache-line round trip" in n for n in names), names
    assert "launch 003 ran them" in w.message and "faster than the other 9" in w.message
    assert "cache-line round trip" in w.message
    assert "(53 ns in the faster launches, 180 ns – 225 ns in the slower ones" in w.message
    out = json.loads(CliRunner().invoke(command, [str(tmp_path / "c"), "--no-cache", "--format", "json"]).stdout)
    (j,) = out["launch_effects"]
    assert j["low_launches"] == [3] and any("cacheline" in s["property"] for s in j["separating"])


def test_no_recorded_property_separates_says_so(tmp_path):
    rng = np.random.default_rng(4)
    factors = list(np.exp(rng.normal(0, 0.02, 10)))
    factors[2] *= 0.5
    factors[7] *= 0.5
    rtt = [100.0 + 10 * ((i * 7) % 10) for i in range(10)]  # unrelated to the split
    rtt[2], rtt[7] = 140.0, 150.0  # in the middle of the others' values
    res, (w,) = _effects(_campaign(tmp_path / "c", factors, rtt=rtt))
    (e,) = res.launch_effects
    assert e.low_launches == (2, 7)
    assert not any("cache-line" in s.what for s in e.separating)
    if not e.separating:
        assert "none of the recorded properties separates them" in w.message


def test_iid_launches_give_no_warning(tmp_path):
    flagged = 0
    for seed in range(8):
        camp = write_campaign(tmp_path / f"c{seed}", 10, seed=seed, launch_sigma=0.05, schema=2, nrep=60)
        flagged += bool(_effects(camp)[1])
    assert flagged <= 1, flagged


def test_a_single_slow_launch_is_named_as_the_slower_one(tmp_path):
    rng = np.random.default_rng(5)
    factors = list(np.exp(rng.normal(0, 0.02, 10)))
    factors[0] *= 2.3  # the first launch runs everything about 2.3 times slower
    res, (w,) = _effects(_campaign(tmp_path / "c", factors))
    (e,) = res.launch_effects
    assert e.high_launches == (0,) and len(e.low_launches) == 9
    assert "launch 000 ran them" in w.message and "slower than the other 9" in w.message


def test_a_probe_missing_in_some_launches_is_examined_on_the_others(tmp_path):
    # the probe gave up (rtt_ns null) in 2 of 10 launches: it still separates the other 8, the
    # warning says how many lack it, and the chance is that of its own values at random
    rng = np.random.default_rng(8)
    factors = list(np.exp(rng.normal(0, 0.02, 10)))
    for i in (0, 3, 5, 8):
        factors[i] *= 0.25
    rtt = [86.0 if i in (0, 3, 5, 8) else 370.0 + i for i in range(10)]
    rtt[3] = rtt[6] = None
    res, (w,) = _effects(_campaign(tmp_path / "c", factors, rtt=rtt))
    (e,) = res.launch_effects
    assert e.low_launches == (0, 3, 5, 8)
    (probe,) = [s for s in e.separating if "cache-line" in s.what]
    assert probe.missing == 2
    # 3 fast launches among the 8 with values {86 ×3, 371, 372, 374, 375, 377, 379}: of the
    # C(8, 3) = 56 random low groups, two are separated (the three 86s, the three largest)
    assert probe.chance == pytest.approx(2 / 56)
    assert "2 launch(es) did not record it" in w.message or "missing in 2" in w.message
    assert 0 < e.any_chance < 1
