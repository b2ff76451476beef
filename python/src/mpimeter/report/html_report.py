# SPDX-License-Identifier: BSD-3-Clause
"""The campaign report: one self-contained HTML file.

Sections: summary, warnings (every warning of `analyze` and `compare`), results per operation
(run time against size with the CI of the median, per-launch medians side by side with the
stars of `compare`, the launch-to-launch spread — see `overview`; for nonblocking collectives
also overhead, blocking time and overlap against size — see `nonblocking`), one fingerprint per
(alternative, op, size) collapsed by default (see `fingerprint`), the spread table, the method
(rule 10), the provenance (rule 9) and the checklist of Hoefler & Belli's twelve rules; "Model
and bounds" shows each operation's cost model and the bound it cannot beat (rule 11, see
`models_bounds`).

Self-contained: images are PNG data: URIs, the style is inline, there is no script, and a
Content-Security-Policy forbids any load from the network. Every user-given value is escaped.

Speed: one matplotlib figure per operation; the fingerprints are inline SVG drawn by
`fingerprint_svg` (milliseconds each), so a campaign of 400 tests takes seconds, not minutes.
The per-repetition scatter plots are thinned for display (`max_points`), never the statistics.
"""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mpimeter import __version__
from mpimeter.analysis import ONE_WAY_NOTE, OVERHEAD_LABEL, OVERHEAD_NOTE, ratio_estimator_text, time_quantity
from mpimeter.analysis.bounds import bounds as compute_bounds
from mpimeter.analysis.fingerprint import no_distribution
from mpimeter.analysis.models import fit_models
from mpimeter.analysis.results import MEAN_NOTE
from mpimeter.atomic import write_atomic
from mpimeter.report import counters as _counters
from mpimeter.report import figures as fg
from mpimeter.report import html as h
from mpimeter.report.fingerprint import FingerprintData, fingerprint_data, test_facts
from mpimeter.report.fingerprint_svg import fingerprint_svg
from mpimeter.report.guidelines import guidelines_section
from mpimeter.report.opcomparisons import opcomparisons_section
from mpimeter.report.tuning import tuning_section
from mpimeter.report.metadata import LaunchFacts, campaign_facts
from mpimeter.report.allocations import allocations_html
from mpimeter.report.states import states_html
from mpimeter.report.models_bounds import models_bounds_section
from mpimeter.report.nonblocking import draw_nonblocking, nonblocking_html
from mpimeter.report.overview import draw_operation
from mpimeter.report.scaling import scaling_section
from mpimeter.report.provenance import method_section, provenance_section, slug
from mpimeter.report.adaptive import ADDED_MARK, ADDED_NOTE, added_sizes
from mpimeter.report.rules import check_rules
from mpimeter.units import format_bytes, format_interval, format_ns, format_number, format_size

SECTIONS = (("summary", "Summary"), ("warnings", "Warnings"), ("operations", "Results per operation"),
            ("bounds", "Model and bounds"), ("fingerprints", "Fingerprints"), ("spread", "Launch-to-launch spread"),
            ("guidelines", "Guideline violations"), ("method", "Method"), ("provenance", "Provenance"),
            ("rules", "The twelve rules"))


@dataclass(frozen=True)
class ReportInfo:
    path: Path
    bytes: int
    seconds: float
    figures: int
    fingerprints: int


