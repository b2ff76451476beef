# SPDX-License-Identifier: BSD-3-Clause
"""Hoefler & Belli 2015's twelve rules of scientific benchmarking, checked for one campaign.

Each rule is marked `met`, `not met` or `n/a` with the reason, from what the analysis result,
the comparison and the launches' meta.json say — never from a guess about the user's intent:
a rule the tool cannot check (e.g. why a subset was benchmarked) is marked not met with what
the user has to state. Rules about how results are summarized (3, 4, 6, 8, 12) are judged on the
data, not on what the tool does by construction: each check recomputes or counts what the
report shows and gives it as its ``evidence`` line; rule 7 is not met when no row of the
comparison can reach significance (the ``low-power`` warning) or when the sides ran wholly in
different machine states (``states-differ``): a rule is never met beside a warning of the same
report — the analysis's or the comparison's — that says the opposite (``CONTRADICTED_BY``).

Each check says its ``basis``: ``data`` when its status is decided by what the campaign
measured or recorded (it could come out either way), ``construction`` when the report meets it
whatever was measured (how the tool summarizes and plots; its evidence line still counts what
was shown). The rule texts are quoted from the paper (§2–§5).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mpimeter.io.meta import LaunchMeta
from mpimeter.report.metadata import rank_layout

MET, NOT_MET, NA = "met", "not met", "n/a"
DATA, CONSTRUCTION = "data", "construction"
# rules met by how the report is made, whatever the campaign measured: 1 (no speedup is shown),
# 8 (every percentile and repetition is shown), 12 (points with intervals, dashed guides)
BY_CONSTRUCTION = frozenset({1, 8, 12})
# warnings that say a rule does not hold: a "met" beside one of them is "not met"
CONTRADICTED_BY = {
    5: ("state-rare",),  # a state's median is shown without its interval
    7: ("low-power", "states-differ", "states-unmatched"),  # no power; different states; a mix compared pooled
}

RULE_TEXT = {
    1: "When publishing parallel speedup, report if the base case is a single parallel process "
       "or best serial execution, as well as the absolute execution performance of the base case.",
    2: "Specify the reason for only reporting subsets of standard benchmarks or applications or "
       "not using all system resources.",
    3: "Use the arithmetic mean only for summarizing costs. Use the harmonic mean for summarizing rates.",
    4: "Avoid summarizing ratios; summarize the costs or rates that the ratios base on instead.",
    5: "Report if the measurement values are deterministic. For nondeterministic data, report "
       "confidence intervals of the measurement.",
    6: "Do not assume normality of collected data (e.g., based on the number of samples) without "
       "diagnostic checking.",
    7: "Compare nondeterministic data in a statistically sound way, e.g., using non-overlapping "
       "confidence intervals or ANOVA.",
    8: "Carefully investigate if measures of central tendency such as mean or median are useful to "
       "report. Some problems, such as worst-case latency, may require other percentiles.",
    9: "Document all varying factors and their levels as well as the complete experimental setup "
       "(e.g., software, hardware, techniques) to facilitate reproducibility and provide interpretability.",
    10: "For parallel time measurements, report all measurement, (optional) synchronization, and "
        "summarization techniques.",
    11: "If possible, show upper performance bounds to facilitate interpretability of the measured results.",
    12: "Plot as much information as needed to interpret the experimental results. Only connect "
        "measurements by lines if they indicate trends and the interpolation is valid.",
}

# meta.json keys that document the setup (rule 9); a launch missing one is not documented.
SETUP_KEYS: tuple[tuple[str, Callable[[LaunchMeta], Any]], ...] = (
    ("mpi.library_version", lambda m: m.mpi.library_version), ("system.cpu_model", lambda m: m.system.cpu_model),
    ("system.kernel", lambda m: m.system.kernel), ("build.compiler", lambda m: m.build.compiler),
    ("tool.version", lambda m: m.tool.version), ("argv", lambda m: m.argv), ("config", lambda m: m.config.entries),
    ("ranks", lambda m: m.ranks))


@dataclass(frozen=True, kw_only=True)
class RuleCheck:
    number: int
    text: str
    status: str  # met | not met | n/a
    reason: str
    evidence: str = ""  # what in the data the status rests on (rules judged on the data)
    basis: str = DATA  # DATA: decided by what was measured; CONSTRUCTION: met by how the report is made


def check_rules(result, comparison=None, comparison_problem: str | None = None, *, bounds=None) -> list[RuleCheck]:
    """The twelve rules for `result` (an `analysis.AnalysisResult`) and, when there are several
    alternatives, its `comparison` (or the reason it could not be made); `bounds`: the
    `analysis.bounds.BoundsResult` the report shows (None: none shown)."""
    checks = [
        _rule1(), _rule2(result), _rule3(result), _rule4(result, comparison), _rule5(result), _rule6(result),
        _rule7(result, comparison, comparison_problem), _rule8(result), _rule9(result), _rule10(result),
        _rule11(bounds), _rule12(result),
    ]
    warned = {w.code: w for w in (*getattr(result, "warnings", ()), *getattr(comparison, "warnings", ()))}
    out = []
    for c in checks:
        said = next((warned[code] for code in CONTRADICTED_BY.get(c.number, ()) if code in warned), None)
        if c.status == MET and said is not None:
            c = RuleCheck(number=c.number, text=c.text, status=NOT_MET,
                          reason=f"a warning of this report says otherwise ({said.code}): {said.message}.",
                          evidence=c.evidence)
        out.append(replace(c, basis=CONSTRUCTION if c.number in BY_CONSTRUCTION else DATA))
    return out


def _check(n: int, status: str, reason: str, evidence: str = "") -> RuleCheck:
    return RuleCheck(number=n, text=RULE_TEXT[n], status=status, reason=reason, evidence=evidence)


def _where(r) -> str:
    return f"{r.alternative} {r.op} {r.size}"


def _rule1() -> RuleCheck:
    return _check(1, NA, "no speedup is reported; comparisons give the ratio of medians next to "
                         "both absolute medians.")


def _rule2(result) -> RuleCheck:
    short = []
    for li in result.campaign.launches:
        meta = li.meta
        ncpus = meta.system.ncpus
        nodes, _ = rank_layout(meta)
        nprocs = meta.nprocs
        if ncpus is not None and nodes and nprocs < ncpus * nodes:
            short.append(f"{li.alternative}/{li.index:03d}: {nprocs} ranks on {nodes} node(s) "
                         f"with {ncpus} CPUs each")
    if short:
        return _check(2, NOT_MET, "not all CPUs were used (" + short[0] +
                      (f"; and {len(short) - 1} more launches" if len(short) > 1 else "") +
                      "): state the reason with the results.")
    return _check(2, MET, "every launch used at least one rank per CPU of its nodes; all "
                          "operations and sizes measured are reported.")


def _rule3(result) -> RuleCheck:
    """Recomputed from the per-launch values: the mean of a row is the arithmetic mean of its
    launches' means, its rate the harmonic mean of their rates."""
    if not result.rows:
        return _check(3, NA, "no results.")
    bad_mean, bad_rate, rates = [], [], 0
    for r in result.rows:
        used = [s for s in r.per_launch if s.n > 0]
        if used and math.isfinite(r.mean_ns) and not math.isclose(r.mean_ns, float(np.mean([s.mean_ns for s in used])),
                                                                  rel_tol=1e-9):
            bad_mean.append(_where(r))
        if r.bandwidth_Bps is not None:
            per = [s.bandwidth_Bps for s in used if s.bandwidth_Bps]
            rates += 1
            if per and not math.isclose(r.bandwidth_Bps, len(per) / sum(1.0 / x for x in per), rel_tol=1e-9):
                bad_rate.append(_where(r))
    r0 = result.rows[0]
    evidence = (f"{len(result.rows)} rows: the mean equals the arithmetic mean of per-launch means "
                f"(e.g. {_where(r0)}: {r0.mean_ns:.4g} ns)"
                + (f"; {rates} rate(s) equal the harmonic mean of per-launch rates" if rates else "; no rate shown"))
    if bad_mean or bad_rate:
        return _check(3, NOT_MET, "a summary is not the mean the rule asks for: " +
                      ", ".join([f"mean of {w}" for w in bad_mean[:3]] + [f"rate of {w}" for w in bad_rate[:3]]) + ".",
                      evidence)
    return _check(3, MET, "costs are summarized by the median and the arithmetic mean; rates by the harmonic mean.",
                  evidence)


