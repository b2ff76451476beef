"""``gate``: CI for MPI libraries — which (op, size) of a candidate are significantly slower
than the baseline by more than a tolerated slowdown (one-sided Wilcoxon rank-sum against the
baseline scaled by 1 + max_slowdown, Holm-corrected)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from mpimeter.analysis.diagnostics import dedupe
from mpimeter.analysis.groups import check_launches, groups_of, keys_text
from mpimeter.analysis.loading import AnalysisError
from mpimeter.analysis.results import AnalysisResult
from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import compare as _cmp
from mpimeter.stats import hypothesis as _hyp


@dataclass(frozen=True)
class GateRow:
    op: str
    size: int
    median_baseline_ns: float
    median_candidate_ns: float
    ratio: float
    ratio_ci_low: float | None
    ratio_ci_high: float | None
    p_value: float
    p_adjusted: float
    stars: str
    regression: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GateResult:
    """``passed`` is False when some row is significantly slower than the baseline by more than
    ``max_slowdown``: Wilcoxon rank-sum, one-sided, candidate medians against baseline medians
    scaled by 1 + max_slowdown, Holm-corrected at ``alpha``."""

    baseline: str
    candidate: str
    max_slowdown: float
    alpha: float
    rows: tuple[GateRow, ...]
    warnings: tuple[AnalysisWarning, ...]

    @property
    def regressions(self) -> tuple[GateRow, ...]:
        return tuple(r for r in self.rows if r.regression)

    @property
    def passed(self) -> bool:
        return not self.regressions

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "candidate": self.candidate,
            "max_slowdown": self.max_slowdown,
            "alpha": self.alpha,
            "passed": self.passed,
            "rows": [r.to_dict() for r in self.rows],
            "warnings": [w.to_dict() for w in self.warnings],
        }


def gate(
    baseline: AnalysisResult,
    candidate: AnalysisResult,
    *,
    max_slowdown: float = 0.05,
    alpha: float = 0.05,
    per_repetition: bool = False,
) -> GateResult:
    """CI gate for MPI libraries: which (op, size) got slower than ``baseline`` by more than
    ``max_slowdown`` (0.05 = 5 %), significantly after Holm correction."""
    if max_slowdown < 0:
        raise AnalysisError(f"max_slowdown must be ≥ 0, got {max_slowdown}")
    gb, gc = groups_of([baseline]), groups_of([candidate])
    if len(gb) != 1 or len(gc) != 1:
        raise AnalysisError("gate compares one baseline with one candidate; each folder must hold one alternative "
                            f"(baseline has {len(gb)}, candidate has {len(gc)})")
    base, cand = gb[0], gc[0]
    check_launches([base, cand], per_repetition)
    sb, sc = base.samples(per_repetition), cand.samples(per_repetition)
    common = sorted(set(sb) & set(sc))
    if not common:
        raise AnalysisError(f"baseline and candidate have no (op, size) in common: baseline {keys_text(set(sb))}; "
                            f"candidate {keys_text(set(sc))}")
    warnings: list[AnalysisWarning] = []
    missing = sorted(set(sb) - set(sc))
    if missing:
        warnings.append(AnalysisWarning(
            "missing-rows", f"{len(missing)} (op, size) of the baseline are not in the candidate and were not gated: "
            f"{keys_text(set(missing))}", "run the candidate with the same --ops and --sizes", None))
    rows = []
    for op, size in common:
        a, b = sb[(op, size)], sc[(op, size)]
        _, p = _cmp.slowdown_test(a, b, max_slowdown)
        pc = _cmp.compare_two(a, b, confidence=1 - alpha)
        # The Hodges–Lehmann ratio goes with the rank-sum test and always lies in its own interval.
        rows.append(GateRow(op, size, pc.median_a, pc.median_b, pc.ratio_ci.estimate, pc.ratio_ci.low, pc.ratio_ci.high,
                            p, math.nan, "", False))
    adj = _hyp.holm(np.array([r.p_value for r in rows]))
    rows = [replace(r, p_adjusted=float(p), stars=_hyp.stars(float(p)),
                    regression=bool(p <= alpha and r.ratio > 1 + max_slowdown)) for r, p in zip(rows, adj)]
    if per_repetition:
        warnings.append(AnalysisWarning(
            "per-repetition", "gating on repetitions pooled over launches: the launch effect is ignored",
            "run ≥ 3 (better ≥ 10) launches per side", None))
    else:
        n_a, n_b = base.launches(*common[0]), cand.launches(*common[0])
        p_min = _cmp.min_p_value(n_a, n_b, "greater")
        if p_min * len(rows) > alpha:
            warnings.append(AnalysisWarning(
                "low-power", f"with {n_a} and {n_b} launches the smallest possible p-value is {p_min:.3g}: after "
                f"Holm correction over {len(rows)} rows no regression can be detected at {alpha}",
                "run more launches per side (10 or more)", None))
    warnings += baseline.warnings + candidate.warnings
    return GateResult(base.name, cand.name, max_slowdown, alpha, tuple(rows), dedupe(warnings))
