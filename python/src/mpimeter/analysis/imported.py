# SPDX-License-Identifier: BSD-3-Clause
"""What the analysis does differently for imported launches (meta.json ``origin``, docs/FORMAT.md
"Imported launches"): their run times are the tool's own, on the clock the tool used, so
``--clock`` cannot choose another one (it is said, not silently ignored), and the clock note
names the tool's definition instead of mpimeter's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpimeter.io.errors import AnalysisWarning
from mpimeter.warning_codes import warning

if TYPE_CHECKING:
    from mpimeter.analysis.loading import Campaign, LaunchInfo


def launch_clock(li: LaunchInfo, clock: str, warnings: list[AnalysisWarning]) -> str | None:
    """The clock of an imported launch whatever ``clock`` asks (None: not imported)."""
    origin = li.meta.origin
    if origin is None:
        return None
    if clock != "auto":
        warnings.append(warning("imported-clock", clock=clock, label=origin.label, run_time=origin.run_time,
                                where=str(li.folder)))
    return li.clock


def clock_note(campaign: Campaign) -> str:
    """The part of the clock note about imported launches ('' when there are none)."""
    kinds = {}
    for li in campaign.launches:
        o = li.meta.origin
        if o is not None:
            kinds.setdefault(f"{o.label}: {o.run_time}", []).append(li)
    return "".join(f"; imported ({len(lis)} launch{'es' if len(lis) != 1 else ''}) from {k}" for k, lis in kinds.items())
