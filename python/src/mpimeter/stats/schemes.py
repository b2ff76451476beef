# SPDX-License-Identifier: BSD-3-Clause
"""The processing schemes of other MPI benchmarks: how each turns the repetitions of one test in
one run into the numbers it prints (Hunold & Carpen-Amarie 2016, §2 and Table 4 "Commonly used
processing schemes (PS) for benchmark data"). Pure functions over one launch's run times; which
data a launch can give them is decided by ``mpimeter.analysis.schemes``.

Inputs: ``local_ns`` of shape (ranks, repetitions), each rank's local run time (end − start) of
the repetitions kept, or ``max_ns`` of shape (repetitions,), the maximum over ranks per
repetition (what ``--raw reduced`` and ReproMPI's local run times keep). Every scheme returns a
:class:`SchemeValue`: its headline (the number the tool prints first, the one people quote) and
every number it prints.

- ``skampi`` (PS1, SKaMPI): per repetition the maximum over ranks; sorted; the central half kept
  (the ⌊n/4⌋ fastest and ⌊n/4⌋ slowest dropped, as ``outliers`` ``trim25``: Reussner et al.
  1998 §3.1); its mean (headline) and standard deviation.
- ``mpiblib`` (PS2, MPIBlib, mpicoscope, NBCBench): per repetition the maximum over ranks; its
  mean (headline), minimum and maximum.
- ``osu`` (PS3, OSU Micro-Benchmarks): each rank's mean over the repetitions; the mean over
  ranks of these (headline ``avg``), their minimum and maximum.
- ``mpiblib-global`` (PS4, MPIBlib on global times): per repetition the latest end over ranks
  on the global clock minus the root's (rank 0's) global start; their mean (headline) with its
  Student t interval (MPIBlib stops on a confidence interval of the mean: Lastovetsky et al., as
  quoted in §2), minimum and maximum.
- ``mpibench`` (PS5, MPIBench): all p·n local run times pooled; those above a·t₉₉ removed
  (t₉₉ the 99th percentile, a = 2: Grove & Coddington, as quoted in §2); mean (headline),
  minimum and maximum of the rest.
- ``imb`` (PS6, Intel MPI Benchmarks, Phloem): each rank's mean over the repetitions (IMB times
  them back to back, Table 3 MS2; on per-repetition data the mean of the per-repetition times);
  the maximum over ranks (headline ``t_max``, IMB's basis for bandwidth), minimum and mean.
- ``mpptest`` (PS7, mpptest): the root's (rank 0's) time of each repetition — under mpptest's
  own measurement (MS2, ``mpimeter-bench --batch N``) the mean of N back-to-back calls — and the
  minimum over the repetitions (headline), "min_{1≤i≤k} t̄_i" (§2).

``osu`` and ``imb`` reduce the same per-rank means and differ in the headline only (avg against
t_max); what separates the tools more is how they measure (a barrier before each call, or
back-to-back calls), which no processing of per-repetition data can reproduce.

Cost: O(p·n) (``skampi`` and ``mpibench``: a sort or a percentile, O(n log n)).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats as _st

from mpimeter.stats import outliers

MPIBENCH_A = 2.0


@dataclass(frozen=True)
class SchemeValue:
    headline: float  # ns
    stats: dict[str, float] = field(default_factory=dict)  # every number the scheme prints, ns
    used: int = 0  # values that entered the headline (after the scheme's own filter)
    removed: int = 0  # values the scheme's filter dropped (SKaMPI's trimming, MPIBench's threshold)


def _ranks(local_ns: np.ndarray) -> np.ndarray:
    x = np.asarray(local_ns, dtype=float)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError("local_ns must be a non-empty (ranks, repetitions) array")
    return x


def _series(max_ns: np.ndarray) -> np.ndarray:
    x = np.asarray(max_ns, dtype=float)
    if x.ndim != 1 or x.size < 1:
        raise ValueError("max_ns must be a non-empty 1-D array")
    return x


def max_over_ranks(local_ns: np.ndarray) -> np.ndarray:
    """l^max[obs] = MAX_p(l^t_local[obs]) (Table 4, PS1 and PS2 line 3)."""
    return _ranks(local_ns).max(axis=0)


def skampi(max_ns: np.ndarray) -> SchemeValue:
    """PS1: mean and standard deviation of the central half of the sorted maxima."""
    x = _series(max_ns)
    keep = outliers.keep_mask(x, "trim25")
    kept = x[keep]
    std = float(np.std(kept, ddof=1)) if kept.size > 1 else float("nan")
    mean = float(np.mean(kept))
    return SchemeValue(mean, {"mean": mean, "stdev": std}, int(kept.size), int(x.size - kept.size))


def mpiblib(max_ns: np.ndarray) -> SchemeValue:
    """PS2: mean, minimum and maximum of the maxima over ranks."""
    x = _series(max_ns)
    mean = float(np.mean(x))
    return SchemeValue(mean, {"mean": mean, "min": float(x.min()), "max": float(x.max())}, int(x.size))


def osu(local_ns: np.ndarray) -> SchemeValue:
    """PS3: the mean over ranks of each rank's mean (avg), and their minimum and maximum."""
    means = _ranks(local_ns).mean(axis=1)
    avg = float(np.mean(means))
    return SchemeValue(avg, {"avg": avg, "min": float(means.min()), "max": float(means.max())}, int(np.size(local_ns)))


