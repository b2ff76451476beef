# SPDX-License-Identifier: BSD-3-Clause
"""Adding campaigns to the results store: a campaign folder → its rows (provenance, per-launch
summaries, per-(op, size, p, root, workpieces) results with their bounds, and its HTML report), written in one
transaction with the others of the same ``store add``, or not at all.

A campaign whose id is in the store already is left as it is (adding it again changes nothing)
unless ``replace`` is given — but never when the store has it under another machine's name:
that is a conflict, refused before anything is written.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from dataclasses import replace as replace_fields
from pathlib import Path
from typing import Any

import pandas as pd

from mpimeter import __version__
from mpimeter.analysis.settings import PER_LAUNCH_KEYS  # config keys a campaign sets per launch
from mpimeter.io.campaign_record import CampaignRecord
from mpimeter.resultstore import schema
from mpimeter.resultstore.schema import StoreError


@dataclass(frozen=True, kw_only=True)
class Entry:
    """One campaign, analyzed and ready to be added."""

    campaign_id: str
    id_source: str
    machine: str
    path: Path
    result: Any  # analysis.AnalysisResult
    bounds: Any  # analysis.bounds.BoundsResult
    report: bytes | None
    report_source: str | None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _json(value: Any) -> str:
    return json.dumps(value, default=str, allow_nan=False) if value is not None else "null"


def _finite(x: Any) -> float | None:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return x if x == x and abs(x) != float("inf") else None


def _variant(record: CampaignRecord | None, alternative: str) -> str:
    """The environment an alternative set (campaign.json alternatives[].env; secrets already
    redacted there), as ``NAME=value`` words; '' for a library as it is."""
    env = record.env_of(alternative) if record is not None else {}
    return " ".join(f"{k}={v}" for k, v in sorted(env.items()))


def _span(launches) -> tuple[str | None, str | None]:
    starts = [li.meta.wall_start for li in launches if li.meta.wall_start]
    ends = [li.meta.wall_end for li in launches if li.meta.wall_end]
    return (min(starts) if starts else None), (max(ends) if ends else None)


def campaign_rows(entry: Entry, added: str) -> dict[str, list[tuple]]:
    """The rows of every table for one campaign (schema.TABLES order of columns)."""
    res, campaign = entry.result, entry.result.campaign
    cj = campaign.campaign_record
    first, last = _span(campaign.launches)
    seed = cj.seed if cj is not None else None
    rows: dict[str, list[tuple]] = {name: [] for name in schema.TABLES}
    rows["campaigns"].append((
        entry.campaign_id, Path(entry.path).resolve().name, str(Path(entry.path).resolve()), entry.machine,
        entry.id_source, added, first, last, len(res.alternatives), len(campaign.launches),
        _text(cj.command) if cj is not None else None, seed, _json(asdict(res.settings)), __version__, entry.report,
        entry.report_source))
    root = Path(campaign.path).resolve()
    for alt in res.alternatives:
        launches = campaign.launches_of(alt)
        meta = launches[0].meta
        machine = entry.bounds.machine(alt)
        config = {k: v for k, v in meta.config.entries.items() if k not in PER_LAUNCH_KEYS}
        hosts = sorted({h for li in launches for h in li.meta.hosts})
        a_first, a_last = _span(launches)
        rows["alternatives"].append((
            entry.campaign_id, alt, meta.mpi.library, meta.mpi.library_version_line, meta.mpi.version,
            _variant(cj, alt), meta.nprocs, _json(hosts), meta.system.cpu_model, meta.system.kernel,
            meta.system.ncpus, meta.build.compiler, _json(config), len(launches), a_first, a_last,
            machine.latency_floor_ns if machine else None, machine.copy_large_Bps if machine else None,
            machine.copy_peak_Bps if machine else None))
        for li in launches:
            m = li.meta
            try:
                folder = Path(li.folder).resolve().relative_to(root).as_posix()
            except ValueError:
                folder = Path(li.folder).name
            copy = m.copy_bandwidth
            rows["launches"].append((
                entry.campaign_id, alt, li.index, folder, li.status, li.clock, m.wall_start, m.wall_end,
                _json(list(m.hosts)), m.latency_floor.floor_ns if m.latency_floor else None,
                copy.large_Bps if copy else None, copy.peak_Bps if copy else None, m.empty_region_ns,
                _json(dict(m.document))))
    for s in res.launch_summaries:
        rows["launch_summaries"].append((
            entry.campaign_id, s.alternative, s.launch, s.test, s.op, s.size, s.clock, s.n_total, s.n_invalid,
            s.removed, s.n, _finite(s.median_ns), _finite(s.mean_ns), _finite(s.min_ns), _finite(s.max_ns),
            _finite(s.q1_ns), _finite(s.q3_ns), _finite(s.p99_ns), _finite(s.cov), s.warmup_length,
            s.nprocs or None, s.root, s.workpieces))
    for r in res.rows:
        # a row is (alternative, op, size, p, root, workpieces): mw-workpieces has one per number of pieces
        b = entry.bounds.row(r.alternative, r.op, r.size, r.nprocs, r.root)
        rows["results"].append((
            entry.campaign_id, r.alternative, r.op, r.size, res.size_unit(r.op), r.launches, _finite(r.median_ns),
            r.median_ci_low_ns, r.median_ci_high_ns, r.confidence, _finite(r.mean_ns), _finite(r.spread),
            r.outliers_removed, r.invalid, r.repetitions, r.clock, r.bandwidth_Bps, r.one_way,
            b.bound_ns if b else None, b.cache_bound_ns if b else None, b.fraction if b else None,
            r.nprocs or None, r.root, r.workpieces))
    return rows


def _insert(con, table: str, rows: list[tuple]) -> None:
    if not rows:
        return
    columns = [c for c, _ in schema.TABLES[table]]
    if len(rows) < 64:
        con.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(columns))})", rows)
        return
    frame = pd.DataFrame(rows, columns=columns)
    con.register("mm_rows", frame)
    try:
        con.execute(f"INSERT INTO {table} SELECT {', '.join(columns)} FROM mm_rows")
    finally:
        con.unregister("mm_rows")


def stored_machines(con, ids: list[str]) -> dict[str, str]:
    if not ids:
        return {}
    found = con.execute(f"SELECT campaign_id, machine FROM campaigns WHERE campaign_id IN "
                        f"({', '.join('?' * len(ids))})", ids).fetchall()
    return dict(found)


def _result_keys(rows) -> list[tuple]:
    """What a campaign's results say, as the store holds them: (alternative, op, size, p, root,
    work pieces, launches, median), in order."""
    return sorted(((str(a), str(o), int(s), None if n is None else int(n), None if r is None else int(r),
                    None if w is None else int(w), int(k), m) for a, o, s, n, r, w, k, m in rows),
                  key=lambda x: tuple((v is None, v) for v in x[:7]))


def stored_differences(con, entries: list[Entry]) -> dict[str, str]:
    """Per campaign in the store, how the folder given now differs from what the store holds:
    a campaign added while it ran (or cut, and resumed later), edited since, or analysed now with
    other options is "unchanged" unless --replace, and the user is told it differs, not left to
    believe the store holds what the folder says."""
    out = {}
    for e in entries:
        found = con.execute("SELECT launches, settings FROM campaigns WHERE campaign_id = ?", [e.campaign_id]).fetchone()
        if found is None:
            continue
        launches, settings = found
        why = []
        now = len(e.result.campaign.launches)
        if launches != now:
            why.append(f"the store holds {launches} launch(es) of it, the folder {now}")
        if settings != _json(asdict(e.result.settings)):
            why.append("the store holds it analysed with other options")
        # an older store lacks nprocs, root, workpieces until add gives them (schema.relation: NULL)
        stored = con.execute("SELECT alternative, op, size, nprocs, root, workpieces, launches, median_ns FROM "
                             f"{schema.relation(con, 'results')} WHERE campaign_id = ?", [e.campaign_id]).fetchall()
        mine = [(r.alternative, r.op, r.size, r.nprocs or None, r.root, r.workpieces, r.launches, _finite(r.median_ns))
                for r in e.result.rows]
        if len({s[0] for s in stored}) == len({m[0] for m in mine}) == 1:  # a lone alternative is named by its folder
            stored, mine = [("", *s[1:]) for s in stored], [("", *m[1:]) for m in mine]
        if _result_keys(stored) != _result_keys(mine):
            why.append("the store holds other results than the folder gives")
        if why:
            out[e.campaign_id] = "; ".join(why)
    return out


def add(path: Path, entries: list[Entry], *, replace: bool = False,
        report: Callable[[Entry], tuple[bytes, str]] | None = None) -> list[tuple[Entry, str, str]]:
    """Adds ``entries`` to the store at ``path`` (created when missing) in one transaction.
    Returns each entry with what happened: ``added``, ``replaced`` or ``unchanged``, and how its
    folder differs from what the store holds when it is left unchanged ('' otherwise). Raises
    StoreError — before anything is written — for a campaign stored under another machine.
    ``report``: draws an entry's HTML report (its bytes and where they come from), asked only for
    the entries written: a report is the costliest part of an entry, and one that is not written
    (a campaign there already, a refused add) is never shown."""
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    existed = schema.check_writable(path)
    if existed:  # conflicts are found read-only: a refused add leaves the file untouched
        con = schema.open_read(path)
        try:
            stored = stored_machines(con, [e.campaign_id for e in entries])
            differs = {} if replace else stored_differences(con, entries)
        finally:
            con.close()
    else:
        stored, differs = {}, {}
    for e in entries:
        if e.campaign_id in stored and stored[e.campaign_id] != e.machine:
            raise StoreError(f"{e.path}: campaign {e.campaign_id} is in the store {path} under machine "
                             f"{stored[e.campaign_id]!r}, not {e.machine!r}; give --machine {stored[e.campaign_id]!r} "
                             "(or add it to another store)")
    outcome, seen = [], set()
    todo = []
    for e in entries:
        if e.campaign_id in seen:
            outcome.append((e, "unchanged"))
            continue
        seen.add(e.campaign_id)
        if e.campaign_id in stored and not replace:
            outcome.append((e, "unchanged"))
        else:
            todo.append(e)
            outcome.append((e, "replaced" if e.campaign_id in stored else "added"))
    outcome = [(e, what, differs.get(e.campaign_id, "") if what == "unchanged" else "") for e, what in outcome]
    if not todo and existed:
        return outcome
    if report is not None:  # drawn before the store is opened for writing: a failure leaves it as it was
        drawn = {id(e): replace_fields(e, **dict(zip(("report", "report_source"), report(e)))) for e in todo}
        todo = [drawn[id(e)] for e in todo]
        outcome = [(drawn.get(id(e), e), what, why) for e, what, why in outcome]
    con, created = schema.open_write(path, tool_version=__version__, created=now)
    try:
        con.execute("BEGIN TRANSACTION")
        for e in todo:
            if e.campaign_id in stored:
                for table in schema.TABLES:
                    con.execute(f"DELETE FROM {table} WHERE campaign_id = ?", [e.campaign_id])
            for table, rows in campaign_rows(e, now).items():
                _insert(con, table, rows)
        con.execute("COMMIT")
    except BaseException as exc:
        try:
            con.execute("ROLLBACK")
        except Exception:  # noqa: BLE001 - the transaction may already be gone
            pass
        con.close()
        if created:
            schema.remove_store(path)
        import duckdb

        if isinstance(exc, duckdb.Error):
            raise StoreError(f"{path}: could not be written: {str(exc).splitlines()[0][:200]}") from None
        raise
    con.close()
    return outcome
