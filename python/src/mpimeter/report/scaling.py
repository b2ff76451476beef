# SPDX-License-Identifier: BSD-3-Clause
"""The report's "Scaling with the number of processes" section: per (alternative,
op, size[, root]) the median of per-launch medians with its interval at every p (Hoefler &
Belli 2015 §5.1), a figure per operation with each p's lower bound (analysis.bounds) and the
ideal line, the root's effect per (op, size, p), and the models in m and p with their
verdicts. Empty when the campaign ran at one p and one root."""

from __future__ import annotations

import math

from mpimeter.analysis import scaling as _scaling
from mpimeter.analysis.scalingmodels import fit_scaling_models
from mpimeter.report import html as h
from mpimeter.report.charts import Line, Series, p_chart
from mpimeter.report.overview import alternative_color
from mpimeter.units import format_interval, format_ns, format_number, format_size


def scaling_section(result) -> str:
    series = list(result.scaling)
    effects = _scaling.root_effects(result.rows)
    if not series and not effects:
        return ""
    parts = []
    if series:
        counts = sorted({pt.nprocs for s in series for pt in s.points})
        pieces = any(s.workpieces is not None for s in series)  # mw-workpieces: its own column
        rows = []
        for s in series:
            at = {pt.nprocs: pt for pt in s.points}
            rows.append((s.alternative, s.op, format_size(s.size, result.size_unit(s.op)),
                         "–" if s.root is None else str(s.root),
                         *(["–" if s.workpieces is None else str(s.workpieces)] if pieces else []),
                         *[(format_ns(at[p].median_ns) + " " + format_interval(at[p].low_ns, at[p].high_ns))
                           if p in at else "" for p in counts]))
        parts.append(h.tag("p", h.esc(
            f"Median of the per-launch medians with its {result.settings.confidence:.0%} interval at each number "
            "of processes p (the launches at that p are the replicates).")))
        parts.append(h.table(("alternative", "op", "size", "root", *(["workpieces"] if pieces else []),
                              *[f"p = {p}" for p in counts]), rows,
                             numeric=(False, False, True, True, *([True] if pieces else []), *[True] * len(counts))))
        parts.append(_figures(result, series))
    if effects:
        pieces = any(e.workpieces is not None for e in effects)  # mw-workpieces: records apart by pieces
        rows = [(e.alternative, e.op, format_size(e.size, result.size_unit(e.op)), str(e.nprocs),
                 *(["–" if e.workpieces is None else str(e.workpieces)] if pieces else []),
                 ", ".join(map(str, e.roots)), f"{e.fastest_root} ({format_ns(e.min_ns)})",
                 f"{e.slowest_root} ({format_ns(e.max_ns)})",
                 f"{format_number(e.ratio)}×" if math.isfinite(e.ratio) else "–",
                 "–" if e.p_value is None else f"{e.p_value:.3g}") for e in effects]
        parts.append(h.tag("p", h.esc(f"The root's effect: {effects[0].test} (–: fewer than 2 launches at a root).")))
        parts.append(h.table(("alternative", "op", "size", "p", *(["workpieces"] if pieces else []), "roots",
                              "fastest root", "slowest root", "max/min", "p-value"), rows,
                             numeric=(False, False, True, True, *([True] if pieces else []), False, True, True, True,
                                      True)))
    models, skipped = fit_scaling_models(result)
    if models:
        rows = [(m.alternative, m.op, ", ".join(map(str, m.nprocs)), f"{m.chosen.family}: {m.chosen.formula}",
                 f"{format_ns(m.chosen.alpha_ns)}", f"{format_number(m.chosen.beta_ns_per_byte)} ns/B", m.text())
                for m in models]
        parts.append(h.table(("alternative", "op", "p", "model in m and p", "α", "β", "verdict"), rows))
    for alt, op, why in skipped:
        parts.append(h.tag("p", h.esc(f"Not modelled in p: {alt} {op}: {why}."), class_="note"))
    return "".join(parts)


def _figures(result, series) -> str:
    """One figure per operation: the medians against p (points with intervals, joined), each
    p's lower bound (dashed) where the bound model has one, and the ideal line (dotted: the
    time at the smallest p). Below, what lies under either line and where there is no bound."""
    alts = list(result.alternatives)
    parts = [h.tag("p", h.esc(f"Lines per series (Hoefler & Belli 2015 §5.1): {_scaling.IDEAL}; "
                              f"{_scaling.LOWER_BOUND}."), class_="note")]
    for op in sorted({s.op for s in series}):
        mine = [s for s in series if s.op == op]
        points, lines, said = [], [], []
        for s in mine:
            color = alternative_color(alts, s.alternative)
            label = (f"{s.alternative} {format_size(s.size, result.size_unit(op))}"
                     + ("" if s.root is None else f" root {s.root}")
                     + ("" if s.workpieces is None else f" {s.workpieces} workpieces"))
            xs = [pt.nprocs for pt in s.points]
            points.append(Series(name=label, color=color, x=xs, y=[pt.median_ns for pt in s.points],
                                 low=[pt.low_ns for pt in s.points], high=[pt.high_ns for pt in s.points], joined=True))
            lines.append(Line(name=f"{label}: ideal", color=color, x=[xs[0], xs[-1]], y=[s.ideal_ns, s.ideal_ns],
                              dash="1 3", width=1.0, legend=False))
            bound = [(pt.nprocs, pt.bound_ns) for pt in s.points if pt.bound_ns is not None]
            if bound:
                lines.append(Line(name=f"{label}: lower bound", color=color, x=[b[0] for b in bound],
                                  y=[b[1] for b in bound], dash="6 4", width=1.2, legend=False))
            if s.beyond():
                said.append(f"{label}: below the ideal line at p = {', '.join(map(str, s.beyond()))}")
            if s.beats():
                said.append(f"{label}: median below its lower bound at p = {', '.join(map(str, s.beats()))} "
                            "(data in cache, or the bound's premise does not hold)")
            if s.no_bound:
                said.append(f"{label}: no lower bound at {s.no_bound}")
        quantity = "one-way latency" if any(s.one_way for s in mine) else "run time"
        parts.append(h.tag("div", p_chart(points, lines, title=f"{op}: median against p, ideal (dotted) and lower "
                                                               "bound (dashed)", quantity=quantity), class_="chart"))
        if said:
            parts.append(h.tag("ul", "".join(h.tag("li", h.esc(t)) for t in said), class_="note"))
    return "".join(parts)
