# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter compare`: Wilcoxon rank-sum on per-launch medians (exact p whenever computable),
Holm-corrected, with stars on the rows significant at α and the ratio b/a with its interval
(Hunold & Carpen-Amarie 2016 §5.2)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import click
from rich.table import Table

from mpimeter import analysis
from mpimeter.cli.analysis_view import state_table
from mpimeter.cli.compare_quantile import check_quantile, print_quantile_comparison, quantile_csv_rows
from mpimeter.cli.output import fail
from mpimeter.cli.common import (STARS_TEXT, EXIT_OK, alpha_option, analysis_options, analyze_together,
                                 check_alpha, console, fmt_est, fmt_p, fmt_ratio, fmt_time, guarded, metric_footer,
                                 metric_option, print_warnings, write_csv, write_json, yes_no)


_READING = {
    "two-sided": "the two differ",
    "less": "{a} is faster than {b}",
    "greater": "{a} is slower than {b}",
}


def print_comparison(res: analysis.ComparisonResult) -> None:
    con = console()
    t = Table(title=f"mpimeter compare {' vs '.join(res.groups)}", title_justify="left")
    show_p, show_root, show_pieces = (len({getattr(r, k) for r in res.rows}) > 1
                                      for k in ("nprocs", "root", "workpieces"))
    for name in ("a", "b", "op", "size", *(("p",) if show_p else ()), *(("root",) if show_root else ()),
                 *(("workpieces",) if show_pieces else ()),
                 "launches", "median a", "median b", "ratio b/a [CI at Holm level]",
                 "p", "p (Holm)", "", "significant"):
        t.add_column(name, justify="left" if name in ("a", "b", "op", "", "significant") else "right")
    for r in res.rows:
        t.add_row(r.a, r.b, r.op, str(r.size), *([str(r.nprocs)] if show_p else []),
                  *([("–" if r.root is None else str(r.root))] if show_root else []),
                  *([("–" if r.workpieces is None else str(r.workpieces))] if show_pieces else []),
                  f"{r.launches_a}/{r.launches_b}", fmt_time(r.median_a_ns),
                  fmt_time(r.median_b_ns), fmt_est(r.ratio, r.ratio_ci_low, r.ratio_ci_high, fmt_ratio),
                  fmt_p(r.p_value), fmt_p(r.p_adjusted), r.stars, yes_no(r.significant))
    con.print(t)
    stratified = [r for r in res.rows if r.stratified]
    if stratified:
        con.print(state_table(stratified, "a", "b", pairs=len(res.groups) > 2))
        con.print("rows over matched states: van Elteren's stratified rank-sum test (state by state, weights "
                  "1/(launches in the state + 1)) and the stratified Hodges–Lehmann ratio")
    if res.omnibus:
        o = Table(title="Kruskal–Wallis over all groups", title_justify="left")
        for name in ("op", "size", "H", "ε²", "p", "p (Holm)", "", "significant"):
            o.add_column(name, justify="left" if name in ("op", "", "significant") else "right")
        for r in res.omnibus:
            o.add_row(r.op, str(r.size), f"{r.statistic:.3g}",
                      f"{r.epsilon_squared:.2f}" if math.isfinite(r.epsilon_squared) else "–", fmt_p(r.p_value), fmt_p(r.p_adjusted), r.stars,
                      yes_no(r.significant))
        con.print(o)
    a, b = (res.groups[0], res.groups[1]) if len(res.groups) == 2 else ("a", "b")
    ratios = "; ".join(dict.fromkeys(analysis.ratio_estimator_text(r.ratio_ci_method) for r in res.rows)) or "–"
    con.print(f"test: {res.test}, alternative hypothesis: {res.alternative} "
              f"({_READING[res.alternative].format(a=a, b=b)}); p: {analysis.p_method_text(r.p_method for r in res.rows)}; "
              f"correction: {res.correction} over {len(res.rows)} rows; significant: p (Holm) ≤ α = {res.alpha:g}, "
              f"{STARS_TEXT}; ratio: "
              f"{ratios}; its interval at "
              f"the level Holm tested the row at (1 − α/k for the smallest of k p-values … 1 − α for the largest; "
              "one-sided tests: 1 − 2α/k …), so that it excludes 1 where the row is significant")
    from mpimeter.analysis.designs import UNPAIRED  # loaded with the comparison it prints

    designs = Counter((r.design, r.design_reason) for r in res.rows)
    if any(d != UNPAIRED or why not in ("", "separate campaigns") for d, why in designs):
        con.print("design: " + "; ".join(f"{d} ({n} row{'s' if n != 1 else ''}: {why})" if why else
                                         f"{d} ({n} row{'s' if n != 1 else ''})" for (d, why), n in designs.items()))
    for d in res.separate_campaigns:
        con.print(separate_line(d))
    differ = [r for r in res.rows if not r.interval_agrees]
    if differ:
        con.print("decision and interval differ for " + ", ".join(f"{r.a}/{r.b} {r.op} {r.size}" for r in differ) +
                  ": Holm stopped at an earlier row, ties moved the interval's rank, or the bootstrap interval is not "
                  "the test's inversion; the decision is the Holm p's")
    one_way = sorted({r.op for r in res.rows if r.one_way})
    if one_way:
        con.print(f"medians of {', '.join(one_way)} are one-way latencies: {analysis.ONE_WAY_NOTE}")
    if metric_footer(res.metric):
        con.print(metric_footer(res.metric))
    print_warnings(con, res.warnings)


