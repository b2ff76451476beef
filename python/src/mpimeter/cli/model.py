# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter model`: cost models per (alternative, operation) — Hockney's T(m) = α + β·m with
intervals, its piecewise version with the breakpoints where the protocol changes, and the fit
error at every size (``mpimeter.analysis.models``; SKaMPI §5's "piecewise closed form
expressions")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from mpimeter import analysis
from mpimeter.cli.common import (EXIT_OK, analysis_options, analyze_together, console, fmt_time, guarded,
                                  no_data_message, write_csv, write_json)
from mpimeter.stats.costmodel_threshold import ERROR_THRESHOLD
from mpimeter.units import format_bytes, format_number, format_interval

if TYPE_CHECKING:
    from mpimeter.analysis.models import ModelRow

MAX_BREAKPOINTS = 3  # each adds a segment of ≥ --min-sizes sizes; more would fit noise


def _ns(x: float) -> str:
    return fmt_time(x) if x >= 0 else "−" + fmt_time(-x)


def _beta(x: float) -> str:
    return f"{format_number(x)} ns/B"


def _interval(ci: tuple[float, float] | None, f) -> str:
    return format_interval(*(ci if ci is not None else (None, None)), f)


def segment_text(row: ModelRow) -> str:
    """The piecewise model in one line: ``8 B–4 KiB: 421 ns + 0.361 ns/B; 8 KiB–1 MiB: …``."""
    return "; ".join(f"{format_bytes(s.from_bytes)}–{format_bytes(s.to_bytes)}: {_ns(s.alpha_ns)} + "
                     f"{_beta(s.beta_ns_per_byte)}" for s in row.piecewise.segments)


def _csv_row(row: ModelRow) -> dict[str, Any]:
    d = row.to_dict()
    d.pop("sizes")
    d["segments"] = segment_text(row)
    return d


def print_models(result, title: str) -> None:
    from mpimeter.stats.costmodel import INTERVALS  # numpy, scipy: not before the command line is parsed

    con = console()
    if not result.rows:  # only models in p (every p has too few sizes): no empty table, no footer of none
        for alt, op, why in result.skipped:
            con.print(f"not modelled: {alt} {op}: {why}")
        return
    pct = f"{100 * result.confidence:g} %"
    t = Table(title=f"mpimeter model {title}", title_justify="left")
    show_p = len({r.nprocs for r in result.rows}) > 1
    for name in ("alternative", "op", *(("p",) if show_p else ()), "launches", f"α [{pct} CI]", f"β [{pct} CI]", "breakpoints",
                 "piecewise model", "max error", "missed sizes"):
        t.add_column(name, justify="right" if name in ("launches", "max error") else "left")
    for r in (x for row in result.rows for x in (row, *row.per_state)):
        h = r.hockney
        t.add_row(r.alternative, r.op + (" (one-way)" if r.one_way else "") + _state_label(r, result.rows),
                  *([str(r.nprocs)] if show_p else []),
                  str(r.launches),
                  f"{_ns(h.alpha_ns)} {_interval(h.alpha_ci_ns, _ns)}",
                  f"{_beta(h.beta_ns_per_byte)} {_interval(h.beta_ci, format_number)}",
                  ", ".join(format_bytes(b) for b in r.piecewise.breakpoints) or "none", segment_text(r),
                  "–" if not math.isfinite(r.max_rel_error) else f"{100 * r.max_rel_error:.0f} %",
                  r.missed_text(format_bytes))
    con.print(t)
    methods = sorted({r.hockney.interval for r in result.rows})
    threshold = max((r.error_threshold for r in result.rows), default=0.0)
    con.print(f"α, β: Hockney's T(m) = α + β·m over all sizes, robust fit (Huber) of per-launch medians relative "
              f"to their size's median; intervals: {'; '.join(INTERVALS[m] for m in methods)}; breakpoints: "
              f"{result.criterion}; max error: largest |model − median| / median of the piecewise model over the "
              "sizes; missed: sizes where the model's band and the median's interval do not overlap, or the error "
              f"exceeds {100 * threshold:g} %; not checked: neither could be judged (no interval)")
    if any(r.per_state for r in result.rows):
        con.print("per state: the launches ran in explained machine states (`analyze`); each state has its own fit, "
                  "and the headline is the state most launches ran in (a pooled fit describes neither state)")
    for alt, op, why in result.skipped:
        con.print(f"not modelled: {alt} {op}: {why}")


def _state_label(r, rows) -> str:
    """`` [faster state, headline]`` for a per-state fit, `` [all states]`` for its pooled one."""
    if r.state is None:
        return " [all states]" if r.per_state else ""
    owner = next((x for x in rows if r in x.per_state), None)
    return f" [{r.state} state" + (", headline]" if owner is not None and owner.headline == r.state else "]")


def print_scaling_models(rows, skipped, confidence: float) -> None:
    """The models in m and p (analysis.scalingmodels): the family the data chose, its
    coefficients with intervals, the others' BIC, and whether it fits."""
    if not rows and not skipped:
        return
    con = console()
    pct = f"{100 * confidence:g} %"
    t = Table(title="models in m and p (per operation, over every p and size)", title_justify="left")
    for name in ("alternative", "op", "p", "launches", "family", f"α [{pct} CI]", f"β [{pct} CI]", "max error",
                 "other families (ΔBIC)", "verdict"):
        t.add_column(name, justify="right" if name in ("launches", "max error") else "left")
    for r in (x for row in rows for x in (row, *row.per_state)):
        f = r.chosen
        t.add_row(r.alternative, r.op + _state_label(r, rows), ",".join(map(str, r.nprocs)), str(r.launches),
                  f"{f.family}: {f.formula}",
                  f"{_ns(f.alpha_ns)} {_interval(f.interval(0, confidence), _ns)}",
                  f"{_beta(f.beta_ns_per_byte)} {_interval(f.interval(1, confidence), format_number)}",
                  "–" if not math.isfinite(r.max_rel_error) else f"{100 * r.max_rel_error:.0f} %",
                  "; ".join(f"{o.family} +{o.bic - f.bic:.1f}" for o in r.others), r.text())
    con.print(t)
    con.print("families: log α·⌈log₂p⌉ + β·m, log-tree α·⌈log₂p⌉ + β·m·⌈log₂p⌉, linear α·(p−1) + β·m·(p−1)/p; "
              "chosen by least BIC (Huber's loss of relative residuals, one noise scale for all); intervals and "
              "bands: delete-one-launch jackknife; missed: band and median interval apart, or the error above "
              "the threshold; not checked: neither could be judged")
    for alt, op, why in skipped:
        con.print(f"not modelled in p: {alt} {op}: {why}")


@click.command("model")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@analysis_options
@click.option("--max-breakpoints", type=click.IntRange(0, MAX_BREAKPOINTS), default=2, show_default=True,
              help="Most breakpoints of the piecewise model (where the protocol changes).")
@click.option("--min-sizes", type=click.IntRange(3, 64), default=3, show_default=True,
              help="Fewest sizes per segment of the piecewise model.")
@click.option("--max-error", type=click.FloatRange(0.0, 10.0, min_open=True), default=ERROR_THRESHOLD,
              show_default=True,
              help="Relative error |model − median| / median above which a size is reported as missed, whatever "
                   "the intervals say (e.g. 0.2 = 20 %).")
def command(paths: tuple[str, ...], fmt: str, max_breakpoints: int, min_sizes: int, max_error: float,
            **kw: Any) -> None:
    """Cost models of a campaign (or launch) folder: per alternative and operation, Hockney's
    T(m) = α + β·m with intervals, a piecewise version whose breakpoints mark protocol changes
    (eager/rendezvous), and the fit error per size, flagging sizes the model misses. Several
    PATHS are modelled together as alternatives. Exit 2 on bad input or when nothing can be
    modelled."""

    def body() -> int:
        from mpimeter.analysis.models import fit_models  # numpy, scipy: not before the command line is parsed
        from mpimeter.analysis.scalingmodels import fit_scaling_models

        res = analyze_together(paths, kw)
        if not res.rows:
            raise analysis.AnalysisError(no_data_message(paths, res))
        models = fit_models(res, max_breakpoints=max_breakpoints, min_sizes=min_sizes, error_threshold=max_error)
        in_p, in_p_skipped = fit_scaling_models(res, error_threshold=max_error)
        if not models.rows and not in_p:
            why = "; ".join([f"{a} {o}: {w}" for a, o, w in models.skipped]
                            + [f"{a} {o} in p: {w}" for a, o, w in in_p_skipped])
            raise analysis.AnalysisError(f"{' '.join(paths)}: no operation can be modelled ({why})")
        if fmt == "json":
            write_json(dict(models.to_dict(), command="model", paths=list(paths),
                            scaling_models=[r.to_dict(models.confidence) for r in in_p],
                            scaling_skipped=[{"alternative": a, "op": o, "reason": w} for a, o, w in in_p_skipped]))
        elif fmt == "csv":
            # one row per model in m: the models in m and p (another shape) are in the JSON only
            if in_p and not models.rows:
                raise analysis.AnalysisError(f"{' '.join(paths)}: --format csv holds the models in m, and this "
                                             "campaign has models in m and p only: use --format json")
            write_csv([_csv_row(r) for r in models.rows])
            if in_p:
                click.echo(f"note: {len(in_p)} model(s) in m and p are not in the CSV (one row per model in m): "
                           "--format json holds them", err=True)
        else:
            print_models(models, " ".join(paths))
            print_scaling_models(in_p, in_p_skipped, models.confidence)
        return EXIT_OK

    guarded("model", body)
