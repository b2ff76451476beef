# SPDX-License-Identifier: BSD-3-Clause
"""Reading: a launch folder, a campaign folder, a folder of alternatives, or several of them,
as one :class:`Campaign` (docs/FORMAT.md). The reading itself is ``mpimeter.io``; this module
gives it the shape the analysis works on and writes the DuckDB store.

The campaign is read launch by launch: each launch's raw rows are reduced to what the analysis
needs (:class:`Reductions`: the run time of every repetition, each rank's median per launch and
test, the nonblocking components per repetition) as soon as they are read, and dropped before
the next launch is read. Memory holds one launch's rows at a time (a 1024-rank campaign of 30
launches has ~10^8 rows; its repetitions are ~10^5); :attr:`Campaign.raw` reads all rows again
only for whoever asks for them.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from mpimeter.analysis import nbc as _nbc
from mpimeter.analysis import scheme_values as _scheme_values
from mpimeter.analysis.clock import choose_clock
from mpimeter.errors import MpimeterError
from mpimeter.io import campaign as _io_campaign
from mpimeter.io import counters as _io_counters
from mpimeter.io import overhead as _overhead
from mpimeter.io.campaign_record import CampaignRecord, read_campaign_record
from mpimeter.io import runtimes as _runtimes
from mpimeter.io import store as _store
from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.counters import LaunchCounters
from mpimeter.io.launch import LaunchData, read_launch
from mpimeter.io.meta import LaunchMeta


class AnalysisError(ValueError, MpimeterError):
    """The data cannot answer the question asked (too few launches, nothing in common, …).

    The CLI exits with code 2 and prints the message; unlike :class:`InputError` no file is at
    fault."""


@dataclass(frozen=True, kw_only=True)
class LaunchInfo:
    """One launch folder: where it is, what meta.json says (``meta``, the typed record of the
    provenance), how it was read.

    ``status`` is the effective status: a ``running`` meta.json whose rank-0 process is gone on
    this host reads as ``incomplete``. ``clock`` is what ``clock="auto"`` uses for this launch:
    ``global-resync`` (global times recomputed from sync.csv model rows, piecewise-linear between
    syncs), ``global-online`` (gstart_ns/gend_ns as written) or ``local``."""

    alternative: str
    index: int
    folder: Path
    status: str
    meta: LaunchMeta
    clock: str
    clock_reason: str
    finished_tests: tuple[int, ...]
    raw_rows: int
    syncs: int
    has_global_times: bool = True
    # read with the launch (one pass): its checked counters.csv (None: it recorded none), and
    # the other benchmarks' schemes on its tests when the reading was asked for them
    counters: LaunchCounters | None = None
    counters_read: bool = False  # False: a launch record made in memory; analysis reads them itself
    scheme_values: Mapping[tuple[str, int, int, int | None, int | None], Mapping[str, Any]] | None = None


@dataclass(frozen=True)
class Reductions:
    """What the analysis keeps of the raw rows (see the module docstring): ``reps`` one entry per
    (alternative, launch, test, rep) (mpimeter.io.runtimes.repetition_times), ``rank_medians``
    per (alternative, op, size, launch, rank) (runtimes.rank_launch_medians), ``nbc_reps`` the
    nonblocking tests per repetition (analysis.nbc.per_repetition_table)."""

    reps: _runtimes.RepetitionTimes
    rank_medians: pd.DataFrame
    nbc_reps: pd.DataFrame
    # one launch's only (not combined): analysis.scheme_values.launch_values of its rows
    scheme_values: Mapping[tuple[str, int, int, int | None, int | None], Mapping[str, Any]] | None = None
    # --subtract-overhead: (alternative, launch, test) kept as measured, the subtraction would have
    # gone below the timer's resolution (io.overhead.subtract_overhead)
    overhead_kept: frozenset[tuple[str, int, int]] = frozenset()


def reduce_raw(raw: pa.Table, nonblocking: frozenset[str], timed_ranks: Mapping[str, int] | None = None
               ) -> Reductions:
    """:class:`Reductions` of raw rows with ``alternative`` and ``launch`` columns: one launch's
    (as the reading streams them) or a whole campaign's (a campaign built in memory);
    ``timed_ranks``: :func:`timed_ranks` of the launches."""
    reps, medians = _runtimes.reduce_raw(raw, timed_ranks=timed_ranks)
    return Reductions(reps, medians, _nbc.per_repetition_table(raw, nonblocking))


def combine_reductions(parts: Sequence[Reductions]) -> Reductions:
    """Launches' reductions in one, in the order given."""
    reps = _runtimes.concat_repetition_times([p.reps for p in parts])
    medians = [p.rank_medians for p in parts if len(p.rank_medians)]
    nbc = [p.nbc_reps for p in parts if len(p.nbc_reps)]
    keys = ["alternative", "op", "size", "launch", "rank"]  # the rank tests take (alternative, op, size) runs
    return Reductions(
        reps,
        pd.concat(medians, ignore_index=True).sort_values(keys, kind="stable", ignore_index=True) if medians
        else pd.DataFrame({c: [] for c in _runtimes.RANK_MEDIAN_COLUMNS}),
        pd.concat(nbc, ignore_index=True) if nbc else _nbc.per_repetition_table(pa.table({}), ()),
        overhead_kept=frozenset().union(*(p.overhead_kept for p in parts)))


