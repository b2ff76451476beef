# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --launches auto`: launches are added until every (alternative, op, size) is
measured precisely enough across launches, and each new launch runs only the tests that still
need it.

The rule (mpimeter.stats.stopping): after the first `min` launches of every alternative, and
after every further round, each pair's per-launch medians (those `mpimeter analyze` computes)
get the stopping interval of their median; a pair is done once it lies within ±precision of the
median (`precision`) — unless the launches form two groups the interval does not describe, which
hold the stop (`held_by_clusters` counts how often); when `analyze` explains such groups by a
recorded property (its states, analysis.strata), once every state's own interval lies within
±precision of its median, a rare state (too few launches for its interval by `max`) named with
its share (`states`) — or once the pair has `max` launches (`max`); `reason` says which, in words. A done pair stays done (the rule's coverage is that of the
first stop: mpimeter.stats.stopping). A round is one more launch
of every alternative with a pair still open, each running the operations and sizes of its open
pairs (`--ops` and `--sizes` of that launch: their cross product, so a pair that shares an
operation and a size with open ones may be measured again; its record keeps the stop).

campaign.json (docs/FORMAT.md) records the rule and, per pair, its status, launches, the
precision reached and the interval, and per launch the subset it ran (`launches[].tests`);
`--resume` reads them back (untrusted: every value checked) and continues the same rule.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mpimeter.campaign import limits
from mpimeter.campaign.benchargs import BenchArgs
from mpimeter.campaign.plan import SEED_LIMIT, PlanError

# mpimeter.stats.stopping (scipy) and numpy are imported where used: `mpimeter run --help` reads
# the defaults below without them.
DEFAULT_MIN, DEFAULT_MAX, DEFAULT_PRECISION, DEFAULT_CONFIDENCE = 10, 30, 0.02, 0.95
RULE = "median-interval"


class PairMedians(list):
    """A pair's per-launch medians (a list of floats) that also names each launch's explained
    state (analysis.strata; None: none), so the rule can judge each state on its own, and the
    timer's recorded resolution (``grid_ns``; None: not recorded), the grid the medians lie on."""

    def __init__(self, medians, states=None, grid_ns=None):
        super().__init__(medians)
        self.states = None if states is None else list(states)
        self.grid_ns = grid_ns


Medians = Mapping[tuple[str, str, int], list[float]]  # (alternative, op, size) -> per-launch medians


def check_settings(min_launches: int, max_launches: int, precision: float, confidence: float,
                   *, where: str = "--launches-") -> None:
    """Bounds of the rule's settings (PlanError names the option and the value)."""
    limits.check_int(f"{where}min", min_launches, 1, limits.MAX_LAUNCHES)
    limits.check_int(f"{where}max", max_launches, 1, limits.MAX_LAUNCHES)
    if min_launches > max_launches:
        raise PlanError(f"{where}min {min_launches} is above {where}max {max_launches}; allowed: "
                        f"{where}min at most {where}max")
    for name, value in (("precision", precision), ("confidence", confidence)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                math.isfinite(value) and 0 < value < 1):
            raise PlanError(f"{where}{name} {value!r}: allowed: a number above 0, below 1")


@dataclass(kw_only=True)
class PairRecord:
    """One (alternative, op, size) under the rule."""

    alternative: str
    op: str
    size: int
    status: str = "more"  # more | precision | max
    launches: int = 0  # launches with a median of this pair (at the stop, once stopped)
    precision: float | None = None  # reached: the interval's larger half-width over the median
    median_ns: float | None = None
    low_ns: float | None = None
    high_ns: float | None = None
    # judgements at which the precision was reached but launch clusters (or a state short of its
    # own precision) held the stop
    held_by_clusters: int = 0
    reason: str | None = None  # why it stopped (or goes on), in words
    states: list[dict] = field(default_factory=list)  # per explained state: stopping.StateVerdict.to_dict

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.alternative, self.op, self.size)


