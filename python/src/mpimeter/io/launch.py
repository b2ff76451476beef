"""One launch folder (docs/FORMAT.md): meta.json, raw.csv, sync.csv → checked Arrow tables.

What is checked once, here, with messages that name the file (and line): meta.json parses, is
an object, has a known ``schema_version`` and the keys the analysis relies on; raw.csv has the
exact header, integer fields, ``valid`` in {0, 1}, ``end_ns ≥ start_ns``, tests that meta.json
knows with the same op and size, ranks below ``nprocs``; sync.csv likewise.

Only rows of tests that meta.json lists as ``complete`` are kept: a launch that was killed, or
is still running, contributes its finished tests (with a warning). A ``running`` meta.json whose
rank-0 process no longer exists on this host is read as ``incomplete``.

Which clock gives the run time of a repetition (``clock``): ``global-resync`` when sync.csv has
model rows from ≥ 2 syncs (the initial one and at least one re-sync) — global times are then
recomputed after the fact (mpimeter.io.clock); otherwise ``global-online`` when FORMAT.md's rule
asks for a global clock and raw.csv has one; otherwise ``local``.
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mpimeter import SCHEMA_VERSION
from mpimeter.io import clock as _clock
from mpimeter.io.csvread import Column, read_csv
from mpimeter.io.errors import AnalysisWarning, InputError

RAW_COLUMNS = (
    Column("test", pa.int32()),
    Column("op", pa.string()),
    Column("size", pa.int64()),
    Column("rank", pa.int32()),
    Column("rep", pa.int32()),
    Column("start_ns", pa.int64()),
    Column("end_ns", pa.int64()),
    Column("valid", pa.int8()),
    Column("gstart_ns", pa.int64(), nullable=True),
    Column("gend_ns", pa.int64(), nullable=True),
)
SYNC_COLUMNS = (
    Column("rank", pa.int32()),
    Column("phase", pa.int32()),
    Column("kind", pa.string(), choices=("edge", "model", "residual")),
    Column("peer", pa.int32()),
    Column("local_ns", pa.int64()),
    Column("offset_ns", pa.int64()),
    Column("rtt_ns", pa.int64()),
)
STATUSES = ("running", "complete", "incomplete", "failed")
GLOBAL_PROCSYNCS = ("window", "roundtime", "harmonize")


@dataclass(frozen=True)
class LaunchData:
    folder: Path
    meta: dict[str, Any]
    status: str  # effective status
    status_note: str
    finished_tests: tuple[int, ...]
    raw: pa.Table  # RAW_COLUMNS (+ rgstart_ns, rgend_ns when clock == global-resync)
    sync: pa.Table  # SYNC_COLUMNS
    syncs: int
    clock: str
    clock_reason: str
    raw_rows: int
    warnings: tuple[AnalysisWarning, ...]
    has_global: bool


def _need(obj: dict, key: str, typ: type, path: Path, where: str = "") -> Any:
    if key not in obj:
        raise InputError(path, f"has no key {where}{key}")
    val = obj[key]
    if not isinstance(val, typ) or (typ is int and isinstance(val, bool)):
        raise InputError(path, f"key {where}{key} should be of type {typ.__name__}, not {type(val).__name__}")
    return val


def read_meta(path: str | Path) -> dict[str, Any]:
    """meta.json as a dict, after checking what the analysis relies on."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, "is missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot be read: {exc}") from None
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"does not parse as JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None
    if not isinstance(meta, dict):
        raise InputError(path, "is not a JSON object")
    if "schema_version" not in meta:
        raise InputError(path, "has no schema_version")
    version = meta["schema_version"]
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise InputError(
            path, f"has schema_version {version!r}; this mpimeter reads version {SCHEMA_VERSION} only (upgrade mpimeter?)"
        )
    status = _need(meta, "status", str, path)
    if status not in STATUSES:
        raise InputError(path, f"status {status!r} is not one of {', '.join(STATUSES)}")
    tests = _need(meta, "tests", list, path)
    for i, t in enumerate(tests):
        if not isinstance(t, dict):
            raise InputError(path, f"tests[{i}] is not an object")
        for key, typ in (("test", int), ("op", str), ("size", int), ("status", str)):
            _need(t, key, typ, path, f"tests[{i}].")
    _need(meta, "nprocs", int, path)
    for key in ("clock_sync", "proc_sync", "config"):
        if meta.get(key) is not None and not isinstance(meta[key], dict):
            raise InputError(path, f"key {key!r} is not an object")
    return meta


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


