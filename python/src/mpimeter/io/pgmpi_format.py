# SPDX-License-Identifier: BSD-3-Clause
"""The facts of libmpimeter-pgmpi.so (c/src/pgmpi/, c/include/mpimeter/mm_pgmpi.h) that the Python
side needs: its configuration's format (first line, limits) and bounded check, the replacements
the library makes, and the library's file name. analysis.pgmpi_config writes the configuration;
campaign.launch_env checks it before a launch preloads the library. A test reads the C sources
and compares (python/tests/test_pgmpi.py)."""

from __future__ import annotations

from pathlib import Path

from mpimeter.io.bounded import read_bytes
from mpimeter.io.errors import InputError

HEADER = "# mpimeter-pgmpi-config 1"  # MM_PGMPI_CONFIG_HEADER
KNOWN_ROUTES = (("allreduce", "allreduce-as-reduce-bcast"), ("allreduce", "allreduce-as-rs-allgatherv"))
MAX_ROUTES = 64  # MM_PGMPI_MAX_ROUTES
MAX_CONFIG_BYTES = 65536  # MM_PGMPI_MAX_CONFIG_BYTES
MAX_LINE_BYTES = 256  # MM_PGMPI_MAX_LINE
CONFIG_ENV = "MPIMETER_PGMPI_CONFIG"  # MM_PGMPI_CONFIG_ENV
LIBRARY = "libmpimeter-pgmpi.so"  # in <bench dir>/<library>/lib/, beside bin/mpimeter-bench


def not_a_config(path: Path) -> str | None:
    """Why ``path`` is no configuration `mpimeter guidelines --replace` wrote (one clause), None
    when it is one: a file of at most MAX_CONFIG_BYTES whose first line is HEADER."""
    try:
        first = read_bytes(path, MAX_CONFIG_BYTES).split(b"\n", 1)[0]
    except (OSError, InputError) as exc:
        return f"cannot be read as one: {exc}"
    return None if first == HEADER.encode() else f"its first line is not '{HEADER}'"
