# SPDX-License-Identifier: BSD-3-Clause
"""counters.csv of one launch folder (docs/FORMAT.md, "counters.csv") and meta.json's
``counters``, checked the way raw.csv is (``mpimeter.io.rowcheck``): against meta.json.

What is checked, with messages that name the file (and line): meta.json ``counters`` has its
documented types, the file it names is ``counters.csv`` in the launch folder (nothing outside),
each metric's source is one the binaries built list (``counter_sources`` of their ``--describe``,
read by io.bench_binaries; with none built, of their --describe recorded in the repository), the metric names are distinct; counters.csv has the header ``test,rank,rep,metric,value``, every
metric is one of ``counters.metrics``, every test is one of meta.json's tests, the rank fits
``nprocs`` and the raw mode (full: 0 … nprocs−1; reduced: −1), ``rep`` ≥ 0, an integer metric's
value is a whole number, no (test, rank, rep, metric) twice, and every test meta.json lists as
``complete`` is whole: each of its ranks has exactly its repetitions 0 … nrep−1 (``tests[].nrep``)
with every metric once — the same rows raw.csv must have (rowcheck.check_whole), so a counter can
be put next to the run time of its repetition. Rows of tests that are not complete are dropped
(``unfinished-test-rows``); a truncated last line is an error when the launch says it is complete
and a warning otherwise (``truncated-line``).

A launch folder without ``counters`` in meta.json (every launch before counters existed, and every
launch run without them) has no counters: :func:`read_counters` returns None.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mpimeter.io import bench_binaries, rowcheck
from mpimeter.io.csvread import Column, read_csv
from mpimeter.io.errors import AnalysisWarning, InputError
from mpimeter.io.jsonread import BOOL, NAT, NUM, STR, Fields, load_json
from mpimeter.io.meta import ROW_STATUSES, LaunchMeta
from mpimeter.warning_codes import warning

FILE_NAME = "counters.csv"
COLUMNS = (
    Column("test", pa.int32()),
    Column("rank", pa.int32()),
    Column("rep", pa.int32()),
    Column("metric", pa.string()),
    Column("value", pa.float64(), nullable=True),  # empty: a double counter that read NaN
)
# a counter's source where nothing can list them (no binary built, no repository's record): a name
SOURCE_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
# What each library's binary printed for --describe, kept in the repository (LIB/describe.json;
# the byte-identity test checks every build against it): the binary's words where none is built
RECORDED_DESCRIBE = Path("c") / "tests" / "mpi" / "data" / "identity"
VALUE_KINDS = ("integer", "double")
INTEGER_LIMIT = 2.0**63  # an integer counter's delta is a signed 64-bit number (docs/FORMAT.md)


@dataclass(frozen=True, kw_only=True)
class Metric:
    """One counter as meta.json ``counters.metrics`` describes it."""

    name: str
    source: str  # one of the binary's counter_sources (--describe): mpi_t, papi, likwid
    klass: str  # the pvar class (counter, size, level, …) or "hardware"
    datatype: str | None = None
    binding: str | None = None
    elements: int | None = None  # values one read returns, summed into one
    continuous: bool = True
    value: str = "integer"  # integer | double
    description: str = ""


@dataclass(frozen=True, kw_only=True)
class CountersMeta:
    """meta.json ``counters``: what was asked, what was read, what reading cost per test."""

    mpit_pvars: str | None
    papi: str | None
    papi_version: str | None
    likwid: str | None = None  # the group of likwid-perfctr -g (absent before LIKWID was read)
    likwid_version: str | None = None
    metrics: tuple[Metric, ...]
    left_out: tuple[tuple[str | None, str], ...]  # (name, why) of variables `all` did not read
    read_ns_by_test: Mapping[int, float] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.metrics)


@dataclass(frozen=True)
class LaunchCounters:
    """The counters of one launch: ``table`` has test, rank, rep (int32), ``metric`` (int32: the
    index into ``meta.metrics``) and value (float64, NaN where empty), rows of complete tests only."""

    folder: Path
    meta: CountersMeta
    table: pa.Table
    warnings: tuple[AnalysisWarning, ...] = ()


def counters_meta(meta: LaunchMeta) -> CountersMeta | None:
    """meta.json ``counters`` (None when absent or null); InputError naming the key otherwise."""
    doc = meta.document if isinstance(meta.document, Mapping) else {}
    top = Fields(meta.path, dict(doc))
    f = top.obj("counters")
    if f is None:
        return None
    file = f.get("file", STR, FILE_NAME)
    if file != FILE_NAME:
        raise f.fail("file", f"is {file!r}; the counters of a launch are in {FILE_NAME} of its folder")
    metrics = []
    for m in f.objs("metrics"):
        metrics.append(Metric(
            name=m.need("name", STR), source=_source(m), klass=m.get("class", STR, ""),
            datatype=m.get("datatype", STR), binding=m.get("binding", STR), elements=m.get("elements", NAT),
            continuous=m.get("continuous", BOOL, True), value=m.get("value", STR, "integer", choices=VALUE_KINDS),
            description=m.get("description", STR, "")))
    names = [m.name for m in metrics]
    dup = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if dup is not None:
        raise f.fail("metrics", f"names {dup!r} twice; each counter is listed once")
    left = tuple((lo.get("name", STR), lo.get("why", STR, "")) for lo in f.objs("left_out"))
    costs = {}
    read = f.obj("read_ns_by_test")
    for key in (read.value if read is not None else {}):
        if not key.isdigit() or int(key) >= len(meta.tests):
            raise read.fail(key, f"is not a test of meta.json (tests 0 … {len(meta.tests) - 1})")
        value = read.need(key, NUM)
        if value < 0:
            raise read.fail(key, f"is {value}; a time is not negative")
        costs[int(key)] = float(value)
    return CountersMeta(mpit_pvars=f.get("mpit_pvars", STR), papi=f.get("papi", STR),
                        papi_version=f.get("papi_version", STR), likwid=f.get("likwid", STR),
                        likwid_version=f.get("likwid_version", STR), metrics=tuple(metrics), left_out=left,
                        read_ns_by_test=MappingProxyType(costs))


@lru_cache(maxsize=1)
def recorded_counter_sources() -> tuple[str, ...]:
    """The counter sources of the --describe documents the repository keeps (RECORDED_DESCRIBE:
    what each library's binary printed, which c/tests/mpi/test_byte_identity.py holds every build
    to), the union; empty outside the repository or where none lists them. What a launch's
    source may be when no binary is built: the binary's own words, recorded, not a second list."""
    root = bench_binaries.repo_root()
    if root is None:
        return ()
    names: set[str] = set()
    for path in sorted((root / RECORDED_DESCRIBE).glob("*/describe.json")):
        try:
            doc = load_json(path, max_bytes=2**20)
        except InputError:
            continue
        sources = doc.get("counter_sources") if isinstance(doc, dict) else None
        if isinstance(sources, list):
            names |= {s["name"] for s in sources if isinstance(s, dict) and isinstance(s.get("name"), str)}
    return tuple(sorted(names))


