# SPDX-License-Identifier: BSD-3-Clause
"""Where the results store is: ``--store PATH``, else ``$MPIMETER_STORE``, else the data
directory's ``results.duckdb`` (shared by `mpimeter store` and `mpimeter site`)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from mpimeter.resultstore import schema


def store_option(f):
    return click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None,
                        help="The results store (a DuckDB file). Default: $MPIMETER_STORE, else "
                             "~/.local/share/mpimeter/results.duckdb.")(f)


def resolve_store(given: str | None, *, creating: bool = False) -> Path:
    """The store's path; for ``add`` to the default location, its folder is created. An empty
    ``--store`` is refused (StoreError), not taken for the default."""
    if given is not None:
        if not given:
            raise schema.StoreError("--store '': an empty path; give the store's file (or leave --store out for "
                                    "the default store)")
        return Path(given)
    path = schema.default_path()
    if creating and not os.environ.get("MPIMETER_STORE"):  # the data directory's, not a path the user gave
        path.parent.mkdir(parents=True, exist_ok=True)
    return path
