# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --algorithms`: the library's own collective algorithms as alternatives.

Which algorithms a library lets a user select is the library's to say: `mpimeter-bench
--list-algorithms` reads them from its MPI_T control variables (Open MPI's enumerations; for
MPICH the names its variable's description holds, each confirmed by MPICH itself), and this
module only turns a request into alternatives: each (library, op, algorithm) runs with the
library's own variables in its environment, next to the library as it is (its baseline, the
default selection), interleaved like any alternative (campaign.plan). Open MPI honours
coll_tuned_<op>_algorithm only with coll_tuned_use_dynamic_rules set, so both are set. A choice
that means "the library decides" ("ignore" in Open MPI, "auto" in MPICH) is the baseline, not
an alternative. The environment stays what ran; each alternative's ``algorithms`` record
(campaign.json) names what that environment selects.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mpimeter.campaign import launch_env
from mpimeter.campaign.describe import singleton_env
from mpimeter.campaign.plan import Alternative, PlanError, check_name

FLAG = "--algorithms"
ALL = "all"
# The choices that leave the selection to the library: the baseline, never an alternative.
DEFAULT_CHOICES = frozenset({"ignore", "auto"})
# Open MPI reads coll_tuned_<op>_algorithm only when its dynamic rules are on.
OPEN_MPI_DYNAMIC_RULES = "OMPI_MCA_coll_tuned_use_dynamic_rules"
LIST_TIMEOUT_S = 120  # MPICH confirms its names with a process per candidate: ~1 s per op here


@dataclass(frozen=True)
class Choice:
    name: str
    value: int  # the variable's MPI_T value with this choice set (what meta.json records)


@dataclass(frozen=True)
class AlgorithmVariable:
    """One library's control variable selecting the algorithm of one collective."""

    op: str
    variable: str  # the control variable's name (MPI_T)
    env: str  # the environment variable that sets it
    set_by: str  # "value" (Open MPI: the number) or "name" (MPICH)
    choices: tuple[Choice, ...]

    def selectable(self) -> list[str]:
        return [c.name for c in self.choices if c.name not in DEFAULT_CHOICES]

    def choice(self, name: str) -> Choice:
        return next(c for c in self.choices if c.name == name)

    def setting(self, choice: Choice) -> str:
        return str(choice.value) if self.set_by == "value" else choice.name


def parse_request(texts: list[str] | tuple[str, ...]) -> dict[str, list[str] | None]:
    """`OP=all|NAME[,NAME...]`, several joined with ';' or given as several --algorithms ->
    {op: [names] or None for all}. Names are checked against the library later (resolve)."""
    request: dict[str, list[str] | None] = {}
    for text in texts:
        for item in (part.strip() for part in text.split(";")):
            if not item:
                continue
            op, sep, names = item.partition("=")
            op, names = op.strip(), names.strip()
            if not sep or not op or not names:
                raise PlanError(f"{FLAG} {item!r}: expected OP=all or OP=NAME[,NAME...] (several "
                                f"separated by ';'), e.g. {FLAG} 'allreduce=all;bcast=binomial'")
            if op in request:
                raise PlanError(f"{FLAG}: {op} is given twice")
            listed = [n.strip() for n in names.split(",")]
            if any(not n for n in listed):
                raise PlanError(f"{FLAG} {item!r}: an empty algorithm name")
            if ALL in listed and len(listed) > 1:
                raise PlanError(f"{FLAG} {item!r}: '{ALL}' stands alone (it means every algorithm)")
            if len(set(listed)) != len(listed):
                raise PlanError(f"{FLAG} {item!r}: a name is listed twice")
            request[op] = None if listed == [ALL] else listed
    if texts and not request:  # given, yet nothing asked for (';', ' ')
        raise PlanError(f"{FLAG} {launch_env.excerpt(';'.join(texts))}: requests no operation; give OP=all "
                        f"or OP=NAME[,NAME...] (several separated by ';'), e.g. {FLAG} 'allreduce=all;bcast=binomial'")
    return request


def parse_listing(doc: object, source: str) -> dict[str, AlgorithmVariable]:
    """--list-algorithms' document -> {op: variable}; only the choices the library confirmed
    (an MPICH variable whose names could not be confirmed offers none)."""
    try:
        out: dict[str, AlgorithmVariable] = {}
        for v in doc["algorithms"]:  # type: ignore[index]
            choices = tuple(Choice(str(c["name"]), int(c["value"])) for c in v["choices"])
            if v.get("choices_from") == "none":
                choices = ()
            if v["set_by"] not in ("value", "name"):
                raise ValueError(f"set_by {v['set_by']!r}")
            out[str(v["op"])] = AlgorithmVariable(str(v["op"]), str(v["variable"]), str(v["env"]),
                                                  v["set_by"], choices)
        return out
    except (KeyError, TypeError, ValueError) as exc:
        raise PlanError(f"{source} --list-algorithms: not the document this mpimeter reads "
                        f"({type(exc).__name__}: {exc})") from None


@lru_cache(maxsize=8)
def _listing_cached(path: str, size: int, mtime_ns: int, ops: tuple[str, ...]) -> dict[str, AlgorithmVariable]:
    try:
        done = subprocess.run([path, "--list-algorithms", "--ops", ",".join(ops)], capture_output=True, text=True,
                              timeout=LIST_TIMEOUT_S, stdin=subprocess.DEVNULL, env=singleton_env())
    except (OSError, subprocess.SubprocessError) as exc:
        raise PlanError(f"{FLAG}: {path} --list-algorithms could not run: {exc}") from None
    if done.returncode != 0:
        raise PlanError(f"{FLAG}: {path} --list-algorithms exited {done.returncode}: "
                        f"{done.stderr.strip()[:300]}")
    try:
        doc = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise PlanError(f"{FLAG}: {path} --list-algorithms printed no JSON document ({exc})") from None
    return parse_listing(doc, path)


def listing(binary: str | Path, ops: list[str]) -> dict[str, AlgorithmVariable]:
    """The library's algorithm variables of `ops`, as its mpimeter-bench lists them (asked once
    per binary and ops: the listing runs MPI, alone, without mpirun; MPICH confirms each name
    with a process of its own, so only the ops asked for are listed)."""
    path = Path(binary).resolve()
    st = path.stat()
    return _listing_cached(str(path), st.st_size, st.st_mtime_ns, tuple(sorted(ops)))


def alternatives(mpi: str, request: dict[str, list[str] | None],
                 variables: dict[str, AlgorithmVariable]) -> list[Alternative]:
    """The alternatives of one library: per op of the request, one per algorithm, named
    <mpi>-<op>-<algorithm>. PlanError (with the names the library offers) for an op without an
    algorithm variable in this library or a name it does not have."""
    out: list[Alternative] = []
    for op, names in request.items():
        var = variables.get(op)
        if var is None:
            have = ", ".join(sorted(o for o, v in variables.items() if v.selectable()))
            raise PlanError(f"{FLAG} {op}: {mpi} has no algorithm variable for {op} " + (
                f"(it has one for: {have})" if have else
                "and lets no algorithm of any operation be selected (its mpimeter-bench --list-algorithms "
                "confirms none)"))
        allowed = var.selectable()
        if not allowed:
            raise PlanError(f"{FLAG} {op}: {mpi}'s {var.variable} names no algorithm it confirms")
        for name in names or []:
            if name not in allowed:
                what = "is the library's default (its baseline runs anyway)" if name in DEFAULT_CHOICES \
                    else "is not one of its algorithms"
                raise PlanError(f"{FLAG} {op}={name}: {name!r} {what}; {mpi} allows for {op}: "
                                f"{', '.join(allowed)} (or {ALL})")
        for name in names or allowed:
            choice = var.choice(name)
            env = {var.env: var.setting(choice)}
            if var.set_by == "value":  # Open MPI
                env = {OPEN_MPI_DYNAMIC_RULES: "1", **env}
            # the variable's name and value come from the binary's output: what a file says
            launch_env.check_env(env, f"{FLAG} {op}={name}: {mpi}'s --list-algorithms")
            record = {op: {"name": name, "variable": var.variable, "env": var.env,
                           "value": var.setting(choice), "mpi_t_value": choice.value}}
            out.append(Alternative(check_name(f"{mpi}-{op}-{name}", "alternative"), mpi, env,
                                   algorithms=record))
    return out


def check_variants(request: dict[str, list[str] | None], variables_by_mpi: dict[str, dict[str, AlgorithmVariable]],
                   variants: list[tuple[str, dict[str, str]]]) -> None:
    """A --variant may not set a variable that --algorithms sets: the two would disagree on
    what ran."""
    taken = {variables[op].env: op for variables in variables_by_mpi.values() for op in request
             if op in variables}
    for name, env in variants:
        for key in env:
            if key in taken:
                raise PlanError(f"--variant {name} sets {key}, which {FLAG} {taken[key]} sets for "
                                "each algorithm: give the algorithm with one of them only")


def check_record(record: object, env: dict[str, str], fail, where: str) -> dict:
    """An alternative's ``algorithms`` record read back (campaign.json is untrusted): each op's
    name, variable, env, value and mpi_t_value, the value being what the alternative's
    environment sets. ``fail(where, what)`` raises."""
    if record is None:
        return {}
    if not isinstance(record, dict):
        fail(where, "expected an object")
    out: dict = {}
    for op, entry in record.items():
        place = f"{where}.{op}"
        if not isinstance(entry, dict) or set(entry) != {"name", "variable", "env", "value", "mpi_t_value"}:
            fail(place, "expected an object with name, variable, env, value, mpi_t_value")
        if not all(isinstance(entry[k], str) for k in ("name", "variable", "env", "value")):
            fail(place, "name, variable, env and value are strings")
        if not isinstance(entry["mpi_t_value"], int) or isinstance(entry["mpi_t_value"], bool):
            fail(f"{place}.mpi_t_value", "expected an integer")
        if env.get(entry["env"]) != entry["value"]:
            fail(place, f"the alternative's env does not set {entry['env']}={entry['value']}")
        out[op] = dict(entry)
    return out