def _nonblocking(meta: LaunchMeta) -> frozenset[str]:
    return frozenset(op for op, info in meta.operations.items() if info.kind == "nonblocking")


def timed_ranks(meta: LaunchMeta) -> dict[str, int]:
    """op → the rank whose rows alone make the run time of a round trip (operations[op].round_trip):
    its initiator, the first of the launch's ping-pong pair (probes.pingpong_pair, else
    config.pair, else rank 0 as the binary's default pair 0, 1). docs/FORMAT.md, "run time of a
    repetition"."""
    trips = [op for op, info in meta.operations.items() if info.round_trip]
    if not trips:
        return {}
    pair = meta.pingpong_pair.ranks if meta.pingpong_pair is not None else ()
    given = meta.config.entries.get("pair")
    if not pair and isinstance(given, list) and given and isinstance(given[0], int):
        pair = tuple(given)
    first = int(pair[0]) if pair else 0
    return {op: first for op in trips}


def _reduce_launch(alternative: str, index: int, data: LaunchData, raw: pa.Table) -> Reductions:
    red = reduce_raw(raw, _nonblocking(data.meta), timed_ranks(data.meta))
    reps, kept = _overhead.subtract_overhead(red.reps, alternative, index, data.meta.tests,
                                             data.meta.timer.resolution_ns)
    return replace(red, reps=reps, overhead_kept=frozenset((alternative, index, t) for t in kept))


def _reducer(schemes: bool):
    return _reduce_launch_and_schemes if schemes else _reduce_launch


def _reduce_launch_and_schemes(alternative: str, index: int, data: LaunchData, raw: pa.Table) -> Reductions:
    """:func:`_reduce_launch` and the other benchmarks' schemes on the same rows (one reading)."""
    return replace(_reduce_launch(alternative, index, data, raw),
                   scheme_values=_scheme_values.launch_values(data, _scheme_values.PEERS))


@dataclass(frozen=True, kw_only=True)
class Campaign:
    """A campaign as read from disk: one or more alternatives, each a list of launches.

    ``reduced`` is what the analysis uses of the raw rows (:class:`Reductions`), made launch by
    launch while reading. ``raw_table`` holds the raw rows only for a campaign built in memory
    (None when read from disk): :attr:`raw` gives them either way. ``sync`` is the concatenated
    sync.csv tables with ``alternative`` and ``launch`` in front. ``cached``: whether the reading
    used (and wrote) the Parquet copies of raw.csv."""

    path: Path
    kind: str  # "launch" | "campaign" | "alternatives" | "several"
    alternatives: tuple[str, ...]
    launches: tuple[LaunchInfo, ...]
    raw_table: pa.Table | None
    sync: pa.Table
    warnings: tuple[AnalysisWarning, ...]
    campaign_record: CampaignRecord | None = None  # campaign.json (mpimeter.io.campaign_record)
    reduced: Reductions | None = None
    cached: bool = True

    @cached_property
    def reductions(self) -> Reductions:
        if self.reduced is not None:
            return self.reduced
        ops = frozenset().union(*(_nonblocking(li.meta) for li in self.launches)) if self.launches else frozenset()
        table = self.raw if self.raw_table is None else self.raw_table
        timed = [timed_ranks(li.meta) for li in self.launches]
        if all(t == timed[0] for t in timed[1:]):
            red = reduce_raw(table, ops, timed[0] if timed else None)
        else:  # launches that chose other ping-pong pairs: each by its own
            red = combine_reductions([reduce_raw(table.filter(pc.and_(pc.equal(table["alternative"], li.alternative),
                                                                       pc.equal(table["launch"], li.index))), ops, t)
                                      for li, t in zip(self.launches, timed)])
        reps, kept = red.reps, set()
        for li in self.launches:
            reps, mine = _overhead.subtract_overhead(reps, li.alternative, li.index, li.meta.tests,
                                                     li.meta.timer.resolution_ns)
            kept |= {(li.alternative, li.index, t) for t in mine}
        return replace(red, reps=reps, overhead_kept=frozenset(kept))

    @cached_property
    def raw(self) -> pa.Table:
        """All launches' raw rows in one Arrow table: the raw.csv columns plus ``alternative``
        (string), ``launch`` (int) in front and ``rgstart_ns``/``rgend_ns`` at the end (global
        times recomputed from sync.csv where a launch had re-syncs; null otherwise). Only rows of
        finished tests. Read again from disk on first use: it holds every row of the campaign."""
        if self.raw_table is not None:
            return self.raw_table
        return self.raw_of()

    def raw_of(self, *, alternative: str | None = None, op: str | None = None, size: int | None = None) -> pa.Table:
        """The rows of :attr:`raw` of one alternative, op and/or size, read launch by launch."""
        if self.raw_table is not None:
            return _filter(self.raw_table, alternative, op, size)
        parts = []
        for li in self.launches:
            if alternative is not None and li.alternative != alternative:
                continue
            data = read_launch(li.folder, cache=self.cached)
            parts.append(_filter(_io_campaign.with_keys(data.raw, li.alternative, li.index), None, op, size))
        return _io_campaign.combined_raw(parts, decode=True)

    def launches_of(self, alternative: str) -> tuple[LaunchInfo, ...]:
        return tuple(li for li in self.launches if li.alternative == alternative)

    def round_trip_ops(self) -> frozenset[str]:
        """Operations whose timed call is a round trip (two messages, a → b → a), as the binary's
        operations table says (meta.json ``operations[op].round_trip``): the ping-pongs."""
        return frozenset(op for li in self.launches for op, info in li.meta.operations.items() if info.round_trip)

    def size_unit(self, op: str) -> str:
        """The unit of ``op``'s sizes (``bytes`` or ``ns``), as its launches recorded it."""
        for li in self.launches:
            if op in li.meta.config.ops or op in li.meta.operations:
                return li.meta.size_unit(op)
        return "bytes"


