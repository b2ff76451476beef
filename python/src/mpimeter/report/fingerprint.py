# SPDX-License-Identifier: BSD-3-Clause
"""The MPI Micro-Benchmark Fingerprint (MPI-MiBFi) of one test (an operation at a size).

What: one figure that shows everything about the run times of one (op, size) across a campaign
— Roth 2021 §4.7 (the listed contents; Fig. 4.16–4.18): the metadata block (operation, size,
nodes × ranks per node, hosts, MPI library and version, benchmark configuration, clock sync and
its measured residual), the statistics (min, quartiles, median, mean, p95, p99, max, with n and
the outliers removed), a box plot, an ECDF, the run time per repetition (all of them, and a
second panel without outliers, colored by the categories first / warm-up / outlier / good of
§4.5), a histogram (all data, and zoomed to the bulk) and the run time per rank; under them a
normal Q-Q plot of the log run times and a violin per launch (Hoefler & Belli 2015 §3.1.2 and
§5.2: `fingerprint_dist`, which computes them once for this figure and the report's SVG).

Why: a single number hides warm-up phases, outliers, modes and slow ranks; a picture shows
them at a glance (Hoefler & Belli 2015 §5.2, rule 12).

Numbers: every number comes from `mpimeter.analysis` (rows, categories, per-launch summaries,
rank tests) or from `mpimeter.stats` (the pooled summary of the kept repetitions, the
per-rank summaries); this module only selects, thins for display and draws.

Cost: one matplotlib figure; at most `max_points` markers per scatter panel.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from mpimeter.analysis import scaling as _scaling
from mpimeter.analysis.fingerprint import select_test
from mpimeter.analysis.pipeline import clocks_note
from mpimeter.analysis.results import time_quantity
from mpimeter.analysis.strata import row_state_text
from mpimeter.report import figures as fg
from mpimeter.report import fingerprint_dist as dist
from mpimeter.report.metadata import LaunchFacts, campaign_facts
from mpimeter.units import format_interval, format_ns, format_number, format_size, time_unit
from mpimeter.stats.summary import Summary, summarize

# Per-rank panel: box plots up to this many ranks, a median line with a quartile band beyond.
MAX_RANK_BOXES = 24
# Log scale on a time axis when the plotted values span more than this factor.
LOG_SPAN = 30.0


@dataclass(frozen=True)
class RankData:
    ranks: np.ndarray  # rank ids, ascending
    summaries: tuple[Summary, ...]  # local durations of each rank (stats.summarize)
    note: str  # the rank test's result (analysis.RankTest) and the slowest ranks, in words
    slowest: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class FingerprintData:
    """Everything one fingerprint shows; built by `fingerprint_data` from an analysis result."""

    op: str
    size: int
    alternative: str
    launches: int
    facts: LaunchFacts
    summary: Summary  # pooled over the kept repetitions of all launches
    repetitions: int
    invalid: int
    removed: int
    warmup_dropped: int
    outlier_filter: str
    across_median: str  # median of per-launch medians with its interval, in words
    spread: str
    run_times_ns: np.ndarray  # every valid repetition, in (launch, rep) order
    categories: np.ndarray  # first | warmup | outlier | good, aligned with run_times_ns
    positions: np.ndarray  # x of each repetition: launches one after another, rep index within
    launch_starts: np.ndarray  # x where each launch starts (its repetition 0)
    span: int  # x range: repetitions of all launches, invalid ones included
    ranks: RankData | None
    clock_note: str
    size_unit: str = "bytes"  # what the size is: bytes, or ns (AnalysisResult.size_unit)
    quantity: str = "run time"  # what the times are (analysis.time_quantity): one-way latency for ping-pongs
    per_state: tuple[str, ...] = ()  # the row per explained state (analysis.strata.row_state_text)
    nprocs: int = 0  # the row's p
    root: int | None = None  # the row's root (rooted operations)
    workpieces: int | None = None  # the row's work pieces (mw-workpieces)
    one_of_several: bool = False  # the campaign has the test at other p, roots or work pieces: the title names its own

    @property
    def where(self) -> str:
        """`` · p = 4 · root 1`` (`` · 16 workpieces``) for titles and ids when the test is one of
        several (p, root, workpieces)."""
        return ((f" · p = {self.nprocs}" if self.nprocs else "") + ("" if self.root is None else f" · root {self.root}")
                + ("" if self.workpieces is None else f" · {self.workpieces} workpieces"))


def fingerprint_data(result, op: str, size: int, alternative: str | None = None, *,
                     repetitions=None, rank_durations=None, facts: LaunchFacts | None = None,
                     nprocs: int | None = None, root: int | None = None,
                     workpieces: int | None = None, several_p: bool | None = None) -> FingerprintData:
    """Selects from an `mpimeter.analysis.AnalysisResult` what the fingerprint of (op, size)
    shows. `alternative` may be omitted when the campaign has one. `repetitions` and
    `rank_durations` may be given already restricted to this test (the report splits the
    tables once for all tests); `facts` likewise. `several_p`: whether the campaign's tests ran
    at several p (None: as the result's rows say; a result of one test, `analyze_test`, cannot)."""
    row = select_test(result.rows, result.alternatives, op, size, alternative, nprocs=nprocs, root=root,
                      workpieces=workpieces)
    alternative = row.alternative
    reps = result.repetitions if repetitions is None else repetitions
    sel = reps[(reps["alternative"] == alternative) & (reps["op"] == op) & (reps["size"] == size)]
    if "nprocs" in sel.columns:
        sel = sel[(sel["nprocs"] == row.nprocs) & (sel["root"] == (-1 if row.root is None else row.root))]
    if "workpieces" in sel.columns:
        sel = sel[sel["workpieces"] == (-1 if row.workpieces is None else row.workpieces)]
    sel = sel[sel["valid"].astype(bool)].sort_values(["launch", "rep"], kind="stable")
    run_times = sel["run_time_ns"].to_numpy(dtype=float)
    n_total = {s.launch: s.n_total for s in row.per_launch}  # repetitions in raw.csv, invalid too
    positions, starts, span = _positions(sel["launch"].to_numpy(), sel["rep"].to_numpy(), n_total)
    kept = sel["kept"].to_numpy(dtype=bool)
    summary = summarize(run_times[kept])
    warmup_dropped = sum(s.n_warmup_dropped for s in row.per_launch)
    if facts is None:
        facts = test_facts(result, row)
    ci = format_interval(row.median_ci_low_ns, row.median_ci_high_ns) + (
        " (too few launches)" if row.median_ci_low_ns is None else f" {row.confidence:.0%} CI")
    if rank_durations is None:
        rank_durations = result.rank_durations(alternative=alternative, op=op, size=size)
    if several_p is None:
        several_p = _scaling.varies(result.rows)
    if len(rank_durations) and "launch" in rank_durations.columns and several_p:
        # the ranks' durations are of launches; with p per launch, those of this row's p
        rank_durations = rank_durations[rank_durations["launch"].isin({s.launch for s in row.per_launch})]
    if len(rank_durations) and "test" in rank_durations.columns and "test" in sel.columns:
        # and of this row's test in each launch: one launch holds a test per root, p (--nprocs)
        # and work pieces of the (op, size), whose ranks' durations are not this row's
        stride = int(max(rank_durations["test"].max(), sel["test"].max() if len(sel) else 0)) + 1
        mine = sel["launch"].to_numpy(dtype=np.int64) * stride + sel["test"].to_numpy(dtype=np.int64)
        keys = rank_durations["launch"].to_numpy(dtype=np.int64) * stride + rank_durations["test"].to_numpy(dtype=np.int64)
        rank_durations = rank_durations[np.isin(keys, mine)]
    return FingerprintData(
        op=op, size=size, size_unit=result.size_unit(op), alternative=alternative, launches=row.launches,
        facts=facts,
        summary=summary, repetitions=row.repetitions, invalid=row.invalid,
        removed=row.outliers_removed, warmup_dropped=warmup_dropped,
        outlier_filter=_filter_name(result.settings),
        across_median=f"{format_ns(row.median_ns)} {ci}",
        spread="unknown (one launch)" if row.launches < 2 else f"{format_number(row.spread)} × (max/min)",
        run_times_ns=run_times, categories=sel["category"].astype(str).to_numpy(),
        positions=positions, launch_starts=starts, span=span,
        ranks=_rank_data(result, rank_durations, alternative, op, size,
                         left_out=sel[sel["category"].isin(["first", "outlier"])], nprocs=row.nprocs),
        clock_note=clocks_note(s.clock for s in row.per_launch) + result.clock_note_tail, quantity=time_quantity(row.one_way), per_state=row_state_text(row),
        nprocs=row.nprocs, root=row.root, workpieces=row.workpieces,
    )


def _positions(launch: np.ndarray, rep: np.ndarray, n_total: dict) -> tuple[np.ndarray, np.ndarray, int]:
    """x positions for per-repetition plots of rows sorted by (launch, rep): each launch takes as
    many places as it has repetitions in raw.csv, so dropped (invalid) ones leave gaps."""
    if launch.size == 0:
        return np.zeros(0), np.zeros(0, dtype=np.int64), 1
    first = np.flatnonzero(np.r_[True, launch[1:] != launch[:-1]])
    last = np.r_[first[1:], launch.size] - 1
    widths = np.array([max(int(n_total.get(int(launch[i]), 0)), int(rep[j]) + 1)
                       for i, j in zip(first, last)], dtype=np.int64)
    starts = np.r_[0, np.cumsum(widths)[:-1]]
    offset = np.repeat(starts, np.diff(np.r_[first, launch.size]))
    return offset + rep, starts, int(widths.sum())


def _filter_name(settings) -> str:
    if settings.outlier == "tukey":
        return f"Tukey {settings.tukey_k:g}·IQR per launch"
    if settings.outlier == "mpibench":
        return f"> {settings.mpibench_a:g}·p99 per launch (MPIBench)"
    if settings.outlier == "trim25":
        return "25 % trimming per launch (SKaMPI)"
    return "none"


def _rank_data(result, durations, alternative: str, op: str, size: int, *, left_out,
               nprocs: int | None = None) -> RankData | None:
    """Per-rank summaries of the local durations of the bulk (the repetitions in `left_out`,
    first and outliers, are dropped so that the boxes show how ranks differ, not the noise)."""
    durations = durations[(durations["alternative"] == alternative) & (durations["op"] == op)
                          & (durations["size"] == size)]
    durations = durations[durations["valid"].astype(bool) & (durations["rank"] >= 0)]
    if durations.empty:
        return None  # --raw reduced: no per-rank rows
    stride = int(max(durations["rep"].max(), left_out["rep"].max() if len(left_out) else 0)) + 1
    drop = left_out["launch"].to_numpy(dtype=np.int64) * stride + left_out["rep"].to_numpy(dtype=np.int64)
    keys = durations["launch"].to_numpy(dtype=np.int64) * stride + durations["rep"].to_numpy(dtype=np.int64)
    durations = durations[~np.isin(keys, drop)]
    if durations.empty:
        return None
    ranks, summaries = [], []
    for rank, group in durations.groupby("rank", sort=True):
        ranks.append(int(rank))
        summaries.append(summarize(group["duration_ns"].to_numpy(dtype=float)))
    note, slowest = "ranks not tested (one launch,\nor they finish apart by design)", ()
    for test in result.rank_tests:
        if (test.alternative, test.op, test.size) == (alternative, op, size) and nprocs in (None, test.nprocs):
            # the analysis names up to three slowest ranks; mark those above the median rank
            slowest = tuple(r for r, m in zip(test.slowest_ranks, test.slowest_medians_ns)
                            if m > test.median_of_rank_medians_ns) if test.differ else ()
            kw = f"rank test over launches, Holm p = {test.p_adjusted:.2g}"
            if not test.differ:
                note = f"no significant difference\nbetween ranks ({kw})"
            else:
                note = f"ranks differ\n({kw})" + (
                    "\nslowest: " + ", ".join(map(str, slowest)) if slowest else "")
    return RankData(np.asarray(ranks), tuple(summaries), note, slowest)


# ---------------------------------------------------------------------------------------------
# Drawing


LAYOUTS = ("full", "panels")
FULL_HEIGHT, PANELS_HEIGHT = 13.4, 9.2  # inches; 13 wide


def draw_fingerprint(data: FingerprintData, *, layout: str = "full",
                     max_points: int = 4000) -> "fg.Figure":
    """The fingerprint figure. `full` (13 × 13.4 in) is the stand-alone MPI-MiBFi with the
    metadata and statistics blocks drawn in; `panels` (13 × 9.2 in) has only the plots, as the
    HTML report draws them (in SVG) with those blocks as text next to it. Per-repetition panels
    show at most `max_points` markers (all non-good ones first); histograms, the ECDF and the
    Q-Q plot use every valid repetition, the violins the bulk of each launch."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown fingerprint layout {layout!r}; use one of {LAYOUTS}")
    full = layout == "full"
    height = FULL_HEIGHT if full else PANELS_HEIGHT
    fig = fg.new_figure(13.0, height)

    def below(inches: float) -> float:  # the margins stay fixed in inches whatever the height
        return 1.0 - inches / height

    with fg.styled():
        unit = time_unit(data.summary.median if data.summary.n else np.nan)
        shown = fg.thin_for_display(data.categories, max_points)
        if full:
            grid = fig.add_gridspec(4, 4, left=0.065, right=0.985, top=below(1.31), bottom=0.84 / height,
                                    hspace=0.5, wspace=0.34)
            _title(fig, data, below)
            _metadata_panel(fig.add_subplot(grid[0, 0:2]), data)
            _statistics_panel(fig.add_subplot(grid[0, 2]), data, unit)
            cells = [grid[1, 0:2], grid[1, 2:4], grid[0, 3], grid[2, 0], grid[2, 1], grid[2, 2],
                     grid[2, 3], grid[3, 0], grid[3, 1:4]]
        else:
            grid = fig.add_gridspec(3, 5, left=0.06, right=0.985, top=below(0.74), bottom=0.74 / height,
                                    hspace=0.55, wspace=0.38)
            cells = [grid[0, 0:2], grid[0, 2:4], grid[0, 4], grid[1, 0], grid[1, 1], grid[1, 2],
                     grid[1, 3:5], grid[2, 0:2], grid[2, 2:5]]
        rep_all, rep_bulk, box, hist_all, hist_bulk, ecdf, rank, qq, violins = (fig.add_subplot(c) for c in cells)
        _repetition_panel(rep_all, data, unit, shown, without_outliers=False)
        _repetition_panel(rep_bulk, data, unit, shown, without_outliers=True)
        _box_panel(box, data, unit)
        _histogram_panel(hist_all, data, unit, zoom=False)
        _histogram_panel(hist_bulk, data, unit, zoom=True)
        _ecdf_panel(ecdf, data, unit)
        _rank_panel(rank, data, unit)
        qq_shape = qq_of(data, unit)
        dist.draw_qq(qq, qq_shape, ylabel=dist.qq_ylabel(qq_shape, data.quantity, unit[0]) if qq_shape else "")
        dist.draw_violins(violins, violins_of(data, unit), ylabel=f"{data.quantity} ({unit[0]})")
        _category_legend(fig, data, y=below(0.105 if full else 0.032))
    return fig


def qq_of(data: FingerprintData, unit) -> "dist.QQShape | None":
    """The Q-Q panel of ``data`` in ``unit`` (name, ns per unit): every valid repetition."""
    return dist.qq_shape(data.run_times_ns / unit[1])


def violins_of(data: FingerprintData, unit) -> "dist.ViolinShapes | None":
    """The violin panel of ``data`` in ``unit``: the bulk (`bulk_mask`) of each launch."""
    bulk = bulk_mask(data)
    launch_of = np.searchsorted(data.launch_starts, data.positions, side="right") - 1
    groups = [data.run_times_ns[bulk & (launch_of == i)] / unit[1] for i in range(data.launch_starts.size)]
    return dist.violin_shapes(groups, log_span=LOG_SPAN)


def _category_legend(fig, data: FingerprintData, *, y: float) -> None:
    """One legend for the categories of Roth 2021 §4.5, with how many repetitions each has."""
    from matplotlib.lines import Line2D

    counts = Counter(data.categories.tolist())
    handles = [Line2D([], [], linestyle="none", marker="s", markersize=8,
                      color=fg.CATEGORY_COLORS[c]) for c in fg.CATEGORIES]
    labels = [f"{fg.CATEGORY_LABELS[c]} ({counts.get(c, 0)})" for c in fg.CATEGORIES]
    fig.legend(handles, labels, loc="upper right", bbox_to_anchor=(0.985, y), ncols=4,
               title="categories (Roth §4.5), repetitions per category", title_fontsize=8.5,
               fontsize=8.5, frameon=False, handletextpad=0.3, columnspacing=1.0)


def test_facts(result, row) -> LaunchFacts:
    """The facts of the launches that measured ``row``'s test: with --np LIST each launch runs
    one p, and the alternative's other launches (another p, their layout and residuals) are not
    of this test."""
    mine = {s.launch for s in row.per_launch}
    return campaign_facts([li for li in result.campaign.launches_of(row.alternative) if li.index in mine])


def fingerprint_figure(result, op: str, size: int, alternative: str | None = None, *,
                       layout: str = "full", max_points: int = 4000, nprocs: int | None = None,
                       root: int | None = None) -> "fg.Figure":
    """Convenience: `draw_fingerprint(fingerprint_data(...))`."""
    return draw_fingerprint(fingerprint_data(result, op, size, alternative, nprocs=nprocs, root=root),
                            layout=layout, max_points=max_points)


def _title(fig, data: FingerprintData, below) -> None:
    facts = data.facts
    where = data.where.replace(" · ", "  ·  ") if data.one_of_several else ""
    fig.suptitle(f"MPI-MiBFi  ·  {_clip(data.op, 24)}  ·  {format_size(data.size, data.size_unit)}  ·  "
                 f"{_clip(data.alternative, 24)}{where}",
                 x=0.065, ha="left", y=below(0.105), fontsize=14, fontweight="bold")
    plural = "es" if data.launches != 1 else ""
    fig.text(0.065, below(0.49), f"{facts.layout}  ·  {data.launches} launch{plural}  ·  "
             f"{data.repetitions} repetitions", fontsize=9.5, color="#1b1f24", ha="left")
    fig.text(0.065, below(0.69), _clip(data.clock_note, 100), fontsize=9, color="#57606a", ha="left")


def _clip(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _metadata_panel(ax, data: FingerprintData) -> None:
    ax.axis("off")
    ax.set_title("Experiment", loc="left", y=1.0, pad=5)
    lines = [("operation", data.op), ("size", format_size(data.size, data.size_unit)),
             ("alternative", data.alternative)] + list(data.facts.lines)
    _key_value_text(ax, lines, value_width=78)


def _key_value_text(ax, lines, *, value_width: int, key_x: float = 0.0, value_x: float = 0.22) -> None:
    step = min(0.094, 1.0 / max(len(lines), 1))
    for i, (key, value) in enumerate(lines):
        y = 0.98 - i * step
        ax.text(key_x, y, key, transform=ax.transAxes, va="top", ha="left", fontsize=8.5,
                color="#57606a")
        ax.text(value_x, y, _clip(value, value_width), transform=ax.transAxes, va="top",
                ha="left", fontsize=8.5)


def _statistics_panel(ax, data: FingerprintData, unit) -> None:
    ax.axis("off")
    ax.set_title("Statistics (kept repetitions)", loc="left", y=1.0, pad=5)
    s = data.summary
    f = lambda v: format_ns(v, unit)  # noqa: E731
    lines = [("n kept", str(s.n)), ("removed", f"{data.removed} ({data.outlier_filter})"),
             ("invalid", str(data.invalid))]
    if data.warmup_dropped:
        lines.append(("warm-up dropped", str(data.warmup_dropped)))
    lines += [("min", f(s.min)), ("q1", f(s.q1)), ("median", f(s.median)), ("mean", f(s.mean)),
              ("q3", f(s.q3)), ("p95", f(s.p95)), ("p99", f(s.p99)), ("max", f(s.max))]
    _key_value_text(ax, lines, value_width=34, value_x=0.36)
    ax.text(0.0, -0.04, "across launches: median of launch medians\n"
            f"{_clip(data.across_median, 44)}\nspread {data.spread}"
            + "".join(f"\n{_clip(t, 44)}" for t in data.per_state),
            transform=ax.transAxes, va="top", ha="left", fontsize=8.0, color="#1b1f24")


def _bxp_stats(s: Summary, scale: float, label: str) -> dict:
    # Whiskers at min and p99 (stated on the axis: Hoefler & Belli §5.2 ask for it).
    return {"med": s.median / scale, "q1": s.q1 / scale, "q3": s.q3 / scale,
            "whislo": s.min / scale, "whishi": s.p99 / scale, "mean": s.mean / scale,
            "fliers": [], "label": label}


def _box_panel(ax, data: FingerprintData, unit) -> None:
    name, scale = unit
    s = data.summary
    ax.set_title("Box plot", loc="left", y=1.0, pad=5)
    if s.n == 0:
        fg.empty_panel(ax, "no kept repetitions")
        return
    ax.bxp([_bxp_stats(s, scale, "")], showmeans=True, widths=0.5, patch_artist=True,
           boxprops={"facecolor": "#ddf4ff", "edgecolor": "#0969da"},
           medianprops={"color": "#cf222e", "linewidth": 1.6},
           meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "#1b1f24",
                      "markersize": 5})
    ax.plot([1], [s.max / scale], marker="x", color="#1b1f24", linestyle="none")
    ax.set_ylabel(f"{data.quantity} ({name})")
    ax.set_xticks([1], ["kept"])
    ax.set_xlabel("box q1–q3, — median, ◇ mean,\nwhiskers min–p99, × max", fontsize=8)
    if s.max / max(s.min, 1e-12) > LOG_SPAN:
        ax.set_yscale("log")


def bulk_mask(data: FingerprintData) -> np.ndarray:
    """The bulk of the repetitions, for the zoomed panels: not `first`, not `outlier`, and
    below 2 × the median — Roth's outlier threshold (§4.5) — so that a long warm-up tail
    does not set the scale. Display only."""
    cats = data.categories
    mask = (cats != "outlier") & (cats != "first")
    if data.summary.n and np.isfinite(data.summary.median):
        mask &= data.run_times_ns < 2.0 * data.summary.median
    return mask


def hidden_note(data: FingerprintData, bulk: np.ndarray, *, short: bool = False) -> str:
    cats = data.categories
    beyond = int((~bulk & (cats != "outlier") & (cats != "first")).sum())
    if not beyond:
        return "first and outliers left out"
    values = "value" if beyond == 1 else "values"
    if short:
        return f"first, outliers and {beyond} {values}\n≥ 2 × median left out"
    return f"first, outliers and {beyond} {values} ≥ 2 × median left out"


def _repetition_panel(ax, data, unit, shown, *, without_outliers: bool) -> None:
    name, scale = unit
    cats = data.categories[shown]
    x = data.positions[shown]
    y = data.run_times_ns[shown] / scale
    note = ""
    if without_outliers:
        ax.set_title("Run time per repetition — without first and outliers", loc="left",
                     y=1.0, pad=5)
        bulk = bulk_mask(data)
        keep = bulk[shown]
        x, y, cats = x[keep], y[keep], cats[keep]
        order = ("warmup", "good")
        note = "\n" + hidden_note(data, bulk)
    else:
        ax.set_title("Run time per repetition — all", loc="left", y=1.0, pad=5)
        order = ("good", "warmup", "first", "outlier")  # rare categories drawn last, on top
    if y.size == 0:
        fg.empty_panel(ax, "no repetitions")
        return
    size = 6 if y.size > 1500 else 10
    for cat in order:
        mask = cats == cat
        if mask.any():
            ax.scatter(x[mask], y[mask], s=size, color=fg.CATEGORY_COLORS[cat], linewidths=0,
                       alpha=0.75 if cat == "good" else 0.95, rasterized=True)
    if 1 < data.launch_starts.size <= 60:
        for start in data.launch_starts[1:]:
            ax.axvline(start - 0.5, color="#8c959f", linewidth=0.5, alpha=0.6, zorder=0)
    ax.set_xlim(-0.5, data.span - 0.5)
    if y.max() / max(y.min(), 1e-12) > LOG_SPAN:
        ax.set_yscale("log")
    ax.set_ylabel(f"{data.quantity} ({name})")
    ax.set_xlabel(repetition_label(data, shown) + note)


def repetition_label(data: FingerprintData, shown: np.ndarray) -> str:
    """x label of the per-repetition panels, with a second line when points were thinned."""
    label = ("repetition (launches one after another, separated by lines)"
             if data.launch_starts.size > 1 else "repetition")
    if shown.size != data.run_times_ns.size:
        label += f"\n{shown.size} of {data.run_times_ns.size} shown"
    return label


def _histogram_panel(ax, data: FingerprintData, unit, *, zoom: bool) -> None:
    name, scale = unit
    values = data.run_times_ns / scale
    cats = data.categories
    if zoom:
        bulk = bulk_mask(data)
        values, cats = values[bulk], cats[bulk]
        ax.set_title("Histogram — bulk", loc="left", y=1.0, pad=5)
        order = ("good", "warmup")
    else:
        ax.set_title("Histogram — all", loc="left", y=1.0, pad=5)
        order = ("good", "warmup", "first", "outlier")
    if values.size == 0:
        fg.empty_panel(ax, "no repetitions")
        return
    lo, hi = float(values.min()), float(values.max())
    if hi <= lo:
        hi = lo + max(abs(lo) * 1e-3, 1e-9)
    bins = np.linspace(lo, hi, 61)
    stacks = [values[cats == c] for c in order]
    present = [(c, v) for c, v in zip(order, stacks) if v.size]
    if not present:  # a few repetitions, the bulk's all first or outliers (e.g. --nrep 10)
        fg.empty_panel(ax, "no good or warm-up repetition in the bulk")
        return
    ax.hist([v for _, v in present], bins=bins, stacked=True, histtype="stepfilled",
            color=[fg.CATEGORY_COLORS[c] for c, _ in present],
            label=[fg.CATEGORY_LABELS[c] for c, _ in present], alpha=0.85, linewidth=0)
    ax.set_xlabel(f"{data.quantity} ({name})" + ("\n" + hidden_note(data, bulk, short=True) if zoom else ""))
    ax.set_ylabel("repetitions")


def _ecdf_panel(ax, data: FingerprintData, unit) -> None:
    name, scale = unit
    ax.set_title("ECDF (all valid repetitions)", loc="left", y=1.0, pad=5)
    values = np.sort(data.run_times_ns) / scale
    if values.size == 0:
        fg.empty_panel(ax, "no repetitions")
        return
    n = values.size
    if n > 5000:  # display: evenly spaced ranks keep the curve exact at those points
        idx = np.unique(np.linspace(0, n - 1, 5000).astype(int))
        x, y = values[idx], (idx + 1) / n
    else:
        x, y = values, np.arange(1, n + 1) / n
    ax.step(np.r_[x[0], x], np.r_[0.0, y], where="post", color="#0969da", linewidth=1.3)
    if values[-1] / max(values[0], 1e-12) > LOG_SPAN:
        ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_xlabel(f"{data.quantity} ({name})")
    ax.set_ylabel("fraction of repetitions ≤ x")


def _rank_panel(ax, data: FingerprintData, unit) -> None:
    name, scale = unit
    ax.set_title("Local duration per rank", loc="left", y=1.0, pad=5)
    ranks = data.ranks
    if ranks is None or ranks.ranks.size == 0:
        fg.empty_panel(ax, "no per-rank data\n(--raw reduced)")
        return
    slow = set(ranks.slowest)  # only ranks above the median of rank medians (see _rank_data)
    if ranks.ranks.size <= MAX_RANK_BOXES:
        stats = [_bxp_stats(s, scale, str(r)) for r, s in zip(ranks.ranks, ranks.summaries)]
        boxes = ax.bxp(stats, showmeans=False, widths=0.6, patch_artist=True,
                       medianprops={"color": "#cf222e", "linewidth": 1.4})
        for patch, r in zip(boxes["boxes"], ranks.ranks):
            patch.set_facecolor("#ffebe9" if r in slow else "#ddf4ff")
            patch.set_edgecolor("#cf222e" if r in slow else "#0969da")
        if ranks.ranks.size > 12:
            ax.tick_params(axis="x", labelsize=7, rotation=90)
        ax.set_xlabel("rank (box q1–q3, whiskers min–p99;\nfirst and outliers left out)")
    else:
        med = np.array([s.median for s in ranks.summaries]) / scale
        q1 = np.array([s.q1 for s in ranks.summaries]) / scale
        q3 = np.array([s.q3 for s in ranks.summaries]) / scale
        ax.fill_between(ranks.ranks, q1, q3, step="mid", color="#0969da", alpha=0.25,
                        linewidth=0)
        ax.plot(ranks.ranks, med, drawstyle="steps-mid", color="#0969da", linewidth=1.0)
        if slow:
            idx = np.isin(ranks.ranks, list(slow))
            ax.plot(ranks.ranks[idx], med[idx], "o", color="#cf222e")
        ax.set_xlabel("rank (band q1–q3, line median, red: slowest;\nfirst and outliers left out)")
    ax.set_ylabel(f"local duration ({name})")
    if ranks.note:
        low, high = ax.get_ylim()
        ax.set_ylim(low, high + 0.5 * (high - low))  # room for the note, above the data
        ax.text(0.02, 0.97, ranks.note, transform=ax.transAxes, va="top", ha="left",
                fontsize=7.5, color="#1b1f24", linespacing=1.25)
