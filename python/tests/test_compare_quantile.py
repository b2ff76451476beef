# SPDX-License-Identifier: BSD-3-Clause
"""``compare --quantile q`` (Hoefler & Belli 2015 §3.2.3): quantile regression of per-launch log
quantiles finds a tail difference the medians do not show; bad input exits 2 in one line."""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from data.synth import write_launch

from mpimeter.cli.compare import command
from mpimeter.stats.quantreg import launch_log_quantiles, quantile_ratio


def test_quantreg_on_a_binary_regressor_is_the_difference_of_medians():
    # odd launch counts: the median of each side is unique, and so is QuantReg's minimizer
    rng = np.random.default_rng(5)
    qa, qb = rng.normal(0, 0.1, 5), rng.normal(0.3, 0.1, 7)
    fit = quantile_ratio(qa, qb)
    assert fit.ratio == pytest.approx(math.exp(np.median(qb) - np.median(qa)), rel=1e-6)
    assert fit.low < fit.ratio < fit.high and (fit.launches_a, fit.launches_b) == (5, 7)


def test_too_few_launches_and_no_spread():
    assert math.isnan(quantile_ratio(np.zeros(2), np.zeros(5)).ratio)
    same = quantile_ratio(np.zeros(4), np.zeros(4))
    assert (same.ratio, same.low, same.high, same.p_value) == (1.0, 1.0, 1.0, 1.0)


def test_launch_log_quantiles_are_measured_values_of_each_launch():
    got = launch_log_quantiles([np.array([1.0, 2.0, 4.0, 8.0]), np.array([]), np.array([3.0, -1.0])], 0.75)
    assert got == pytest.approx([math.log(4.0), math.log(3.0)])  # the empty launch left out, ≤ 0 dropped


def bulk(op, size, rng, n):
    return 10_000 * rng.lognormal(0, 0.03, n)


def tail(op, size, rng, n):
    x = bulk(op, size, rng, n)
    x[rng.random(n) < 0.1] *= 1.6  # a tenth of the calls 60 % slower: the median barely moves
    return x


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory):
    root = tmp_path_factory.mktemp("q")
    for i in range(5):
        write_launch(root / "a" / "launches" / f"{i:03d}", seed=i, ops=("bcast",), sizes=(8,), nrep=200, time_fn=bulk)
        write_launch(root / "b" / "launches" / f"{i:03d}", seed=50 + i, ops=("bcast",), sizes=(8,), nrep=200,
                     time_fn=tail)
    return root


def run(*args):
    return CliRunner().invoke(command, [str(a) for a in args])


def test_the_tail_differs_where_the_median_does_not(campaigns):
    rows = {}
    for q in ("0.5", "0.95"):
        r = run(campaigns / "a", campaigns / "b", "--quantile", q, "--outlier", "none", "--format", "json")
        assert r.exit_code == 0, r.output
        out = json.loads(r.stdout)
        assert out["quantile"] == float(q) and "QuantReg" in out["method"]
        (rows[q],) = out["rows"]
    assert rows["0.95"]["ratio"] > 1.4 and rows["0.95"]["significant"]
    assert rows["0.95"]["ratio_ci_low"] < rows["0.95"]["ratio"] < rows["0.95"]["ratio_ci_high"]
    assert abs(rows["0.5"]["ratio"] - 1) < 0.05
    assert rows["0.95"]["launches_a"] == rows["0.95"]["launches_b"] == 5
    table = run(campaigns / "a", campaigns / "b", "--quantile", "0.95", "--outlier", "none")
    assert table.exit_code == 0 and "the 95 % quantiles" in table.stdout and "QuantReg" in table.stdout


@pytest.mark.parametrize("q", ["0", "1", "-0.2", "1.5", "nan"])
def test_a_quantile_outside_0_1_exits_2(campaigns, q):
    r = run(campaigns / "a", campaigns / "b", "--quantile", q)
    assert r.exit_code == 2 and "--quantile" in r.output and "between 0 and 1" in r.output
    assert "Traceback" not in r.output


@pytest.mark.parametrize("extra", [["--alternative", "less"], ["--per-repetition"], ["--ops", "bcast,reduce"],
                                   ["--ratio-ci", "bootstrap"], ["--metric", "overhead"]])
def test_median_only_options_are_refused_with_quantile(campaigns, extra):
    r = run(campaigns / "a", campaigns / "b", "--quantile", "0.9", *extra)
    assert r.exit_code == 2 and f"{extra[0]} does not go with --quantile" in r.output


def test_three_alternatives_are_refused(campaigns, tmp_path):
    write_launch(tmp_path / "c" / "launches" / "000", seed=9, ops=("bcast",), sizes=(8,), nrep=50, time_fn=bulk)
    r = run(campaigns / "a", campaigns / "b", tmp_path / "c", "--quantile", "0.9")
    assert r.exit_code == 2 and "two alternatives" in r.output and "Traceback" not in r.output


def test_metric_time_is_what_it_compares_and_is_accepted(campaigns):
    r = run(campaigns / "a", campaigns / "b", "--quantile", "0.9", "--metric", "time", "--format", "csv")
    assert r.exit_code == 0, r.output
    header = r.stdout.splitlines()[0].split(",")
    assert {"a", "b", "quantile", "ratio", "ratio_ci_low", "p_adjusted"} <= set(header)


def test_an_interval_that_excludes_1_beside_a_row_holm_does_not_reject_is_said(tmp_path):
    # six rows 8 % apart: a row's own 95 % interval can exclude 1 where Holm over the six does not
    # reject it; the table must not leave that contradiction unexplained
    sizes = (8, 16, 32, 64, 128, 256)
    for i in range(5):
        for side, seed, factor in (("a", i, 1.0), ("b", 50 + i, 1.08)):
            write_launch(tmp_path / side / "launches" / f"{i:03d}", seed=seed, ops=("bcast",), sizes=sizes, nrep=100,
                         time_fn=lambda op, size, rng, n, f=factor: f * bulk(op, size, rng, n),
                         launch_factor=float(np.random.default_rng(seed).lognormal(0, 0.03)))
    args = (tmp_path / "a", tmp_path / "b", "--quantile", "0.9", "--outlier", "none")
    rows = json.loads(run(*args, "--format", "json").stdout)["rows"]
    differ = [r for r in rows if not r["interval_agrees"]]
    assert differ, rows
    for r in rows:
        excludes = r["ratio_ci_low"] > 1 or r["ratio_ci_high"] < 1
        assert r["interval_agrees"] == (excludes == r["significant"])
    table = run(*args)
    assert table.exit_code == 0, table.output
    said = " ".join(table.stdout.split())
    assert "decision and interval differ for " + ", ".join(f"bcast {r['size']}" for r in differ) in said
    assert "the interval is at 95 % for its row alone, the decision Holm's over 6 rows" in said
