# SPDX-License-Identifier: BSD-3-Clause
"""The results store's file: one DuckDB database of schema version :data:`SCHEMA_VERSION`
(docs/FORMAT.md, "The results store"), opened only when it is one.

A file is a store when it is a DuckDB database whose ``store_info`` table says
``format = mpimeter-results-store``; a store of another ``schema_version`` is refused, as is any
other file (a campaign's own ``campaign.duckdb`` cache included). Every refusal is a
:class:`StoreError` with one line naming the file; nothing is written to a file that is not a
store. Reading opens the file read-only.
"""

from __future__ import annotations

import os
from pathlib import Path

from mpimeter.atomic import kind_of
from mpimeter.errors import MpimeterError

FORMAT = "mpimeter-results-store"
SCHEMA_VERSION = 1

# Columns of the tables, in order: (name, DuckDB type). The campaign is the key of everything.
CAMPAIGNS = (
    ("campaign_id", "VARCHAR PRIMARY KEY"), ("name", "VARCHAR"), ("path", "VARCHAR"), ("machine", "VARCHAR"),
    ("id_source", "VARCHAR"), ("added", "VARCHAR"), ("first_start", "VARCHAR"), ("last_end", "VARCHAR"),
    ("alternatives", "INTEGER"), ("launches", "INTEGER"), ("command", "VARCHAR"), ("seed", "BIGINT"),
    ("settings", "JSON"), ("tool_version", "VARCHAR"), ("report", "BLOB"), ("report_source", "VARCHAR"),
)
ALTERNATIVES = (
    ("campaign_id", "VARCHAR"), ("alternative", "VARCHAR"), ("library", "VARCHAR"), ("library_version", "VARCHAR"),
    ("mpi_version", "VARCHAR"), ("variant", "VARCHAR"), ("nprocs", "INTEGER"), ("hosts", "JSON"),
    ("cpu_model", "VARCHAR"), ("kernel", "VARCHAR"), ("ncpus", "INTEGER"), ("compiler", "VARCHAR"),
    ("bench_config", "JSON"), ("launches", "INTEGER"), ("first_start", "VARCHAR"), ("last_end", "VARCHAR"),
    ("latency_floor_ns", "DOUBLE"), ("copy_bandwidth_Bps", "DOUBLE"), ("copy_peak_Bps", "DOUBLE"),
)
LAUNCHES = (
    ("campaign_id", "VARCHAR"), ("alternative", "VARCHAR"), ("launch", "INTEGER"), ("folder", "VARCHAR"),
    ("status", "VARCHAR"), ("clock", "VARCHAR"), ("wall_start", "VARCHAR"), ("wall_end", "VARCHAR"),
    ("hosts", "JSON"), ("latency_floor_ns", "DOUBLE"), ("copy_bandwidth_Bps", "DOUBLE"),
    ("copy_peak_Bps", "DOUBLE"), ("empty_region_ns", "DOUBLE"), ("meta", "JSON"),
)
LAUNCH_SUMMARIES = (
    ("campaign_id", "VARCHAR"), ("alternative", "VARCHAR"), ("launch", "INTEGER"), ("test", "INTEGER"),
    ("op", "VARCHAR"), ("size", "BIGINT"), ("clock", "VARCHAR"), ("n_total", "INTEGER"), ("n_invalid", "INTEGER"),
    ("removed", "INTEGER"), ("n", "INTEGER"), ("median_ns", "DOUBLE"), ("mean_ns", "DOUBLE"), ("min_ns", "DOUBLE"),
    ("max_ns", "DOUBLE"), ("q1_ns", "DOUBLE"), ("q3_ns", "DOUBLE"), ("p99_ns", "DOUBLE"), ("cov", "DOUBLE"),
    ("warmup_length", "INTEGER"), ("nprocs", "INTEGER"), ("root", "INTEGER"), ("workpieces", "INTEGER"),
)
RESULTS = (
    ("campaign_id", "VARCHAR"), ("alternative", "VARCHAR"), ("op", "VARCHAR"), ("size", "BIGINT"),
    ("size_unit", "VARCHAR"), ("launches", "INTEGER"), ("median_ns", "DOUBLE"), ("median_ci_low_ns", "DOUBLE"),
    ("median_ci_high_ns", "DOUBLE"), ("confidence", "DOUBLE"), ("mean_ns", "DOUBLE"), ("spread", "DOUBLE"),
    ("outliers_removed", "INTEGER"), ("invalid", "INTEGER"), ("repetitions", "INTEGER"), ("clock", "VARCHAR"),
    ("bandwidth_Bps", "DOUBLE"), ("one_way", "BOOLEAN"), ("bound_ns", "DOUBLE"), ("cache_bound_ns", "DOUBLE"),
    ("bound_fraction", "DOUBLE"), ("nprocs", "INTEGER"), ("root", "INTEGER"), ("workpieces", "INTEGER"),
)
# Columns added after a store of this schema version may have been created (results
# keyed by p, root and, for mw-workpieces, the work pieces); open_write adds them to such a store,
# NULL in its earlier rows; reading one that lacks them (read-only: nothing is added) sees them
# NULL through relation().
ADDED_COLUMNS = {"launch_summaries": (("nprocs", "INTEGER"), ("root", "INTEGER"), ("workpieces", "INTEGER")),
                 "results": (("nprocs", "INTEGER"), ("root", "INTEGER"), ("workpieces", "INTEGER"))}