def _rule4(result, comparison) -> RuleCheck:
    """Ratios exist only in a comparison: one per row, none averaged over rows."""
    if comparison is None or not getattr(comparison, "rows", None):
        return _check(4, NA, "no comparison: no ratio is shown.", "0 ratios in the report")
    keys = [(r.a, r.b, r.op, r.size) for r in comparison.rows]
    if len(set(keys)) != len(keys):
        return _check(4, NOT_MET, "a ratio is shown more than once for one row.", f"{len(keys)} ratios, "
                      f"{len(set(keys))} rows")
    return _check(4, MET, "each ratio is of one (op, size), shown beside both medians; no ratio is averaged.",
                  f"{len(keys)} ratios for {len(keys)} compared rows; no summary over rows")


def _rule5(result) -> RuleCheck:
    without = [r for r in result.rows if r.median_ci_low_ns is None or r.median_ci_high_ns is None]
    if not result.rows:
        return _check(5, NA, "no results.")
    if without:
        fewest = min(r.launches for r in without)
        return _check(5, NOT_MET, f"{len(without)} of {len(result.rows)} rows have no confidence "
                      f"interval of the median (as few as {fewest} launch(es); a 95 % interval "
                      "needs at least 6): run more launches.")
    conf = result.rows[0].confidence
    return _check(5, MET, f"the data are nondeterministic; every row has a {conf:.0%} confidence "
                          "interval of the median across launches (Le Boudec ranks).")