def effective_status(meta: dict[str, Any]) -> tuple[str, str]:
    """(status, note): a ``running`` launch whose rank-0 pid is gone on this host is
    ``incomplete``; one still alive, or on another host, stays ``running``."""
    status = meta["status"]
    if status != "running":
        return status, ""
    pid, host = meta.get("pid"), meta.get("host_of_rank0")
    if host == socket.gethostname() and isinstance(pid, int) and pid > 0:
        if not _pid_alive(pid):
            return "incomplete", f"meta.json says running, but rank 0 (pid {pid}) is gone: read as incomplete"
        return "running", f"still running (pid {pid} on {host})"
    return "running", f"says running on {host!r}, which cannot be checked from here"


def _check_raw(path: Path, raw: pa.Table, meta: dict[str, Any]) -> None:
    def fail_at(mask: np.ndarray, what: str) -> None:
        idx = int(np.argmax(mask))
        raise InputError(path, what.format(i=idx), line=idx + 2)

    valid = raw["valid"].to_numpy()
    bad = (valid != 0) & (valid != 1)
    if bad.any():
        fail_at(bad, "column valid must be 0 or 1")
    start = raw["start_ns"].to_numpy()
    end = raw["end_ns"].to_numpy()
    if (bad := end < start).any():
        fail_at(bad, "end_ns is before start_ns")
    if (bad := raw["rep"].to_numpy() < 0).any():
        fail_at(bad, "rep is negative")
    rank = raw["rank"].to_numpy()
    nprocs = meta["nprocs"]
    if (bad := (rank < -1) | (rank >= nprocs)).any():
        fail_at(bad, f"rank is not in -1 … {nprocs - 1} (nprocs = {nprocs} in meta.json)")
    gs_null = pc.is_null(raw["gstart_ns"]).to_numpy(zero_copy_only=False)
    ge_null = pc.is_null(raw["gend_ns"]).to_numpy(zero_copy_only=False)
    if (bad := gs_null != ge_null).any():
        fail_at(bad, "gstart_ns and gend_ns must both be given or both be empty")
    tests = meta["tests"]
    test = raw["test"].to_numpy()
    if (bad := (test < 0) | (test >= len(tests))).any():
        fail_at(bad, f"test is not one of the {len(tests)} tests in meta.json")
    sizes = np.array([t["size"] for t in tests], dtype=np.int64)
    if (bad := raw["size"].to_numpy() != sizes[test]).any():
        fail_at(bad, "size differs from the size meta.json gives for this test")
    ops = pa.array([t["op"] for t in tests], pa.string())
    if (bad := ~pc.equal(raw["op"], pc.take(ops, raw["test"])).to_numpy(zero_copy_only=False)).any():
        fail_at(bad, "op differs from the op meta.json gives for this test")


def _sync_count(sync: pa.Table) -> int:
    model = sync.filter(pc.equal(sync["kind"], "model"))
    phases = model["phase"].to_numpy()
    return int(np.unique(phases[phases >= 0]).size)


def _choose_clock(meta: dict[str, Any], raw: pa.Table, syncs: int) -> tuple[str, str]:
    cs = (meta.get("clock_sync") or {}).get("method", "none") or "none"
    ps = (meta.get("proc_sync") or {}).get("method", "none") or "none"
    wants_global = cs != "none" or ps in GLOBAL_PROCSYNCS
    has_global = raw.num_rows > 0 and raw["gstart_ns"].null_count < raw.num_rows
    reduced = raw.num_rows > 0 and bool(pc.any(pc.equal(raw["rank"], -1)).as_py())
    if not wants_global:
        return "local", f"local: clock sync {cs!r} and process sync {ps!r} use no global clock"
    if not has_global:
        return "local", f"local: clock sync {cs!r} / process sync {ps!r}, but raw.csv has no global times"
    if syncs >= 2 and not reduced:
        return "global-resync", f"global, recomputed from {syncs} syncs in sync.csv (piecewise-linear per rank)"
    why = "one sync only" if syncs < 2 else "raw mode reduced has no per-rank times"
    return "global-online", f"global, online clock as written ({why})"


