# SPDX-License-Identifier: BSD-3-Clause
"""The fingerprint's two distribution panels as inline SVG, under the others: the normal Q-Q
plot of the log run times (Hoefler & Belli 2015 §3.1.2) and a violin per launch (§5.2). What
they show is computed once in `fingerprint_dist` (from `fingerprint.qq_of` and
`fingerprint.violins_of`), which the matplotlib fingerprint draws as well; this module only
turns it into SVG.
"""

from __future__ import annotations

import numpy as np

from mpimeter.report import fingerprint_dist as dist
from mpimeter.report.fingerprint import FingerprintData, qq_of, violins_of
from mpimeter.report.svgplot import Axes


def qq_panel(ax: Axes, data: FingerprintData, unit) -> str:
    """Normal Q-Q of every valid repetition's log run time: x the standard-normal quantile, y the
    run time on a log axis (so the log-normal line is straight), the quartile line dashed."""
    shape = qq_of(data, unit)
    if shape is None:
        ax.empty("fewer than 2 repetitions")
        return ax.frame(title=dist.QQ_TITLE, xticks=[], yticks=[])
    ax.ylog, ax.xlim, ax.ylim = shape.ylog, shape.xlim, shape.ylim
    ax.polyline(shape.line_z, shape.line_y, dist.LINE_COLOR, width=1.0, dash="4 3")
    ax.points(shape.z, shape.y, dist.QQ_COLOR, radius=1.8, opacity=0.9)
    return ax.frame(title=dist.QQ_TITLE, xlabel=dist.QQ_XLABEL, ylabel=dist.qq_ylabel(shape, data.quantity, unit[0]),
                    yticks=list(shape.yticks))


def violin_panel(ax: Axes, data: FingerprintData, unit) -> str:
    """One violin per launch, in launch order: the density of its bulk repetitions (not first,
    not outliers, below 2 × the median: ``fingerprint.bulk_mask``), a bar at its median."""
    shapes = violins_of(data, unit)
    if shapes is None:
        ax.empty("no repetitions")
        return ax.frame(title=dist.VIOLIN_TITLE, xticks=[], yticks=[])
    ax.ylog, ax.ylim, ax.xlim = shapes.ylog, shapes.ylim, shapes.xlim
    half = dist.VIOLIN_HALF_WIDTH
    for v in shapes.violins:
        if v.values.size == 1:  # every value equal: a bar, no density
            ax.polyline(np.array([v.slot - half, v.slot + half]), np.r_[v.values, v.values], dist.VIOLIN_COLOR,
                        width=1.6)
            continue
        ax.polygon(np.r_[v.slot - half * v.density, (v.slot + half * v.density)[::-1]],
                   np.r_[v.values, v.values[::-1]], dist.VIOLIN_COLOR, edge=dist.VIOLIN_COLOR)
        ax.polyline(np.array([v.slot - 0.25, v.slot + 0.25]), np.array([v.median, v.median]), dist.MEDIAN_COLOR,
                    width=1.6)
    return ax.frame(title=dist.VIOLIN_TITLE, xlabel=shapes.xlabel, ylabel=f"{data.quantity} ({unit[0]})",
                    xticks=list(shapes.xticks), xticklabels=list(shapes.xticklabels), yticks=list(shapes.yticks))
