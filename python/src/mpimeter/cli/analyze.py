# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter analyze`: one row per (op, size) — every estimate followed by its interval
(printed by `mpimeter.cli.analysis_view`; the options and error handling it shares with the other
commands are in `mpimeter.cli.common`)."""

from __future__ import annotations

from typing import Any

import click

from mpimeter import analysis
from mpimeter.analysis.choices import WARMUP_RULES
from mpimeter.analysis.scheme_table import NAMES as SCHEME_NAMES
from mpimeter.cli import scheme_view
from mpimeter.cli.analysis_view import print_analysis
from mpimeter.cli.opcomparisons_view import print_opcomparisons
from mpimeter.cli.common import (EXIT_OK, analysis_options, analyze_together, fmt_time, guarded, no_data_message,
                                 write_csv, write_json)

__all__ = ["command", "fmt_time"]


@click.command("analyze")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@analysis_options
@click.option("--warmup-rule", type=click.Choice(WARMUP_RULES), default="rank", show_default=True,
              help="How the warm-up repetitions are found: rank = the tool's trend test; cummin = Roth 2021 §4.5 "
                   "literally (the first w ≥ 10 where the cumulative minimum drops by 10 % of the median).")
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

    scheme_view.check_scheme_options(click.get_current_context(), scheme)

    def body() -> int:
        if scheme != "ours":
            return scheme_view.scheme_analysis(paths, kw, scheme, fmt)
        res = analyze_together(paths, kw)
        if not res.rows:
            raise analysis.AnalysisError(no_data_message(paths, res))
        if fmt == "json":
            write_json(dict(res.to_dict(), paths=list(paths)))
        elif fmt == "csv":
            write_csv(csv_rows(res))
        else:
            print_analysis(res, per_launch=per_launch, title=" ".join(paths))
            print_opcomparisons(res)
        return EXIT_OK

    guarded("analyze", body)


def csv_rows(res: analysis.AnalysisResult) -> list[dict]:
    """One CSV row per pooled row (``stratum`` empty) followed by one per explained state of it
    (``stratum`` the state's name: its launches, share, median, interval and spread; the pooled
    columns empty)."""
    out = []
    for r in res.rows:
        pooled = r.to_dict()
        states = pooled.pop("per_state")
        pooled["stratum"], pooled["share"] = "", 1.0
        out.append(pooled)
        shared = {k: pooled[k] for k in ("alternative", "op", "size", "confidence")}
        for st in states:
            out.append({k: st.get(k, shared.get(k)) for k in pooled})
    return out
