# SPDX-License-Identifier: BSD-3-Clause
"""Nonblocking collectives: overhead and overlap per (alternative, op, size) from the components
mpimeter-bench records (docs/FORMAT.md, raw.csv ``init_ns`` … ``blocking_ns``).

Per repetition, over ranks (the slowest rank's value of each, as the run time is the slowest
rank's): ``overhead`` = init + test + wait (NBCBench, Hoefler, Schneider & Lumsdaine 2010 §4:
the CPU time the caller loses to the operation), ``blocking`` = I-call + wait in the test's
blocking phase, ``compute`` = the computation actually spent, ``total`` = post to wait done.
Three overlap figures from the same numbers, so users can relate them to the tools they know:

- ``overlap`` (NBCBench) = 1 − overhead / blocking: the share of the blocking time the caller got
  back for computing; negative when the nonblocking call costs the CPU more than blocking would.
- ``overlap_imb`` (IMB-NBC) = (blocking + compute − total) / min(blocking, compute), clipped to
  [0, 1]: how much of the shorter of the two ran concurrently.
- ``overlap_osu`` (OSU's nonblocking benchmarks) = 1 − (total − compute) / blocking, clipped at 0.

Only repetitions valid on every rank with a blocking time are used. Per launch the median of
each; across launches the median of those, with Le Boudec's interval for the overhead (the
launch is the unit of replication, Hunold & Carpen-Amarie 2016 §4.2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from mpimeter.io.rawformat import COMPONENTS
from mpimeter.stats import intervals


class Campaign(Protocol):
    """What this module reads of a loaded campaign (``analysis.loading.Campaign``): its launches'
    records and the reductions made while reading them. A protocol, so that loading (which calls
    :func:`per_repetition_table` as it reads) and this module do not import each other."""

    @property
    def launches(self) -> Sequence[Any]: ...

    @property
    def reductions(self) -> Any: ...


REP_KEYS = ("alternative", "launch", "test", "op", "size", "rep")
METRICS = ("overhead_ns", "blocking_ns", "compute_ns", "total_ns", "init_ns", "test_ns", "wait_ns",
           "overlap", "overlap_imb", "overlap_osu")


@dataclass(frozen=True, kw_only=True)
class NbcRow:
    """One (alternative, op, size, p[, root]) of a nonblocking collective across launches. Times
    in ns; each figure is the median over launches of the per-launch medians."""

    alternative: str
    op: str
    size: int
    launches: int
    repetitions: int  # valid repetitions with a blocking time, all launches
    overhead_ns: float
    overhead_ci_low_ns: float | None
    overhead_ci_high_ns: float | None
    blocking_ns: float
    compute_ns: float
    total_ns: float
    init_ns: float
    test_ns: float
    wait_ns: float
    overlap: float
    overlap_imb: float
    overlap_osu: float
    tests_per_rep: int  # MPI_Test calls per repetition (meta.json tests[].nbc.tests)
    scheme: str  # time | work
    nprocs: int = 0  # the process count (the repetitions' ``nprocs`` column); 0: not known
    root: int | None = None  # the root of a rooted operation's row

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def nonblocking_ops(campaign: Campaign) -> frozenset[str]:
    """Operations the binary's table calls nonblocking (meta.json ``operations``)."""
    return frozenset(op for li in campaign.launches for op, info in li.meta.operations.items()
                     if info.kind == "nonblocking")


def per_repetition(campaign: Campaign) -> pd.DataFrame:
    """One row per (alternative, launch, test, rep) of the nonblocking tests, valid on every rank
    and with a blocking time: the metrics of the module docstring (reduced launch by launch when
    the campaign was read, :func:`per_repetition_table`)."""
    return campaign.reductions.nbc_reps


# the table of no repetitions (every launch without nonblocking tests gets one): built once,
# each caller getting a copy of its own, 20 times faster than building it anew
_NO_REPETITIONS = pd.DataFrame(columns=[*REP_KEYS, *METRICS])


