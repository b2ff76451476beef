# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter site -o DIR`: the static site of a results store (``mpimeter.site``)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from mpimeter.cli.common import EXIT_OK, alpha_option, checked_slowdown_and_alpha, guarded, max_slowdown_option
from mpimeter.cli.output import terminal_text
from mpimeter.cli.steps import Steps
from mpimeter.cli.store_location import resolve_store, store_option
from mpimeter.resultstore import schema


@click.command("site")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=True), help="The folder to write: new, "
              "empty, or a site written before holding only its own files (its pages are replaced; nothing "
              "it did not write is removed). Not the folder of the store.")
@store_option
@max_slowdown_option("The gate's tolerated slowdown for the history marks (as mpimeter gate).")
@alpha_option
def command(output: str, store_path: str | None, max_slowdown: str, alpha: float) -> None:
    """Write a static site of the results store: an index by machine × library × operation, a
    page per operation comparing every machine and library, a page per campaign linking its
    report, and per (machine, library, op, size) the median over time with the campaigns where
    `mpimeter gate` against the campaign before would have failed marked. Self-contained: no
    server, no network, no script."""
    slowdown = checked_slowdown_and_alpha("site", max_slowdown, alpha)

    def body() -> int:
        # pandas, matplotlib: not before the command line is parsed
        from mpimeter.site import data as site_data
        from mpimeter.site.build import check_output, write_site

        start = time.perf_counter()
        out = Path(output)
        store = resolve_store(store_path)
        check_output(out, store)
        with Steps("site", 2) as steps:
            steps.step(f"reading {store}")
            con = schema.open_read(store)
            try:
                data = site_data.load(con, str(store))
            finally:
                con.close()
            steps.step(f"writing the pages into {out}")
            counts = write_site(data, out, max_slowdown=slowdown, alpha=alpha)
        click.echo(terminal_text(f"wrote {out}/index.html ({counts['pages']} pages, "
                                 f"{time.perf_counter() - start:.1f} s)", one_line=True))
        return EXIT_OK

    guarded("site", body)
