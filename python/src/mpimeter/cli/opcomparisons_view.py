# SPDX-License-Identifier: BSD-3-Clause
"""The comparisons between operations on the terminal (shared by `mpimeter analyze` and what
`mpimeter run` shows after a campaign): those a suite names and SKaMPI's standard ones of the
pairs measured (analysis.opcomparisons), one short table each; `mpimeter compare --ops A,B`
prints one of them in full."""

from __future__ import annotations

from rich.table import Table

from mpimeter.cli.common import fmt_est, fmt_p, fmt_ratio, fmt_time, yes_no
from mpimeter.cli.output import console


def print_opcomparisons(result) -> None:
    """Nothing when the campaign has no comparison to draw."""
    from mpimeter.analysis import opcomparisons  # scipy: only when a campaign is analyzed

    drawn = opcomparisons.draw(result)
    if not drawn:
        return
    con = console()
    for d in drawn:
        title = f"{d.title} ({d.source})"
        if d.result is None:
            con.print(f"{title}: not drawn: {d.problem}")
            continue
        show_p = len({r.nprocs for r in d.result.rows}) > 1
        t = Table(title=title, title_justify="left")
        for name in ("a", "size", *(("p",) if show_p else ()), "launches", "median a", "median b",
                     "ratio b/a [CI at Holm level]", "p (Holm)", "", "significant"):
            t.add_column(name, justify="left" if name in ("a", "", "significant") else "right")
        for r in d.result.rows:
            t.add_row(r.a, str(r.size), *([str(r.nprocs)] if show_p else []), f"{r.launches_a}/{r.launches_b}",
                      fmt_time(r.median_a_ns), fmt_time(r.median_b_ns),
                      fmt_est(r.ratio, r.ratio_ci_low, r.ratio_ci_high, fmt_ratio), fmt_p(r.p_adjusted), r.stars,
                      yes_no(r.significant))
        con.print(t)
    con.print("comparisons between operations: `mpimeter compare --ops A,B` (its test and estimators, at their "
              "defaults); the suite's, then SKaMPI's standard ones (Reussner et al. 1998 §6) of the pairs measured")
