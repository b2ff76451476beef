# SPDX-License-Identifier: BSD-3-Clause
"""campaign.json's one reader (docs/FORMAT.md, "campaign.json"): :func:`read_document` is the
one place that reads and parses the file, for the analysis and for ``mpimeter run --resume``.

The analysis side gets one typed, read-only record, checked once when a campaign folder is read
(mpimeter.io.campaign), that every consumer uses — the folder order of the alternatives, the planned seeds (mpimeter.io.siblings),
the results store (id, seed, command, each alternative's environment), the report (the Slurm
jobs, where `--launches auto` stopped, the document itself) and `mpimeter reproducibility`.

The file is untrusted (mpimeter.io.jsonread.load_json: size, UTF-8, JSON, depth). What the
readers depend on is checked and refused with the file and key named: ``schema_version``,
``alternatives[].name``, ``launches[].folder`` / ``seed`` / ``alternative``. What only describes
(an alternative's environment, the sessions' Slurm jobs, the adaptive rule's record) is kept
when it has the documented shape and left out otherwise, as the report and the store always
did. ``mpimeter run --resume`` types the same parsed document into the campaign's own record,
with the stricter checks of what it may run again (mpimeter.campaign.state.CampaignState.from_json:
a conversion of the document read here, not a second read of the file).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from mpimeter import SCHEMA_VERSION
from mpimeter.io import redact
from mpimeter.io.errors import InputError
from mpimeter.io.jsonread import INT, MAX_DEPTH, STR, Fields, load_json, type_name

FILE_NAME = "campaign.json"


@dataclass(frozen=True)
class AlternativeEntry:
    name: str
    env: Mapping[str, str]  # the variables the alternative set (secret values already redacted)
    # `mpimeter run --algorithms`: {op: {"name", "variable", "env", "value", "mpi_t_value"}}, what
    # env selects; empty for any other alternative (and for a record of another shape)
    algorithms: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, kw_only=True)
class LaunchEntry:
    folder: str  # relative to the campaign folder
    seed: int | None
    alternative: str | None
    np: int | None = None  # the ranks it was planned with (--np LIST); None: not recorded
    status: str | None = None  # complete | failed | pending | ... (None: not recorded)
    reason: str | None = None  # why it is not complete, as `mpimeter run` recorded it


@dataclass(frozen=True, kw_only=True)
class CampaignRecord:
    path: Path  # the file
    document: Mapping[str, Any]  # the whole parsed file, for display (report provenance)
    alternatives: tuple[AlternativeEntry, ...]
    launches: tuple[LaunchEntry, ...]
    id: Any = None  # as written; resultstore.identity checks it when the store needs it
    id_given: bool = False  # the key is there (even as null)
    seed: int | None = None
    command: str | None = None
    # (session index, its ``slurm`` value) of every session object (io.slurm reads them)
    session_slurm: tuple[tuple[int, Any], ...] = ()
    adaptive_launches: Mapping[str, Any] | None = None  # `--launches auto`'s record (an object)
    # the tests that crashed or hung their launch in every attempt (`failed_tests` of status failed)
    tests_failed: tuple[Mapping[str, Any], ...] = ()
    # `run --suite`: (name, op a, op b) of each comparison the suite names (analysis.opcomparisons)
    suite_comparisons: tuple[tuple[str, str, str], ...] = ()

    @property
    def alternative_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.alternatives)

    def algorithms_of(self, alternative: str) -> Mapping[str, Mapping[str, Any]]:
        """What the alternative's env selects (`mpimeter run --algorithms`); empty otherwise."""
        for a in self.alternatives:
            if a.name == alternative:
                return a.algorithms
        return MappingProxyType({})

    def unfinished(self) -> str | None:
        """'running: 4 of 20 launches complete' when campaign.json says the campaign is not done
        (`mpimeter run` still at it, or stopped before its end); None when it is, or says nothing."""
        status = self.document.get("status")
        if status not in ("running", "pending", "interrupted"):
            return None
        done = sum(e.status == "complete" for e in self.launches)
        return f"{status}: {done} of {len(self.launches)} launches complete"

    def env_of(self, alternative: str) -> Mapping[str, str]:
        """The environment the alternative set; empty for a library as it is (or not listed)."""
        for a in self.alternatives:
            if a.name == alternative:
                return a.env
        return {}


