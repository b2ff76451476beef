# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter fingerprint`: the MPI-MiBFi of one test (an operation at a size), one figure."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from mpimeter import analysis
from mpimeter.cli.common import EXIT_OK, analysis_settings_options, check_output, guarded, load_options

FORMATS = (".png", ".svg", ".pdf")


@click.command("fingerprint")
@click.argument("path", type=click.Path(exists=True, file_okay=False))
@click.option("--op", required=True, help="The operation, as in mpimeter-bench --list-ops.")
@click.option("--size", required=True, type=click.IntRange(min=0),
              help="The message size in bytes (for delay: the duration in ns).")
@click.option("-a", "--alt", "alternative", default=None,
              help="The alternative, when the campaign has several.")
@click.option("--np", "nprocs", type=click.IntRange(min=1), default=None,
              help="The process count, when the test was measured at several (--np LIST, sub-communicators).")
@click.option("--root", type=click.IntRange(min=0), default=None,
              help="The root, when the test was measured at several.")
@click.option("--workpieces", type=click.IntRange(min=1), default=None,
              help="The number of work pieces (mw-workpieces), when the test was measured at several.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default="fingerprint.png",
              show_default=True, help="The figure to write: .png, .svg or .pdf.")
@analysis_settings_options
@click.option("--max-points", type=click.IntRange(100, 10**7), default=4000, show_default=True,
              help="At most this many points per per-repetition scatter (display only).")
@click.option("--dpi", type=click.IntRange(50, 600), default=110, show_default=True,
              help="Resolution of a .png.")
def command(path, op, size, alternative, nprocs, root, workpieces, output, outlier, tukey_k, mpibench_a, drop_warmup, clock,
            confidence, max_points, dpi, no_cache, allow_mixed) -> None:
    """Draw the fingerprint (MPI-MiBFi, Roth 2021 §4.7) of one test across a campaign.

    \b
      mpimeter fingerprint results/ar --op allreduce --size 1024 -o fp.png
    """
    output = Path(output)

    def body() -> int:
        check_output(output, FORMATS, f"unknown figure format {output.suffix or '(none)'!r}; use .png, .svg or .pdf")
        from mpimeter.analysis.fingerprint import analyze_test, campaign_tests, no_distribution, select_test
        from mpimeter.report import fingerprint
        from mpimeter.report.figures import save_figure

        campaign = analysis.load_campaign(path, **load_options({"no_cache": no_cache, "allow_mixed": allow_mixed}))
        tests = campaign_tests(campaign)
        try:  # before the analysis: a test the campaign does not hold is refused at once
            test = select_test(tests, campaign.alternatives, op, size, alternative, nprocs=nprocs, root=root,
                               workpieces=workpieces)
        except ValueError as exc:
            raise analysis.AnalysisError(f"{path}: {exc}") from None
        if (why := no_distribution(campaign, test.alternative)) is not None:
            raise analysis.AnalysisError(f"{path}: {why}")
        result = analyze_test(campaign, test, outlier=outlier, tukey_k=tukey_k, mpibench_a=mpibench_a,
                              drop_warmup=drop_warmup, clock=clock, confidence=confidence)
        data = fingerprint.fingerprint_data(result, op, size, test.alternative, nprocs=nprocs, root=root,
                                            workpieces=workpieces, several_p=analysis.scaling.varies(tests))
        # at one of several p, roots or work pieces, the figure's title says which (as the report's)
        several = sum((t.alternative, t.op, t.size) == (test.alternative, op, size) for t in tests) > 1
        data = replace(data, one_of_several=several)
        save_figure(fingerprint.draw_fingerprint(data, max_points=max_points), output, dpi=dpi)
        click.echo(f"wrote {output}")
        return EXIT_OK

    guarded("fingerprint", body)
