# SPDX-License-Identifier: BSD-3-Clause
"""The report's "Model and bounds" section: per operation, the medians against size with the
fitted cost model (``analysis.models``: Hockney's α + β·m, piecewise at the breakpoints the
criterion found) and the bound no run can beat on this machine (``analysis.bounds``: latency
floor + least data volume / copy bandwidth — Hoefler & Belli 2015 §5.1, rule 11), and how close
each size comes to its bound. Presentation only: every number comes from those two modules.
"""

from __future__ import annotations

import math

import numpy as np

from mpimeter.analysis.bounds import PREMISE, BoundsResult
from mpimeter.analysis.models import ModelResult
from mpimeter.analysis.scaling import first_workpieces
from mpimeter.stats.costmodel import INTERVALS
from mpimeter.report import html as h
from mpimeter.report.charts import Line, Series, size_chart
from mpimeter.report.overview import alternative_color
from mpimeter.report.provenance import slug
from mpimeter.units import format_bytes, format_interval, format_ns, format_number, format_rate

BOUND_COLOR = "#57606a"
CLOSE_SIZE = 65536  # the size the summary states closeness at (64 KiB), when measured


def _pct(x: float | None) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{100 * x:.0f} %"


def _machine_table(bounds: BoundsResult) -> str:
    rows = []
    for m in bounds.machines:
        rows.append((m.alternative, str(m.launches), format_ns(m.latency_floor_ns),
                     "–" if m.copy_large_Bps is None else f"{format_rate(m.copy_large_Bps)} "
                                                          f"({format_bytes(m.copy_large_bytes)} buffers)",
                     "–" if m.copy_peak_Bps is None else f"{format_rate(m.copy_peak_Bps)} "
                                                         f"({format_bytes(m.copy_peak_bytes)} buffers)"))
    return h.table(("alternative", "launches with probes", "latency floor (one way)",
                    "copy bandwidth (largest buffers)", "fastest copy (cache)"), rows,
                   numeric=(False, True, True, True, True))


def _chart(op: str, result, models: ModelResult, bounds: BoundsResult) -> str:
    alts = list(result.alternatives)
    series, lines = [], []
    several_p = len({r.nprocs for r in result.rows if r.op == op}) > 1
    pieces = first_workpieces(result.rows)
    # one series per alternative and p (a model and a bound are of one p); a rooted
    # operation measured at several roots shows its first root's rows
    for alt, ranks in sorted({(r.alternative, r.nprocs) for r in result.rows if r.op == op},
                             key=lambda k: (alts.index(k[0]), k[1])):
        mine = [r for r in result.rows if r.op == op and r.alternative == alt and r.nprocs == ranks]
        first_root = min((r.root for r in mine if r.root is not None), default=None)
        # and of the fewest work pieces (mw-workpieces), the rows its model was fitted to
        rows = sorted((r for r in mine if r.root == first_root and r.workpieces == pieces.get(op)),
                      key=lambda r: r.size)
        name = f"{alt} p={ranks}" if several_p else alt
        color = alternative_color(alts, alt)
        series.append(Series(name=f"{name}: median", color=color, x=[max(r.size, 1) for r in rows],
                             y=[r.median_ns for r in rows], low=[r.median_ci_low_ns for r in rows],
                             high=[r.median_ci_high_ns for r in rows]))
        model = models.row(alt, op, ranks)
        if model is not None:
            for seg in model.piecewise.segments:
                xs = np.geomspace(max(seg.from_bytes, 1), max(seg.to_bytes, 1), 24)
                lines.append(Line(name=f"{name}: model", color=color, x=xs, y=seg.predict(xs)))
        b = [bounds.row(alt, op, r.size, r.nprocs, r.root) for r in rows]
        b = [x for x in b if x is not None]
        if b:
            lines.append(Line(name=f"{name}: bound", color=color, x=[max(x.size, 1) for x in b],
                              y=[x.bound_ns for x in b], dash="6 4", width=1.2))
            lines.append(Line(name="cache bound (fastest copy)", color=BOUND_COLOR, x=[max(x.size, 1) for x in b],
                              y=[x.cache_bound_ns for x in b], dash="2 3", width=1.0))
    quantity = "one-way latency" if any(r.one_way for r in result.rows if r.op == op) else "run time"
    return size_chart(series, lines, title=f"{op}: medians, cost model and bound", quantity=quantity)


