# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter schemes PATHS`: per (op, size) the headline number each benchmark's processing scheme
gives on the same data (Hunold & Carpen-Amarie 2016, Table 4), and how far apart they are
(mpimeter.analysis.schemes; `mpimeter analyze --scheme NAME` is in mpimeter.cli.scheme_view)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from mpimeter import SCHEMA_VERSION, analysis
from mpimeter.cli.common import (EXIT_OK, analysis_options, analyze_together, console, fmt_time, guarded,
                                 load_options, no_data_message, print_warnings, write_csv, write_json)
from mpimeter.cli.scheme_view import definition, size_title

if TYPE_CHECKING:
    from mpimeter.analysis import schemes as _schemes


def print_schemes(res: analysis.AnalysisResult, rows: list[_schemes.SchemeRow], warnings, title: str) -> None:
    from mpimeter.analysis import schemes as _schemes  # numpy: not before the command line is parsed

    con = console()
    several = len(res.alternatives) > 1
    t = Table(title=f"mpimeter schemes {title}", title_justify="left")
    show_p = len({r.nprocs for r in rows}) > 1
    show_root = any(r.root is not None for r in rows) and len({r.root for r in rows}) > 1
    show_pieces = len({r.workpieces for r in rows if r.workpieces is not None}) > 1
    for name in ((["alternative"] if several else []) + ["op", "size"] + (["p"] if show_p else [])
                 + (["root"] if show_root else []) + (["workpieces"] if show_pieces else [])
                 + [*_schemes.NAMES, "max/min"]):
        t.add_column(name, justify="left" if name in ("alternative", "op") else "right")
    for key, group in _grouped(rows).items():
        alt, op, size, ranks, root, pieces = key
        by = {r.scheme: r for r in group}
        spread = _schemes.spread_across(group)
        t.add_row(*([alt] if several else []), op, size_title(size, res, op),
                  *([str(ranks)] if show_p else []), *(["–" if root is None else str(root)] if show_root else []),
                  *(["–" if pieces is None else str(pieces)] if show_pieces else []),
                  *(fmt_time(by[s].headline_ns) if by[s].headline_ns is not None else "–" for s in _schemes.NAMES),
                  f"{spread:.3f}" if spread is not None else "–")
    con.print(t)
    con.print("each cell: the scheme's headline per launch, median over launches (– = not computable; the "
              "warnings say why); max/min: how far the schemes are apart on the same data")
    for s in _schemes.NAMES:
        con.print(f"  {definition(s)}")
    print_warnings(con, warnings)


def _grouped(rows: list[_schemes.SchemeRow]) -> dict[tuple, list[_schemes.SchemeRow]]:
    out: dict[tuple, list[_schemes.SchemeRow]] = {}
    for r in rows:  # one line per (alternative, op, size, p, root, work pieces), as analyze's rows
        out.setdefault((r.alternative, r.op, r.size, r.nprocs, r.root, r.workpieces), []).append(r)
    return out


@click.command("schemes")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@analysis_options
def command(paths: tuple[str, ...], fmt: str, **kw: Any) -> None:
    """The headline number of each benchmark's processing scheme on the same data, per (op, size).

    Schemes (Hunold & Carpen-Amarie 2016, Table 4), each per launch and then the median over
    launches: ours (median of per-launch medians; the analysis options choose its filter and
    clock), skampi (PS1: mean of the central half of the maxima over ranks), mpiblib (PS2: mean
    of the maxima over ranks), mpiblib-global (PS4: mean of the latest global end minus rank 0's
    global start; needs a global clock), osu (PS3: mean over ranks of the per-rank means),
    mpibench (PS5: mean of all ranks' times below 2·t99), imb (PS6: maximum over ranks of the
    per-rank means, t_max), mpptest (PS7: minimum over repetitions of rank 0's time; with
    mpimeter-bench --batch N, mpptest's own per-call means). The last column is the largest headline over the smallest. Schemes a launch cannot
    give (per-rank ones on --raw reduced or imported data, ...) show '–' with a warning. Several
    PATHS are analyzed together as alternatives. Exit 2 on bad input.
    """

    def body() -> int:
        from mpimeter.analysis import schemes as _schemes  # numpy: not before the command line is parsed
        from mpimeter.analysis.warning_groups import group_warnings

        res = analyze_together(paths, kw, schemes=True)
        if not res.rows:
            raise analysis.AnalysisError(no_data_message(paths, res))
        rows, warnings = _schemes.scheme_rows(res.campaign, _schemes.NAMES, res, confidence=kw["confidence"],
                                              cache=load_options(kw)["cache"])
        warnings = group_warnings(list(res.warnings) + warnings)
        if fmt == "json":
            write_json({"schema_version": SCHEMA_VERSION, "command": "schemes", "paths": list(paths),
                        "schemes": {s: definition(s) for s in _schemes.NAMES},
                        "rows": [dict(alternative=k[0], op=k[1], size=k[2], nprocs=k[3], root=k[4], workpieces=k[5],
                                      spread=_schemes.spread_across(g), schemes={r.scheme: r.to_dict() for r in g})
                                 for k, g in _grouped(rows).items()],
                        "warnings": [w.to_dict() for w in warnings]})
        elif fmt == "csv":
            write_csv([r.to_dict() for r in rows])
        else:
            print_schemes(res, rows, warnings, " ".join(paths))
        return EXIT_OK

    guarded("schemes", body)
