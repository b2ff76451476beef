# SPDX-License-Identifier: BSD-3-Clause
"""Deciding what a folder is (docs/FORMAT.md, "A campaign folder") and reading all its launches.

- a folder with ``meta.json`` is one launch;
- a folder with ``launches/`` is a campaign of one alternative (named after the folder);
- a folder whose sub-folders hold ``launches/`` is a campaign of several alternatives (named
  after the sub-folders, in campaign.json's order when there is one, else sorted).
Anything else is refused with a message naming the folder.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from mpimeter.io import siblings
from mpimeter.io.errors import AnalysisWarning, InputError
from mpimeter.io.campaign_record import CampaignRecord, LaunchEntry, read_campaign_record
from mpimeter.io.csvread import CacheWriter
from mpimeter.io.launch import LaunchData, read_launch
from mpimeter.warning_codes import warning


@dataclass(frozen=True)
class Layout:
    root: Path
    kind: str  # "launch" | "campaign" | "alternatives"
    alternatives: tuple[tuple[str, tuple[Path, ...]], ...]  # (name, launch folders)
    skipped: tuple[Path, ...]  # launch folders without meta.json
    skipped_folders: tuple[tuple[Path, str], ...] = ()  # sub-folders not read, with the reason


@dataclass(frozen=True)
class LoadedLaunch:
    """One launch as :func:`load` read it. With a ``reduce`` hook, ``data.raw`` is None and
    ``reduced`` holds what the hook made of the raw rows."""

    alternative: str
    index: int
    data: LaunchData
    reduced: Any = None


# (alternative, launch index, the launch's raw rows with ``alternative`` and ``launch`` in front) →
# what the caller keeps of them (see :func:`load`)
Reducer = Callable[[str, int, LaunchData, pa.Table], Any]


@dataclass(frozen=True)
class LoadedCampaign:
    layout: Layout
    launches: tuple[LoadedLaunch, ...]
    record: CampaignRecord | None  # campaign.json
    warnings: tuple[AnalysisWarning, ...]


def _launch_dirs(launches: Path) -> tuple[list[Path], list[Path]]:
    found, skipped = [], []
    for d in sorted(p for p in launches.iterdir() if p.is_dir() and not p.name.startswith(".")):
        (found if (d / "meta.json").exists() else skipped).append(d)
    return found, skipped


def _alt_name(folder: Path) -> str:
    """Name of the alternative a lone launch folder belongs to: its campaign's folder name."""
    if folder.parent.name == "launches":
        return folder.parent.parent.resolve().name or "launch"
    return folder.resolve().name


def discover(path: str | Path, record: CampaignRecord | None = None) -> Layout:
    root = Path(path)
    if not root.exists():
        raise InputError(root, "does not exist")
    if not root.is_dir():
        raise InputError(root, "is not a folder (give a campaign folder or a launch folder)")
    if (root / "meta.json").exists():
        return Layout(root, "launch", ((_alt_name(root), (root,)),), ())
    if (root / "launches").is_dir():
        found, skipped = _launch_dirs(root / "launches")
        if not found:
            raise InputError(root / "launches", "holds no launch folder with a meta.json")
        return Layout(root, "campaign", ((root.resolve().name, tuple(found)),), tuple(skipped))
    if record is None:
        record = read_campaign_record(root)
    subs = {p.name: p for p in root.iterdir() if p.is_dir() and (p / "launches").is_dir()}
    if not subs:
        raise InputError(
            root, "is not a campaign or launch folder (no meta.json, no launches/, no sub-folder with launches/)"
        )
    order = list(record.alternative_names) if record is not None else []
    names = [n for n in order if n in subs] + sorted(n for n in subs if n not in order)
    alts, skipped_all = [], []
    for n in names:
        found, skipped = _launch_dirs(subs[n] / "launches")
        skipped_all += skipped
        if found:
            alts.append((n, tuple(found)))
    if not alts:
        raise InputError(root, "holds alternatives but no launch folder with a meta.json")
    others = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name not in subs)
    not_read = tuple((p, why) for p in others if (why := _why_not_an_alternative(p)))
    return Layout(root, "alternatives", tuple(alts), tuple(skipped_all), not_read)


