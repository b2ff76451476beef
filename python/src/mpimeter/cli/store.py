# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter store add|list|query`: the results store, one DuckDB file that holds campaigns from
many machines, libraries and dates (``mpimeter.resultstore``; docs/FORMAT.md "The results
store"). ``--store PATH`` chooses it (default ``$MPIMETER_STORE``, else
``~/.local/share/mpimeter/results.duckdb``)."""

from __future__ import annotations

import csv
import io
import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from mpimeter import analysis
from mpimeter.cli.group import MpimeterGroup
from mpimeter.cli.common import (EXIT_OK, _settings, analysis_settings_options, console, fail, guarded,
                                  load_options, write_csv, write_json)
from mpimeter.cli.output import clean, csv_cell, terminal_text
from mpimeter.cli.steps import Steps
from mpimeter.cli.store_location import resolve_store, store_option
from mpimeter.resultstore import identity, queries, schema

if TYPE_CHECKING:
    from mpimeter.resultstore import ingest



class StoreGroup(MpimeterGroup):
    """Sub-commands whose bad command lines are one line naming ``store <sub-command>``, and
    whose options may not repeat (as for every mpimeter command)."""

    prefix = "store "


def format_option(f):
    return click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
                        show_default=True, help="Output format.")(f)


def prepare(path: str, machine: str | None, kw: dict[str, Any]) -> ingest.Entry:
    """Loads and analyzes one campaign for the store (bad input raises, naming the file); its
    report is drawn by :func:`draw_report`, once the store says the entry is written."""
    from mpimeter.analysis.bounds import bounds as compute_bounds
    from mpimeter.resultstore import ingest  # pandas: not before the command line is parsed

    campaign = analysis.load_campaign(path, **load_options(kw))
    result = analysis.analyze(campaign, **_settings(kw))
    if not result.rows:
        raise analysis.AnalysisError(f"{path}: no finished test to store")
    cid, source = identity.campaign_id(campaign)
    name = identity.check_machine(machine) if machine is not None else identity.default_machine(campaign)
    return ingest.Entry(campaign_id=cid, id_source=source, machine=name, path=Path(path), result=result,
                        bounds=compute_bounds(result), report=None, report_source=None)


def draw_report(entry: ingest.Entry, given: str) -> tuple[bytes, str]:
    """An entry's HTML report (its source named as ``given`` on the command line) and where it
    comes from: always built from the data (redacted as it is read), never the folder's own
    report.html: a shared folder's file may hold what today's rule redacts, or anything else."""
    from mpimeter.cli.report_view import report_text

    data = report_text(entry.result, sources=[given], bounds=entry.bounds)[0].encode("utf-8")
    return data, "built by mpimeter store add"


@click.group("store", cls=StoreGroup)
def command() -> None:
    """The results store: campaigns from many machines, libraries and dates in one DuckDB file.

    \b
      mpimeter store add results/ar results/libs      # idempotent: keyed by each campaign's id
      mpimeter store list
      mpimeter store query "select machine, library, op, size, median_ns from results_by_machine"
    """


@command.command("add")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@store_option
@click.option("--machine", default=None, help="Name of the machine the campaigns ran on (default: the host of "
                                              "rank 0 in the first launch, +N for more hosts).")
@click.option("--replace", is_flag=True, help="Replace campaigns that are in the store already (default: leave "
                                              "them as they are).")
@click.option("--no-report", is_flag=True, help="Do not keep the campaigns' HTML reports in the store.")
@analysis_settings_options
def add_command(paths: tuple[str, ...], store_path: str | None, machine: str | None, replace: bool,
                no_report: bool, **kw: Any) -> None:
    """Add campaign (or launch) folders to the store: their provenance, per-launch summaries,
    per-(op, size) results with bounds, and their HTML report. Adding a campaign that is there
    already changes nothing; all or none of PATHS are added."""
    if machine is not None:
        try:
            identity.check_machine(machine)
        except ValueError as exc:
            fail("store add", str(exc))

    def body() -> int:
        from mpimeter.resultstore import ingest  # pandas: not before the command line is parsed

        start = time.perf_counter()
        store = resolve_store(store_path, creating=True)
        schema.check_writable(store)  # before the campaigns are analyzed
        with Steps("store add", len(paths) + 1) as steps:
            entries = []
            for p in paths:
                steps.step(f"analysing {p}")
                entries.append(prepare(p, machine, kw))
            given = {id(e): p for e, p in zip(entries, paths)}
            steps.step(f"writing {store}" if no_report else f"drawing the reports added and writing {store}")
            added = list(ingest.add(store, entries, replace=replace,
                                    report=None if no_report else lambda e: draw_report(e, given[id(e)])))
        for entry, what, differs in added:
            # a campaign left as the store holds it though its folder differs (added while it ran,
            # edited, or analysed now with other options): said, or the user believes it stored
            note = f"; not as the folder is now: {differs}; --replace stores it as it is" if differs else ""
            record = entry.result.campaign.campaign_record
            if record is not None and (unfinished := record.unfinished()) is not None:
                note += (f"; campaign.json says {unfinished}: stored as it is now; once it is complete, "
                         "add it again with --replace")
            click.echo(terminal_text(f"{what}: {entry.path} (campaign {entry.campaign_id}, machine "
                                     f"{entry.machine!r}, {len(entry.result.rows)} results{note})", one_line=True))
        click.echo(terminal_text(f"store: {store} ({time.perf_counter() - start:.1f} s)", one_line=True))
        return EXIT_OK

    guarded("store add", body)


def _print_table(title: str, names: list[str], rows: list[list[Any]]) -> None:
    t = Table(title=title, title_justify="left")
    for n in names:
        t.add_column(str(n))
    for row in rows:
        t.add_row(*("" if v is None else (f"{v:.6g}" if isinstance(v, float) and math.isfinite(v) else str(v))
                    for v in row))
    console().print(t)


def _emit(fmt: str, title: str, names: list[str], rows: list[list[Any]], key: str) -> None:
    if fmt == "json":
        write_json({key: [dict(zip(names, r)) for r in rows], "columns": names})
    elif fmt == "csv":
        if rows:
            write_csv([dict(zip(names, r)) for r in rows])
        else:
            click.echo(",".join(names))
    else:
        _print_table(title, names, rows)


def _stream(fmt: str, result: queries.Streamed) -> int:
    """Prints the rows of a query as they are fetched (csv, json) or, for the table, once all
    (at most --limit) are; returns how many."""
    names, count = result.names, 0
    if fmt == "table":
        rows = [row for batch in result.batches() for row in batch]
        _print_table(f"mpimeter store query ({len(rows)} rows{', cut by --limit' if result.cut else ''})",
                     names, rows)
        return len(rows)
    if fmt == "csv":
        click.echo(",".join(csv_cell(n) for n in names))
        for batch in result.batches():
            buf = io.StringIO()
            writer = csv.writer(buf, lineterminator="\n")
            for row in batch:
                writer.writerow([csv_cell(v) for v in clean(row)])
            click.echo(buf.getvalue(), nl=False)
            count += len(batch)
        return count
    click.echo("{\"columns\": " + json.dumps(clean(names)) + ", \"rows\": [", nl=False)
    for batch in result.batches():
        text = ",\n".join(json.dumps(clean(dict(zip(names, row))), allow_nan=False) for row in batch)
        click.echo(("," if count else "") + "\n" + text, nl=False)
        count += len(batch)
    click.echo("\n], \"truncated\": " + json.dumps(result.cut) + "}")
    return count


@command.command("list")
@store_option
@format_option
def list_command(store_path: str | None, fmt: str) -> None:
    """The campaigns in the store: id, name, machine, libraries, ranks, date, launches, operations."""

    def body() -> int:
        store = resolve_store(store_path)
        con = schema.open_read(store)
        try:
            found = queries.list_campaigns(con)
        finally:
            con.close()
        names = list(found[0]) if found else ["id", "name", "machine", "alternatives", "libraries", "ranks", "date",
                                              "launches", "operations", "report", "added"]
        _emit(fmt, f"mpimeter store list {store}: {len(found)} campaign(s)", names,
              [list(r.values()) for r in found], "campaigns")
        return EXIT_OK

    guarded("store list", body)


DEFAULT_QUERY_LIMIT = 10_000
MAX_QUERY_LIMIT = 10_000_000


@command.command("query")
@click.argument("sql")
@store_option
@format_option
@click.option("--limit", type=click.IntRange(1, MAX_QUERY_LIMIT), default=DEFAULT_QUERY_LIMIT, show_default=True,
              help=f"Print at most this many rows (1 to {MAX_QUERY_LIMIT}); csv and json rows are printed as "
                   "they come, and a line on stderr says when the limit cut the result.")
def query_command(sql: str, store_path: str | None, fmt: str, limit: int) -> None:
    """Run one read-only SELECT on the store (tables: campaigns, alternatives, launches,
    launch_summaries, results; view results_by_machine). Statements that write, and access to
    any other file, are refused."""

    def body() -> int:
        store = resolve_store(store_path)
        con = schema.open_read(store)
        try:
            result = queries.Streamed(con, sql, limit=limit)
            count = _stream(fmt, result)
        finally:
            con.close()
        if result.cut:
            click.echo(f"mpimeter store query: the result has more rows than --limit {limit}; the first {count} "
                       "were printed (give a larger --limit, or LIMIT/WHERE in the query)", err=True)
        return EXIT_OK

    guarded("store query", body)