def _source(m: Fields) -> str:
    """``metrics[].source``: one of the sources the binaries built read (their ``--describe``,
    io.bench_binaries: the one list of them); where none is built, one of those the binaries'
    recorded --describe documents list (recorded_counter_sources); outside the
    repository with no binary (nothing can say), a name of SOURCE_NAME's shape, shown as it is."""
    known = bench_binaries.built_counter_sources() or recorded_counter_sources()
    if known:
        return m.need("source", STR, choices=known)
    source = m.need("source", STR)
    if not SOURCE_NAME.fullmatch(source):
        raise m.fail("source", f"is {source[:40]!r}; it must be the name of a counter source "
                               "(lower-case letters, digits and _)")
    return source


def _fail_at(path: Path, mask: np.ndarray, what: str) -> None:
    if mask.size and mask.any():
        raise InputError(path, what, line=int(np.argmax(mask)) + 2)  # line 1 is the header


def _empty(names: tuple[str, ...]) -> pa.Table:
    return pa.table({"test": pa.array([], pa.int32()), "rank": pa.array([], pa.int32()),
                     "rep": pa.array([], pa.int32()), "metric": pa.array([], pa.int32()),
                     "value": pa.array([], pa.float64())})


def _check_rows(path: Path, table: pa.Table, meta: LaunchMeta, cm: CountersMeta) -> pa.Table:
    """Row by row, then the rows as a whole (see the module docstring); the table with metric
    codes."""
    names = pa.array(cm.names, pa.string())
    code = pc.index_in(table["metric"], value_set=names)
    unknown = pc.is_null(code).to_numpy(zero_copy_only=False)
    _fail_at(path, unknown, f"metric is not one of the {len(cm.names)} counters meta.json lists "
                            f"(counters.metrics: {', '.join(cm.names[:6]) or 'none'}{', …' if len(cm.names) > 6 else ''})")
    metric = pc.fill_null(code, 0).to_numpy().astype(np.int32)
    test, rank, rep = (table[c].to_numpy() for c in ("test", "rank", "rep"))
    value = pc.fill_null(table["value"], math.nan).to_numpy()
    ntests = len(meta.tests)
    _fail_at(path, (test < 0) | (test >= ntests), f"test is not one of the {ntests} tests in meta.json")
    _fail_at(path, rep < 0, "rep is negative")
    if meta.reduced:
        _fail_at(path, rank != -1, "rank is not -1, but meta.json says config.raw is reduced (one row per repetition)")
    else:
        _fail_at(path, (rank < 0) | (rank >= meta.nprocs),
                 f"rank is not in 0 … {meta.nprocs - 1} (nprocs = {meta.nprocs} in meta.json, raw full)")
    integer = np.array([m.value == "integer" for m in cm.metrics], dtype=bool)
    is_int = integer[metric] if metric.size else np.zeros(0, dtype=bool)
    _fail_at(path, is_int & ~(np.isfinite(value) & (np.floor(value) == value)),
             "value of an integer counter is not a whole number")
    # the binary writes after − before modulo 2^64 read as signed: nothing else fits the type
    _fail_at(path, is_int & ((value < -INTEGER_LIMIT) | (value >= INTEGER_LIMIT)),
             f"value of an integer counter is beyond its type (allowed: −2^63 … 2^63−1, a 64-bit difference)")
    return pa.table({"test": table["test"], "rank": table["rank"], "rep": table["rep"],
                     "metric": pa.array(metric, pa.int32()), "value": pa.array(value, pa.float64())})


