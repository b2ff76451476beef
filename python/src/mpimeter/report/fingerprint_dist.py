# SPDX-License-Identifier: BSD-3-Clause
"""The fingerprint's two distribution panels, for both of its formats: the normal Q-Q plot of
the log run times (Hoefler & Belli 2015 §3.1.2: log-normalization, and a Q-Q plot to check
normality beside any test) and a violin per launch (§5.2, "Histograms and violin plots": the
density of each launch's run times, its median marked), so that launches that differ in
shape, not only in level, show.

What is drawn is computed once here — `qq_shape` and `violin_shapes` turn the run times into the
points, lines, outlines, limits and labels of a panel — and drawn twice: by `draw_qq` and
`draw_violins` on matplotlib axes (`fingerprint.draw_fingerprint`: `mpimeter fingerprint`, PNG,
SVG, PDF) and by `fingerprint_dist_svg` in the HTML report's inline SVG. The numbers are
``mpimeter.stats.distplots``'; the thinning of the Q-Q points and the first `MAX_VIOLINS`
launches are display only. The selection of the repetitions (all valid ones for the Q-Q, the
bulk of each launch for the violins) is `fingerprint.qq_of` and `fingerprint.violins_of`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.ticker import NullLocator

from mpimeter.report import figures as fg
from mpimeter.report.svgplot import limits, linear_ticks, log_ticks, tick_label
from mpimeter.stats.distplots import normal_qq, violin_density

QQ_TITLE = "Normal Q-Q of log run times"
VIOLIN_TITLE = "Violin per launch — bulk"
QQ_POINTS = 400  # evenly spaced ranks, both ends kept
MAX_VIOLINS = 40  # launches drawn; beyond, the first ones and a note
QQ_COLOR, VIOLIN_COLOR, MEDIAN_COLOR, LINE_COLOR = "#0969da", "#8250df", "#cf222e", "#8c959f"
VIOLIN_HALF_WIDTH = 0.42  # of a slot of width 1
QQ_XLABEL = "standard normal quantile\non the dashed line: log-normal"
NARROW = 1.5  # a Q-Q over a narrower range than this factor gets a linear axis


@dataclass(frozen=True, kw_only=True)
class QQShape:
    """The Q-Q panel as drawn: ``z`` the standard-normal quantiles of the points shown, ``y``
    their run times (display unit), the reference line from ``line_z`` to ``line_y`` (dashed),
    the axis limits, whether y is on a log axis and its ticks."""

    z: np.ndarray
    y: np.ndarray
    line_z: np.ndarray
    line_y: np.ndarray
    xlim: tuple[float, float]
    ylim: tuple[float, float]
    ylog: bool
    yticks: tuple[float, ...]


def qq_shape(values: np.ndarray) -> QQShape | None:
    """The normal Q-Q of the logs of the positive ``values`` (run times in the display unit), at
    most `QQ_POINTS` evenly spaced ranks of it; None for fewer than 2 values. y is on a log axis
    (the log-normal line is straight) unless the values span less than `NARROW`, where linear
    ticks read better and the shape is the same."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    if values.size < 2:
        return None
    qq = normal_qq(np.log(values))
    idx = np.unique(np.linspace(0, qq.sample.size - 1, min(qq.sample.size, QQ_POINTS)).astype(int))
    z, y = qq.theoretical[idx], np.exp(qq.sample[idx])
    xlim = (float(qq.theoretical[0]) - 0.2, float(qq.theoretical[-1]) + 0.2)
    ylog = float(y.max()) / float(y.min()) >= NARROW
    line_z = np.array(xlim)
    ylim = limits(y, log=ylog, pad=0.05)
    return QQShape(z=z, y=y, line_z=line_z, line_y=np.exp(qq.intercept + qq.slope * line_z), xlim=xlim,
                   ylim=ylim, ylog=ylog, yticks=y_ticks(ylim, log=ylog))


def y_ticks(ylim: tuple[float, float], *, log: bool) -> tuple[float, ...]:
    """The y ticks of a panel, as the SVG kit places them (1-2-5 within a decade on a log axis)."""
    return tuple(log_ticks(*ylim) if log else linear_ticks(*ylim, target=5))


def qq_ylabel(shape: QQShape, quantity: str, unit_name: str) -> str:
    return f"{quantity} ({unit_name}, log)" if shape.ylog else f"{quantity} ({unit_name})"


@dataclass(frozen=True)
class Violin:
    """One launch's violin: its outline is ``slot ± VIOLIN_HALF_WIDTH · density`` over
    ``values`` (display unit, ascending); one value (all equal) is a bar without density."""

    launch: int  # 1-based, in launch order
    slot: int  # x position, 0-based
    values: np.ndarray
    density: np.ndarray  # peak 1
    median: float


