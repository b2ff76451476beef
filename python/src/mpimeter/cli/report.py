# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter report`: the whole campaign as one self-contained HTML file."""

from __future__ import annotations

import time
from pathlib import Path

import click

from mpimeter import analysis
from mpimeter.atomic import write_atomic
from mpimeter.cli.common import EXIT_OK, analysis_settings_options, check_output, guarded, load_options
from mpimeter.cli.report_view import report_text
from mpimeter.cli.steps import Steps

SUFFIXES = (".html", ".htm")  # the report is HTML; any other name would hide that


@click.command("report")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default="report.html",
              show_default=True, help="The HTML file to write (.html or .htm).")
@click.option("--title", default=None, help="Title of the report (default: from the campaign paths).")
@analysis_settings_options
@click.option("--alternative", "hypothesis", type=click.Choice(["two-sided", "less", "greater"]),
              default="two-sided", show_default=True,
              help="Hypothesis of the comparison of alternatives (less: the first is faster).")
@click.option("--max-points", type=click.IntRange(100, 10**7), default=1500, show_default=True,
              help="At most this many points per per-repetition scatter (display only).")
def command(paths, output, title, outlier, tukey_k, mpibench_a, drop_warmup, clock, confidence,
            hypothesis, max_points, no_cache, allow_mixed) -> None:
    """Write the HTML report of one campaign (or of several, as alternatives side by side).

    \b
      mpimeter report results/ar -o report.html
      mpimeter report results/libs -o libs.html      # a folder of alternatives
    """
    def body() -> int:
        start = time.perf_counter()
        check_output(Path(output), SUFFIXES, "the report is an HTML file; give a name ending in .html or .htm")
        load = load_options({"no_cache": no_cache, "allow_mixed": allow_mixed})
        with Steps("report", 4) as steps:
            steps.step(f"loading {' '.join(paths)}")
            if len(paths) == 1:
                campaign = analysis.load_campaign(paths[0], **load)
            else:
                campaign = analysis.load_campaigns(list(paths), **load)
            steps.step("analysing")
            result = analysis.analyze(campaign, outlier=outlier, tukey_k=tukey_k, mpibench_a=mpibench_a,
                                      drop_warmup=drop_warmup, clock=clock, confidence=confidence)
            if not result.rows:
                raise analysis.AnalysisError(f"{paths[0]}: no finished test to report")
            steps.step("drawing the figures")
            text, fingerprints = report_text(result, hypothesis=hypothesis, title=title,
                                             max_points=max_points, sources=paths)
            steps.step(f"writing {output}")
            data = text.encode("utf-8")
            write_atomic(Path(output), data)
        click.echo(f"wrote {output} ({len(data) / 2**20:.1f} MiB, {fingerprints} fingerprints, "
                   f"{time.perf_counter() - start:.1f} s)")
        return EXIT_OK

    guarded("report", body)
