# SPDX-License-Identifier: BSD-3-Clause
"""Cost models per (alternative, operation): Hockney's T(m) = α + β·m and its piecewise version
(``mpimeter.stats.costmodel``), fitted to the per-launch medians of an analysis, with the fit
error at every size (``mpimeter model``, the report's "Model and bounds" section).

The intervals of α and β resample launches (``costmodel``: the delete-one-launch jackknife), as
the points of a launch share its launch effect; with fewer than ``costmodel.MIN_INTERVAL_LAUNCHES``
launches there is none, and a size whose error is below the threshold is "not checked" rather
than "not missed".

Only operations sized in bytes with at least ``min_sizes`` sizes are fitted (the others are
listed in ``skipped`` with the reason): a barrier has one size, a delay is sized in ns.

Per machine state: when the alternative's launches at p ran in explained states
(``analysis.strata``), each state gets its own fit (its launches' per-launch medians, its errors
against the state's medians per size) — a pooled fit of two states describes neither — and the
row says which state the headline is (``headline``: the one most launches ran in).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mpimeter.analysis import scaling as _scaling
from mpimeter.analysis.results import AnalysisResult, Row
from mpimeter.analysis.strata import states_for
from mpimeter.stats import costmodel as _cm

CRITERION = ("least BIC with Huber's loss over 0 … {max_breakpoints} breakpoints, segments of ≥ {min_sizes} sizes "
             "(points relative to their size's median, robust fit)")


@dataclass(frozen=True, kw_only=True)
class ModelRow:
    """One (alternative, op): the single Hockney line, the piecewise model the criterion chose,
    and the chosen model's error at every size (``sizes``; ``max_rel_error`` the largest
    |relative error| of them)."""

    alternative: str
    op: str
    launches: int
    one_way: bool
    hockney: _cm.LineFit
    piecewise: _cm.PiecewiseFit
    sizes: tuple[_cm.SizeError, ...]
    max_rel_error: float
    hockney_max_rel_error: float
    error_threshold: float = _cm.ERROR_THRESHOLD
    nprocs: int = 0  # the process count of the rows modelled (one model per p)
    state: str | None = None  # the machine state this fit is of (None: all launches)
    per_state: tuple["ModelRow", ...] = ()  # one fit per explained state
    headline: str | None = None  # the state the headline is (most launches); None: no states

    @property
    def missed(self) -> tuple[int, ...]:
        """The sizes the chosen model misses: by more than its interval, or by more than the
        error threshold."""
        return tuple(e.size for e in self.sizes if e.missed)

    @property
    def unchecked(self) -> tuple[int, ...]:
        """The sizes nothing could judge: no interval on one side, the error below the threshold."""
        return tuple(e.size for e in self.sizes if e.missed is None)

    def missed_text(self, fmt_size) -> str:
        """The "missed sizes" cell: the missed sizes with their errors, then how many were not
        checked and why — "none" only when every size was checked."""
        parts = [f"{fmt_size(e.size)} ({100 * e.rel_error:+.0f} %)" for e in self.sizes if e.missed]
        if self.unchecked:
            why = f"{self.launches} launch{'es' if self.launches != 1 else ''}"
            parts.append(f"not checked: {'all' if len(self.unchecked) == len(self.sizes) else len(self.unchecked)} "
                         f"size(s) ({why}: no interval of the median; errors ≤ {100 * self.error_threshold:.0f} %)")
        return "; ".join(parts) or "none"

    def to_dict(self) -> dict[str, Any]:
        h = self.hockney
        return {
            "alternative": self.alternative, "op": self.op, "launches": self.launches, "one_way": self.one_way,
            "alpha_ns": h.alpha_ns, "beta_ns_per_byte": h.beta_ns_per_byte,
            "alpha_ci_ns": _pair(h.alpha_ci_ns), "beta_ci": _pair(h.beta_ci),
            "interval": h.interval, "interval_method": _cm.INTERVALS[h.interval],
            "hockney_max_rel_error": self.hockney_max_rel_error,
            "segments": [_segment(s) for s in self.piecewise.segments],
            "breakpoints_bytes": list(self.piecewise.breakpoints),
            "max_rel_error": self.max_rel_error,
            "missed_sizes": list(self.missed),
            "unchecked_sizes": list(self.unchecked),
            "error_threshold": self.error_threshold,
            "nprocs": self.nprocs,
            "state": self.state, "headline": self.headline,
            "per_state": [r.to_dict() for r in self.per_state],
            "sizes": [{"size": e.size, "median_ns": e.median_ns, "predicted_ns": e.predicted_ns,
                       "band_ns": _pair(e.band_ns), "rel_error": e.rel_error, "missed": e.missed}
                      for e in self.sizes],
        }


def _pair(x: tuple[float, float] | None) -> list[float] | None:
    return None if x is None else list(x)


def _segment(s: _cm.LineFit) -> dict[str, Any]:
    return {"from_bytes": s.from_bytes, "to_bytes": s.to_bytes, "alpha_ns": s.alpha_ns,
            "beta_ns_per_byte": s.beta_ns_per_byte, "alpha_ci_ns": _pair(s.alpha_ci_ns), "beta_ci": _pair(s.beta_ci),
            "points": s.points, "sizes": s.sizes}


@dataclass(frozen=True)
class ModelResult:
    rows: tuple[ModelRow, ...]
    skipped: tuple[tuple[str, str, str], ...]  # (alternative, op, why)
    confidence: float
    criterion: str

    def row(self, alternative: str, op: str, nprocs: int | None = None) -> ModelRow | None:
        """The model of one operation at ``nprocs`` ranks (None: its first p; a campaign of one)."""
        return next((r for r in self.rows if r.alternative == alternative and r.op == op
                     and nprocs in (None, r.nprocs)), None)

    def to_dict(self) -> dict[str, Any]:
        return {"confidence": self.confidence, "criterion": self.criterion,
                "rows": [r.to_dict() for r in self.rows],
                "skipped": [{"alternative": a, "op": o, "reason": why} for a, o, why in self.skipped]}


def fit_models(result: AnalysisResult, *, max_breakpoints: int = 2, min_sizes: int = 3,
               error_threshold: float = _cm.ERROR_THRESHOLD) -> ModelResult:
    """The models of every (alternative, op) of ``result`` that can have one; a size whose
    error exceeds ``error_threshold`` is missed whatever the intervals."""
    confidence = result.settings.confidence
    groups: dict[tuple[str, str, int], list[Row]] = {}
    pieces = _scaling.first_workpieces(result.rows)
    for r in result.rows:  # one model per p, of one root's rows (the first's), of one number of work pieces
        if (r.root is None or r.root == min(x.root for x in result.rows if x.op == r.op and x.root is not None)) \
                and r.workpieces == pieces.get(r.op):
            groups.setdefault((r.alternative, r.op, r.nprocs), []).append(r)
    several_p = len({k[2] for k in groups}) > 1
    rows, skipped = [], []
    for (alt, op, ranks), group in groups.items():
        shown_op = f"{op} p={ranks}" if several_p else op
        group = sorted(group, key=lambda r: r.size)
        if result.size_unit(op) != "bytes":
            skipped.append((alt, shown_op, f"sized in {result.size_unit(op)}, not bytes"))
            continue
        if len(group) < min_sizes:
            skipped.append((alt, shown_op, f"{len(group)} size(s); a model needs at least {min_sizes}"))
            continue
        fit = dict(max_breakpoints=max_breakpoints, min_sizes=min_sizes, confidence=confidence,
                   error_threshold=error_threshold)
        try:
            row = _model_row(alt, op, ranks, group, None, **fit)
        except ValueError as exc:
            skipped.append((alt, shown_op, str(exc)))
            continue
        states = states_for(result.states, alt, ranks)
        if states is not None and states.explained:
            try:
                per_state = tuple(_model_row(alt, op, ranks, group, st, **fit) for st in states.states)
            except ValueError as exc:  # a state too small to fit: the pooled model, and why not per state
                skipped.append((alt, shown_op, f"per state: {exc}"))
            else:
                row = replace(row, per_state=per_state,
                              headline=max(states.states, key=lambda st: len(st.launches)).name)
        rows.append(row)
    return ModelResult(tuple(rows), tuple(skipped), confidence,
                       CRITERION.format(max_breakpoints=max_breakpoints, min_sizes=min_sizes))


def _model_row(alt: str, op: str, ranks: int, group: list[Row], state, *, max_breakpoints: int, min_sizes: int,
               confidence: float, error_threshold: float) -> ModelRow:
    """The models of ``group``'s rows fitted to the per-launch medians of ``state``'s launches
    (None: all), with the errors against that state's medians per size (ValueError: no fit)."""
    kept = [(r, s) for r in group for s in r.per_launch if s.n > 0 and (state is None or s.launch in state.launches)]
    sizes, times, launches = [s.size for _, s in kept], [s.median_ns for _, s in kept], [s.launch for _, s in kept]
    hockney = _cm.fit_line(sizes, times, launches=launches, confidence=confidence)
    piecewise = _cm.fit_piecewise(sizes, times, launches=launches, max_breakpoints=max_breakpoints,
                                  min_sizes=min_sizes, confidence=confidence)
    if state is None:
        medians = [(r.size, r.median_ns, r.median_ci_low_ns, r.median_ci_high_ns) for r in group]
    else:
        medians = [(r.size, sr.median_ns, sr.median_ci_low_ns, sr.median_ci_high_ns) for r in group
                   for sr in r.per_state if sr.stratum == state.name and sr.launches]
    args = tuple(list(x) for x in zip(*medians)) if medians else ([], [], [], [])
    errors = _cm.size_errors(piecewise, *args, error_threshold=error_threshold)
    single = _cm.size_errors(hockney, *args, error_threshold=error_threshold)
    used = len(set(launches)) if state is not None else max(r.launches for r in group)
    return ModelRow(alternative=alt, op=op, launches=used, one_way=any(r.one_way for r in group), hockney=hockney,
                    piecewise=piecewise, sizes=errors, max_rel_error=_max_abs(e.rel_error for e in errors),
                    hockney_max_rel_error=_max_abs(e.rel_error for e in single), error_threshold=error_threshold,
                    nprocs=ranks, state=None if state is None else state.name)


def _max_abs(values) -> float:
    v = np.abs(np.array([x for x in values if np.isfinite(x)], dtype=float))
    return float(v.max()) if len(v) else float("nan")
