# SPDX-License-Identifier: BSD-3-Clause
"""What the launcher sets when ranks outnumber the cores they run on (docs/GUIDE.md,
"Ranks outnumbering cores").

A rank that waits for a message busy-polls by default. With more ranks than cores the poller
holds a core that the rank it waits for needs, and every step of a collective waits for a
scheduler time slice (milliseconds instead of microseconds). A library with a yield-when-idle
mode gives the core up while it polls; with `--launcher local` (every rank on this machine, on
the cores this process may run on) the launcher turns that mode on for each launch, unless the
user set the variable (then the user's value is kept, and recorded as theirs), and records in
campaign.json what it set.

- Open MPI: the MCA parameter ``mpi_yield_when_idle`` (``OMPI_MCA_mpi_yield_when_idle=1``).
  mpirun 4.1 also turns it on by itself when it sees the node oversubscribed; setting it makes
  it explicit and recorded.
- MPICH 4.0 ch4:ucx: no setting found that yields (measured, docs/GUIDE.md): its
  ``MPIR_CVAR_POLLS_BEFORE_YIELD`` belongs to the ch3 device, and neither it nor running
  local ranks over UCX nor ``MPIR_CVAR_DEFAULT_THREAD_LEVEL=MPI_THREAD_MULTIPLE`` changed the run
  times. Nothing is set; the record says so.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from mpimeter.io.bench_binaries import SIMULATED_LIBRARY

# The yield-when-idle setting of each library; an empty mapping: the library has none that
# works (the record's `note` says why).
YIELD_WHEN_IDLE: dict[str, dict[str, str]] = {
    "openmpi": {"OMPI_MCA_mpi_yield_when_idle": "1"},
    "mpich": {},
}
NO_SETTING_NOTE = {
    "mpich": "MPICH ch4 has no yield-when-idle setting (MPIR_CVAR_POLLS_BEFORE_YIELD is ch3's and "
             "changes nothing here): its waiting ranks busy-poll, and run times include scheduler time slices",
}


def local_cores() -> int:
    """The cores `--launcher local` can place ranks on: those this process may run on."""
    return len(os.sched_getaffinity(0))


def settings(np: int, cores: int, mpi: str, given: Mapping[str, str]) -> dict | None:
    """The record of one launch when ``np`` ranks outnumber ``cores`` (None otherwise):
    ``{"ranks", "cores", "set": {var: value} (what the launcher added to the environment),
    "user_set": {var: value} (the user's own value of such a variable, kept), "note"}``.
    ``given``: the environment the launch gets from the user (campaign variant and shell).
    None for the SimGrid build too: its ranks are contexts of the one simulator process."""
    if np <= cores or mpi == SIMULATED_LIBRARY:
        return None
    wanted = YIELD_WHEN_IDLE.get(mpi, {})
    record = {
        "ranks": np, "cores": cores,
        "set": {k: v for k, v in wanted.items() if k not in given},
        "user_set": {k: given[k] for k in wanted if k in given},
        "note": "" if wanted else NO_SETTING_NOTE.get(mpi, f"no yield-when-idle setting is known for {mpi}"),
    }
    return record


def check_record(value, fail, where: str) -> dict | None:
    """A record read back from campaign.json (untrusted): the keys and types :func:`settings`
    writes; ``fail(where, what)`` raises."""
    if value is None:
        return None
    if not isinstance(value, dict):
        fail(where, "expected an object or null")
    unknown = sorted(set(value) - {"ranks", "cores", "set", "user_set", "note"})
    if unknown:
        fail(where, f"unknown key {unknown[0]!r}")
    for key in ("ranks", "cores"):
        n = value.get(key)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            fail(f"{where}.{key}", "expected a positive integer")
    for key in ("set", "user_set"):
        env = value.get(key, {})
        if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            fail(f"{where}.{key}", "expected an object of strings")
    if not isinstance(value.get("note", ""), str):
        fail(f"{where}.note", "expected a string")
    return {"ranks": value["ranks"], "cores": value["cores"], "set": dict(value.get("set", {})),
            "user_set": dict(value.get("user_set", {})), "note": value.get("note", "")}