def mpibench(local_ns: np.ndarray, *, a: float = MPIBENCH_A) -> SchemeValue:
    """PS5: every rank's run times pooled; those above a·t₉₉ removed; mean, minimum, maximum."""
    x = _ranks(local_ns).ravel()
    keep = outliers.keep_mask(x, "mpibench", a=a)
    kept = x[keep]
    mean = float(np.mean(kept))
    return SchemeValue(mean, {"avg": mean, "min": float(kept.min()), "max": float(kept.max())}, int(kept.size),
                       int(x.size - kept.size))


def imb(local_ns: np.ndarray) -> SchemeValue:
    """PS6: each rank's mean; their maximum (t_max, the headline), minimum and mean over ranks."""
    means = _ranks(local_ns).mean(axis=1)
    t_max = float(means.max())
    return SchemeValue(t_max, {"t_min": float(means.min()), "t_max": t_max, "t_avg": float(np.mean(means))},
                       int(np.size(local_ns)))


def mpiblib_global(gstart_ns: np.ndarray, gend_ns: np.ndarray, *, root: int = 0,
                   confidence: float = 0.95) -> SchemeValue:
    """PS4: l^t[obs] = MAX_p(global end[obs]) − the root's global start[obs]; their mean with its
    Student t interval, minimum and maximum. Inputs of shape (ranks, repetitions), rows in rank
    order (``root`` is a row index)."""
    start = _ranks(gstart_ns)
    end = _ranks(gend_ns)
    if start.shape != end.shape:
        raise ValueError("gstart_ns and gend_ns must have the same shape")
    if not 0 <= root < start.shape[0]:
        raise ValueError(f"root {root} is not a row of the (ranks, repetitions) arrays")
    t = end.max(axis=0) - start[root]
    mean = float(np.mean(t))
    if t.size > 1:
        half = float(_st.t.ppf(0.5 + confidence / 2, t.size - 1) * np.std(t, ddof=1) / np.sqrt(t.size))
        low, high = mean - half, mean + half
    else:
        low = high = float("nan")
    return SchemeValue(mean, {"mean": mean, "ci_low": low, "ci_high": high, "min": float(t.min()),
                              "max": float(t.max())}, int(t.size))


def mpptest(local_ns: np.ndarray, *, root: int = 0) -> SchemeValue:
    """PS7: the minimum over repetitions of the root's time (its row ``root``)."""
    x = _ranks(local_ns)
    if not 0 <= root < x.shape[0]:
        raise ValueError(f"root {root} is not a row of the (ranks, repetitions) array")
    low = float(x[root].min())
    return SchemeValue(low, {"min": low}, int(x.shape[1]))
