# SPDX-License-Identifier: BSD-3-Clause
"""The report's variance components between Slurm allocations and between launches
(analysis.allocations): per row whose launches ran in several allocations, the standard
deviations of its per-launch medians between the allocations and between the launches of one,
the allocation's share of the variance with its interval, and the F test's p-value. A block of
its own, placed by the report where it likes; empty when no row ran in several allocations."""

from __future__ import annotations

import math

from mpimeter.report import html as h
from mpimeter.units import format_interval, format_ns, format_size


def allocations_html(result) -> str:
    if not result.allocations:
        return ""
    rows = []
    for c in result.allocations:
        share = "–" if c.allocation_share is None else (
            f"{100 * c.allocation_share:.0f} % [{100 * c.allocation_share_low:.0f} %, "
            f"{100 * c.allocation_share_high:.0f} %]")
        rows.append([c.alternative, c.op, format_size(c.size, result.size_unit(c.op)), str(c.nprocs),
                     "; ".join(f"{a}: {n}" for a, n in zip(c.allocations, c.launches)),
                     format_ns(math.sqrt(c.between_allocations_ns2)),
                     f"{format_ns(math.sqrt(c.between_launches_ns2))} "
                     f"{format_interval(math.sqrt(c.between_launches_low_ns2), math.sqrt(c.between_launches_high_ns2))}",
                     share, f"{c.p_adjusted:.2g}"])
    confidence = f"{100 * result.allocations[0].confidence:g} %"
    return h.tag("h3", "Between Slurm allocations", id="allocations") + h.tag("p", h.esc(
        "The launches ran in several Slurm allocations (jobs): the spread of the per-launch medians between the "
        "allocations beside the one between launches of one allocation (standard deviations; ANOVA variance "
        f"components), the allocation's share of the variance with its {confidence} interval, and the F test of "
        "no allocation effect, Holm-adjusted over the alternative's rows.")) + h.table(
        ["alternative", "op", "size", "p", "allocations: launches", "between allocations",
         f"between launches [{confidence}]", "allocation share", "p (Holm)"], rows)
