# SPDX-License-Identifier: BSD-3-Clause
"""Summaries of one sample: order statistics, moments, and the harmonic mean for rates.

Percentiles use linear interpolation (numpy's default). The standard deviation is the sample
one (ddof = 1); CoV = std / mean. The harmonic mean is the summary of rates (Hoefler & Belli
2015 §3.1.1, rule 3): n / Σ 1/x, which equals size / mean(time) for rates size/time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np


@dataclass(frozen=True, kw_only=True)
class Summary:
    n: int
    median: float
    mean: float
    min: float
    max: float
    q1: float
    q3: float
    p90: float
    p95: float
    p99: float
    std: float
    cov: float


_NAN = float("nan")


def summarize(x: np.ndarray) -> Summary:
    """Summary of a 1-D sample; every field is NaN for an empty sample, std/cov NaN for n = 1."""
    x = np.asarray(x, dtype=float)
    n = int(x.size)
    if n == 0:
        return Summary(n=0, **dict.fromkeys((f.name for f in fields(Summary) if f.name != "n"), _NAN))
    q = np.percentile(x, [50.0, 25.0, 75.0, 90.0, 95.0, 99.0])
    mean = float(x.mean())
    std = float(x.std(ddof=1)) if n > 1 else _NAN
    cov = std / mean if n > 1 and mean != 0 else _NAN
    return Summary(
        n=n,
        median=float(q[0]),
        mean=mean,
        min=float(x.min()),
        max=float(x.max()),
        q1=float(q[1]),
        q3=float(q[2]),
        p90=float(q[3]),
        p95=float(q[4]),
        p99=float(q[5]),
        std=std,
        cov=cov,
    )


def harmonic_mean(x: np.ndarray) -> float:
    """n / Σ 1/x for positive rates; NaN for an empty sample or any value ≤ 0."""
    x = np.asarray(x, dtype=float)
    if x.size == 0 or np.any(x <= 0) or not np.all(np.isfinite(x)):
        return _NAN
    return float(x.size / np.sum(1.0 / x))


def spread(x: np.ndarray) -> float:
    """max / min of a positive sample (the launch-to-launch spread of medians); NaN if empty."""
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return _NAN
    lo = float(x.min())
    return float(x.max()) / lo if lo > 0 else math.inf
