# SPDX-License-Identifier: BSD-3-Clause
"""The analysis: campaign folder → per-launch per-test summaries → across-launch results.

This package is where the statistics of ``mpimeter.stats`` meet the data of ``mpimeter.io``.
Its results are frozen dataclasses that ``mpimeter.report`` and the CLI present without
computing anything statistical of their own (CONTRIBUTING.md, principle 1).

The flow follows Hunold & Carpen-Amarie 2016, Algorithm 3 (§5.1), with the launch (one mpirun)
as the unit of replication (§4.2):

1. run time of every repetition (global: max gend − min gstart over ranks; local: max over
   ranks of end − start), invalid repetitions dropped and counted;
2. Roth 2021 §4.5 categories first / warmup / outlier / good per launch and test, optional
   dropping of the warm-up;
3. an outlier filter per launch and test (tukey, none, mpibench, trim25), then a summary;
4. across launches: the median of per-launch medians with Le Boudec's order-statistic interval
   (Hoefler & Belli 2015 §3.1.3), the mean of per-launch means with a t interval and a
   Shapiro–Wilk check, the launch-to-launch spread;
5. across ranks: Friedman's test on per-launch per-rank median local durations, launches as
   blocks (Hoefler & Belli §4.2.1), for operations whose ranks should finish together;
6. ``compare``: Wilcoxon rank-sum on per-launch medians (§5.2; exact p whenever computable),
   Holm correction, stars at α, ratio b/a with an interval; ``gate``: one-sided test of a
   slowdown beyond a threshold.

Public API (stable; docs/FORMAT.md documents the JSON written from it), imported from
``mpimeter.analysis`` — the modules below are its layout, not import paths to rely on:

- :func:`load_campaign` / :func:`load_campaigns` → :class:`Campaign`   (``loading``)
- :func:`analyze` → :class:`AnalysisResult`   (``pipeline``; the records in ``results``,
  the warnings about what it found in ``diagnostics``)
- :func:`compare` → :class:`ComparisonResult`   (``comparison``)
- :func:`gate` → :class:`GateResult`   (``gating``; what it shares with ``compare`` in ``groups``)
- :func:`compare_ops` → :class:`ComparisonResult`: two operations of one alternative (``opcompare``)
- ``scaling``: rows keyed by (op, size, p, root) — time against p and the root's effect; the
  models in m and p are in ``scalingmodels`` (statistics: ``mpimeter.stats.scalingmodel``)

The pure statistics are in ``mpimeter.stats``, the reading in ``mpimeter.io``; what is left
here is orchestration and the warnings.
"""

from mpimeter import SCHEMA_VERSION
from mpimeter.analysis.choices import (ALTERNATIVES, CLOCKS, METRICS, OUTLIERS, RATIO_CIS, Alternative, Clock, Outlier,
                                       RatioCI)
from mpimeter.io.errors import AnalysisWarning, InputError


# The rest is imported when first asked for (module __getattr__): the modules below load numpy,
# pandas and scipy, which `mpimeter SUBCOMMAND --help` must not wait for.
def _comparison():
    from mpimeter.analysis import comparison
    return comparison


def _gating():
    from mpimeter.analysis import gating
    return gating


def _groups():
    from mpimeter.analysis import groups
    return groups


def _loading():
    from mpimeter.analysis import loading
    return loading


def _opcompare():
    from mpimeter.analysis import opcompare
    return opcompare


def _pipeline():
    from mpimeter.analysis import pipeline
    return pipeline


def _results():
    from mpimeter.analysis import results
    return results


def _scaling():  # the module itself; `import … as` does not ask this module's __getattr__ for it
    import mpimeter.analysis.scaling as scaling_module
    return scaling_module


_LAZY = {
    **dict.fromkeys(("ComparisonResult", "ComparisonRow", "OmnibusRow", "compare", "ratio_estimator_text"),
                    _comparison),
    **dict.fromkeys(("GateResult", "GateRow", "gate"), _gating),
    "p_method_text": _groups,
    **dict.fromkeys(("AnalysisError", "Campaign", "LaunchInfo", "load_campaign", "load_campaigns"), _loading),
    "compare_ops": _opcompare,
    "analyze": _pipeline,
    **dict.fromkeys(("ONE_WAY_NOTE", "OVERHEAD_LABEL", "OVERHEAD_NOTE", "AnalysisResult", "AnalysisSettings",
                     "LaunchSummary", "MeasurementOverhead", "RankTest", "Row", "time_quantity"), _results),
}


def __getattr__(name: str):
    if name == "scaling":
        value = _scaling()
    elif name in _LAZY:
        value = getattr(_LAZY[name](), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    # reading
    "load_campaign", "load_campaigns", "Campaign", "LaunchInfo",
    # analyze
    "analyze", "AnalysisResult", "AnalysisSettings", "LaunchSummary", "Row", "RankTest",
    "Outlier", "OUTLIERS", "Clock", "CLOCKS",
    "MeasurementOverhead", "OVERHEAD_LABEL", "OVERHEAD_NOTE", "ONE_WAY_NOTE", "time_quantity",
    # compare and gate
    "compare", "compare_ops", "ComparisonResult", "ComparisonRow", "OmnibusRow", "Alternative", "ALTERNATIVES",
    "RatioCI", "RATIO_CIS", "ratio_estimator_text", "p_method_text", "METRICS", "gate", "GateResult", "GateRow",
    # the process-count dimension: scaling series and root effects
    "scaling",
    # errors and warnings
    "AnalysisError", "InputError", "AnalysisWarning",
    # the schema_version written by AnalysisResult.to_dict()
    "SCHEMA_VERSION",
]
