"""The plan of a campaign: which launches run, for which alternative, in which order, with which seed.

A campaign is N launches of mpimeter-bench per alternative (Hunold & Carpen-Amarie 2016, §4.2:
the call to mpirun is a factor of the experiment, so 10-30 launches; §5.1, Algorithm 2: each
launch shuffles its own tests). Alternatives (MPI libraries, or one library with different
environment settings) are interleaved as a randomized complete block design: launch round r
runs launch r of every alternative, in an order shuffled per round with the campaign seed. So a
slow drift of the machine hits all alternatives alike (Hunold & Carpen-Amarie §6; Hoefler &
Belli 2015 §4.1: randomize what you cannot control), and at no point of the campaign has one
alternative run many more launches than another. The order is recorded in campaign.json, so it
does not depend on this code staying the same to be reproduced.
"""

from __future__ import annotations

import random
import re
import shlex
from dataclasses import dataclass, field

# Names that a sub-campaign folder may not take (they are folders of the campaign layout).
RESERVED_NAMES = frozenset({"launches", "attempts", "logs", "trials"})
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")
_ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SEED_LIMIT = 2**31 - 1  # launch seeds fit any integer parser of the C side


class PlanError(ValueError):
    """Bad campaign input; the message names the option and what is allowed."""


@dataclass(frozen=True)
class Alternative:
    """One thing being compared: an MPI library, optionally with environment settings."""

    name: str
    mpi: str
    env: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"name": self.name, "mpi": self.mpi, "env": dict(self.env)}

    @classmethod
    def from_json(cls, obj: dict) -> Alternative:
        return cls(name=str(obj["name"]), mpi=str(obj["mpi"]), env=dict(obj.get("env") or {}))


@dataclass(frozen=True)
class PlannedLaunch:
    alternative: str
    index: int
    seed: int


def check_name(name: str, what: str) -> str:
    if not _NAME.match(name) or name in RESERVED_NAMES:
        raise PlanError(
            f"{what} {name!r} is not a usable name: use letters, digits, '_', '.', '+', '-' "
            f"(at most 64, not one of {', '.join(sorted(RESERVED_NAMES))})"
        )
    return name


def parse_variant(text: str) -> tuple[str, dict[str, str]]:
    """`NAME='ENV=VALUE ENV2=VALUE2'` -> (NAME, {ENV: VALUE, ...}). An empty setting list is
    allowed (`default=`): the library as it is, as the baseline of a comparison."""
    name, sep, settings = text.partition("=")
    if not sep:
        raise PlanError(f"--variant {text!r}: expected NAME='ENV=VALUE ...' (e.g. "
                        "tuned='OMPI_MCA_coll_tuned_use_dynamic_rules=1')")
    check_name(name.strip(), "--variant name")
    env: dict[str, str] = {}
    try:
        tokens = shlex.split(settings)
    except ValueError as exc:
        raise PlanError(f"--variant {name}: cannot split {settings!r}: {exc}") from None
    for token in tokens:
        key, eq, value = token.partition("=")
        if not eq or not _ENV_KEY.match(key):
            raise PlanError(f"--variant {name}: {token!r} is not ENV=VALUE "
                            "(ENV: letters, digits and '_', not starting with a digit)")
        if key in env:
            raise PlanError(f"--variant {name}: {key} is given twice")
        env[key] = value
    return name.strip(), env


def make_alternatives(mpis: list[str], variants: list[tuple[str, dict[str, str]]]) -> list[Alternative]:
    """The alternatives of a campaign: each MPI library, times each variant when there are any.
    Names: the library (no variants), the variant (one library), else `<library>-<variant>`."""
    if not mpis:
        raise PlanError("--mpi: no MPI library to run")
    if len(set(mpis)) != len(mpis):
        raise PlanError(f"--mpi {','.join(mpis)}: a library is listed twice")
    seen = set()
    for name, _ in variants:
        if name in seen:
            raise PlanError(f"--variant {name}: the name is used twice")
        seen.add(name)
    alternatives: list[Alternative] = []
    for mpi in mpis:
        if not variants:
            alternatives.append(Alternative(check_name(mpi, "--mpi library"), mpi, {}))
            continue
        for vname, env in variants:
            name = vname if len(mpis) == 1 else f"{mpi}-{vname}"
            alternatives.append(Alternative(check_name(name, "alternative"), mpi, dict(env)))
    return alternatives


def interleave(alternatives: list[str], launches: int, seed: int) -> list[PlannedLaunch]:
    """The order of a campaign: `launches` rounds, each running every alternative once in an
    order shuffled with `seed`; every launch gets its own seed for its shuffled test order.
    Deterministic for a seed."""
    if launches < 1:
        raise PlanError(f"--launches {launches}: must be at least 1")
    if not alternatives:
        raise PlanError("no alternative to run")
    rng = random.Random(seed)
    order: list[PlannedLaunch] = []
    for index in range(launches):
        block = list(alternatives)
        rng.shuffle(block)
        for name in block:
            order.append(PlannedLaunch(name, index, rng.randint(1, SEED_LIMIT)))
    return order


def draw_campaign_seed() -> int:
    return random.SystemRandom().randint(1, SEED_LIMIT)