def build_report(result, comparison=None, *, comparison_problem: str | None = None,
                 title: str | None = None, max_points: int = 1500,
                 sources: Sequence[str | Path] = (), models=None, bounds=None) -> tuple[str, int]:
    """The HTML text of the report and the number of fingerprints in it. `result`: an
    `analysis.AnalysisResult`; `comparison`: its `analysis.ComparisonResult` when there are
    several alternatives (or None, with `comparison_problem` saying why); `sources`: the
    folders the campaign was loaded from, named in the default title (default: its path);
    `models` and `bounds`: `analysis.models.fit_models(result)` and
    `analysis.bounds.bounds(result)`, computed here when not given."""
    models = fit_models(result) if models is None else models
    bounds = compute_bounds(result) if bounds is None else bounds
    alts = list(result.alternatives)
    ops = sorted({r.op for r in result.rows})
    folders = [str(s) for s in sources] or [str(result.campaign.path)]
    title = title or f"mpimeter report — {' vs '.join(folders)}"
    comp_rows = list(comparison.rows) if comparison is not None else []
    hypothesis = comparison.alternative if comparison is not None else "two-sided"

    added = added_sizes(result.campaign.launches)  # --sizes auto: marked in the figures and tables
    op_jobs = [(op, [r for r in result.rows if r.op == op], alts,
                [c for c in comp_rows if c.op == op], hypothesis, result.size_unit(op),
                frozenset((a, s) for a, o, s in added if o == op)) for op in ops]
    op_images = {job[0]: _render_operation(job) for job in op_jobs}
    nbc_ops = sorted({r.op for r in result.nbc_rows})
    nbc_images = {op: _render_nonblocking(op, [r for r in result.nbc_rows if r.op == op], alts, result.size_unit(op))
                  for op in nbc_ops}
    undrawn = {alt: why for alt in alts if (why := no_distribution(result.campaign, alt)) is not None}
    fp_jobs = _fingerprint_jobs(result, [a for a in alts if a not in undrawn], alts)
    fp_svgs = [fingerprint_svg(d, max_points=max_points) for d in fp_jobs]

    body = [h.tag("h1", h.esc(title)),
            h.tag("p", h.esc(f"Generated {_dt.datetime.now(_dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} "
                             f"by mpimeter {__version__} from {', '.join(folders)}."), class_="lead"),
            h.tag("nav", " ".join(h.tag("a", h.esc(t), href=f"#{i}") for i, t in SECTIONS), class_="toc")]
    body.append(h.section("summary", "Summary", _summary(result, comparison, comparison_problem, ops, undrawn)))
    body.append(h.section("warnings", "Warnings", _warnings(result, comparison, comparison_problem)))
    body.append(h.section("operations", "Results per operation",
                          _operations(result, ops, op_images, comparison, nbc_images, added)))
    body.append(h.section("bounds", "Model and bounds", models_bounds_section(result, models, bounds)))
    scaling = scaling_section(result)
    if scaling:  # a campaign at several p or roots
        body.append(h.section("scaling", "Scaling with the number of processes", scaling))
    body.append(h.section("fingerprints", "Fingerprints",
                          _counters.cost_html(result.counters, result.size_unit) +
                          _fingerprints(fp_jobs, fp_svgs, result.counters, max_points) +
                          "".join(h.tag("p", h.esc(f"No fingerprint: {why}.")) for why in undrawn.values())))
    body.append(h.section("spread", "Launch-to-launch spread", _spread(result, ops) + states_html(result) +
                          allocations_html(result)))
    body.append(h.section("guidelines", "Guideline violations", guidelines_section(result)))
    op_comparisons = opcomparisons_section(result, _comparison_table)
    if op_comparisons:  # a suite's comparisons, SKaMPI's standard ones of the pairs measured
        body.append(h.section("opcomparisons", "Comparisons between operations", op_comparisons))
    tuning = tuning_section(result)
    if tuning:  # a campaign of a library's own collective algorithms
        body.append(h.section("tuning", "Tuning", tuning))
    body.append(h.section("method", "Method", method_section(result, comparison)))
    body.append(h.section("provenance", "Provenance",
                          provenance_section(result, result.campaign.campaign_record)))
    body.append(h.section("rules", "The twelve rules", _rules(result, comparison, comparison_problem, bounds)))
    return h.page(title, "".join(body)), len(fp_jobs)


