# SPDX-License-Identifier: BSD-3-Clause
"""The options `mpimeter run` passes on to mpimeter-bench: checked and resolved from the binary's
own description (`mpimeter.campaign.describe`), never from a list kept here.

1. every value the user gave is checked in the binary's words (type, range, names), with the
   description of each binary of the campaign;
2. the campaign's bench arguments are the user's options plus the ones that define a launch's
   tests, written out with the binary's defaults (`--ops`, `--sizes`, `--nrep`, `--procsync`),
   so that campaign.json says what ran;
3. every binary then checks the whole command line as a launch of `np` ranks would
   (`mpimeter-bench --validate NP`): combinations (a datatype and a reduction, sizes and a
   datatype, a root and the number of ranks) are refused in its words before anything runs;
   the clock sync it resolves (`auto`) is written out too;
4. the launch timeout is derived from the configuration it resolved.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mpimeter.campaign import describe as _describe
from mpimeter.campaign.benchargs import BenchArgs
from mpimeter.campaign.plan import PlanError

# What a campaign writes out even when the user left it to the binary's default: the options
# that say which tests a launch runs and how it starts them (campaign.json must say what ran).
WRITTEN_OUT = ("ops", "sizes", "nrep", "procsync")


@dataclass(frozen=True)
class ResolvedArgs:
    args: BenchArgs  # the bench arguments of every launch (without --seed and --out)
    validated: _describe.Validated  # what the (first) binary resolved them to
    notes: list[str]


def describe_all(binaries: Sequence[str | Path]) -> list[_describe.Description]:
    try:
        return [_describe.describe(b) for b in binaries]
    except _describe.DescribeError as exc:
        raise PlanError(str(exc)) from None


def resolve(binaries: Sequence[str | Path], values: Mapping[str, object], extra: BenchArgs,
            np: int) -> ResolvedArgs:
    """Checks and resolves the bench arguments against every binary of the campaign: the
    options given by name (``values``), then ``extra`` (given after `--`). PlanError with the
    binary's words when one refuses them."""
    distinct = list(dict.fromkeys(str(b) for b in binaries))
    descs = describe_all(distinct)
    validated = []
    try:
        # every binary of the campaign must know and accept the options given
        args = [BenchArgs.of(_describe.option_pairs(d, "bench", dict(values), written_out=WRITTEN_OUT))
                for d in descs][0]
        for desc in descs:
            validated.append(_describe.validate(desc.binary, (args + extra).argv(), np))
    except _describe.DescribeError as exc:
        raise PlanError(str(exc)) from None
    notes = []
    if values.get("clocksync") in (None, "auto"):
        chosen = sorted({v.config.get("clocksync") for v in validated} - {None})
        if len(chosen) == 1:
            # a sync chosen by auto is left to each launch: one whose ranks all read one kernel
            # clock runs none (meta.json clock_sync.chosen); none stays none everywhere
            written = "none" if chosen[0] == "none" else "auto"
            args = args.without("--clocksync") + BenchArgs.of([("--clocksync", written)])
            notes.append(f"clock sync {chosen[0]}: mpimeter-bench's choice for --procsync "
                         f"{validated[0].config.get('procsync')}"
                         + ("" if written == "none" else
                            ", or none in a launch whose ranks all read one kernel clock"))
    return ResolvedArgs(args + extra, validated[0], notes)


def validate_all(binaries: Sequence[str | Path], args: BenchArgs, np: int) -> None:
    """The resolved bench arguments checked again by every binary as a launch of `np` ranks
    (--np LIST: the arguments must suit every process count). PlanError with the binary's words."""
    try:
        for binary in dict.fromkeys(str(b) for b in binaries):
            _describe.validate(binary, args.argv(), np)
    except _describe.DescribeError as exc:
        raise PlanError(f"with {np} ranks: {exc}") from None


def default_launch_timeout(validated: _describe.Validated, np: int, *, floor_s: float = 300.0,
                           ncpus: int | None = None) -> float:
    """A generous per-launch time limit from the resolved plan: 60 s for start-up and clock sync,
    plus 10 × tests × (nrep + warm-up) × a pessimistic time per repetition (the window, at least
    2 ms, plus 10 ns per byte per rank, plus 2 ns per --cold-cache byte); never below `floor_s`.
    Oversubscribed runs (more ranks than cores) are slower by the oversubscription factor. Why
    so generous: the window adapts (it doubles while many repetitions miss it), and on a loaded
    2-core machine it was seen to grow to 10 ms; a launch stopped by the limit is lost, a late one
    is not. With --sizes auto every operation may get --sizes-budget more sizes (counted at the
    largest); with --nrep auto a test ends by its --nrep-budget-s at the latest (twice for the two
    phases of a nonblocking collective), which caps the estimate."""
    cfg = validated.config
    ops = cfg.get("ops") or []
    sizes = list(cfg.get("sizes") or [0])
    refine, rule = cfg.get("sizes_auto"), cfg.get("nrep_auto")
    if isinstance(refine, dict):
        sizes += [int(refine.get("max") or 0)] * int(refine.get("budget") or 0)
    reps = int(cfg.get("nrep") or 0) + max(10, int(cfg.get("warmup") or 0))
    window_s = float(cfg.get("window_us") or 0.0) * 1e-6
    cold_cache_s = 2 * int(cfg.get("cold_cache_bytes") or 0) * 1e-9
    total = 0.0
    for size in sizes:
        per_rep = max(window_s, 2e-3) + cold_cache_s + int(size) * np * 1e-8
        total += len(ops) * reps * per_rep
    ncpus = ncpus or len(os.sched_getaffinity(0))
    oversubscription = max(1.0, np / max(1, ncpus))
    estimate = 60.0 + 10.0 * total * oversubscription
    if isinstance(rule, dict) and rule.get("budget_s"):
        # the budget bounds each test; 5 s more for its pilot, gathers and a slow start
        bound = 60.0 + len(ops) * len(sizes) * (2 * float(rule["budget_s"]) + 5.0) * oversubscription
        estimate = min(estimate, bound)
    return round(max(floor_s, estimate))
