# SPDX-License-Identifier: BSD-3-Clause
"""What `mpimeter analyze` prints about per-repetition counters (analysis.counters): which
counters explain slow repetitions, what reading them cost, and the perturbation measured against
the same tests without counters. The numbers are the analysis's; JSON output has all of them
(`counters` in docs/FORMAT.md)."""

from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table

from mpimeter.cli.output import terminal_text
from mpimeter.units import format_interval, format_ns, format_number, format_size


def print_counters(con: Console, res) -> None:
    c = res.counters
    if c is None:
        return
    explaining = [r for r in c.rows if r.explains]
    tested = [r for r in c.rows if not r.constant and math.isfinite(r.spearman_p_adjusted)]
    if explaining:
        t = Table(title="counters that explain slow repetitions (Spearman within launches, Holm, |ρ| ≥ 0.3)",
                  title_justify="left")
        for name in ("alternative", "op", "size", "counter", "ρ", "p (Holm)", "median outlier", "median good"):
            t.add_column(name, justify="left" if name in ("alternative", "op", "counter") else "right")
        for r in explaining:
            med = r.median_by_category
            t.add_row(r.alternative, r.op, format_size(r.size, res.size_unit(r.op)), terminal_text(r.metric),
                      f"{r.spearman_rho:.2f}", f"{r.spearman_p_adjusted:.2g}", _num(med.get("outlier")),
                      _num(med.get("good")))
        con.print(t)
    names = len({r.metric for r in c.rows})
    con.print(f"counters: {c.launches} launch(es) read {names} counter(s); {len(tested)} (test, counter) pairs "
              f"varied within launches and were tested, {len(explaining)} explain slow repetitions")
    for cost in c.costs:
        con.print(f"cost of looking ({terminal_text(cost.alternative)}): reading {cost.counters} counter(s) before "
                  f"and after a repetition took {format_ns(cost.median_ns)} (median; {format_ns(cost.min_ns)} – "
                  f"{format_ns(cost.max_ns)}), outside the timed region")
    for p in c.perturbation:
        ci = " " + format_interval(p.ratio_ci_low, p.ratio_ci_high, lambda x: format_number(x, 4))
        con.print(f"perturbation {p.op} {format_size(p.size, res.size_unit(p.op))}: "
                  f"{terminal_text(p.b)} / {terminal_text(p.a)} = {format_number(p.ratio, 4)}{ci}, "
                  f"p (Holm) {p.p_adjusted:.2g}" + (" — slower with counters" if p.significant and p.ratio > 1 else ""))


def _num(v) -> str:
    return "–" if v is None or not math.isfinite(v) else format_number(v)