def write_report(path: str | Path, result, comparison=None, **options) -> ReportInfo:
    """Builds the report and writes it atomically to `path`."""
    start = time.perf_counter()
    text, fingerprints = build_report(result, comparison, **options)
    path = Path(path)
    write_atomic(path, text.encode("utf-8"))
    return ReportInfo(path, path.stat().st_size, time.perf_counter() - start,
                      len({r.op for r in result.rows}) + len({r.op for r in result.nbc_rows}) + fingerprints,
                      fingerprints)


# ---------------------------------------------------------------------------------------------
# Figures


def _render_operation(job) -> str:
    """The operation's figure as PNG; the same figure drawn once per process (`figures.png_of`:
    the job is everything it shows)."""
    op, rows, alts, comp, hypothesis, unit, added = job
    return fg.png_of(("operation", job), lambda: draw_operation(op, rows, alts, comp, hypothesis=hypothesis,
                                                                 size_unit=unit, added=added), dpi=90)


def _render_nonblocking(op: str, rows: list, alts: list[str], unit: str) -> str:
    """The nonblocking figure of ``op`` (``rows``: its rows alone) as PNG, once per process as above."""
    return fg.png_of(("nonblocking", op, rows, alts, unit),
                     lambda: draw_nonblocking(op, rows, alts, size_unit=unit), dpi=90)


def _fingerprint_jobs(result, drawn: list[str], alts: list[str]) -> list[FingerprintData]:
    """One FingerprintData per (alternative, op, size) of the ``drawn`` alternatives, sorted by
    op, size and the alternative's place in ``alts``. The
    repetition and rank tables are split into plain arrays once, instead of being filtered
    per test (400 filters of millions of rows would take longer than the whole report)."""
    reps = _split(result.repetitions, ("alternative", "op", "size", "launch", "test", "rep", "valid",
                                       "kept", "run_time_ns", "category", "nprocs", "root", "workpieces"))
    ranks = _split(result.rank_durations(), ("alternative", "op", "size", "launch", "test", "rank", "rep",
                                             "duration_ns", "valid"))
    facts: dict[tuple, LaunchFacts] = {}  # per alternative and set of launches (one p each, --np LIST)
    for row in result.rows:
        if row.alternative in drawn:
            key = (row.alternative, frozenset(s.launch for s in row.per_launch))
            if key not in facts:
                facts[key] = test_facts(result, row)
    order = sorted((r for r in result.rows if r.alternative in drawn),
                   key=lambda r: (r.op, r.size, alts.index(r.alternative)))
    return [fingerprint_data(result, row.op, row.size, row.alternative,
                             repetitions=reps(row.alternative, row.op, row.size),
                             rank_durations=ranks(row.alternative, row.op, row.size),
                             facts=facts[row.alternative, frozenset(s.launch for s in row.per_launch)],
                             nprocs=row.nprocs, root=row.root,
                             workpieces=row.workpieces)
            for row in order]


def _split(frame: pd.DataFrame, columns: Sequence[str]):
    """A function (alternative, op, size) → the rows of `frame` for that test, as a small
    DataFrame of plain numpy columns."""
    groups = frame.groupby(["alternative", "op", "size"], sort=False, observed=True).indices
    arrays = {c: frame[c].to_numpy(dtype=str if c == "category" else None) for c in columns if c in frame.columns}
    empty = np.array([], dtype=np.int64)

    def rows(alternative: str, op: str, size: int) -> pd.DataFrame:
        idx = groups.get((alternative, op, size), empty)
        return pd.DataFrame({c: a[idx] for c, a in arrays.items()})

    return rows


# ---------------------------------------------------------------------------------------------
# Sections


