# SPDX-License-Identifier: BSD-3-Clause
"""One processing scheme's numbers across launches (`mpimeter analyze --scheme NAME`, Hunold &
Carpen-Amarie 2016, Table 4; mpimeter.analysis.schemes), and the scheme definitions that
`mpimeter schemes` prints beside them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click
from click.core import ParameterSource
from rich.table import Table

from mpimeter import SCHEMA_VERSION, analysis
from mpimeter.analysis.scheme_table import SCHEMES
from mpimeter.cli.common import (EXIT_OK, analyze_together, console, fail, fmt_est, fmt_time, load_options,
                                 no_data_message, print_warnings, write_csv, write_json)
from mpimeter.units import format_size

# analyze's options that choose how *our* scheme filters and times; the peers' schemes are fixed
OURS_ONLY = ("outlier", "tukey_k", "mpibench_a", "drop_warmup", "warmup_rule", "clock")


def definition(name: str) -> str:
    s = SCHEMES[name]
    return f"{name} ({s.tools}; {s.table}): {s.headline}"


def size_title(size: int, res: analysis.AnalysisResult, op: str) -> str:
    return format_size(size, res.size_unit(op))


def check_scheme_options(ctx: click.Context, scheme: str) -> None:
    """Options of our analysis given with another scheme would be silently ignored: refuse them."""
    if scheme == "ours":
        return
    given = [name for name in OURS_ONLY if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE]
    if given:
        fail("analyze", f"--{given[0].replace('_', '-')} applies to --scheme ours only (the {scheme} scheme has a "
                        "fixed definition: mpimeter schemes --help)")


def scheme_analysis(paths: Sequence[str], kw: dict[str, Any], scheme: str, fmt: str) -> int:
    """analyze --scheme NAME (not ours): the scheme's numbers per (alternative, op, size)."""
    from mpimeter.analysis import schemes as _schemes  # numpy: not before the command line is parsed
    from mpimeter.analysis.warning_groups import group_warnings

    res = analyze_together(paths, kw, schemes=True)
    if not res.rows:
        raise analysis.AnalysisError(no_data_message(paths, res))
    rows, warnings = _schemes.scheme_rows(res.campaign, (scheme,), None, confidence=kw["confidence"],
                                          cache=load_options(kw)["cache"])
    warnings = group_warnings(list(res.warnings) + warnings)
    if fmt == "json":
        write_json({"schema_version": SCHEMA_VERSION, "command": "analyze", "scheme": scheme,
                    "definition": definition(scheme), "confidence": kw["confidence"], "paths": list(paths),
                    "rows": [r.to_dict() for r in rows], "warnings": [w.to_dict() for w in warnings]})
        return EXIT_OK
    if fmt == "csv":
        write_csv([r.to_dict() for r in rows])
        return EXIT_OK
    con = console()
    pct = f"{100 * kw['confidence']:g} %"
    spec = SCHEMES[scheme]
    several = len(res.alternatives) > 1
    t = Table(title=f"mpimeter analyze --scheme {scheme} {' '.join(paths)}", title_justify="left")
    show_p = len({r.nprocs for r in rows}) > 1
    # a row per root and number of work pieces, as analyze's: the columns that tell them apart
    show_root = len({r.root for r in rows if r.root is not None}) > 1
    show_pieces = len({r.workpieces for r in rows if r.workpieces is not None}) > 1
    for name in (["alternative"] if several else []) + ["op", "size", *(["p"] if show_p else []),
                                                         *(["root"] if show_root else []),
                                                         *(["workpieces"] if show_pieces else []), "launches",
                                                         f"{spec.stats[0]} [{pct} CI]", *spec.stats[1:], "removed"]:
        t.add_column(name, justify="left" if name in ("alternative", "op") else "right")
    for r in rows:
        if r.headline_ns is None:
            cells = [str(r.launches), "not computable", *("–" for _ in spec.stats[1:]), "–"]
        else:
            cells = [str(r.launches), fmt_est(r.headline_ns, r.ci_low_ns, r.ci_high_ns),
                     *(fmt_time(r.stats_ns.get(n)) for n in spec.stats[1:]), str(r.removed)]
        t.add_row(*([r.alternative] if several else []), r.op, size_title(r.size, res, r.op),
                  *([str(r.nprocs)] if show_p else []), *(["–" if r.root is None else str(r.root)] if show_root else []),
                  *(["–" if r.workpieces is None else str(r.workpieces)] if show_pieces else []), *cells)
    con.print(t)
    # removed is a count over every launch (SchemeRow.removed), not a median like the times beside it
    con.print(f"scheme {definition(scheme)}; per launch, then the median over launches (Le Boudec interval "
              f"of the headline; the other times are medians of the launches' values); removed: the values the "
              f"scheme's filter dropped, summed over the launches; invalid repetitions dropped; ping-pongs one-way")
    print_warnings(con, warnings)
    return EXIT_OK