def per_repetition_table(raw: pa.Table, ops: Iterable[str]) -> pd.DataFrame:
    """:func:`per_repetition` of the raw rows of one launch or several (with ``alternative`` and
    ``launch`` columns); ``ops``: the nonblocking operations."""
    ops = sorted(ops)
    if not ops or raw.num_rows == 0 or "blocking_ns" not in raw.column_names:
        return _NO_REPETITIONS.copy()
    raw = raw.filter(pc.is_in(raw["op"], value_set=pa.array(ops)))
    if raw.num_rows == 0:
        return _NO_REPETITIONS.copy()
    df = raw.select(["alternative", "launch", "test", "op", "size", "rep", "valid", "start_ns", "end_ns",
                     *COMPONENTS]).to_pandas()
    for name in ("alternative", "op"):  # read as dictionaries: plain strings, so launches concatenate
        df[name] = df[name].astype(str)
    df["total_ns"] = (df["end_ns"] - df["start_ns"]).astype(float)
    for c in COMPONENTS:
        df[c] = df[c].astype(float)
    df["overhead_ns"] = df["init_ns"] + df["test_ns"] + df["wait_ns"]
    keys = list(REP_KEYS)
    # max over ranks; a rank without a blocking time (NaN) leaves the repetition without one
    agg = df.groupby(keys, sort=True, observed=True).agg(
        valid=("valid", "min"), overhead_ns=("overhead_ns", "max"),
        blocking_ns=("blocking_ns", lambda s: s.max(skipna=False)), compute_ns=("compute_ns", "max"),
        total_ns=("total_ns", "max"), init_ns=("init_ns", "max"), test_ns=("test_ns", "max"),
        wait_ns=("wait_ns", "max")).reset_index()
    agg = agg[(agg["valid"] == 1) & agg["blocking_ns"].notna() & (agg["blocking_ns"] > 0)].copy()
    b, c, t = agg["blocking_ns"], agg["compute_ns"], agg["total_ns"]
    agg["overlap"] = 1.0 - agg["overhead_ns"] / b
    shorter = np.minimum(b, c)
    agg["overlap_imb"] = np.where(shorter > 0, ((b + c - t) / shorter.where(shorter > 0, 1.0)).clip(0.0, 1.0),
                                  np.nan)
    agg["overlap_osu"] = (1.0 - (t - c) / b).clip(lower=0.0)
    return agg.drop(columns=["valid"])


def nbc_rows(campaign: Campaign, confidence: float = 0.95, reps: pd.DataFrame | None = None
             ) -> tuple[NbcRow, ...]:
    """The across-launch rows (see the module docstring), sorted by alternative, op, size;
    ``reps``: `per_repetition(campaign)` when the caller has it already."""
    reps = per_repetition(campaign) if reps is None else reps
    if reps.empty:
        return ()
    tests_by: dict[tuple[str, str, int], int] = {}
    scheme_by: dict[tuple[str, str, int], str] = {}
    for li in campaign.launches:
        for t in li.meta.tests:
            if t.nbc is not None:
                tests_by[(li.alternative, t.op, t.size)] = t.nbc.tests
                scheme_by[(li.alternative, t.op, t.size)] = "work" if t.nbc.work_units > 0 else "time"
    # one row per (op, size, p, root) when the analysis gave each repetition its p and root
    # (analysis.pipeline), else per (op, size)
    if "nprocs" not in reps.columns:
        reps = reps.assign(nprocs=0, root=-1)
    keys = ["alternative", "op", "size", "nprocs", "root"]
    per_launch = reps.groupby([*keys[:3], "launch", *keys[3:]], observed=True)[list(METRICS)].median()
    counts = reps.groupby(keys, observed=True).size()
    rows = []
    for (alt, op, size, ranks, root), group in per_launch.groupby(level=keys, observed=True):
        med = group.median()
        ci = intervals.median_ci(group["overhead_ns"].to_numpy(dtype=float), confidence)
        rows.append(NbcRow(
            alternative=str(alt), op=str(op), size=int(size), launches=int(len(group)),
            repetitions=int(counts.loc[(alt, op, size, ranks, root)]), overhead_ns=float(med["overhead_ns"]),
            overhead_ci_low_ns=ci.low, overhead_ci_high_ns=ci.high, blocking_ns=float(med["blocking_ns"]),
            compute_ns=float(med["compute_ns"]), total_ns=float(med["total_ns"]), init_ns=float(med["init_ns"]),
            test_ns=float(med["test_ns"]), wait_ns=float(med["wait_ns"]), overlap=float(med["overlap"]),
            overlap_imb=float(med["overlap_imb"]), overlap_osu=float(med["overlap_osu"]),
            tests_per_rep=int(tests_by.get((alt, op, size), 0)), scheme=scheme_by.get((alt, op, size), "time"),
            nprocs=int(ranks), root=None if root < 0 else int(root)))
    return tuple(sorted(rows, key=lambda r: (r.alternative, r.op, r.size, r.nprocs, -1 if r.root is None else r.root)))