def _coverage(result, undrawn: dict[str, str]) -> str:
    """What the report below shows of each median and repetition, as it is: a campaign of too
    few launches has no interval, imported aggregates no fingerprint (``undrawn``: why)."""
    without = sum(r.median_ci_low_ns is None for r in result.rows)
    if without == 0:
        intervals = "Every median below comes with its interval"
    elif without == len(result.rows):
        intervals = "No median below has an interval (see the warnings: too few launches)"
    else:
        intervals = (f"{len(result.rows) - without} of {len(result.rows)} medians below come with their interval "
                     f"(see the warnings for the others)")
    drawn = [a for a in result.alternatives if a not in undrawn]
    if not drawn:
        fingerprints = "no fingerprint is drawn: " + "; ".join(dict.fromkeys(undrawn.values()))
    elif undrawn:
        fingerprints = f"the fingerprints show every repetition of {', '.join(drawn)}"
    else:
        fingerprints = "the fingerprints show every repetition"
    return f"{intervals}; {fingerprints}."


def _summary(result, comparison, problem, ops, undrawn: dict[str, str]) -> str:
    rows = []
    for alt in result.alternatives:
        launches = result.campaign.launches_of(alt)
        facts = campaign_facts(launches)
        mine = [r for r in result.rows if r.alternative == alt]
        lib = dict(facts.lines).get("MPI", "unknown")
        complete = sum(li.status == "complete" for li in launches)
        # launches that were cut off are counted apart: "10" where 7 stopped early claimed too much
        count = str(len(launches)) if complete == len(launches) else f"{complete} complete of {len(launches)}"
        rows.append((alt, count, facts.layout, lib,
                     str(len({r.op for r in mine})), str(len({(r.op, r.size) for r in mine})),
                     str(sum(r.repetitions for r in mine))))
    table = h.table(("alternative", "launches", "ranks", "MPI library", "operations", "tests",
                     "repetitions"), rows, numeric=(False, True, False, False, True, True, True))
    text = (f"{len(result.alternatives)} alternative(s), {len(ops)} operation(s), "
            f"{len(result.rows)} result rows; {_warning_count(result, comparison, problem)} warning(s). "
            + _coverage(result, undrawn))
    if comparison is not None:
        significant = sum(1 for c in comparison.rows if c.significant)
        text += (f" Comparison: {significant} of {len(comparison.rows)} (op, size) differ "
                 f"significantly ({comparison.test}, {comparison.alternative}, {comparison.correction}).")
    elif len(result.alternatives) > 1:
        text += f" No comparison: {problem or 'not requested'}."
    overhead = result.measurement_overhead
    if overhead:
        several = len(result.alternatives) > 1
        table += h.tag("p", h.tag("b", h.esc(OVERHEAD_LABEL.capitalize() + ": ")) + h.esc(
            "; ".join(o.text(name_alternative=several) for o in overhead) + f" — {OVERHEAD_NOTE}."),
            class_="overhead")
    if result.back_to_back:
        from mpimeter.analysis.back_to_back import BACK_TO_BACK_NOTE

        several = len(result.alternatives) > 1
        lines = [f"{b.alternative + ' ' if several else ''}{b.op} {format_size(b.size, result.size_unit(b.op))}"
                 f"{' (one-way)' if b.one_way else ''}: "
                 f"{b.text()}" for b in result.back_to_back]
        table += h.tag("p", h.tag("b", h.esc("Single call and back-to-back: ")) + h.esc(
            "; ".join(lines) + f" — {BACK_TO_BACK_NOTE}."), class_="back-to-back")
    return h.tag("p", h.esc(text)) + table


def _all_warnings(result, comparison) -> list:
    warnings = list(result.warnings)
    if comparison is not None:
        warnings += [w for w in comparison.warnings if w not in warnings]
    return warnings


def _not_compared(result, problem) -> bool:
    return bool(problem) and len(result.alternatives) > 1


def _warning_count(result, comparison, problem) -> int:
    """What the Warnings section lists, so that the Summary says the same number."""
    return len(_all_warnings(result, comparison)) + _not_compared(result, problem)


