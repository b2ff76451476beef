# SPDX-License-Identifier: BSD-3-Clause
"""The report's "Comparisons between operations" section: those a suite names and SKaMPI's standard
ones (Reussner et al. 1998 §6) the campaign measured both sides of (analysis.opcomparisons draws
them with `compare --ops`' statistics; this module only lays them out, each in the table the
report gives a comparison of alternatives)."""

from __future__ import annotations

from collections.abc import Callable

from mpimeter.analysis import opcomparisons as _opcomparisons
from mpimeter.report import html as h


def opcomparisons_section(result, table: Callable[..., str],
                          drawn: tuple[_opcomparisons.DrawnComparison, ...] | None = None) -> str:
    """The section's HTML, or "" when there is nothing to compare. ``table(op, rows, comparison,
    unit)``: the report's comparison table; ``drawn``: the comparisons already drawn (else here)."""
    drawn = _opcomparisons.draw(result) if drawn is None else drawn
    if not drawn:
        return ""
    parts = [h.tag("p", h.esc(
        f"{len(drawn)} comparison(s) between operations: those the suite names, then SKaMPI's standard ones "
        "(Reussner et al. 1998 §6) of every pair measured; each as `mpimeter compare --ops A,B` draws it "
        "(rank-sum test on per-launch medians within each alternative, Holm over the comparison's rows)."))]
    for d in drawn:
        parts.append(h.tag("h3", h.esc(d.title) + " " +
                           h.tag("small", h.esc(f"({d.source})"))))
        if d.result is None:
            parts.append(h.tag("p", h.esc(f"Not drawn: {d.problem}.")))
            continue
        rows = list(d.result.rows)
        slices = sorted({(r.nprocs, r.root, r.workpieces) for r in rows}, key=str)
        for where in slices:
            part = [r for r in rows if (r.nprocs, r.root, r.workpieces) == where]
            if len(slices) > 1:
                label = ", ".join(f"{k} {v}" for k, v in zip(("p", "root", "work pieces"), where) if v is not None)
                parts.append(h.tag("p", h.esc(label)))
            parts.append(table(f"{d.a} vs {d.b}", part, d.result, result.size_unit(d.a)))
    return "".join(parts)
