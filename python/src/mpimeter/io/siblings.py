# SPDX-License-Identifier: BSD-3-Clause
"""Launches that do not belong together (docs/FORMAT.md, "A campaign folder"): the launches of one
alternative are repetitions of one experiment, so they share their MPI library and its version,
their host set, their number of ranks, the graph their neighborhood collectives ran on (a
relative --graph-file resumed from another folder names another file) and the build of
mpimeter-bench that measured them (of an imported run: the benchmark and its version); and a launch that campaign.json lists was run with the
seed campaign.json gave it. A launch folder copied in from another campaign or library breaks one
of these — silently, since it parses.

Each fact is compared with the value most launches of the alternative have (the first launch's
on a tie); each launch that differs is named with its value and the others'. An error
(:class:`InputError`), or with ``allow_mixed`` a ``mixed-launches`` warning for a mix that is
deliberate (e.g. a cluster that gives every launch other nodes).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mpimeter.io.campaign_record import CampaignRecord
from mpimeter.io.errors import AnalysisWarning, InputError
from mpimeter.io.meta import LaunchMeta
from mpimeter.warning_codes import warning

NEIGHBOR_PREFIXES = ("neighbor_", "ineighbor_")


def graph_digest(meta: LaunchMeta) -> str | None:
    """The digest of the --graph-file graph the launch's neighborhood collectives ran on
    (config.graph.fnv1a64), "none (the Cartesian topology)" when they ran without one; None for
    a launch without a neighborhood collective (it ran on no topology: nothing to compare)."""
    if not any(op.startswith(NEIGHBOR_PREFIXES) for op in meta.config.ops):
        return None
    graph = meta.config.entries.get("graph")
    digest = graph.get("fnv1a64") if isinstance(graph, Mapping) else None
    return digest if isinstance(digest, str) else "none (the Cartesian topology)"


def _build_of(meta: LaunchMeta) -> str | None:
    """What meta.json records of the binary's build: its version and git revision, its compiler
    and flags; None when it records none of them."""
    parts = (meta.tool.version, meta.tool.git_revision, meta.build.compiler, meta.build.flags)
    return None if all(p is None for p in parts) else " / ".join(str(p) for p in parts)


# (what the message calls it, how to read it from a launch); every input the launches of one
# alternative must share to be pooled: the library, the hosts, the ranks, the graph, the build
FACTS: tuple[tuple[str, Callable[[LaunchMeta], Any]], ...] = (
    ("MPI library (mpi.library)", lambda m: m.mpi.library),
    ("MPI library version (mpi.library_version)", lambda m: m.mpi.library_version),
    ("host set (ranks[].host)", lambda m: ", ".join(sorted(m.hosts)) or None),
    ("number of ranks (nprocs)", lambda m: m.nprocs),
    ("graph of --graph-file (config.graph.fnv1a64)", graph_digest),
    ("mpimeter-bench build (tool.version / tool.git_revision / build.compiler / build.flags)", _build_of),
    # an imported run was measured by another benchmark: its version is its build
    ("benchmark of an imported run (origin.tool_name / origin.tool_version)",
     lambda m: m.origin.label if m.origin is not None else None),
)
NPROCS_FACT = "number of ranks (nprocs)"
HINT = ("a launch folder copied in from another campaign or library, or a campaign resumed with other inputs? "
        "Move it out; or, when the mix is deliberate, analyze with --allow-mixed")


def _name(folder: Path) -> str:
    return folder.name


def check_siblings(alternative: str, launches: Sequence[tuple[Path, LaunchMeta]],
                   planned_seeds: Mapping[Path, int | None] | None, *, allow_mixed: bool,
                   planned_np: Mapping[Path, int] | None = None) -> list[AnalysisWarning]:
    """The launches (folder, meta) of one alternative; ``planned_seeds``: folder → the seed
    campaign.json gave it (None when campaign.json lists no launch of this alternative);
    ``planned_np``: folder → the ranks campaign.json planned it with, when the campaign ran
    several (--np LIST): then each launch's nprocs is checked against its own plan instead of
    against the other launches'."""
    problems: list[tuple[Path, str]] = []
    for what, fact in FACTS:
        if planned_np and what == NPROCS_FACT:
            for folder, meta in launches:
                planned = planned_np.get(folder.resolve())
                if planned is not None and meta.nprocs != planned:
                    problems.append((folder, f"its {what} is {meta.nprocs}, but campaign.json planned it with "
                                             f"{planned} ranks"))
            continue
        values = [(folder, fact(meta)) for folder, meta in launches]
        known = [v for _, v in values if v is not None]
        if len(set(map(repr, known))) < 2:
            continue
        counts = Counter(map(repr, known))
        usual = max(known, key=lambda v: counts[repr(v)])  # max keeps the first of equals
        usual_in = [_name(f) for f, v in values if v == usual]
        for folder, value in values:
            if value is not None and value != usual:
                problems.append((folder, f"its {what} is {_show(value)}, but {_show(usual)} in launches "
                                         f"{_few(usual_in)} of alternative {alternative}"))
    if planned_seeds is not None:
        for folder, meta in launches:
            key = folder.resolve()
            if key not in planned_seeds:
                problems.append((folder, f"campaign.json does not list it among the launches of alternative "
                                         f"{alternative}"))
            elif planned_seeds[key] is not None and meta.config.seed is not None and \
                    planned_seeds[key] != meta.config.seed:
                problems.append((folder, f"it ran with seed {meta.config.seed} (config.seed), but campaign.json gave "
                                         f"this launch seed {planned_seeds[key]}"))
    if not problems:
        return []
    if not allow_mixed:
        folder, what = problems[0]
        more = f" ({len(problems) - 1} more such problem(s))" if len(problems) > 1 else ""
        raise InputError(folder / "meta.json", f"this launch does not belong with the others: {what}{more}; {HINT}")
    return [warning("mixed-launches", launch=_name(folder), alternative=alternative, what=what, where=str(folder))
            for folder, what in problems]


def planned_seeds(root: Path, record: CampaignRecord | None,
                  folders: Sequence[Path]) -> dict[Path, int | None] | None:
    """folder → the seed campaign.json gave it, for every launch folder of ``folders`` that
    campaign.json lists, and None for one it does not list although it lists launches of the same
    ``launches/`` folder; None when campaign.json lists no launch there (a hand-made one)."""
    if record is None:
        return None
    listed = {(root / e.folder).resolve(): e.seed for e in record.launches}
    parents = {p.parent for p in listed}
    mine = [f.resolve() for f in folders]
    if not any(f.parent in parents for f in mine):
        return None
    return {f: listed[f] for f in mine if f in listed}


def planned_np(root: Path, record: CampaignRecord | None) -> dict[Path, int] | None:
    """folder → the ranks campaign.json planned the launch with, when it planned several process
    counts (--np LIST); None otherwise (every launch of an alternative has one nprocs)."""
    if record is None:
        return None
    counts = {e.np for e in record.launches if e.np is not None}
    if len(counts) < 2:
        return None
    return {(root / e.folder).resolve(): e.np for e in record.launches if e.np is not None}


def _show(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 80 else text[:79] + "…"


def _few(names: list[str], limit: int = 4) -> str:
    return ", ".join(names[:limit]) + (f" (+{len(names) - limit} more)" if len(names) > limit else "")
