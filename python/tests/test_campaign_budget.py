# SPDX-License-Identifier: BSD-3-Clause
"""The tests' time budget (mpimeter-bench --launch-budget-s) is kept inside the launch timeout, so a
test ends with its rows (incomplete, ended_by budget) before the timeout kills the launch (issue 24)."""

from types import SimpleNamespace

from data.fakebench import cli, fake_env, template  # noqa: F401

from mpimeter.campaign import limits
from mpimeter.campaign.benchargs import BenchArgs


def validated(budget):
    return SimpleNamespace(config={"procsync_params": {"launch_budget_s": budget}})


def test_a_timeout_shorter_than_the_default_budget_lowers_it():
    args, notes = limits.budget_within_timeout(BenchArgs.parse(["--ops", "bcast"]), validated(240.0), 60.0)
    assert args.value("--launch-budget-s") == "48"
    assert args.value("--ops") == "bcast"
    assert len(notes) == 1 and "60 s launch timeout" in notes[0] and "240" in notes[0]


def test_a_long_timeout_keeps_the_binarys_default():
    args, notes = limits.budget_within_timeout(BenchArgs.parse(["--ops", "bcast"]), validated(240.0), 300.0)
    assert args.value("--launch-budget-s") is None and notes == []


def test_a_budget_the_user_gave_is_kept_as_given():
    given = BenchArgs.parse(["--launch-budget-s", "100"])
    args, notes = limits.budget_within_timeout(given, validated(240.0), 30.0)
    assert args.value("--launch-budget-s") == "100" and notes == []


def test_a_binary_without_the_option_is_left_alone():
    args, notes = limits.budget_within_timeout(BenchArgs.parse([]), SimpleNamespace(config={}), 10.0)
    assert args.argv() == [] and notes == []


def _meta_argv(campaign) -> list[str]:
    import json
    state = json.loads((campaign / "campaign.json").read_text())
    folder = next(r["folder"] for r in state["launches"] if r["status"] == "complete")
    return json.loads((campaign / folder / "meta.json").read_text())["argv"]


def _budget(argv: list[str]) -> str | None:
    return argv[argv.index("--launch-budget-s") + 1] if "--launch-budget-s" in argv else None


def test_resume_with_a_longer_timeout_lets_the_derived_budget_follow_it(fake_env):
    # the first run's 10 s timeout kept the tests to 8 s; resumed with 100 s, the launches still
    # to run get 80 s, not the 8 s that would end their tests early
    tmp, opts = fake_env
    opts = [*opts[:opts.index("--mpi")], "--mpi", "openmpi", *opts[opts.index("--mpi") + 2:]]
    camp = tmp / "c"
    first = cli([*opts, "--launches", "1", "--retries", "0", "--launch-timeout", "10", "--out", str(camp)],
                env={"FAKE_BENCH_MODE": "fail"})
    assert first.exit_code == 1, first.output
    again = cli(["--resume", str(camp), "--launch-timeout", "100", "--launcher", template(tmp), "--retries", "0"])
    assert again.exit_code == 0, again.output
    assert _budget(_meta_argv(camp)) == "80"
    assert "--launch-budget-s: the tests' time budget is 80 s for the launches still to run (was 8 s)" in again.output


def test_resume_keeps_a_budget_the_user_gave(fake_env):
    tmp, opts = fake_env
    opts = [*opts[:opts.index("--mpi")], "--mpi", "openmpi", *opts[opts.index("--mpi") + 2:]]
    camp = tmp / "c"
    first = cli([*opts, "--launches", "1", "--retries", "0", "--launch-timeout", "10", "--launch-budget-s", "7",
                 "--out", str(camp)], env={"FAKE_BENCH_MODE": "fail"})
    assert first.exit_code == 1, first.output
    again = cli(["--resume", str(camp), "--launch-timeout", "5", "--launcher", template(tmp), "--retries", "0"])
    assert again.exit_code == 0, again.output
    assert _budget(_meta_argv(camp)) == "7"
    assert "--launch-budget-s 7 (given) is kept: the launch timeout of 5 s may kill a launch" in again.output