@dataclass(kw_only=True)
class AdaptiveLaunches:
    """The rule's settings and state, as campaign.json's `adaptive_launches` holds them."""

    min: int = DEFAULT_MIN
    max: int = DEFAULT_MAX
    precision: float = DEFAULT_PRECISION
    confidence: float = DEFAULT_CONFIDENCE
    sizeless_ops: list[str] = field(default_factory=list)  # ops that take no size (--list-ops)
    pairs: list[PairRecord] = field(default_factory=list)
    rounds: int = 0  # rounds added after the first `min` launches

    def to_json(self) -> dict[str, Any]:
        from mpimeter.stats import stopping

        return {"rule": RULE, "min": self.min, "max": self.max, "precision": self.precision,
                "confidence": self.confidence, "interval": "hettmansperger-sheather",
                "interval_level": stopping.corrected_level(self.confidence),
                "sizeless_ops": list(self.sizeless_ops), "rounds": self.rounds,
                "pairs": [asdict(p) for p in self.pairs]}

    def pair(self, key: tuple[str, str, int]) -> PairRecord | None:
        return next((p for p in self.pairs if p.key == key), None)

    def open_pairs(self, alternative: str) -> list[PairRecord]:
        return [p for p in self.pairs if p.alternative == alternative and p.status == "more"]


def unmet(adaptive: AdaptiveLaunches) -> str | None:
    """The line `mpimeter run` ends an adaptive campaign with when some pairs stopped at the
    maximum, not by the rule the user asked for (None when every pair met it): "campaign
    complete" alone would say the precision was reached (docs/GUIDE.md, "How many measurements
    are enough")."""
    stopped = [p for p in adaptive.pairs if p.status == "max"]
    if not stopped:
        return None
    names = ", ".join(f"{p.alternative} {p.op} {p.size}" for p in stopped[:5]) + (" …" if len(stopped) > 5 else "")
    return (f"--launches auto: {len(stopped)} of {len(adaptive.pairs)} (alternative, op, size) stopped at the "
            f"maximum, {adaptive.max} launches, without meeting the rule (the interval within "
            f"±{adaptive.precision:g} of the median at {adaptive.confidence:g}): {names}; campaign.json "
            "adaptive_launches.pairs[].reason says why each stopped")


def update(adaptive: AdaptiveLaunches, medians: Medians) -> None:
    """Judges every pair with its per-launch medians; a stopped pair keeps its stop."""
    from mpimeter.stats import stopping

    for key in sorted(medians, key=lambda k: (k[0], k[1], k[2])):
        rec = adaptive.pair(key)
        if rec is None:
            rec = PairRecord(alternative=key[0], op=key[1], size=key[2])
            adaptive.pairs.append(rec)
        if rec.status != "more":
            continue
        given = medians[key]
        labels = getattr(given, "states", None) or [None] * len(given)
        kept = [(m, st) for m, st in zip(given, labels) if m is not None and math.isfinite(m)]
        values = [m for m, _ in kept]
        verdict = stopping.launch_verdict(values, min_launches=adaptive.min, max_launches=adaptive.max,
                                          precision=adaptive.precision, confidence=adaptive.confidence,
                                          states=[st for _, st in kept], grid_ns=getattr(given, "grid_ns", None))
        ci = verdict.interval
        rec.status, rec.launches, rec.precision = verdict.status, verdict.launches, verdict.precision
        held_by_states = bool(verdict.states) and verdict.status != "precision" and verdict.launches >= adaptive.min \
            and verdict.precision is not None and verdict.precision <= adaptive.precision
        rec.held_by_clusters += verdict.held is not None or held_by_states
        rec.reason = verdict.reason
        rec.states = [st.to_dict() for st in verdict.states]
        rec.median_ns = None if math.isnan(ci.estimate) else float(ci.estimate)
        rec.low_ns, rec.high_ns = ci.low, ci.high


def subset(pairs: list[PairRecord], sizeless_ops: list[str], ops_order: list[str]) -> dict[str, list]:
    """The --ops and --sizes of a launch that measures these pairs: the operations (in the
    campaign's order) and the sizes of the sized ones (a size-less operation has one test at
    size 0 whatever --sizes says; with only such operations open, their recorded size)."""
    ops = [op for op in ops_order if any(p.op == op for p in pairs)]
    ops += sorted({p.op for p in pairs} - set(ops))
    sizes = sorted({p.size for p in pairs if p.op not in sizeless_ops})
    if not sizes:
        sizes = sorted({p.size for p in pairs})
    return {"ops": ops, "sizes": sizes}


def check_bench_args(bench_args: BenchArgs) -> None:
    """--launches auto measures the same (op, size) pairs in every launch; --sizes auto refines
    the sizes anew in each launch, so the pairs would differ from launch to launch."""
    sizes = bench_args.sizes or ""
    if sizes.startswith("auto"):
        raise PlanError(f"--launches auto with --sizes {sizes}: --sizes auto adds other sizes in "
                        "every launch, so the pairs the rule follows would differ between launches; "
                        "give the sizes (e.g. the grid and the sizes a --sizes auto launch added, "
                        "meta.json size_refinement) or a fixed --launches")


