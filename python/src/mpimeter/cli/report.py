"""`mpimeter report`: the whole campaign as one self-contained HTML file (issue 6)."""

from __future__ import annotations

from pathlib import Path

import click

from mpimeter import analysis
from mpimeter.cli.analyze import EXIT_OK, analysis_settings_options, fail, guarded

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
            hypothesis, max_points, no_cache) -> None:
    """Write the HTML report of one campaign (or of several, as alternatives side by side).

    \b
      mpimeter report results/ar -o report.html
      mpimeter report results/libs -o libs.html      # a folder of alternatives
    """
    if Path(output).suffix.lower() not in SUFFIXES:
        fail("report", f"-o {output}: the report is an HTML file; give a name ending in .html or .htm")
    if not Path(output).resolve().parent.is_dir():
        fail("report", f"{output}: the folder {Path(output).resolve().parent} does not exist")
    from mpimeter.report.html_report import write_report  # matplotlib only when needed

    def body() -> int:
        cache = not no_cache
        if len(paths) == 1:
            campaign = analysis.load_campaign(paths[0], cache=cache, store=cache)
        else:
            campaign = analysis.load_campaigns(list(paths), cache=cache, store=cache)
        result = analysis.analyze(campaign, outlier=outlier, tukey_k=tukey_k, mpibench_a=mpibench_a,
                                  drop_warmup=drop_warmup, clock=clock, confidence=confidence)
        if not result.rows:
            raise analysis.AnalysisError(f"{paths[0]}: no finished test to report")
        comparison, problem = None, None
        if len(result.alternatives) > 1:
            try:
                comparison = analysis.compare(result, alternative=hypothesis, confidence=confidence)
            except analysis.AnalysisError as exc:
                problem = str(exc)
        info = write_report(Path(output), result, comparison, comparison_problem=problem,
                            title=title, max_points=max_points, sources=paths)
        click.echo(f"wrote {info.path} ({info.bytes / 2**20:.1f} MiB, {info.fingerprints} "
                   f"fingerprints, {info.seconds:.1f} s)")
        return EXIT_OK

    guarded("report", body)
