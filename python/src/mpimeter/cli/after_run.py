# SPDX-License-Identifier: BSD-3-Clause
"""What `mpimeter run` shows after a campaign: the `analyze` table and the HTML report, as
`mpimeter analyze CAMPAIGN` and `mpimeter report CAMPAIGN -o CAMPAIGN/report.html` would give
them with their default options, from ONE reading and ONE analysis of the campaign. A failure of
either is said in one line and does not hide that the campaign ran."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from mpimeter import analysis
from mpimeter.atomic import write_atomic
from mpimeter.cli.analysis_view import print_analysis
from mpimeter.cli.common import no_data_message
from mpimeter.cli.opcomparisons_view import print_opcomparisons
from mpimeter.cli.output import os_error_text, terminal_text
from mpimeter.cli.report_view import report_text

REPORT_FILE = "report.html"


def _error(command: str, message: str) -> None:
    """The one-line error form of every mpimeter command, on stderr."""
    click.echo(f"mpimeter {command}: error: {terminal_text(message, one_line=True)}", err=True)


def _analysis(campaign_dir: Path) -> analysis.AnalysisResult | None:
    """The campaign read and analyzed once, with analyze's and report's default options; None
    (and the error said as `mpimeter analyze` says it) when it cannot be."""
    # The analysis's modules (pandas, scipy: seconds to import) are looked up only once they are
    # needed: the read before the analysis, and the error classes only for an error, so that an
    # interruption (SIGTERM from a batch system, Ctrl-C) while reading ends the process at once
    try:
        campaign = analysis.load_campaigns([str(campaign_dir)])
        return analysis.analyze(campaign)
    except Exception as exc:
        if isinstance(exc, (analysis.InputError, analysis.AnalysisError)):
            _error("analyze", str(exc))
        elif isinstance(exc, OSError):
            _error("analyze", os_error_text(exc))
        elif isinstance(exc, RecursionError):
            _error("analyze", "the input nests too deeply to be read")
        else:
            raise
    return None


def _write_report(result: analysis.AnalysisResult, campaign_dir: Path, path: Path, start: float) -> bool:
    try:
        if not result.rows:
            raise analysis.AnalysisError(f"{campaign_dir}: no finished test to report")
        text, fingerprints = report_text(result, sources=(str(campaign_dir),))
        data = text.encode("utf-8")
        write_atomic(path, data)
    except (analysis.InputError, analysis.AnalysisError) as exc:
        _error("report", str(exc))
        return False
    except OSError as exc:
        _error("report", os_error_text(exc))
        return False
    click.echo(f"wrote {path} ({len(data) / 2**20:.1f} MiB, {fingerprints} fingerprints, "
               f"{time.perf_counter() - start:.1f} s)")
    return True


def after_campaign(campaign_dir: Path, *, echo: Callable[[str], None] = print) -> None:
    start = time.perf_counter()
    echo("")
    result = _analysis(campaign_dir)
    if result is None:
        echo(f"(`mpimeter analyze {campaign_dir}` exited with 2)")
        echo(f"(`mpimeter report {campaign_dir} -o {Path(campaign_dir) / REPORT_FILE}` exited with 2; no report)")
        return
    if result.rows:
        print_analysis(result, per_launch=False, title=str(campaign_dir))
        print_opcomparisons(result)
        sys.stdout.flush()
    else:
        _error("analyze", no_data_message([str(campaign_dir)], result))
        echo(f"(`mpimeter analyze {campaign_dir}` exited with 2)")
    path = Path(campaign_dir) / REPORT_FILE
    if _write_report(result, campaign_dir, path, start) and path.exists():
        echo(f"report: {path}")
    else:
        echo(f"(`mpimeter report {campaign_dir} -o {path}` exited with 2; no report)")
