# SPDX-License-Identifier: BSD-3-Clause
"""The Slurm allocation as a factor (analysis/allocations.py, stats/components.py): the variance
components of launches nested in allocations against hand-computed values and edge cases, the
interval's coverage over seeded simulations, and `analyze` on synthetic campaigns with a
planted per-allocation factor: of three allocations one slower — the components put most of the variance between the allocations, the warning names
them, and the text, JSON and report show them; of two allocations one slower — the launch
effect and the states name the allocation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from data.synth import write_launch
from scipy import stats as sp

from mpimeter import analysis
from mpimeter.analysis.allocations import ALLOCATION
from mpimeter.cli.analyze import command
from mpimeter.report.allocations import allocations_html
from mpimeter.stats.components import nested_components

def test_balanced_components_by_hand():
    # means 2 and 5, grand 3.5: MS_G = 3 (1.5² + 1.5²) = 13.5, MS_L = (2 + 2) / 4 = 1, n0 = 3
    c = nested_components([1, 2, 3, 4, 5, 6], ["a", "a", "a", "b", "b", "b"])
    assert (c.groups, c.values) == (2, 6)
    assert c.within_groups == pytest.approx(1.0)
    assert c.between_groups == pytest.approx(12.5 / 3)
    assert c.share == pytest.approx((12.5 / 3) / (12.5 / 3 + 1))
    assert c.f_statistic == pytest.approx(13.5)
    assert c.p_value == pytest.approx(sp.f.sf(13.5, 1, 4))
    assert c.within_low == pytest.approx(4 / sp.chi2.ppf(0.975, 4))
    assert c.within_high == pytest.approx(4 / sp.chi2.ppf(0.025, 4))
    assert 0 < c.share_low < c.share < c.share_high <= 1


def test_unbalanced_components_use_n0():
    # means 2 and 6, grand 4.4: MS_G = 2·2.4² + 3·1.6² = 19.2, MS_L = 4/3, n0 = (5 − 13/5) = 2.4
    c = nested_components([1, 3, 5, 6, 7], [1, 1, 2, 2, 2])
    assert c.within_groups == pytest.approx(4 / 3)
    assert c.between_groups == pytest.approx((19.2 - 4 / 3) / 2.4)


def test_no_group_effect_is_truncated_at_zero_and_all_equal_has_no_share():
    c = nested_components([1, 5, 1, 5], ["a", "a", "b", "b"])  # group means equal: MS_G = 0
    assert c.between_groups == 0.0 and c.share == 0.0 and c.p_value == pytest.approx(1.0)
    c = nested_components([3.0] * 4, ["a", "a", "b", "b"])
    assert c.share is None and c.p_value == 1.0
    # constant within each group: MS_L = 0, MS_G = 2 (0.5² + 0.5²) = 1, n0 = 2
    c = nested_components([1, 1, 2, 2], ["a", "a", "b", "b"])
    assert c.share == 1.0 and c.p_value == 0.0 and c.between_groups == pytest.approx(0.5)


@pytest.mark.parametrize("values, groups", [([1, 2, 3], ["a"] * 3), ([1, 2], ["a", "b"]),
                                            ([1, 2, 3], ["a", "b"])])
def test_too_few_groups_or_values_is_refused(values, groups):
    with pytest.raises(ValueError):
        nested_components(values, groups)


def test_the_share_interval_covers_the_true_share_about_as_often_as_it_says():
    rng = np.random.default_rng(11)
    groups = [g for g in range(4) for _ in range(5)]
    sigma_g, sigma_l = 1.0, 2.0
    truth = sigma_g ** 2 / (sigma_g ** 2 + sigma_l ** 2)
    trials, covered = 2000, 0
    for _ in range(trials):
        y = np.repeat(rng.normal(0, sigma_g, 4), 5) + rng.normal(0, sigma_l, 20)
        c = nested_components(y, groups)
        covered += c.share_low <= truth <= c.share_high
    assert 0.93 <= covered / trials <= 0.97, covered / trials


def _campaign(root: Path, factor_of_job: dict[str, float], launches: int = 12) -> Path:
    """Launch i ran in allocation i % (number of jobs), interleaved in time, its times × that
    job's factor."""
    rng = np.random.default_rng(5)
    jobs = list(factor_of_job)
    for i in range(launches):
        job = jobs[i % len(jobs)]
        folder = root / "launches" / f"{i:03d}"
        write_launch(folder, seed=700 + i, launch_factor=factor_of_job[job] * math.exp(rng.normal(0, 0.02)),
                     schema=2, nrep=60)
        meta_path = folder / "meta.json"
        meta = json.loads(meta_path.read_text())
        meta["environment"] = {"SLURM_JOB_ID": job, "SLURM_STEP_ID": str(i // len(jobs)),
                               "SLURM_STEP_NODELIST": f"node[{int(job) - 100}-{int(job) - 99}]"}
        meta_path.write_text(json.dumps(meta))
    return root


def test_a_planted_factor_of_one_allocation_in_three_is_named_with_the_variance_components(tmp_path):
    folder = _campaign(tmp_path / "c", {"101": 1.0, "102": 1.0, "103": 1.6})
    res = analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))
    assert len(res.allocations) == len(res.rows) == 4
    for c in res.allocations:
        assert c.allocations == ("101 on node[1-2]", "102 on node[2-3]", "103 on node[3-4]")
        assert c.launches == (4, 4, 4)
        assert c.allocation_share > 0.9 and c.p_adjusted < 1e-3 and c.p_adjusted >= c.p_value
        assert c.between_allocations_ns2 > 10 * c.between_launches_ns2
    (w,) = [w for w in res.warnings if w.code == "allocation-effect"]
    assert w.message.startswith("c: the Slurm allocation is a factor: in 4 of its 4 row(s)"), w.message
    assert "103 on node[3-4]: 4 launches" in w.message
    (effect,) = res.launch_effects
    assert effect.high_launches == (2, 5, 8, 11)  # the launches of job 103
    done = CliRunner().invoke(command, [str(folder), "--no-cache", "--format", "json"])
    assert done.exit_code == 0, done.output
    out = json.loads(done.stdout)
    assert len(out["allocations"]) == 4 and out["allocations"][0]["launches"] == [4, 4, 4]
    assert any(w["code"] == "allocation-effect" for w in out["warnings"])
    text = CliRunner().invoke(command, [str(folder), "--no-cache"], env={"COLUMNS": "250"})
    assert text.exit_code == 0, text.output
    assert "between Slurm allocations and between launches" in text.stdout
    assert "103 on node[3-4] (4)" in text.stdout
    # the Holm-adjusted p, which the warning and the report decide on, beside the row's own
    header = next(line for line in text.stdout.splitlines() if "allocation share" in line)
    assert "p (no allocation effect)" in header and "p (Holm)" in header
    block = allocations_html(res)  # the report's block of the same components
    assert 'id="allocations"' in block and block.count("<tr>") == 1 + 4
    assert "101 on node[1-2]: 4; 102 on node[2-3]: 4; 103 on node[3-4]: 4" in block


