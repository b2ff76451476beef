"""`mpimeter analyze`: one row per (op, size) — every estimate followed by its interval.

Also holds what `compare` and `gate` share with it: the analysis options, the error handling
(exit 2 with one line naming the file, never a traceback), and the formatting of estimates and
warnings (the writers themselves are in `mpimeter.cli.output`; times, sizes and rates in
`mpimeter.units`, 3 significant digits).
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import math
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import click
from click.core import ParameterSource
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mpimeter import analysis
from mpimeter.analysis.diagnostics import empty_complete_tests
from mpimeter.analysis.schemes import NAMES as SCHEME_NAMES
from mpimeter.cli.counters_view import print_counters
from mpimeter.cli.output import (EXIT_BAD_INPUT, clean, console, fail, os_error_text, output_failed, terminal_text,
                                 write_csv, write_json)
from mpimeter.units import format_ns, format_rate, format_size

EXIT_OK, EXIT_REGRESSION = 0, 1
__all__ = ["EXIT_OK", "EXIT_REGRESSION", "EXIT_BAD_INPUT", "clean", "console", "fail", "write_csv", "write_json",
           "fmt_time", "fmt_est", "fmt_ratio", "fmt_p", "print_warnings", "guarded", "command"]


# --------------------------------------------------------------------------------------------
# shared by analyze, compare, gate


def analysis_settings_options(f: Callable) -> Callable:
    """The options that choose how each campaign is analyzed (every field of
    analysis.AnalysisSettings) and --no-cache; shared by analyze, compare, gate, report and
    fingerprint."""
    opts = [
        click.option("--outlier", type=click.Choice(analysis.OUTLIERS), default="tukey",
                     show_default=True, help="Outlier filter per launch and test."),
        click.option("--tukey-k", type=float, default=1.5, show_default=True, help="Tukey fence factor k."),
        click.option("--mpibench-a", type=float, default=2.0, show_default=True,
                     help="mpibench filter: drop run times > a·p99."),
        click.option("--drop-warmup", is_flag=True, help="Drop the first and warm-up repetitions (Roth §4.5)."),
        click.option("--clock", type=click.Choice(analysis.CLOCKS), default="auto",
                     show_default=True,
                     help="Run time per repetition: auto follows each launch (re-synced global clock when it "
                          "had re-syncs, else the online global clock when it used one, else local)."),
        click.option("--confidence", type=click.FloatRange(0.5, 0.999), default=0.95, show_default=True,
                     help="Confidence level of the intervals."),
        click.option("--no-cache", is_flag=True, help="Do not read or write raw.parquet / campaign.duckdb."),
        click.option("--allow-mixed", is_flag=True,
                     help="Use launches of one alternative that do not belong together (another MPI library or "
                          "version, other hosts, another number of ranks, or not the launch campaign.json planned) "
                          "with a warning, instead of refusing them."),
    ]

    @functools.wraps(f)
    def checked(**kw: Any) -> Any:
        _check_settings(click.get_current_context(), kw)
        return f(**kw)

    for o in reversed(opts):
        checked = o(checked)
    return checked


ALPHA_RANGE = (0.0001, 0.5)


def metric_option(f: Callable) -> Callable:
    """--metric of compare and gate: what is compared (analysis.METRICS)."""
    return click.option("--metric", type=click.Choice(tuple(analysis.METRICS)), default="time", show_default=True,
                        help="What to compare: " + "; ".join(f"{k}: {v}" for k, v in analysis.METRICS.items())
                             + ".")(f)


def metric_footer(metric: str) -> str | None:
    """The footer line naming the compared quantity when it is not the run time."""
    return None if metric == "time" else f"medians are {metric}s: {analysis.METRICS[metric]}"


def alpha_option(f: Callable) -> Callable:
    """--alpha of compare and gate: a plain float checked by `check_alpha` (click's FloatRange
    lets NaN through and words its message differently from the other checks)."""
    return click.option("--alpha", type=float, default=0.05, show_default=True,
                        help=f"Significance level after correction, in [{ALPHA_RANGE[0]:g}, "
                             f"{ALPHA_RANGE[1]:g}].")(f)


def check_alpha(command: str, alpha: float) -> None:
    if not ALPHA_RANGE[0] <= alpha <= ALPHA_RANGE[1]:  # NaN fails too
        fail(command, f"--alpha {alpha:g}: must be between {ALPHA_RANGE[0]:g} and {ALPHA_RANGE[1]:g}")


def _check_settings(ctx: click.Context, kw: dict[str, Any]) -> None:
    """Exit 2 on a filter parameter out of range (NaN included: click's ranges let it through)
    or given for a filter that does not use it."""
    command = ctx.command.name or "mpimeter"
    if not math.isfinite(kw["confidence"]):
        fail(command, f"--confidence {kw['confidence']}: must be between 0.5 and 0.999")
    for name, flag, minimum, method in (("tukey_k", "--tukey-k", 0.0, "tukey"),
                                        ("mpibench_a", "--mpibench-a", 1.0, "mpibench")):
        value = kw[name]
        if not (math.isfinite(value) and value >= minimum):
            fail(command, f"{flag} {value:g}: must be a finite number ≥ {minimum:g}")
        if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE and kw["outlier"] != method:
            fail(command, f"{flag}: only with --outlier {method} (the filter is {kw['outlier']})")


def analysis_options(f: Callable) -> Callable:
    """analysis_settings_options plus --format, for the commands that print tables."""
    f = click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
                     show_default=True, help="Output format.")(f)
    return analysis_settings_options(f)


def _settings(kw: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of `analysis.analyze` from the parsed `analysis_options`: one per
    field of `analysis.AnalysisSettings` (the options carry the same names)."""
    return {f.name: kw[f.name] for f in dataclasses.fields(analysis.AnalysisSettings)}


def load_options(kw: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of `analysis.load_campaign(s)` from the parsed options."""
    cache = not kw["no_cache"]
    return {"cache": cache, "store": cache, "allow_mixed": kw["allow_mixed"]}


def run_analysis(paths: Sequence[str], kw: dict[str, Any]) -> list[analysis.AnalysisResult]:
    """Loads each path as one campaign and analyzes it with the shared options."""
    return [analysis.analyze(analysis.load_campaign(p, **load_options(kw)), **_settings(kw)) for p in paths]


def analyze_together(paths: Sequence[str], kw: dict[str, Any]) -> analysis.AnalysisResult:
    """Loads the paths as one campaign whose alternatives are theirs, and analyzes it with the
    shared options."""
    return analysis.analyze(analysis.load_campaigns(list(paths), **load_options(kw)), **_settings(kw))


_OUTPUT_ERRNOS = (errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EBADF)


def guarded(command: str, body: Callable[[], int]) -> None:
    """Runs ``body``; every failure — bad input, an unanswerable question, a file that cannot be
    read or written, stdout that cannot be written — exits 2 with one line, never a traceback."""
    try:
        code = body()
        sys.stdout.flush()
    except (analysis.InputError, analysis.AnalysisError) as exc:
        fail(command, str(exc))
    except OSError as exc:
        if exc.filename is None and exc.errno in _OUTPUT_ERRNOS:
            output_failed(command, exc)
        fail(command, os_error_text(exc))
    except RecursionError:
        fail(command, "the input nests too deeply to be read")
    else:
        sys.exit(code)


def fmt_time(ns: float | None) -> str:
    return format_ns(ns)


def fmt_est(est: float | None, low: float | None, high: float | None, f: Callable = fmt_time) -> str:
    if low is None or high is None:
        return f"{f(est)} [no interval]"
    return f"{f(est)} [{f(low)}, {f(high)}]"


def fmt_ratio(x: float | None) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.4f}"


def fmt_p(p: float | None) -> str:
    return "–" if p is None or not math.isfinite(p) else (f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}")


def print_warnings(con: Console, warnings: Sequence[analysis.AnalysisWarning]) -> None:
    """One entry per warning (the analysis merged repeats of a code: ``×n`` says how many)."""
    for w in warnings:
        count = f" ×{w.count}" if w.count > 1 else ""
        con.print(Text.assemble(("warning", "yellow"), terminal_text(f" [{w.code}{count}] {w.message}")))
        con.print(f"    → {w.hint}" + (f" ({w.where})" if w.where else ""))


# --------------------------------------------------------------------------------------------
# analyze


def print_analysis(res: analysis.AnalysisResult, *, per_launch: bool, title: str | None = None) -> None:
    con = console()
    several = len(res.alternatives) > 1
    pct = f"{100 * res.settings.confidence:g} %"
    t = Table(title=f"mpimeter analyze {title or res.campaign.path}", title_justify="left")
    if several:
        t.add_column("alternative")
    for name, just in (("op", "left"), ("size", "right"), ("launches", "right"),
                       (f"median [{pct} CI]", "right"), (f"mean [{pct} CI]", "right"), ("spread", "right"),
                       ("removed", "right"), ("invalid", "right"), ("warm-up", "right")):
        t.add_column(name, justify=just)
    has_bw = any(r.bandwidth_Bps is not None for r in res.rows)
    if has_bw:
        t.add_column("bandwidth (harmonic)", justify="right")
    has_one_way = any(r.one_way for r in res.rows)
    if has_one_way:
        t.add_column("time", justify="left")
    for r in res.rows:
        mean = fmt_est(r.mean_ns, r.mean_ci_low_ns, r.mean_ci_high_ns)
        if r.normal is False:
            mean += " †"
        cells = [r.op, format_size(r.size, res.size_unit(r.op)), str(r.launches), fmt_est(r.median_ns, r.median_ci_low_ns, r.median_ci_high_ns),
                 mean, f"{r.spread:.3f}" if math.isfinite(r.spread) else "–",
                 f"{r.outliers_removed}/{r.repetitions}", str(r.invalid), str(r.warmup_max)]
        if has_bw:
            cells.append(format_rate(r.bandwidth_Bps))
        if has_one_way:
            cells.append(time_kind(r.one_way))
        t.add_row(*([r.alternative] if several else []), *cells)
    con.print(t)
    if res.nbc_rows:
        con.print(nbc_table(res, several))
    con.print(f"clock: {res.clock_note}")
    if has_one_way:
        con.print(f"time one-way: {analysis.ONE_WAY_NOTE}")
    overhead = res.measurement_overhead
    if overhead:
        con.print(f"{analysis.OVERHEAD_LABEL}: "
                  + "; ".join(terminal_text(o.text(name_alternative=several)) for o in overhead)
                  + f" — {analysis.OVERHEAD_NOTE}")
    con.print(f"outlier filter: {res.settings.outlier}; median interval: Le Boudec order statistics over "
              f"per-launch medians; mean: t interval over per-launch means, lower bound clamped at 0 "
              f"(† = Shapiro–Wilk rejects normality); "
              f"spread = max/min of per-launch medians" + ("; warm-up dropped" if res.settings.drop_warmup else ""))
    print_counters(con, res)
    if per_launch:
        lt = Table(title="per launch", title_justify="left")
        one_way_ops = {r.op for r in res.rows if r.one_way}
        for name in ("alternative", "launch", "op", "size", "clock", "n", "removed", "invalid", "median", "mean",
                     "p99", "CoV", "warm-up") + (("time",) if one_way_ops else ()):
            lt.add_column(name, justify="left" if name in ("alternative", "op", "clock", "time") else "right")
        for s in res.launch_summaries:
            lt.add_row(s.alternative, f"{s.launch:03d}", s.op, format_size(s.size, res.size_unit(s.op)), s.clock, str(s.n), str(s.removed),
                       str(s.n_invalid), fmt_time(s.median_ns), fmt_time(s.mean_ns), fmt_time(s.p99_ns),
                       f"{s.cov:.3f}" if math.isfinite(s.cov) else "–", str(s.warmup_length),
                       *((time_kind(s.op in one_way_ops),) if one_way_ops else ()))
        con.print(lt)
    print_warnings(con, res.warnings)


def time_kind(one_way: bool) -> str:
    """The "time" column: what a row's times are."""
    return "one-way" if one_way else "run time"


def nbc_table(res: analysis.AnalysisResult, several: bool) -> Table:
    """Nonblocking collectives: overhead against the blocking time, and the overlap figures
    (analysis.nbc; medians over launches of per-launch medians)."""
    pct = f"{100 * res.settings.confidence:g} %"
    t = Table(title="nonblocking collectives: overhead and overlap (NBCBench; IMB and OSU definitions beside)",
              title_justify="left")
    if several:
        t.add_column("alternative")
    for name in ("op", "size", "scheme", "tests", f"overhead [{pct} CI]", "init", "test", "wait", "blocking",
                 "compute", "total", "overlap", "IMB", "OSU"):
        t.add_column(name, justify="left" if name in ("op", "scheme") else "right")
    for r in res.nbc_rows:
        t.add_row(*([r.alternative] if several else []), r.op, format_size(r.size, res.size_unit(r.op)), r.scheme,
                  str(r.tests_per_rep), fmt_est(r.overhead_ns, r.overhead_ci_low_ns, r.overhead_ci_high_ns),
                  fmt_time(r.init_ns), fmt_time(r.test_ns), fmt_time(r.wait_ns), fmt_time(r.blocking_ns),
                  fmt_time(r.compute_ns), fmt_time(r.total_ns), f"{100 * r.overlap:.0f} %",
                  f"{100 * r.overlap_imb:.0f} %", f"{100 * r.overlap_osu:.0f} %")
    return t


def no_data_message(paths: Sequence[str], res: analysis.AnalysisResult) -> str:
    """Why an analysis has no row: how many launches, in which status, finished no test."""
    launches = res.campaign.launches
    statuses = Counter(li.status for li in launches)
    finished = sum(1 for li in launches if li.finished_tests)
    status_text = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))
    why = (f"none of its {len(launches)} launch(es) ({status_text}) finished a test"
           if not finished else f"{finished} launch(es) finished tests but no repetition was usable (all invalid)")
    empty = sum(len(empty_complete_tests(li.meta)) for li in launches)
    if empty:  # the binary called them complete: say what they are (analysis.diagnostics)
        why += (f"; {empty} test(s) marked complete recorded no repetition at all (treated as failed: "
                "--procsync roundtime or barrier hold on a busy machine)")
    hint = ("; no launch is complete: each one's reason is in campaign.json and logs/, and "
            "mpimeter run --resume re-runs them") if "complete" not in statuses else ""
    return f"{' '.join(paths)}: no data to analyze: {why}{hint}"


