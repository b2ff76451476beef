# SPDX-License-Identifier: BSD-3-Clause
"""From the run times of one test in one launch to its summary (Hunold & Carpen-Amarie 2016,
Algorithm 3, lines 4–6, with Roth 2021 §4.5 categories in front):

1. invalid repetitions (valid = 0) are dropped and counted;
2. the valid ones, in repetition order, get the categories first / warmup / outlier / good,
   with a warm-up only where a rank test finds a significant, material trend
   (``mpimeter.stats.warmup``; ``warmup_rule="cummin"``: Roth's own rule, ``mpimeter.stats.cummin``);
   with ``drop_warmup`` the first and warm-up repetitions are
   dropped;
3. the outlier filter removes what it removes (counted);
4. the rest is summarized; for point-to-point operations the rate size / run time is summarized
   with the harmonic mean (Hoefler & Belli 2015, rule 3).

Cost: O(n log n) for n repetitions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mpimeter.stats import cummin, outliers, summary, warmup

INVALID = 4  # category code of invalid repetitions, after warmup.FIRST … warmup.GOOD
CATEGORY_NAMES = warmup.NAMES + ("invalid",)
WARMUP_RULES = {"rank": warmup.categorize, "cummin": cummin.categorize_cummin}  # analysis.choices.WARMUP_RULES


@dataclass(frozen=True, kw_only=True)
class LaunchTestStats:
    codes: np.ndarray  # int8 per repetition: warmup codes, INVALID for valid = 0
    kept: np.ndarray  # bool per repetition: used in the summary
    n_total: int
    n_invalid: int
    n_warmup_dropped: int
    removed: int
    warmup_length: int  # 0 unless the warm-up is significant (``warmup.detect_warmup``)
    warmup_p: float  # p-value of the warm-up test (NaN: series too short to test)
    warmup_significant: bool
    counts: dict[str, int]
    summary: summary.Summary
    bandwidth_Bps: float | None


def reduce_launch_test(
    run_times_ns: np.ndarray,
    valid: np.ndarray,
    *,
    outlier: str = "tukey",
    k: float = 1.5,
    a: float = 2.0,
    drop_warmup: bool = False,
    warmup_rule: str = "rank",
    rate_bytes: int | None = None,
) -> LaunchTestStats:
    """``run_times_ns`` and ``valid`` in repetition order. ``rate_bytes``: the message size, to
    summarize the rate size / run time (bytes per second) of point-to-point operations.
    ``warmup_rule``: a key of :data:`WARMUP_RULES`."""
    x = np.asarray(run_times_ns, dtype=float)
    ok = np.asarray(valid, dtype=bool)
    n_total = int(x.size)
    codes = np.full(n_total, INVALID, dtype=np.int8)
    kept = np.zeros(n_total, dtype=bool)
    xv = x[ok]
    cats = WARMUP_RULES[warmup_rule](xv)
    codes[ok] = cats.codes
    use = np.ones(xv.size, dtype=bool)
    n_warm = 0
    if drop_warmup:
        use = cats.codes > warmup.WARMUP
        n_warm = int(xv.size - use.sum())
    candidates = xv[use]
    keep = outliers.keep_mask(candidates, outlier, k=k, a=a)
    used = np.zeros(xv.size, dtype=bool)
    used[np.nonzero(use)[0][keep]] = True
    kept[np.nonzero(ok)[0][used]] = True
    final = xv[used]
    bw = None
    if rate_bytes is not None and rate_bytes > 0 and final.size and np.all(final > 0):
        bw = summary.harmonic_mean(rate_bytes / (final * 1e-9))
    return LaunchTestStats(
        codes=codes,
        kept=kept,
        n_total=n_total,
        n_invalid=int(n_total - ok.sum()),
        n_warmup_dropped=n_warm,
        removed=int(candidates.size - keep.sum()),
        warmup_length=cats.warmup_length,
        warmup_p=cats.warmup_p,
        warmup_significant=cats.warmup_significant,
        counts=cats.counts(),
        summary=summary.summarize(final),
        bandwidth_Bps=bw,
    )