@dataclass(frozen=True, kw_only=True)
class ViolinShapes:
    violins: tuple[Violin, ...]
    ylog: bool
    ylim: tuple[float, float]
    yticks: tuple[float, ...]
    xlim: tuple[float, float]
    xticks: tuple[int, ...]
    xticklabels: tuple[str, ...]
    xlabel: str


def violin_shapes(groups: list[np.ndarray], *, log_span: float) -> ViolinShapes | None:
    """The violins of the first `MAX_VIOLINS` launches with values, ``groups`` the run times of
    each launch (display unit, in launch order; an empty one is skipped). The density is of the
    logs when the values span more than ``log_span`` (then y is on a log axis); None when no
    launch has a value."""
    shown = [(i, g) for i, g in enumerate(groups) if g.size][:MAX_VIOLINS]
    if not shown:
        return None
    allv = np.concatenate([g for _, g in shown])
    ylog = float(allv.max()) / max(float(allv.min()), 1e-12) > log_span
    violins = []
    for slot, (i, g) in enumerate(shown):
        grid, dens = violin_density(np.log(g) if ylog else g)
        violins.append(Violin(launch=i + 1, slot=slot, values=np.exp(grid) if ylog else grid, density=dens,
                              median=float(np.median(g))))
    step = max(1, int(np.ceil(len(shown) / 12)))
    ticks = tuple(range(0, len(shown), step))
    more = sum(1 for g in groups if g.size) - len(shown)
    xlabel = "launch, in order (red: its median)" + (
        f"\nthe first {len(shown)} launches; {more} more not drawn" if more else "")
    ylim = limits(allv, log=ylog, pad=0.05)
    return ViolinShapes(violins=tuple(violins), ylog=ylog, ylim=ylim, yticks=y_ticks(ylim, log=ylog),
                        xlim=(-0.6, len(shown) - 0.4), xticks=ticks,
                        xticklabels=tuple(str(violins[t].launch) for t in ticks), xlabel=xlabel)


# ---------------------------------------------------------------------------------------------
# matplotlib (the stand-alone fingerprint)


def draw_qq(ax, shape: QQShape | None, *, ylabel: str) -> None:
    ax.set_title(QQ_TITLE, loc="left", y=1.0, pad=5)
    if shape is None:
        fg.empty_panel(ax, "fewer than 2 repetitions")
        return
    ax.plot(shape.line_z, shape.line_y, color=LINE_COLOR, linewidth=1.0, linestyle=(0, (4, 3)))
    ax.scatter(shape.z, shape.y, s=6, color=QQ_COLOR, linewidths=0, alpha=0.9, rasterized=True)
    _y_axis(ax, shape.ylog, shape.ylim, shape.yticks)
    ax.set_xlim(*shape.xlim)
    ax.set_xlabel(QQ_XLABEL)
    ax.set_ylabel(ylabel)


def draw_violins(ax, shapes: ViolinShapes | None, *, ylabel: str) -> None:
    ax.set_title(VIOLIN_TITLE, loc="left", y=1.0, pad=5)
    if shapes is None:
        fg.empty_panel(ax, "no repetitions")
        return
    half = VIOLIN_HALF_WIDTH
    for v in shapes.violins:
        if v.values.size == 1:  # every value equal: a bar, no density
            ax.hlines(v.values[0], v.slot - half, v.slot + half, color=VIOLIN_COLOR, linewidth=1.6)
            continue
        ax.fill_betweenx(v.values, v.slot - half * v.density, v.slot + half * v.density, color=VIOLIN_COLOR,
                         alpha=0.35, linewidth=0.8, edgecolor=VIOLIN_COLOR)
        ax.hlines(v.median, v.slot - 0.25, v.slot + 0.25, color=MEDIAN_COLOR, linewidth=1.6)
    _y_axis(ax, shapes.ylog, shapes.ylim, shapes.yticks)
    ax.set_xlim(*shapes.xlim)
    ax.set_xticks(shapes.xticks, shapes.xticklabels)
    ax.set_xlabel(shapes.xlabel)
    ax.set_ylabel(ylabel)


def _y_axis(ax, log: bool, ylim: tuple[float, float], ticks: tuple[float, ...]) -> None:
    """The y axis with the panel's own ticks, labelled as in the SVG (matplotlib's log labels
    would read 8 × 10⁰ within a decade)."""
    if log:
        ax.set_yscale("log")
        ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylim(*ylim)
    ax.set_yticks(ticks, [tick_label(t, ticks) for t in ticks])
