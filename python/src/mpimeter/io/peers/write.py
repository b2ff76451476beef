# SPDX-License-Identifier: BSD-3-Clause
"""Parsed peer runs → a campaign folder of imported launches (docs/FORMAT.md, "Imported
launches"): ``<out>/launches/NNN/`` per run, in the order given, each with meta.json of schema
version 4 (its ``origin`` says where it came from, what a row is and what it lacks) and raw.csv
with ``--raw reduced`` rows: one per repetition of the tool's per-repetition output, or one per
test carrying the tool's headline aggregate. No sync.csv: the tools record no clock sync.

All or nothing: the folder is built under a temporary name beside ``out`` and renamed at the end;
``out`` must not exist yet (or be an empty folder).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mpimeter import __version__
from mpimeter.atomic import check_folder_target, write_atomic
from mpimeter.io import origin as _origin
from mpimeter.io import rawformat
from mpimeter.io import redact
from mpimeter.io.errors import InputError
from mpimeter.io.peers import imb_rma
from mpimeter.io.peers.common import PeerRun

RAW_HEADER = rawformat.HEADER


def check_runs(runs: list[PeerRun]) -> None:
    """Runs of one import belong together: one number of ranks, and no test twice in a run."""
    first = runs[0]
    seen_files: dict[str, PeerRun] = {}
    for run in runs:
        if run.sha256 in seen_files:
            raise InputError(run.path, f"has the same content as {seen_files[run.sha256].path}: one run imported twice "
                                       "would count as two launches")
        seen_files[run.sha256] = run
    for run in runs[1:]:
        if run.nprocs != first.nprocs:
            raise InputError(run.path, f"ran on {run.nprocs} ranks, {first.path.name} on {first.nprocs}: the launches "
                                       "of one campaign have one number of ranks (import them separately)")
    for run in runs:
        seen: dict[tuple[str, int], int] = {}
        for t in run.tests:
            if (t.op, t.size) in seen:
                raise InputError(run.path, f"{t.name} at {t.size} B appears twice (lines {seen[(t.op, t.size)]} and "
                                           f"{t.line}); one launch has each operation and size once", line=t.line)
            seen[(t.op, t.size)] = t.line


def _origin_of(run: PeerRun, imported_at: str) -> dict[str, Any]:
    rule = redact.reading_rule()  # an imported command line or header may hold a credential
    o = _origin.Origin(
        tool=run.tool, tool_name=run.tool_name, tool_version=run.tool_version, file=run.path.name, sha256=run.sha256,
        command=rule.text(run.command), data=run.data, run_time=run.run_time, lacks=run.lacks,
        global_times=run.global_times, settings=rule.facts(run.settings),
        tests=tuple(_origin.OriginTest(test=i, name=t.name, line=t.line, repetitions=t.repetitions,
                                       valid_repetitions=t.valid_repetitions, headline=t.headline,
                                       aggregates_ns=t.aggregates_ns) for i, t in enumerate(run.tests)))
    doc = _origin.to_document(o)
    doc.update(date=run.date, imported_by={"name": "mpimeter", "version": __version__}, imported_at=imported_at,
               path=str(run.path.resolve()))
    return doc


def meta_document(run: PeerRun, imported_at: str) -> dict[str, Any]:
    """meta.json of one imported run (schema version 4)."""
    ops = list(dict.fromkeys(t.op for t in run.tests))
    round_trip = {t.op for t in run.tests if t.round_trip}
    invalid = sum(len(t.valid) - sum(t.valid) for t in run.tests)
    try:
        argv = shlex.split(run.command) if run.command else []
    except ValueError:
        argv = [run.command]
    argv = redact.reading_rule().argv(argv)
    return {
        "schema_version": _origin.ORIGIN_VERSION,
        "tool": {"name": "mpimeter import", "version": __version__, "git_revision": None},
        "status": "complete", "pid": None, "host_of_rank0": None, "argv": argv,
        "config": {"ops": ops, "sizes": sorted({t.size for t in run.tests}), "nrep": None, "warmup": None,
                   "timer": run.timer, "clocksync": run.clocksync, "procsync": run.procsync, "seed": None,
                   "raw": "reduced", "datatype": run.datatype,
                   **({"rma": dict(run.rma)} if run.rma is not None else {})},
        "nprocs": run.nprocs,
        # what the tool's measurement is: a round trip (its time halved) for its ping-pongs
        "operations": {op: _operation(run, op, op in round_trip) for op in ops},
        "mpi": {"library": "unknown", "version": run.mpi_version, "library_version": None},
        "system": {"kernel": run.kernel},
        "ranks": [],
        "timer": {"name": run.timer},
        "clock_sync": {"method": run.clocksync, "resyncs": 0},
        "proc_sync": {"method": run.procsync, "invalid": {"total": invalid}},
        "wall_start": None, "wall_end": None,
        "tests": [{"test": i, "op": t.op, "size": t.size, "status": "complete", "nrep": len(t.run_times_ns),
                   "nrep_asked": t.repetitions, "ended_by": "nrep", "invalid": len(t.valid) - sum(t.valid)}
                  for i, t in enumerate(run.tests)],
        "conditions": [],
        "origin": _origin_of(run, imported_at),
    }


def _operation(run: PeerRun, op: str, round_trip: bool) -> dict[str, Any]:
    """operations[op]: a round trip of the pair for the tools' ping-pongs; for one-sided rows the
    kind, whether only the pair communicates (not in the contention patterns) and the bytes moved
    per byte of size, as the binary states them (1, the burst for the -bw rows, none for
    fetch-and-op and compare-and-swap, which move one element)."""
    doc: dict[str, Any] = {"kind": "point-to-point" if round_trip else None, "ranks_finish_apart": round_trip,
                           "size_unit": "bytes", "round_trip": round_trip, "uses_pair": round_trip}
    if run.rma is not None and op.startswith("rma-"):
        # IMB-RMA's contention patterns involve every rank; the other one-sided rows the pair
        doc.update(kind="one-sided", ranks_finish_apart=True, uses_pair=op not in imb_rma.CONTENTION_OPS)
        if op.endswith("-bw"):
            doc["bound_volume"] = {"formula": "rma-burst x size", "bytes_per_size": run.rma["burst"]}
        elif op not in ("rma-fop", "rma-cas") and op not in imb_rma.CONTENTION_OPS:  # no bound stated
            doc["bound_volume"] = {"formula": "size", "bytes_per_size": 1}
    return doc


def raw_csv(run: PeerRun) -> bytes:
    lines = [RAW_HEADER]
    for i, t in enumerate(run.tests):
        for rep, (ns, ok) in enumerate(zip(t.run_times_ns, t.valid)):
            glob = f"0,{ns}" if run.global_times else ","
            lines.append(f"{i},{t.op},{t.size},-1,{rep},0,{ns},{int(ok)},{glob}" + "," * len(rawformat.COMPONENTS))
    return ("\n".join(lines) + "\n").encode()


def write_campaign(runs: list[PeerRun], out: str | Path) -> list[Path]:
    """Writes ``out/launches/NNN`` for the runs, all or nothing; returns the launch folders."""
    out = Path(out)
    check_folder_target(out, "--out")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(out, "already exists; give a new folder (an import never writes into an existing campaign)")
    check_runs(runs)
    out.parent.mkdir(parents=True, exist_ok=True)
    imported_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name[:100]}.", suffix=".importing", dir=out.parent))
    try:
        for k, run in enumerate(runs):
            folder = tmp / "launches" / f"{k:03d}"
            folder.mkdir(parents=True)
            write_atomic(folder / "raw.csv", raw_csv(run))
            write_atomic(folder / "meta.json", (json.dumps(meta_document(run, imported_at), indent=2) + "\n").encode())
        os.chmod(tmp, 0o777 & ~_umask())
        if out.exists():
            out.rmdir()
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return [out / "launches" / f"{k:03d}" for k in range(len(runs))]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
