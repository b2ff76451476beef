# SPDX-License-Identifier: BSD-3-Clause
"""Across launches — the launch is a factor and the unit of replication (Hunold &
Carpen-Amarie 2016 §4.2): the distribution of per-launch medians and means.

- median of per-launch medians with Le Boudec's order-statistic interval (Hoefler & Belli
  2015 §3.1.3);
- mean of per-launch means with a t interval, its lower bound clamped at 0 (run times are not
  negative; with 2–3 launches the plain interval can reach below 0), and Shapiro–Wilk on the
  means, whose failure is shown (the t interval is then not to be trusted);
- spread = max / min of per-launch medians;
- rates (bandwidth) by the harmonic mean of per-launch rates (rule 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mpimeter.stats import intervals, summary


@dataclass(frozen=True, kw_only=True)
class AcrossLaunches:
    launches: int
    median: intervals.Interval
    mean: intervals.Interval
    normality: intervals.Normality | None
    spread: float
    bandwidth_Bps: float | None


def across_launches(
    medians: np.ndarray, means: np.ndarray, *, confidence: float = 0.95, rates: np.ndarray | None = None
) -> AcrossLaunches:
    medians = np.asarray(medians, dtype=float)
    means = np.asarray(means, dtype=float)
    bw = None
    if rates is not None:
        r = np.asarray([v for v in rates if v is not None], dtype=float)
        bw = summary.harmonic_mean(r) if r.size else None
    return AcrossLaunches(
        launches=int(medians.size),
        median=intervals.median_ci(medians, confidence),
        mean=intervals.t_interval(means, confidence, nonnegative=True),
        normality=intervals.shapiro_wilk(means),
        spread=summary.spread(medians),
        bandwidth_Bps=bw,
    )