def _warnings(result, comparison, problem) -> str:
    warnings = _all_warnings(result, comparison)
    items = []
    if _not_compared(result, problem):
        items.append(h.tag("div", h.tag("span", "comparison", class_="code") + " " +
                           h.tag("div", h.esc(f"The alternatives were not compared: {problem}")),
                           class_="warning"))
    for w in warnings:
        where = f" — {w.where}" if getattr(w, "where", None) else ""
        items.append(h.tag("div", h.tag("span", h.esc(w.code + where), class_="code") +
                           h.tag("div", h.esc(w.message)) +
                           h.tag("div", h.tag("b", "Next step: ") + h.esc(w.hint)),
                           class_="warning"))
    if not items:
        return h.tag("p", "No warnings: the analysis found nothing to caution about.", class_="ok")
    return h.tag("p", h.esc(f"{len(items)} warning(s), each with a next step.")) + "".join(items)


def _operations(result, ops, images, comparison, nbc_images, added=frozenset()) -> str:
    parts = [h.tag("p", h.esc(
        "Per operation: (a) the median of the per-launch medians with its confidence interval "
        "against message size (points; dashed lines only guide the eye, rule 12); (b) every "
        "launch's median relative to the first alternative's median at that size, alternatives "
        "side by side with the significance stars of the comparison (Hunold & Carpen-Amarie "
        "2016, Fig. 10–11); (c) each launch's median relative to the median of all launches, in "
        "the order the launches ran."))]
    for op in ops:
        rows = [r for r in result.rows if r.op == op]
        one_way = any(r.one_way for r in rows)
        parts.append(h.tag("h3", h.esc(op + (" — one-way latency" if one_way else "")), id=f"op-{slug(op)}"))
        if one_way:
            parts.append(h.tag("p", h.esc(f"Times are one-way latencies: {ONE_WAY_NOTE}.")))
        parts.append(h.image(images[op], f"{op}: {time_quantity(one_way)} against size, per-launch medians and spread"))
        table_rows = []
        several_p = len({r.nprocs for r in rows}) > 1
        for r in sorted(rows, key=lambda r: (r.size, r.nprocs, result.alternatives.index(r.alternative))):
            mean = format_ns(r.mean_ns)  # a point value: no interval (MEAN_NOTE, said in the provenance)
            if r.normal is False:
                mean += " (per-launch means not normal)"
            bw = "–" if r.bandwidth_Bps is None else f"{format_number(r.bandwidth_Bps / 2**20)} MiB/s"
            size = format_size(r.size, result.size_unit(op))
            if (r.alternative, op, r.size) in added:
                size += f" ({ADDED_MARK})"
            if several_p:
                size += f", p = {r.nprocs}"
            table_rows.append((r.alternative, size, str(r.launches),
                               format_ns(r.median_ns), format_interval(r.median_ci_low_ns, r.median_ci_high_ns),
                               mean, "–" if r.launches < 2 else f"{format_number(r.spread)}×",
                               str(r.outliers_removed), str(r.invalid), bw))
        parts.append(h.table(("alternative", "size", "launches", "median", f"{rows[0].confidence:.0%} CI",
                              "mean", "spread", "outliers removed", "invalid",
                              "bandwidth (harmonic mean)"), table_rows,
                             numeric=(False, True, True, True, True, True, True, True, True, True)))
        if any(o == op for _, o, _ in added):
            parts.append(h.tag("p", h.esc(f"{ADDED_NOTE}; hollow diamonds in the figure."), class_="note"))
        if op in nbc_images:
            parts.append(nonblocking_html(op, [r for r in result.nbc_rows if r.op == op], result, nbc_images[op]))
        if comparison is not None:
            comp = [c for c in comparison.rows if c.op == op]
            if comp:
                parts.append(_comparison_table(op, comp, comparison, result.size_unit(op)))
    return "".join(parts)


