# SPDX-License-Identifier: BSD-3-Clause
"""Models in m and p per (alternative, operation) of an analysis measured at three or more
process counts (``mpimeter model``; the families, fit and rules: ``mpimeter.stats.scalingmodel``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mpimeter.analysis import scaling as _scaling
from mpimeter.analysis.results import AnalysisResult
from mpimeter.stats import scalingmodel as _sm

MIN_PROCESS_COUNTS = 3  # two points in p fit any two-parameter family


@dataclass(frozen=True)
class ScalingModelRow:
    alternative: str
    op: str
    launches: int
    nprocs: tuple[int, ...]
    chosen: _sm.FamilyFit
    others: tuple[_sm.FamilyFit, ...]
    points: tuple[_sm.PointError, ...]
    verdict: str  # fits | misses | not checked

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
                    f"({self.launches} launches: no interval; errors ≤ threshold)")
        return (f"none of the families fits: the best, {self.chosen.family}, misses "
                + ", ".join(f"p={e.nprocs} {e.size} B ({100 * e.rel_error:+.0f} %)" for e in missed[:4])
                + (" …" if len(missed) > 4 else ""))

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
                            "rel_error": e.rel_error, "missed": e.missed} for e in self.points]}


def fit_scaling_models(result: AnalysisResult, *, error_threshold: float = _sm.ERROR_THRESHOLD
                       ) -> tuple[tuple[ScalingModelRow, ...], tuple[tuple[str, str, str], ...]]:
    """The models in (m, p) of every (alternative, op) measured at MIN_PROCESS_COUNTS or more p
    (rows of one root, or of none, and of the fewest work pieces, or of none); the others with the
    reason, when they were measured at two."""
    confidence = result.settings.confidence
    groups: dict[tuple[str, str], list] = {}
    pieces = _scaling.first_workpieces(result.rows)
    for r in result.rows:
        if (r.root is None or r.root == 0) and r.workpieces == pieces.get(r.op):
            groups.setdefault((r.alternative, r.op), []).append(r)
    rows, skipped = [], []
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
        per = [(r, s) for r in group for s in r.per_launch if s.n > 0 and math.isfinite(s.median_ns)]
        fits = _sm.fit_families([r.nprocs for r, _ in per], [r.size for r, _ in per], [s.median_ns for _, s in per],
                                [f"{s.alternative}/{s.launch}" for _, s in per])
        points = [(r.nprocs, r.size, r.median_ns, r.median_ci_low_ns, r.median_ci_high_ns)
                  for r in sorted(group, key=lambda r: (r.nprocs, r.size))]
        errors = _sm.point_errors(fits[0], points, confidence=confidence, error_threshold=error_threshold)
        rows.append(ScalingModelRow(alt, op, max(r.launches for r in group), tuple(counts), fits[0], tuple(fits[1:]),
                                    errors, _sm.verdict(errors)))
    return tuple(rows), tuple(skipped)

