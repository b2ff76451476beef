# SPDX-License-Identifier: BSD-3-Clause
"""The report's "Guideline violations" section: what `mpimeter guidelines` finds in the campaign
(analysis.guidelines computes it; this module only lays it out) — each violated guideline with its
evidence: both medians, the ratio lhs/rhs with its interval, the one-sided p and its Holm
correction, the launches on each side.
Paper: Träff, Gropp & Thakur 2010 (self-consistent MPI performance guidelines)."""

from __future__ import annotations

from mpimeter.analysis import AnalysisError
from mpimeter.analysis import guidelines as _guidelines
from mpimeter.report import html as h
from mpimeter.units import format_interval, format_ns


def _ratio(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def guidelines_section(result, checked: _guidelines.GuidelinesResult | None = None) -> str:
    """The section's HTML; ``checked``: the guidelines already checked (else checked here with
    every kind the campaign allows: the mock-up guideline only when it measured mock-ups)."""
    if checked is None:
        measured = {r.op for r in result.rows}
        has_mockups = any(m in measured for alt in result.alternatives
                          for m in _guidelines.mockups_of(result, alt))
        kinds = _guidelines.KINDS if has_mockups else tuple(k for k in _guidelines.KINDS if k != "mock-up")
        try:
            checked = _guidelines.check(result, kinds=kinds)
        except AnalysisError as exc:
            return h.tag("p", h.esc(f"No guideline checked: {exc}."))
    rows = checked.violations
    intro = h.tag("p", h.esc(
        f"{len(rows)} of {len(checked.rows)} guideline rows violated ({', '.join(checked.kinds)}): "
        f"{checked.test}, Holm over all {len(checked.rows)} rows, violated where p (Holm) ≤ {checked.alpha:g}; "
        "ratio = lhs/rhs (> 1: the left-hand side is slower) with its "
        f"{100 * checked.confidence:g} % interval. `mpimeter guidelines` lists every row."))
    if not rows:
        return intro
    table = h.table(
        ("kind", "alternative", "ranks", "guideline", "launches", "median lhs", "median rhs", "ratio lhs/rhs",
         "interval", "p", "p (Holm)"),
        [(r.kind, r.alternative, str(r.nprocs), r.statement, f"{r.launches_lhs}/{r.launches_rhs}",
          format_ns(r.median_lhs_ns), format_ns(r.median_rhs_ns), _ratio(r.ratio),
          format_interval(r.ratio_ci_low, r.ratio_ci_high, _ratio), f"{r.p_value:.2g}", f"{r.p_adjusted:.2g}")
         for r in rows],
        numeric=(False, False, True, False, True, True, True, True, False, True, True))
    return intro + table
