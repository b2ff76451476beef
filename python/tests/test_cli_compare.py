# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter compare`."""

import json

import pytest
from click.testing import CliRunner
from data.synth import write_campaign
from data.testkit import golden_copy

from mpimeter.cli.compare import command

COMPARE_KEYS = {"op", "size", "median_a_ns", "median_b_ns", "ratio", "ratio_ci_low", "ratio_ci_high", "p_value",
                "p_adjusted", "stars"}


def run(*args):
    return CliRunner().invoke(command, [str(a) for a in args])


def test_two_campaigns_json(tmp_path):
    write_campaign(tmp_path / "a", 8, seed=1, nrep=30)
    write_campaign(tmp_path / "b", 8, seed=2, nrep=30, shift=1.1)
    r = run(tmp_path / "a", tmp_path / "b", "--format", "json", "--alternative", "less")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["correction"] == "holm" and out["alternative"] == "less" and out["groups"] == ["a", "b"]
    assert len(out["rows"]) == 4
    for row in out["rows"]:
        assert COMPARE_KEYS <= set(row)
        assert row["stars"] == "***" and 1.05 < row["ratio"] < 1.15  # 8 vs 8 separated: p = 4/12870
        assert row["ratio_ci_low"] <= row["ratio"] <= row["ratio_ci_high"]


def test_table_names_test_correction_and_stars(tmp_path):
    write_campaign(tmp_path / "a", 6, seed=3, nrep=30)
    write_campaign(tmp_path / "b", 6, seed=4, nrep=30, shift=1.2)
    r = run(tmp_path / "a", tmp_path / "b")
    assert r.exit_code == 0
    assert "wilcoxon-rank-sum on per-launch medians" in r.stdout and "correction: holm" in r.stdout
    assert "ratio b/a [CI at Holm level]" in r.stdout and " ** " in r.stdout


def test_folder_of_alternatives_is_compared_within(tmp_path):
    r = run(golden_copy(tmp_path, "alternatives"), "--format", "csv")
    assert r.exit_code == 0
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 5 and lines[1].startswith("allreduce,8,openmpi,mpich,")


def test_fewer_than_three_launches_is_refused_unless_per_repetition(tmp_path):
    write_campaign(tmp_path / "a", 2, seed=5)
    write_campaign(tmp_path / "b", 2, seed=6)
    r = run(tmp_path / "a", tmp_path / "b")
    assert r.exit_code == 2 and "needs at least 3" in r.stderr and "--per-repetition" in r.stderr
    r = run(tmp_path / "a", tmp_path / "b", "--per-repetition")
    assert r.exit_code == 0 and "launch effect is ignored" in r.stdout


def test_no_common_rows_exits_2(tmp_path):
    r = run(golden_copy(tmp_path, "disjoint_a"), golden_copy(tmp_path, "disjoint_b"))
    assert r.exit_code == 2 and "no (op, size) in common" in r.stderr
    assert "allreduce 8" in r.stderr and "bcast 16" in r.stderr


def test_one_group_only_exits_2(tmp_path):
    r = run(golden_copy(tmp_path, "campaign_a"))
    assert r.exit_code == 2 and "at least two alternatives" in r.stderr


def test_bad_input_exits_2(tmp_path):
    r = run(golden_copy(tmp_path, "campaign_a"), golden_copy(tmp_path, "unknown_schema"))
    assert r.exit_code == 2 and "schema_version 99" in r.stderr


def test_alpha_out_of_range_or_nan_exits_2_naming_the_option(tmp_path):
    a = write_campaign(tmp_path / "a", 3, seed=1, nrep=20, ops=("bcast",), sizes=(8,))
    b = write_campaign(tmp_path / "b", 3, seed=2, nrep=20, ops=("bcast",), sizes=(8,))
    for value in ("nan", "0.7", "0"):
        r = run(a, b, "--alpha", value)
        assert r.exit_code == 2
        assert r.stderr == f"mpimeter compare: error: --alpha {value}: must be between 0.0001 and 0.5\n"
    r = run(a, b, "--tukey-k", "nan")
    assert r.exit_code == 2 and r.stderr == "mpimeter compare: error: --tukey-k nan: must be a finite number ≥ 0\n"


