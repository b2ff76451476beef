# SPDX-License-Identifier: BSD-3-Clause
"""The records of adaptive measurement in meta.json (schema 4; docs/FORMAT.md):
``config.nrep_auto`` and ``config.sizes_auto``, ``tests[].adaptive`` and ``size_refinement``,
typed and checked like the rest of :mod:`mpimeter.io.meta`, which holds them."""

from __future__ import annotations

from dataclasses import dataclass

from mpimeter.io.jsonread import NAT, NUM, STR, Fields

NREP_RULES = ("ci", "rse")
STOPPED_BY = ("precision", "max", "budget")


@dataclass(frozen=True, kw_only=True)
class NrepAuto:
    """meta.json ``config.nrep_auto`` (schema 4): the stopping rule of ``--nrep auto``."""

    rule: str  # ci | rse
    min: int
    max: int
    precision: float
    confidence: float | None  # ci only
    every: int
    budget_s: float


@dataclass(frozen=True)
class SizesAuto:
    """meta.json ``config.sizes_auto`` (schema 4): the bounds of ``--sizes auto``."""

    min: int
    max: int
    factor: int
    precision: float
    budget: int


@dataclass(frozen=True)
class AdaptiveRecord:
    """meta.json ``tests[].adaptive`` (schema 4): ``--nrep auto``'s verdict on a finished test."""

    rule: str  # ci | rse
    stopped_by: str | None  # precision | max | budget
    precision: float | None  # reached at the end (None: too few valid repetitions)
    valid: int  # valid run times the rule saw
    decisions: int


@dataclass(frozen=True)
class SizeRefinement:
    """meta.json ``size_refinement[]`` (schema 4): what ``--sizes auto`` did for one operation."""

    op: str
    added: tuple[int, ...]  # in the order added
    rounds: int
    max_error: float | None  # the largest interpolation error left
    stopped_by: str | None  # precision | budget


def nrep_auto(f: Fields | None) -> NrepAuto | None:
    if f is None:
        return None
    return NrepAuto(rule=f.need("rule", STR, choices=NREP_RULES), min=f.need("min", NAT), max=f.need("max", NAT),
                    precision=f.need("precision", NUM), confidence=f.get("confidence", NUM), every=f.need("every", NAT),
                    budget_s=f.need("budget_s", NUM))


def sizes_auto(f: Fields | None) -> SizesAuto | None:
    if f is None:
        return None
    return SizesAuto(f.need("min", NAT), f.need("max", NAT), f.need("factor", NAT), f.need("precision", NUM),
                     f.need("budget", NAT))


def adaptive_record(f: Fields | None) -> AdaptiveRecord | None:
    if f is None:
        return None
    return AdaptiveRecord(f.need("rule", STR, choices=NREP_RULES), f.get("stopped_by", STR, choices=STOPPED_BY),
                          f.get("precision", NUM), f.get("valid", NAT, 0), f.get("decisions", NAT, 0))


def size_refinement(f: Fields) -> tuple[SizeRefinement, ...] | None:
    if f.value.get("size_refinement") is None:
        return None
    return tuple(SizeRefinement(r.need("op", STR), r.items("added", NAT), r.get("rounds", NAT, 0),
                                r.get("max_error", NUM), r.get("stopped_by", STR, choices=("precision", "budget")))
                 for r in f.objs("size_refinement"))
