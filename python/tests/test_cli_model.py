# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter model`: Hockney's α + β·m per (alternative, op) with intervals, the piecewise model
with its breakpoints, and the fit error per size — as a table, JSON ({"rows": [...]}, FORMAT.md)
and CSV; exit 2 when nothing can be modelled or on bad input."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from data.report.synth_campaign import LaunchSpec, write_campaign

from mpimeter.cli import main

KEYS = ("alternative", "op", "alpha_ns", "beta_ns_per_byte", "alpha_ci_ns", "beta_ci", "segments", "max_rel_error")


def invoke(*args):
    return CliRunner().invoke(main, ["model", *map(str, args)])


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    # run times 800 + 150·k ns + 0.35 ns/B (synth_campaign.base_run_time_ns), 4 sizes, 6 launches
    spec = LaunchSpec(ops=("allreduce",), sizes=(8, 1024, 16384, 65536), nrep=80, slow_rank=None)
    return write_campaign(tmp_path_factory.mktemp("model") / "c", {"openmpi": spec}, launches=6, seed=3)


def test_json_rows(campaign):
    r = invoke(campaign, "--format", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    (row,) = out["rows"]
    assert all(k in row for k in KEYS) and row["alternative"] == "openmpi" and row["op"] == "allreduce"
    assert row["alpha_ci_ns"][0] < row["alpha_ns"] < row["alpha_ci_ns"][1]
    assert row["beta_ns_per_byte"] == pytest.approx(0.35, rel=0.1)  # the synthetic slope, through launch noise
    assert [s["size"] for s in row["sizes"]] == [8, 1024, 16384, 65536] and out["skipped"] == []


def test_table_and_csv(campaign):
    r = invoke(campaign)
    assert r.exit_code == 0 and "ns/B" in r.stdout and "breakpoints" in r.stdout
    r = invoke(campaign, "--format", "csv", "--max-breakpoints", "0")
    lines = r.stdout.splitlines()
    assert r.exit_code == 0 and len(lines) == 2 and lines[0].startswith("alternative,op,launches")
    assert "breakpoints_bytes" in lines[0] and ",," in lines[1]  # no breakpoint allowed: an empty list


def test_nothing_to_model_and_bad_input(tmp_path):
    spec = LaunchSpec(ops=("bcast",), sizes=(8, 1024), nrep=20, slow_rank=None)
    two_sizes = write_campaign(tmp_path / "b", {"openmpi": spec}, launches=2, seed=1)
    r = invoke(two_sizes)
    assert r.exit_code == 2 and "no operation can be modelled (openmpi bcast: 2 size(s); a model needs at least 3)" \
        in r.stderr
    assert invoke(tmp_path / "none").exit_code == 2
    r = invoke(two_sizes, "--max-breakpoints", "9")
    assert r.exit_code == 2 and r.stderr.startswith("mpimeter model: error:")


def test_one_launch_is_not_checked_never_none(tmp_path):
    """One launch (issue 25): no interval of α and β, and the missed-sizes cell says the sizes were
    not checked — "none" would claim a check that did not happen."""
    spec = LaunchSpec(ops=("allreduce",), sizes=(8, 1024, 16384, 65536), nrep=40, slow_rank=None)
    one = write_campaign(tmp_path / "one", {"openmpi": spec}, launches=1, seed=5)
    r = invoke(one, "--format", "json")
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)["rows"]
    assert row["alpha_ci_ns"] is None and row["beta_ci"] is None and row["interval"] == "none"
    assert row["unchecked_sizes"] == [s["size"] for s in row["sizes"] if s["missed"] is None]
    assert row["unchecked_sizes"] and row["missed_sizes"] == [s["size"] for s in row["sizes"] if s["missed"]]
    r = invoke(one)
    assert r.exit_code == 0 and "not checked" in r.stdout and "no interval" in r.stdout


def test_models_in_p_alone_print_no_empty_size_table(tmp_path):
    # `run --np 2,3,4 --sizes 8,1024`: no p has the 3 sizes of a model in m, the model in m and p
    # is made; the table of size models was printed empty, its footer saying "the error exceeds
    # 0 %" (the largest threshold of no row) beside --max-error's 20 %
    from test_analysis_multip import _lognormal, np_campaign

    def time_of(p, index):
        return _lognormal(lambda op, size: 200.0 * (p - 1) + 0.5 * size)

    three = np_campaign(tmp_path / "three", {2: 3, 3: 3, 4: 3}, time_of, seed=4)
    r = invoke(three)
    assert r.exit_code == 0, r.output
    assert "models in m and p" in r.stdout and "not modelled: openmpi bcast p=2: 2 size(s)" in r.stdout
    assert "exceeds 0 %" not in r.stdout and "Hockney" not in r.stdout
    # the CSV holds models in m only: for models in m and p alone it says so (it printed nothing, exit 0)
    r = invoke(three, "--format", "csv")
    assert r.exit_code == 2 and "--format csv holds the models in m" in r.stderr and "--format json" in r.stderr
    both = np_campaign(tmp_path / "both", {2: 3, 3: 3, 4: 3}, time_of, seed=4, sizes=(8, 1024, 16384))
    r = invoke(both, "--format", "csv")  # rows of the models in m, and a word of those it leaves out
    assert r.exit_code == 0 and r.stdout.count("\n") > 1, r.output
    assert "model(s) in m and p are not in the CSV" in r.stderr
    two = np_campaign(tmp_path / "two", {2: 3, 4: 3}, time_of, seed=5)
    r = invoke(two)  # nothing to model: the reason in p is named beside the reasons in m
    assert r.exit_code == 2 and "openmpi bcast in p: 2 process counts; a model in p needs at least 3" in r.stderr


def test_sizes_not_checked_beside_intervals_of_alpha_and_beta_say_which_interval_is_missing(tmp_path):
    # 4 launches: α and β have intervals (the jackknife needs 3), the medians none (6 for 95 %);
    # "not checked: all size(s) (4 launches: no interval; …)" beside "589 ns [581 ns, 597 ns]"
    spec = LaunchSpec(ops=("allreduce",), sizes=(8, 1024, 16384, 65536), nrep=40, slow_rank=None)
    four = write_campaign(tmp_path / "four", {"openmpi": spec}, launches=4, seed=6)
    r = invoke(four, "--format", "json")
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)["rows"]
    assert row["alpha_ci_ns"] is not None and row["unchecked_sizes"]
    r = CliRunner().invoke(main, ["model", str(four)], env={"COLUMNS": "400"})  # the cell on one line
    assert r.exit_code == 0 and "(4 launches: no interval of the median;" in r.stdout, r.stdout