def _check_whole(path: Path, table: pa.Table, meta: LaunchMeta, cm: CountersMeta) -> None:
    """No (test, rank, rep, metric) twice; every complete test has each rank's repetitions
    0 … nrep−1 with every metric (rowcheck.expected_nrep: the rows raw.csv must have). O(N log N)."""
    nm = len(cm.metrics)
    test, rank, rep, metric = (table[c].to_numpy().astype(np.int64) for c in ("test", "rank", "rep", "metric"))
    if test.size > 1:
        order = np.lexsort((metric, rep, rank, test))
        t, r, p, m = test[order], rank[order], rep[order], metric[order]
        same = (t[1:] == t[:-1]) & (r[1:] == r[:-1]) & (p[1:] == p[:-1]) & (m[1:] == m[:-1])
        if same.any():
            k = int(np.argmax(same))
            raise InputError(path, f"{cm.names[int(m[k])]} of repetition {int(p[k])} of rank {int(r[k])} in "
                                   f"{meta.tests[int(t[k])].label} appears twice; each is written once",
                             line=int(max(order[k], order[k + 1])) + 2)
    finished = [t for t in meta.tests if t.status in ROW_STATUSES]
    if not finished:
        return
    nranks = 1 if meta.reduced else meta.nprocs
    slot = np.full(len(meta.tests), -1, dtype=np.int64)
    slot[[t.test for t in finished]] = np.arange(len(finished))
    mine = slot[test] >= 0 if test.size else np.zeros(0, dtype=bool)
    cell = slot[test[mine]] * nranks + (0 if meta.reduced else rank[mine])
    counts = np.bincount(cell, minlength=len(finished) * nranks).reshape(len(finished), nranks)
    expected = [rowcheck.expected_nrep(meta, t) for t in finished]
    # a hand-made meta.json without tests[].nrep: as many repetitions as the first rank has
    want = np.array([n if n is not None else (int(counts[i, 0]) // nm if nm else 0)
                     for i, (n, _) in enumerate(expected)], dtype=np.int64)
    per_test = np.full(len(meta.tests), np.iinfo(np.int64).max)
    per_test[[t.test for t in finished]] = want
    late = mine & (rep >= per_test[test]) if test.size else mine
    if late.any():
        k = int(np.argmax(late))
        i = int(slot[test[k]])
        raise InputError(path, f"{finished[i].label} has repetition {int(rep[k])}, but {expected[i][1]} is "
                               f"{int(want[i])} (its repetitions are 0 … {int(want[i]) - 1})", line=k + 2)
    short = np.argwhere(counts != want[:, None] * nm)
    if short.size:
        i, j = (int(v) for v in short[0])
        who = "the reduced rows (rank -1)" if meta.reduced else f"rank {j}"
        raise InputError(path, f"{finished[i].label} is complete in meta.json, but {who} has {int(counts[i, j])} "
                               f"counter rows; {int(want[i])} repetitions ({expected[i][1]}) × {nm} counters = "
                               f"{int(want[i]) * nm} (the rows of raw.csv, each with every counter)")


def read_counters(folder: str | Path, meta: LaunchMeta, *, cache: bool = True) -> LaunchCounters | None:
    """The checked counters of the launch at ``folder`` whose meta.json is ``meta``, or None when
    the launch recorded none. Raises :class:`InputError` for bad input."""
    folder = Path(folder)
    cm = counters_meta(meta)
    if cm is None:
        return None
    path = folder / FILE_NAME
    if not path.exists():
        if cm.metrics and meta.finished_tests:
            raise InputError(path, "is missing, but meta.json lists counters (counters.metrics) of finished tests")
        return LaunchCounters(folder, cm, _empty(cm.names))
    read = read_csv(path, COLUMNS, cache=cache)
    warnings: list[AnalysisWarning] = []
    if read.dropped_line is not None:
        if meta.status == "complete":
            raise InputError(path, "the last line is cut short (no newline), but meta.json says the launch is "
                                   "complete: the file was truncated after the launch ended", line=read.dropped_line)
        warnings.append(warning("truncated-line", line=read.dropped_line, file=FILE_NAME,
                                when="while writing its counters", where=f"{path}:{read.dropped_line}"))
    table = _check_rows(path, read.table, meta, cm)
    _check_whole(path, table, meta, cm)  # before dropping rows: its messages name lines of the file
    finished = pa.array(meta.finished_tests, pa.int32())
    keep = pc.is_in(table["test"], value_set=finished)
    if table.num_rows and not pc.all(keep).as_py():
        dropped = table.num_rows - int(pc.sum(keep.cast(pa.int64())).as_py())
        warnings.append(warning("unfinished-test-rows", rows=dropped, file=FILE_NAME, where=str(path)))
        table = table.filter(keep)
    return LaunchCounters(folder, cm, table, tuple(warnings))
