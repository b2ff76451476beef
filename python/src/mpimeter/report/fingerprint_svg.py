# SPDX-License-Identifier: BSD-3-Clause
"""The fingerprint panels as inline SVG, for the HTML report (one per alternative, op, size).

What: the same panels as the `panels` layout of `fingerprint.draw_fingerprint` (Roth 2021
§4.7): run time per repetition (all, and the bulk without first and outliers, colored by the
categories of §4.5), a box plot, histograms (all, and the bulk), the ECDF and the local duration
per rank; under them a normal Q-Q plot of the log run times and a violin per launch
(`fingerprint_dist_svg`, Hoefler & Belli 2015 §3.1.2 and §5.2). The metadata and statistics blocks of the MPI-MiBFi are HTML next to it.

Why SVG by hand: speed (see `svgplot`); a large campaign has hundreds of fingerprints.
Numbers come from the `FingerprintData` (analysis and stats); histogram bin counts and the
thinning of points are display only.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from mpimeter.report import figures as fg
from mpimeter.report.fingerprint_dist_svg import qq_panel, violin_panel
from mpimeter.report.fingerprint import (LOG_SPAN, MAX_RANK_BOXES, FingerprintData, bulk_mask,
                                         hidden_note, repetition_label)
from mpimeter.report.html import esc
from mpimeter.report.svgplot import Axes, limits, svg
from mpimeter.units import time_unit

WIDTH, HEIGHT = 1040, 812
HIST_BINS = 60
ECDF_POINTS = 400  # evenly spaced ranks: exact at those points, ≥ 2 per pixel column


def fingerprint_svg(data: FingerprintData, *, max_points: int = 3000) -> str:
    """An inline <svg> with the nine panels of the fingerprint of `data`."""
    unit = time_unit(data.summary.median if data.summary.n else np.nan)
    shown = fg.thin_for_display(data.categories, max_points)
    bulk = bulk_mask(data)
    body = [_legend(data),
            _repetitions(Axes(left=64, top=64, width=372, height=160), data, unit, shown, None),
            _repetitions(Axes(left=512, top=64, width=350, height=160), data, unit, shown, bulk),
            _box(Axes(left=930, top=64, width=90, height=160), data, unit),
            _histogram(Axes(left=64, top=330, width=196, height=146), data, unit, None),
            _histogram(Axes(left=326, top=330, width=196, height=146), data, unit, bulk),
            _ecdf(Axes(left=592, top=330, width=190, height=146), data, unit),
            _ranks(Axes(left=850, top=330, width=170, height=146), data, unit),
            qq_panel(Axes(left=64, top=594, width=300, height=146), data, unit),
            violin_panel(Axes(left=460, top=594, width=560, height=146), data, unit)]
    label = f"fingerprint of {data.op} at {data.size} bytes, {data.alternative}"
    return svg(WIDTH, HEIGHT, "".join(body), label=label)


def _legend(data: FingerprintData) -> str:
    counts = Counter(data.categories.tolist())
    x = 64.0
    out = [f'<text x="{x}" y="20" font-size="11.5" fill="#57606a">categories (Roth §4.5), '
           "repetitions per category:</text>"]
    x += 300
    for cat in fg.CATEGORIES:
        out.append(f'<rect x="{x:.0f}" y="11" width="11" height="11" fill="{fg.CATEGORY_COLORS[cat]}"/>'
                   f'<text x="{x + 15:.0f}" y="20.5" font-size="11.5">'
                   f"{esc(fg.CATEGORY_LABELS[cat])} ({counts.get(cat, 0)})</text>")
        x += 130
    return "".join(out)


def _repetitions(ax: Axes, data: FingerprintData, unit, shown, bulk) -> str:
    name, scale = unit
    x = data.positions[shown]
    y = data.run_times_ns[shown] / scale
    cats = data.categories[shown]
    if bulk is None:
        title, order, extra = "Run time per repetition — all", ("good", "warmup", "first", "outlier"), ""
    else:
        keep = bulk[shown]
        x, y, cats = x[keep], y[keep], cats[keep]
        title, order = "Run time per repetition — without first and outliers", ("warmup", "good")
        extra = "\n" + hidden_note(data, bulk)
    xlabel = repetition_label(data, shown).replace(", separated by lines", "")
    if y.size == 0:
        ax.empty("no repetitions")
        return ax.frame(title=title, xlabel=xlabel + extra, ylabel=f"{data.quantity} ({name})",
                        xticks=[], yticks=[])
    ax.ylog = float(y.max()) / max(float(y.min()), 1e-12) > LOG_SPAN
    ax.xlim = (-0.5, data.span - 0.5)
    ax.ylim = limits(y, log=ax.ylog)
    if 1 < data.launch_starts.size <= 60:
        for start in data.launch_starts[1:]:
            ax.vline(start - 0.5)
    radius = 1.3 if y.size > 1500 else 1.8
    for cat in order:
        mask = cats == cat
        if mask.any():
            ax.points(x[mask], y[mask], fg.CATEGORY_COLORS[cat], radius=radius,
                      opacity=0.7 if cat == "good" else 0.95)
    return ax.frame(title=title, xlabel=xlabel + extra, ylabel=f"{data.quantity} ({name})")


def _box(ax: Axes, data: FingerprintData, unit) -> str:
    name, scale = unit
    s = data.summary
    label = "kept repetitions\nbox q1–q3, red median\n◇ mean, × max\nwhiskers min–p99"
    if s.n == 0:
        ax.empty("none kept")
        return ax.frame(title="Box plot", xlabel=label, xticks=[], yticks=[])
    ax.ylog = s.max / max(s.min, 1e-12) > LOG_SPAN
    ax.xlim = (0.0, 2.0)
    ax.ylim = limits([s.min / scale, s.max / scale], log=ax.ylog, pad=0.08)
    ax.box(1.0, 0.3, s.q1 / scale, s.median / scale, s.q3 / scale, s.min / scale, s.p99 / scale,
           mean=s.mean / scale, top=s.max / scale)
    return ax.frame(title="Box plot", xlabel=label, ylabel=f"{data.quantity} ({name})", xticks=[])


def _histogram(ax: Axes, data: FingerprintData, unit, bulk) -> str:
    name, scale = unit
    values = data.run_times_ns / scale
    cats = data.categories
    if bulk is None:
        title, order, xlabel = "Histogram — all", ("good", "warmup", "first", "outlier"), f"{data.quantity} ({name})"
    else:
        values, cats = values[bulk], cats[bulk]
        title, order = "Histogram — bulk", ("good", "warmup")
        xlabel = f"{data.quantity} ({name})\n" + hidden_note(data, bulk, short=True).replace("\n", " ")
    if values.size == 0:
        ax.empty("no repetitions")
        return ax.frame(title=title, xlabel=xlabel, xticks=[], yticks=[])
    lo, hi = float(values.min()), float(values.max())
    if hi <= lo:
        hi = lo + max(abs(lo) * 1e-3, 1e-9)
    edges = np.linspace(lo, hi, HIST_BINS + 1)
    base = np.zeros(HIST_BINS)
    stacks = []
    for cat in order:
        counts, _ = np.histogram(values[cats == cat], bins=edges)  # display binning
        stacks.append((cat, base.copy(), base + counts))
        base = base + counts
    ax.xlim = (lo - (hi - lo) * 0.03, hi + (hi - lo) * 0.03)
    ax.ylim = (0.0, float(base.max()) * 1.06 or 1.0)
    for cat, low, high in stacks:
        ax.bars(edges, low, high, fg.CATEGORY_COLORS[cat])
    return ax.frame(title=title, xlabel=xlabel, ylabel="repetitions")


def _ecdf(ax: Axes, data: FingerprintData, unit) -> str:
    name, scale = unit
    values = np.sort(data.run_times_ns) / scale
    title = "ECDF (all valid repetitions)"
    if values.size == 0:
        ax.empty("no repetitions")
        return ax.frame(title=title, xticks=[], yticks=[])
    n = values.size
    idx = np.unique(np.linspace(0, n - 1, min(n, ECDF_POINTS)).astype(int))
    x, y = values[idx], (idx + 1) / n
    ax.xlog = values[-1] / max(values[0], 1e-12) > LOG_SPAN
    ax.xlim = limits(values, log=ax.xlog, pad=0.03)
    ax.ylim = (0.0, 1.02)
    ax.polyline(np.r_[values[0], x], np.r_[0.0, y], "#0969da", width=1.5, step=True)
    return ax.frame(title=title, xlabel=f"{data.quantity} ({name})", ylabel="fraction ≤ x",
                    yticks=[0.0, 0.25, 0.5, 0.75, 1.0])


def _ranks(ax: Axes, data: FingerprintData, unit) -> str:
    name, scale = unit
    title = "Local duration per rank"
    ranks = data.ranks
    if ranks is None or ranks.ranks.size == 0:
        ax.empty("no per-rank data")
        return ax.frame(title=title, xlabel="--raw reduced", xticks=[], yticks=[])
    n = ranks.ranks.size
    boxes = n <= MAX_RANK_BOXES
    # boxes reach min … p99; the band of many ranks only q1 … q3
    lows = [(s.min if boxes else s.q1) / scale for s in ranks.summaries]
    highs = [(s.p99 if boxes else s.q3) / scale for s in ranks.summaries]
    ax.ylog = max(highs) / max(min(lows), 1e-12) > LOG_SPAN
    lo, hi = limits(lows + highs, log=ax.ylog, pad=0.06)
    # room above the data for the rank-test note
    ax.ylim = (lo, hi * (hi / lo) ** 0.6) if ax.ylog else (lo, hi + 0.6 * (hi - lo))
    slow = set(ranks.slowest)
    if boxes:
        ax.xlim = (-0.6, n - 0.4)
        for i, (rank, s) in enumerate(zip(ranks.ranks.tolist(), ranks.summaries)):
            is_slow = rank in slow
            ax.box(float(i), min(0.3, 0.3 * 8 / max(n, 8)) + 0.05, s.q1 / scale, s.median / scale,
                   s.q3 / scale, s.min / scale, s.p99 / scale,
                   fill="#ffebe9" if is_slow else "#ddf4ff", edge="#cf222e" if is_slow else "#0969da")
        step = max(1, int(np.ceil(n / 12)))
        xticks = list(range(0, n, step))
        frame_args = dict(xticks=xticks, xticklabels=[str(ranks.ranks[i]) for i in xticks],
                          xlabel="rank (box q1–q3, whiskers min–p99)\nfirst and outliers left out")
    else:
        r = ranks.ranks.astype(float)
        ax.xlim = (float(r.min()) - 0.5, float(r.max()) + 0.5)
        med = np.array([s.median for s in ranks.summaries]) / scale
        ax.band(r, np.array([s.q1 for s in ranks.summaries]) / scale,
                np.array([s.q3 for s in ranks.summaries]) / scale, "#0969da")
        ax.polyline(r, med, "#0969da", width=1.0)
        if slow:
            idx = np.isin(ranks.ranks, list(slow))
            ax.points(r[idx], med[idx], "#cf222e", radius=3.0, opacity=1.0)
        frame_args = dict(xlabel="rank (band q1–q3, line median)\nred: slowest; first, outliers left out")
    if ranks.note:
        ax.note(ranks.note, size=10)
    return ax.frame(title=title, ylabel=f"local duration ({name})", **frame_args)