def _filter(raw: pa.Table, alternative: str | None, op: str | None, size: int | None) -> pa.Table:
    mask = None
    for col, val in (("alternative", alternative), ("op", op), ("size", size)):
        if val is not None and raw.num_rows:
            m = pc.equal(raw[col], val)
            mask = m if mask is None else pc.and_(mask, m)
    return raw if mask is None else raw.filter(mask)


def load_campaign(
    path: str | Path, *, name: str | None = None, cache: bool = True, store: bool = True, allow_mixed: bool = False,
    schemes: bool = False,
) -> Campaign:
    """Reads a launch folder, a campaign folder or a folder of alternatives (docs/FORMAT.md).

    ``name`` names the alternative of a single-alternative folder (default: the folder name).
    ``cache`` keeps a Parquet copy of raw.csv next to it, reused while raw.csv's mtime and size
    are unchanged; ``store`` (re)writes ``campaign.duckdb`` at the campaign root; ``allow_mixed``
    warns about launches of one alternative that do not belong together (another library, hosts,
    nprocs or campaign) instead of refusing them; ``schemes`` computes the other benchmarks'
    schemes on each launch's rows as they are read (analysis.schemes.scheme_rows). Each launch's
    files are read once. Raises :class:`InputError` naming the file (and line) for bad input."""
    _check_named(path)
    lc = _io_campaign.load(path, name=name, cache=cache, allow_mixed=allow_mixed, reduce=_reducer(schemes))
    return _build_campaign(Path(path), lc.layout.kind, [lc], store=store and cache, cache=cache)


def _check_named(path: str | Path) -> None:
    """An empty path names no folder (Path("") would read the working directory instead)."""
    if str(path) == "":
        raise AnalysisError("an empty path names no folder; give a launch or campaign folder")


def _check_distinct(paths: Sequence[str | Path]) -> None:
    """One folder given twice would be two alternatives of the same launches: refused naming both
    paths (the "same alternative name" refusal further on advised renaming one, which cannot help);
    so is a folder given with one inside it (`compare C C/mpich`), whose launches would be read twice."""
    for i, first in enumerate(paths):
        for second in paths[i + 1:]:
            try:
                same = os.path.samefile(first, second)
                a, b = Path(first).resolve(), Path(second).resolve()
            except (OSError, ValueError, RuntimeError):
                continue  # a path that cannot be read: loading it says what is wrong with it
            if same:
                raise AnalysisError(f"{first} and {second} are the same folder; allowed: each campaign once")
            if a in b.parents or b in a.parents:
                inner, outer = (second, first) if a in b.parents else (first, second)
                raise AnalysisError(f"{inner} lies inside {outer}: its launches would be read twice; allowed: each "
                                    "campaign once")


