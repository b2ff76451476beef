# SPDX-License-Identifier: BSD-3-Clause
"""One launch folder (docs/FORMAT.md): meta.json, raw.csv, sync.csv → checked Arrow tables.

What is checked, with messages that name the file (and line): meta.json (mpimeter.io.meta);
raw.csv's header and field types (mpimeter.io.csvread); raw.csv against meta.json — values,
duplicates, and that every finished test is whole (mpimeter.io.rowcheck); sync.csv likewise,
and that it exists when the clock was re-synced (the global times cannot be recomputed without
it). A launch whose meta.json says ``complete`` must be whole: a truncated last line is an
error there, not a warning.

Only rows of tests that meta.json lists as ``complete`` are kept: a launch that was killed, or
is still running, contributes its finished tests (with a warning). A ``running`` meta.json whose
rank-0 process no longer exists on this host is read as ``incomplete``.

The facts about the clock are read here — how many syncs sync.csv holds, whether raw.csv has
global times, and the global times recomputed after the fact from ≥ 2 syncs (mpimeter.io.clock,
columns ``rgstart_ns``/``rgend_ns``); which clock the analysis uses is decided by
mpimeter.analysis.clock.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mpimeter.io import clock as _clock
from mpimeter.io import origin_checks
from mpimeter.io import rawformat, rowcheck
from mpimeter.io.csvread import CacheWriter, Column, CsvRead, read_csv
from mpimeter.io.errors import AnalysisWarning, InputError
from mpimeter.io.meta import LaunchMeta, read_meta
from mpimeter.warning_codes import warning

RAW_COLUMNS = rawformat.COLUMNS  # docs/FORMAT.md "raw.csv" (mpimeter.io.rawformat)
SYNC_COLUMNS = (
    Column("rank", pa.int32()),
    Column("phase", pa.int32()),
    Column("kind", pa.string(), choices=("edge", "model", "residual")),
    Column("peer", pa.int32()),
    Column("local_ns", pa.int64()),
    Column("offset_ns", pa.int64()),
    Column("rtt_ns", pa.int64()),
)


@dataclass(frozen=True, kw_only=True)
class LaunchData:
    """One launch as read. ``raw`` has RAW_COLUMNS, plus ``rgstart_ns``/``rgend_ns`` when the
    global clock was recomputed from the re-syncs in sync.csv (``resynced``); ``resync_error``
    says why it could not be when there were re-syncs. ``raw`` is None once a reader that
    streams launch by launch has reduced it (mpimeter.io.campaign.load's ``reduce``); every other
    field stays."""

    folder: Path
    meta: LaunchMeta
    status: str  # effective status
    status_note: str
    finished_tests: tuple[int, ...]
    raw: pa.Table | None
    sync: pa.Table  # SYNC_COLUMNS
    syncs: int  # syncs with model rows in sync.csv (the initial one and the re-syncs)
    raw_rows: int
    warnings: tuple[AnalysisWarning, ...]
    has_global: bool  # raw.csv has gstart_ns/gend_ns
    resync_error: str | None = None
    resync_change_ns: float | None = None  # largest |recomputed − online| global time
    resynced: bool = False  # raw has rgstart_ns/rgend_ns


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A killed rank whose parent is gone may linger as a zombie until someone reaps it.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    state = stat.rsplit(")", 1)[-1].split()[0]
    return state not in ("Z", "X")


def effective_status(meta: LaunchMeta) -> tuple[str, str]:
    """(status, note): a ``running`` launch whose rank-0 pid is gone on this host is
    ``incomplete``; one still alive, or on another host, stays ``running``."""
    status = meta.status
    if status != "running":
        return status, ""
    pid, host = meta.pid, meta.host_of_rank0
    if host == socket.gethostname() and isinstance(pid, int) and pid > 0:
        if not _pid_alive(pid):
            return "incomplete", f"meta.json says running, but rank 0 (pid {pid}) is gone: read as incomplete"
        return "running", f"still running (pid {pid} on {host})"
    return "running", f"says running on {host!r}, which cannot be checked from here"


def _sync_count(sync: pa.Table) -> int:
    phases = pc.filter(sync["phase"], pc.equal(sync["kind"], "model")).to_numpy()  # one column, not the table
    return int(np.unique(phases[phases >= 0]).size)


def _truncated(path: Path, read: CsvRead, meta: LaunchMeta, when: str) -> list[AnalysisWarning]:
    """A truncated last line: an error when meta.json says the launch completed (the file was cut
    afterwards), else the trace of a launch killed while writing (a warning)."""
    if read.dropped_line is None:
        return []
    if meta.status == "complete":
        raise InputError(path, "the last line is cut short (no newline), but meta.json says the launch is complete: "
                               "the file was truncated after the launch ended", line=read.dropped_line)
    return [warning("truncated-line", line=read.dropped_line, file=path.name, when=when,
                    where=f"{path}:{read.dropped_line}")]


def resync_required(meta: LaunchMeta) -> str | None:
    """Why sync.csv must exist (the clock was, or was set to be, re-synced), or None."""
    if meta.clock_sync.method == "none":
        return None
    if meta.clock_sync.resyncs > 0:
        return f"meta.json says the clock was re-synced (clock_sync.resyncs = {meta.clock_sync.resyncs})"
    if meta.config.resync_s is not None:
        return f"meta.json says the clock was re-synced every {meta.config.resync_s:g} s (config.resync_s)"
    return None


def _read_sync(folder: Path, meta: LaunchMeta) -> tuple[pa.Table, list[AnalysisWarning]]:
    path = folder / "sync.csv"
    if not path.exists():
        why = resync_required(meta)
        if why is not None:
            raise InputError(path, f"is missing, but {why}: the global times cannot be recomputed without it")
        return pa.table({c.name: pa.array([], c.type) for c in SYNC_COLUMNS}), []
    read = read_csv(path, SYNC_COLUMNS, cache=False)
    return read.table, _truncated(path, read, meta, "during a clock sync")


def _read_raw(folder: Path, meta: LaunchMeta, cache: bool, writer: CacheWriter | None
              ) -> tuple[pa.Table, list[AnalysisWarning]]:
    path = folder / "raw.csv"
    if not path.exists() and not meta.finished_tests:
        return pa.table({c.name: pa.array([], c.type) for c in RAW_COLUMNS}), []  # nothing written yet
    read = read_csv(path, RAW_COLUMNS, cache=cache, writer=writer)
    warnings = _truncated(path, read, meta, "while writing; its finished tests are still used")
    raw = read.table
    rowcheck.check_values(path, raw, meta)
    rowcheck.check_components(path, raw, meta)
    rowcheck.check_unique(path, raw, meta)
    rowcheck.check_whole(path, raw, meta)
    origin_checks.check_rows(path, raw, meta)  # imported launches (meta.json schema 4 origin)
    return raw, warnings


def read_launch(folder: str | Path, *, cache: bool = True, writer: CacheWriter | None = None) -> LaunchData:
    """Reads and checks one launch folder; raises :class:`InputError` for bad input. ``writer``:
    where raw.csv's Parquet copy is written (mpimeter.io.csvread.read_csv)."""
    folder = Path(folder)
    meta = read_meta(folder / "meta.json")
    status, note = effective_status(meta)
    raw, warnings = _read_raw(folder, meta, cache, writer)
    sync, sync_warnings = _read_sync(folder, meta)
    warnings += sync_warnings
    warnings += origin_checks.imported_warnings(meta, folder)  # what an imported launch cannot give
    finished = meta.finished_tests
    raw_rows = raw.num_rows
    keep = pc.is_in(raw["test"], value_set=pa.array(finished, pa.int32()))
    if raw.num_rows and not pc.all(keep).as_py():
        dropped = raw.num_rows - int(pc.sum(keep.cast(pa.int64())).as_py())
        warnings.append(warning("unfinished-test-rows", rows=dropped, file="raw.csv", where=str(folder / "raw.csv")))
        raw = raw.filter(keep)
    if status != "complete":
        what = {"running": "is still running", "incomplete": "is incomplete", "failed": "failed"}[status]
        warnings.append(warning(
            "incomplete-launch" if status != "failed" else "failed-launch", state=what, finished=len(finished),
            tests=len(meta.tests), note=f" ({note})" if note else "", where=str(folder / "meta.json")))
    syncs = _sync_count(sync)
    has_global = raw.num_rows > 0 and raw["gstart_ns"].null_count < raw.num_rows
    reduced = raw.num_rows > 0 and bool(pc.any(pc.equal(raw["rank"], -1)).as_py())
    resync_error, change = None, None
    if syncs >= 2 and has_global and not reduced:
        try:
            rgs, rge, change = _clock.resync_times(raw, sync)
        except _clock.ClockModelError as exc:
            resync_error = str(exc)
        else:
            raw = raw.append_column("rgstart_ns", rgs).append_column("rgend_ns", rge)
    return LaunchData(folder=folder, meta=meta, status=status, status_note=note, finished_tests=finished, raw=raw,
                      sync=sync, syncs=syncs, raw_rows=raw_rows, warnings=tuple(warnings), has_global=has_global,
                      resync_error=resync_error, resync_change_ns=change, resynced="rgstart_ns" in raw.column_names)
