# SPDX-License-Identifier: BSD-3-Clause
"""What ``compare`` and ``gate`` both compare: groups (one alternative of one analysis result
each) and their samples per (op, size) — per-launch medians, or repetitions pooled over
launches with ``per_repetition`` — the checks that the samples can answer the question, and
what both say about their p-values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from mpimeter.analysis.choices import METRICS
from mpimeter.analysis.loading import AnalysisError
from mpimeter.analysis.results import AnalysisResult, Row
from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import compare as _cmp
from mpimeter.warning_codes import warning


@dataclass(frozen=True)
class Group:
    """One alternative of one analysis result, under the name the comparison shows; ``metric``
    (a key of METRICS) says which of its times are compared."""

    name: str
    result: AnalysisResult
    alternative: str
    metric: str = "time"
    # (p, root[, workpieces]): only the rows of this process count, root and work pieces (
    # root None where the op has none, workpieces only for mw-workpieces rows); None: the group's
    # only one (a group measured at several is compared one slice at a time, see slices())
    at_slice: tuple | None = None

    def _all_rows(self) -> list[Row]:
        return [r for r in self.result.rows if r.alternative == self.alternative]

    def slices(self) -> list[tuple]:
        """The (p, root) — (p, root, workpieces) for mw-workpieces rows — this group measured, ascending."""
        return sorted({_slice(r) for r in self._all_rows()}, key=lambda s: tuple(-1 if v is None else v for v in s))

    def at(self, where: tuple) -> Group:
        return replace(self, at_slice=where)

    def rows(self) -> dict[tuple[str, int], Row]:
        rows = self._all_rows()
        if self.at_slice is not None:
            rows = [r for r in rows if _slice(r) == tuple(self.at_slice)]
        elif len({_slice(r) for r in rows}) > 1:
            raise AnalysisError(f"{self.name} measured {slices_text(self.slices())}: this analysis takes one "
                                "process count, root and number of work pieces at a time (compare and gate go "
                                "through them one by one)")
        return {(r.op, r.size): r for r in rows}

    def _nbc(self) -> pd.DataFrame:
        reps = self.result.nbc_repetitions
        if reps is None or reps.empty:
            return pd.DataFrame(columns=["launch", "op", "size", "overhead_ns"])
        reps = reps[reps["alternative"] == self.alternative]
        if self.at_slice is not None and "nprocs" in reps.columns:  # one (p, root) at a time
            ranks, root = self.at_slice[:2]  # nonblocking collectives hand out no work pieces
            reps = reps[(reps["nprocs"] == ranks) & (reps["root"] == (-1 if root is None else root))]
        return reps

    def samples(self, per_repetition: bool) -> dict[tuple[str, int], np.ndarray]:
        if self.metric == "overhead":
            reps = self._nbc()
            if not per_repetition:  # the median of each launch, as for run times
                reps = reps.groupby(["op", "size", "launch"], observed=True)["overhead_ns"].median().reset_index()
            return {(str(op), int(size)): g["overhead_ns"].to_numpy(dtype=float)
                    for (op, size), g in reps.groupby(["op", "size"], sort=True, observed=True)}
        if not per_repetition:
            return {k: np.array([s.median_ns for s in r.per_launch if s.n > 0]) for k, r in self.rows().items()}
        df = self.result.repetitions
        df = df[(df["alternative"] == self.alternative) & df["kept"]]
        if self.at_slice is not None and "nprocs" in df.columns:
            ranks, root = self.at_slice[:2]
            pieces = slice_pieces(self.at_slice)
            df = df[(df["nprocs"] == ranks) & (df["root"] == (-1 if root is None else root))]
            if "workpieces" in df.columns:
                df = df[df["workpieces"] == (-1 if pieces is None else pieces)]
        elif self.metric == "time":
            self.rows()  # several (p, root) without a slice: refused there
        return {(str(op), int(size)): g["run_time_ns"].to_numpy(dtype=float)
                for (op, size), g in df.groupby(["op", "size"], sort=True)}

    def launches(self, op: str, size: int) -> int:
        if self.metric == "overhead":
            reps = self._nbc()
            return int(reps.loc[(reps["op"] == op) & (reps["size"] == size), "launch"].nunique())
        r = self.rows().get((op, size))
        return r.launches if r else 0

    def max_launches(self) -> int:
        """The launches of the best-covered (op, size) of this group's metric."""
        if self.metric == "overhead":
            reps = self._nbc()
            return int(reps.groupby(["op", "size"], observed=True)["launch"].nunique().max()) if len(reps) else 0
        return max((r.launches for r in (self.rows().values() if self.at_slice is not None else self._all_rows())),
                   default=0)

    def one_way(self, op: str, size: int) -> bool:
        """Are this (op, size)'s times one-way latencies (half a round trip: ping-pongs)?"""
        if self.metric != "time":
            return False
        r = self.rows().get((op, size))
        return bool(r and r.one_way)


