# SPDX-License-Identifier: BSD-3-Clause
"""A very small SVG plotting kit for the HTML report: axes with linear or log scales, nice
ticks, points, steps, bars, boxes and text. It exists for speed: a report of 400 fingerprints
must be written in well under a minute, and matplotlib needs ~0.25 s per fingerprint on the
reference machine (most of it rasterizing text), this ~10 ms; the browser draws the text.
The stand-alone fingerprint (`mpimeter fingerprint`, PNG/SVG/PDF) stays with matplotlib.

Everything is drawn in pixel coordinates of one viewBox; every text goes through `esc`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mpimeter.report.html import esc

FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, DejaVu Sans, sans-serif"'
MUTED = "#57606a"
GRID = "#d8dee4"


def nice_step(span: float, target: int) -> float:
    """A step of 1, 2, 2.5 or 5 × 10^k giving about `target` intervals over `span`."""
    if not span > 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(target, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    for mult in (1.0, 2.0, 2.5, 5.0, 10.0):
        if raw <= mult * power * 1.0000001:
            return mult * power
    return 10.0 * power


def linear_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    step = nice_step(hi - lo, target)
    start = math.ceil(lo / step - 1e-9) * step
    ticks = []
    value = start
    while value <= hi + step * 1e-9 and len(ticks) < 50:
        ticks.append(0.0 if abs(value) < step * 1e-9 else value)
        value = start + len(ticks) * step
    return ticks


def log_ticks(lo: float, hi: float) -> list[float]:
    """Powers of ten in [lo, hi]; with 1-2-5 (or finer) when the range spans under 2 decades."""
    lo, hi = max(lo, 1e-300), max(hi, 1e-300)
    ticks: list[float] = []
    for mults in ((1.0,), (1.0, 2.0, 5.0), (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)):
        ticks = [m * 10.0 ** k for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
                 for m in mults if lo * (1 - 1e-9) <= m * 10.0 ** k <= hi * (1 + 1e-9)]
        if len(ticks) >= 3:
            break
    return ticks


def tick_label(value: float, ticks: Sequence[float]) -> str:
    """Enough decimals to tell neighbouring ticks apart, no more."""
    if len(ticks) > 1:
        gaps = [abs(b - a) for a, b in zip(ticks, ticks[1:]) if b != a]
        step = min(gaps) if gaps else abs(value) or 1.0
    else:
        step = abs(value) or 1.0
    decimals = 0
    while decimals < 6 and abs(round(step, decimals) - step) > step * 1e-6:
        decimals += 1
    if abs(value) >= 1e6 or (value != 0 and abs(value) < 1e-4):
        return f"{value:.3g}"
    return f"{value:.{decimals}f}"


@dataclass(kw_only=True)
class Axes:
    """A panel: its pixel box and data limits. `log` scales are base 10."""

    left: float
    top: float
    width: float
    height: float
    xlim: tuple[float, float] = (0.0, 1.0)
    ylim: tuple[float, float] = (0.0, 1.0)
    xlog: bool = False
    ylog: bool = False
    parts: list[str] = field(default_factory=list)

    def _t(self, v, lim, log):
        v = np.asarray(v, dtype=float)
        lo, hi = lim
        if log:
            v, lo, hi = np.log10(np.maximum(v, 1e-300)), math.log10(lo), math.log10(hi)
        return (v - lo) / ((hi - lo) or 1.0)

    def px(self, x) -> np.ndarray:
        return self.left + self._t(x, self.xlim, self.xlog) * self.width

    def py(self, y) -> np.ndarray:
        return self.top + self.height - self._t(y, self.ylim, self.ylog) * self.height

    # -- data -------------------------------------------------------------------------------
    def points(self, x, y, color: str, *, radius: float = 1.6, opacity: float = 0.8) -> None:
        """Dots as one path of zero-length round-capped segments (one element, not n)."""
        if len(x) == 0:
            return
        # whole pixels, each drawn once: a dot of radius ≥ 1.3 px hides the rounding
        pixels = np.unique(np.column_stack([np.rint(self.px(x)), np.rint(self.py(y))]).astype(np.int64),
                           axis=0)
        # relative moves between neighbours (sorted by x): "m1 -7h0" instead of "M123 145h0"
        steps = np.diff(pixels, axis=0).tolist()
        first = pixels[0].tolist()
        d = f"M{first[0]} {first[1]}h0" + "".join(f"m{a} {b}h0" for a, b in steps)
        self.parts.append(f'<path d="{d}" stroke="{color}" stroke-width="{2 * radius:.1f}" '
                          f'stroke-linecap="round" opacity="{opacity}"/>')

    def polyline(self, x, y, color: str, *, width: float = 1.4, dash: str | None = None,
                 step: bool = False) -> None:
        if len(x) == 0:
            return
        xs, ys = self.px(x).tolist(), self.py(y).tolist()
        if step:  # post-step: horizontal to the next x, then vertical
            d = f"M{xs[0]:.1f} {ys[0]:.1f}" + "".join(
                f"H{a:.1f}V{b:.1f}" for a, b in zip(xs[1:], ys[1:]))
        else:
            d = "M" + "L".join(f"{a:.1f} {b:.1f}" for a, b in zip(xs, ys))
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{width}"{extra}/>')

    def bars(self, edges, low, high, color: str, *, opacity: float = 0.9) -> None:
        """Rectangles from `low` to `high` over bins [edges[i], edges[i+1]] (one path)."""
        x0, x1 = self.px(edges[:-1]).tolist(), self.px(edges[1:]).tolist()
        y0, y1 = self.py(low).tolist(), self.py(high).tolist()
        d = "".join(f"M{a:.1f} {c:.1f}V{e:.1f}H{b:.1f}V{c:.1f}Z"
                    for a, b, c, e, lo, hi in zip(x0, x1, y0, y1, low, high) if hi > lo)
        if d:
            self.parts.append(f'<path d="{d}" fill="{color}" opacity="{opacity}"/>')

    def band(self, x, low, high, color: str, *, opacity: float = 0.25) -> None:
        xs, lo, hi = self.px(x).tolist(), self.py(low).tolist(), self.py(high).tolist()
        d = "M" + "L".join(f"{a:.1f} {b:.1f}" for a, b in zip(xs, hi)) + "L" + \
            "L".join(f"{a:.1f} {b:.1f}" for a, b in zip(reversed(xs), reversed(lo))) + "Z"
        self.parts.append(f'<path d="{d}" fill="{color}" opacity="{opacity}"/>')

    def polygon(self, x, y, color: str, *, opacity: float = 0.35, edge: str | None = None) -> None:
        """A closed shape through the points (x, y), filled (a violin's outline)."""
        if len(x) == 0:
            return
        d = "M" + "L".join(f"{a:.1f} {b:.1f}" for a, b in zip(self.px(x).tolist(), self.py(y).tolist())) + "Z"
        stroke = f' stroke="{edge}" stroke-width="0.8"' if edge else ""
        self.parts.append(f'<path d="{d}" fill="{color}" fill-opacity="{opacity}"{stroke}/>')

    def box(self, center: float, half: float, q1, median, q3, low, high, *, mean=None, top=None,
            fill: str = "#ddf4ff", edge: str = "#0969da") -> None:
        """A box (q1–q3) with median, whiskers from `low` to `high`, ◇ mean, × `top`."""
        c = float(self.px([center])[0])
        w = abs(float(self.px([center + half])[0]) - c)
        y = {k: float(self.py([v])[0]) for k, v in
             (("q1", q1), ("m", median), ("q3", q3), ("lo", low), ("hi", high))}
        self.parts.append(
            f'<path d="M{c:.1f} {y["q3"]:.1f}V{y["hi"]:.1f}M{c - w / 2:.1f} {y["hi"]:.1f}h{w:.1f}'
            f'M{c:.1f} {y["q1"]:.1f}V{y["lo"]:.1f}M{c - w / 2:.1f} {y["lo"]:.1f}h{w:.1f}" '
            f'stroke="#1b1f24" stroke-width="1" fill="none"/>'
            f'<rect x="{c - w:.1f}" y="{y["q3"]:.1f}" width="{2 * w:.1f}" '
            f'height="{max(y["q1"] - y["q3"], 0.5):.1f}" fill="{fill}" stroke="{edge}"/>'
            f'<path d="M{c - w:.1f} {y["m"]:.1f}h{2 * w:.1f}" stroke="#cf222e" stroke-width="2"/>')
        if mean is not None:
            m = float(self.py([mean])[0])
            self.parts.append(f'<path d="M{c:.1f} {m - 4:.1f}l4 4l-4 4l-4 -4Z" fill="white" '
                              f'stroke="#1b1f24"/>')
        if top is not None:
            t = float(self.py([top])[0])
            self.parts.append(f'<path d="M{c - 3.5:.1f} {t - 3.5:.1f}l7 7m0 -7l-7 7" '
                              f'stroke="#1b1f24" stroke-width="1.3"/>')

    def vline(self, x: float, color: str = "#8c959f", *, width: float = 0.6) -> None:
        p = float(self.px([x])[0])
        self.parts.append(f'<path d="M{p:.1f} {self.top:.1f}V{self.top + self.height:.1f}" '
                          f'stroke="{color}" stroke-width="{width}"/>')

    def hline(self, y: float, color: str = MUTED, *, width: float = 0.8, dash: str = "2 3") -> None:
        p = float(self.py([y])[0])
        self.parts.append(f'<path d="M{self.left:.1f} {p:.1f}h{self.width:.1f}" stroke="{color}" '
                          f'stroke-width="{width}" stroke-dasharray="{dash}"/>')

    def note(self, text: str, *, x: float = 6, y: float = 14, size: float = 10.5) -> None:
        """Text at a pixel offset from the panel's top left corner, line breaks kept."""
        lines = str(text).split("\n")
        spans = "".join(f'<tspan x="{self.left + x:.1f}" dy="{0 if i == 0 else size * 1.25:.1f}">'
                        f"{esc(line)}</tspan>" for i, line in enumerate(lines))
        self.parts.append(f'<text x="{self.left + x:.1f}" y="{self.top + y:.1f}" '
                          f'font-size="{size}" fill="#1b1f24">{spans}</text>')

    def empty(self, text: str) -> None:
        self.parts.append(f'<text x="{self.left + self.width / 2:.1f}" y="{self.top + self.height / 2:.1f}" '
                          f'text-anchor="middle" font-size="12" fill="{MUTED}">{esc(text)}</text>')

    # -- frame ------------------------------------------------------------------------------
    def frame(self, *, title: str, xlabel: str = "", ylabel: str = "",
              xticks: Sequence[float] | None = None, yticks: Sequence[float] | None = None,
              xticklabels: Sequence[str] | None = None, rotate_x: bool = False) -> str:
        """The panel's axes, grid, ticks, labels and title around its data parts."""
        if xticks is None:
            xticks = log_ticks(*self.xlim) if self.xlog else linear_ticks(*self.xlim)
        if yticks is None:
            yticks = log_ticks(*self.ylim) if self.ylog else linear_ticks(*self.ylim, target=5)
        bottom = self.top + self.height
        out = []
        for t in yticks:
            p = float(self.py([t])[0])
            out.append(f'<path d="M{self.left:.1f} {p:.1f}h{self.width:.1f}" stroke="{GRID}" '
                       f'stroke-width="0.7"/>')
            out.append(f'<text x="{self.left - 5:.1f}" y="{p + 3.5:.1f}" text-anchor="end" '
                       f'font-size="10.5">{esc(tick_label(t, yticks))}</text>')
        labels = xticklabels or [tick_label(t, xticks) for t in xticks]
        for t, label in zip(xticks, labels):
            p = float(self.px([t])[0])
            out.append(f'<path d="M{p:.1f} {bottom:.1f}v4" stroke="#1b1f24" stroke-width="0.8"/>')
            if rotate_x:
                out.append(f'<text transform="translate({p + 3:.1f},{bottom + 13:.1f}) rotate(-35)" '
                           f'text-anchor="end" font-size="10">{esc(label)}</text>')
            else:
                out.append(f'<text x="{p:.1f}" y="{bottom + 15:.1f}" text-anchor="middle" '
                           f'font-size="10.5">{esc(label)}</text>')
        out.extend(self.parts)
        out.append(f'<path d="M{self.left:.1f} {self.top:.1f}V{bottom:.1f}H{self.left + self.width:.1f}" '
                   f'stroke="#1b1f24" stroke-width="0.9" fill="none"/>')
        out.append(f'<text x="{self.left:.1f}" y="{self.top - 8:.1f}" font-size="12.5" '
                   f'font-weight="bold">{esc(title)}</text>')
        for i, line in enumerate(xlabel.split("\n") if xlabel else []):
            y = bottom + (40 if rotate_x else 31) + 13 * i
            style = 'font-size="11.5"' if i == 0 else f'font-size="10.5" fill="{MUTED}"'
            out.append(f'<text x="{self.left + self.width / 2:.1f}" y="{y:.1f}" text-anchor="middle" '
                       f'{style}>{esc(line)}</text>')
        if ylabel:
            x = self.left - 44
            y = self.top + self.height / 2
            out.append(f'<text transform="translate({x:.1f},{y:.1f}) rotate(-90)" text-anchor="middle" '
                       f'font-size="11.5">{esc(ylabel)}</text>')
        return "".join(out)


def limits(values, *, log: bool = False, pad: float = 0.05, floor_zero: bool = False) -> tuple[float, float]:
    """Data limits with a margin (multiplicative on log scales)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & ((v > 0) if log else True)]
    if v.size == 0:
        return (1.0, 10.0) if log else (0.0, 1.0)
    lo, hi = float(v.min()), float(v.max())
    if log:
        if hi <= lo:
            return lo / 1.5, hi * 1.5
        ratio = (hi / lo) ** pad
        return lo / ratio, hi * ratio
    if hi <= lo:
        margin = abs(lo) * 0.05 or 1.0
        return (0.0 if floor_zero else lo - margin), hi + margin
    margin = (hi - lo) * pad
    return (0.0 if floor_zero else lo - margin), hi + margin


def svg(width: int, height: int, body: str, *, label: str) -> str:
    """An inline <svg> scaled to its container's width."""
    # inline in HTML: no xmlns needed (and no URL in the page at all)
    return (f'<svg viewBox="0 0 {width} {height}" '
            f'width="100%" role="img" aria-label="{esc(label)}" {FONT} font-size="11" '
            f'fill="#1b1f24" class="plot">{body}</svg>')
