# SPDX-License-Identifier: BSD-3-Clause
"""The report's "Tuning" section, shown when the campaign has algorithm alternatives (one library
run with its own collective algorithms, `mpimeter run --algorithms` or `--variant`): per
library, operation and process count, run time against size with one line per algorithm and the
default, the size ranges `mpimeter tune` chooses an algorithm for shaded in its color, and the
table of ranges with the predicted time / default. analysis.tuning computes the choices; this
module only lays them out."""

from __future__ import annotations

import numpy as np

from mpimeter.analysis import AnalysisError
from mpimeter.analysis import tuning as _tuning
from mpimeter.report import figures as fg
from mpimeter.report import html as h
from mpimeter.report.overview import size_ticks
from mpimeter.units import format_interval, format_size, time_unit


def has_algorithms(result) -> bool:
    """Does the campaign hold an alternative that sets a library's algorithm variable?"""
    try:
        by_library, _ = _tuning.tuning_alternatives(result)
    except AnalysisError:
        return False
    return any(not a.is_default for alts in by_library.values() for a in alts)


def draw_tuning(lib: _tuning.LibraryTuning, op: str, nprocs: int, rows) -> "fg.Figure":
    """Median run time (with its interval) against size of the default and every alternative
    that chose an algorithm for ``op``; the chosen ranges shaded in the chosen one's color."""
    alts = [lib.default] + [a.alternative for a in lib.alternatives if op in a.settings]
    names = {lib.default: f"{lib.default} (library default)"}
    names.update({a.alternative: f"{a.alternative}: {a.settings[op].name}" for a in lib.alternatives
                  if op in a.settings})
    color = {a: fg.ALTERNATIVE_COLORS[i % len(fg.ALTERNATIVE_COLORS)] for i, a in enumerate(alts)}
    mine = [r for r in rows if r.op == op and r.nprocs == nprocs and r.alternative in alts]
    medians = [r.median_ns for r in mine if np.isfinite(r.median_ns) and r.median_ns > 0]
    unit, scale = time_unit(float(np.sqrt(min(medians) * max(medians))) if medians else np.nan)
    fig = fg.new_figure(7.5, 4.2)
    with fg.styled():
        ax = fig.add_subplot(1, 1, 1)
        for r in lib.ranges:
            if r.op == op and r.nprocs == nprocs and r.alternative is not None:
                ax.axvspan(max(r.size_min, 1) / 2 ** 0.5, max(r.size_max, 1) * 2 ** 0.5, color=color[r.alternative],
                           alpha=0.13, linewidth=0, label=f"chosen: {r.algorithm}")
        for alt in alts:
            pts = sorted((r.size, r) for r in mine if r.alternative == alt and np.isfinite(r.median_ns))
            if not pts:
                continue
            xs = [max(s, 1) for s, _ in pts]
            ys = [r.median_ns / scale for _, r in pts]
            lo = [(r.median_ns - r.median_ci_low_ns) / scale if r.median_ci_low_ns is not None else 0.0
                  for _, r in pts]
            hi = [(r.median_ci_high_ns - r.median_ns) / scale if r.median_ci_high_ns is not None else 0.0
                  for _, r in pts]
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o-", markersize=4, linewidth=1.0, capsize=3,
                        color=color[alt], label=names[alt])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 1.5, 2.0, 3.0, 5.0, 7.0)))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        size_ticks(ax, "bytes", sorted({r.size for r in mine}))
        ax.set_xlabel("size")
        ax.set_ylabel(f"run time ({unit})")
        ax.set_title(f"{lib.library} {op}, p = {nprocs}: median of launch medians with its interval", loc="left")
        ax.legend(loc="upper left", fontsize=7.5)
    return fig


def tuning_section(result) -> str:
    """The section's HTML ("" when the campaign has no algorithm alternatives)."""
    if not has_algorithms(result):
        return ""
    try:
        res = _tuning.tune(result)
    except AnalysisError as exc:
        return h.tag("p", h.esc(f"No tuning: {exc}."))
    parts = [h.tag("p", h.esc(
        f"Per library, operation, process count and size: the algorithm faster than the library's default by more "
        f"than {100 * res.min_effect:g} % ({res.test}; {res.correction}; significant at p (Holm) ≤ {res.alpha:g}), "
        "else the default; neighbouring sizes with one choice form a range (shaded). `mpimeter tune CAMPAIGN --out "
        "FILE` writes it as the library's own file."))]
    for lib in res.libraries:
        for op, nprocs in sorted({(r.op, r.nprocs) for r in lib.ranges}):
            fig = draw_tuning(lib, op, nprocs, result.rows)
            parts.append(h.tag("h3", h.esc(f"{lib.library} {op}, p = {nprocs}")))
            parts.append(h.image(fg.png_base64(fig, dpi=90), f"{lib.library} {op} at p = {nprocs}: run time "
                                                             "against size per algorithm, chosen ranges shaded"))
            table_rows = []
            for r in lib.ranges:
                if (r.op, r.nprocs) != (op, nprocs):
                    continue
                sizes = format_size(r.size_min, "bytes") + ("" if r.size_min == r.size_max else
                                                              " – " + format_size(r.size_max, "bytes"))
                ratio = "; ".join((f"{c.ratio:.3f} " + format_interval(c.ratio_ci_low, c.ratio_ci_high,
                                                                         lambda x: f"{x:.3f}"))
                                  if c.alternative else "1" for c in r.choices)
                table_rows.append((sizes, r.algorithm if r.alternative else "library default",
                                   "" if r.setting is None else f"{r.setting.variable}={r.setting.value}", ratio))
            parts.append(h.table(("sizes", "choice", "setting", "time / default per size [interval]"), table_rows,
                                 numeric=(False, False, False, False)))
    return "".join(parts)
