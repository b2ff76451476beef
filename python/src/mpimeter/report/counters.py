# SPDX-License-Identifier: BSD-3-Clause
"""The counters in the HTML report (analysis.counters): per fingerprint, a table of every counter
the test read — its correlation with the run time within launches (Pearson and Spearman, Holm),
whether it explains the slow repetitions, its median per category of Roth 2021 §4.5 — and scatter
plots of counter against run time coloured by those categories (the counters that explain the run
time, else the most correlated ones); above the fingerprints, the cost of looking (what reading
took per repetition, and the run times compared with the same campaign without counters).

Numbers come from the analysis; this module selects, thins the points for display
(figures.thin_for_display) and draws inline SVG (svgplot).
"""

from __future__ import annotations

import math

import numpy as np

from mpimeter.report import figures as fg
from mpimeter.report import html as h
from mpimeter.report.svgplot import Axes, limits, svg
from mpimeter.units import format_interval, format_ns, format_number, format_size, time_unit

MAX_PLOTS = 3  # scatter plots per fingerprint
PLOT_W, PLOT_H = 340, 250
LOG_SPAN = 30.0


def _p(v: float) -> str:
    return "–" if v is None or not math.isfinite(v) else f"{v:.2g}"


def _num(v) -> str:
    return "–" if v is None or not math.isfinite(v) else format_number(v)


def cost_html(analysis, size_unit) -> str:
    """The cost of looking, for the top of the fingerprints section ("" without counters)."""
    if analysis is None:
        return ""
    parts = [h.tag("h3", "Counters and the cost of looking", id="counters-cost")]
    text = (f"{analysis.launches} launch(es) read counters before the process sync's wait and right after each "
            "call's second timestamp, outside the timed region (docs/FORMAT.md, counters.csv); each "
            "fingerprint below lists them. Reading them took, per repetition (before + after, max over ranks, "
            "median per test):")
    rows = [(c.alternative, str(c.launches), str(c.counters), format_ns(c.median_ns),
             f"{format_ns(c.min_ns)} – {format_ns(c.max_ns)}") for c in analysis.costs]
    parts.append(h.tag("p", h.esc(text)))
    parts.append(h.table(("alternative", "launches", "counters", "read cost (median)", "range"), rows,
                         numeric=(False, True, True, True, True)))
    if analysis.perturbation:
        prow = []
        for p in analysis.perturbation:
            ci = format_interval(p.ratio_ci_low, p.ratio_ci_high, lambda x: format_number(x, 4))
            prow.append((p.op, format_size(p.size, size_unit(p.op)), f"{p.a} → {p.b}",
                         f"{p.launches_a} / {p.launches_b}", format_ns(p.median_a_ns),
                         format_ns(p.median_b_ns), f"{format_number(p.ratio, 4)} {ci}", _p(p.p_adjusted),
                         "yes" if p.significant else "no"))
        parts.append(h.tag("p", h.esc(
            "The same tests without and with counters (same MPI library and ranks): per-launch medians compared "
            "as mpimeter compare does — Hodges–Lehmann ratio with counters / without (> 1: slower when "
            "looking) and its interval, Wilcoxon rank-sum, Holm over the rows.")))
        parts.append(h.table(("op", "size", "without → with", "launches", "median without", "median with",
                              "ratio [CI]", "p (Holm)", "perturbed"), prow,
                             numeric=(False, True, False, True, True, True, True, True, False)))
    elif len(analysis.costs):
        parts.append(h.tag("p", h.esc(
            "No alternative of this report ran the same tests without counters, so the perturbation of the run "
            "times is not measured here: run the campaign once without --mpit-pvars/--papi/--likwid and compare "
            "(mpimeter compare WITHOUT WITH), or report both folders together.")))
    if analysis.left_out:
        items = [f"{name or '…'}: {why}" for _, name, why in analysis.left_out[:12]]
        more = len(analysis.left_out) - len(items)
        parts.append(h.details(h.esc(f"{len(analysis.left_out)} performance variable(s) not read (--mpit-pvars all)"),
                               h.tag("ul", "".join(h.tag("li", h.esc(i)) for i in items) +
                                     (h.tag("li", h.esc(f"… {more} more")) if more > 0 else ""))))
    return "".join(parts)


