# SPDX-License-Identifier: BSD-3-Clause
"""The bounds of every campaign-level number (docs/FORMAT.md, "campaign.json"), checked on the
command line and again when `--resume` reads them from campaign.json. Each bound keeps a typo
or a forged file from taking the machine down: one record per launch is held in memory and
rewritten with campaign.json around every launch, `--launcher local` starts every rank on this
machine, and a launch timeout is a wait.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

from mpimeter.campaign.plan import SEED_LIMIT, PlanError

if TYPE_CHECKING:
    from mpimeter.campaign.benchargs import BenchArgs

MAX_NP = 65536                 # ranks per launch
LOCAL_RANKS_PER_CPU = 64       # --launcher local: every rank on this machine
MAX_LAUNCHES = 10_000          # launches per alternative (Hunold & Carpen-Amarie §4.2: 10-30)
MAX_ALTERNATIVES = 64
MAX_TOTAL_LAUNCHES = 20_000    # launches x alternatives: the records of campaign.json
MAX_RETRIES = 10               # rounds of retries at the end
MAX_LAUNCH_TIMEOUT_S = 7 * 86400.0
MAX_DERIVED_LAUNCH_TIMEOUT_S = 86400.0  # a derived limit beyond a day says the plan is too big
MAX_TRIALS = 100               # reproducibility --trials
MAX_ATTEMPTS = 10_000          # attempts of one launch, over all sessions


def check_int(flag: str, value: int, low: int, high: int, why: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PlanError(f"{flag} {value!r}: must be an integer")
    if value < low:
        raise PlanError(f"{flag} {value}: must be at least {low}")
    if value > high:
        raise PlanError(f"{flag} {value}: must be at most {high}{why}")
    return value


def max_local_np() -> int:
    return LOCAL_RANKS_PER_CPU * len(os.sched_getaffinity(0))


def check_np(np: int, *, local: bool = False, flag: str = "--np") -> int:
    check_int(flag, np, 1, MAX_NP)
    if local and np > max_local_np():
        raise PlanError(f"{flag} {np}: with --launcher local every rank runs on this machine: at "
                        f"most {LOCAL_RANKS_PER_CPU} per core ({max_local_np()} here); give "
                        "another --launcher to run on several hosts")
    return np


def check_launches(launches: int, alternatives: int = 1, *, flag: str = "--launches") -> int:
    check_int(flag, launches, 1, MAX_LAUNCHES)
    if alternatives > MAX_ALTERNATIVES:
        raise PlanError(f"{alternatives} alternatives (libraries and variants): at most "
                        f"{MAX_ALTERNATIVES}")
    if launches * alternatives > MAX_TOTAL_LAUNCHES:
        raise PlanError(f"{flag} {launches} × {alternatives} alternatives: at most "
                        f"{MAX_TOTAL_LAUNCHES} launches in all")
    return launches


def check_retries(retries: int) -> int:
    return check_int("--retries", retries, 0, MAX_RETRIES)


def check_seed(seed: int, *, flag: str = "--seed") -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_LIMIT:
        raise PlanError(f"{flag} {seed}: must be an integer between 0 and {SEED_LIMIT}")
    return seed


def check_trials(trials: int) -> int:
    return check_int("--trials", trials, 2, MAX_TRIALS)


def check_launch_timeout(seconds: float, *, flag: str = "--launch-timeout") -> float:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise PlanError(f"{flag} {seconds!r}: must be a number of seconds")
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_LAUNCH_TIMEOUT_S):
        raise PlanError(f"{flag} {seconds:g}: must be a number of seconds, more than 0 and at "
                        f"most {MAX_LAUNCH_TIMEOUT_S:g}")
    return float(seconds)


def check_test_timeout(seconds: float, launch_timeout_s: float, *, flag: str = "--test-timeout") -> float:
    """A test's limit (campaign.testretry): more than 0 and at most the launch's, which stops a
    launch, and so its test, anyway."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise PlanError(f"{flag} {seconds!r}: must be a number of seconds")
    if not (math.isfinite(seconds) and 0 < seconds <= launch_timeout_s):
        raise PlanError(f"{flag} {seconds:g}: must be a number of seconds, more than 0 and at "
                        f"most the launch timeout ({launch_timeout_s:g} s)")
    return float(seconds)


def cap_derived_timeout(seconds: float) -> tuple[float, str]:
    """The derived launch timeout, at most MAX_DERIVED_LAUNCH_TIMEOUT_S, and the note saying so."""
    if seconds <= MAX_DERIVED_LAUNCH_TIMEOUT_S:
        return seconds, f"launch timeout {seconds:g} s, derived from the plan"
    return MAX_DERIVED_LAUNCH_TIMEOUT_S, (
        f"launch timeout {MAX_DERIVED_LAUNCH_TIMEOUT_S:g} s: the plan's derived {seconds:.3g} s, "
        f"capped (give --launch-timeout for up to {MAX_LAUNCH_TIMEOUT_S:g} s)")


# A launch's tests share --launch-budget-s; the launch timeout kills the whole launch. The budget
# is kept to this share of the timeout, so that the tests end (incomplete, with their rows) and the
# launch writes its files before the timeout would kill it mid-test.
BUDGET_SHARE_OF_TIMEOUT = 0.8


def budget_within_timeout(bench_args: BenchArgs, validated, timeout_s: float) -> tuple[BenchArgs, list[str]]:
    """--launch-budget-s lowered to BUDGET_SHARE_OF_TIMEOUT of the launch timeout when the
    binary's default (its resolved configuration says it) would outlast the timeout; a value
    the user gave is kept as given."""
    budget = (validated.config.get("procsync_params") or {}).get("launch_budget_s")
    limit = round(BUDGET_SHARE_OF_TIMEOUT * timeout_s, 1)
    if budget is None or bench_args.value("--launch-budget-s") is not None or budget <= limit:
        return bench_args, []
    return (bench_args.with_values({"--launch-budget-s": f"{limit:g}"}),
            [f"--launch-budget-s {limit:g}: the tests' time budget kept to {BUDGET_SHARE_OF_TIMEOUT:.0%} of the "
             f"{timeout_s:g} s launch timeout (the binary's default is {budget:g} s), so that a test ends "
             "with its rows before the timeout would kill the launch"])
