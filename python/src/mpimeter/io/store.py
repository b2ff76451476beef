# SPDX-License-Identifier: BSD-3-Clause
"""campaign.duckdb: the queryable store of one campaign, or of several together.

Tables and views (rewritten when a load finds the data changed — a launch added, re-read or
analyzed with another clock — and left alone otherwise: ``store_info.fingerprint`` records what
they were made from):

- ``launches``: campaign, alternative, launch, folder, status, clock, nprocs, mpi_library,
  meta (the whole meta.json as JSON text);
- ``raw``: a view over the Parquet copies of raw.csv (``raw.parquet`` next to each raw.csv) with
  campaign, alternative and launch in front — all rows as written, finished tests or not. Its
  paths are relative to the folder of the store, so that a copied or moved campaign queries its
  own data: run duckdb in that folder (or ``SET file_search_path = '<folder>'`` first); from
  anywhere else the view fails to find its files instead of reading another campaign's;
- ``sync``: the sync.csv rows of every launch.

For example: ``duckdb campaign.duckdb "select op, size, median(end_ns - start_ns) from raw
group by all"``. Writing is best effort: a read-only folder or a store locked by another process
gives a warning, never an error.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from mpimeter.atomic import check_file_target, kind_of
from mpimeter.io import runtimes as _runtimes
from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.meta import LaunchMeta
from mpimeter.warning_codes import warning

STORE_NAME = "campaign.duckdb"


@dataclass(frozen=True, kw_only=True)
class StoredLaunch:
    campaign: str
    alternative: str
    launch: int
    folder: Path
    status: str
    clock: str
    meta: LaunchMeta
    sync: pa.Table


def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _stat(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def fingerprint(launches: Sequence[StoredLaunch]) -> str:
    """What the store's contents follow from: each launch's identity, status and clock, and the
    size and time of its meta.json, sync.csv and Parquet copy."""
    facts = [[ln.campaign, ln.alternative, ln.launch, str(ln.folder.resolve()), ln.status, ln.clock,
              *(_stat(ln.folder / name) for name in ("meta.json", "sync.csv", "raw.parquet"))] for ln in launches]
    return hashlib.sha256(json.dumps(facts).encode()).hexdigest()


_aliases = itertools.count()


@contextmanager
def _attached(db_path: Path, *, read_only: bool) -> Iterator:
    """A connection to the process's in-memory DuckDB database (``io.runtimes.connect``) with the
    file at ``db_path`` attached as its default database, detached (and so written out) at the
    end: attaching a file costs about 2 ms of CPU where a database of its own costs about 16 ms,
    and every load of a campaign looks at its store. Raises duckdb.Error or OSError as opening it
    would; the settings made on the connection end with it."""
    con = _runtimes.connect()
    alias = f"campaign_store_{os.getpid()}_{next(_aliases)}"  # attachments are the database's, not the connection's
    try:
        con.execute(f"ATTACH {_sql_str(str(db_path))} AS {alias}" + (" (READ_ONLY)" if read_only else ""))
    except BaseException:
        con.close()
        raise
    try:
        con.execute(f"USE {alias}")
        yield con
    finally:
        try:
            con.execute("USE memory")  # a database in use cannot be detached
            con.execute(f"DETACH {alias}")
        finally:
            con.close()


def _stored_fingerprint(db_path: Path) -> str | None:
    import duckdb

    if kind_of(db_path) != "a regular file":
        return None
    try:
        with _attached(db_path, read_only=True) as con:
            try:
                row = con.execute("SELECT fingerprint FROM store_info").fetchone()
            except duckdb.Error:
                return None  # a store of an older mpimeter: rewritten
    except (duckdb.Error, OSError):
        return None
    return None if row is None else row[0]


def write_store(db_path: str | Path, launches: Sequence[StoredLaunch]) -> AnalysisWarning | None:
    """(Re)writes the store at ``db_path`` unless it was made from the same data already
    (:func:`fingerprint`); returns a warning instead of raising."""
    import duckdb

    db_path = Path(db_path)
    made_from = fingerprint(launches)
    if _stored_fingerprint(db_path) == made_from:
        return None
    try:
        check_file_target(db_path)  # written in place (DuckDB): never through a link, nor into a device
        with _attached(db_path, read_only=False) as con:
            return _fill(con, db_path, launches, made_from)
    except (duckdb.Error, OSError) as exc:
        return warning("store-not-written", db=db_path, action="opened", error=exc, where=str(db_path),
                       advice="another mpimeter may be using it, or the folder is read-only; the analysis is unaffected")


def _fill(con, db_path: Path, launches: Sequence[StoredLaunch], made_from: str) -> AnalysisWarning | None:
    """The tables and the view of the store, in one transaction on ``con`` (the store attached as
    its default database); a warning when they could not be written."""
    import duckdb

    try:
        rows = [
            (ln.campaign, ln.alternative, ln.launch, str(ln.folder.resolve()), ln.status, ln.clock,
             ln.meta.nprocs, ln.meta.mpi.library, json.dumps(ln.meta.document))
            for ln in launches
        ]
        con.execute("BEGIN TRANSACTION")
        con.execute("DROP VIEW IF EXISTS raw")
        con.execute("DROP TABLE IF EXISTS raw")
        con.execute("DROP TABLE IF EXISTS launches")
        con.execute("DROP TABLE IF EXISTS sync")
        con.execute("DROP TABLE IF EXISTS store_info")
        con.execute(
            "CREATE TABLE launches (campaign VARCHAR, alternative VARCHAR, launch INTEGER, folder VARCHAR,"
            " status VARCHAR, clock VARCHAR, nprocs INTEGER, mpi_library VARCHAR, meta JSON)"
        )
        if rows:
            # one insert of the rows as a table (as the sync table below): DuckDB's executemany
            # binds and runs the statement once per launch, about a millisecond each
            names = ("campaign", "alternative", "launch", "folder", "status", "clock", "nprocs", "mpi_library", "meta")
            launches_rows = pa.table({name: [row[i] for row in rows] for i, name in enumerate(names)})  # noqa: F841
            con.execute("INSERT INTO launches SELECT * FROM launches_rows")
        parts = []
        base = db_path.resolve().parent
        for ln in launches:
            pq = (ln.folder / "raw.parquet").resolve()
            if pq.exists():
                rel = Path(os.path.relpath(pq, base)).as_posix()
                parts.append(
                    f"SELECT {_sql_str(ln.campaign)} AS campaign, {_sql_str(ln.alternative)} AS alternative,"
                    f" {ln.launch} AS launch, * FROM read_parquet({_sql_str(rel)})"
                )
        if parts:
            # the view binds its relative paths now: against the store's folder, as later readers will
            con.execute(f"SET file_search_path = {_sql_str(str(base))}")
            con.execute("CREATE VIEW raw AS " + " UNION ALL ".join(parts))
        syncs = []
        for ln in launches:
            t = ln.sync
            n = t.num_rows
            t = t.add_column(0, "launch", pa.repeat(pa.scalar(ln.launch, pa.int32()), n))
            t = t.add_column(0, "alternative", pa.repeat(pa.scalar(ln.alternative, pa.string()), n))
            t = t.add_column(0, "campaign", pa.repeat(pa.scalar(ln.campaign, pa.string()), n))
            syncs.append(t)
        if syncs:
            sync_all = pa.concat_tables(syncs)  # noqa: F841  (read by duckdb by name)
            con.execute("CREATE TABLE sync AS SELECT * FROM sync_all")
        con.execute("CREATE TABLE store_info (fingerprint VARCHAR)")
        con.execute("INSERT INTO store_info VALUES (?)", [made_from])
        con.execute("COMMIT")
    except (duckdb.Error, OSError) as exc:
        try:
            con.execute("ROLLBACK")
        except duckdb.Error:
            pass
        return warning("store-not-written", db=db_path, action="written", error=exc, where=str(db_path),
                       advice="the analysis is unaffected; delete the file to have it rebuilt")
    return None
