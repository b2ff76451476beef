# SPDX-License-Identifier: BSD-3-Clause
"""Reading the results store: the list of campaigns, and a user's SQL, read-only.

``query`` runs one SELECT statement on a read-only connection with access to other files turned
off, so that no statement can change the store or anything else (an INSERT, a COPY … TO, an
ATTACH, a read_csv of another file are all refused) — the first with a message naming the kind
of statement, the others by DuckDB's own permission error.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import json
import uuid
from collections.abc import Iterator
from typing import Any

from mpimeter.resultstore.schema import StoreError

LIST_SQL = """
SELECT c.campaign_id AS id, c.name, c.machine,
       string_agg(a.alternative, ', ' ORDER BY a.alternative) AS alternatives,
       string_agg(DISTINCT a.library, ', ' ORDER BY a.library) AS libraries,
       max(a.nprocs) AS ranks, c.first_start AS date, c.launches,
       (SELECT string_agg(DISTINCT r.op, ',' ORDER BY r.op) FROM results r WHERE r.campaign_id = c.campaign_id)
           AS operations,
       c.report IS NOT NULL AS report, c.added
FROM campaigns c LEFT JOIN alternatives a USING (campaign_id)
GROUP BY c.campaign_id, c.name, c.machine, c.first_start, c.launches, c.report IS NOT NULL, c.added
ORDER BY c.first_start NULLS LAST, c.campaign_id"""


def _plain(value: Any) -> Any:
    """A value JSON can hold: dates as ISO text, decimals as floats, blobs as their size."""
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(bytes(value))} bytes>"
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def list_campaigns(con) -> list[dict[str, Any]]:
    cur = con.execute(LIST_SQL)
    names = [d[0] for d in cur.description]
    return [{k: _plain(v) for k, v in zip(names, row)} for row in cur.fetchall()]


def query(con, sql: str) -> tuple[list[str], list[list[Any]]]:
    """(column names, rows) of one read-only SELECT; StoreError for anything else."""
    result = Streamed(con, sql)
    return result.names, [row for batch in result.batches() for row in batch]


class Streamed:
    """One read-only SELECT whose rows are fetched in batches as DuckDB produces them, at most
    ``limit`` (None: all); ``cut`` says, once the batches are done, that more rows were left
    unfetched. StoreError for anything else than one SELECT, and for a failure while fetching."""

    def __init__(self, con, sql: str, *, limit: int | None = None, batch: int = 1000) -> None:
        self._cur = _select(con, sql)
        self.names = [d[0] for d in self._cur.description]
        self.limit, self.batch, self.cut = limit, batch, False

    def _fetch(self, n: int) -> list:
        import duckdb

        try:
            return self._cur.fetchmany(n)
        except duckdb.Error as exc:
            raise StoreError(f"the query failed: {str(exc).splitlines()[0][:300]}") from None

    def batches(self) -> Iterator[list[list[Any]]]:
        left = self.limit
        while left is None or left > 0:
            rows = self._fetch(self.batch if left is None else min(self.batch, left))
            if not rows:
                return
            if left is not None:
                left -= len(rows)
            yield [[_plain(v) for v in row] for row in rows]
        self.cut = bool(self._fetch(1))


def _select(con, sql: str):
    import duckdb

    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise StoreError(f"the query does not parse: {str(exc).splitlines()[0][:300]}") from None
    if len(statements) != 1:
        raise StoreError(f"give one SELECT statement (got {len(statements)} statements)")
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        raise StoreError(f"store query is read-only: a {kind.name} statement is not allowed (only SELECT)")
    try:
        return con.execute(sql)
    except duckdb.Error as exc:
        raise StoreError(f"the query failed: {str(exc).splitlines()[0][:300]}") from None


def json_column(value: Any) -> Any:
    """A JSON column as read back (DuckDB returns JSON as text)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value