def _comparison_table(op, comp, comparison, unit: str) -> str:
    """The comparison rows of one operation. The ratio column is the estimator of its interval
    (Hodges–Lehmann by default: the median of all pairwise ratios, not median b / median a), so
    it is labelled as such; the plain ratio of medians stands next to it."""
    methods = list(dict.fromkeys(c.ratio_ci_method for c in comp))
    estimator = ("paired Hodges–Lehmann ratio b/a" if all(m.startswith("paired-hodges-lehmann") for m in methods) else
                 "Hodges–Lehmann ratio b/a" if methods[0].startswith(("hodges-lehmann", "paired-hodges-lehmann")) else
                 "bootstrap ratio b/a")
    designs = list(dict.fromkeys(f"{c.design}: {c.design_reason}" for c in comp if c.design_reason))
    rows = []
    for c in sorted(comp, key=lambda c: (c.size, c.a, c.b)):
        ratio_ci = format_interval(c.ratio_ci_low, c.ratio_ci_high, lambda x: format_number(x, 4))
        # the two ratios on opposite sides of 1: the launches are not a shift of each other (clusters, a bimodal
        # side); said in the row, and the decision is the rank-sum test's, whose estimator is the HL ratio
        apart = (c.ratio_of_medians - 1) * (c.ratio - 1) < 0
        rows.append((format_size(c.size, unit), f"{c.a} vs {c.b}", format_ns(c.median_a_ns),
                     format_ns(c.median_b_ns), format_number(c.ratio_of_medians, 4) + (" †" if apart else ""),
                     f"{format_number(c.ratio, 4)} {ratio_ci}", f"{c.p_value:.3g} ({c.p_method})",
                     f"{c.p_adjusted:.3g}", "yes" if c.significant else "no",
                     h.tag("span", h.esc(c.stars or "n.s."), class_="stars")))
    escaped = [tuple(h.esc(x) for x in r[:-1]) + (r[-1],) for r in rows]
    caption = (f"Comparison (> 1: b is slower). median b / median a: the ratio of the medians of per-launch "
               f"medians; {estimator}: the {'; '.join(ratio_estimator_text(m) for m in methods)}, its interval at "
               "the level Holm tested "
               "the row at, so that it excludes 1 where the row is significant (the decision and its interval are "
               "one procedure). †: the two ratios lie on opposite sides of 1 — the launches of a and b are not a "
               "shift of each other (look for launch clusters); the decision goes with the Hodges–Lehmann ratio. "
               f"p: {comparison.test} (how it was computed in brackets)"
               + (f"; design: {'; '.join(designs)}" if designs else "") + "; significant: "
               f"p (Holm) ≤ α = {comparison.alpha:g}; stars only on significant rows: * ≤ .05, ** ≤ .01, *** ≤ .001.")
    return (h.tag("p", h.esc(caption), class_="caption") +
            h.table(("size", "a vs b", "median a", "median b", "median b / median a", f"{estimator} [CI]", "p",
                     "p (Holm)", "significant", "stars"), escaped,
                    numeric=(True, False, True, True, True, True, True, True, False, False), raw=True))