def launches_without_folder(root: Path, record: CampaignRecord | None, layout: Layout) -> list[AnalysisWarning]:
    """``launches-without-folder`` per alternative: the launches campaign.json lists whose folder
    is neither read nor skipped — failed before mpimeter-bench made it (a bad environment fails
    MPI_Init), never run, or deleted — so that no launch leaves the analysis unsaid, and an
    alternative none of whose launches is read is named, not dropped from the tables."""
    if record is None:
        return []
    seen = {p.resolve() for _, paths in layout.alternatives for p in paths} | {p.resolve() for p in layout.skipped}
    read = {name for name, paths in layout.alternatives if paths}
    planned = Counter(e.alternative for e in record.launches)
    missing: dict[str | None, list[LaunchEntry]] = {}
    for e in record.launches:
        if (root / e.folder).resolve() not in seen:
            missing.setdefault(e.alternative, []).append(e)
    out = []
    for alt, entries in missing.items():
        statuses = Counter(e.status or "no status" for e in entries)
        first = entries[0]
        reason = " ".join((first.reason or "no reason recorded").split())
        out.append(warning(
            "launches-without-folder", alternative=alt or "(no alternative)", count=len(entries),
            planned=planned[alt], statuses=", ".join(f"{n} {s}" for s, n in statuses.most_common()),
            folder=first.folder, reason=reason[:160] + ("…" if len(reason) > 160 else ""),
            none="; no launch of it is analysed" if alt not in read else "", where=alt or str(root)))
    return out


def _why_not_an_alternative(folder: Path) -> str:
    """Why a sub-folder that looks like benchmark data is not read as an alternative ("" when it
    does not look like benchmark data, e.g. logs/)."""
    try:
        inner = [p for p in folder.iterdir() if p.is_dir()]
    except OSError:
        return ""
    if any((p / "launches").is_dir() for p in inner):
        return ("it is itself a folder of alternatives (or of campaigns); only sub-folders with launches/ are read "
                "as alternatives")
    if (folder / "campaign.json").exists():
        return "it has a campaign.json but no launches/"
    if (folder / "meta.json").exists():
        return "it is a launch folder, not a campaign (no launches/)"
    return ""


def _index(folder: Path, position: int) -> int:
    return int(folder.name) if folder.name.isdigit() else position


def load(path: str | Path, *, name: str | None = None, cache: bool = True, allow_mixed: bool = False,
         reduce: Reducer | None = None) -> LoadedCampaign:
    """Reads every launch of the folder at ``path``. ``name`` renames a single alternative;
    ``allow_mixed``: launches of one alternative that do not belong together (io.siblings) are a
    warning instead of an error.

    ``reduce`` streams the campaign: each launch's raw rows (checked, with ``alternative`` and
    ``launch`` columns in front, see :func:`with_keys`) are handed to it as soon as the launch is
    read, what it returns is kept in :attr:`LoadedLaunch.reduced` and the rows are dropped before
    the next launch is read — so memory holds one launch's rows, not the campaign's."""
    root = Path(path)
    cj = read_campaign_record(root) if root.is_dir() and not (root / "meta.json").exists() else None
    layout = discover(root, cj)
    warnings = [
        warning("launch-not-started", where=str(p))
        for p in layout.skipped
    ]
    warnings += [
        warning("folder-skipped", name=p.name, why=why, folder=p, where=str(p))
        for p, why in layout.skipped_folders
    ]
    warnings += launches_without_folder(root, cj, layout)
    warnings += [  # measurement-level retry (campaign.testretry): a test lost in every attempt
        warning("test-failed-every-attempt", alternative=f["alternative"], op=f["op"], size=f["size"],
                launch=f"{f['launch']:03d}", attempts=len(f["attempts"]),
                hows=", ".join(a["how"] for a in f["attempts"]), where=str(cj.path))
        for f in (cj.tests_failed if cj is not None else ())
    ]
    launches = []
    # the Parquet copies are written by one thread while the next launches are read and reduced;
    # leaving the block waits for the last of them (the store refers to them)
    with CacheWriter() as writer:
        for alt, folders in layout.alternatives:
            launches += _load_alternative(root, cj, alt if name is None or len(layout.alternatives) != 1 else name,
                                          folders, cache, allow_mixed, reduce, writer, warnings)
    if name is not None and len(layout.alternatives) == 1:
        layout = Layout(layout.root, layout.kind, ((name, layout.alternatives[0][1]),), layout.skipped,
                        layout.skipped_folders)
    return LoadedCampaign(layout, tuple(launches), cj, tuple(warnings))


