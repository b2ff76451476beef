# SPDX-License-Identifier: BSD-3-Clause
"""Upper performance bounds (Hoefler & Belli 2015, §5.1 and rule 11): for every result row, the
least time the operation could take on the machine of its launches, and how close the measured
median comes to it.

The bound of an operation at size m on p ranks (p the row's; a campaign may hold
several p, across launches or on sub-communicators inside one):

    T_bound(m) = L + V(m) / B

- L, the latency floor: half the least 1-byte round trip between any sampled pair of ranks
  (meta.json probes.latency_floor). Every operation that communicates sends at least one
  message; none arrives faster than this. On one process (p = 1, a sub-communicator of
  --nprocs 1) nothing is sent: no bound.
- V(m), the data volume: the least number of bytes one rank must receive (or a root send),
  Chan et al. 2007's lower bound for the operation on p ranks, as the binary states it
  (operations[op].bound_volume: 2(p−1)/p·m for allreduce, m for bcast, (p−1)·m for alltoall …).
  The binary writes its multiple of m for each test's own communicator (meta.json
  ``tests[].bound_bytes_per_size``; one source of truth: the formula is evaluated in C only), so
  a row at p takes the fact of its tests at p. A launch written before tests carried it gives
  ``operations[op].bound_volume.bytes_per_size``, which is of the launch's p: it serves the rows
  at that p only. Launches that state different volumes for one (op, size, p) give that row no
  bound (listed in ``missing``: a bound that depends on which launch is read is no bound).
- B, the copy bandwidth: the copy probe's rate for its largest buffers (probes.copy_bandwidth,
  STREAM's Copy with every rank copying at once): on a host whose ranks share memory, the data
  of an operation moves between ranks by copies through memory, and memory copies no faster.

``cache_bound_ns`` is the same bound at the fastest copy of the probe at any buffer size (in
cache for the small ones): no copy on the host was faster, so no operation beats it whatever
cache its data is in; it is looser, shown beside the memory bound. Across the launches of an
alternative the bounds take the best each probe showed (the least floor, the fastest copy), so
that they stay bounds whatever launch is looked at. The premise is a shared-memory host (or a
network no faster than the host copies memory): across hosts with RDMA the data term bounds what
the memory can take, not what the network can carry, and the report says so. ``fraction`` =
T_bound / median: 1 at the bound, smaller the further away; a median below its bound
(``beats``: data that stayed in cache, or a premise that failed) is said, never hidden.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from mpimeter.analysis import scaling as _scaling
from mpimeter.analysis.results import AnalysisResult

PREMISE = ("bound = latency floor (half the least 1-byte round trip of the sampled pairs) + least data volume "
           "of the operation (Chan et al. 2007) / copy bandwidth of the copy probe's largest buffers (every rank "
           "copying at once); the cache bound uses the fastest copy at any buffer size instead; each the best "
           "over the launches. Premise: ranks exchange data through memory copies (one shared-memory host); "
           "across hosts the data term bounds the memory, not the network")


@dataclass(frozen=True, kw_only=True)
class MachineBound:
    """What bounds the operations of one alternative's launches: the least latency floor and
    the fastest copy over ``launches`` launches that recorded the probes; ``copy_large_Bps`` is
    the copy bandwidth of the largest buffers (``copy_large_bytes``: the memory's, when they
    exceed the caches), shown for reference."""

    alternative: str
    launches: int
    latency_floor_ns: float | None
    copy_peak_Bps: float | None
    copy_peak_bytes: int | None
    copy_large_Bps: float | None
    copy_large_bytes: int | None


@dataclass(frozen=True, kw_only=True)
class BoundRow:
    alternative: str
    op: str
    size: int
    formula: str | None
    volume_bytes: float
    latency_ns: float
    copy_ns: float  # volume / the copy bandwidth of the largest buffers
    bound_ns: float  # latency + copy
    cache_bound_ns: float  # latency + volume / the fastest copy at any buffer size
    median_ns: float
    fraction: float  # bound / median
    beats: bool  # the median is below its bound: in cache, or the premise does not hold
    nprocs: int = 0  # the row's process count, the p the volume is of (0: not known)
    root: int | None = None  # the row's root (rooted operations)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class BoundsResult:
    machines: tuple[MachineBound, ...]
    rows: tuple[BoundRow, ...]
    missing: tuple[str, ...]  # why some alternative or operation has no bound

    def row(self, alternative: str, op: str, size: int, nprocs: int | None = None,
            root: int | None = None) -> BoundRow | None:
        """The bound of one row at (``nprocs``, ``root``); ``nprocs`` None: the row's only one
        (None when there are several: a bound of another p is no bound)."""
        found = [r for r in self.rows if (r.alternative, r.op, r.size) == (alternative, op, size)]
        if nprocs is not None:
            found = [r for r in found if (r.nprocs, r.root) == (nprocs, root)]
        elif len({(r.nprocs, r.root) for r in found}) > 1:
            return None
        return found[0] if found else None

    def machine(self, alternative: str) -> MachineBound | None:
        return next((m for m in self.machines if m.alternative == alternative), None)

    def to_dict(self) -> dict[str, Any]:
        return {"premise": PREMISE, "machines": [asdict(m) for m in self.machines],
                "rows": [r.to_dict() for r in self.rows], "missing": list(self.missing)}


def _machine(result: AnalysisResult, alternative: str) -> MachineBound:
    floors, peaks, larges = [], [], []
    launches = 0
    for li in result.campaign.launches_of(alternative):
        m = li.meta
        floor = m.latency_floor.floor_ns if m.latency_floor else None
        copy = m.copy_bandwidth
        if floor is None and copy is None:
            continue
        launches += 1
        if floor is not None:
            floors.append(floor)
        if copy is not None and copy.peak_Bps is not None:
            peak_size = max((s for s in copy.sizes if s.max_Bps is not None), key=lambda s: s.max_Bps)
            peaks.append((copy.peak_Bps, peak_size.bytes))
            if copy.large_Bps is not None:
                larges.append((copy.large_Bps, copy.sizes[-1].bytes))
    peak = max(peaks) if peaks else (None, None)
    large = max(larges) if larges else (None, None)
    return MachineBound(alternative=alternative, launches=launches,
                        latency_floor_ns=min(floors) if floors else None, copy_peak_Bps=peak[0],
                        copy_peak_bytes=peak[1], copy_large_Bps=large[0], copy_large_bytes=large[1])


def bounds(result: AnalysisResult) -> BoundsResult:
    """The bound of every row of ``result`` that can have one (module docstring)."""
    machines = tuple(_machine(result, alt) for alt in result.alternatives)
    rows, missing = [], []
    for mb in machines:
        if mb.latency_floor_ns is None:
            missing.append(f"{mb.alternative}: no launch recorded the latency floor (probes.latency_floor: "
                           "launches of mpimeter-bench before 0.2.0's bound probes, or a single rank)")
            continue
        no_copy = mb.copy_large_Bps is None or mb.copy_peak_Bps is None
        if no_copy:
            missing.append(f"{mb.alternative}: no copy probe (--copy-probe-bytes 0, or older launches): only "
                           "operations without data (barrier) have a bound")
        facts = _volume_facts(result, mb.alternative)
        unstated, unknown, disagree, alone = set(), set(), set(), set()
        for r in result.rows:
            if r.alternative != mb.alternative or not r.median_ns > 0:
                continue
            op_info = _operation(result, mb.alternative, r.op)
            if op_info is None or op_info.bound_bytes_per_size is None or result.size_unit(r.op) != "bytes":
                unstated.add(r.op)
                continue
            if r.nprocs == 1:  # L is of a message between two ranks: one process sends none
                alone.add(r.op)
                continue
            stated = facts.get((r.op, r.size, r.nprocs, r.root), set())
            if len(stated) > 1:
                values = ", ".join(f"{v:g}" for v in sorted(stated))
                disagree.add(f"{r.op} {r.size} at p = {r.nprocs} ({values} x size)")
                continue
            if not stated:
                unknown.add(f"{r.op} at p = {r.nprocs}")
                continue
            volume = next(iter(stated)) * r.size
            if volume > 0 and no_copy:
                continue
            copy_ns = volume / mb.copy_large_Bps * 1e9 if volume > 0 else 0.0
            cache_ns = volume / mb.copy_peak_Bps * 1e9 if volume > 0 else 0.0
            bound = mb.latency_floor_ns + copy_ns
            rows.append(BoundRow(alternative=mb.alternative, op=r.op, size=r.size, formula=op_info.bound_formula,
                                 volume_bytes=volume, latency_ns=mb.latency_floor_ns, copy_ns=copy_ns,
                                 bound_ns=bound, cache_bound_ns=mb.latency_floor_ns + cache_ns,
                                 median_ns=r.median_ns, fraction=bound / r.median_ns, beats=r.median_ns < bound,
                                 nprocs=r.nprocs, root=r.root))
        if disagree:
            missing.append(f"{mb.alternative}: no bound for {'; '.join(sorted(disagree))}: its launches state "
                           "different volumes (tests[].bound_bytes_per_size) for the same operation, size and p")
        if unknown:
            missing.append(f"{mb.alternative}: no bound for {', '.join(sorted(unknown))}: no launch states the "
                           "volume at that p (tests[].bound_bytes_per_size: launches before it was written per "
                           "test give it for the launch's own p only)")
        if alone:
            missing.append(f"{mb.alternative}: no bound for {', '.join(sorted(alone))} at p = 1: a single process "
                           "sends no message, so the latency floor does not bound it")
        if unstated:
            missing.append(f"{mb.alternative}: the binary states no bound for {', '.join(sorted(unstated))} "
                           "(nonblocking, master-worker, simple calls and delay are not just data movement)")
    return BoundsResult(machines, tuple(rows), tuple(missing))


def _operation(result: AnalysisResult, alternative: str, op: str):
    """The op's record (meta.json ``operations[op]``) in the first of the alternative's launches
    that ran it; None: none did."""
    for li in result.campaign.launches_of(alternative):
        info = li.meta.operation(op)
        if info is not None:
            return info
    return None


def _volume_facts(result: AnalysisResult, alternative: str) -> dict[tuple, set[float]]:
    """The volume factors the alternative's launches state per (op, size, p, root) of their
    tests: each test's ``bound_bytes_per_size`` (the binary's, for the test's communicator), else,
    for a test on the launch's whole communicator, ``operations[op].bound_volume.bytes_per_size``
    (stated for the launch's p). A set of two or more: the launches disagree."""
    facts: dict[tuple, set[float]] = {}
    for li in result.campaign.launches_of(alternative):
        for t, rec in enumerate(li.meta.tests):
            ranks, root = _scaling.test_ranks(li, t)
            value = rec.bound_bytes_per_size
            if value is None and ranks == li.meta.nprocs:
                info = li.meta.operation(rec.op)
                value = None if info is None else info.bound_bytes_per_size
            if value is not None:
                facts.setdefault((rec.op, rec.size, ranks, root), set()).add(float(value))
    return facts
