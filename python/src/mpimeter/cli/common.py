# SPDX-License-Identifier: BSD-3-Clause
"""What the `mpimeter` sub-commands share: the analysis options and their checks, loading and
analyzing with them, the error handling (exit 2 with one line naming the file, never a
traceback), and the formatting of estimates and warnings (the writers themselves are in
`mpimeter.cli.output`; times, sizes and rates in `mpimeter.units`, 3 significant digits).

No sub-command module imports another: what two of them share lives here (or in a `*_view`
module that prints one kind of result).
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import math
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource
from rich.console import Console
from rich.text import Text

from mpimeter import analysis
from mpimeter.atomic import check_file_target, check_writable
from mpimeter.cli.output import (EXIT_BAD_INPUT, clean, console, exits_on_errors, fail, os_error_text, output_failed,
                                 terminal_text, write_csv, write_json)
from mpimeter.units import format_interval, format_ns

EXIT_OK, EXIT_REGRESSION = 0, 1
__all__ = ["EXIT_OK", "EXIT_REGRESSION", "EXIT_BAD_INPUT", "clean", "console", "fail", "write_csv", "write_json",
           "fmt_time", "fmt_est", "fmt_ratio", "fmt_p", "print_warnings", "guarded"]

STARS_TEXT = "stars on significant rows only: * p (Holm) ≤ .05, ** ≤ .01, *** ≤ .001"


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


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


# settings of `analysis.AnalysisSettings` that only `mpimeter analyze` offers as an option
ANALYZE_ONLY_SETTINGS = ("warmup_rule",)


def _settings(kw: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of `analysis.analyze` from the parsed `analysis_options`: one per
    field of `analysis.AnalysisSettings` (the options carry the same names) but those only
    analyze offers (`ANALYZE_ONLY_SETTINGS`), which keep their default elsewhere."""
    return {f.name: kw[f.name] for f in dataclasses.fields(analysis.AnalysisSettings)
            if f.name in kw or f.name not in ANALYZE_ONLY_SETTINGS}


