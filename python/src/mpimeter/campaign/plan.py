# SPDX-License-Identifier: BSD-3-Clause
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

from mpimeter.errors import MpimeterError

# Names that a sub-campaign folder may not take (they are folders of the campaign layout).
RESERVED_NAMES = frozenset({"launches", "attempts", "logs", "trials"})
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")
ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SEED_LIMIT = 2**31 - 1  # launch seeds fit any integer parser of the C side


class PlanError(ValueError, MpimeterError):
    """Bad campaign input; the message names the option and what is allowed."""


@dataclass(frozen=True)
class Alternative:
    """One thing being compared: an MPI library, optionally with environment settings."""

    name: str
    mpi: str
    env: dict[str, str] = field(default_factory=dict)
    # --algorithms: {op: {"name", "variable", "env", "value", "mpi_t_value"}}, what env selects
    # (campaign.algorithms); empty for any other alternative
    algorithms: dict[str, dict] = field(default_factory=dict)

    def to_json(self) -> dict:
        out = {"name": self.name, "mpi": self.mpi, "env": dict(self.env)}
        if self.algorithms:
            out["algorithms"] = {op: dict(entry) for op, entry in self.algorithms.items()}
        return out


@dataclass(frozen=True)
class PlannedLaunch:
    alternative: str
    index: int
    seed: int
    np: int | None = None  # ranks of this launch (None: the campaign's one --np)


def check_name(name: str, what: str) -> str:
    if not _NAME.match(name) or name in RESERVED_NAMES:
        raise PlanError(
            f"{what} {name!r} is not a usable name: use letters, digits, '_', '.', '+', '-' "
            f"(at most 64, not one of {', '.join(sorted(RESERVED_NAMES))})"
        )
    return name


def parse_variant(text: str) -> tuple[str, dict[str, str]]:
    """`NAME='ENV=VALUE ENV2=VALUE2'` -> (NAME, {ENV: VALUE, ...}). An empty setting list is
    allowed (`same=`): the library unchanged a second time, an A/A comparison that shows how
    much two identical alternatives differ by chance."""
    name, sep, settings = text.partition("=")
    if not sep:
        raise PlanError(f"--variant {text!r}: expected NAME='ENV=VALUE ...' (e.g. "
                        "tuned='OMPI_MCA_coll_tuned_use_dynamic_rules=1')")
    check_name(name.strip(), "--variant name")
    env: dict[str, str] = {}
    try:
        tokens = shlex.split(settings)
    except ValueError as exc:  # the settings are not shown: they may hold a secret value
        raise PlanError(f"--variant {name}: cannot split its settings ({exc}); quote them as "
                        "NAME='ENV=VALUE ENV2=VALUE2'") from None
    for token in tokens:
        key, eq, value = token.partition("=")
        if not eq or not ENV_KEY.match(key):
            raise PlanError(f"--variant {name}: {token!r} is not ENV=VALUE "
                            "(ENV: letters, digits and '_', not starting with a digit)")
        if key in env:
            raise PlanError(f"--variant {name}: {key} is given twice")
        env[key] = value
    return name.strip(), env


# Environment variables only one library reads: a variant setting them is a variant of that
# library (OMPI_* would be ignored by MPICH without a word, and MPIR_CVAR_* by Open MPI).
# PMIX_* (any PMIx runtime, e.g. MPICH or srun --mpi=pmix) and MPIEXEC_* (MPIEXEC_TIMEOUT is
# read by both mpiruns) are not one library's: they stay neutral.
LIBRARY_ENV_PREFIXES: dict[str, tuple[str, ...]] = {
    "openmpi": ("OMPI_", "OPAL_", "PRTE_"),
    "mpich": ("MPIR_CVAR_", "MPICH_", "HYDRA_"),
}


def env_library(key: str) -> str | None:
    """The library that reads this environment variable, None when it belongs to none."""
    for mpi, prefixes in LIBRARY_ENV_PREFIXES.items():
        if key.startswith(prefixes):
            return mpi
    return None