def _model_table(op: str, models: ModelResult) -> str:
    rows = []
    several_p = len({m.nprocs for m in models.rows if m.op == op}) > 1
    for m in (x for r in models.rows if r.op == op for x in (r, *r.per_state)):
        h_ = m.hockney
        segs = "; ".join(f"{format_bytes(s.from_bytes)}–{format_bytes(s.to_bytes)}: {format_ns(s.alpha_ns)} "
                         f"{_ci(s.alpha_ci_ns, format_ns)} + "
                         f"{format_number(s.beta_ns_per_byte)} ns/B" for s in m.piecewise.segments)
        headline = any(r.headline == m.state and m in r.per_state for r in models.rows)
        state = "" if m.state is None and not m.per_state else " (all states)" if m.state is None else \
            f" ({m.state} state{', headline' if headline else ''})"
        rows.append((m.alternative + (f" p={m.nprocs}" if several_p else "") + state,
                     f"{format_ns(h_.alpha_ns)} {_ci(h_.alpha_ci_ns, format_ns)}",
                     f"{format_number(h_.beta_ns_per_byte)} {_ci(h_.beta_ci, format_number)} ns/B",
                     ", ".join(format_bytes(b) for b in m.piecewise.breakpoints) or "none", segs,
                     _pct(m.max_rel_error), m.missed_text(format_bytes)))
    if not rows:
        return ""
    methods = sorted({m.hockney.interval for m in models.rows if m.op == op})
    return h.table(("alternative", "α (all sizes)", "β (all sizes)", "breakpoints", "piecewise model",
                    "max error", "sizes missed"), rows) + h.tag(
        "p", h.esc("intervals: " + "; ".join(INTERVALS[m] for m in methods)), class_="note")


def _ci(ci: tuple[float, float] | None, fmt) -> str:
    """An interval of the model; the one spelling of none (the table's caption says why,
    ``costmodel.INTERVALS``)."""
    return format_interval(*(ci if ci is not None else (None, None)), fmt)


def _bound_table(op: str, result, models: ModelResult, bounds: BoundsResult) -> str:
    rows = []
    several_p = len({r.nprocs for r in result.rows if r.op == op}) > 1
    pieces = first_workpieces(result.rows)
    for r in sorted((r for r in result.rows if r.op == op),
                    key=lambda r: (r.size, r.alternative, r.nprocs, -1 if r.root is None else r.root,
                                   -1 if r.workpieces is None else r.workpieces)):
        b = bounds.row(r.alternative, op, r.size, r.nprocs, r.root)
        # the model is of the fewest work pieces' rows (analysis.models): the others show none
        m = models.row(r.alternative, op, r.nprocs) if r.workpieces == pieces.get(op) else None
        e = next((e for e in m.sizes if e.size == r.size), None) if m else None
        model = "–" if e is None else f"{format_ns(e.predicted_ns)} ({100 * e.rel_error:+.0f} %" + (
            ", missed)" if e.missed else ", not checked)" if e.missed is None else ")")
        rows.append((r.alternative + (f" p={r.nprocs}" if several_p else "")
                     + ("" if r.workpieces is None else f" {r.workpieces} workpieces"), format_bytes(r.size),
                     format_ns(r.median_ns), model,
                     "–" if b is None else format_ns(b.bound_ns), "–" if b is None else _pct(b.fraction),
                     "–" if b is None else ("below its bound" if b.beats else "")))
    return h.table(("alternative", "size", "median", "model (error)", "bound", "bound / median", ""), rows,
                   numeric=(False, True, True, True, True, True, False))


def closeness_text(result, bounds: BoundsResult, size: int = CLOSE_SIZE) -> str:
    """How close each operation comes to its bound at ``size`` (or the largest size below)."""
    parts = []
    several_p = len({b.nprocs for b in bounds.rows}) > 1
    for alt in result.alternatives:
        mine = [b for b in bounds.rows if b.alternative == alt and b.size <= size]
        for op, ranks in sorted({(b.op, b.nprocs) for b in mine}):  # per p: a bound is of one p
            best = max((b for b in mine if (b.op, b.nprocs) == (op, ranks)), key=lambda b: b.size)
            at = f" p={ranks}" if several_p else ""
            parts.append(f"{alt} {op}{at} at {format_bytes(best.size)}: {_pct(best.fraction)} of its bound "
                         f"({format_ns(best.median_ns)} vs {format_ns(best.bound_ns)})")
    return "; ".join(parts)


def models_bounds_section(result, models: ModelResult, bounds: BoundsResult) -> str:
    parts = [h.tag("p", h.esc(
        "Per operation: the median of per-launch medians with its interval (points), the cost model fitted to "
        "the per-launch medians (solid: Hockney's α + β·m per segment, breakpoints where the protocol changes; "
        f"{models.criterion}), and the bound no run can beat on this machine (dashed; rule 11). "
        f"{PREMISE}."))]
    if bounds.machines:
        parts.append(_machine_table(bounds))
    if bounds.rows:
        parts.append(h.tag("p", h.tag("b", "How close to the bound: ") + h.esc(closeness_text(result, bounds) + ".")))
    for why in bounds.missing:
        parts.append(h.tag("p", h.esc(f"No bound: {why}."), class_="caption"))
    for alt, op, why in models.skipped:
        parts.append(h.tag("p", h.esc(f"No model for {alt} {op}: {why}."), class_="caption"))
    ops = sorted({r.op for r in result.rows}
                 & ({m.op for m in models.rows} | {b.op for b in bounds.rows}))
    for op in ops:
        parts.append(h.tag("h3", h.esc(op), id=f"bound-{slug(op)}"))
        parts.append(h.tag("div", _chart(op, result, models, bounds), class_="chart"))
        parts.append(_model_table(op, models))
        parts.append(h.details(h.esc(f"{op}: median, model and bound at every size"),
                               _bound_table(op, result, models, bounds)))
    return "".join(parts)