def separate_line(d) -> str:
    """What the launches' serial dependence did to two separate campaigns' rows, and what it
    costs in launches (analysis.separate_campaigns.CampaignDrift)."""
    need = (f"about {d.launches_needed} launches per side (with this dependence) would find a {d.shift:.0%} shift "
            f"on a row of their median spread" if d.launches_needed else
            f"no launch count up to 10 000 finds a {d.shift:.0%} shift on a row of their median spread")
    if d.inflation <= 1 and d.rho <= 0:
        return (f"separate campaigns {d.a} vs {d.b}: launches show no serial dependence (lag-1 autocorrelation "
                f"{d.rho:.2f}, freed of the centring bias), plain test; {need}")
    if round(d.inflation, 2) <= 1:
        # AR(1) close to 1 over a few launches: a drift so slow that both blocks' means move with it
        return (f"separate campaigns {d.a} vs {d.b}: neighbouring launches are alike (lag-1 autocorrelation "
                f"{d.rho:.2f}, freed of the centring bias), but so slowly drifting a series moves both campaigns' "
                f"means alike over {d.launches} launches a side: their difference varies as with independent "
                f"launches, plain test; {need}")
    return (f"separate campaigns {d.a} vs {d.b}: neighbouring launches are alike (lag-1 autocorrelation {d.rho:.2f}, "
            f"freed of the centring bias), so the test's variance is × {d.inflation:.2f} over {d.rows} rows: "
            f"{d.launches} launches a side "
            f"count as {d.effective_launches:g}; {need}; an interleaved campaign (--mpi A,B, --variant) pairs the "
            "sides round by round instead")


@click.command("compare")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@analysis_options
@click.option("--alternative", type=click.Choice(analysis.ALTERNATIVES), default="two-sided",
              show_default=True, help="Hypothesis about the first against the second (less: first is faster).")
@click.option("--per-repetition", is_flag=True,
              help="Compare repetitions pooled over launches (allows < 3 launches; ignores the launch effect).")
@click.option("--ratio-ci", type=click.Choice(analysis.RATIO_CIS), default="hodges-lehmann",
              show_default=True, help="Estimator of the ratio b/a and its interval: hodges-lehmann (median of pairwise ratios) or "
                   "bootstrap (ratio of medians, percentile bootstrap).")
