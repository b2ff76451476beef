# SPDX-License-Identifier: BSD-3-Clause
"""Are the values a series marks slower than the others, when the series is serially dependent?
The rotation test: the marks (a load pattern along the repetitions) are shifted circularly
against the values, every shift once, and the rank sum of the marked values (the Mann–Whitney
statistic) is compared with its value under every shift. A shift keeps both the values' own
dependence and the marks' contiguity, which an exchange of single repetitions destroys: on
AR(1) run times (φ = 0.9) a Mann–Whitney test of a contiguous busy stretch against the rest
rejects far more often than its level (bench/sim_stats.py, ``busy_blocks``). This is the
torus-translation test of Harms et al. 2001 (J. Ecology 89:947–959) on a line instead of a plot.

Valid when the values are stationary and independent of the marks; exact for a series whose
dependence is circular, and close to it when the series is much longer than its dependence
(the wrap joins the end to the start once). The smallest p is 1 / n (n the values): a series of
fewer than 1 / α values cannot reject at α.

Cost: one FFT of length n (every shift's rank sum is a circular cross-correlation).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from mpimeter.stats.hypothesis import TestResult


def rotation_rank_test(values: np.ndarray, marked: np.ndarray) -> TestResult:
    """One-sided: are the ``marked`` values (a boolean mask along ``values``, in series order)
    larger than the others? ``statistic`` the rank sum of the marked values; ``p_value`` the
    share of the n circular shifts of the marks whose rank sum is at least as large (the
    unshifted one included: p ≥ 1 / n). NaN when nothing or everything is marked."""
    x = np.asarray(values, dtype=float)
    mark = np.asarray(marked, dtype=bool)
    if x.shape != mark.shape or x.ndim != 1:
        raise ValueError(f"values and marked must be 1-d of one length, got {x.shape} and {mark.shape}")
    n, k = x.size, int(mark.sum())
    if k == 0 or k == n:
        return TestResult(float("nan"), float("nan"), "rotation")
    ranks = stats.rankdata(x)
    # sums[s] = Σ_i ranks[(i + s) mod n] · mark[i]: the marks shifted by s (the cross-correlation theorem)
    sums = np.fft.irfft(np.fft.rfft(ranks) * np.conj(np.fft.rfft(mark.astype(float))), n)
    observed = float(ranks[mark].sum())
    # float sums: a shift equal to the observed one counts (ties of the statistic go against rejecting)
    at_least = sums >= observed - 1e-9 * observed
    return TestResult(observed, float(at_least.sum()) / n, "rotation")
