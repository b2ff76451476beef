# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter gate`: for CI of MPI libraries — exit 1 when some (op, size) of the candidate is
significantly slower than the baseline by more than a threshold, 0 otherwise, 2 on bad input."""

from __future__ import annotations

import os
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from mpimeter import analysis
from mpimeter.cli.analysis_view import state_table
from mpimeter.cli.common import (EXIT_OK, EXIT_REGRESSION, STARS_TEXT, alpha_option, analysis_options,
                                 checked_slowdown_and_alpha, console, fail, fmt_est, fmt_p, fmt_ratio, fmt_time, guarded,
                                 max_slowdown_option, metric_footer, metric_option, parse_fraction, print_warnings,
                                 run_analysis, write_csv, write_json, yes_no)


def print_gate(res: analysis.GateResult, baseline: str, candidate: str) -> None:
    con = console()
    rows = res.rows
    joint = res.joint_row  # Westfall–Young over rows × states (its relabellings), or None: Holm
    adjusted = "p (Holm)" if joint is None else "p (adjusted)"
    ci_head = "ratio [CI at Holm level]" if joint is None else "ratio [CI at its step's level]"
    title = "regressions" if not res.passed else "no regression"
    t = Table(title=f"mpimeter gate {baseline} → {candidate}: {title} (max slowdown {100 * res.max_slowdown:g} %)",
              title_justify="left")
    show_p, show_root, show_pieces = (len({getattr(r, k) for r in rows}) > 1 for k in ("nprocs", "root", "workpieces"))
    for name in ("op", "size", *(("p",) if show_p else ()), *(("root",) if show_root else ()),
                 *(("workpieces",) if show_pieces else ()), "baseline",
                 "candidate", ci_head, "p", adjusted, "", "significant", "regression"):
        t.add_column(name, justify="left" if name in ("op", "", "significant", "regression") else "right")
    for r in sorted(rows, key=lambda r: (not r.regression, r.op, r.size, r.nprocs, -1 if r.root is None else r.root,
                                         -1 if r.workpieces is None else r.workpieces)):
        t.add_row(r.op, str(r.size), *([str(r.nprocs)] if show_p else []),
                  *([("–" if r.root is None else str(r.root))] if show_root else []),
                  *([("–" if r.workpieces is None else str(r.workpieces))] if show_pieces else []), fmt_time(r.median_baseline_ns), fmt_time(r.median_candidate_ns),
                  fmt_est(r.ratio, r.ratio_ci_low, r.ratio_ci_high, fmt_ratio), fmt_p(r.p_value),
                  fmt_p(r.p_adjusted), r.stars, yes_no(r.significant),
                  Text("REGRESSION", style="red") if r.regression else "")
    con.print(t)
    level_text = ("with the interval of the same test at the level Holm tested the row at (lower end one-sided at "
                  f"1 − level), so a regression's interval lies above {1 + res.max_slowdown:g}")
    if joint is not None:
        level_text = level_text.replace("Holm tested the row at", "its step of the family was tested at")
    if any(r.stratified for r in rows):
        con.print(state_table([r for r in rows if r.stratified], "baseline", "candidate"))
        con.print(state_test_table(rows, res.max_slowdown, adjusted, ci_head))
        for line in launches_needed_lines(rows, res.max_slowdown):
            con.print(line)
        family = (f"{len(res.rows)} rows and {sum(st.tested for r in rows for st in r.state_tests)} state tests")
        correction = (f"Holm over {family}" if joint is None else
                      f"Westfall–Young step-down min-p over {family}, the launches relabelled within each state "
                      f"alike in every row ({joint.relabellings} relabellings, "
                      + ("every one" if joint.relabellings_seed is None else
                         f"seeded random ones, seed {joint.relabellings_seed}") + ")")
        over = (f"candidate per-launch medians against baseline medians × {1 + res.max_slowdown:g}")
        tests = (f"one-sided van Elteren stratified rank-sum over the matched states (state by state: {over}, "
                 "weights 1/(launches in the state + 1))", "the one-sided rank-sum test of its launches")
        if joint is not None:  # the joint family's own statistic (analysis.gating.JOINT_STATISTIC)
            tests = (f"one-sided permutation test over the matched states of the difference of mean logs "
                     f"(Fisher–Pitman: {over}, each state weighted by launches_b · launches_c / launches)",
                     "the same test on its launches alone")
        con.print(f"test: {tests[0]}; p: {analysis.p_method_text(r.p_method for r in rows)}; "
                  f"{correction}; significant: adjusted p ≤ α = {res.alpha:g}, {STARS_TEXT}; "
                  "regression: significant, or a state's own test significant; ratio: stratified Hodges–Lehmann "
                  "estimate of candidate / baseline "
                  f"(weighted median of within-state pairwise ratios) {level_text}; and each state on its own: "
                  f"{tests[1]}, in one family of rows × states, so that a "
                  f"regression of any state fails the gate (a state too rare to reach α in that family is left out "
                  f"and named)")
    else:
        from mpimeter.analysis.gating import POOLED  # loaded with the result

        sample = (POOLED, "repetitions") if res.test.endswith(POOLED) else (
            "per-launch medians", "medians")
        con.print(f"test: one-sided Wilcoxon rank-sum of candidate {sample[0]} against baseline {sample[1]} × "
                  f"{1 + res.max_slowdown:g}; p: {analysis.p_method_text(r.p_method for r in rows)}; Holm over "
                  f"{len(res.rows)} rows; significant: p (Holm) ≤ α = {res.alpha:g}, {STARS_TEXT}; regression: "
                  "significant; ratio: Hodges–Lehmann estimate of candidate / baseline (median of all pairwise "
                  f"ratios) {level_text}")
    differ = [r for r in rows if not r.interval_agrees]
    if differ:
        why = ("Holm stopped at an earlier row (the step-down tests a row only after every smaller p passed), "
               "or ties make the interval's rank differ from the test's p; the decision is the Holm p's"
               if joint is None else
               "the family's step-down stopped at an earlier test, or the interval (Hodges–Lehmann, of the rank "
               "test) reads the launches otherwise than the decision's test (the difference of mean logs); the "
               "decision is the adjusted p's")
        con.print("decision and interval differ for " + ", ".join(f"{r.op} {r.size}" for r in differ) + ": " + why)
    one_way = sorted({r.op for r in rows if r.one_way})
    if one_way:
        con.print(f"medians of {', '.join(one_way)} are one-way latencies: {analysis.ONE_WAY_NOTE}")
    if metric_footer(res.metric):
        con.print(metric_footer(res.metric))
    print_warnings(con, res.warnings)


def state_test_table(rows, max_slowdown: float, adjusted: str = "p (Holm)",
                     ci_head: str = "ratio [CI at Holm level]") -> Table:
    """Per row and matched state: the state's own slowdown test, its ratio against the threshold."""
    t = Table(title=f"per state: candidate / baseline against {1 + max_slowdown:g}", title_justify="left")
    for name in ("op", "size", "state", "launches baseline/candidate", ci_head, "threshold",
                 "p", adjusted, "regression"):
        t.add_column(name, justify="left" if name in ("op", "state", "regression") else "right")
    for r in rows:
        for st in r.state_tests:
            t.add_row(r.op, str(r.size), st.stratum, f"{st.launches_baseline}/{st.launches_candidate}",
                      fmt_est(st.ratio, st.ratio_ci_low, st.ratio_ci_high, fmt_ratio), f"{1 + max_slowdown:g}",
                      fmt_p(st.p_value), fmt_p(st.p_adjusted) if st.tested else "not tested (too few launches)",
                      Text("REGRESSION", style="red") if st.regression else "")
    return t