def test_campaigns_run_with_different_np_or_sync_get_a_warning_naming_them(tmp_path):
    a = write_campaign(tmp_path / "a", 3, seed=1, nrep=20, ops=("bcast",), sizes=(8,))
    b = write_campaign(tmp_path / "b", 3, seed=2, nrep=20, ops=("bcast",), sizes=(8,))
    c = write_campaign(tmp_path / "c", 3, seed=3, nrep=20, ops=("bcast",), sizes=(8,), nprocs=3,
                       procsync="roundtime")
    same = json.loads(run(a, b, "--format", "json").stdout)
    assert not any(w["code"] == "different-settings" for w in same["warnings"])
    r = run(a, c, "--format", "json")
    assert r.exit_code == 0  # a warning, not a refusal
    diff = [w for w in json.loads(r.stdout)["warnings"] if w["code"] == "different-settings"]
    assert len(diff) == 1
    assert "np (a: 2, c: 3)" in diff[0]["message"] and "procsync (a: window, c: roundtime)" in diff[0]["message"]
    assert "clocksync" not in diff[0]["message"] and "raw" not in diff[0]["message"]


def test_stars_and_significant_follow_alpha(tmp_path):
    # 6 vs 6 launches, separated: p = 2 / C(12, 6) = 0.0022 per row, 0.0087 after Holm over 4 rows
    a = write_campaign(tmp_path / "a", 6, seed=3, nrep=30)
    b = write_campaign(tmp_path / "b", 6, seed=4, nrep=30, shift=1.2)
    at_05 = json.loads(run(a, b, "--format", "json").stdout)
    assert at_05["alpha"] == 0.05
    assert all(r["stars"] == "**" and r["significant"] for r in at_05["rows"])
    r = run(a, b, "--format", "json", "--alpha", "0.005")
    strict = json.loads(r.stdout)
    assert strict["alpha"] == 0.005
    for row in strict["rows"]:
        assert row["p_adjusted"] == pytest.approx(4 * 2 / 924) and row["stars"] == "" and row["significant"] is False
    table = run(a, b, "--alpha", "0.005").stdout
    rows = [line for line in table.splitlines() if "│ a " in line and " 6/6 " in line]
    assert len(rows) == 4 and not any("*" in line for line in rows) and all(" no " in line for line in rows)
    assert "significant" in table and "α = 0.005" in " ".join(table.split())


def test_exact_p_values_make_20_separated_rows_significant_at_alpha_0_001(tmp_path):
    # 10 vs 10 launches: exact p = 2 / C(20, 10) = 1.08e-5, × 20 rows = 2.2e-4 ≤ 0.001 (the normal
    # approximation's 1.83e-4 × 20 is not)
    sizes = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
    a = write_campaign(tmp_path / "a", 10, seed=5, nrep=12, sizes=sizes)
    b = write_campaign(tmp_path / "b", 10, seed=6, nrep=12, sizes=sizes, shift=1.5)
    out = json.loads(run(a, b, "--format", "json", "--alpha", "0.001").stdout)
    assert len(out["rows"]) == 20
    for row in out["rows"]:
        assert row["p_method"].startswith("exact") and row["p_value"] == pytest.approx(2 / 184756)
        assert row["significant"] and row["stars"] == "***"
    table = " ".join(run(a, b, "--alpha", "0.001").stdout.split())
    assert "p: exact" in table and "normal-approximation" not in table


def test_rows_carry_the_ratio_of_medians_and_how_p_was_computed(tmp_path):
    a = write_campaign(tmp_path / "a", 4, seed=7, nrep=20, ops=("bcast",), sizes=(8,))
    b = write_campaign(tmp_path / "b", 4, seed=8, nrep=20, ops=("bcast",), sizes=(8,), shift=1.3)
    (row,) = json.loads(run(a, b, "--format", "json").stdout)["rows"]
    assert row["ratio_of_medians"] == pytest.approx(row["median_b_ns"] / row["median_a_ns"])
    assert row["p_method"] in ("exact", "exact-permutation")
    header = run(a, b, "--format", "csv").stdout.splitlines()[0].split(",")
    assert {"ratio_of_medians", "p_method", "significant", "stars"} <= set(header)


def test_one_folder_given_twice_or_inside_another_is_refused_as_such(tmp_path):
    # both read the same launches twice; the refusal said "two folders give the same alternative
    # name …; rename one of them", advice that cannot help when the folders are one
    write_campaign(tmp_path / "a", 3, seed=5, nrep=20)
    (tmp_path / "alias").symlink_to(tmp_path / "a")
    for first, second, said in ((tmp_path / "a", tmp_path / "a", "are the same folder"),
                                (tmp_path / "a", tmp_path / "alias", "are the same folder"),
                                (tmp_path / "a", tmp_path / "a" / "launches" / "001", "lies inside"),
                                (tmp_path / "a" / "launches" / "001", tmp_path / "a", "lies inside")):
        r = run(first, second)
        assert r.exit_code == 2, r.output
        line = r.stderr.strip()
        assert len(line.splitlines()) == 1 and said in line and "rename" not in line, line
