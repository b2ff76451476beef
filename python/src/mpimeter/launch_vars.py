# SPDX-License-Identifier: BSD-3-Clause
"""Which environment variables may reach a launch from a file: an allow-list (a ground module:
the tuning files of io and the launches of campaign read the same list; campaign.launch_env
turns a refusal into the campaign's error).

Anything but the user's own command line is a file here — campaign.json read back by
``run --resume`` (even with ``--trust-recorded``), a tuning file ``tune`` writes and
``tune --verify`` reads back, the algorithm variables a binary's ``--list-algorithms`` names.
From those, only the MPI libraries' collective-tuning and progress-thread variables this project
knows may reach a launch, each value of the variable's type, and no control character anywhere: a
variable that chooses what code the loader, an interpreter or the MPI launcher runs (``LD_PRELOAD``,
``OMPI_MCA_orte_fork_agent``, ``HYDRA_LAUNCHER_EXEC``, ...) is not on the list, and neither is
one this module has never heard of. ``run --variant`` (the user's own command line) sets any
variable: it does not pass through here.

Allowed, with the type of their value:

- Open MPI (MCA parameters, ``OMPI_MCA_``): ``coll_tuned_use_dynamic_rules`` (0/1);
  ``coll_tuned_<op>_algorithm`` and its ``_segmentsize``, ``_tree_fanout``, ``_chain_fanout``,
  ``_max_requests`` (integers ≥ 0); ``coll_tuned_dynamic_rules_filename`` (an existing regular
  file); ``coll_<component>_priority`` (integer ≥ 0); the component lists ``coll``, ``btl``,
  ``pml``, ``osc`` (``[^]name[,name...]``); ``pml_monitoring_enable`` (0, 1 or 2: the
  counters' variant, docs/GUIDE.md); ``mpi_yield_when_idle`` (0/1: what oversub sets);
  ``btl_tcp_progress_thread`` (0/1: the one progress thread Open MPI 4.1 has, in its TCP
  transport: the progression variants of examples/suites/nbc-progress.toml).
- MPICH (control variables, ``MPIR_CVAR_``): ``<OP>_INTRA_ALGORITHM``, ``<OP>_INTER_ALGORITHM``
  (names), ``<OP>_..._KVAL``, ``..._CHUNK_SIZE``, ``..._SHORT_MSG_SIZE``, ``..._LONG_MSG_SIZE``
  (integers ≥ 0), ``<OP>_..._TREE_TYPE`` (a name), ``<OP>_DEVICE_COLLECTIVE`` (0/1),
  ``DEVICE_COLLECTIVES`` (all, none, percoll), ``COLL_SELECTION_TUNING_JSON_FILE`` and its
  ``CH4_`` and ``CH4_POSIX_`` forms (an existing regular file); ``ASYNC_PROGRESS`` (0/1: MPICH's
  progress thread, the same suite's; MPICH raises the thread level to MPI_THREAD_MULTIPLE itself).

Both progress-thread switches are here because a progression study (docs/ALGORITHMS.md,
"Progression") is a set of variants a suite file carries and ``--resume`` reruns; a switch
starts a thread inside the library the campaign already runs, and chooses no code to load.

``<op>`` is one of the MPI collectives (blocking; for MPICH also its nonblocking ``I<OP>``).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass

EXCERPT_CHARS = 40  # a bad value is quoted up to this many characters
NAME_CHARS = 80  # a bad name up to this many (the longest allowed one has 65)
MAX_VALUE_CHARS = 4096  # PATH_MAX: no allowed value is longer

# The collectives of MPI 3.1 whose algorithms the libraries let a user select.
COLLECTIVES = ("allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw", "barrier", "bcast",
               "exscan", "gather", "gatherv", "reduce", "reduce_scatter", "reduce_scatter_block", "scan",
               "scatter", "scatterv", "neighbor_allgather", "neighbor_allgatherv", "neighbor_alltoall",
               "neighbor_alltoallv", "neighbor_alltoallw")


@dataclass(frozen=True)
class ValueType:
    """What a value may be: ``pattern`` (full match) for a word, or a path to a regular file."""

    description: str
    pattern: re.Pattern[str] | None  # None: a path to an existing regular file


COUNT = ValueType("an integer ≥ 0", re.compile(r"0|[1-9][0-9]{0,17}"))
SWITCH = ValueType("0 or 1", re.compile(r"[01]"))
LEVEL = ValueType("0, 1 or 2", re.compile(r"[012]"))
NAME = ValueType("a name of letters, digits and '_'", re.compile(r"[A-Za-z0-9_]{1,200}"))
COMPONENTS = ValueType("a component list ([^]name[,name...], names of letters, digits and '_')",
                       re.compile(r"\^?[A-Za-z0-9_]{1,64}(,[A-Za-z0-9_]{1,64}){0,63}"))
DEVICE_CHOICE = ValueType("all, none or percoll", re.compile(r"all|none|percoll"))
FILE = ValueType("the path of an existing regular file", None)

_OMPI_OP = "(?:" + "|".join(COLLECTIVES) + ")"
_MPICH_OP = "I?(?:" + "|".join(op.upper() for op in COLLECTIVES) + ")"

# (name pattern, type): the allow-list; a name matches at most one
ALLOWED: tuple[tuple[re.Pattern[str], ValueType], ...] = tuple((re.compile(p), t) for p, t in (
    (r"OMPI_MCA_coll_tuned_use_dynamic_rules", SWITCH),
    (rf"OMPI_MCA_coll_tuned_{_OMPI_OP}_algorithm", COUNT),
    (rf"OMPI_MCA_coll_tuned_{_OMPI_OP}_algorithm_(?:segmentsize|tree_fanout|chain_fanout|max_requests)", COUNT),
    (r"OMPI_MCA_coll_tuned_dynamic_rules_filename", FILE),
    (r"OMPI_MCA_coll_[a-z0-9]{1,32}_priority", COUNT),
    (r"OMPI_MCA_(?:coll|btl|pml|osc)", COMPONENTS),
    (r"OMPI_MCA_pml_monitoring_enable", LEVEL),
    (r"OMPI_MCA_mpi_yield_when_idle", SWITCH),
    (r"OMPI_MCA_btl_tcp_progress_thread", SWITCH),
    (rf"MPIR_CVAR_{_MPICH_OP}_(?:INTRA|INTER)_ALGORITHM", NAME),
    (rf"MPIR_CVAR_{_MPICH_OP}(?:_[A-Z]{{1,16}}){{0,3}}_(?:KVAL|CHUNK_SIZE|SHORT_MSG_SIZE|LONG_MSG_SIZE)", COUNT),
    (rf"MPIR_CVAR_{_MPICH_OP}(?:_[A-Z]{{1,16}}){{0,2}}_TREE_TYPE", NAME),
    (rf"MPIR_CVAR_{_MPICH_OP}_DEVICE_COLLECTIVE", SWITCH),
    (r"MPIR_CVAR_DEVICE_COLLECTIVES", DEVICE_CHOICE),
    (r"MPIR_CVAR_(?:CH4_(?:POSIX_)?)?COLL_SELECTION_TUNING_JSON_FILE", FILE),
    (r"MPIR_CVAR_ASYNC_PROGRESS", SWITCH),
))

ALLOWED_TEXT = ("only the MPI libraries' collective-tuning and progress-thread variables mpimeter knows are "
                "taken from a file (Open MPI OMPI_MCA_coll_tuned_*, coll priorities, the coll/btl/pml/osc "
                "component lists and btl_tcp_progress_thread; MPICH MPIR_CVAR_<OP>_INTRA_ALGORITHM, its "
                "collective settings and MPIR_CVAR_ASYNC_PROGRESS), each with a value of its type")

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` quoted (repr), at most ``limit`` characters of it and '…' when cut."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "…"


def value_type(name: str) -> ValueType | None:
    """The type of an allowed variable's value; None when the variable is not on the list."""
    for pattern, kind in ALLOWED:
        if pattern.fullmatch(name):
            return kind
    return None


def refusal(name: str, value: str) -> str | None:
    """Why ``name=value`` may not reach a launch from a file (one clause), None when it may."""
    if not isinstance(name, str) or not isinstance(value, str):
        return "a variable's name and value are strings"
    if _CONTROL.search(name) or _CONTROL.search(value):
        return (f"{excerpt(name, NAME_CHARS)}={excerpt(value)} holds a control character (a newline, tab, ...), "
                "which no variable taken from a file may hold")
    kind = value_type(name)
    if kind is None:
        return f"{excerpt(name, NAME_CHARS)} is not on the allow-list: {ALLOWED_TEXT}"
    if len(value) > MAX_VALUE_CHARS:
        return f"{name}: a value of {len(value)} characters; at most {MAX_VALUE_CHARS}"
    if kind.pattern is not None:
        if not kind.pattern.fullmatch(value):
            return f"{name}={excerpt(value)}: its value must be {kind.description}"
        return None
    try:
        mode = os.stat(value).st_mode if value else None
    except (OSError, ValueError):
        mode = None
    if mode is None or not stat.S_ISREG(mode):
        return f"{name}={excerpt(value)}: its value must be {kind.description}"
    return None
