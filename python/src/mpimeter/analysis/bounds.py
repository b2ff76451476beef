"""Upper performance bounds (Hoefler & Belli 2015, §5.1 and rule 11): for every result row, the
least time the operation could take on the machine of its launches, and how close the measured
median comes to it.

The bound of an operation at size m on p ranks (p the row's: issue 27, a campaign may hold
several p, across launches or on sub-communicators inside one):

    T_bound(m) = L + V(m) / B

- L, the latency floor: half the least 1-byte round trip between any sampled pair of ranks
  (meta.json probes.latency_floor). Every operation that communicates sends at least one
  message; none arrives faster than this.
- V(m), the data volume: the least number of bytes one rank must receive (or a root send),
  Chan et al. 2007's lower bound for the operation on p ranks, as the binary states it
  (operations[op].bound_volume: 2(p−1)/p·m for allreduce, m for bcast, (p−1)·m for alltoall …).
  meta.json gives its multiple of m for the launch's p; a row at another p (a sub-communicator)
  takes the binary's formula evaluated at the row's p (:func:`volume_factor`), so the bound is
  never that of another p.
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

import ast
import operator
import re
from dataclasses import asdict, dataclass
from typing import Any

from mpimeter.analysis.results import AnalysisResult

PREMISE = ("bound = latency floor (half the least 1-byte round trip of the sampled pairs) + least data volume "
           "of the operation (Chan et al. 2007) / copy bandwidth of the copy probe's largest buffers (every rank "
           "copying at once); the cache bound uses the fastest copy at any buffer size instead; each the best "
           "over the launches. Premise: ranks exchange data through memory copies (one shared-memory host); "
           "across hosts the data term bounds the memory, not the network")


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
    return MachineBound(alternative, launches, min(floors) if floors else None, peak[0], peak[1], large[0], large[1])


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
        unstated, unevaluated = set(), set()
        for r in result.rows:
            if r.alternative != mb.alternative or not r.median_ns > 0:
                continue
            op_info, factor = _operation(result, mb.alternative, r.op, r.nprocs)
            if op_info is None or op_info.bound_bytes_per_size is None or result.size_unit(r.op) != "bytes":
                unstated.add(r.op)
                continue
            if factor is None:
                unevaluated.add(f"{r.op} at p = {r.nprocs}")
                continue
            volume = factor * r.size
            if volume > 0 and no_copy:
                continue
            copy_ns = volume / mb.copy_large_Bps * 1e9 if volume > 0 else 0.0
            cache_ns = volume / mb.copy_peak_Bps * 1e9 if volume > 0 else 0.0
            bound = mb.latency_floor_ns + copy_ns
            rows.append(BoundRow(mb.alternative, r.op, r.size, op_info.bound_formula, volume, mb.latency_floor_ns,
                                 copy_ns, bound, mb.latency_floor_ns + cache_ns, r.median_ns, bound / r.median_ns,
                                 r.median_ns < bound, r.nprocs, r.root))
        if unevaluated:
            missing.append(f"{mb.alternative}: no bound for {', '.join(sorted(unevaluated))}: meta.json gives the "
                           "volume for its launch's p, and the binary's formula cannot be evaluated at another")
        if unstated:
            missing.append(f"{mb.alternative}: the binary states no bound for {', '.join(sorted(unstated))} "
                           "(nonblocking, master-worker, simple calls and delay are not just data movement)")
    return BoundsResult(machines, tuple(rows), tuple(missing))


def _operation(result: AnalysisResult, alternative: str, op: str, nprocs: int):
    """The op's record in the alternative's launches and its volume factor at ``nprocs`` ranks:
    a launch of that p states it (``bytes_per_size``), else the formula at ``nprocs``
    (:func:`volume_factor`; None when it names more than p). (None, None): no launch has the op."""
    first = None
    for li in result.campaign.launches_of(alternative):
        info = li.meta.operation(op)
        if info is None:
            continue
        if li.meta.nprocs == nprocs or not nprocs:
            return info, info.bound_bytes_per_size
        first = first or info
    if first is None or first.bound_bytes_per_size is None:
        return first, None
    return first, volume_factor(first.bound_formula, nprocs)


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def volume_factor(formula: str | None, nprocs: int) -> float | None:
    """The multiple of size that the binary's bound formula (meta.json ``bound_volume.formula``:
    ``2(p-1)/p x size``, ``(p-1) x size``, ``size``, ``0``) gives at ``nprocs`` ranks; None for
    a formula with other terms (``rma-burst x size``: a setting, not p). The formula is the
    binary's statement (one source): this reads it, it keeps no table of its own."""
    if formula is None or nprocs < 1:
        return None
    text = formula.strip()
    if text == "0":
        return 0.0
    if not text.endswith("size"):
        return None
    factor = text[:-len("size")].strip()
    if not factor:
        return 1.0
    if not factor.endswith(" x"):
        return None
    expr = re.sub(r"(\d)\s*\(", r"\1*(", factor[:-2].strip())  # 2(p-1) is 2*(p-1)
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return None

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.Name) and node.id == "p":
            return float(nprocs)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](value(node.left), value(node.right))
        raise ValueError(ast.dump(node))

    try:
        return value(tree)
    except (ValueError, ZeroDivisionError):
        return None