def _build_campaign(path: Path, kind: str, loaded: list, *, store: bool, cache: bool) -> Campaign:
    launches = tuple(ll for lc in loaded for ll in lc.launches)
    alts: list[str] = []
    for ll in launches:
        if ll.alternative not in alts:
            alts.append(ll.alternative)
    warnings = [w for lc in loaded for w in lc.warnings]
    infos = []
    for ll in launches:
        clock, reason, clock_warnings = choose_clock(ll.data)
        warnings += clock_warnings
        infos.append(LaunchInfo(alternative=ll.alternative, index=ll.index, folder=ll.data.folder,
                                status=ll.data.status, meta=ll.data.meta, clock=clock, clock_reason=reason,
                                finished_tests=ll.data.finished_tests, raw_rows=ll.data.raw_rows,
                                syncs=ll.data.syncs, has_global_times=ll.data.has_global,
                                counters=_io_counters.read_counters(ll.data.folder, ll.data.meta, cache=False),
                                counters_read=True,
                                scheme_values=ll.reduced.scheme_values if ll.reduced is not None else None))
    if store:
        for lc in loaded:
            if lc.layout.kind == "launch":
                continue  # a lone launch folder gets its Parquet copy only
            clocks = {(li.alternative, li.index): li.clock for li in infos}
            stored = [
                _store.StoredLaunch(campaign=lc.layout.root.resolve().name, alternative=ll.alternative,
                                    launch=ll.index, folder=ll.data.folder, status=ll.data.status,
                                    clock=clocks[(ll.alternative, ll.index)], meta=ll.data.meta, sync=ll.data.sync)
                for ll in lc.launches
            ]
            w = _store.write_store(lc.layout.root / _store.STORE_NAME, stored)
            if w is not None:
                warnings.append(w)
    cj = _shared_record(loaded)
    reduced = combine_reductions([ll.reduced for ll in launches])
    return Campaign(path=path, kind=kind, alternatives=tuple(alts), launches=tuple(infos), raw_table=None,
                    sync=_io_campaign.combined_sync(launches), warnings=tuple(warnings), campaign_record=cj,
                    reduced=reduced, cached=cache)


def load_campaigns(paths: Sequence[str | Path], *, cache: bool = True, store: bool = True,
                   allow_mixed: bool = False, schemes: bool = False) -> Campaign:
    """Several folders as one campaign whose alternatives are the folders' alternatives
    (names made unique with the parent folder when two folders share a name)."""
    if not paths:
        raise AnalysisError("no folder given")
    for p in paths:
        _check_named(p)
    _check_distinct(paths)
    loaded = [_io_campaign.load(p, cache=cache, allow_mixed=allow_mixed, reduce=_reducer(schemes)) for p in paths]
    count = Counter(alt for lc in loaded for alt, _ in lc.layout.alternatives)

    def unique(lc: _io_campaign.LoadedCampaign, alt: str) -> str:
        if count[alt] < 2:
            return alt
        root = lc.layout.root.resolve()
        return f"{root.name}/{alt}" if lc.layout.kind == "alternatives" else f"{root.parent.name}/{root.name}"

    renamed = [replace(lc, launches=tuple(_renamed(ll, unique(lc, ll.alternative)) for ll in lc.launches))
               for lc in loaded]
    owners = Counter(alt for lc in renamed for alt in {ll.alternative for ll in lc.launches})
    dup = [alt for alt, n in owners.items() if n > 1]
    if dup:
        raise AnalysisError(f"two folders give the same alternative name {dup[0]!r}; rename one of them")
    kind = renamed[0].layout.kind if len(renamed) == 1 else "several"
    return _build_campaign(Path(paths[0]), kind, renamed, store=store and cache, cache=cache)


def _shared_record(loaded: Sequence[_io_campaign.LoadedCampaign]) -> CampaignRecord | None:
    """The record of the rounds the folders ran in: one folder's campaign.json, or, when the
    folders are alternatives of one campaign folder (`compare C/openmpi C/mpich`), that folder's
    — as `compare C` reads it, so that the alternatives it interleaved are paired by round
    (analysis.designs) and not taken for separate campaigns. None otherwise."""
    if len(loaded) == 1:
        return loaded[0].record
    roots = [lc.layout.root.resolve() for lc in loaded]
    parents = {r.parent for r in roots}
    if any(lc.layout.kind != "campaign" for lc in loaded) or len(parents) != 1:
        return None
    record = read_campaign_record(parents.pop())
    if record is None or not {r.name for r in roots} <= set(record.alternative_names):
        return None
    return record


def _renamed(ll: _io_campaign.LoadedLaunch, name: str) -> _io_campaign.LoadedLaunch:
    """``ll`` as alternative ``name``, its reductions too."""
    if name == ll.alternative:
        return ll
    r: Reductions = ll.reduced
    reps = replace(r.reps, alternatives=[name if a == ll.alternative else a for a in r.reps.alternatives])
    rename = {"alternative": {ll.alternative: name}}
    return replace(ll, alternative=name, reduced=replace(r, reps=reps, rank_medians=r.rank_medians.replace(rename),
                                                         nbc_reps=r.nbc_reps.replace(rename)))
