# SPDX-License-Identifier: BSD-3-Clause
"""The measurement settings of a campaign's launches (meta.json ``config`` and ``nprocs``), so
that comparing campaigns run differently is said, not silently done."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mpimeter.analysis.loading import Campaign
from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.meta import LaunchMeta
from mpimeter.warning_codes import warning

# name shown -> the typed value of meta.json (np is "nprocs", the others are "config" keys)
_SETTINGS: dict[str, Callable[[LaunchMeta], Any]] = {
    "np": lambda m: m.nprocs, "nrep": lambda m: m.config.nrep, "warmup": lambda m: m.config.warmup,
    "procsync": lambda m: m.config.procsync, "clocksync": lambda m: m.config.clocksync,
    "ops": lambda m: m.config.ops or None, "sizes": lambda m: m.config.sizes or None,
    "raw": lambda m: m.config.raw,
}
SETTING_NAMES: tuple[str, ...] = tuple(_SETTINGS)
# config keys that differ between launches of one method by design (the report's provenance
# leaves them out of what varies, too)
PER_LAUNCH_KEYS = frozenset({"out", "seed", "force", "copy_probe_from", "mpit_from"})


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, Mapping):
        return json.dumps(dict(value), sort_keys=True)
    return str(value)


def launch_settings(meta: LaunchMeta, *, every: bool = False) -> dict[str, str]:
    """The settings one launch's meta.json records (``every``: all of its config but the
    per-launch out, seed and force, and the MPI library); a setting it does not record is left out."""
    out = {name: _text(value) for name, get in _SETTINGS.items() if (value := get(meta)) is not None}
    if every:
        out.update({key: _text(value) for key, value in meta.config.entries.items()
                    if key not in PER_LAUNCH_KEYS and value is not None})
        if meta.mpi.library != "unknown":  # another library is another method, not another trial of one
            out["mpi"] = meta.mpi.library_version_line or meta.mpi.library
    return out


def alternative_settings(campaign: Campaign, alternative: str | None = None, *,
                         every: bool = False) -> dict[str, str]:
    """The settings of one alternative's launches (all launches when None); launches that
    disagree give "x | y"."""
    values: dict[str, list[str]] = {}
    launches = campaign.launches if alternative is None else campaign.launches_of(alternative)
    for li in launches:
        for name, value in launch_settings(li.meta, every=every).items():
            if value not in values.setdefault(name, []):
                values[name].append(value)
    return {name: " | ".join(v) for name, v in values.items()}


def differing_settings(named: Sequence[tuple[str, Mapping[str, str]]],
                       names: Iterable[str] | None = None) -> list[str]:
    """'np (a: 2, b: 4)' for each setting (of ``names``; None: every one) known for every one of
    ``named`` and not the same."""
    if names is None:
        names = [n for n in SETTING_NAMES if any(n in s for _, s in named)]
        names += sorted({n for _, s in named for n in s} - set(names))
    out = []
    for name in names:
        values = [(who, s.get(name)) for who, s in named]
        if any(v is None for _, v in values) or len({v for _, v in values}) < 2:
            continue
        out.append(f"{name} ({', '.join(f'{who}: {v}' for who, v in values)})")
    return out


def settings_warning(named: Sequence[tuple[str, Mapping[str, str]]], names: Iterable[str] | None
                     ) -> list[AnalysisWarning]:
    """One ``different-settings`` warning naming the differing settings, or none."""
    diff = differing_settings(named, names)
    if not diff:
        return []
    return [warning("different-settings", settings="; ".join(diff), where=", ".join(who for who, _ in named))]