@click.option("--ops", "ops", default=None, metavar="A,B",
              help="Compare two operations within each alternative (e.g. pingpong-send-recv,pingpong-ssend-recv or "
                   "reduce,scan) with the same statistics, instead of the alternatives, (size, p, root) by (size, p, "
                   "root) and mw-workpieces number of work pieces by number; refused for operations whose "
                   "times mean different things (a pair's one-way latency against a collective, bytes against ns).")
@click.option("--quantile", type=float, default=None, metavar="Q",
              help="Compare the Q-quantiles (0 < Q < 1, e.g. 0.99) of two alternatives by quantile regression "
                   "on log run times, launch by launch (Hoefler & Belli 2015 §3.2.3): the ratio b/a with its "
                   "interval and p, instead of the rank-sum comparison of medians.")
@alpha_option
@metric_option
def command(paths: tuple[str, ...], fmt: str, alternative: str, per_repetition: bool, ratio_ci: str,
            alpha: float, metric: str, ops: str | None, quantile: float | None, **kw: Any) -> None:
    """Compare campaigns: PATHS are two or more campaign folders, or one folder of alternatives.

    For each (op, size) in both: the Wilcoxon rank-sum test on per-launch medians (exact p-values
    whenever computable), p-values Holm-corrected across all rows, significant where the
    corrected p ≤ --alpha (stars only there), and the ratio b / a with its interval (both from the
    --ratio-ci estimator: Hodges–Lehmann by default, so the ratio is not median b / median a).
    More than two groups: Kruskal–Wallis per row, then every pair. Needs ≥ 3 launches per side
    unless --per-repetition. --metric overhead compares the overhead of nonblocking collectives
    (init + test + wait) instead of their run time. Exit 2 on bad input.
    """
    check_alpha("compare", alpha)
    check_quantile(click.get_current_context(), quantile)
    pair = _ops_pair(ops, metric) if ops is not None else None

    def body() -> int:
        if quantile is not None:
            return _quantile_body(paths, kw, quantile, alpha, fmt)
        if pair is not None:
            cmp = analysis.compare_ops(analyze_together(paths, kw), *pair, alternative=alternative,
                                       per_repetition=per_repetition, confidence=kw["confidence"], ratio_ci=ratio_ci,
                                       alpha=alpha)
        else:
            cmp = analysis.compare(analyze_together(paths, kw), alternative=alternative,
                                   per_repetition=per_repetition, confidence=kw["confidence"], ratio_ci=ratio_ci,
                                   alpha=alpha, metric=metric)
        if fmt == "json":
            write_json(dict(cmp.to_dict(), paths=list(paths)))
        elif fmt == "csv":
            write_csv([r.to_dict() for r in cmp.rows])
        else:
            print_comparison(cmp)
        return EXIT_OK

    guarded("compare", body)


def _quantile_body(paths: tuple[str, ...], kw: dict[str, Any], quantile: float, alpha: float, fmt: str) -> int:
    from mpimeter.analysis.quantile_compare import compare_quantile  # statsmodels: only when asked

    cmp = compare_quantile(analyze_together(paths, kw), quantile, confidence=kw["confidence"], alpha=alpha)
    if fmt == "json":
        write_json(dict(cmp.to_dict(), paths=list(paths)))
    elif fmt == "csv":
        write_csv(quantile_csv_rows(cmp))
    else:
        print_quantile_comparison(cmp)
    return EXIT_OK


def _ops_pair(ops: str, metric: str) -> tuple[str, str]:
    """--ops A,B: two names (checked against what was measured once the campaign is read)."""
    names = [o.strip() for o in ops.split(",")]
    if len(names) != 2 or not all(names):
        fail("compare", f"--ops {ops!r}: give two operations, comma-separated (e.g. --ops reduce,scan)")
    if metric != "time":
        fail("compare", f"--ops compares run times; --metric {metric} goes with comparing alternatives")
    return names[0], names[1]