def round_seed(campaign_seed: int, alternative: str, index: int) -> int:
    """The seed of an added launch: deterministic for the campaign (a str seed hashes the same in
    every Python process)."""
    return random.Random(f"{campaign_seed}/{alternative}/{index}").randint(1, SEED_LIMIT)


def round_order(campaign_seed: int, round_no: int, names: list[str]) -> list[str]:
    """The alternatives of a round in an order shuffled with the campaign seed (Hunold &
    Carpen-Amarie 2016 §6: interleave what is compared)."""
    order = list(names)
    random.Random(f"{campaign_seed}/round/{round_no}").shuffle(order)
    return order


def analysis_medians(campaign_dir: Path, alternatives: list[str]) -> dict[tuple[str, str, int], list[float]]:
    """Per (alternative, op, size) the per-launch medians `mpimeter analyze` computes from the
    campaign folder as it is now (its default settings). A campaign of one alternative keeps its
    launches at the top, where the analysis names the alternative after the folder."""
    import numpy as np

    from mpimeter.analysis import analyze, load_campaign
    from mpimeter.analysis.launch_effects import timer_grid_ns

    campaign = load_campaign(campaign_dir, store=False)
    result = analyze(campaign)
    out: dict[tuple[str, str, int], list[float]] = {}
    for row in result.rows:
        alt = alternatives[0] if len(alternatives) == 1 else row.alternative
        used = [s for s in row.per_launch if s.n and np.isfinite(s.median_ns)]
        # the launches' explained states (analysis.strata), or the group a property put apart that is
        # too few for a state yet, so that each gets its interval or is shown rare
        states = next((st for st in result.states if st.alternative == row.alternative
                       and (st.explained or st.apart_state)), None)
        out[(alt, row.op, int(row.size))] = PairMedians(
            [float(s.median_ns) for s in used], None if states is None else [states.group_of(s.launch) for s in used],
            timer_grid_ns(campaign.launches_of(row.alternative)))
    return out


MediansSource = Callable[[Path, list[str]], Medians]


def read(obj: Any, fail: Callable[[str, str], None], names: list[str]) -> AdaptiveLaunches | None:
    """campaign.json's `adaptive_launches` (untrusted): every value checked; `fail(where, what)`
    raises."""
    if obj is None:
        return None
    # numpy and scipy (seconds) only for a campaign that has the rule: reading any other
    # campaign.json (`run --resume`, the lock's check, reproducibility) never needs them
    from mpimeter.stats import stopping

    where = "adaptive_launches"
    if not isinstance(obj, dict):
        fail(where, "expected an object or null")
    known = {"rule", "min", "max", "precision", "confidence", "interval", "interval_level",
             "sizeless_ops", "rounds", "pairs"}
    unknown = sorted(set(obj) - known)
    if unknown:
        fail(where, f"unknown key {unknown[0]!r}")
    if obj.get("rule") != RULE:
        fail(f"{where}.rule", f"{obj.get('rule')!r} is not {RULE!r}")

    def number(key, kind):
        v = obj.get(key)
        ok = isinstance(v, int) if kind is int else isinstance(v, (int, float))
        if isinstance(v, bool) or not ok or (kind is float and not math.isfinite(v)):
            fail(f"{where}.{key}", f"expected {'an integer' if kind is int else 'a finite number'}")
        return v

    try:
        check_settings(number("min", int), number("max", int), number("precision", float),
                       number("confidence", float), where=f"{where}.")
    except PlanError as exc:
        fail(where, str(exc))
    rounds = number("rounds", int)
    if not 0 <= rounds <= limits.MAX_LAUNCHES:
        fail(f"{where}.rounds", f"{rounds} is not between 0 and {limits.MAX_LAUNCHES}")
    sizeless = obj.get("sizeless_ops", [])
    if not isinstance(sizeless, list) or not all(isinstance(s, str) for s in sizeless):
        fail(f"{where}.sizeless_ops", "expected a list of operation names")
    pairs = []
    raw_pairs = obj.get("pairs", [])
    if not isinstance(raw_pairs, list):
        fail(f"{where}.pairs", "expected a list")
    for i, p in enumerate(raw_pairs):
        place = f"{where}.pairs[{i}]"
        if not isinstance(p, dict) or set(p) - set(PairRecord.__dataclass_fields__):
            fail(place, "expected an object with the keys of a pair record")
        if p.get("alternative") not in names:
            fail(f"{place}.alternative", f"{p.get('alternative')!r} is not an alternative of the campaign")
        if not isinstance(p.get("op"), str) or not isinstance(p.get("size"), int) or isinstance(p.get("size"), bool) \
                or p["size"] < 0:
            fail(place, "op must be a name and size a whole number of at least 0")
        if p.get("status") not in stopping.STATUSES:  # more | precision | max
            fail(f"{place}.status", f"{p.get('status')!r} is not one of {', '.join(stopping.STATUSES)}")
        launches = p.get("launches", 0)
        if isinstance(launches, bool) or not isinstance(launches, int) or not 0 <= launches <= limits.MAX_LAUNCHES:
            fail(f"{place}.launches", "expected a whole number of launches")
        for key in ("precision", "median_ns", "low_ns", "high_ns"):
            v = p.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)):
                fail(f"{place}.{key}", "expected a finite number or null")
        held = p.get("held_by_clusters", 0)
        if isinstance(held, bool) or not isinstance(held, int) or not 0 <= held <= limits.MAX_LAUNCHES:
            fail(f"{place}.held_by_clusters", "expected a whole number of judgements")
        reason = p.get("reason")
        if reason is not None and (not isinstance(reason, str) or len(reason) > 1000):
            fail(f"{place}.reason", "expected a text of at most 1000 characters or null")
        pairs.append(PairRecord(alternative=p["alternative"], op=p["op"], size=p["size"], status=p["status"],
                                launches=launches, precision=p.get("precision"), median_ns=p.get("median_ns"),
                                low_ns=p.get("low_ns"), high_ns=p.get("high_ns"), held_by_clusters=held,
                                reason=reason, states=_read_states(p.get("states", []), fail, f"{place}.states")))
    return AdaptiveLaunches(min=obj["min"], max=obj["max"], precision=float(obj["precision"]),
                            confidence=float(obj["confidence"]), sizeless_ops=list(sizeless), pairs=pairs,
                            rounds=rounds)


