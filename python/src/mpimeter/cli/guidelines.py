# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter guidelines`: the self-consistent performance guidelines checked on campaigns —
mock-up (a collective no slower than its mock-up), monotony (more data never faster), split
(one call with m no slower than two with m/2) and irregular (a regular collective no slower than
its irregular form), one-sided tests on per-launch medians, Holm over the family
(analysis.guidelines); --replace writes libmpimeter-pgmpi.so's configuration from the
violations (analysis.pgmpi_config)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from mpimeter import analysis
from mpimeter.analysis.choices import GUIDELINE_KINDS
from mpimeter.cli.common import (STARS_TEXT, EXIT_OK, alpha_option, analysis_options, analyze_together, check_alpha,
                                 console, fail, fmt_est, fmt_p, fmt_ratio, fmt_time, guarded, print_warnings,
                                 write_csv, write_json, yes_no)

EXIT_VIOLATED = 1

if TYPE_CHECKING:
    from mpimeter.analysis import guidelines as _guidelines


def print_guidelines(res: _guidelines.GuidelinesResult, *, violations_only: bool) -> None:
    con = console()
    pct = f"{100 * res.confidence:g} %"
    t = Table(title="mpimeter guidelines", title_justify="left")
    several = len({r.design for r in res.rows}) > 1
    for name in ("kind", "alternative", "ranks", "guideline", "launches", *(("design",) if several else ()),
                 "median lhs", "median rhs", f"ratio lhs/rhs [{pct} CI]", "p", "p (Holm)", "", "violated"):
        t.add_column(name, justify="left" if name in ("kind", "alternative", "guideline", "design", "", "violated")
                     else "right")
    shown = res.violations if violations_only else res.rows
    for r in shown:
        t.add_row(r.kind, r.alternative, str(r.nprocs), r.statement, f"{r.launches_lhs}/{r.launches_rhs}",
                  *([r.design] if several else []),
                  fmt_time(r.median_lhs_ns), fmt_time(r.median_rhs_ns),
                  fmt_est(r.ratio, r.ratio_ci_low, r.ratio_ci_high, fmt_ratio), fmt_p(r.p_value),
                  fmt_p(r.p_adjusted), r.stars, yes_no(r.violated))
    con.print(t)
    con.print(f"{len(res.violations)} of {len(res.rows)} guideline rows violated; test: {res.test}; p: "
              f"{analysis.p_method_text(r.p_method for r in res.rows)}; correction: {res.correction} over "
              f"{len(res.rows)} rows; violated: p (Holm) ≤ α = {res.alpha:g}, {STARS_TEXT}; ratio: "
              f"{_ratio_text(res.rows[0].ratio_ci_method) if res.rows else '–'}"
              f"{' (only violated rows shown)' if violations_only else ''}")
    print_warnings(con, res.warnings)


def _ratio_text(method: str) -> str:
    """What the ratio column is: the paired estimators' own words, else compare's."""
    return {"paired-hodges-lehmann": "paired Hodges–Lehmann (median of the Walsh averages of the per-launch log "
                                     "ratios)",
            "paired-bootstrap": "median per-launch ratio, percentile bootstrap over launches"}.get(
        method, analysis.ratio_estimator_text(method))


@click.command("guidelines")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@analysis_options
@click.option("--kind", "kinds", default=",".join(GUIDELINE_KINDS), show_default=True,
              help="Guidelines to check, comma-separated: mock-up, monotony, split, irregular.")
@click.option("--mockup", "mockups", multiple=True, metavar="NAME",
              help="Only this mock-up's guideline (repeatable); it must have been measured with its operation.")
@click.option("--violations-only", is_flag=True, help="Table: show the violated rows only.")
@click.option("--exit-code", is_flag=True, help="Exit 1 when a guideline is violated (0 otherwise).")
@click.option("--ratio-ci", type=click.Choice(analysis.RATIO_CIS), default="hodges-lehmann", show_default=True,
              help="Estimator of the ratio lhs/rhs and its interval.")
@click.option("--replace", "replace_out", type=click.Path(dir_okay=False, path_type=Path), metavar="OUT",
              help="Also write OUT, the configuration of libmpimeter-pgmpi.so (mpimeter run --preload-pgmpi): "
                   "per operation and number of ranks the size ranges where a mock-up it can run was "
                   "significantly faster. An existing OUT is replaced only if this option wrote it.")
@alpha_option
def command(paths: tuple[str, ...], fmt: str, kinds: str, mockups: tuple[str, ...], violations_only: bool,
            exit_code: bool, ratio_ci: str, alpha: float, replace_out: Path | None, **kw: Any) -> None:
    """Check the performance guidelines on campaigns: PATHS are campaign folders (one per number
    of ranks, say), each alternative checked on its own.

    mock-up: an operation at m no slower than its mock-up at m (plan them with `mpimeter run
    --guidelines`); monotony: an operation at m no slower than at the next larger size measured;
    split: an operation at m no slower than two calls at m/2; irregular: allgather, gather,
    scatter, alltoall no slower than their v forms at m, reduce_scatter_block at m no slower than
    reduce_scatter at nprocs x m. Each row: the one-sided Wilcoxon
    rank-sum test "lhs slower" on per-launch medians (exact whenever computable), Holm-corrected
    over all rows, violated where the corrected p ≤ --alpha, and the ratio lhs/rhs with its
    interval. Needs ≥ 3 launches per side for a row to be able to be significant. Exit 2 on bad
    input (a --mockup not measured, no mock-up measured for the mock-up guideline).
    """
    check_alpha("guidelines", alpha)
    chosen = tuple(k.strip() for k in kinds.split(",") if k.strip())
    bad = [k for k in chosen if k not in GUIDELINE_KINDS]
    if bad or not chosen:
        fail("guidelines", f"--kind {kinds}: allowed are {', '.join(GUIDELINE_KINDS)} (comma-separated)")
    if mockups and "mock-up" not in chosen:
        fail("guidelines", "--mockup selects mock-up guidelines: it needs mock-up among --kind")

    if replace_out is not None and "mock-up" not in chosen:
        fail("guidelines", "--replace writes the mock-ups that beat their operation: it needs mock-up among --kind")

    def body() -> int:
        from mpimeter.analysis import guidelines as _guidelines  # numpy: not before the command line is parsed
        from mpimeter.analysis import pgmpi_config

        if replace_out is not None:  # refused before anything is computed
            pgmpi_config.check_owned(replace_out)
        res = _guidelines.check(analyze_together(paths, kw), kinds=chosen, mockups=mockups or None,
                                confidence=kw["confidence"], ratio_ci=ratio_ci, alpha=alpha)
        if replace_out is not None:
            routes, unreplaced = pgmpi_config.routes_of(res.rows)
            pgmpi_config.write(replace_out, pgmpi_config.render(routes, unreplaced, list(paths)))
            click.echo(f"mpimeter guidelines: wrote {replace_out}: {len(routes)} route(s) for libmpimeter-pgmpi.so"
                       + (f"; {len(unreplaced)} violation(s) it cannot replace, listed there" if unreplaced else ""),
                       err=True)
        if fmt == "json":
            write_json(dict(res.to_dict(), paths=list(paths)))
        elif fmt == "csv":
            write_csv([r.to_dict() for r in res.rows])
        else:
            print_guidelines(res, violations_only=violations_only)
        return EXIT_VIOLATED if exit_code and res.violations else EXIT_OK

    guarded("guidelines", body)
