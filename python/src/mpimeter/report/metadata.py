# SPDX-License-Identifier: BSD-3-Clause
"""What the launches' meta.json say about the experiment, in words (Hoefler & Belli 2015, rule 9:
document the setup; rule 10: the measurement, synchronization and summarization methods).

Only reads meta.json values as written by `mpimeter-bench` (docs/FORMAT.md); when launches
disagree on a value, all distinct values are listed (that a factor varied is itself worth
seeing). No statistics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mpimeter.io.meta import LaunchMeta
from mpimeter.report.adaptive import nrep_text
from mpimeter.units import format_ns


def distinct(values: Sequence[Any]) -> list[Any]:
    """The distinct values in first-seen order (lists compared by their text)."""
    seen, out = set(), []
    for v in values:
        key = repr(v)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def joined(values: Sequence[Any], *, limit: int = 4) -> str:
    vals = [str(v) for v in distinct(values) if v not in (None, "")]
    if not vals:
        return "unknown"
    if len(vals) > limit:
        return ", ".join(vals[:limit]) + f" (+{len(vals) - limit} more)"
    return ", ".join(vals)


@dataclass(frozen=True)
class LaunchFacts:
    layout: str  # "1 node × 2 ranks per node"
    lines: tuple[tuple[str, str], ...]  # (key, value) for the fingerprint's metadata block


def rank_layout(meta: LaunchMeta) -> tuple[int, str]:
    """(number of hosts, "N nodes × R ranks per node") from meta.json ``ranks``."""
    per_host = Counter(str(r.host) for r in meta.ranks)
    nprocs = meta.nprocs
    if not per_host:
        return 0, f"{nprocs} ranks"
    counts = sorted(set(per_host.values()))
    nodes = len(per_host)
    node_word = "node" if nodes == 1 else "nodes"
    if len(counts) == 1:
        rank_word = "rank" if counts[0] == 1 else "ranks"
        return nodes, f"{nodes} {node_word} × {counts[0]} {rank_word} per node"
    return nodes, f"{nodes} {node_word}, {counts[0]}–{counts[-1]} ranks per node ({nprocs} ranks)"


def residual_text(metas: Sequence[LaunchMeta]) -> str:
    """The clock sync's measured residual (max |offset| after sync, at start and end), as the
    largest value any launch reported — the launches' own numbers, not an estimate."""
    starts = [m.clock_sync.residual_start.max_abs_ns for m in metas if m.clock_sync.residual_start is not None]
    ends = [m.clock_sync.residual_end.max_abs_ns for m in metas if m.clock_sync.residual_end is not None]
    if not starts and not ends:
        return "not measured"
    parts = []
    if starts:
        parts.append(f"start ≤ {format_ns(float(max(starts)))}")
    if ends:
        parts.append(f"end ≤ {format_ns(float(max(ends)))}")
    return "max |residual| " + ", ".join(parts) + f" (worst of {len(metas)} launches)"


def procsync_method(meta: LaunchMeta) -> str | None:
    """proc_sync.method, or config.procsync in a meta.json without proc_sync."""
    return meta.proc_sync.method if meta.proc_sync.method != "none" else (meta.config.procsync or "none")


def window_text(metas: Sequence[LaunchMeta]) -> str:
    method = joined([procsync_method(m) for m in metas])
    windows = [m.config.window_us for m in metas]
    window = joined(windows) + " µs" if any(w is not None for w in windows) else "adaptive"
    if "window" in method:
        return f"{method} (window {window})"
    return method


def campaign_facts(launches: Sequence[Any]) -> LaunchFacts:
    """Facts for one alternative, from its launches (`mpimeter.analysis.LaunchInfo`)."""
    metas: list[LaunchMeta] = [li.meta for li in launches]
    layout = rank_layout(metas[0])[1] if metas else "0 ranks"
    layouts = distinct([rank_layout(m)[1] for m in metas]) or [layout]
    hosts = distinct([h for m in metas for h in m.hosts])
    cfg = lambda name: joined([getattr(m.config, name) for m in metas])  # noqa: E731
    lines = (
        ("ranks", " | ".join(layouts)),
        ("hosts", joined(hosts, limit=6)),
        ("machine", joined([m.system.cpu_model for m in metas]) + "; " + joined([m.system.kernel for m in metas])),
        ("MPI", joined([m.mpi.library_version for m in metas], limit=2)),
        ("MPI standard", joined([m.mpi.version for m in metas])),
        ("benchmark", f"{joined([m.tool.name for m in metas])} {joined([m.tool.version for m in metas])}; "
                      f"nrep {nrep_text(metas)}, warm-up {cfg('warmup')}, datatype {cfg('datatype')}, "
                      f"raw {cfg('raw')}"),
        ("timer", f"{cfg('timer')} (overhead " + joined([ns_or_none(m.timer.overhead_ns) for m in metas]) + ")"),
        ("process sync", window_text(metas)),
        ("clock sync", joined([m.clock_sync.described for m in metas]) + ", model "
                       + joined([m.clock_sync.model for m in metas])),
        ("sync residual", residual_text(metas)),
        ("launches", f"{len(metas)}: " + ", ".join(f"{k} {v}" for k, v in
                                                   Counter(li.status for li in launches).items())),
    )
    return LaunchFacts(layout=layout, lines=lines)


def ns_or_none(value: float | None) -> str | None:
    return format_ns(float(value)) if value is not None else None
