"""Reading: a launch folder, a campaign folder, a folder of alternatives, or several of them,
as one :class:`Campaign` (docs/FORMAT.md). The reading itself is ``mpimeter.io``; this module
gives it the shape the analysis works on and writes the DuckDB store.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from mpimeter.analysis.clock import choose_clock
from mpimeter.io import campaign as _io_campaign
from mpimeter.io import store as _store
from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.meta import LaunchMeta


class AnalysisError(ValueError):
    """The data cannot answer the question asked (too few launches, nothing in common, …).

    The CLI exits with code 2 and prints the message; unlike :class:`InputError` no file is at
    fault."""


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Campaign:
    """A campaign as read from disk: one or more alternatives, each a list of launches.

    ``raw`` is one Arrow table of all launches with the raw.csv columns plus ``alternative``
    (string), ``launch`` (int) and, where a launch had re-syncs, ``rgstart_ns``/``rgend_ns``
    (global times recomputed from sync.csv; null otherwise). Only rows of finished tests are
    kept. ``sync`` is the concatenated sync.csv tables with the same two extra columns."""

    path: Path
    kind: str  # "launch" | "campaign" | "alternatives" | "several"
    alternatives: tuple[str, ...]
    launches: tuple[LaunchInfo, ...]
    raw: pa.Table
    sync: pa.Table
    warnings: tuple[AnalysisWarning, ...]
    campaign_json: Mapping[str, Any] | None = None

    def launches_of(self, alternative: str) -> tuple[LaunchInfo, ...]:
        return tuple(li for li in self.launches if li.alternative == alternative)

    def size_unit(self, op: str) -> str:
        """The unit of ``op``'s sizes (``bytes`` or ``ns``), as its launches recorded it."""
        for li in self.launches:
            if op in li.meta.config.ops or op in li.meta.operations:
                return li.meta.size_unit(op)
        return "bytes"


def load_campaign(
    path: str | Path, *, name: str | None = None, cache: bool = True, store: bool = True, allow_mixed: bool = False
) -> Campaign:
    """Reads a launch folder, a campaign folder or a folder of alternatives (docs/FORMAT.md).

    ``name`` names the alternative of a single-alternative folder (default: the folder name).
    ``cache`` keeps a Parquet copy of raw.csv next to it, reused while raw.csv's mtime and size
    are unchanged; ``store`` (re)writes ``campaign.duckdb`` at the campaign root; ``allow_mixed``
    warns about launches of one alternative that do not belong together (another library, hosts,
    nprocs or campaign) instead of refusing them. Raises :class:`InputError` naming the file (and
    line) for bad input."""
    lc = _io_campaign.load(path, name=name, cache=cache, allow_mixed=allow_mixed)
    return _build_campaign(Path(path), lc.layout.kind, [lc], store=store and cache)


def _build_campaign(path: Path, kind: str, loaded: list, *, store: bool) -> Campaign:
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
        infos.append(LaunchInfo(ll.alternative, ll.index, ll.data.folder, ll.data.status, ll.data.meta, clock, reason,
                                ll.data.finished_tests, ll.data.raw_rows, ll.data.syncs, ll.data.has_global))
    if store:
        for lc in loaded:
            if lc.layout.kind == "launch":
                continue  # a lone launch folder gets its Parquet copy only
            clocks = {(li.alternative, li.index): li.clock for li in infos}
            stored = [
                _store.StoredLaunch(lc.layout.root.resolve().name, ll.alternative, ll.index, ll.data.folder,
                                    ll.data.status, clocks[(ll.alternative, ll.index)], ll.data.meta, ll.data.sync)
                for ll in lc.launches
            ]
            w = _store.write_store(lc.layout.root / _store.STORE_NAME, stored)
            if w is not None:
                warnings.append(w)
    cj = loaded[0].campaign_json if len(loaded) == 1 else None
    return Campaign(path, kind, tuple(alts), tuple(infos), _io_campaign.combined_raw(launches),
                    _io_campaign.combined_sync(launches), tuple(warnings), cj)


def load_campaigns(paths: Sequence[str | Path], *, cache: bool = True, store: bool = True,
                   allow_mixed: bool = False) -> Campaign:
    """Several folders as one campaign whose alternatives are the folders' alternatives
    (names made unique with the parent folder when two folders share a name)."""
    if not paths:
        raise AnalysisError("no folder given")
    loaded = [_io_campaign.load(p, cache=cache, allow_mixed=allow_mixed) for p in paths]
    count = Counter(alt for lc in loaded for alt, _ in lc.layout.alternatives)

    def unique(lc: _io_campaign.LoadedCampaign, alt: str) -> str:
        if count[alt] < 2:
            return alt
        root = lc.layout.root.resolve()
        return f"{root.name}/{alt}" if lc.layout.kind == "alternatives" else f"{root.parent.name}/{root.name}"

    renamed = [replace(lc, launches=tuple(replace(ll, alternative=unique(lc, ll.alternative)) for ll in lc.launches))
               for lc in loaded]
    owners = Counter(alt for lc in renamed for alt in {ll.alternative for ll in lc.launches})
    dup = [alt for alt, n in owners.items() if n > 1]
    if dup:
        raise AnalysisError(f"two folders give the same alternative name {dup[0]!r}; rename one of them")
    kind = renamed[0].layout.kind if len(renamed) == 1 else "several"
    return _build_campaign(Path(paths[0]), kind, renamed, store=store and cache)