def _slice(row: Row) -> tuple:
    """A row's slice: (p, root), and its work pieces third where it has them (mw-workpieces), so
    that the slices of every other op stay the (p, root) pairs they were."""
    return (row.nprocs, row.root) if row.workpieces is None else (row.nprocs, row.root, row.workpieces)


def groups_of(results: Sequence[AnalysisResult], metric: str = "time") -> list[Group]:
    """Every alternative of every result, in order; a name seen before gets ``#<result number>``.
    Raises :class:`AnalysisError` for an unknown metric, or ``overhead`` without a nonblocking
    collective in some result."""
    if metric not in METRICS:
        raise AnalysisError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    out: list[Group] = []
    names: set[str] = set()
    for i, res in enumerate(results):
        for alt in res.alternatives:
            name = alt if alt not in names else f"{alt}#{i + 1}"
            names.add(name)
            out.append(Group(name, res, alt, metric))
    for g in out:
        if metric == "overhead" and g._nbc().empty:
            raise AnalysisError(f"--metric overhead compares nonblocking collectives (ibcast, iallreduce, ...): "
                                f"{g.name} has no valid repetition of a nonblocking collective")
    return out


def check_launches(groups: list[Group], per_repetition: bool) -> None:
    """Per-launch medians need at least 3 launches per group; raises :class:`AnalysisError` otherwise."""
    if per_repetition:
        return
    for g in groups:
        n = g.max_launches()
        if n < 3:
            raise AnalysisError(
                f"{g.name} has {n} launch{'es' if n != 1 else ''}: comparing per-launch medians needs at least 3 "
                "per side (better 10); use --per-repetition to compare repetitions, ignoring the launch effect")


def slices_text(slices: Sequence[tuple]) -> str:
    """(p, root[, workpieces]) in words: "p = 2, 4", "p = 4 root 0, p = 4 root 1" or
    "p = 2 workpieces 1, p = 2 workpieces 16"."""
    if all(s[1] is None and slice_pieces(s) is None for s in slices):
        return "p = " + ", ".join(str(s[0]) for s in slices)
    return ", ".join(f"p = {s[0]}" + ("" if s[1] is None else f" root {s[1]}")
                     + ("" if slice_pieces(s) is None else f" workpieces {slice_pieces(s)}") for s in slices)


def slice_label(where: tuple | None, shown: bool) -> str:
    """A suffix for messages naming a row's (p, root[, workpieces]) when the comparison holds several."""
    if not shown or where is None:
        return ""
    return (f" p={where[0]}" + ("" if where[1] is None else f" root={where[1]}")
            + ("" if slice_pieces(where) is None else f" workpieces={slice_pieces(where)}"))


def slice_pieces(where: tuple) -> int | None:
    """The work pieces of a slice; None for one without (a (p, root) pair of an older caller)."""
    return where[2] if len(where) > 2 else None


def keys_text(keys: set[tuple[str, int]]) -> str:
    """Up to six (op, size) in words, for messages."""
    items = [f"{op} {size}" for op, size in sorted(keys)]
    return ", ".join(items[:6]) + (" …" if len(items) > 6 else "") if items else "nothing"


def low_power_warning(launches: Sequence[tuple[int, int, str]], alternative: str, alpha: float,
                      per: str) -> list[AnalysisWarning]:
    """``low-power`` when the row with the fewest launches cannot be significant: ``launches``
    holds (launches a, launches b, where) per row tested; the smallest p-value of the rank-sum
    test at those sizes (``min_p_value``, by the rule the test itself follows) times the number
    of rows (Holm's factor for the smallest p) exceeds ``alpha``. ``per``: what to run more
    launches of ("side", "alternative")."""
    if not launches:
        return []
    p_min, n_a, n_b, where = max((_cmp.min_p_value(a, b, alternative), a, b, w) for a, b, w in launches)
    if p_min * len(launches) <= alpha:
        return []
    return [warning("low-power", n_a=n_a, n_b=n_b, row=where, p_min=p_min, rows=len(launches), alpha=alpha, per=per,
                    where=where)]


def p_method_text(methods: Iterable[str]) -> str:
    """How the p-values were computed, for a footer: 'exact (17 rows), exact-permutation (2 rows)'."""
    counts = Counter(m for m in methods if m)
    return ", ".join(f"{m} ({n} row{'s' if n != 1 else ''})" for m, n in counts.most_common()) or "–"