def test_two_allocations_apart_are_the_property_that_explains_the_launch_effect_and_the_states(tmp_path):
    folder = _campaign(tmp_path / "c", {"101": 1.0, "102": 1.6})
    res = analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))
    (effect,) = res.launch_effects
    assert effect.high_launches == (1, 3, 5, 7, 9, 11)
    named = [s for s in effect.separating if s.what == ALLOCATION[0]]
    assert named and named[0].explains, effect.separating
    assert named[0].high_values == ("102 on node[2-3]",)
    (w,) = [w for w in res.warnings if w.code == "launch-clusters"]
    assert "Slurm allocation" in w.message
    (states,) = res.states
    assert states.property == ALLOCATION[0]


def test_allocations_alike_are_not_named(tmp_path):
    folder = _campaign(tmp_path / "c", {"101": 1.0, "102": 1.0, "103": 1.0})
    res = analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))
    assert not any(s.what == ALLOCATION[0] and s.explains for e in res.launch_effects for s in e.separating)
    assert not res.states
    assert len(res.allocations) == 4
    assert not [w for w in res.warnings if w.code == "allocation-effect"]


def test_outside_slurm_no_components(tmp_path):
    for i in range(6):
        write_launch(tmp_path / "c" / "launches" / f"{i:03d}", seed=800 + i, schema=2, nrep=30)
    res = analysis.analyze(analysis.load_campaign(tmp_path / "c", cache=False, store=False))
    assert res.allocations == () and allocations_html(res) == ""
