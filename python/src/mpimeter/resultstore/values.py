# SPDX-License-Identifier: BSD-3-Clause
"""The values a results store may hold, checked when one is read for the site or the gate: a store
is a file anyone can write, and a number no run can produce (a NaN median, a negative bound
fraction, a time beyond the plausible maximum) would otherwise be shown as if measured.

Each bound (docs/FORMAT.md, "The results store", "Values"): times in ns finite and ≥ 0, a median
> 0 (a call took place), at most :data:`mpimeter.io.rowcheck.MAX_PLAUSIBLE_NS`; fractions and
confidence levels within their range; counts ≥ 0. NULL is "not measured" and allowed. A
violation is a StoreError naming the store, the table, the row (its key) and the allowed range.
"""

from __future__ import annotations

from mpimeter.io.rowcheck import MAX_PLAUSIBLE_NS
from mpimeter.resultstore.schema import StoreError, relation

# (table, column, lowest, highest, lowest allowed itself, words for the message)
BOUNDS = (
    ("results", "median_ns", 0.0, MAX_PLAUSIBLE_NS, False, "a time in ns > 0"),
    ("results", "median_ci_low_ns", 0.0, MAX_PLAUSIBLE_NS, True, "a time in ns ≥ 0"),
    ("results", "median_ci_high_ns", 0.0, MAX_PLAUSIBLE_NS, True, "a time in ns ≥ 0"),
    ("results", "mean_ns", 0.0, MAX_PLAUSIBLE_NS, True, "a time in ns ≥ 0"),
    ("results", "confidence", 0.0, 1.0, False, "a level above 0, at most 1"),
    ("results", "spread", 0.0, float("inf"), True, "a ratio ≥ 0"),
    ("results", "bandwidth_Bps", 0.0, float("inf"), True, "a rate ≥ 0"),
    ("results", "bound_ns", 0.0, MAX_PLAUSIBLE_NS, True, "a time in ns ≥ 0"),
    ("results", "cache_bound_ns", 0.0, MAX_PLAUSIBLE_NS, True, "a time in ns ≥ 0"),
    ("results", "bound_fraction", 0.0, float("inf"), False, "bound / median: a ratio above 0"),
    ("results", "launches", 0, 2**31, True, "a count ≥ 0"),
    ("results", "size", 0, 2**62, True, "a size ≥ 0"),
    ("launch_summaries", "median_ns", 0.0, MAX_PLAUSIBLE_NS, False, "a time in ns > 0"),
    ("launch_summaries", "mean_ns", 0.0, MAX_PLAUSIBLE_NS, True, "a time in ns ≥ 0"),
    ("launch_summaries", "min_ns", 0.0, MAX_PLAUSIBLE_NS, True, "a time in ns ≥ 0"),
    ("launch_summaries", "max_ns", 0.0, MAX_PLAUSIBLE_NS, True, "a time in ns ≥ 0"),
    ("launch_summaries", "cov", 0.0, float("inf"), True, "a ratio ≥ 0"),
    ("alternatives", "nprocs", 1, 2**31, True, "a number of ranks ≥ 1"),
    ("alternatives", "latency_floor_ns", 0.0, MAX_PLAUSIBLE_NS, True, "a time in ns ≥ 0"),
    ("alternatives", "copy_bandwidth_Bps", 0.0, float("inf"), True, "a rate ≥ 0"),
)
_KEYS = {"results": ("campaign_id", "alternative", "op", "size", "nprocs", "root", "workpieces"),
         "launch_summaries": ("campaign_id", "alternative", "launch", "test", "op", "size"),
         "alternatives": ("campaign_id", "alternative")}


def check(con, store) -> None:
    """StoreError for the first value of :data:`BOUNDS` out of its range (NaN included)."""
    for table, column, low, high, low_ok, words in BOUNDS:
        above = f"{column} {'>=' if low_ok else '>'} {low!r}"
        below = f"{column} <= {high!r}" if high != float("inf") else f"{column} < 'inf'::DOUBLE"
        keys = ", ".join(_KEYS[table])
        source = relation(con, table)  # an older store, read-only: its missing columns NULL
        row = con.execute(f"SELECT {keys}, {column} FROM {source} WHERE {column} IS NOT NULL "  # noqa: S608 (names are ours)
                          f"AND NOT ({above} AND {below}) LIMIT 1").fetchone()
        if row is not None:
            key = ", ".join(f"{k} {v!r}" for k, v in zip(_KEYS[table], row[:-1]))
            allowed = f"{words}, at most {high:g}" if high != float("inf") else f"{words}, finite"
            raise StoreError(f"{store}: table {table}, row ({key}): {column} is {row[-1]!r}; allowed: {allowed} "
                             "(no run produces this value: the store was changed by hand)")
