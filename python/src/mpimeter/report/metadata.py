"""What the launches' meta.json say about the experiment, in words (Hoefler & Belli 2015, rule 9:
document the setup; rule 10: the measurement, synchronization and summarization methods).

Only reads meta.json values as written by `mpimeter-bench` (docs/FORMAT.md); when launches
disagree on a value, all distinct values are listed (that a factor varied is itself worth
seeing). No statistics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpimeter.report.units import format_ns


def get(meta: Mapping[str, Any] | None, *path: str, default: Any = None) -> Any:
    """meta["a"]["b"]… or `default` when any level is missing or not a mapping."""
    value: Any = meta
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return default
        value = value[key]
    return default if value is None else value


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


def rank_layout(meta: Mapping[str, Any]) -> tuple[int, str]:
    """(number of hosts, "N nodes × R ranks per node") from meta["ranks"]."""
    ranks = get(meta, "ranks", default=[])
    per_host = Counter(str(r.get("host")) for r in ranks if isinstance(r, Mapping))
    nprocs = get(meta, "nprocs", default=len(ranks))
    if not per_host:
        return 0, f"{nprocs} ranks"
    counts = sorted(set(per_host.values()))
    nodes = len(per_host)
    node_word = "node" if nodes == 1 else "nodes"
    if len(counts) == 1:
        rank_word = "rank" if counts[0] == 1 else "ranks"
        return nodes, f"{nodes} {node_word} × {counts[0]} {rank_word} per node"
    return nodes, f"{nodes} {node_word}, {counts[0]}–{counts[-1]} ranks per node ({nprocs} ranks)"


def hosts_of(meta: Mapping[str, Any]) -> list[str]:
    return distinct([str(r.get("host")) for r in get(meta, "ranks", default=[])
                     if isinstance(r, Mapping)])


def residual_text(metas: Sequence[Mapping[str, Any]]) -> str:
    """The clock sync's measured residual (max |offset| after sync, at start and end), as the
    largest value any launch reported — the launches' own numbers, not an estimate."""
    starts = [get(m, "clock_sync", "residual_start", "max_abs_ns") for m in metas]
    ends = [get(m, "clock_sync", "residual_end", "max_abs_ns") for m in metas]
    starts = [v for v in starts if isinstance(v, (int, float))]
    ends = [v for v in ends if isinstance(v, (int, float))]
    if not starts and not ends:
        return "not measured"
    parts = []
    if starts:
        parts.append(f"start ≤ {format_ns(float(max(starts)))}")
    if ends:
        parts.append(f"end ≤ {format_ns(float(max(ends)))}")
    return "max |residual| " + ", ".join(parts) + f" (worst of {len(metas)} launches)"


def window_text(metas: Sequence[Mapping[str, Any]]) -> str:
    method = joined([get(m, "proc_sync", "method", default=get(m, "config", "procsync"))
                     for m in metas])
    windows = [get(m, "config", "window_us") for m in metas]
    window = joined(windows) + " µs" if any(w is not None for w in windows) else "adaptive"
    if "window" in method:
        return f"{method} (window {window})"
    return method


def campaign_facts(launches: Sequence[Any]) -> LaunchFacts:
    """Facts for one alternative, from its launches (`mpimeter.analysis.LaunchInfo`)."""
    metas = [li.meta for li in launches]
    first = metas[0] if metas else {}
    _, layout = rank_layout(first)
    layouts = distinct([rank_layout(m)[1] for m in metas]) or [layout]
    hosts = distinct([h for m in metas for h in hosts_of(m)])
    cfg = lambda *k: joined([get(m, "config", *k) for m in metas])  # noqa: E731
    lines = (
        ("ranks", " | ".join(layouts)),
        ("hosts", joined(hosts, limit=6)),
        ("machine", joined([get(m, "system", "cpu_model") for m in metas]) + "; " +
         joined([get(m, "system", "kernel") for m in metas])),
        ("MPI", joined([get(m, "mpi", "library_version") for m in metas], limit=2)),
        ("MPI standard", joined([get(m, "mpi", "version") for m in metas])),
        ("benchmark", f"{joined([get(m, 'tool', 'name') for m in metas])} "
                      f"{joined([get(m, 'tool', 'version') for m in metas])}; nrep {cfg('nrep')}, "
                      f"warm-up {cfg('warmup')}, datatype {cfg('datatype')}, raw {cfg('raw')}"),
        ("timer", f"{cfg('timer')} (overhead "
                  + joined([_ns_or_none(get(m, "timer", "overhead_ns")) for m in metas]) + ")"),
        ("process sync", window_text(metas)),
        ("clock sync", joined([get(m, "clock_sync", "method") for m in metas]) + ", model "
                       + joined([get(m, "clock_sync", "model") for m in metas])),
        ("sync residual", residual_text(metas)),
        ("launches", f"{len(metas)}: " + ", ".join(f"{k} {v}" for k, v in
                                                   Counter(li.status for li in launches).items())),
    )
    return LaunchFacts(layout=layout, lines=lines)


def _ns_or_none(value: Any) -> str | None:
    return format_ns(float(value)) if isinstance(value, (int, float)) else None