def _read_states(obj: Any, fail: Callable[[str, str], None], where: str) -> list[dict]:
    """A pair's `states` (untrusted): a list of {stratum, launches, share, precision, median_ns,
    low_ns, high_ns, rare}."""
    keys = {"stratum", "launches", "share", "precision", "median_ns", "low_ns", "high_ns", "rare"}
    if not isinstance(obj, list) or len(obj) > 16:
        fail(where, "expected a list of at most 16 states")
    for i, st in enumerate(obj):
        place = f"{where}[{i}]"
        if not isinstance(st, dict) or set(st) != keys:
            fail(place, f"expected an object with the keys {', '.join(sorted(keys))}")
        if not isinstance(st["stratum"], str) or not 0 < len(st["stratum"]) <= 100:
            fail(f"{place}.stratum", "expected a state name")
        n = st["launches"]
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= limits.MAX_LAUNCHES:
            fail(f"{place}.launches", "expected a whole number of launches")
        if not isinstance(st["rare"], bool):
            fail(f"{place}.rare", "expected true or false")
        for key in ("share", "precision", "median_ns", "low_ns", "high_ns"):
            v = st[key]
            if (v is None and key != "share") or (not isinstance(v, bool) and isinstance(v, (int, float))
                                                  and math.isfinite(v)):
                continue
            fail(f"{place}.{key}", "expected a finite number" + (" or null" if key != "share" else ""))
    return [dict(st) for st in obj]


def read_tests(obj: Any, fail: Callable[[str, str], None], where: str) -> dict[str, list] | None:
    """A launch's `tests` (the subset it runs): null, or {"ops": [names], "sizes": [whole numbers]}."""
    if obj is None:
        return None
    if not isinstance(obj, dict) or set(obj) != {"ops", "sizes"}:
        fail(where, "expected null or an object with ops and sizes")
    ops, sizes = obj["ops"], obj["sizes"]
    if not isinstance(ops, list) or not ops or not all(isinstance(o, str) and o and "," not in o for o in ops):
        fail(f"{where}.ops", "expected a list of operation names")
    if not isinstance(sizes, list) or not sizes or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in sizes):
        fail(f"{where}.sizes", "expected a list of whole numbers of at least 0")
    return {"ops": list(ops), "sizes": list(sizes)}
