# SPDX-License-Identifier: BSD-3-Clause
"""The per-operation figure of the report: run time against size, the distribution of
per-launch medians (alternatives side by side, with the significance stars of `compare`), and
the launch-to-launch spread.

What and why:
- (a) run time against size on log axes: the median of per-launch medians with its confidence
  interval at each size (Hoefler & Belli 2015 §5.2, "plotting CIs"). Points are the data; the
  thin dashed lines only guide the eye along message size, where interpolation is valid
  (rule 12).
- (b) the per-launch medians of every launch at every size (Hunold & Carpen-Amarie 2016,
  Fig. 10), shown relative to the reference alternative's median at that size so that all
  sizes share one axis; alternatives side by side with the stars of the Wilcoxon rank-sum test
  after Holm correction (Fig. 11 for one-sided hypotheses).
- (c) the launch-to-launch spread: each launch's median relative to the median across launches,
  launches in the order they ran (drifts and bad launches show as colored columns; Fig. 12).

All numbers come from `mpimeter.analysis` rows and comparison rows; dividing by a reported
median is a change of unit for display, not a statistic.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mpimeter.analysis.results import time_quantity
from mpimeter.report import figures as fg
from mpimeter.units import format_bytes, format_size, size_axis_label, time_unit


def alternative_color(alternatives: Sequence[str], name: str) -> str:
    return fg.ALTERNATIVE_COLORS[list(alternatives).index(name) % len(fg.ALTERNATIVE_COLORS)]


def draw_operation(op: str, rows: Sequence, alternatives: Sequence[str],
                   comparison_rows: Sequence = (), *, hypothesis: str = "two-sided",
                   size_unit: str = "bytes", added: frozenset = frozenset()) -> "fg.Figure":
    """The figure for one operation. `rows`: the `analysis.Row`s of this op (any alternatives);
    `comparison_rows`: the `analysis.ComparisonRow`s of this op; `size_unit`: what its sizes
    are (`AnalysisResult.size_unit`); `added`: (alternative, size) that --sizes auto added,
    drawn as hollow diamonds."""
    rows = [r for r in rows if r.op == op]
    alts = [a for a in alternatives if any(r.alternative == a for r in rows)]
    sizes = sorted({r.size for r in rows})
    by_key = {(r.alternative, r.size): r for r in rows}
    fig = fg.new_figure(13.0, 9.0)
    with fg.styled():
        grid = fig.add_gridspec(2, 2, left=0.075, right=0.93, top=0.93, bottom=0.09,
                                hspace=0.42, wspace=0.22, width_ratios=[1.0, 1.0])
        quantity = time_quantity(any(r.one_way for r in rows))
        fig.suptitle(f"{op}: {quantity} across sizes and launches", x=0.075, ha="left",
                     fontsize=13, fontweight="bold")
        _size_panel(fig.add_subplot(grid[0, 0]), size_unit, sizes, alts, by_key, quantity, added)
        _spread_panel(fig, fig.add_subplot(grid[0, 1]), size_unit, sizes, alts, by_key)
        _launch_median_panel(fig.add_subplot(grid[1, :]), size_unit, sizes, alts, by_key,
                             comparison_rows, hypothesis)
    return fig


def _size_panel(ax, unit, sizes, alts, by_key, quantity: str, added: frozenset = frozenset()) -> None:
    ax.set_title("(a) median of launch medians, with its confidence interval", loc="left",
                 y=1.0, pad=5)
    medians = [r.median_ns for r in by_key.values() if np.isfinite(r.median_ns) and r.median_ns > 0]
    # the unit of the geometric middle of the range: labels read 0.1 … 1000
    name, scale = time_unit(float(np.sqrt(min(medians) * max(medians))) if medians else np.nan)
    offsets = dodge(len(alts), 0.06)
    for alt, off in zip(alts, offsets):
        xs, ys, lo, hi, added_xy = [], [], [], [], []
        for size in sizes:
            row = by_key.get((alt, size))
            if row is None or not np.isfinite(row.median_ns):
                continue
            x = max(size, 1) * 2.0 ** off
            y = row.median_ns / scale
            xs.append(x)
            ys.append(y)
            if (alt, size) in added:
                added_xy.append((x, y))
            has_ci = row.median_ci_low_ns is not None and row.median_ci_high_ns is not None
            lo.append(y - row.median_ci_low_ns / scale if has_ci else 0.0)
            hi.append(row.median_ci_high_ns / scale - y if has_ci else 0.0)
        if not xs:
            continue
        color = alternative_color(alts, alt)
        ax.plot(xs, ys, linestyle=(0, (3, 3)), linewidth=0.8, color=color, alpha=0.6)
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", markersize=4.5, color=color, capsize=3,
                    elinewidth=1.2, label=alt)
        if added_xy:  # --sizes auto chose these sizes while the launches ran
            ax.scatter(*zip(*added_xy), marker="D", s=46, facecolors="white", edgecolors=color,
                       linewidths=1.3, zorder=3, label=f"{alt}: added size")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    if medians and max(medians) / min(medians) < 100:  # under two decades: label 1-2-5 too
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
        ax.yaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    size_ticks(ax, unit, sizes)
    ax.set_xlabel(size_axis_label([unit]))
    ax.set_ylabel(f"{quantity} ({name})")
    if has_labels(ax):
        ax.legend(loc="upper left", title="points: median, bars: CI;\ndashed: guide only",
                  title_fontsize=7.5)
    else:
        nothing_to_plot(ax)


def size_ticks(ax, unit, sizes) -> None:
    positive = [s for s in sizes if s > 0]
    if not positive:
        return
    ticks = positive
    if len(positive) > 8:  # keep labels apart: every k-th size
        step = int(np.ceil(len(positive) / 8))
        ticks = positive[::step]
    ax.set_xticks(ticks, [format_size(s, unit) for s in ticks],
                  rotation=30 if len(ticks) > 5 else 0, ha="right" if len(ticks) > 5 else "center")
    ax.minorticks_off()


def dodge(n: int, width: float) -> list[float]:
    if n <= 1:
        return [0.0] * n
    return list(np.linspace(-width * (n - 1) / 2, width * (n - 1) / 2, n))


def _launch_median_panel(ax, unit, sizes, alts, by_key, comparison_rows, hypothesis) -> None:
    reference = alts[0] if alts else ""
    ax.set_title(f"(b) per-launch medians (one dot per launch) relative to the median of "
                 f"{reference} at each size; bar: median and CI", loc="left", y=1.0, pad=5)
    width = 0.8 / max(len(alts), 1)
    rng = np.random.default_rng(0)  # horizontal jitter for display only
    shown = []  # every ratio drawn
    for i, alt in enumerate(alts):
        color = alternative_color(alts, alt)
        xs, ys, centers, mids, ci_x, ci_lo, ci_hi = [], [], [], [], [], [], []
        for j, size in enumerate(sizes):
            row = by_key.get((alt, size))
            ref = by_key.get((reference, size)) or row
            if row is None or ref is None or not ref.median_ns > 0:
                continue
            center = j + (i - (len(alts) - 1) / 2) * width
            values = np.array([s.median_ns for s in row.per_launch], dtype=float) / ref.median_ns
            xs.append(center + rng.uniform(-0.3, 0.3, values.size) * width)
            ys.append(values)
            centers.append(center)
            mids.append(row.median_ns / ref.median_ns)
            if row.median_ci_low_ns is not None and row.median_ci_high_ns is not None:
                ci_x.append(center)
                ci_lo.append(row.median_ci_low_ns / ref.median_ns)
                ci_hi.append(row.median_ci_high_ns / ref.median_ns)
        if not xs:
            continue
        shown.extend(ys)
        ax.scatter(np.concatenate(xs), np.concatenate(ys), s=9, color=color, alpha=0.55,
                   linewidths=0, label=alt)
        centers = np.array(centers)
        ax.hlines(mids, centers - 0.4 * width, centers + 0.4 * width, color=color, linewidth=2)
        if ci_x:
            ax.vlines(ci_x, ci_lo, ci_hi, color=color, linewidth=1.2)
    ratios = np.concatenate(shown) if shown else np.zeros(0)
    ratios = ratios[np.isfinite(ratios)]
    if ratios.size and ratios.min() > 0 and ratios.max() / ratios.min() > 2.5:
        # a launch far off (a bad mpirun) would flatten everything else: ratios on a log axis
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

        ax.set_yscale("log")
        decades = np.log10(ratios.max() / ratios.min())
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0,) if decades > 2 else (1.0, 2.0, 5.0)))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    _headroom(ax, 0.45)  # the legend and the stars above the data
    _stars(ax, sizes, alts, comparison_rows)
    ax.axhline(1.0, color="#57606a", linewidth=0.7, linestyle=":")
    ax.set_xlim(-0.6, len(sizes) - 0.4)
    ax.set_xticks(range(len(sizes)), [format_size(s, unit) for s in sizes],
                  rotation=30 if len(sizes) > 8 else 0, ha="right" if len(sizes) > 8 else "center")
    ax.set_xlabel(size_axis_label([unit]))
    ax.set_ylabel(f"per-launch median / median of {reference}")
    ax.grid(axis="x", visible=False)
    title = "one dot per launch"
    if len(alts) > 1:
        note = {"two-sided": "two-sided", "less": f"one-sided, H1: {reference} faster",
                "greater": f"one-sided, H1: {reference} slower"}.get(hypothesis, hypothesis)
        title = (f"stars: Wilcoxon rank-sum on launch medians ({note}), Holm-corrected: "
                 "* ≤ .05, ** ≤ .01, *** ≤ .001")
    if has_labels(ax):
        ax.legend(loc="upper right", fontsize=8, ncols=len(alts), title=title, title_fontsize=8,
                  markerscale=1.6)
    else:
        nothing_to_plot(ax)


def has_labels(ax) -> bool:
    """Whether anything labelled was drawn (nothing is when every repetition is invalid)."""
    handles, _ = ax.get_legend_handles_labels()
    return bool(handles)


def nothing_to_plot(ax) -> None:
    ax.text(0.5, 0.5, "no valid repetition: nothing to plot", transform=ax.transAxes,
            ha="center", va="center", color="#57606a")


def _stars(ax, sizes, alts, comparison_rows) -> None:
    """Stars of the (reference, other) comparisons above each size; nothing when none."""
    if len(alts) < 2:
        return
    lookup = {}
    for c in comparison_rows:
        lookup[(c.size, c.a, c.b)] = c.stars
        lookup[(c.size, c.b, c.a)] = c.stars
    for j, size in enumerate(sizes):
        marks = [lookup.get((size, alts[0], other), "") for other in alts[1:]]
        text = " | ".join(m or "–" for m in marks) if len(alts) > 2 else (marks[0] or "")
        if text:  # x in data, y in axes fraction: just above the data, whatever the scale
            ax.text(j, 0.72, text, ha="center", va="bottom", fontsize=9, color="#8250df",
                    fontweight="bold", transform=ax.get_xaxis_transform())


def _headroom(ax, fraction: float) -> None:
    """Raise the top of the y axis by `fraction` of its span (multiplicatively on log axes)."""
    low, high = ax.get_ylim()
    if ax.get_yscale() == "log":
        ax.set_ylim(low, high * (high / low) ** fraction)
    else:
        ax.set_ylim(low, high + fraction * (high - low))


def _spread_panel(fig, ax, unit, sizes, alts, by_key) -> None:
    ax.set_title("(c) launch-to-launch spread: launch median / median of launches", loc="left",
                 y=1.0, pad=5)
    labels, matrix = [], []
    launches = max((len(r.per_launch) for r in by_key.values()), default=0)
    for alt in alts:
        for size in sizes:
            row = by_key.get((alt, size))
            if row is None:
                continue
            line = np.full(launches, np.nan)
            if row.median_ns > 0:
                for k, s in enumerate(sorted(row.per_launch, key=lambda s: s.launch)):
                    line[k] = s.median_ns / row.median_ns
            matrix.append(line)
            labels.append(format_size(size, unit) if len(alts) == 1 else f"{alt} {format_size(size, unit)}")
    # colors on log2(ratio): ×2 and ×½ are equally far from 1, and a launch 1000 × off does not
    # wash out the rest into one color
    with np.errstate(divide="ignore", invalid="ignore"):
        data = np.log2(np.vstack(matrix)) if matrix else np.zeros((0, 0))
    finite = data[np.isfinite(data)]
    if not matrix or launches < 2 or not finite.size:
        fg_text = ("one launch: the launch-to-launch spread is unknown" if launches < 2 else
                   "no valid repetition: nothing to plot" if matrix else "no data")
        ax.text(0.5, 0.5, fg_text, transform=ax.transAxes, ha="center", va="center",
                color="#57606a")
        ax.set_xticks([])
        ax.set_yticks([])
        return
    reach = max(float(np.max(np.abs(finite))), np.log2(1.01))
    from matplotlib.colors import Normalize
    from matplotlib.ticker import FuncFormatter

    image = ax.imshow(data, aspect="auto", cmap="RdBu_r", interpolation="nearest",
                      norm=Normalize(vmin=-reach, vmax=reach))
    step = int(np.ceil(len(labels) / 16))
    ax.set_yticks(range(0, len(labels), step), labels[::step], fontsize=7.5)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
    ax.set_xlabel("launch (in the order run)")
    ax.grid(False)
    bar = fig.colorbar(image, ax=ax, fraction=0.05, pad=0.02)
    bar.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{2.0 ** v:.3g}"))
    bar.set_label("ratio to the median of launches (log scale)", fontsize=8)
    bar.ax.tick_params(labelsize=7.5)
