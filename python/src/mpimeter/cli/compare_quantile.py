# SPDX-License-Identifier: BSD-3-Clause
"""``mpimeter compare --quantile q``: the options it cannot go with, and its table
(``mpimeter.analysis.quantile_compare`` computes it)."""

from __future__ import annotations

import math
from typing import Any

import click
from click.core import ParameterSource
from rich.table import Table

from mpimeter.cli.common import console, fmt_est, fmt_p, fmt_ratio, fmt_time, yes_no
from mpimeter.cli.output import fail

# compare's options that choose the rank-sum comparison of medians: given with --quantile they
# would be silently ignored
MEDIAN_ONLY = ("alternative", "per_repetition", "ratio_ci", "ops", "metric")


def check_quantile(ctx: click.Context, q: float | None) -> None:
    """Exit 2 on a quantile outside (0, 1) (NaN too) or one given with a median-only option."""
    if q is None:
        return
    if not (0 < q < 1):
        fail("compare", f"--quantile {q}: must be between 0 and 1, exclusive (0.99 compares the 99th percentiles)")
    given = [n for n in MEDIAN_ONLY if ctx.get_parameter_source(n) is ParameterSource.COMMANDLINE
             and not (n == "metric" and ctx.params.get("metric") == "time")]  # run times are what it compares
    if given:
        fail("compare", f"--{given[0].replace('_', '-')} does not go with --quantile (a two-sided quantile "
                        "regression of the run times of two alternatives)")


def quantile_csv_rows(cmp: Any) -> list[dict]:
    return [dict(a=cmp.a, b=cmp.b, quantile=cmp.quantile, **r) for r in cmp.to_dict()["rows"]]


def print_quantile_comparison(cmp: Any) -> None:
    con = console()
    pct = f"{100 * cmp.quantile:g}"
    t = Table(title=f"mpimeter compare {cmp.a} vs {cmp.b}: the {pct} % quantiles", title_justify="left")
    show_p = len({r.nprocs for r in cmp.rows}) > 1
    show_root = any(r.root is not None for r in cmp.rows)
    for name in ("op", "size", *(("p",) if show_p else ()), *(("root",) if show_root else ()), "launches",
                 f"q{pct} a", f"q{pct} b", f"ratio b/a [{100 * cmp.confidence:g} % CI]", "p", "p (Holm)",
                 "significant"):
        t.add_column(name, justify="left" if name in ("op", "significant") else "right")
    for r in cmp.rows:
        t.add_row(r.op, str(r.size), *([str(r.nprocs)] if show_p else []),
                  *([("–" if r.root is None else str(r.root))] if show_root else []),
                  f"{r.launches_a}/{r.launches_b}", fmt_time(r.quantile_a_ns), fmt_time(r.quantile_b_ns),
                  fmt_est(r.ratio, r.ratio_ci_low, r.ratio_ci_high, fmt_ratio), fmt_p(r.p_value),
                  fmt_p(r.p_adjusted), yes_no(r.significant) if math.isfinite(r.p_adjusted) else "–")
    con.print(t)
    con.print(f"q{pct} a, b: the median over launches of each launch's {pct} % quantile of the kept run times; "
              f"test: {cmp.method} (Hoefler & Belli 2015 §3.2.3); correction: holm over {len(cmp.rows)} rows; "
              f"significant: p (Holm) ≤ α = {cmp.alpha:g}; – : fewer than 3 launches on a side")
    differ = [r for r in cmp.rows if not r.interval_agrees]
    if differ:
        con.print("decision and interval differ for " + ", ".join(f"{r.op} {r.size}" for r in differ) +
                  f": the interval is at {100 * cmp.confidence:g} % for its row alone, the decision Holm's over "
                  f"{len(cmp.rows)} rows (or the interval is not the test's inversion); the decision is the Holm p's")