def launches_needed_lines(rows, max_slowdown: float) -> list[str]:
    """Per state with fewer launches on a side than its tests need: how many would find a
    regression of it alone (the most any row needs)."""
    from mpimeter.analysis.gating import NEEDED_POWER, REGRESSION_BEYOND, WESTFALL_YOUNG  # loaded with the result
    from mpimeter.stats.joint_permutation import MEAN_LOG

    # the sample size of the test the state was given (analysis.gating: the mean log's under the joint family)
    size = ("the mean log test's sample size" if any(r.correction == WESTFALL_YOUNG and r.statistic == MEAN_LOG
                                                     for r in rows) else "Noether's sample size")
    out = []
    for name in dict.fromkeys(st.stratum for r in rows for st in r.state_tests):
        tests = [st for r in rows for st in r.state_tests if st.stratum == name and st.launches_needed is not None]
        if not tests:
            continue
        need = max(st.launches_needed for st in tests)
        have = min(min(st.launches_baseline, st.launches_candidate) for st in tests)
        if have < need:
            out.append(f"the {name} state needs about {need} launches a side (it has {have}) for a "
                       f"{100 * (max_slowdown + REGRESSION_BEYOND):g} % regression of it alone to fail the gate with "
                       f"{100 * NEEDED_POWER:g} % power ({size} on its spread of per-launch medians, "
                       "at the level the family tests a regression of one state alone at)")
    return out


def same_folder(first: str, second: str) -> bool:
    """Do the two paths name one existing folder (the same text, or two names of it)?"""
    try:
        return os.path.samefile(first, second)
    except (OSError, ValueError):
        return False  # a path that cannot be read: the analysis says what is wrong with it


@click.command("gate")
@click.argument("baseline", type=click.Path())
@click.argument("candidate", type=click.Path())
@analysis_options
@max_slowdown_option("Tolerated slowdown: a fraction below 1 (0.05) or a percentage below 1000% (5%, 150%).")
@alpha_option
@click.option("--per-repetition", is_flag=True, help="Gate on repetitions pooled over launches (< 3 launches).")
@metric_option
def command(baseline: str, candidate: str, fmt: str, max_slowdown: str, alpha: float, per_repetition: bool,
            metric: str, **kw: Any) -> None:
    """Exit 1 when a row of CANDIDATE is significantly slower than BASELINE by more than
    --max-slowdown (and print the offending rows), 0 when none is, 2 on bad input."""
    slowdown = checked_slowdown_and_alpha("gate", max_slowdown, alpha)
    if same_folder(baseline, candidate):
        fail("gate", f"{baseline} and {candidate} are the same campaign; allowed: two campaigns (a campaign "
                     "gated against itself passes whatever it measured)")

    def body() -> int:
        base, cand = run_analysis([baseline, candidate], kw)
        res = analysis.gate(base, cand, max_slowdown=slowdown, alpha=alpha, per_repetition=per_repetition,
                            metric=metric)
        if fmt == "json":
            write_json(dict(res.to_dict(), baseline_path=baseline, candidate_path=candidate))
        elif fmt == "csv":
            write_csv([r.to_dict() for r in res.rows])
        else:
            print_gate(res, baseline, candidate)
        return EXIT_OK if res.passed else EXIT_REGRESSION

    guarded("gate", body)
