"""`mpimeter schemes PATHS`: per (op, size) the headline number each benchmark's processing scheme
gives on the same data (Hunold & Carpen-Amarie 2016, Table 4), and how far apart they are; and
`mpimeter analyze --scheme NAME`, one scheme's numbers across launches (mpimeter.analysis.schemes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click
from click.core import ParameterSource
from rich.table import Table

from mpimeter import SCHEMA_VERSION, analysis
from mpimeter.analysis import schemes as _schemes
from mpimeter.analysis.warning_groups import group_warnings
from mpimeter.cli.analyze import (EXIT_OK, analysis_options, analyze_together, console, fail, fmt_est, fmt_time,
                                  guarded, load_options, no_data_message, print_warnings, write_csv, write_json)
from mpimeter.units import format_size

# analyze's options that choose how *our* scheme filters and times; the peers' schemes are fixed
OURS_ONLY = ("outlier", "tukey_k", "mpibench_a", "drop_warmup", "clock")


def definition(name: str) -> str:
    s = _schemes.SCHEMES[name]
    return f"{name} ({s.tools}; {s.table}): {s.headline}"


def _title(size: int, res: analysis.AnalysisResult, op: str) -> str:
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
    res = analyze_together(paths, kw)
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
    spec = _schemes.SCHEMES[scheme]
    several = len(res.alternatives) > 1
    t = Table(title=f"mpimeter analyze --scheme {scheme} {' '.join(paths)}", title_justify="left")
    for name in (["alternative"] if several else []) + ["op", "size", "launches", f"{spec.stats[0]} [{pct} CI]",
                                                         *spec.stats[1:], "removed"]:
        t.add_column(name, justify="left" if name in ("alternative", "op") else "right")
    for r in rows:
        if r.headline_ns is None:
            cells = [str(r.launches), "not computable", *("–" for _ in spec.stats[1:]), "–"]
        else:
            cells = [str(r.launches), fmt_est(r.headline_ns, r.ci_low_ns, r.ci_high_ns),
                     *(fmt_time(r.stats_ns.get(n)) for n in spec.stats[1:]), str(r.removed)]
        t.add_row(*([r.alternative] if several else []), r.op, _title(r.size, res, r.op), *cells)
    con.print(t)
    con.print(f"scheme {definition(scheme)}; per launch, then the median over launches (Le Boudec interval "
              f"of the headline; the other columns are medians of the launches' values); invalid repetitions "
              f"dropped; ping-pongs one-way")
    print_warnings(con, warnings)
    return EXIT_OK


def print_schemes(res: analysis.AnalysisResult, rows: list[_schemes.SchemeRow], warnings, title: str) -> None:
    con = console()
    several = len(res.alternatives) > 1
    t = Table(title=f"mpimeter schemes {title}", title_justify="left")
    for name in (["alternative"] if several else []) + ["op", "size", *_schemes.NAMES, "max/min"]:
        t.add_column(name, justify="left" if name in ("alternative", "op") else "right")
    for key, group in _grouped(rows).items():
        alt, op, size = key
        by = {r.scheme: r for r in group}
        spread = _schemes.spread_across(group)
        t.add_row(*([alt] if several else []), op, _title(size, res, op),
                  *(fmt_time(by[s].headline_ns) if by[s].headline_ns is not None else "–" for s in _schemes.NAMES),
                  f"{spread:.3f}" if spread is not None else "–")
    con.print(t)
    con.print("each cell: the scheme's headline per launch, median over launches (– = not computable; the "
              "warnings say why); max/min: how far the schemes are apart on the same data")
    for s in _schemes.NAMES:
        con.print(f"  {definition(s)}")
    print_warnings(con, warnings)


def _grouped(rows: list[_schemes.SchemeRow]) -> dict[tuple[str, str, int], list[_schemes.SchemeRow]]:
    out: dict[tuple[str, str, int], list[_schemes.SchemeRow]] = {}
    for r in rows:
        out.setdefault((r.alternative, r.op, r.size), []).append(r)
    return out


@click.command("schemes")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@analysis_options
def command(paths: tuple[str, ...], fmt: str, **kw: Any) -> None:
    """The headline number of each benchmark's processing scheme on the same data, per (op, size).

    Schemes (Hunold & Carpen-Amarie 2016, Table 4), each per launch and then the median over
    launches: ours (median of per-launch medians; the analysis options choose its filter and
    clock), skampi (PS1: mean of the central half of the maxima over ranks), mpiblib (PS2: mean
    of the maxima over ranks), osu (PS3: mean over ranks of the per-rank means), mpibench (PS5:
    mean of all ranks' times below 2·t99), imb (PS6: maximum over ranks of the per-rank means,
    t_max). The last column is the largest headline over the smallest. Schemes a launch cannot
    give (per-rank ones on --raw reduced or imported data, ...) show '–' with a warning. Several
    PATHS are analyzed together as alternatives. Exit 2 on bad input.
    """

    def body() -> int:
        res = analyze_together(paths, kw)
        if not res.rows:
            raise analysis.AnalysisError(no_data_message(paths, res))
        rows, warnings = _schemes.scheme_rows(res.campaign, _schemes.NAMES, res, confidence=kw["confidence"],
                                              cache=load_options(kw)["cache"])
        warnings = group_warnings(list(res.warnings) + warnings)
        if fmt == "json":
            write_json({"schema_version": SCHEMA_VERSION, "command": "schemes", "paths": list(paths),
                        "schemes": {s: definition(s) for s in _schemes.NAMES},
                        "rows": [dict(alternative=k[0], op=k[1], size=k[2], spread=_schemes.spread_across(g),
                                      schemes={r.scheme: r.to_dict() for r in g})
                                 for k, g in _grouped(rows).items()],
                        "warnings": [w.to_dict() for w in warnings]})
        elif fmt == "csv":
            write_csv([r.to_dict() for r in rows])
        else:
            print_schemes(res, rows, warnings, " ".join(paths))
        return EXIT_OK

    guarded("schemes", body)
