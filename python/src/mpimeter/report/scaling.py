"""The report's "Scaling with the number of processes" section (issue 27): per (alternative,
op, size[, root]) the median of per-launch medians with its interval at every p (Hoefler &
Belli 2015 §5.1), the root's effect per (op, size, p), and the models in m and p with their
verdicts. Empty when the campaign ran at one p and one root."""

from __future__ import annotations

import math

from mpimeter.analysis import scaling as _scaling
from mpimeter.analysis.scalingmodels import fit_scaling_models
from mpimeter.report import html as h
from mpimeter.units import format_interval, format_ns, format_number, format_size


def scaling_section(result) -> str:
    series = list(result.scaling)
    effects = _scaling.root_effects(result.rows)
    if not series and not effects:
        return ""
    parts = []
    if series:
        counts = sorted({pt.nprocs for s in series for pt in s.points})
        rows = []
        for s in series:
            at = {pt.nprocs: pt for pt in s.points}
            rows.append((s.alternative, s.op, format_size(s.size, result.size_unit(s.op)),
                         "–" if s.root is None else str(s.root),
                         *[(format_ns(at[p].median_ns) + " " + format_interval(at[p].low_ns, at[p].high_ns))
                           if p in at else "" for p in counts]))
        parts.append(h.tag("p", h.esc(
            f"Median of the per-launch medians with its {result.settings.confidence:.0%} interval at each number "
            "of processes p (the launches at that p are the replicates).")))
        parts.append(h.table(("alternative", "op", "size", "root", *[f"p = {p}" for p in counts]), rows,
                             numeric=(False, False, True, True, *[True] * len(counts))))
    if effects:
        rows = [(e.alternative, e.op, format_size(e.size, result.size_unit(e.op)), str(e.nprocs),
                 ", ".join(map(str, e.roots)), f"{e.fastest_root} ({format_ns(e.min_ns)})",
                 f"{e.slowest_root} ({format_ns(e.max_ns)})",
                 f"{format_number(e.ratio)}×" if math.isfinite(e.ratio) else "–",
                 "–" if e.p_value is None else f"{e.p_value:.3g}") for e in effects]
        parts.append(h.tag("p", h.esc(f"The root's effect: {effects[0].test} (–: fewer than 2 launches at a root).")))
        parts.append(h.table(("alternative", "op", "size", "p", "roots", "fastest root", "slowest root", "max/min",
                              "p-value"), rows, numeric=(False, False, True, True, False, True, True, True, True)))
    models, skipped = fit_scaling_models(result)
    if models:
        rows = [(m.alternative, m.op, ", ".join(map(str, m.nprocs)), f"{m.chosen.family}: {m.chosen.formula}",
                 f"{format_ns(m.chosen.alpha_ns)}", f"{format_number(m.chosen.beta_ns_per_byte)} ns/B", m.text())
                for m in models]
        parts.append(h.table(("alternative", "op", "p", "model in m and p", "α", "β", "verdict"), rows))
    for alt, op, why in skipped:
        parts.append(h.tag("p", h.esc(f"Not modelled in p: {alt} {op}: {why}."), class_="note"))
    return "".join(parts)