def from_document(path: Path, obj: Any) -> CampaignRecord:
    """The record of a parsed campaign.json at ``path``; InputError naming the key otherwise."""
    fields = Fields(path, obj)
    version = obj.get("schema_version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise InputError(path, f"has schema_version {version!r}; this mpimeter reads version {SCHEMA_VERSION} only")
    alternatives = []
    for alt in fields.objs("alternatives"):
        env = alt.value.get("env")
        alternatives.append(AlternativeEntry(
            alt.need("name", STR),
            MappingProxyType({k: v for k, v in env.items() if isinstance(v, str)} if isinstance(env, dict) else {}),
            _algorithms(alt.value.get("algorithms"))))
    launches = tuple(LaunchEntry(folder=launch.need("folder", STR), seed=launch.get("seed", INT),
                                 alternative=launch.get("alternative", STR), np=launch.get("np", INT),
                                 status=launch.get("status", STR), reason=launch.get("reason", STR))
                     for launch in fields.objs("launches"))
    seed = obj.get("seed")
    sessions = obj.get("sessions")
    adaptive = obj.get("adaptive_launches")
    return CampaignRecord(
        path=path, document=obj, alternatives=tuple(alternatives), launches=launches, id=obj.get("id"),
        id_given="id" in obj,
        seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        command=obj.get("command") if isinstance(obj.get("command"), str) else None,
        session_slurm=tuple((i, s.get("slurm")) for i, s in enumerate(sessions if isinstance(sessions, list) else [])
                            if isinstance(s, dict)),
        adaptive_launches=adaptive if isinstance(adaptive, dict) else None,
        tests_failed=_tests_failed(obj.get("failed_tests")),
        suite_comparisons=_suite_comparisons(obj.get("suite")))


def _tests_failed(value: Any) -> tuple[Mapping[str, Any], ...]:
    """The entries of ``failed_tests`` whose status is failed, those of the documented shape
    (docs/FORMAT.md): they only describe what the launches' folders already lack."""
    kinds = {"alternative": str, "launch": int, "op": str, "size": int, "status": str, "attempts": list}
    return tuple(MappingProxyType(dict(e)) for e in (value if isinstance(value, list) else [])
                 if isinstance(e, dict) and set(e) == set(kinds) and e["status"] == "failed"
                 and all(isinstance(e[k], t) and not isinstance(e[k], bool) for k, t in kinds.items())
                 and all(isinstance(a, dict) and isinstance(a.get("how"), str) for a in e["attempts"]))


def _suite_comparisons(suite: Any) -> tuple[tuple[str, str, str], ...]:
    """The comparisons of ``suite`` when it has the documented shape (docs/FORMAT.md), else none."""
    entries = suite.get("comparisons") if isinstance(suite, dict) else None
    if not isinstance(entries, list):
        return ()
    out = []
    for entry in entries:
        ops = entry.get("ops") if isinstance(entry, dict) else None
        if not (isinstance(entry.get("name") if isinstance(entry, dict) else None, str) and isinstance(ops, list)
                and len(ops) == 2 and all(isinstance(o, str) for o in ops)):
            return ()
        out.append((entry["name"], ops[0], ops[1]))
    return tuple(out)


_ALGORITHM_KEYS = {"name": str, "variable": str, "env": str, "value": str, "mpi_t_value": int}


def _algorithms(value: Any) -> Mapping[str, Mapping[str, Any]]:
    """An alternative's ``algorithms`` when it has the documented shape (docs/FORMAT.md), else
    empty: it only names what the alternative's env selects, which stays the record of what ran."""
    if not isinstance(value, dict):
        return MappingProxyType({})
    out = {}
    for op, entry in value.items():
        if not (isinstance(entry, dict) and set(entry) == set(_ALGORITHM_KEYS)
                and all(isinstance(entry[k], t) and not isinstance(entry[k], bool) for k, t in _ALGORITHM_KEYS.items())):
            return MappingProxyType({})
        out[op] = MappingProxyType(dict(entry))
    return MappingProxyType(out)


def read_document(path: Path, *, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """The parsed campaign.json at ``path``, as the file holds it: checked as every JSON file read
    back (mpimeter.io.jsonread.load_json: a regular file, bounded, UTF-8, finite numbers, at most
    ``max_depth`` levels), and a JSON object. InputError otherwise."""
    obj = load_json(path, max_depth=max_depth)
    if not isinstance(obj, dict):
        raise InputError(path, f"expected a JSON object, found {type_name(obj)}")
    return obj


def read_campaign_record(folder: Path) -> CampaignRecord | None:
    """campaign.json of ``folder`` (None when there is none), checked once."""
    f = Path(folder) / FILE_NAME
    if not f.exists():
        return None
    # what it shows is redacted again: a file written by hand may hold a secret in clear
    return from_document(f, redact.campaign_record(read_document(f)))