TABLES = {"campaigns": CAMPAIGNS, "alternatives": ALTERNATIVES, "launches": LAUNCHES,
          "launch_summaries": LAUNCH_SUMMARIES, "results": RESULTS}

# Results with what they were measured on: the view most questions start from.
# nprocs: the row's p, the alternative's for rows stored before results carried it
VIEW = """CREATE OR REPLACE VIEW results_by_machine AS
SELECT c.machine, a.cpu_model, a.library, a.library_version, a.variant, COALESCE(r.nprocs, a.nprocs) AS nprocs,
       c.first_start AS date, TRY_CAST(c.first_start AS TIMESTAMP) AS started, c.name AS campaign,
       r.* EXCLUDE (nprocs)
FROM results r JOIN alternatives a USING (campaign_id, alternative) JOIN campaigns c USING (campaign_id)"""


class StoreError(MpimeterError):
    """The store cannot be used as asked (not a store, another schema version, in use, a
    campaign that conflicts): one line naming the file; the CLI exits 2."""


def default_path() -> Path:
    """``$MPIMETER_STORE``, else ``$XDG_DATA_HOME/mpimeter/results.duckdb`` (XDG_DATA_HOME
    defaults to ~/.local/share)."""
    given = os.environ.get("MPIMETER_STORE")
    if given:
        return Path(given)
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "mpimeter" / "results.duckdb"


def _connect(path: Path, *, read_only: bool):
    import duckdb

    config = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    try:
        return duckdb.connect(str(path), read_only=read_only, config=config)
    except duckdb.IOException as exc:
        text = str(exc)
        if "lock" in text.lower():
            raise StoreError(f"{path}: in use by another process ({text.splitlines()[0][:200]})") from None
        if "read-only file system" in text.lower() or "permission denied" in text.lower():
            if read_only:  # DuckDB would have to write beside it (a write-ahead log left to replay)
                raise StoreError(f"{path}: cannot be opened: the file or its folder {path.parent} is read-only "
                                 f"({text.splitlines()[0][:200]})") from None
            if not os.path.lexists(path):  # a new store: there is nothing the readers could read
                raise StoreError(f"{path}: cannot be created: its folder {path.parent} is read-only; give a --store "
                                 "in a folder you can write") from None
            raise StoreError(f"{path}: cannot be written: the file or its folder {path.parent} is read-only "
                             "(store list, store query and site can still read it)") from None
        raise StoreError(f"{path}: not a results store (not a DuckDB database)") from None
    except duckdb.Error as exc:
        raise StoreError(f"{path}: cannot be opened: {str(exc).splitlines()[0][:200]}") from None


