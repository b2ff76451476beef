# SPDX-License-Identifier: BSD-3-Clause
"""The probes of a launch's performance bound in meta.json (docs/FORMAT.md, ``probes``):
``copy_bandwidth`` (the copy rates of buffers from 4 KiB up to ``config.copy_probe_bytes``, every
rank copying at once) and ``latency_floor`` (the least and median 1-byte round trip of sampled
pairs of ranks), as typed records. Both are absent (None) in launches written before the probes
existed, and ``copy_bandwidth`` is null with ``--copy-probe-bytes 0``.

The analysis (``mpimeter.analysis.bounds``) builds each operation's bound from them: what the
C half measured are facts; what they bound is the analysis's judgement (Hoefler & Belli 2015,
rule 11).
"""

from __future__ import annotations

from dataclasses import dataclass

from mpimeter.io.jsonread import NAT, NUM, STR, Fields


@dataclass(frozen=True, kw_only=True)
class CopyRate:
    """One buffer size of the copy probe: the least, median and largest over the ranks of each
    rank's best batch, in bytes copied per second (None when no rank measured it)."""

    bytes: int
    copies_per_batch: int | None
    ranks: int
    min_Bps: float | None
    median_Bps: float | None
    max_Bps: float | None


@dataclass(frozen=True)
class CopyBandwidth:
    """probes.copy_bandwidth: every rank copied buffers of each size at once (STREAM's Copy)."""

    max_bytes: int | None
    ranks_at_once: int | None
    sizes: tuple[CopyRate, ...] = ()

    @property
    def peak_Bps(self) -> float | None:
        """The fastest copy any rank did at any size: in cache for the small sizes. No data
        movement on the host can beat it, whatever cache its data is in."""
        rates = [s.max_Bps for s in self.sizes if s.max_Bps is not None]
        return max(rates) if rates else None

    @property
    def large_Bps(self) -> float | None:
        """The median rate over the ranks at the largest size: the memory's copy bandwidth
        with every rank copying (when the buffers exceed the caches)."""
        return self.sizes[-1].median_Bps if self.sizes else None


@dataclass(frozen=True)
class PairLatency:
    ranks: tuple[int, ...]
    min_rtt_ns: float | None
    median_rtt_ns: float | None


@dataclass(frozen=True)
class LatencyFloor:
    """probes.latency_floor: 1-byte round trips of the pairs the launch sampled (``pairs_by``)."""

    pairs_by: str | None
    message_bytes: int | None
    round_trips: int | None
    pairs: tuple[PairLatency, ...] = ()

    @property
    def floor_ns(self) -> float | None:
        """Half the least round trip over the pairs: no message between two ranks of the launch
        arrived faster (one way)."""
        mins = [p.min_rtt_ns for p in self.pairs if p.min_rtt_ns is not None]
        return min(mins) / 2 if mins else None


def _rate(f: Fields, key: str) -> float | None:
    value = f.get(key, NUM)
    if value is not None and value <= 0:
        raise f.fail(key, f"is {value}; a rate is positive")
    return value


def read_copy_bandwidth(probes: Fields | None) -> CopyBandwidth | None:
    c = None if probes is None else probes.obj("copy_bandwidth")
    if c is None:
        return None
    sizes = tuple(CopyRate(bytes=s.need("bytes", NAT), copies_per_batch=s.get("copies_per_batch", NAT),
                           ranks=s.get("ranks", NAT, 0), min_Bps=_rate(s, "min_Bps"),
                           median_Bps=_rate(s, "median_Bps"), max_Bps=_rate(s, "max_Bps"))
                  for s in c.objs("sizes"))
    return CopyBandwidth(c.get("max_bytes", NAT), c.get("ranks_at_once", NAT), sizes)


def read_latency_floor(probes: Fields | None) -> LatencyFloor | None:
    f = None if probes is None else probes.obj("latency_floor")
    if f is None:
        return None
    pairs = []
    for p in f.objs("pairs"):
        values = [p.get(k, NUM) for k in ("min_rtt_ns", "median_rtt_ns")]
        for key, value in zip(("min_rtt_ns", "median_rtt_ns"), values):
            if value is not None and value < 0:
                raise p.fail(key, f"is {value}; a round trip cannot be negative")
        pairs.append(PairLatency(p.items("ranks", NAT), *values))
    return LatencyFloor(f.get("pairs_by", STR), f.get("message_bytes", NAT), f.get("round_trips", NAT), tuple(pairs))


def read_bound_volume(op: Fields) -> tuple[str | None, float | None]:
    """operations[op].bound_volume: its formula and the multiple of size for the launch's ranks
    (both None when the binary states no bound for the op, or the launch predates it)."""
    b = op.obj("bound_volume")
    if b is None:
        return None, None
    factor = b.need("bytes_per_size", NUM)
    if factor < 0:
        raise b.fail("bytes_per_size", f"is {factor}; a volume cannot be negative")
    return b.get("formula", STR), factor
