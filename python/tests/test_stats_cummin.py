# SPDX-License-Identifier: BSD-3-Clause
"""Roth 2021 §4.5 taken literally (``analyze --warmup-rule cummin``): series whose categories are
known by construction, and the rule reaching analyze beside the default rank test."""

import json

import numpy as np
from click.testing import CliRunner
from data.synth import write_launch

from mpimeter.cli.analyze import command
from mpimeter.stats import cummin, warmup
from mpimeter.stats.repetitions import reduce_launch_test


def flat(n: int = 200) -> np.ndarray:
    """100 ± 1, never below 99: the cumulative minimum moves by at most 1 after the start."""
    return 100.0 + np.sin(np.arange(n))


def test_a_step_down_at_30_ends_the_warmup_there():
    x = flat()
    x[0], x[1:30] = 200.0, 150.0  # first, then a plateau; the cumulative minimum falls 50 at 30
    cats = cummin.categorize_cummin(x)
    assert cats.warmup_end == 30 and cats.warmup_length == 29
    names = [warmup.NAMES[c] for c in cats.codes]
    assert names[0] == "first" and set(names[1:30]) == {"warmup"} and set(names[30:]) == {"good"}


def test_the_drop_is_measured_against_a_tenth_of_the_median_inclusively():
    # the median is 100 (n odd, most values 100): a drop of exactly 10 is a cliff, 9.9 is not
    x = np.full(101, 100.0)
    x[:40] = 110.0
    assert cummin.cummin_end(x) == 40
    x[:40] = 109.9
    assert cummin.cummin_end(x) == 0


def test_a_drop_before_repetition_10_is_no_warmup():
    x = flat()
    x[:5] = 150.0  # the cliff is at 5 < 10; after it the minimum never falls by 10 again
    assert cummin.cummin_end(x) == 0
    assert cummin.categorize_cummin(x).counts() == {"first": 1, "warmup": 0, "outlier": 0, "good": 199}


def test_the_first_drop_at_10_or_later_wins_over_a_larger_later_one():
    x = flat()
    x[:12] = 120.0
    x[12:50] = 105.0  # −15 at 12 (≥ 10 % of the median 100), then −6 at 50: w = 12
    assert cummin.cummin_end(x) == 12


def test_outliers_are_twice_the_median_but_warmup_comes_first():
    x = flat()
    x[0], x[1:30] = 200.0, 150.0
    x[10], x[100], x[150] = 250.0, 250.0, 190.0  # median ≈ 100: 250 is an outlier, 190 is not
    cats = cummin.categorize_cummin(x)
    assert cats.codes[10] == warmup.WARMUP  # inside the warm-up: the earlier category wins
    assert cats.codes[100] == warmup.OUTLIER and cats.codes[150] == warmup.GOOD


def test_short_and_empty_series_have_no_warmup():
    assert cummin.categorize_cummin(np.array([])).warmup_end == 0
    x = np.array([200.0] + [100.0] * 10)  # 11 values: the only drop is at 1
    assert cummin.cummin_end(x) == 0
    assert cummin.cummin_end(np.array([200.0] * 10 + [100.0])) == 10  # w = 10 is allowed


def test_one_fast_repetition_is_a_warmup_for_roth_but_not_for_the_rank_test():
    # the case the default rule was made for: a single repetition 15 % faster at 60
    x = flat(300)
    x[60] = 85.0
    ok = np.ones(x.size, dtype=bool)
    literal = reduce_launch_test(x, ok, outlier="none", warmup_rule="cummin")
    default = reduce_launch_test(x, ok, outlier="none")
    assert literal.warmup_length == 59 and literal.counts["warmup"] == 59
    assert default.warmup_length == 0 and default.counts["warmup"] == 0


def fast_at_60(op, size, rng, n):
    x = 100_000.0 + 1_000.0 * np.sin(np.arange(n))
    x[0], x[60] = 120_000.0, 85_000.0
    return x


def test_analyze_applies_and_names_the_rule(tmp_path):
    for i in range(2):
        write_launch(tmp_path / "c" / "launches" / f"{i:03d}", seed=i, ops=("bcast",), sizes=(8,), nrep=120,
                     time_fn=fast_at_60)
    outs = {}
    for rule in ("rank", "cummin"):
        r = CliRunner().invoke(command, [str(tmp_path / "c"), "--format", "json", "--per-launch",
                                         "--warmup-rule", rule])
        assert r.exit_code == 0, r.output
        outs[rule] = json.loads(r.stdout)
    assert outs["cummin"]["settings"]["warmup_rule"] == "cummin"
    assert outs["rank"]["settings"]["warmup_rule"] == "rank"
    per = {rule: [s["warmup_length"] for s in out["launch_summaries"]] for rule, out in outs.items()}
    assert per == {"rank": [0, 0], "cummin": [59, 59]}
    table = CliRunner().invoke(command, [str(tmp_path / "c"), "--warmup-rule", "cummin"], env={"COLUMNS": "250"})
    assert "warm-up rule: cummin (Roth 2021 §4.5 literally" in " ".join(table.stdout.split())


def test_an_unknown_rule_exits_2_naming_the_choices(tmp_path):
    write_launch(tmp_path / "c" / "launches" / "000", seed=0, ops=("bcast",), sizes=(8,), nrep=30)
    r = CliRunner().invoke(command, [str(tmp_path / "c"), "--warmup-rule", "median"])
    assert r.exit_code == 2 and "rank" in r.output and "cummin" in r.output


def test_another_scheme_refuses_the_rule(tmp_path):
    write_launch(tmp_path / "c" / "launches" / "000", seed=0, ops=("bcast",), sizes=(8,), nrep=30)
    r = CliRunner().invoke(command, [str(tmp_path / "c"), "--scheme", "osu", "--warmup-rule", "cummin"])
    assert r.exit_code == 2 and "--warmup-rule applies to --scheme ours only" in r.output