def _check(con, path: Path) -> None:
    import duckdb

    try:
        info = dict(con.execute("SELECT key, value FROM store_info").fetchall())
    except duckdb.Error:
        raise StoreError(f"{path}: a DuckDB database, but not an mpimeter results store (no store_info)") from None
    if info.get("format") != FORMAT:
        raise StoreError(f"{path}: a DuckDB database, but not an mpimeter results store")
    if info.get("schema_version") != str(SCHEMA_VERSION):
        raise StoreError(f"{path}: a results store of schema version {str(info.get('schema_version'))[:20]}; "
                         f"this mpimeter reads version {SCHEMA_VERSION}")
    have: dict[str, set[str]] = {}
    for table, column in con.execute("SELECT table_name, column_name FROM information_schema.columns").fetchall():
        have.setdefault(table, set()).add(column)
    for table, columns in TABLES.items():
        if table not in have:
            raise StoreError(f"{path}: a results store without its table {table} (dropped?); every store holds "
                             f"{', '.join(TABLES)}: rebuild it with mpimeter store add")
        added = {c for c, _ in ADDED_COLUMNS.get(table, ())}
        missing = [c for c, _ in columns if c not in have[table] and c not in added]
        if missing:
            raise StoreError(f"{path}: the table {table} of the results store lacks the column {missing[0]}; "
                             "rebuild it with mpimeter store add")


def open_read(path: Path, *, external_access: bool = False):
    """A read-only connection to an existing store (StoreError otherwise). Without
    ``external_access`` no statement can touch another file (COPY, ATTACH, read_csv …)."""
    path = Path(path)
    if not path.exists():
        raise StoreError(f"{path}: no results store there (mpimeter store add creates one)")
    if not path.is_file():
        raise StoreError(f"{path}: not a results store (not a file)")
    con = _connect(path, read_only=True)
    try:
        _check(con, path)
        if not external_access:
            con.execute("SET enable_external_access = false")
    except BaseException:
        con.close()
        raise
    return con


def check_writable(path: Path) -> bool:
    """Whether a store to write is there (a regular file); StoreError when the path holds anything
    else — a link (even to a store), a folder, a device, a FIFO, a socket: DuckDB writes a file in
    place, so only a regular file is ever written."""
    kind = kind_of(Path(path))
    if kind not in (None, "a regular file"):
        raise StoreError(f"{path}: not a regular file ({kind}); a results store is a regular file, written only "
                         "where it is (give the file itself, not a link to it)")
    return kind is not None


def open_write(path: Path, *, tool_version: str, created: str):
    """A writable connection: to the existing store at ``path`` (checked read-only first, so
    that nothing is written to a file that is not one), or to a new one created there. Returns
    (connection, created_new)."""
    path = Path(path)
    if check_writable(path):
        open_read(path).close()
        con = _connect(path, read_only=False)
        try:
            _add_columns(con)
        except BaseException:
            con.close()
            raise
        return con, False
    if not path.parent.is_dir():
        raise StoreError(f"{path}: the folder {path.parent} does not exist")
    con = _connect(path, read_only=False)
    try:
        con.execute("BEGIN TRANSACTION")
        con.execute("CREATE TABLE store_info (key VARCHAR PRIMARY KEY, value VARCHAR)")
        con.executemany("INSERT INTO store_info VALUES (?, ?)",
                        [("format", FORMAT), ("schema_version", str(SCHEMA_VERSION)), ("created", created),
                         ("created_by", f"mpimeter {tool_version}")])
        for name, columns in TABLES.items():
            con.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {t}' for c, t in columns)})")
        con.execute(VIEW)
        con.execute("COMMIT")
    except BaseException:
        con.close()
        remove_store(path)
        raise
    return con, True


def _add_columns(con) -> None:
    """The ADDED_COLUMNS a store created before them lacks."""
    for table, columns in ADDED_COLUMNS.items():
        have = {row[0] for row in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table]).fetchall()}
        missing = [(name, kind) for name, kind in columns if name not in have]
        for name, kind in missing:
            con.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
        if missing and table == "results":
            con.execute(VIEW)  # its nprocs is now the row's


def relation(con, table: str) -> str:
    """What to select ``table`` from: the table, or — in a store made before some of its
    ADDED_COLUMNS, opened read-only — the table with each one it lacks as NULL (named as the
    table, so that queries read alike on stores of either age)."""
    have = {row[0] for row in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table]).fetchall()}
    missing = [f"NULL::{kind} AS {name}" for name, kind in ADDED_COLUMNS.get(table, ()) if name not in have]
    return f"(SELECT *, {', '.join(missing)} FROM {table}) AS {table}" if missing else table


def remove_store(path: Path) -> None:
    """Removes a store this process just created (and its write-ahead log)."""
    for p in (Path(path), Path(str(path) + ".wal")):
        try:
            p.unlink()
        except FileNotFoundError:
            pass
