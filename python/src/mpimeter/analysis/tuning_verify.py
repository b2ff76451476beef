# SPDX-License-Identifier: BSD-3-Clause
"""``tune --verify``: a campaign of the library's default against the tuned configuration (the
tuning file set), judged twice —

- the gate (analysis.gating): no (op, p, size) of the tuned configuration significantly slower
  than the default by more than the tolerated slowdown (one-sided rank-sum on per-launch medians,
  Holm over the rows), counting a slowdown only beyond the timer grid the launches recorded;
- the prediction: at every (op, p, size) the tuning chose for, does the ratio it predicted
  (tuned / default, from the tuning campaign; 1 where it kept the default) lie within the
  interval of the ratio measured now (Hodges–Lehmann, at ``confidence``)? A prediction outside
  says the tuning campaign's machine state or the file's ranges do not carry over.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from mpimeter.analysis.diagnostics import dedupe
from mpimeter.analysis.gating import GateResult, gate_rows, sides_grid_ns
from mpimeter.analysis.groups import Group, check_launches, groups_of, low_power_warning
from mpimeter.analysis.loading import AnalysisError
from mpimeter.analysis.results import AnalysisResult
from mpimeter.stats import compare as _cmp


@dataclass(frozen=True, kw_only=True)
class PredictionRow:
    """One (op, nprocs, size): the ratio tuned / default predicted and measured (with its
    interval at ``confidence``); ``within``: the prediction lies in the interval (None: no
    interval, too few launches)."""

    op: str
    nprocs: int
    size: int
    algorithm: str
    predicted_ratio: float
    predicted_ci_low: float | None
    predicted_ci_high: float | None
    measured_ratio: float
    measured_ci_low: float | None
    measured_ci_high: float | None
    launches_default: int
    launches_tuned: int
    within: bool | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class VerifyResult:
    library: str
    gate: GateResult
    predictions: tuple[PredictionRow, ...]
    confidence: float

    @property
    def passed(self) -> bool:
        return self.gate.passed

    def to_dict(self) -> dict[str, Any]:
        return {"library": self.library, "passed": self.passed, "confidence": self.confidence,
                "gate": self.gate.to_dict(), "predictions": [p.to_dict() for p in self.predictions],
                "predictions_within": sum(1 for p in self.predictions if p.within),
                "predictions_outside": sum(1 for p in self.predictions if p.within is False)}


def _group(result: AnalysisResult, alternative: str) -> Group:
    for g in groups_of([result]):
        if g.alternative == alternative:
            return g
    raise AnalysisError(f"the verification campaign has no alternative {alternative} "
                        f"(it has {', '.join(result.alternatives)})")


def _samples(g: Group) -> dict[tuple[str, int, int], np.ndarray]:
    return {(op, where[0], size): v for where in g.slices() for (op, size), v in g.at(where).samples(False).items()
            if len(v)}


def gate_alternatives(result: AnalysisResult, baseline: str, candidate: str, *, max_slowdown: float,
                      alpha: float) -> GateResult:
    """``gate``'s test (analysis.gating.gate_rows) of two alternatives of one campaign, row by
    (op, size, p): the campaign ran both at every process count (``--np LIST``), which its
    alternatives' folders read alone would refuse as launches that do not belong together."""
    base, cand = _group(result, baseline), _group(result, candidate)
    check_launches([base, cand], False)
    sb = {(op, size, (p, None)): v for (op, p, size), v in _samples(base).items()}
    sc = {(op, size, (p, None)): v for (op, p, size), v in _samples(cand).items()}
    # the gate's timer grid, from both alternatives' launches; tuning files tune collectives only, so
    # no row is a one-way latency on half the grid
    rows = gate_rows(sb, sc, max_slowdown=max_slowdown, alpha=alpha, one_way=lambda op, size, where=None: False,
                     grid_ns=sides_grid_ns((result, baseline), (result, candidate)))
    if not rows:
        raise AnalysisError(f"{baseline} and {candidate} measured no (op, size, p) in common")
    warnings = low_power_warning([(r.launches_tuned, r.launches_default, f"{r.op}/{r.size} p={r.nprocs}")
                                  for r in _pairs(sb, sc)], "greater", alpha, "side")
    return GateResult(baseline=base.name, candidate=cand.name, max_slowdown=max_slowdown, alpha=alpha, rows=tuple(rows),
                      warnings=dedupe([*warnings, *result.warnings]))


@dataclass(frozen=True)
class _Pair:
    op: str
    size: int
    nprocs: int
    launches_default: int
    launches_tuned: int


def _pairs(sb: Mapping, sc: Mapping) -> list[_Pair]:
    return [_Pair(k[0], k[1], k[2][0], len(sb[k]), len(sc[k])) for k in sorted(set(sb) & set(sc))]


def predictions(result: AnalysisResult, default: str, tuned: str, choices: Sequence[Mapping[str, Any]], *,
                confidence: float = 0.95, seed: int = 0) -> tuple[PredictionRow, ...]:
    """``choices``: the tuning's choices (``Choice.to_dict()`` as the evidence file holds them)."""
    a, b = _samples(_group(result, default)), _samples(_group(result, tuned))
    rows = []
    for c in choices:
        key = (str(c["op"]), int(c["nprocs"]), int(c["size"]))
        if key not in a or key not in b:
            continue
        pc = _cmp.compare_two(a[key], b[key], confidence=confidence, seed=seed)
        ci = pc.ratio_ci
        predicted = float(c["ratio"])
        within = None if ci.low is None or ci.high is None else bool(ci.low <= predicted <= ci.high)
        rows.append(PredictionRow(op=key[0], nprocs=key[1], size=key[2], algorithm=str(c["algorithm"]),
                                  predicted_ratio=predicted, predicted_ci_low=c.get("ratio_ci_low"),
                                  predicted_ci_high=c.get("ratio_ci_high"), measured_ratio=ci.estimate,
                                  measured_ci_low=ci.low, measured_ci_high=ci.high, launches_default=len(a[key]),
                                  launches_tuned=len(b[key]), within=within))
    if not rows:
        raise AnalysisError("the verification campaign measured none of the (op, p, size) the tuning chose for")
    return tuple(rows)


def verify(result: AnalysisResult, library: str, choices: Sequence[Mapping[str, Any]], *, tuned: str = "tuned",
           max_slowdown: float = 0.05, alpha: float = 0.05, confidence: float = 0.95) -> VerifyResult:
    """The verification campaign ``result``: its alternative ``library`` (the library as it is)
    against ``tuned``."""
    if not math.isfinite(confidence) or not 0 < confidence < 1:
        raise AnalysisError(f"confidence must be between 0 and 1, got {confidence}")
    gate = gate_alternatives(result, library, tuned, max_slowdown=max_slowdown, alpha=alpha)
    return VerifyResult(library, gate, predictions(result, library, tuned, choices, confidence=confidence), confidence)
