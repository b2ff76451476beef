# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --guidelines`: the operations a campaign needs to check the performance
guidelines (mpimeter guidelines) — the operations asked for, the mock-ups of each, as the
binary's own table lists them (--describe: an operation of kind mock-up names what it mocks up),
and the irregular form of a regular collective (allgather: allgatherv, ...).

The expansion happens before the campaign is planned: the campaign is an ordinary one whose
--ops holds both sides of every guideline, interleaved and replicated like any test.
Paper: Träff, Gropp & Thakur 2010 (self-consistent performance guidelines); the PGMPI work
(Hunold, Carpen-Amarie, Lübbe & Träff 2016) measures each guideline's both sides in one run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mpimeter.analysis.choices import REGULAR_IRREGULAR
from mpimeter.campaign.plan import PlanError


def catalogue(operations: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """original op -> its mock-ups, in the binary's table order."""
    out: dict[str, list[str]] = {}
    for op in operations:
        mockup = op.get("mockup")
        if isinstance(mockup, Mapping) and isinstance(mockup.get("of"), str):
            out.setdefault(mockup["of"], []).append(str(op["name"]))
    return out


def irregular_forms(operations: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """regular op -> its irregular form (the regular ⪯ irregular guidelines), where the binary's
    table has both."""
    names = {str(op.get("name")) for op in operations}
    return {op: v for op, (v, _) in REGULAR_IRREGULAR.items() if op in names and v in names}


def ops_with_mockups(operations: Iterable[Mapping[str, Any]], ops: str | None) -> str:
    """The --ops of a guidelines campaign: ``ops`` (comma-separated; None: every operation that
    has a mock-up) each followed by its mock-ups and its irregular form not already listed.
    Raises :class:`PlanError` when the binary has no mock-up, or none of ``ops`` has one or an
    irregular form (and none is a mock-up)."""
    operations = list(operations)
    table = catalogue(operations)
    irregular = irregular_forms(operations)
    if not table:
        raise PlanError("--guidelines: this mpimeter-bench has no mock-up operations (kind mock-up in its "
                        "--describe); build a newer one")
    mockups = {m for ms in table.values() for m in ms}
    asked = [o.strip() for o in ops.split(",") if o.strip()] if ops is not None else list(table)
    if not any(o in table or o in mockups or o in irregular for o in asked):
        raise PlanError(f"--guidelines: none of --ops {ops} has a mock-up; operations with mock-ups: "
                        f"{', '.join(table)}; with an irregular form: {', '.join(irregular) or 'none'}")
    out: list[str] = []
    for op in asked:
        for name in [op, *table.get(op, []), *([irregular[op]] if op in irregular else [])]:
            if name not in out:
                out.append(name)
    return ",".join(out)