def load_options(kw: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of `analysis.load_campaign(s)` from the parsed options."""
    cache = not kw["no_cache"]
    return {"cache": cache, "store": cache, "allow_mixed": kw["allow_mixed"]}


def run_analysis(paths: Sequence[str], kw: dict[str, Any]) -> list[analysis.AnalysisResult]:
    """Loads each path as one campaign and analyzes it with the shared options."""
    return [analysis.analyze(analysis.load_campaign(p, **load_options(kw)), **_settings(kw)) for p in paths]


def analyze_together(paths: Sequence[str], kw: dict[str, Any], *, schemes: bool = False) -> analysis.AnalysisResult:
    """Loads the paths as one campaign whose alternatives are theirs, and analyzes it with the
    shared options; ``schemes``: the other benchmarks' schemes are computed in the same reading
    (analysis.schemes.scheme_rows then reads nothing again)."""
    return analysis.analyze(analysis.load_campaigns(list(paths), **load_options(kw), schemes=schemes),
                            **_settings(kw))


_OUTPUT_ERRNOS = (errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EBADF)


def guarded(command: str, body: Callable[[], int]) -> None:
    """Runs ``body``; every failure — bad input, an unanswerable question, a file that cannot be
    read or written, stdout that cannot be written — exits with one line, never a traceback: an
    error of the package with its exit code (output.exits_on_errors), the others 2."""
    try:
        with exits_on_errors(command):
            code = body()
        sys.stdout.flush()
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
    return f"{f(est)} {format_interval(low, high, f)}"


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


def no_data_message(paths: Sequence[str], res: analysis.AnalysisResult) -> str:
    """Why an analysis has no row: how many launches, in which status, finished no test."""
    from mpimeter.analysis.diagnostics import empty_complete_tests  # heavy: not before parsing

    launches = res.campaign.launches
    statuses = Counter(li.status for li in launches)
    finished = sum(1 for li in launches if li.finished_tests)
    status_text = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))
    why = (f"none of its {len(launches)} launch(es) ({status_text}) finished a test"
           if not finished else f"{finished} launch(es) finished tests but no repetition was usable (all invalid)")
    failed = [(li, t) for li in launches for t in li.meta.tests if t.status == "failed"]
    if failed and not finished:  # the binary said why each failed (tests[].error) and what to do
        why += "; " + _failed_tests(failed)
    empty = sum(len(empty_complete_tests(li.meta)) for li in launches)
    if empty:  # the binary called them complete: say what they are (analysis.diagnostics)
        why += (f"; {empty} test(s) marked complete recorded no repetition at all (treated as failed: "
                "--procsync roundtime or barrier hold on a busy machine)")
    hint = ("; no launch is complete: each one's reason is in campaign.json and logs/, and "
            "mpimeter run --resume re-runs them") if "complete" not in statuses else ""
    return f"{' '.join(paths)}: no data to analyze: {why}{hint}"


def _failed_tests(failed: Sequence[tuple]) -> str:
    """How many tests failed, with what codes, and the first one's reason and the binary's hint
    (its meta.json condition ``test-failed``): a complete launch whose every test failed (a start
    method no rank kept on a busy machine) reads otherwise as one with nothing in it."""
    codes = Counter(t.error.code if t.error else "unknown" for _, t in failed)
    li, t = failed[0]
    where = f"test {t.test} ({t.op} {t.size})"
    hint = next((c.hint for c in li.meta.conditions if c.code == "test-failed" and c.where == where and c.hint), "")
    return (f"{len(failed)} test(s) failed ({', '.join(f'{n} {code}' for code, n in codes.most_common())}), "
            f"e.g. {t.op} {t.size}: {t.error.message if t.error else 'no reason recorded'}"
            + (f" ({hint})" if hint else ""))


def check_output(output: Path, suffixes: tuple[str, ...], what: str) -> None:
    """Refuses, before anything is computed (a report's analysis and figures take seconds to
    minutes): (AnalysisError) an output name with another suffix or in a folder that does not
    exist, (atomic.NotRegularFile) one that is there and not a regular file, and (OSError naming
    it) one the folder cannot take: a name too long, a read-only or foreign folder (a temporary
    file made there and removed, as the write will make). A full disk shows when the file is
    written (a temporary file there, renamed: nothing partial is ever left)."""
    if output.suffix.lower() not in suffixes:
        raise analysis.AnalysisError(f"-o {output}: {what}")
    check_file_target(output, "-o")
    folder = output.resolve().parent
    if not folder.is_dir():
        raise analysis.AnalysisError(f"{output}: the folder {folder} does not exist")
    check_writable(output)


MAX_SLOWDOWN_LIMIT = 10.0  # 1000 %: beyond that a "regression" threshold means nothing


def parse_fraction(text: str) -> float:
    """'5%' → 0.05, '0.05' → 0.05; ValueError saying what is allowed otherwise. A bare number
    must be below 1: `5` is far more likely a forgotten % than a 500 % threshold, and read as
    500 % it would let every regression pass; slowdowns of 100 % and more are given in %."""
    t = text.strip()
    percent = t.endswith("%")
    try:
        value = float(t[:-1]) / 100 if percent else float(t)
    except ValueError:
        raise ValueError("must be a fraction (0.05) or a percentage (5%)") from None
    limit = MAX_SLOWDOWN_LIMIT if percent else 1.0
    if not 0 <= value < limit:  # NaN fails too
        hint = f" (did you mean {t}%?)" if not percent and 1 <= value < 100 * MAX_SLOWDOWN_LIMIT else ""
        raise ValueError(f"must be a fraction in [0, 1) or a percentage in "
                         f"[0%, {100 * MAX_SLOWDOWN_LIMIT:g}%){hint}")
    return value


def max_slowdown_option(help_text: str):
    return click.option("--max-slowdown", default="5%", show_default=True, help=help_text)


def checked_slowdown_and_alpha(command: str, max_slowdown: str, alpha: float) -> float:
    """--max-slowdown as a fraction and --alpha checked: one line and exit 2 when either is bad."""
    try:
        slowdown = parse_fraction(max_slowdown)
    except ValueError as exc:
        fail(command, f"--max-slowdown {max_slowdown}: {exc}")
    check_alpha(command, alpha)
    return slowdown
