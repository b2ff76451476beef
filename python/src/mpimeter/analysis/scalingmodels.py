# SPDX-License-Identifier: BSD-3-Clause
"""Models in m and p per (alternative, operation) of an analysis measured at three or more
process counts (``mpimeter model``; the families, fit and rules: ``mpimeter.stats.scalingmodel``).

Per machine state: when the cache-line probe puts the alternative's launches, over all its p, in
two states (``analysis.strata.machine_states``: the probe is the machine's, not the test's, so one
cut serves every p), each state gets its own fit — a pooled fit of launches 0.8× apart in 30 % of
them describes neither state — and the row says which state the headline is: the one most
launches ran in (``headline``; the pooled fit stays beside it)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mpimeter.analysis import scaling as _scaling
from mpimeter.analysis import strata as _strata
from mpimeter.analysis.results import AnalysisResult
from mpimeter.stats import intervals
from mpimeter.stats import scalingmodel as _sm

MIN_PROCESS_COUNTS = 3  # two points in p fit any two-parameter family


@dataclass(frozen=True, kw_only=True)
class ScalingModelRow:
    alternative: str
    op: str
    launches: int
    nprocs: tuple[int, ...]
    chosen: _sm.FamilyFit
    others: tuple[_sm.FamilyFit, ...]
    points: tuple[_sm.PointError, ...]
    verdict: str  # fits | misses | not checked
    state: str | None = None  # the machine state this fit is of (None: all launches)
    per_state: tuple["ScalingModelRow", ...] = ()  # one fit per state, when the probe shows states
    headline: str | None = None  # the state the headline is (the one most launches ran in); None: no states

    @property
    def max_rel_error(self) -> float:
        errs = [abs(e.rel_error) for e in self.points if math.isfinite(e.rel_error)]
        return max(errs) if errs else math.nan

    def text(self) -> str:
        """The verdict in words: which family, and how honest the claim is."""
        missed = [e for e in self.points if e.missed]
        if self.verdict == "fits":
            return f"{self.chosen.family} fits every (p, size)"
        if self.verdict == "not checked":
            n = sum(e.missed is None for e in self.points)
            return (f"{self.chosen.family} fits best; not checked at {n} of {len(self.points)} (p, size) "
                    f"({self.launches} launches: no interval of the median; errors ≤ threshold)")
        return (f"none of the families fits: the best, {self.chosen.family}, misses "
                + ", ".join(f"p={e.nprocs} {e.size} B ({100 * e.rel_error:+.0f} %)" for e in missed[:4])
                + (" …" if len(missed) > 4 else ""))

    def headline_row(self) -> "ScalingModelRow":
        """The fit of the headline state, or the pooled one without states."""
        return next((r for r in self.per_state if r.state == self.headline), self)

    def to_dict(self, confidence: float) -> dict[str, Any]:
        def fam(f: _sm.FamilyFit) -> dict[str, Any]:
            ci = [f.interval(i, confidence) for i in (0, 1)]
            return {"family": f.family, "formula": f.formula, "alpha_ns": f.alpha_ns,
                    "beta_ns_per_byte": f.beta_ns_per_byte, "bic": f.bic,
                    "alpha_ci_ns": None if ci[0] is None else list(ci[0]),
                    "beta_ci": None if ci[1] is None else list(ci[1])}
        return {"alternative": self.alternative, "op": self.op, "launches": self.launches,
                "nprocs": list(self.nprocs), "chosen": fam(self.chosen), "others": [fam(f) for f in self.others],
                "verdict": self.verdict, "verdict_text": self.text(), "max_rel_error": self.max_rel_error,
                "points": [{"nprocs": e.nprocs, "size": e.size, "median_ns": e.median_ns,
                            "predicted_ns": e.predicted_ns, "band_ns": None if e.band_ns is None else list(e.band_ns),
                            "rel_error": e.rel_error, "missed": e.missed} for e in self.points],
                "state": self.state, "headline": self.headline,
                "per_state": [r.to_dict(confidence) for r in self.per_state]}


def fit_scaling_models(result: AnalysisResult, *, error_threshold: float = _sm.ERROR_THRESHOLD
                       ) -> tuple[tuple[ScalingModelRow, ...], tuple[tuple[str, str, str], ...]]:
    """The models in (m, p) of every (alternative, op) measured at MIN_PROCESS_COUNTS or more p
    (rows of one root, or of none, and of the fewest work pieces, or of none), with one per
    machine state when the probe shows states (module docstring); the others with the reason,
    when they were measured at two."""
    confidence = result.settings.confidence
    groups: dict[tuple[str, str], list] = {}
    pieces = _scaling.first_workpieces(result.rows)
    for r in result.rows:
        if (r.root is None or r.root == 0) and r.workpieces == pieces.get(r.op):
            groups.setdefault((r.alternative, r.op), []).append(r)
    rows, skipped = [], []
    splits: dict[str, Any] = {}
    for (alt, op), group in groups.items():
        counts = sorted({r.nprocs for r in group})
        if len(counts) < 2:
            continue
        if len(counts) < MIN_PROCESS_COUNTS:
            skipped.append((alt, op, f"{len(counts)} process counts; a model in p needs at least {MIN_PROCESS_COUNTS}"))
            continue
        if result.size_unit(op) != "bytes":
            skipped.append((alt, op, f"sized in {result.size_unit(op)}, not bytes"))
            continue
        pooled = state_model(alt, op, group, None, confidence=confidence, error_threshold=error_threshold)
        if alt not in splits:
            splits[alt] = _strata.machine_states([(result.campaign, alt, None)])
        split = splits[alt]
        if split is not None and split.found:
            per_state = tuple(state_model(alt, op, group, {k[1] for k in keys}, name=name, confidence=confidence,
                                          error_threshold=error_threshold)
                              for name, keys in zip(_strata.STATE_NAMES, (split.faster, split.slower)))
            headline = max(zip(_strata.STATE_NAMES, (split.faster, split.slower)), key=lambda x: len(x[1]))[0]
            pooled = replace(pooled, per_state=per_state, headline=headline)
        rows.append(pooled)
    return tuple(rows), tuple(skipped)


def state_model(alt: str, op: str, group, launches: set[int] | None, *, name: str | None = None,
                confidence: float, error_threshold: float = _sm.ERROR_THRESHOLD) -> ScalingModelRow:
    """The model in (m, p) of ``group``'s rows fitted to the per-launch medians of ``launches``
    (None: all), its errors against those launches' medians per (p, size) with their interval."""
    per = [(r, s) for r in group for s in r.per_launch if s.n > 0 and math.isfinite(s.median_ns)
           and (launches is None or s.launch in launches)]
    fits = _sm.fit_families([r.nprocs for r, _ in per], [r.size for r, _ in per], [s.median_ns for _, s in per],
                            [f"{s.alternative}/{s.launch}" for _, s in per])
    if launches is None:
        points = [(r.nprocs, r.size, r.median_ns, r.median_ci_low_ns, r.median_ci_high_ns)
                  for r in sorted(group, key=lambda r: (r.nprocs, r.size))]
    else:
        points = []
        for r in sorted(group, key=lambda r: (r.nprocs, r.size)):
            medians = np.array([s.median_ns for rr, s in per if rr is r])
            if medians.size:
                ci = intervals.median_ci(medians, r.confidence)
                points.append((r.nprocs, r.size, ci.estimate, ci.low, ci.high))
    errors = _sm.point_errors(fits[0], points, confidence=confidence, error_threshold=error_threshold)
    used = len({s.launch for _, s in per})
    return ScalingModelRow(alternative=alt, op=op,
                           launches=used if launches is not None else max(r.launches for r in group),
                           nprocs=tuple(sorted({r.nprocs for r in group})), chosen=fits[0], others=tuple(fits[1:]),
                           points=errors, verdict=_sm.verdict(errors), state=name)