def _load_alternative(root: Path, cj: CampaignRecord | None, alt_name: str, folders: tuple[Path, ...], cache: bool,
                      allow_mixed: bool, reduce: Reducer | None, writer: CacheWriter,
                      warnings: list[AnalysisWarning]) -> list[LoadedLaunch]:
    read = []
    # a launch `mpimeter run` cut at a hung or crashed test (campaign.json status "cut"): its other
    # tests ran in continuation launches and the lost one is `test-failed-every-attempt`, so its
    # unfinished state is no `incomplete-launch` to re-run (a resume does not re-run it)
    cut = {(root / e.folder).resolve() for e in cj.launches if e.status == "cut"} if cj is not None else set()
    for pos, folder in enumerate(folders):
        data = read_launch(folder, cache=cache, writer=writer)
        if folder.resolve() in cut:
            data = replace(data, warnings=tuple(w for w in data.warnings
                                                if w.code not in ("incomplete-launch", "failed-launch")))
        index = _index(data.folder, pos)
        reduced = None
        if reduce is not None:
            reduced = reduce(alt_name, index, data, with_keys(data.raw, alt_name, index))
            data = replace(data, raw=None)
        read.append(LoadedLaunch(alt_name, index, data, reduced))
    warnings += siblings.check_siblings(alt_name, [(ll.data.folder, ll.data.meta) for ll in read],
                                        siblings.planned_seeds(root, cj, folders), allow_mixed=allow_mixed,
                                        planned_np=siblings.planned_np(root, cj))
    for ll in read:
        warnings += ll.data.warnings
    return read


def with_keys(raw: pa.Table, alternative: str, index: int) -> pa.Table:
    """One launch's raw rows with ``alternative`` and ``launch`` in front and
    ``rgstart_ns``/``rgend_ns`` (null where the launch had no re-synced clock) at the end: the
    layout of :func:`combined_raw`, whose reductions work on one launch or on many alike."""
    n = raw.num_rows
    if "rgstart_ns" not in raw.column_names:
        raw = raw.append_column("rgstart_ns", pa.nulls(n, pa.int64())).append_column("rgend_ns", pa.nulls(n, pa.int64()))
    raw = raw.add_column(0, "launch", pa.repeat(pa.scalar(index, pa.int32()), n))
    alt = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array([alternative], pa.string()))
    return raw.add_column(0, "alternative", alt)


def combined_raw(parts: list[pa.Table], *, decode: bool = False) -> pa.Table:
    """Launches' raw rows (each as :func:`with_keys` gives them) in one table; ``decode``: the
    dictionary columns (alternative, op) as plain strings."""
    if not parts:
        return pa.table({})
    # one chunk per column: the reductions then read numpy views instead of copying ~50 chunks
    table = pa.concat_tables(parts).unify_dictionaries().combine_chunks()
    if decode:
        for i, field in enumerate(table.schema):
            if pa.types.is_dictionary(field.type):
                table = table.set_column(i, field.name, table[field.name].cast(field.type.value_type))
    return table


def combined_sync(launches: tuple[LoadedLaunch, ...]) -> pa.Table:
    parts = []
    for ll in launches:
        t = ll.data.sync
        n = t.num_rows
        t = t.add_column(0, "launch", pa.repeat(pa.scalar(ll.index, pa.int32()), n))
        t = t.add_column(0, "alternative", pa.repeat(pa.scalar(ll.alternative, pa.string()), n))
        parts.append(t)
    return pa.concat_tables(parts) if parts else pa.table({})
