# SPDX-License-Identifier: BSD-3-Clause
"""The comparisons between operations a report draws: those a suite names (`mpimeter run
--suite`, recorded in campaign.json's ``suite.comparisons``), then SKaMPI's standard ones
(Reussner et al. 1998 §6, "In the standard report we generate some comparisons of measurements")
of every pair the campaign measured — each with `compare --ops`' statistics
(mpimeter.analysis.opcompare.compare_ops, at its defaults).

SKaMPI's §6 in mpimeter's operations (SKAMPI_COMPARISONS): 6.1–6.9 compare the ping-pong variants
with MPI_Send/MPI_Recv (and Sendrecv with Sendrecv_replace), 6.10–6.12 the master-worker ones,
6.13 Reduce with Scan. 6.5 and 6.7 name the same pair and are drawn once. 6.14 and 6.15 compare
one operation at two sizes (Bcast, Alltoall at 256 B and 64 KiB over the number of processes):
not two operations, so not drawn here; the scaling section shows an operation over p at each size.
"""

from __future__ import annotations

from dataclasses import dataclass

from mpimeter.analysis.comparison import ComparisonResult
from mpimeter.analysis.loading import AnalysisError
from mpimeter.analysis.results import AnalysisResult

SOURCE_SKAMPI = "SKaMPI standard (Reussner et al. 1998 §6)"
SOURCE_SUITE = "suite"

# (section, first operation, second operation)
SKAMPI_COMPARISONS: tuple[tuple[str, str, str], ...] = (
    ("6.1", "pingpong-send-recv", "pingpong-isend-recv"),
    ("6.2", "pingpong-send-recv", "pingpong-ssend-recv"),
    ("6.3", "pingpong-send-recv", "pingpong-bsend-recv"),
    ("6.4", "pingpong-send-recv", "pingpong-iprobe-recv"),
    ("6.5", "pingpong-send-recv", "pingpong-sendrecv"),
    ("6.6", "pingpong-send-recv", "pingpong-anytag"),
    ("6.8", "pingpong-send-recv", "pingpong-sendrecv-replace"),
    ("6.9", "pingpong-sendrecv", "pingpong-sendrecv-replace"),
    ("6.10", "mw-waitsome", "mw-waitany"),
    ("6.11", "mw-send", "mw-isend"),
    ("6.12", "mw-send", "mw-ssend"),
    ("6.13", "reduce", "scan"),
)


@dataclass(frozen=True, kw_only=True)
class DrawnComparison:
    name: str  # the suite's name for it, or SKaMPI's section
    source: str  # SOURCE_SUITE or SOURCE_SKAMPI
    a: str
    b: str
    result: ComparisonResult | None  # None: it could not be drawn, `problem` says why
    problem: str = ""

    @property
    def title(self) -> str:
        pair = f"{self.a} vs {self.b}"
        return pair if self.name == pair else f"{self.name}: {pair}"


def wanted(result: AnalysisResult) -> list[tuple[str, str, str, str]]:
    """(name, source, a, b) of every comparison to draw: the suite's (all of them: a suite that
    names one expects it, drawn or refused with the reason), then SKaMPI's of the pairs both
    measured, each unordered pair once."""
    record = result.campaign.campaign_record
    out = [(name, SOURCE_SUITE, a, b) for name, a, b in (record.suite_comparisons if record is not None else ())]
    measured = {r.op for r in result.rows}
    out += [(f"SKaMPI {section}", SOURCE_SKAMPI, a, b) for section, a, b in SKAMPI_COMPARISONS
            if a in measured and b in measured]
    seen: set[frozenset[str]] = set()
    unique = []
    for entry in out:
        pair = frozenset(entry[2:])
        if pair not in seen:
            seen.add(pair)
            unique.append(entry)
    return unique


def draw(result: AnalysisResult, *, alpha: float = 0.05) -> tuple[DrawnComparison, ...]:
    """Every comparison of :func:`wanted`, with compare_ops' result or the one line saying why not
    (fewer than 3 launches a side, times of different kinds, an operation not measured)."""
    from mpimeter.analysis import opcompare

    drawn = []
    for name, source, a, b in wanted(result):
        try:
            cmp = opcompare.compare_ops(result, a, b, confidence=result.settings.confidence, alpha=alpha)
        except AnalysisError as exc:
            drawn.append(DrawnComparison(name=name, source=source, a=a, b=b, result=None, problem=str(exc)))
        else:
            drawn.append(DrawnComparison(name=name, source=source, a=a, b=b, result=cmp))
    return tuple(drawn)