@click.command("analyze")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@analysis_options
@click.option("--per-launch", is_flag=True, help="Also show the summary of every launch (table format).")
@click.option("--scheme", type=click.Choice(SCHEME_NAMES), default="ours", show_default=True,
              help="Whose processing scheme: ours, or another benchmark's (Hunold & Carpen-Amarie 2016, Table 4; "
                   "mpimeter schemes compares them all).")
def command(paths: tuple[str, ...], fmt: str, per_launch: bool, scheme: str, **kw: Any) -> None:
    """Statistics of a campaign (or launch) folder: one row per (op, size) and alternative.

    Per launch: invalid repetitions dropped, outliers filtered, median and mean; across
    launches (the unit of replication): the median of per-launch medians with its confidence
    interval, the mean with a t interval, and the launch-to-launch spread. Several PATHS are
    analyzed together as alternatives. Exit 2 on bad input, and when no launch finished a test
    (nothing to analyze: the message says what the launches' status was).
    """

    from mpimeter.cli import schemes as _schemes  # it builds on this module
    _schemes.check_scheme_options(click.get_current_context(), scheme)

    def body() -> int:
        if scheme != "ours":
            return _schemes.scheme_analysis(paths, kw, scheme, fmt)
        res = analyze_together(paths, kw)
        if not res.rows:
            raise analysis.AnalysisError(no_data_message(paths, res))
        if fmt == "json":
            write_json(dict(res.to_dict(), paths=list(paths)))
        elif fmt == "csv":
            write_csv([r.to_dict() for r in res.rows])
        else:
            print_analysis(res, per_launch=per_launch, title=" ".join(paths))
        return EXIT_OK

    guarded("analyze", body)