def _fingerprints(datas: list[FingerprintData], svgs: list[str], counters=None, max_points: int = 1500) -> str:
    parts = [h.tag("p", h.esc(
        "One MPI-MiBFi (Roth 2021 §4.7) per test and alternative; click to open. Colors are the "
        "categories of Roth §4.5: first, warm-up, outlier, good. Statistics are over the kept "
        "repetitions of all launches pooled; histograms and the ECDF use every valid "
        "repetition; per-repetition panels may show a subset of the points (the figure says so)."))]
    current_op = None
    # a test at one of several (p, root) says which in its title and id
    several = len({(d.alternative, d.op, d.size) for d in datas}) < len(datas)
    for data, plot in zip(datas, svgs):
        if data.op != current_op:
            current_op = data.op
            parts.append(h.tag("h3", h.esc(data.op), id=f"fp-op-{slug(data.op)}"))
        s = data.summary
        summary = (f"{h.esc(data.op)} · {h.esc(format_size(data.size, data.size_unit))}"
                   f"{h.esc(data.where) if several else ''} · "
                   f"{h.esc(data.alternative)} — median of launch medians {h.esc(data.across_median)}")
        stats = h.table(("n kept", "removed", "invalid", "min", "q1", "median", "mean", "q3", "p95",
                         "p99", "max"),
                        [(str(s.n), str(data.removed), str(data.invalid)) +
                         tuple(format_ns(v) for v in (s.min, s.q1, s.median, s.mean, s.q3, s.p95,
                                                      s.p99, s.max))],
                        numeric=(True,) * 11)
        facts = h.key_values([("operation", data.op), ("size", format_size(data.size, data.size_unit)),
                              ("alternative", data.alternative)] + list(data.facts.lines) +
                             [("outlier filter", data.outlier_filter),
                              ("spread of launch medians", data.spread), ("run time", data.clock_note)]
                             + [("median per state", t) for t in data.per_state])
        body = (stats + plot + _counters.fingerprint_counters_html(counters, data.alternative, data.op, data.size,
                                                                   data.quantity, max_points=max_points) +
                h.details("Experiment", facts))
        at = (f"-p{data.nprocs}" + ("" if data.root is None else f"-r{data.root}")
              + ("" if data.workpieces is None else f"-w{data.workpieces}") if several else "")
        parts.append(h.tag("div", h.details(summary, body, id_=f"fp-{slug(data.alternative)}-"
                                                               f"{slug(data.op)}-{data.size}{at}"),
                           class_="fingerprint", data_op=data.op, data_size=str(data.size),
                           data_alternative=data.alternative))
    return "".join(parts)


def _spread(result, ops) -> str:
    parts = [h.tag("p", h.esc(
        "Spread = max / min of the per-launch medians of a test (1.00× = every launch gave the "
        "same median). A launch is a factor of its own (Hunold & Carpen-Amarie 2016 §4.2): a "
        "large spread means one mpirun does not predict the next. The colored maps in (c) of "
        "each operation show which launches deviate."))]
    several_p = len({r.nprocs for r in result.rows}) > 1
    for alt, ranks in sorted({(r.alternative, r.nprocs) for r in result.rows},
                             key=lambda k: (result.alternatives.index(k[0]), k[1])):
        # one table per alternative and p; a rooted op's row is its first root's
        rows = [r for r in result.rows if r.alternative == alt and r.nprocs == ranks]
        sizes = sorted({r.size for r in rows})
        by: dict[tuple[str, int], object] = {}
        for r in rows:
            by.setdefault((r.op, r.size), r)
        header = ["operation"] + [format_bytes(s) for s in sizes]
        table_rows = []
        for op in ops:
            cells = [op]
            for size in sizes:
                r = by.get((op, size))
                cells.append("" if r is None else ("one launch" if r.launches < 2 else
                                                   f"{format_number(r.spread)}×"))
            table_rows.append(cells)
        parts.append(h.tag("h3", h.esc(f"Alternative {alt}" + (f", p = {ranks}" if several_p else ""))) +
                     h.table(header, table_rows, numeric=[False] + [True] * len(sizes)))
    return "".join(parts)


def _rules(result, comparison, problem, bounds) -> str:
    checks = check_rules(result, comparison, problem, bounds=bounds)
    klass = {"met": "met", "not met": "notmet", "n/a": "na"}
    rows = [(str(c.number), h.esc(c.text), h.tag("span", h.esc(c.status), class_=f"badge {klass[c.status]}"),
             h.esc(c.reason) + (h.tag("div", h.esc("evidence: " + c.evidence)) if c.evidence else "")
             + h.tag("div", h.esc("checked from the data" if c.basis == "data" else "holds by construction")))
            for c in checks]
    met = sum(1 for c in checks if c.status == "met")
    return (h.tag("p", h.esc(f"Hoefler & Belli 2015, \"Scientific benchmarking of parallel computing "
                             f"systems\": {met} of 12 rules met by this campaign and report.")) +
            h.table(("rule", "text", "status", "why"), rows, raw=True))