def _rule6(result) -> RuleCheck:
    """Every row whose mean has a t interval must have had its normality checked."""
    if not result.rows:
        return _check(6, NA, "no results.")
    with_mean_ci = [r for r in result.rows if r.mean_ci_low_ns is not None]
    unchecked = [r for r in with_mean_ci if r.normal is None]
    failed = [r for r in result.rows if r.normal is False]
    evidence = (f"Shapiro–Wilk on per-launch means of {sum(r.normal is not None for r in result.rows)} of "
                f"{len(result.rows)} rows; rejects normality in {len(failed)}"
                + (f" (e.g. {_where(failed[0])}, p = {failed[0].normality_p:.2g})" if failed else ""))
    if unchecked:
        return _check(6, NOT_MET, f"{len(unchecked)} row(s) show a t interval of the mean without a normality "
                                  f"check (e.g. {_where(unchecked[0])}).", evidence)
    return _check(6, MET, "medians and their intervals are nonparametric; every t interval of the mean is "
                          "checked with Shapiro–Wilk" + (", and the rows that fail are flagged." if failed else "."),
                  evidence)


def _rule7(result, comparison, problem) -> RuleCheck:
    if len(result.alternatives) < 2:
        return _check(7, NA, "one alternative: nothing is compared.")
    if comparison is None:
        return _check(7, NOT_MET, "the alternatives could not be compared: " + (problem or "unknown reason")
                      + ". Do not read differences off the plots.")
    rows = comparison.rows
    sig = sum(bool(r.significant) for r in rows)
    evidence = (f"{comparison.test}, {comparison.alternative}, {comparison.correction} over {len(rows)} rows: "
                f"{sig} significant")
    warned = {w.code: w for w in reversed(getattr(comparison, "warnings", ()))}
    if "low-power" in warned:
        return _check(7, NOT_MET, "the comparison has no power: " + warned["low-power"].message
                      + ". Run more launches.", evidence)
    # a sound test of launches that ran in different machine states still compares the states
    if "states-differ" in warned:
        return _check(7, NOT_MET, "the sides are not comparable as measured: " + warned["states-differ"].message
                      + ". Run them interleaved in one campaign.", evidence)
    return _check(7, MET, f"{comparison.test}, {comparison.alternative}, with {comparison.correction} correction "
                          f"over {len(rows)} rows; each ratio's interval is at the level Holm tested its row at.",
                  evidence)


