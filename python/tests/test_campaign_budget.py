# SPDX-License-Identifier: BSD-3-Clause
"""The tests' time budget (mpimeter-bench --launch-budget-s) is kept inside the launch timeout, so a
test ends with its rows (incomplete, ended_by budget) before the timeout kills the launch (issue 24)."""

from types import SimpleNamespace

from mpimeter.campaign import spec
from mpimeter.campaign.benchargs import BenchArgs


def validated(budget):
    return SimpleNamespace(config={"procsync_params": {"launch_budget_s": budget}})


def test_a_timeout_shorter_than_the_default_budget_lowers_it():
    args, notes = spec._budget_within_timeout(BenchArgs.parse(["--ops", "bcast"]), validated(240.0), 60.0)
    assert args.value("--launch-budget-s") == "48"
    assert args.value("--ops") == "bcast"
    assert len(notes) == 1 and "60 s launch timeout" in notes[0] and "240" in notes[0]


def test_a_long_timeout_keeps_the_binarys_default():
    args, notes = spec._budget_within_timeout(BenchArgs.parse(["--ops", "bcast"]), validated(240.0), 300.0)
    assert args.value("--launch-budget-s") is None and notes == []


def test_a_budget_the_user_gave_is_kept_as_given():
    given = BenchArgs.parse(["--launch-budget-s", "100"])
    args, notes = spec._budget_within_timeout(given, validated(240.0), 30.0)
    assert args.value("--launch-budget-s") == "100" and notes == []


def test_a_binary_without_the_option_is_left_alone():
    args, notes = spec._budget_within_timeout(BenchArgs.parse([]), SimpleNamespace(config={}), 10.0)
    assert args.argv() == [] and notes == []
