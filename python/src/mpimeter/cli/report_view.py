# SPDX-License-Identifier: BSD-3-Clause
"""The HTML report of one analysis result, as text (shared by `mpimeter report`, `mpimeter store
add` and what `mpimeter run` writes after a campaign)."""

from __future__ import annotations

from mpimeter import analysis


def report_text(result, *, hypothesis: str = "two-sided", title: str | None = None, max_points: int = 1500,
                sources=(), bounds=None) -> tuple[str, int]:
    """The report of an analysis: the alternatives compared when there are several (or why they
    could not be), the HTML text and its number of fingerprints."""
    from mpimeter.report.html_report import build_report  # matplotlib only when needed

    comparison, problem = None, None
    if len(result.alternatives) > 1:
        try:
            comparison = analysis.compare(result, alternative=hypothesis, confidence=result.settings.confidence)
        except analysis.AnalysisError as exc:
            problem = str(exc)
    return build_report(result, comparison, comparison_problem=problem, title=title, max_points=max_points,
                        sources=sources, bounds=bounds)
