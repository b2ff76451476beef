# SPDX-License-Identifier: BSD-3-Clause
"""IMB-RMA's benchmarks (the "MPI-RMA part" of the Intel MPI Benchmarks, 2021) → mpimeter's
``rma-*`` rows and ``--rma-sync`` mode, as read from IMB's sources (``IMB_rma_put.c``,
``IMB_rma_get.c``, ``IMB_rma_atomic.c``; windows made with ``MPI_Win_create``).

Mapped, on 2 processes and in the NON-AGGREGATE mode only: the origin holds one shared lock on
the target for the whole sample and times, per operation, the call and ``MPI_Win_flush`` (remote
completion; ``Put_local``: ``MPI_Win_flush_local``), averaged over ``#repetitions`` — the timed
calls of mpimeter's ``lock-all-flush`` (``lock-all-flush-local``) mode, whose epoch is opened once
too (by ``MPI_Win_lock_all``). The size is IMB's ``#bytes``; ``Fetch_and_op`` and
``Compare_and_swap`` move one element (mpimeter's rows at size 0).

The contention patterns (IMB's only mode for them, no ``MODE`` line): ``One_put_all``,
``One_get_all`` (rank 0 against every other rank), ``All_put_all``, ``All_get_all`` (every rank
against every other), and ``Put_all_local`` / ``Get_all_local`` (one-to-all with
``MPI_Win_flush_local_all``) → mpimeter's ``rma-one-put-all`` … rows at root 0. IMB times
``#repetitions`` rounds and one ``MPI_Win_flush_all`` (``_local_all``) in a ``lock_all`` epoch and
divides by ``#repetitions``; mpimeter's row times ``--rma-burst`` rounds and one flush per timed
call, so the import is that row at ``--rma-burst`` = ``#repetitions``, its run time IMB's time
times ``#repetitions`` (IMB's aggregates kept as printed). One burst a launch: the contention
tables of a run must share one ``#repetitions`` (IMB-RMA ``-iter N -iter_policy off``).

Refused with the reason, since no mpimeter row times the same thing: the AGGREGATE mode of the
single-transfer benchmarks (one flush amortized over ``#repetitions`` operations), the
bidirectional and exchange patterns and ``Truly_passive_put`` (overlap with the target's
computation), and a single-transfer benchmark on more than 2 processes (all ranks against one
target).
"""

from __future__ import annotations

from mpimeter.io.peers.common import Lines

# IMB benchmark → (mpimeter op, --rma-sync) for its NON-AGGREGATE mode on 2 processes
OPS = {"Unidir_put": ("rma-put", "lock-all-flush"), "Unidir_get": ("rma-get", "lock-all-flush"),
       "Put_local": ("rma-put", "lock-all-flush-local"), "Accumulate": ("rma-acc", "lock-all-flush"),
       "Get_accumulate": ("rma-get-acc", "lock-all-flush"), "Fetch_and_op": ("rma-fop", "lock-all-flush"),
       "Compare_and_swap": ("rma-cas", "lock-all-flush")}
ELEMENT = ("Fetch_and_op", "Compare_and_swap")  # one element per call: mpimeter's row at size 0
# IMB's contention patterns → (mpimeter op, --rma-sync): #repetitions rounds, one flush (_local)_all
CONTENTION = {"One_put_all": ("rma-one-put-all", "lock-all-flush"), "One_get_all": ("rma-one-get-all", "lock-all-flush"),
              "All_put_all": ("rma-all-put-all", "lock-all-flush"), "All_get_all": ("rma-all-get-all", "lock-all-flush"),
              "Put_all_local": ("rma-one-put-all", "lock-all-flush-local"),
              "Get_all_local": ("rma-one-get-all", "lock-all-flush-local")}
CONTENTION_OPS = frozenset(op for op, _ in CONTENTION.values())
_NO_ROW = {
    "Bidir_put": "both ranks put at once", "Bidir_get": "both ranks get at once",
    "Exchange_put": "each rank puts to both neighbours", "Exchange_get": "each rank gets from both neighbours",
    "Truly_passive_put": "the put overlapped with the target's computation (t_pure, t_ovrl)",
}
WINDOW = "create"


def map_table(lines: Lines, index: int, name: str, mode: str | None, nprocs: int) -> tuple[str, str]:
    """(op, --rma-sync) of IMB-RMA's ``name`` table in ``mode`` at line ``index``, or an InputError
    saying why no mpimeter row times the same thing."""
    if name in _NO_ROW:
        raise lines.fail(index, f"IMB-RMA's {name} ({_NO_ROW[name]}) has no mpimeter equivalent; import the "
                                f"benchmarks that have one ({', '.join(OPS)}, -aggregate_mode non_aggregate; "
                                f"{', '.join(CONTENTION)})")
    if name in CONTENTION:
        if mode is not None:
            raise lines.fail(index, f"IMB-RMA's {name} in mode {mode}: IMB runs its contention patterns in one "
                                    "mode only (no MODE line); this is not IMB-RMA 2019–2021 output")
        return CONTENTION[name]
    if name not in OPS:
        raise lines.fail(index, f"IMB-RMA's {name} is not a benchmark this importer knows ({', '.join(OPS)})")
    if mode != "NON-AGGREGATE":
        raise lines.fail(index, f"IMB-RMA's {name} in mode {mode or 'none'}: only NON-AGGREGATE (a flush per "
                                "operation) has an mpimeter equivalent; run IMB-RMA with -aggregate_mode "
                                "non_aggregate")
    if nprocs != 2:
        raise lines.fail(index, f"IMB-RMA's {name} ran on {nprocs} processes (all against one target); "
                                "mpimeter's rma-* rows are one origin and one target: import a 2-process run")
    return OPS[name]


def is_contention(name: str) -> bool:
    """Is IMB-RMA's ``name`` a contention pattern (its time amortized over #repetitions rounds)?"""
    return name in CONTENTION


def run_rma(lines: Lines, syncs: dict[str, int], bursts: dict[int, int]) -> dict[str, object]:
    """config.rma of a run whose tables asked for ``syncs`` (mode → first line) and whose contention
    tables ran ``bursts`` (#repetitions → first line): one mode and one burst a launch."""
    if len(syncs) > 1:
        (first, _), (second, at) = list(syncs.items())[:2]
        raise lines.fail(at, f"this table is timed with {second}, an earlier one with {first}; a launch has one "
                             "--rma-sync mode: import Put_local (Put_all_local, Get_all_local) from a run of its own")
    if len(bursts) > 1:
        (first, _), (second, at) = list(bursts.items())[:2]
        raise lines.fail(at, f"this contention row ran {second} repetitions, an earlier one {first}: its time is "
                             "amortized over #repetitions rounds, mpimeter's row over --rma-burst, one a launch; run "
                             "IMB-RMA with -iter N -iter_policy off")
    return {"sync": next(iter(syncs)), "window": WINDOW, "burst": next(iter(bursts), 1), "window_bytes": None}
