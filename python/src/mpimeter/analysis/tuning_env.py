# SPDX-License-Identifier: BSD-3-Clause
"""What each alternative of a tuning campaign ran: the library's own algorithm variables, read
from campaign.json ``alternatives[].env`` or, without it, from the variables its launches
recorded (meta.json ``environment``) — the one truth, so that a hand-made ``--variant
ring='OMPI_MCA_…=4'`` campaign is tunable too (analysis.tuning chooses among them).

- Open MPI: ``OMPI_MCA_coll_tuned_<op>_algorithm=<value>`` (effective with
  ``OMPI_MCA_coll_tuned_use_dynamic_rules=1``); its ``_segmentsize`` / ``_chain_fanout``
  companions are carried into the rules file;
- MPICH: ``MPIR_CVAR_<OP>_INTRA_ALGORITHM=<name>`` (or the ``MPICH_`` alias).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mpimeter.analysis.choices import TUNED_LIBRARIES as LIBRARIES
from mpimeter.analysis.loading import AnalysisError
from mpimeter.analysis.results import AnalysisResult
from mpimeter.io.errors import AnalysisWarning
from mpimeter.warning_codes import warning

_OMPI_ALG = re.compile(r"^OMPI_MCA_coll_tuned_([a-z_]+?)_algorithm$")
_OMPI_PARAM = re.compile(r"^OMPI_MCA_coll_tuned_([a-z_]+?)_algorithm_(segmentsize|chain_fanout|tree_fanout|max_requests)$")
_OMPI_DYNAMIC = "OMPI_MCA_coll_tuned_use_dynamic_rules"
_MPICH_ALG = re.compile(r"^(?:MPIR_CVAR|MPICH)_([A-Z_]+)_INTRA_ALGORITHM$")


@dataclass(frozen=True)
class AlgorithmSetting:
    """One operation's algorithm as an alternative set it: ``variable=value`` in its environment,
    ``name`` from campaign.json's record when it agrees (else the value), ``params`` the
    companions (Open MPI: segmentsize, chain_fanout, ...) as set or as the launches' MPI_T
    recorded them."""

    op: str
    variable: str
    value: str
    name: str
    params: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TuningAlternative:
    """An alternative of one library: ``settings`` per op (empty: the library's default)."""

    alternative: str
    library: str
    settings: Mapping[str, AlgorithmSetting]

    @property
    def is_default(self) -> bool:
        return not self.settings


def settings_of_env(library: str, env: Mapping[str, str]) -> tuple[dict[str, AlgorithmSetting], list[str]]:
    """The algorithm settings an environment makes for ``library`` (op → setting, names still
    the values), and the variables that are neither a selection nor its companions (an
    alternative that sets them is more than an algorithm choice)."""
    settings: dict[str, AlgorithmSetting] = {}
    params: dict[str, dict[str, str]] = {}
    other: list[str] = []
    for name, value in sorted(env.items()):
        if library == "openmpi" and (m := _OMPI_ALG.match(name)):
            settings[m.group(1)] = AlgorithmSetting(m.group(1), name, value, value)
        elif library == "openmpi" and (m := _OMPI_PARAM.match(name)):
            params.setdefault(m.group(1), {})[m.group(2)] = value
        elif library == "openmpi" and name == _OMPI_DYNAMIC:
            continue
        elif library == "mpich" and (m := _MPICH_ALG.match(name)):
            op = m.group(1).lower()
            settings[op] = AlgorithmSetting(op, name, value, value)
        else:
            other.append(name)
    for op, p in params.items():
        if op in settings:
            settings[op] = replace(settings[op], params=p)
        else:
            other += [f"OMPI_MCA_coll_tuned_{op}_algorithm_{k}" for k in p]
    return settings, other


def _recorded_names(document: Mapping[str, Any] | None, alternative: str) -> dict[str, tuple[str, str, str]]:
    """campaign.json's ``alternatives[].algorithms`` of one alternative, when well formed:
    op → (name, variable, value)."""
    if not isinstance(document, Mapping):
        return {}
    for alt in document.get("alternatives") or []:
        if isinstance(alt, Mapping) and alt.get("name") == alternative and isinstance(alt.get("algorithms"), Mapping):
            return {op: (str(v.get("name")), str(v.get("variable")), str(v.get("value")))
                    for op, v in alt["algorithms"].items()
                    if isinstance(v, Mapping) and all(isinstance(v.get(k), (str, int)) for k in ("name", "variable", "value"))}
    return {}


def _library_of(result: AnalysisResult, alternative: str) -> str:
    libs = {li.meta.mpi.library for li in result.campaign.launches_of(alternative) if li.meta}
    if len(libs) != 1:
        raise AnalysisError(f"{alternative}: its launches ran with {', '.join(sorted(libs)) or 'no recorded library'}; "
                            "each alternative must run one library")
    return libs.pop()


def _env_of(result: AnalysisResult, alternative: str, library: str) -> Mapping[str, str]:
    """What the alternative set: campaign.json's env; without campaign.json what its launches
    recorded (``_recorded_env``)."""
    record = result.campaign.campaign_record
    if record is not None and alternative in record.alternative_names:
        return record.env_of(alternative)
    if record is not None and result.campaign.kind == "campaign" and len(record.alternative_names) == 1:
        # a one-alternative campaign folder: the analysis names its alternative after the folder,
        # campaign.json by the library; it is that one alternative
        return record.env_of(record.alternative_names[0])
    return _recorded_env(result, alternative, library)


def _is_algorithm_variable(library: str, name: str) -> bool:
    if library == "openmpi":
        return bool(_OMPI_ALG.match(name) or _OMPI_PARAM.match(name)) or name == _OMPI_DYNAMIC
    return library == "mpich" and bool(_MPICH_ALG.match(name))


def _recorded_env(result: AnalysisResult, alternative: str, library: str) -> dict[str, str]:
    """The variables an alternative's launches recorded (meta.json ``environment``) that are the
    alternative's own. A launcher records variables of its own in every launch: one that differs
    between the alternative's launches (a job id, a namespace) is not a setting, nor one that
    every alternative's launches recorded with one value (the launcher's or the machine's), unless
    it is one of the library's algorithm variables. What is left tells the alternative apart."""
    def constant(name: str) -> dict[str, str]:
        envs = [dict(li.meta.environment) for li in result.campaign.launches_of(name) if li.meta]
        if not envs:
            return {}
        return {k: v for k, v in envs[0].items() if all(e.get(k) == v for e in envs[1:])}

    own = constant(alternative)
    others = [constant(name) for name in result.alternatives if name != alternative]
    return {k: v for k, v in own.items()
            if _is_algorithm_variable(library, k) or any(other.get(k) != v for other in others)}


def _with_mpit(result: AnalysisResult, alt: TuningAlternative) -> TuningAlternative:
    """Open MPI: the companions an alternative did not set, as its launches' MPI_T recorded them
    (meta.json mpi.mpi_t.selected), so that a rules file repeats what was measured."""
    if alt.library != "openmpi" or not alt.settings:
        return alt
    selected: dict[str, str] = {}
    for li in result.campaign.launches_of(alt.alternative):
        if li.meta and li.meta.mpi.mpi_t is not None:
            selected.update(li.meta.mpi.mpi_t.selected)
    settings = {}
    for op, s in alt.settings.items():
        params = dict(s.params)
        for k in ("segmentsize", "chain_fanout"):
            v = selected.get(f"coll_tuned_{op}_algorithm_{k}")
            if k not in params and v is not None and v.lstrip("-").isdigit():
                params[k] = v
        settings[op] = replace(s, params=params)
    return replace(alt, settings=settings)


def tuning_alternatives(result: AnalysisResult, names: Mapping[str, Mapping[str, Mapping[str, str]]] | None = None
                        ) -> tuple[dict[str, list[TuningAlternative]], list[AnalysisWarning]]:
    """library → its alternatives (the default first); alternatives that set more than an
    algorithm choice are left out with a warning. ``names``: library → op → value → name, the
    library's own list (``--list-algorithms``), for values campaign.json does not name."""
    out: dict[str, list[TuningAlternative]] = {}
    warnings: list[AnalysisWarning] = []
    record = result.campaign.campaign_record
    for name in result.alternatives:
        library = _library_of(result, name)
        if library not in LIBRARIES:
            warnings.append(warning("tune-left-out", alternative=name, why=f"its library {library} has no tuning files "
                                    f"mpimeter writes (only {', '.join(LIBRARIES)})"))
            continue
        env = _env_of(result, name, library)
        settings, other = settings_of_env(library, env)
        if other:
            warnings.append(warning("tune-left-out", alternative=name,
                                    why=f"it sets {', '.join(other)}, more than the library's algorithm variables"))
            continue
        if library == "openmpi" and settings and env.get(_OMPI_DYNAMIC) != "1":
            # Open MPI 4.1 takes coll_tuned_<op>_algorithm only with dynamic rules on: it ran the default
            warnings.append(warning("tune-left-out", alternative=name,
                                    why=f"it sets {', '.join(s.variable for s in settings.values())} without "
                                        f"{_OMPI_DYNAMIC}=1, which Open MPI needs for them to take effect"))
            continue
        recorded = _recorded_names(record.document if record is not None else None, name)
        listed = (names or {}).get(library, {})
        for op, s in list(settings.items()):
            rec = recorded.get(op)
            if rec and rec[1] == s.variable and rec[2] == s.value:
                settings[op] = replace(s, name=rec[0])
            elif s.value in listed.get(op, {}):
                settings[op] = replace(s, name=listed[op][s.value])
        alt = _with_mpit(result, TuningAlternative(name, library, settings))
        out.setdefault(library, []).append(alt)
    for library, alts in out.items():
        alts.sort(key=lambda a: (not a.is_default, a.alternative != library))
    return out, warnings
