# SPDX-License-Identifier: BSD-3-Clause
"""The nonblocking-collective part of an operation in the report (analysis.nbc rows).

What: one figure per nonblocking operation — (a) the overhead (init + test + wait, with the
confidence interval of its median over launches) against size, with the blocking time (I-call
immediately followed by Wait) and the computation beside it; (b) the overlap against size in
the three definitions analyze prints (NBCBench, IMB, OSU) — and the table of the same numbers.
Why: the point of a nonblocking collective is the CPU time it gives back; the overhead alone
says little without the blocking time it is measured against (Hoefler, Schneider & Lumsdaine
2010 §4, Fig. 4–6 plot exactly these).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mpimeter.report import figures as fg
from mpimeter.report import html as h
from mpimeter.report.overview import alternative_color, dodge, has_labels, nothing_to_plot, size_ticks
from mpimeter.units import format_interval, format_ns, format_size, size_axis_label, time_unit

OVERLAPS = (("overlap", "NBCBench: 1 − overhead / blocking", "-"),
            ("overlap_imb", "IMB: (blocking + compute − total) / min(blocking, compute)", "--"),
            ("overlap_osu", "OSU: 1 − (total − compute) / blocking", ":"))


def draw_nonblocking(op: str, rows: Sequence, alternatives: Sequence[str], *, size_unit: str = "bytes"):
    """The figure of one nonblocking op; `rows`: its `analysis.nbc.NbcRow`s (any alternatives)."""
    rows = [r for r in rows if r.op == op]
    alts = [a for a in alternatives if any(r.alternative == a for r in rows)]
    sizes = sorted({r.size for r in rows})
    fig = fg.new_figure(13.0, 4.6)
    with fg.styled():
        grid = fig.add_gridspec(1, 2, left=0.075, right=0.98, top=0.84, bottom=0.16, wspace=0.22)
        fig.suptitle(f"{op}: overhead and overlap across sizes", x=0.075, ha="left", fontsize=13,
                     fontweight="bold")
        _times_panel(fig.add_subplot(grid[0, 0]), rows, alts, sizes, size_unit)
        _overlap_panel(fig.add_subplot(grid[0, 1]), rows, alts, sizes, size_unit)
    return fig


# one marker per (p, root) of an alternative's rows: their lines would zigzag as one series
MARKERS = ("o", "^", "v", "D", "s", "P", "X", "*")


def _series(rows, alts):
    """(alternative, " · p = 4 · root 1" where the rows vary in them, marker, its rows by size,
    dodge offset) per alternative and (p, root): the rows of one size at several roots or p are
    lines of their own, not one line through them all."""
    varies = {k: len({getattr(r, k) for r in rows}) > 1 for k in ("nprocs", "root")}
    slices = sorted({(r.nprocs, -1 if r.root is None else r.root) for r in rows})
    offsets = dodge(len(alts) * len(slices), 0.06)
    out = []
    for a, alt in enumerate(alts):
        for k, (p, root) in enumerate(slices):
            mine = sorted((r for r in rows if r.alternative == alt and r.nprocs == p
                           and (-1 if r.root is None else r.root) == root), key=lambda r: r.size)
            if not mine:
                continue
            where = (f" · p = {p}" if varies["nprocs"] else "") + (f" · root {root}" if varies["root"] else "")
            out.append((alt, where, MARKERS[k % len(MARKERS)], mine, offsets[a * len(slices) + k]))
    return out


def _times_panel(ax, rows, alts, sizes, unit) -> None:
    ax.set_title("(a) overhead (CI of the median) beside the blocking time", loc="left", y=1.0, pad=5)
    values = [v for r in rows for v in (r.overhead_ns, r.blocking_ns) if np.isfinite(v) and v > 0]
    name, scale = time_unit(float(np.sqrt(min(values) * max(values))) if values else np.nan)
    for alt, where, marker, mine, off in _series(rows, alts):
        color = alternative_color(alts, alt)
        xs = [max(r.size, 1) * 2.0 ** off for r in mine]
        ys = np.array([r.overhead_ns for r in mine]) / scale
        low = [y - (r.overhead_ci_low_ns / scale if r.overhead_ci_low_ns is not None else y) for y, r in zip(ys, mine)]
        high = [(r.overhead_ci_high_ns / scale if r.overhead_ci_high_ns is not None else y) - y for y, r in zip(ys, mine)]
        ax.errorbar(xs, ys, yerr=[low, high], fmt=f"{marker}-", markersize=4.5, color=color, capsize=3, linewidth=1.0,
                    label=f"{alt}{where}: overhead")
        ax.plot(xs, np.array([r.blocking_ns for r in mine]) / scale, f"{marker}--", markersize=4, color=color,
                alpha=0.7, linewidth=1.0, markerfacecolor="none", label=f"{alt}{where}: blocking")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    size_ticks(ax, unit, sizes)
    ax.set_xlabel(size_axis_label([unit]))
    ax.set_ylabel(f"time ({name})")
    if has_labels(ax):
        ax.legend(loc="upper left", fontsize=7.5)
    else:
        nothing_to_plot(ax)


def _overlap_panel(ax, rows, alts, sizes, unit) -> None:
    ax.set_title("(b) overlap: the share of the blocking time given back", loc="left", y=1.0, pad=5)
    for alt, where, marker, mine, off in _series(rows, alts):
        color = alternative_color(alts, alt)
        xs = [max(r.size, 1) * 2.0 ** off for r in mine]
        for field, label, style in OVERLAPS:
            ax.plot(xs, [100 * getattr(r, field) for r in mine], marker=marker, markersize=3.5, linestyle=style,
                    linewidth=1.0, color=color, label=f"{alt}{where}: {label.split(':')[0]}")
    ax.set_xscale("log", base=2)
    ax.axhline(100, color="#57606a", linewidth=0.6)
    ax.axhline(0, color="#57606a", linewidth=0.6)
    size_ticks(ax, unit, sizes)
    ax.set_xlabel(size_axis_label([unit]))
    ax.set_ylabel("overlap (%)")
    if has_labels(ax):
        ax.legend(loc="best", fontsize=7.5, title="solid NBCBench, dashed IMB, dotted OSU", title_fontsize=7.5)
    else:
        nothing_to_plot(ax)


def nonblocking_html(op: str, rows: Sequence, result, image_png_base64: str) -> str:
    """The figure and the table of one nonblocking op, for the report's operation section."""
    pct = f"{result.settings.confidence:.0%}"
    intro = h.tag("p", h.esc(
        "Nonblocking: overhead = init + test + wait, the CPU time the caller loses (NBCBench, Hoefler, Schneider "
        "& Lumsdaine 2010 §4), each the slowest rank's per repetition; blocking = the I-call followed at once by "
        "Wait, in the same test's own repetitions; overlap in three definitions: "
        + "; ".join(label for _, label, _ in OVERLAPS) + ". Medians over launches of per-launch medians."))
    body = []
    # several p (--nprocs) or roots (--root) make several rows of one size: each says which
    show_p, show_root = (len({getattr(r, k) for r in rows}) > 1 for k in ("nprocs", "root"))
    for r in sorted(rows, key=lambda r: (r.size, result.alternatives.index(r.alternative), r.nprocs,
                                         -1 if r.root is None else r.root)):
        ci = format_interval(r.overhead_ci_low_ns, r.overhead_ci_high_ns)
        body.append((r.alternative, format_size(r.size, result.size_unit(op)),
                     *([str(r.nprocs)] if show_p else []), *(["–" if r.root is None else str(r.root)] if show_root else []),
                     r.scheme, str(r.tests_per_rep),
                     str(r.launches), format_ns(r.overhead_ns), ci, format_ns(r.init_ns), format_ns(r.test_ns),
                     format_ns(r.wait_ns), format_ns(r.blocking_ns), format_ns(r.compute_ns),
                     f"{100 * r.overlap:.0f} %", f"{100 * r.overlap_imb:.0f} %", f"{100 * r.overlap_osu:.0f} %"))
    header = ("alternative", "size", *(("p",) if show_p else ()), *(("root",) if show_root else ()), "scheme",
              "tests", "launches", "overhead", f"{pct} CI", "init", "test", "wait", "blocking", "compute", "overlap",
              "IMB", "OSU")
    return (intro + h.image(image_png_base64, f"{op}: overhead and blocking time, and overlap, against size")
            + h.table(header, body, numeric=tuple(name not in ("alternative", "scheme") for name in header)))
