# SPDX-License-Identifier: BSD-3-Clause
"""``mpimeter guidelines --replace OUT``: the configuration of ``libmpimeter-pgmpi.so`` (the PMPI
library of c/src/pgmpi/) from the violated guidelines — per operation and number of ranks, the
size ranges where its mock-up was significantly faster, and that mock-up.

The format (docs/GUIDE.md, "Replacing a violated guideline"), a line format the C library reads
with bounds (c/src/pgmpi/pgmpi_config.c)::

    # mpimeter-pgmpi-config 1
    route OP MOCKUP NPROCS MIN_BYTES MAX_BYTES

A route covers MIN_BYTES..MAX_BYTES: from the smallest to the largest of a run of consecutive
measured sizes (consecutive among the sizes the guideline rows of that operation and p
measured) where the guideline was violated and the same mock-up was the faster one; where
several mock-ups beat the operation at a size, the one with the smaller median. A size between
two measured ones inside a run is routed too; none outside a run. Violations the library
cannot replace (another mock-up, a regular ⪯ irregular one) are listed in the file's comments
and counted, never dropped silently.

Ownership: the first line, :data:`HEADER`, says the file is one this command wrote; an existing
OUT whose first line is anything else is refused (``--replace`` never replaces a file it does
not own). Paper: Hunold, Carpen-Amarie, Lübbe & Träff 2016 (PGMPI, PGMPITuneLib: the
guideline-driven replacement of a collective by its faster mock-up).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpimeter.analysis.loading import AnalysisError
from mpimeter.atomic import check_file_target, write_atomic
from mpimeter.io.pgmpi_format import HEADER, KNOWN_ROUTES, MAX_LINE_BYTES, MAX_ROUTES, not_a_config

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


@dataclass(frozen=True)
class Route:
    op: str
    mockup: str
    nprocs: int
    min_bytes: int
    max_bytes: int

    def line(self) -> str:
        return f"route {self.op} {self.mockup} {self.nprocs} {self.min_bytes} {self.max_bytes}"


def routes_of(rows) -> tuple[list[Route], list[str]]:
    """The routes of the violated mock-up rows the library can replace (module docstring), and
    one text per violated row it cannot ("op(size) p=N: versus, why"). Raises
    :class:`AnalysisError` for rows of several alternatives (a configuration serves one
    library) or more routes than the library reads."""
    mockup_rows = [r for r in rows if r.kind in ("mock-up", "irregular")]
    alternatives = sorted({r.alternative for r in mockup_rows})
    if len(alternatives) > 1:
        raise AnalysisError(f"--replace: the guidelines come from {len(alternatives)} alternatives "
                            f"({', '.join(alternatives)}); a configuration serves one MPI library: give the campaign "
                            "folders of one alternative")
    known = set(KNOWN_ROUTES)
    unreplaced = [f"{r.op}({r.size}) p={r.nprocs}: {r.versus} "
                  + ("(a regular collective slower than its irregular form: the library makes no such replacement)"
                     if r.kind == "irregular" else "(no replacement the library makes)")
                  for r in mockup_rows if r.violated and (r.kind == "irregular" or (r.op, r.versus) not in known)]
    measured: dict[tuple[str, int], set[int]] = {}
    best: dict[tuple[str, int, int], Any] = {}  # (op, p, size) -> the violated row of the fastest mock-up
    for r in mockup_rows:
        if r.kind != "mock-up" or (r.op, r.versus) not in known:
            continue
        measured.setdefault((r.op, r.nprocs), set()).add(r.size)
        if r.violated:
            key = (r.op, r.nprocs, r.size)
            if key not in best or r.median_rhs_ns < best[key].median_rhs_ns:
                best[key] = r
    routes: list[Route] = []
    for (op, nprocs), sizes in sorted(measured.items()):
        run: list[int] = []
        mockup = None
        for size in [*sorted(sizes), None]:  # None closes the last run
            row = best.get((op, nprocs, size)) if size is not None else None
            if run and (row is None or row.versus != mockup):
                routes.append(Route(op, mockup, nprocs, run[0], run[-1]))
                run = []
            if row is not None:
                run.append(size)
                mockup = row.versus
    if len(routes) > MAX_ROUTES:
        raise AnalysisError(f"--replace: {len(routes)} routes, more than the {MAX_ROUTES} libmpimeter-pgmpi.so "
                            "reads; check fewer sizes or process counts at a time")
    return routes, unreplaced


def render(routes: list[Route], unreplaced: list[str], sources: list[str]) -> str:
    """The configuration's text: HEADER, what it was made from, the routes, the unreplaced."""
    lines = [HEADER,
             "# written by `mpimeter guidelines --replace` (do not edit: the file is rewritten); from: "
             + " ".join(sources),
             "# route OP MOCKUP NPROCS MIN_BYTES MAX_BYTES: OP's calls on NPROCS ranks with MIN_BYTES..MAX_BYTES "
             "of data run MOCKUP",
             *(r.line() for r in routes)]
    lines += [f"# not replaced: {u}" for u in unreplaced]
    return "\n".join(_line(line) for line in lines) + "\n"


def _line(text: str) -> str:
    """One line the library reads: no control character (a path may hold one), at most
    MAX_LINE_BYTES bytes (cut at a character)."""
    clean = _CONTROL.sub("?", text)
    return clean.encode()[:MAX_LINE_BYTES].decode(errors="ignore")


def check_owned(out: Path) -> None:
    """Refuses (AnalysisError) an existing OUT that is not a configuration this command wrote
    (its first line is not HEADER), and what is not a regular file (atomic.check_file_target)."""
    check_file_target(out, "--replace")
    if not out.exists():
        return
    why = not_a_config(out)
    if why:
        raise AnalysisError(f"--replace {out}: exists and is not a configuration mpimeter guidelines --replace "
                            f"wrote ({why}); give a new path or remove it yourself")


def write(out: Path, text: str) -> None:
    write_atomic(out, text.encode())