def fingerprint_counters_html(analysis, alternative: str, op: str, size: int, quantity: str, *,
                              max_points: int = 1500) -> str:
    """The counters block of one fingerprint ("" when the test read none)."""
    if analysis is None:
        return ""
    rows = analysis.rows_of(alternative, op, size)
    if not rows:
        return ""
    table_rows = []
    for r in sorted(rows, key=lambda r: (not r.explains, -abs(r.spearman_rho) if math.isfinite(r.spearman_rho)
                                         else 0.0, r.metric)):
        cats = " · ".join(f"{fg.CATEGORY_LABELS[k]} {_num(v)}" for k, v in r.median_by_category.items()
                          if v is not None)
        table_rows.append((r.metric, f"{r.source} {r.klass}".strip(),
                           "constant within launches" if r.constant else f"{_num(r.pearson_r)} ({_p(r.pearson_p_adjusted)})",
                           "" if r.constant else f"{_num(r.spearman_rho)} ({_p(r.spearman_p_adjusted)})",
                           "yes" if r.explains else "no", cats))
    caption = h.tag("p", h.esc(
        "Counters per repetition (the sum over ranks of after − before) against the run time, within launches: "
        "Pearson r and Spearman ρ with Holm-adjusted p in brackets (over every counter and test of the "
        "alternative); a counter explains the slow repetitions when ρ is significant and |ρ| ≥ 0.3. Medians "
        "per category of Roth 2021 §4.5."), class_="caption")
    table = h.table(("counter", "source", "Pearson r (p Holm)", "Spearman ρ (p Holm)", "explains",
                     "median per category"), table_rows, numeric=(False, False, True, True, False, False))
    plotted = [r for r in rows if r.explains] or sorted(
        (r for r in rows if not r.constant and math.isfinite(r.spearman_rho)),
        key=lambda r: -abs(r.spearman_rho))
    pts = analysis.points
    mine = pts[(pts["alternative"] == alternative) & (pts["op"] == op) & (pts["size"] == size)]
    plots = "".join(h.tag("div", _scatter(mine[mine["metric"] == r.metric], r, quantity, max_points),
                          style=f"flex: 0 1 {PLOT_W}px") for r in plotted[:MAX_PLOTS])
    return h.tag("div", h.tag("h4", "Counters") + caption + table +
                 h.tag("div", plots, style="display: flex; flex-wrap: wrap; gap: .6rem"), class_="counters")


def _scatter(points, row, quantity: str, max_points: int) -> str:
    """Counter value (x) against run time (y), coloured by category; good ones drawn first."""
    ax = Axes(left=64, top=30, width=PLOT_W - 84, height=PLOT_H - 84)
    x = points["value"].to_numpy(dtype=float)
    y = points["run_time_ns"].to_numpy(dtype=float)
    cats = points["category"].astype(str).to_numpy()
    ok = np.isfinite(x) & np.isfinite(y)
    x, y, cats = x[ok], y[ok], cats[ok]
    title = f"{row.metric}"
    if y.size == 0:
        ax.empty("no repetitions")
        return svg(PLOT_W, PLOT_H, ax.frame(title=title, xticks=[], yticks=[]), label=title)
    shown = fg.thin_for_display(cats, max_points)
    x, y, cats = x[shown], y[shown], cats[shown]
    name, scale = time_unit(float(np.median(y)))
    ys = y / scale
    ax.ylog = float(ys.max()) / max(float(ys.min()), 1e-12) > LOG_SPAN
    ax.xlim = limits(x)
    ax.ylim = limits(ys, log=ax.ylog)
    for cat in ("good", "warmup", "first", "outlier"):
        mask = cats == cat
        if mask.any():
            ax.points(x[mask], ys[mask], fg.CATEGORY_COLORS[cat], radius=1.8, opacity=0.7 if cat == "good" else 0.95)
    note = "constant" if row.constant else f"ρ = {row.spearman_rho:.2f}, p (Holm) = {_p(row.spearman_p_adjusted)}"
    ax.note(note, size=10)
    body = ax.frame(title=title, xlabel=f"counter per repetition (sum over ranks)\n{row.source} {row.klass}".strip(),
                    ylabel=f"{quantity} ({name})")
    return svg(PLOT_W, PLOT_H, body, label=f"{row.metric} against {quantity}")
