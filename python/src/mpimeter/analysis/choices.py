# SPDX-License-Identifier: BSD-3-Clause
"""The names the analysis accepts for its settings: outlier filters, clocks, the alternatives
and ratio intervals of ``compare``, the kinds of guidelines, the libraries ``tune`` writes files
for, and the metrics ``compare`` and ``gate`` compare. Apart from the modules that use them and
importing nothing heavy, so that the command line offers them as choices without loading numpy
or pandas."""

from __future__ import annotations

from typing import Literal, get_args

Outlier = Literal["tukey", "none", "mpibench", "trim25"]
Clock = Literal["auto", "global", "online", "local"]
OUTLIERS: tuple[str, ...] = get_args(Outlier)
CLOCKS: tuple[str, ...] = get_args(Clock)
# how the warm-up is found (stats.repetitions.WARMUP_RULES): the tool's rank test, or Roth 2021
# §4.5's cumulative-minimum rule taken literally
WarmupRule = Literal["rank", "cummin"]
WARMUP_RULES: tuple[str, ...] = get_args(WarmupRule)
WARMUP_RULE_TEXT = {"rank": "rank (a rank-sum trend test, Roth 2021 §4.5's categories)",
                    "cummin": "cummin (Roth 2021 §4.5 literally: cumulative minimum drops by 10 % of the median)"}
Alternative = Literal["two-sided", "less", "greater"]
RatioCI = Literal["hodges-lehmann", "bootstrap"]
ALTERNATIVES: tuple[str, ...] = get_args(Alternative)
RATIO_CIS: tuple[str, ...] = get_args(RatioCI)

# What compare and gate compare: "time" is the run time (one-way latency for ping-pongs, as
# analyze reports them); "overhead" the CPU time nonblocking collectives take from the caller,
# init + test + wait (analysis.nbc, NBCBench §4).
METRICS = {"time": "run time (one-way latency for ping-pongs)",
           "overhead": "overhead of nonblocking collectives: init + test + wait, max over ranks (NBCBench)"}

# the performance guidelines (analysis.guidelines): an operation against its mock-up, against
# itself at the next larger size, against two calls at half the size, a regular collective
# against its irregular (v) form with the same counts
GUIDELINE_KINDS = ("mock-up", "monotony", "split", "irregular")

# regular op -> (its irregular form, the irregular form's size per regular size: 1, or "nprocs"
# where the regular op's size is one block of nprocs); both must be rows of the binary's table
REGULAR_IRREGULAR: dict[str, tuple[str, int | str]] = {
    "allgather": ("allgatherv", 1), "gather": ("gatherv", 1), "scatter": ("scatterv", 1),
    "alltoall": ("alltoallv", 1), "reduce_scatter_block": ("reduce_scatter", "nprocs"),
}

# the libraries whose tuning files `tune` writes (analysis.tuning)
TUNED_LIBRARIES = ("openmpi", "mpich")
