# SPDX-License-Identifier: BSD-3-Clause
"""The report's results per machine state (analysis.strata): one table per alternative whose
launches ran in explained states — each row's median and interval per state, with the state's
launches and share, beside the pooled median — or the words that the groups found have no
recorded cause. A block of its own, placed by the report where it likes."""

from __future__ import annotations

from mpimeter.analysis.strata import MIN_STATE_LAUNCHES, launch_list, property_name, state_lines
from mpimeter.report import html as h
from mpimeter.units import format_interval, format_ns, format_size


def states_html(result) -> str:
    parts = []
    for states in result.states:
        alt = states.label  # with its p when the alternative ran at several (states are per p)
        if not states.explained:
            if states.apart:
                parts.append(h.tag("p", h.esc(
                    f"{alt}: {property_name(states.apart_by or '')} puts {launch_list(states.apart)} apart from the "
                    f"others, too few for a state of their own (a state needs {MIN_STATE_LAUNCHES} launches); the "
                    "pooled result stays the headline.")))
                continue
            parts.append(h.tag("p", h.esc(
                f"{alt}: the launches form two groups that no recorded property explains; the pooled result "
                "stays the headline.")))
            continue
        rows = [r for r in result.rows if r.alternative == states.alternative and r.nprocs == states.nprocs
                and r.per_state]
        table_rows = []
        for r in rows:
            for sr in r.per_state:
                ci = format_interval(sr.median_ci_low_ns, sr.median_ci_high_ns) if sr.median_ci_low_ns is not None \
                    else "too few launches"
                table_rows.append([r.op, format_size(r.size, result.size_unit(r.op)), sr.stratum,
                                   f"{sr.launches} ({100 * sr.share:.0f} %)", format_ns(sr.median_ns), ci,
                                   format_ns(r.median_ns)])
        said = "; ".join(state_lines(states))
        parts.append(h.tag("h3", h.esc(f"Per state: {alt}")) + h.tag("p", h.esc(
            f"The launches ran in two states that {property_name(states.property or '')} explains ({said}; "
            f"decided by {states.test or 'a recorded property'})."
            + (f" {launch_list(states.unplaced).capitalize()} did not record it: in no state, pooled only."
               if states.unplaced else "")
            + " The pooled median depends on the mix of states; the per-state medians do not.")) +
            h.table(["operation", "size", "state", "launches (share)", "median", f"{100 * rows[0].confidence:g} % CI"
                     if rows else "CI", "pooled median"], table_rows,
                    numeric=[False, True, False, True, True, True, True]))
    return "".join(parts)
