# SPDX-License-Identifier: BSD-3-Clause
"""Two distribution panels of the fingerprint, as inline SVG under the others: the normal Q-Q
plot of the log run times (Hoefler & Belli 2015 §3.1.2: log-normalization, and a Q-Q plot to
check normality beside any test) and a violin per launch (§5.2, "Histograms and violin plots":
the density of each launch's run times, its median marked), so that launches that differ in
shape, not only in level, show. Numbers from ``mpimeter.stats.distplots``; thinning is display
only.
"""

from __future__ import annotations

import numpy as np

from mpimeter.report.fingerprint import LOG_SPAN, FingerprintData, bulk_mask
from mpimeter.report.svgplot import Axes, limits
from mpimeter.stats.distplots import normal_qq, violin_density

QQ_POINTS = 400  # evenly spaced ranks, both ends kept
MAX_VIOLINS = 40  # launches drawn; beyond, the first ones and a note
QQ_COLOR, VIOLIN_COLOR = "#0969da", "#8250df"


def qq_panel(ax: Axes, data: FingerprintData, unit) -> str:
    """Normal Q-Q of every valid repetition's log run time: x the standard-normal quantile, y the
    run time on a log axis (so the log-normal line is straight), the quartile line dashed."""
    name, scale = unit
    title = "Normal Q-Q of log run times"
    values = data.run_times_ns[data.run_times_ns > 0] / scale
    if values.size < 2:
        ax.empty("fewer than 2 repetitions")
        return ax.frame(title=title, xticks=[], yticks=[])
    qq = normal_qq(np.log(values))
    idx = np.unique(np.linspace(0, qq.sample.size - 1, min(qq.sample.size, QQ_POINTS)).astype(int))
    z, y = qq.theoretical[idx], np.exp(qq.sample[idx])
    ax.ylog = True
    ax.xlim = (float(qq.theoretical[0]) - 0.2, float(qq.theoretical[-1]) + 0.2)
    ax.ylim = limits(y, log=True, pad=0.05)
    if float(y.max()) / float(y.min()) < 1.5:  # a narrow range: linear ticks read better, the shape is the same
        ax.ylog = False
        ax.ylim = limits(y, pad=0.05)
    ends = np.array(ax.xlim)
    ax.polyline(ends, np.exp(qq.intercept + qq.slope * ends), "#8c959f", width=1.0, dash="4 3")
    ax.points(z, y, QQ_COLOR, radius=1.8, opacity=0.9)
    return ax.frame(title=title, xlabel="standard normal quantile\non the dashed line: log-normal",
                    ylabel=f"{data.quantity} ({name}, log)" if ax.ylog else f"{data.quantity} ({name})")


def violin_panel(ax: Axes, data: FingerprintData, unit) -> str:
    """One violin per launch, in launch order: the density of its bulk repetitions (not first,
    not outliers, below 2 × the median: ``fingerprint.bulk_mask``), a bar at its median."""
    name, scale = unit
    title = "Violin per launch — bulk"
    bulk = bulk_mask(data)
    launch_of = np.searchsorted(data.launch_starts, data.positions, side="right") - 1
    groups = [data.run_times_ns[bulk & (launch_of == i)] / scale for i in range(data.launch_starts.size)]
    shown = [(i, g) for i, g in enumerate(groups) if g.size][:MAX_VIOLINS]
    if not shown:
        ax.empty("no repetitions")
        return ax.frame(title=title, xticks=[], yticks=[])
    allv = np.concatenate([g for _, g in shown])
    ax.ylog = float(allv.max()) / max(float(allv.min()), 1e-12) > LOG_SPAN
    ax.ylim = limits(allv, log=ax.ylog, pad=0.05)
    ax.xlim = (-0.6, len(shown) - 0.4)
    half = 0.42
    for slot, (_, g) in enumerate(shown):
        grid, dens = violin_density(np.log(g) if ax.ylog else g)
        ys = np.exp(grid) if ax.ylog else grid
        if ys.size == 1:  # every value equal: a bar, no density
            ax.polyline(np.array([slot - half, slot + half]), np.r_[ys, ys], VIOLIN_COLOR, width=1.6)
            continue
        ax.polygon(np.r_[slot - half * dens, (slot + half * dens)[::-1]], np.r_[ys, ys[::-1]], VIOLIN_COLOR,
                   edge=VIOLIN_COLOR)
        med = float(np.median(g))
        ax.polyline(np.array([slot - 0.25, slot + 0.25]), np.array([med, med]), "#cf222e", width=1.6)
    step = max(1, int(np.ceil(len(shown) / 12)))
    ticks = list(range(0, len(shown), step))
    more = len([g for g in groups if g.size]) - len(shown)
    xlabel = "launch, in order (red: its median)" + (f"\nthe first {len(shown)} launches; {more} more not drawn" if more else "")
    return ax.frame(title=title, xlabel=xlabel, ylabel=f"{data.quantity} ({name})", xticks=ticks,
                    xticklabels=[str(shown[i][0] + 1) for i in ticks])