def _rule8(result) -> RuleCheck:
    """Whether the median alone would mislead is read off the data: how far the tail (p99 of a
    launch) lies from its median; the report shows percentiles and every repetition either way."""
    # an imported aggregate is one value per test and run: its "p99" is that value, no tail
    # (docs/FORMAT.md, "Imported launches"), and it has no fingerprint (analysis.fingerprint)
    aggregated = {(li.alternative, li.index) for li in result.campaign.launches
                  if li.meta.origin is not None and li.meta.origin.aggregates}
    per = [(s.p99_ns / s.median_ns, s) for s in result.launch_summaries if s.n > 0 and s.median_ns > 0
           and math.isfinite(s.p99_ns) and (s.alternative, s.launch) not in aggregated] if result.rows else []
    if not per:
        return _check(8, NA, "imported aggregates only: the tool printed one value per test and run, no "
                             "distribution to show beside it." if aggregated and result.rows else "no results.")
    worst, s = max(per, key=lambda x: x[0])
    heavy = sum(1 for x, _ in per if x > 2)
    evidence = (f"p99 / median per launch and test: up to {worst:.2f} ({s.alternative} {s.op} {s.size}, launch "
                f"{s.launch}); above 2 in {heavy} of {len(per)}")
    return _check(8, MET, "besides medians, every fingerprint shows min, quartiles, p95, p99, max, the whole "
                          "distribution (histogram, ECDF) and every repetition"
                  + (" — needed here: the tails lie far from the medians." if heavy else "."), evidence)


def _rule9(result) -> RuleCheck:
    missing = set()
    for li in result.campaign.launches:
        for name, value in SETUP_KEYS:
            if not value(li.meta):
                missing.add(name)
    if missing:
        return _check(9, NOT_MET, "meta.json lacks " + ", ".join(sorted(missing)) +
                      " in some launches; add it to the report by hand.")
    return _check(9, MET, "every launch's meta.json (software, hardware, configuration, placement, "
                          "environment, load) is in the provenance section; factors that vary "
                          "between launches are listed.")


def _rule10(result) -> RuleCheck:
    unknown = [li for li in result.campaign.launches
               if not li.meta.clock_sync.recorded or not li.meta.proc_sync.recorded]
    if unknown:
        return _check(10, NOT_MET, f"{len(unknown)} launch(es) do not record their clock or process "
                                   "synchronization method.")
    return _check(10, MET, "the method section states the timer, process and clock "
                           "synchronization, how a run time is formed over ranks, the outlier "
                           "filter and the summaries.")


def _rule11(bounds) -> RuleCheck:
    if bounds is None or not bounds.rows:
        why = "; ".join(bounds.missing) if bounds is not None and bounds.missing else "no bound was computed"
        return _check(11, NOT_MET, f"no operation is shown against a bound ({why}): run launches with the bound "
                                   "probes (mpimeter-bench records them by default).")
    ops = sorted({b.op for b in bounds.rows})
    beats = sorted({f"{b.alternative} {b.op}" for b in bounds.rows if b.beats})
    return _check(11, MET, f"{', '.join(ops)} are plotted against the bound they cannot beat (latency floor + "
                           "least data volume / copy bandwidth, measured in every launch) in \"Model and bounds\", "
                           "with the fraction of the bound each size reaches"
                  + (f"; below their bound at some size (premise failed, said there): {', '.join(beats)}." if beats
                     else "."))


def _rule12(result) -> RuleCheck:
    """The points the report plots and where lines join them: only along message size, within
    one (alternative, op), where it has at least two sizes."""
    if not result.rows:
        return _check(12, NA, "no results.")
    series: dict[tuple[str, str], int] = {}
    for r in result.rows:
        series[(r.alternative, r.op)] = series.get((r.alternative, r.op), 0) + 1
    joined = sum(1 for n in series.values() if n >= 2)
    with_ci = sum(1 for r in result.rows if r.median_ci_low_ns is not None)
    evidence = (f"{len(result.rows)} medians plotted ({with_ci} with intervals) in {len(series)} series; dashed "
                f"guides join sizes in {joined} series of ≥ 2 sizes")
    return _check(12, MET, "medians are plotted as points with their intervals; lines join them only along "
                           "message size as dashed guides; distributions are shown in full.", evidence)
