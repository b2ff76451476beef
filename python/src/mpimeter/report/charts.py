# SPDX-License-Identifier: BSD-3-Clause
"""Inline-SVG charts built on ``svgplot``, for the report's "Model and bounds" and scaling
sections and the static site (``mpimeter site``): time against message size on log axes (medians
with their intervals, fitted lines and bounds), time against the number of processes, and a history (the median of each campaign with its
interval, in time order, flagged points ringed). Drawing only: every number comes from the
analysis; the browser draws the text, so a page of a hundred charts loads at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mpimeter.report import svgplot as sp
from mpimeter.report.html import esc, tag
from mpimeter.units import format_bytes, time_unit

FLAG_COLOR = "#cf222e"


@dataclass(frozen=True, kw_only=True)
class Series:
    """Points with intervals (None where a point has none), drawn as dots with whiskers."""

    name: str
    color: str
    x: Sequence[float]
    y: Sequence[float]
    low: Sequence[float | None] = ()
    high: Sequence[float | None] = ()
    flagged: Sequence[bool] = ()  # ringed in red (history: the gate would have failed)
    joined: bool = False  # a thin line through the points (along time; never across sizes)


@dataclass(frozen=True, kw_only=True)
class Line:
    """A curve drawn through its points (a fitted segment, a bound)."""

    name: str
    color: str
    x: Sequence[float]
    y: Sequence[float]
    dash: str | None = None
    width: float = 1.5
    legend: bool = True


@dataclass
class _Legend:
    # name, color, dash, mark: "dot" (points), "line" (a curve), "ring" (flagged points)
    entries: list[tuple[str, str, str | None, str]] = field(default_factory=list)

    def add(self, name: str, color: str, dash: str | None, mark: str) -> None:
        if all(e[0] != name for e in self.entries):
            self.entries.append((name, color, dash, mark))

    def html(self) -> str:
        items = []
        for name, color, dash, kind in self.entries:
            mark = {"dot": f'<circle cx="9" cy="6" r="3.5" fill="{color}"/>',
                    "ring": f'<circle cx="9" cy="6" r="4.5" fill="none" stroke="{color}" stroke-width="1.6"/>'}.get(
                kind, f'<path d="M1 6h16" stroke="{color}" stroke-width="2"'
                      + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
            items.append(tag("span", f'<svg viewBox="0 0 18 12" width="18" height="12">{mark}</svg> ' + esc(name),
                             class_="legend-item"))
        return tag("div", "".join(items), class_="legend")


def _whiskers(ax: sp.Axes, x, low, high, color: str) -> None:
    d = "".join(f"M{px:.1f} {pl:.1f}V{ph:.1f}" for px, pl, ph in
                zip(ax.px(x).tolist(), ax.py(low).tolist(), ax.py(high).tolist()))
    if d:
        ax.parts.append(f'<path d="{d}" stroke="{color}" stroke-width="1.2"/>')


def _rings(ax: sp.Axes, x, y) -> None:
    for px, py in zip(ax.px(x).tolist(), ax.py(y).tolist()):
        ax.parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="6" fill="none" stroke="{FLAG_COLOR}" '
                        'stroke-width="1.8"/>')


def _draw_series(ax: sp.Axes, s: Series, scale: float, legend: _Legend) -> None:
    x = np.asarray(s.x, dtype=float)
    y = np.asarray(s.y, dtype=float) / scale
    if s.joined and len(x) > 1:
        ax.polyline(x, y, s.color, width=0.8)
    lows = [(lo if lo is not None else np.nan) for lo in (s.low or [None] * len(x))]
    highs = [(hi if hi is not None else np.nan) for hi in (s.high or [None] * len(x))]
    lo, hi = np.asarray(lows, dtype=float) / scale, np.asarray(highs, dtype=float) / scale
    ok = np.isfinite(lo) & np.isfinite(hi)
    _whiskers(ax, x[ok], lo[ok], hi[ok], s.color)
    ax.points(x, y, s.color, radius=3.0, opacity=0.95)
    flags = np.asarray(list(s.flagged) or [False] * len(x), dtype=bool)
    if flags.any():
        _rings(ax, x[flags], y[flags])
    legend.add(s.name, s.color, None, "dot")


def size_chart(series: Sequence[Series], lines: Sequence[Line] = (), *, title: str, quantity: str = "run time",
               width: int = 760, height: int = 380) -> str:
    """Time against size in bytes, both axes logarithmic; an SVG followed by its legend."""
    values = [v for s in series for v in list(s.y) + [u for u in list(s.low) + list(s.high) if u is not None]]
    values += [v for ln in lines for v in ln.y]
    values = [v for v in values if v is not None and np.isfinite(v) and v > 0]
    sizes = [max(float(v), 1.0) for s in series for v in s.x] + [max(float(v), 1.0) for ln in lines for v in ln.x]
    name, scale = time_unit(float(np.sqrt(min(values) * max(values))) if values else np.nan)
    ax = sp.Axes(left=64, top=34, width=width - 84, height=height - 86, xlog=True, ylog=True,
                 xlim=sp.limits(sizes, log=True), ylim=sp.limits(np.array(values) / scale, log=True))
    legend = _Legend()
    if not values:
        ax.empty("no data")
    for ln in lines:
        x = np.maximum(np.asarray(ln.x, dtype=float), 1.0)
        ax.polyline(x, np.asarray(ln.y, dtype=float) / scale, ln.color, width=ln.width, dash=ln.dash)
        if ln.legend:
            legend.add(ln.name, ln.color, ln.dash, "line")
    for s in series:
        _draw_series(ax, s, scale, legend)
    ticks = [t for t in (2.0 ** np.arange(0, 41, 2)) if ax.xlim[0] <= t <= ax.xlim[1]]
    body = ax.frame(title=title, xlabel="message size", ylabel=f"{quantity} ({name})", xticks=ticks,
                    xticklabels=[format_bytes(int(t)) for t in ticks], rotate_x=True)
    return sp.svg(width, height, body, label=title) + legend.html()


def p_chart(series: Sequence[Series], lines: Sequence[Line] = (), *, title: str, quantity: str = "run time",
            width: int = 760, height: int = 380) -> str:
    """Time (log axis) against the number of processes p (linear axis, a tick at every p shown);
    an SVG followed by its legend (the report's scaling figure)."""
    values = [v for s in series for v in list(s.y) + [u for u in list(s.low) + list(s.high) if u is not None]]
    values += [v for ln in lines for v in ln.y]
    values = [v for v in values if v is not None and np.isfinite(v) and v > 0]
    counts = sorted({float(v) for s in series for v in s.x} | {float(v) for ln in lines for v in ln.x})
    name, scale = time_unit(float(np.sqrt(min(values) * max(values))) if values else np.nan)
    lo, hi = (counts[0], counts[-1]) if counts else (1.0, 2.0)
    pad = max((hi - lo) * 0.06, 0.25)
    ax = sp.Axes(left=64, top=34, width=width - 84, height=height - 86, ylog=True, xlim=(lo - pad, hi + pad),
                 ylim=sp.limits(np.array(values) / scale, log=True))
    legend = _Legend()
    if not values:
        ax.empty("no data")
    for ln in lines:
        ax.polyline(np.asarray(ln.x, dtype=float), np.asarray(ln.y, dtype=float) / scale, ln.color, width=ln.width,
                    dash=ln.dash)
        if ln.legend:
            legend.add(ln.name, ln.color, ln.dash, "line")
    for s in series:
        _draw_series(ax, s, scale, legend)
    body = ax.frame(title=title, xlabel="processes p", ylabel=f"{quantity} ({name})", xticks=counts,
                    xticklabels=[f"{c:g}" for c in counts])
    return sp.svg(width, height, body, label=title) + legend.html()


def history_chart(series: Sequence[Series], *, title: str, labels: Sequence[str], width: int = 760,
                  height: int = 320) -> str:
    """Medians in time order (x: 0, 1, … with ``labels``), linear time axis from 0; flagged
    points ringed in red."""
    values = [v for s in series for v in list(s.y) + [u for u in list(s.high) if u is not None]]
    values = [v for v in values if v is not None and np.isfinite(v)]
    name, scale = time_unit(float(np.median(values)) if values else np.nan)
    n = max(len(labels), 1)
    ax = sp.Axes(left=64, top=34, width=width - 84, height=height - 96, xlim=(-0.5, n - 0.5),
                 ylim=sp.limits(np.array(values) / scale, floor_zero=True))
    legend = _Legend()
    for s in series:
        _draw_series(ax, s, scale, legend)
    if any(any(s.flagged) for s in series):
        legend.add("gate would have failed against the campaign before", FLAG_COLOR, None, "ring")
    step = max(1, n // 12)
    ticks = list(range(0, n, step))
    body = ax.frame(title=title, xlabel="campaign (oldest first)", ylabel=f"median ({name})", xticks=ticks,
                    xticklabels=[labels[i] for i in ticks], rotate_x=True)
    return sp.svg(width, height, body, label=title) + legend.html()
