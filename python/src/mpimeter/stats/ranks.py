# SPDX-License-Identifier: BSD-3-Clause
"""Midranks and tie groups of rows of values, from one stable sort: scipy's ``rankdata``
("average") gives the same numbers, but its checks and array-API dispatch cost more than the
ranking itself on the few values of a campaign's launches or of one series (the rank-sum test,
Kendall's W, the warm-up trend test), which are ranked thousands of times."""

from __future__ import annotations

import numpy as np


def midranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The midranks of each row of ``x`` (a 1-D array: one row) and each row sorted. A rank is the
    mean of the first and last 1-based positions of its value's run among the sorted values, a
    half-integer, exact whatever the arithmetic: scipy's numbers for values without NaN (a row
    with NaN gets finite ranks here where scipy's are NaN; callers rule it out or ignore it)."""
    rows = np.atleast_2d(x)
    order = np.argsort(rows, axis=1, kind="stable")
    ordered = np.take_along_axis(rows, order, axis=1)
    size = rows.shape[1]
    position = np.arange(1, size + 1)
    starts = _run_starts(ordered)
    ends = np.ones(rows.shape, dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, position, size + 1)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty(rows.shape)
    np.put_along_axis(ranks, order, (first + last) / 2, axis=1)
    return (ranks, ordered) if np.ndim(x) == 2 else (ranks[0], ordered[0])


def tie_sizes(ordered: np.ndarray) -> np.ndarray:
    """The sizes of the runs of equal values in each sorted row of ``ordered`` (a 1-D array: one
    row), all rows' runs together (integers: a sum of t³ − t over them is exact in any order)."""
    starts = np.flatnonzero(_run_starts(np.atleast_2d(ordered)))
    return np.diff(np.append(starts, np.size(ordered)))


def _run_starts(ordered: np.ndarray) -> np.ndarray:
    """Where each sorted row's runs of equal values start (a row's first value always does)."""
    starts = np.ones(ordered.shape, dtype=bool)
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=starts[:, 1:])
    return starts
