# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter gate`: exit 0 / 1 / 2."""

import json
import shutil

import pytest
from click.testing import CliRunner
from data.synth import write_campaign, write_launch
from data.testkit import golden_copy

from mpimeter.cli.gate import command, parse_fraction


def run(*args):
    return CliRunner().invoke(command, [str(a) for a in args])


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The three campaigns, written once: writing them costs ten times copying them."""
    root = tmp_path_factory.mktemp("gate-campaigns")
    write_campaign(root / "base", 8, seed=1, nrep=30)
    write_campaign(root / "same", 8, seed=2, nrep=30)
    write_campaign(root / "slow", 8, seed=3, nrep=30, shift=1.15)
    return root


@pytest.fixture
def campaigns(written, tmp_path):
    """A test's own copy of the three campaigns: gate writes its cache into them, and a test may
    add to the folder."""
    for name in ("base", "same", "slow"):
        shutil.copytree(written / name, tmp_path / name)
    return tmp_path


def test_regression_exits_1_and_lists_the_rows(campaigns):
    r = run(campaigns / "base", campaigns / "slow", "--max-slowdown", "5%")
    assert r.exit_code == 1, r.output
    assert r.stdout.count("REGRESSION") == 4 and "regressions" in r.stdout
    assert "ratio: Hodges–Lehmann" in " ".join(r.stdout.split())  # which estimator the ratio is


def test_no_regression_exits_0(campaigns):
    assert run(campaigns / "base", campaigns / "same", "--max-slowdown", "5%").exit_code == 0
    assert run(campaigns / "base", campaigns / "slow", "--max-slowdown", "0.3").exit_code == 0


def test_json(campaigns):
    r = run(campaigns / "base", campaigns / "slow", "--format", "json")
    out = json.loads(r.stdout)
    assert r.exit_code == 1 and out["passed"] is False and out["max_slowdown"] == 0.05
    assert all(row["regression"] for row in out["rows"])


def test_bad_input_exits_2(tmp_path, campaigns):
    r = run(campaigns / "base", golden_copy(tmp_path, "malformed_raw"))
    assert r.exit_code == 2 and "raw.csv:7" in r.stderr
    r = run(campaigns / "base", golden_copy(tmp_path, "disjoint_b"))
    assert r.exit_code == 2 and "no (op, size) in common" in r.stderr
    assert run(campaigns / "base", campaigns / "slow", "--max-slowdown", "five").exit_code == 2


def test_parse_fraction():
    assert parse_fraction("5%") == pytest.approx(0.05)
    assert parse_fraction("0.1") == pytest.approx(0.1)
    assert parse_fraction("250%") == pytest.approx(2.5)
    for text in ("-3%", "10", "1", "5", "1.5", "1000%", "nan", "five"):
        with pytest.raises(ValueError):
            parse_fraction(text)


@pytest.mark.parametrize("args, message", [
    (("--max-slowdown", "20"), "--max-slowdown 20: must be a fraction in [0, 1) or a percentage in [0%, 1000%) "
                               "(did you mean 20%?)"),
    (("--max-slowdown", "-5%"), "--max-slowdown -5%: must be a fraction in [0, 1)"),
    (("--max-slowdown", "nan"), "--max-slowdown nan: must be"),
    (("--max-slowdown", "five"), "--max-slowdown five: must be a fraction (0.05) or a percentage (5%)"),
    (("--alpha", "0.9"), "--alpha 0.9: must be between 0.0001 and 0.5"),
    (("--alpha", "nan"), "--alpha nan: must be between 0.0001 and 0.5"),
    (("--tukey-k", "-1"), "--tukey-k -1: must be a finite number ≥ 0"),
    (("--outlier", "mpibench", "--mpibench-a", "0.5"), "--mpibench-a 0.5: must be a finite number ≥ 1"),
    (("--mpibench-a", "3"), "--mpibench-a: only with --outlier mpibench (the filter is tukey)"),
    (("--confidence", "nan"), "--confidence nan: must be between 0.5 and 0.999"),
])
def test_bad_options_exit_2_with_one_line_naming_the_option(campaigns, args, message):
    r = run(campaigns / "base", campaigns / "slow", *args)
    assert r.exit_code == 2
    assert r.stderr.startswith(f"mpimeter gate: error: {message}")
    assert r.stderr.count("\n") == 1 and not r.stdout


def test_json_rows_say_significant_how_p_was_computed_and_the_ratio_of_medians(campaigns):
    out = json.loads(run(campaigns / "base", campaigns / "slow", "--format", "json").stdout)
    for row in out["rows"]:
        assert row["significant"] is True and row["p_method"] in ("exact", "exact-permutation")
        assert row["ratio_of_medians"] == pytest.approx(row["median_candidate_ns"] / row["median_baseline_ns"])
    strict = json.loads(run(campaigns / "base", campaigns / "slow", "--format", "json", "--alpha", "0.0001").stdout)
    assert strict["passed"] is True  # 8 launches a side: p ≥ 1 / C(16, 8) = 7.8e-5, × 4 rows
    assert all(not r["significant"] and r["stars"] == "" and not r["regression"] for r in strict["rows"])
    assert "significant" in run(campaigns / "base", campaigns / "slow").stdout


def mixed_campaign(root, seed, shift=1.0):
    """allreduce 8 in 10 launches, bcast 8 in the first 3 only."""
    for i in range(10):
        write_launch(root / "launches" / f"{i:03d}", seed=seed * 100 + i, nrep=20, sizes=(8,),
                     ops=("allreduce", "bcast") if i < 3 else ("allreduce",), launch_factor=shift)
    return root


def test_low_power_is_judged_on_the_row_with_the_fewest_launches(tmp_path):
    base = mixed_campaign(tmp_path / "base", 1)
    cand = mixed_campaign(tmp_path / "cand", 2)
    out = json.loads(run(base, cand, "--format", "json").stdout)
    (w,) = [w for w in out["warnings"] if w["code"] == "low-power"]
    assert "with 3 and 3 launches (bcast/8)" in w["message"] and w["where"] == "bcast/8"


def test_gate_rows_takes_slice_keys_with_its_default_one_way():
    """Keys of several p / work pieces are (op, size, (p, root, workpieces)): the default one-way rule
    must accept them (it took only (op, size) and raised TypeError)."""
    import numpy as np

    from mpimeter.analysis.gating import gate_rows

    rng = np.random.default_rng(7)
    base = {("mw-workpieces", 8, (2, None, w)): rng.normal(100, 1, 20) for w in (1, 32)}
    cand = {k: v * (1.3 if k[2][2] == 32 else 1.0) for k, v in base.items()}
    rows = gate_rows(base, cand, max_slowdown=0.05, alpha=0.05)
    assert [(r.workpieces, r.significant) for r in rows] == [(1, False), (32, True)]
    assert not any(r.one_way for r in rows)


def test_a_campaign_gated_against_itself_is_refused(campaigns):
    # it would pass whatever it measured: exit 2, one line, for the same text and for two names of it
    (campaigns / "alias").symlink_to(campaigns / "base")
    for other in (campaigns / "base", campaigns / "alias", f"{campaigns}/./base"):
        r = run(campaigns / "base", other)
        assert r.exit_code == 2, r.output
        assert "the same campaign" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_an_empty_path_is_no_campaign(campaigns, monkeypatch):
    # Path("") is the working directory: `gate '' ''` would gate it against itself
    monkeypatch.chdir(campaigns / "base")
    for args in (("", ""), ("", campaigns / "base")):
        r = run(*args)
        assert r.exit_code == 2 and "an empty path names no folder" in r.stderr, r.output


def test_campaigns_of_different_p_without_a_common_row_exit_2_naming_them(tmp_path):
    # a side measured at two p holds keys (op, size, slice): the message listed them as (op, size)
    # pairs and raised ValueError (a traceback, exit 1) instead of saying what differs
    for i, p in enumerate((2, 4)):
        write_launch(tmp_path / "base" / "launches" / f"{i:03d}", seed=1 + i, nrep=20, nprocs=p)
    write_launch(tmp_path / "cand" / "launches" / "000", seed=3, nrep=20, nprocs=3)
    r = run(tmp_path / "base", tmp_path / "cand", "--per-repetition", "--allow-mixed")
    assert r.exit_code == 2, r.output
    line = r.stderr.strip()
    assert len(line.splitlines()) == 1 and "no (op, size) in common" in line
    assert "baseline allreduce 8, allreduce 1024, bcast 8, bcast 1024 (p = 2, 4)" in line and "(p = 3)" in line


def test_per_repetition_says_it_tested_repetitions_in_the_table_as_in_the_json(campaigns):
    # the table's footer said "candidate per-launch medians against baseline medians" under
    # --per-repetition, while the JSON's test said repetitions pooled over launches
    text = " ".join(run(campaigns / "base", campaigns / "slow", "--per-repetition").stdout.split())
    assert "rank-sum of candidate repetitions pooled over launches against baseline repetitions × 1.05" in text
    assert "per-launch medians" not in text
    out = json.loads(run(campaigns / "base", campaigns / "slow", "--per-repetition", "--format", "json").stdout)
    assert out["test"].endswith("repetitions pooled over launches")
    plain = " ".join(run(campaigns / "base", campaigns / "slow").stdout.split())
    assert "rank-sum of candidate per-launch medians against baseline medians × 1.05" in plain


def test_rows_of_one_side_only_are_named_either_way(tmp_path):
    # the candidate's new rows are as ungated as the baseline's lost ones: both are named
    base = write_campaign(tmp_path / "base", 6, seed=1, nrep=20, ops=("allreduce", "bcast"), sizes=(8,))
    cand = write_campaign(tmp_path / "cand", 6, seed=2, nrep=20, ops=("allreduce", "barrier"), sizes=(8,))
    r = CliRunner().invoke(command, [str(base), str(cand), "--no-cache", "--format", "json"])
    assert r.exit_code in (0, 1), r.output
    said = sorted(w["message"] for w in json.loads(r.stdout)["warnings"] if w["code"] == "missing-rows")
    assert len(said) == 2
    assert said[0].startswith("1 (op, size) of the baseline are not in the candidate and were not gated: bcast")
    assert said[1].startswith("1 (op, size) of the candidate are not in the baseline and were not gated: barrier")
