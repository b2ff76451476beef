"""Hoefler & Belli 2015's twelve rules of scientific benchmarking, checked for one campaign.

Each rule is marked `met`, `not met` or `n/a` with the reason, from what the analysis result,
the comparison and the launches' meta.json say — never from a guess about the user's intent:
a rule the tool cannot check (e.g. why a subset was benchmarked) is marked not met with what
the user has to state. The rule texts are quoted from the paper (§2–§5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mpimeter.io.meta import LaunchMeta
from mpimeter.report.metadata import rank_layout

MET, NOT_MET, NA = "met", "not met", "n/a"

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


@dataclass(frozen=True)
class RuleCheck:
    number: int
    text: str
    status: str  # met | not met | n/a
    reason: str


def check_rules(result, comparison=None, comparison_problem: str | None = None, *, bounds=None) -> list[RuleCheck]:
    """The twelve rules for `result` (an `analysis.AnalysisResult`) and, when there are several
    alternatives, its `comparison` (or the reason it could not be made); `bounds`: the
    `analysis.bounds.BoundsResult` the report shows (None: none shown)."""
    checks = [
        _rule1(), _rule2(result), _rule3(result), _rule4(), _rule5(result), _rule6(result),
        _rule7(result, comparison, comparison_problem), _rule8(), _rule9(result), _rule10(result),
        _rule11(bounds), _rule12(),
    ]
    return checks


def _check(n: int, status: str, reason: str) -> RuleCheck:
    return RuleCheck(n, RULE_TEXT[n], status, reason)


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
    rates = [r for r in result.rows if r.bandwidth_Bps is not None]
    extra = (f" Bandwidth of {len(rates)} point-to-point row(s) is the harmonic mean of rates."
             if rates else "")
    return _check(3, MET, "run times (costs) are summarized by the median and the arithmetic mean; "
                          "no rate is averaged arithmetically." + extra)


def _rule4() -> RuleCheck:
    return _check(4, MET, "ratios appear only in comparisons, as the ratio of two medians with its "
                          "interval; ratios are never averaged.")


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
    failed = sum(1 for r in result.rows if r.normal is False)
    return _check(6, MET, "medians and their intervals are nonparametric; the t interval of the "
                          "mean is checked with Shapiro–Wilk" +
                  (f" and fails for {failed} row(s), which are flagged." if failed else "."))


def _rule7(result, comparison, problem) -> RuleCheck:
    if len(result.alternatives) < 2:
        return _check(7, NA, "one alternative: nothing is compared.")
    if comparison is None:
        return _check(7, NOT_MET, "the alternatives could not be compared: " + (problem or "unknown reason")
                      + ". Do not read differences off the plots.")
    return _check(7, MET, f"{comparison.test}, {comparison.alternative}, with "
                          f"{comparison.correction} correction over {len(comparison.rows)} rows.")


def _rule8() -> RuleCheck:
    return _check(8, MET, "besides medians, every fingerprint shows min, quartiles, p95, p99, max, "
                          "the whole distribution (histogram, ECDF) and every repetition.")


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


def _rule12() -> RuleCheck:
    return _check(12, MET, "medians are plotted as points with their intervals; lines join them only "
                           "along message size as dashed guides; distributions are shown in full.")