def read_launch(folder: str | Path, *, cache: bool = True) -> LaunchData:
    """Reads and checks one launch folder; raises :class:`InputError` for bad input."""
    folder = Path(folder)
    meta_path = folder / "meta.json"
    meta = read_meta(meta_path)
    warnings: list[AnalysisWarning] = []
    status, note = effective_status(meta)
    raw_path = folder / "raw.csv"
    if not raw_path.exists() and not any(t["status"] == "complete" for t in meta["tests"]):
        raw_read = None  # nothing finished, nothing written yet
    else:
        raw_read = read_csv(raw_path, RAW_COLUMNS, cache=cache)
    if raw_read is None:
        raw = pa.table({c.name: pa.array([], c.type) for c in RAW_COLUMNS})
    else:
        raw = raw_read.table
        if raw_read.dropped_line is not None:
            warnings.append(AnalysisWarning(
                "truncated-line",
                f"the last line ({raw_read.dropped_line}) of raw.csv is incomplete and was dropped",
                "the launch was probably killed while writing; its finished tests are still used",
                f"{raw_path}:{raw_read.dropped_line}"))
    _check_raw(raw_path, raw, meta)
    sync_path = folder / "sync.csv"
    if sync_path.exists():
        sread = read_csv(sync_path, SYNC_COLUMNS, cache=False)
        sync = sread.table
        if sread.dropped_line is not None:
            warnings.append(AnalysisWarning(
                "truncated-line", f"the last line ({sread.dropped_line}) of sync.csv is incomplete and was dropped",
                "the launch was probably killed during a clock sync", f"{sync_path}:{sread.dropped_line}"))
    else:
        sync = pa.table({c.name: pa.array([], c.type) for c in SYNC_COLUMNS})
    finished = tuple(t["test"] for t in meta["tests"] if t["status"] == "complete")
    raw_rows = raw.num_rows
    keep = pc.is_in(raw["test"], value_set=pa.array(finished, pa.int32()))
    if not pc.all(keep).as_py() and raw.num_rows:
        dropped = raw.num_rows - int(pc.sum(keep.cast(pa.int64())).as_py())
        warnings.append(AnalysisWarning(
            "unfinished-test-rows",
            f"{dropped} rows of raw.csv belong to tests that meta.json does not list as complete; they were not used",
            "the launch stopped between writing a test's rows and updating meta.json", str(raw_path)))
        raw = raw.filter(keep)
    if status != "complete":
        n_all = len(meta["tests"])
        what = {"running": "is still running", "incomplete": "is incomplete", "failed": "failed"}[status]
        warnings.append(AnalysisWarning(
            "incomplete-launch" if status != "failed" else "failed-launch",
            f"launch {what}: {len(finished)} of {n_all} tests finished and are used" + (f" ({note})" if note else ""),
            "re-run the launch (mpimeter run resumes campaigns) to get all tests", str(meta_path)))
    syncs = _sync_count(sync)
    clock, reason = _choose_clock(meta, raw, syncs)
    if clock == "global-resync":
        try:
            rgs, rge, change = _clock.resync_times(raw, sync)
        except _clock.ClockModelError as exc:
            clock, reason = "global-online", f"global, online clock as written ({exc})"
            warnings.append(AnalysisWarning("resync-clock", f"the global clock could not be recomputed: {exc}",
                                            "check sync.csv; the online global times are used", str(sync_path)))
        else:
            raw = raw.append_column("rgstart_ns", rgs).append_column("rgend_ns", rge)
            reason += f"; moves global times by up to {change / 1000:.3g} µs against the online clock"
    has_global = raw.num_rows > 0 and raw["gstart_ns"].null_count < raw.num_rows
    return LaunchData(folder, meta, status, note, finished, raw, sync, syncs, clock, reason, raw_rows,
                      tuple(warnings), has_global)


def _fmt_us(ns: float) -> str:
    return f"{ns / 1000:.3g} µs"


def launch_warnings(meta: dict[str, Any], folder: Path, where: str, min_median_ns: float | None) -> list[AnalysisWarning]:
    """Warnings from what meta.json recorded: a clock-sync residual that is large against the
    launch's shortest median run time (global clock only), and CPU used by other processes."""
    w = []
    cs = meta.get("clock_sync") or {}
    res = [cs.get(k) for k in ("residual_end", "residual_start") if isinstance(cs.get(k), dict)]
    worst = max((r.get("max_abs_ns") or 0 for r in res), default=0)
    if min_median_ns and worst and worst > 0.1 * min_median_ns:
        w.append(AnalysisWarning(
            "sync-residual", f"launch {where}: the clock-sync residual ({_fmt_us(worst)}) is more than a tenth of its "
            f"shortest median run time ({_fmt_us(min_median_ns)}): global run times of small tests are uncertain",
            "use a drift-aware clock sync (hca3o), re-syncs (--resync-s), or --clock local", str(folder)))
    load = meta.get("load") or {}
    other, wall = load.get("other_cpu_s"), load.get("wall_s")
    ncpus = (meta.get("system") or {}).get("ncpus") or 1
    if isinstance(other, (int, float)) and isinstance(wall, (int, float)) and wall > 0:
        share = other / (wall * ncpus)
        if share > 0.1:
            w.append(AnalysisWarning(
                "machine-load", f"launch {where}: other processes used {100 * share:.0f} % of the machine's CPU time "
                "while it ran", "re-run on a quiet machine, or compare only campaigns run under the same load",
                str(folder)))
    return w
