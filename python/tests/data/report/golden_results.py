# SPDX-License-Identifier: BSD-3-Clause
"""The golden campaigns of ``synth_campaign.golden``, analysed (and their alternatives compared)
once per test process: the report tests that only read a result share it instead of analysing
the same campaign again in each module (the analysis is most of what a report test costs).

The result is the one ``mpimeter report`` draws with its default options: ``analyze`` with its
defaults, then ``compare`` when there are several alternatives, or the reason it could not be.
A test that changes a result (its DataFrames are not frozen) must analyse its own copy. The
report of that result with the default options is built once per process too (:func:`report`):
drawing its figures is most of what is left of a report test.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from data.report.synth_campaign import golden

from mpimeter import analysis
from mpimeter.report.html_report import build_report


@dataclass(frozen=True)
class Analysed:
    """A golden campaign's folder, its analysis, its comparison (None with one alternative, or
    when it could not be made) and, then, why not."""

    folder: Path
    result: object  # analysis.AnalysisResult
    comparison: object | None  # analysis.ComparisonResult
    problem: str | None


_CACHE: dict[tuple[Path, str], Analysed] = {}


def analysed(name: str, tmp_path_factory) -> Analysed:
    """The golden campaign ``name``, written under this session's temporary folder and analysed,
    on the first call of a process; the same object on every later call."""
    base = Path(tmp_path_factory.getbasetemp())
    key = (base, name)
    if key not in _CACHE:
        root = base / "golden-analysed"
        root.mkdir(exist_ok=True)
        folder = golden(name, root)
        result = analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))
        comparison, problem = None, None
        if len(result.alternatives) > 1:
            try:
                comparison = analysis.compare(result)
            except analysis.AnalysisError as exc:
                problem = str(exc)
        _CACHE[key] = Analysed(folder, result, comparison, problem)
    return _CACHE[key]


_REPORTS: dict[tuple[Path, str], tuple[str, int]] = {}


def report(name: str, tmp_path_factory) -> tuple[str, int]:
    """``build_report``'s (text, fingerprints) of the golden campaign ``name``'s :func:`analysed`
    result, with the default options: built on the first call of a process, the same after."""
    golden = analysed(name, tmp_path_factory)
    key = (Path(tmp_path_factory.getbasetemp()), name)
    if key not in _REPORTS:
        _REPORTS[key] = build_report(golden.result, golden.comparison, comparison_problem=golden.problem)
    return _REPORTS[key]
