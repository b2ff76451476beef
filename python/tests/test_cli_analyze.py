# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter analyze`: the table, JSON and CSV, and exit 2 naming the file for bad input."""

import json

import pytest
from click.testing import CliRunner
from data.synth import write_launch
from data.testkit import golden_copy

from mpimeter.cli.analyze import command

ANALYZE_KEYS = {"op", "size", "launches", "median_ns", "median_ci_low_ns", "median_ci_high_ns", "mean_ns",
                "spread", "outliers_removed"}


def run(*args):
    return CliRunner().invoke(command, [str(a) for a in args])


def test_table_has_one_row_per_op_and_size_with_intervals(tmp_path):
    r = run(golden_copy(tmp_path, "campaign_a"))
    assert r.exit_code == 0, r.output
    assert "median [95 % CI]" in r.stdout
    for op in ("allreduce", "bcast"):
        assert r.stdout.count(f" {op} ") >= 2
    assert "[no interval]" in r.stdout  # 4 launches
    assert "clock: run time per repetition from the global clock as measured online" in r.stdout
    assert "[too-few-launches]" in r.stdout


def test_json_output_follows_format_md(tmp_path):
    r = run(golden_copy(tmp_path, "alternatives"), "--format", "json")
    assert r.exit_code == 0
    out = json.loads(r.stdout)
    assert len(out["rows"]) == 8 and {row["alternative"] for row in out["rows"]} == {"openmpi", "mpich"}
    for row in out["rows"]:
        assert ANALYZE_KEYS <= set(row)
    for w in out["warnings"]:
        assert {"code", "message", "hint"} <= set(w)
    assert out["settings"]["outlier"] == "tukey" and "clock" in out


def test_csv_output(tmp_path):
    r = run(golden_copy(tmp_path, "campaign_a"), "--format", "csv", "--outlier", "trim25")
    lines = r.stdout.strip().splitlines()
    assert r.exit_code == 0 and len(lines) == 5
    assert ANALYZE_KEYS <= set(lines[0].split(","))


def test_options_reach_the_analysis(tmp_path):
    r = run(golden_copy(tmp_path, "campaign_a"), "--format", "json", "--outlier", "none", "--clock", "local",
            "--confidence", "0.9", "--drop-warmup", "--per-launch")
    out = json.loads(r.stdout)
    assert out["settings"] == {"outlier": "none", "tukey_k": 1.5, "mpibench_a": 2.0, "drop_warmup": True,
                               "warmup_rule": "rank", "clock": "local", "confidence": 0.9}
    assert all(row["outliers_removed"] == 0 and row["clock"] == "local" for row in out["rows"])


def test_a_single_launch_folder(tmp_path):
    r = run(golden_copy(tmp_path, "campaign_a") / "launches" / "001")
    assert r.exit_code == 0 and "[one-launch]" in r.stdout


@pytest.mark.parametrize("name,needle", [
    ("not_a_campaign", "not_a_campaign: is not a campaign or launch folder"),
    ("empty_launches", "holds no launch folder"),
    ("malformed_raw", "launches/000/raw.csv:7: column valid"),
    ("bad_meta_json", "launches/000/meta.json:"),
    ("unknown_schema", "launches/000/meta.json: has schema_version 99"),
    ("raw_meta_mismatch", "launches/000/raw.csv:4: op differs"),
    ("missing_raw", "launches/000/raw.csv: is missing"),
])
def test_bad_input_exits_2_naming_the_file(tmp_path, name, needle):
    r = run(golden_copy(tmp_path, name), "--no-cache")
    assert r.exit_code == 2
    assert needle in r.stderr
    assert r.stderr.startswith("mpimeter analyze: error: ")
    assert "Traceback" not in r.output


def test_truncated_and_incomplete_launches_are_used_with_warnings(tmp_path):
    r = run(golden_copy(tmp_path, "truncated_raw"))
    assert r.exit_code == 0
    assert "[truncated-line]" in r.stdout and "raw.csv:122" in r.stdout and "[incomplete-launch]" in r.stdout
    r = run(golden_copy(tmp_path, "incomplete"))
    assert r.exit_code == 0 and "2 of 4 tests finished" in r.stdout


def test_a_missing_path_exits_2(tmp_path):
    r = run(tmp_path / "nowhere")
    assert r.exit_code == 2 and "does not exist" in r.stderr


def test_the_mean_is_a_point_value_in_the_table_and_keeps_its_documented_interval_in_json(tmp_path):
    # launches 5 × apart: the plain t interval of 2 means would reach far below 0 ns; JSON's
    # documented columns keep it clamped at 0, the table shows the mean alone
    for i, factor in enumerate((1.0, 5.0)):
        write_launch(tmp_path / "c" / "launches" / f"{i:03d}", seed=i, launch_factor=factor,
                     ops=("bcast",), sizes=(8,), nrep=30)
    r = run(tmp_path / "c", "--format", "json")
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)["rows"]
    assert row["mean_ci_low_ns"] == 0.0 and row["mean_ci_high_ns"] > 2 * row["mean_ns"]
    table = CliRunner().invoke(command, [str(tmp_path / "c")], env={"COLUMNS": "250"})
    text = " ".join(table.stdout.split())
    assert "[0 ns, " not in text and "mean [" not in text and "t interval" not in text
    assert "mean: mean of the per-launch means, a point value (no interval: a launch state the campaign did " \
           "not see would lie outside any interval computed from its launches)" in text


def test_a_campaign_without_usable_data_exits_2_saying_why(tmp_path):
    for i in range(3):
        write_launch(tmp_path / "dead" / "launches" / f"{i:03d}", seed=i, finished=0, status="failed")
    for fmt in ("table", "json", "csv"):
        r = run(tmp_path / "dead", "--format", fmt)
        assert r.exit_code == 2 and r.stdout == ""
        assert r.stderr.count("\n") == 1
        assert "no data to analyze: none of its 3 launch(es) (3 failed) finished a test" in r.stderr
        assert "no launch is complete" in r.stderr
    write_launch(tmp_path / "dead" / "launches" / "003", seed=3)  # one good launch: analyzed
    assert run(tmp_path / "dead", "--format", "csv").exit_code == 0


def test_a_complete_launch_whose_every_test_failed_says_why(tmp_path):
    # every test of a complete launch failed (no rank started at the window's planned starts):
    # the refusal gives the binary's reason and hint, not only "none ... finished a test"
    folder = tmp_path / "busy" / "launches" / "000"
    write_launch(folder, seed=1, finished=0, ops=("bcast",), sizes=(8, 64), schema=2)
    meta = json.loads((folder / "meta.json").read_text())
    why = "no valid repetition among 5 recorded (0 redone): ..., ended by --nrep with start method window"
    for t in meta["tests"]:
        t.update(status="failed", nrep=0, error={"code": "no-valid-repetitions", "message": why})
    first = meta["tests"][0]
    meta["conditions"] = [{"code": "test-failed", "message": "...", "where": f"test {t['test']} ({t['op']} {t['size']})",
                           "hint": "run with --procsync barrier"} for t in meta["tests"]]
    (folder / "meta.json").write_text(json.dumps(meta))
    r = run(tmp_path / "busy")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert "none of its 1 launch(es) (1 complete) finished a test; 2 test(s) failed (2 no-valid-repetitions), " \
           f"e.g. {first['op']} {first['size']}: {why} (run with --procsync barrier)" in r.stderr, r.stderr