def variant_library(name: str, env: dict[str, str]) -> str | None:
    """The library a variant is tied to by its settings, None for a neutral variant (UCX_*,
    OMP_*, ...: applied with every library). A variant setting two libraries' variables is
    refused: it cannot mean the same thing to both."""
    owners: dict[str, list[str]] = {}
    for key in env:
        mpi = env_library(key)
        if mpi is not None:
            owners.setdefault(mpi, []).append(key)
    if len(owners) > 1:
        parts = "; ".join(f"{', '.join(keys)} for {mpi}" for mpi, keys in owners.items())
        raise PlanError(f"--variant {name}: mixes settings of several MPI libraries ({parts}); "
                        "a variant is one library's settings: give one --variant per library")
    return next(iter(owners), None)


def make_alternatives(mpis: list[str], variants: list[tuple[str, dict[str, str]]], *,
                      found_under: str | None = None) -> list[Alternative]:
    """The alternatives of a campaign: each MPI library as it is (its baseline, named by the
    library), then the variants run with it. A variant tied to a library (see variant_library)
    runs with that library only; a neutral one with every library. Names: the library for a
    baseline; the variant's own name when it runs with one library only (a tied variant, or any
    variant in a campaign of one library); else `<library>-<variant>`.

    `found_under`: the bench folder when `mpis` are the libraries found there rather than given
    with --mpi (it changes what a refusal advises)."""
    if not mpis:
        raise PlanError("--mpi: no MPI library to run")
    if len(set(mpis)) != len(mpis):
        raise PlanError(f"--mpi {','.join(mpis)}: a library is listed twice")
    seen = set()
    for name, _ in variants:
        if name in seen:
            raise PlanError(f"--variant {name}: the name is used twice")
        seen.add(name)
    tied = {name: variant_library(name, env) for name, env in variants}
    for name, env in variants:
        mpi = tied[name]
        if mpi is None or mpi in mpis:
            continue
        keys = ", ".join(k for k in env if env_library(k) == mpi)
        if found_under is None:
            where = f"--mpi {','.join(mpis)}"
            advice = f"add it: --mpi {','.join([*mpis, mpi])}"
        else:
            where = f"libraries found under {found_under}: {', '.join(mpis)}"
            advice = "build its mpimeter-bench (`make build`) or give --bench-dir"
        raise PlanError(f"--variant {name}: {keys} belong to {mpi}, so the variant runs with "
                        f"{mpi}, which is not in this campaign ({where}); {advice}")
    # Each alternative is a folder of the campaign: two with one name would share it.
    taken = {check_name(mpi, "--mpi library"): f"the baseline of {mpi}" for mpi in mpis}
    alternatives: list[Alternative] = []
    for mpi in mpis:
        alternatives.append(Alternative(mpi, mpi, {}))
        for vname, env in variants:
            if tied[vname] not in (None, mpi):
                continue
            name = vname if len(mpis) == 1 or tied[vname] == mpi else f"{mpi}-{vname}"
            what = f"--variant {vname} with {mpi}"
            if name in taken:
                raise PlanError(f"{what} would be named {name!r}, like {taken[name]}: choose "
                                "another --variant name (a baseline is named by its library, a "
                                "variant run with several libraries <library>-<variant>)")
            taken[name] = what
            alternatives.append(Alternative(check_name(name, "alternative"), mpi, dict(env)))
    return alternatives


def interleave(alternatives: list[str], launches: int, seed: int,
               nps: list[int] | None = None) -> list[PlannedLaunch]:
    """The order of a campaign: `launches` rounds, each running every alternative at every
    process count of `nps` once, in an order shuffled with `seed`; every launch gets its own
    seed for its shuffled test order. Launch `index` of an alternative is round `index // len(nps)`
    at process count `nps[index % len(nps)]` (launch_np). With one process count the order is
    the one of a campaign without `nps`. Deterministic for a seed."""
    if launches < 1:
        raise PlanError(f"--launches {launches}: must be at least 1")
    if not alternatives:
        raise PlanError("no alternative to run")
    counts = list(nps) if nps else [None]
    rng = random.Random(seed)
    order: list[PlannedLaunch] = []
    for round_ in range(launches):
        block = [(name, j) for name in alternatives for j in range(len(counts))]
        rng.shuffle(block)
        for name, j in block:
            order.append(PlannedLaunch(name, round_ * len(counts) + j, rng.randint(1, SEED_LIMIT),
                                       counts[j]))
    return order


def launch_np(nps: list[int], index: int) -> int:
    """The process count of launch `index` of an alternative (see interleave)."""
    return nps[index % len(nps)]


def draw_campaign_seed() -> int:
    return random.SystemRandom().randint(1, SEED_LIMIT)
