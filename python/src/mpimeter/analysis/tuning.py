# SPDX-License-Identifier: BSD-3-Clause
"""``tune``: which of a library's own collective algorithms to use, per operation, process count
and size range — the one that is faster than the library's default with significance, else the
default.

What each alternative ran is read from its environment (analysis.tuning_env): the library's own
selection variables are the one truth. An alternative of a library that sets none of them is that
library's default; the library's default must be among the alternatives (it is the baseline of
every comparison).

The test (per library, over the family of every (op, p, size, algorithm) compared, Holm):
the one-sided Wilcoxon rank-sum test on per-launch medians that the default is slower than the
algorithm by more than ``min_effect`` — the default's medians against the algorithm's scaled by
1 + min_effect, exactly the test ``gate`` makes of a slowdown (Hunold & Carpen-Amarie 2016 §5.2,
the launch as the unit of replication §4.2), paired by round or stratified by state where the
campaign's design allows (analysis.designs); the Hodges–Lehmann ratio algorithm / default with
its interval at ``confidence``. As the gate's, each test counts a speed-up only beyond the
timer's grid (analysis.gating: the algorithm's values half a step up, the default's half a step
down; the grid the two alternatives' launches recorded, meta.json ``timer.resolution_ns``, else
the values' own): per-launch medians of ~35 ns on a 10 ns timer are 30, 35 or 40 ns, and 40
against 30 is one step, not a 33 % speed-up. At each (op, p, size) the chosen algorithm is the
significant one with the smallest ratio; sizes next to each other (in the measured order) with
the same choice merge into one range. The goal is SKaMPI's (Reussner et al. 2002, §6:
"automatically choose the most efficient algorithm depending on problem size") made with the
statistics of PGMPI (Hunold, Carpen-Amarie, Lübbe & Träff 2016: per-launch samples, a correction
over the family).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from mpimeter.analysis import designs as _designs
from mpimeter.analysis import matching as _matching
from mpimeter.analysis.diagnostics import dedupe
from mpimeter.analysis.gating import beyond_grid, half_grid_step, launch_states, sides_grid_ns
from mpimeter.analysis.groups import Group, groups_of, low_power_warning
from mpimeter.analysis.loading import AnalysisError
from mpimeter.analysis.results import AnalysisResult
from mpimeter.analysis.tuning_env import AlgorithmSetting, TuningAlternative, tuning_alternatives
from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import compare as _cmp
from mpimeter.analysis.choices import TUNED_LIBRARIES as LIBRARIES
from mpimeter.stats import hypothesis as _hyp
from mpimeter.stats import paired as _paired
from mpimeter.stats import stratified as _strat

@dataclass(frozen=True, kw_only=True)
class Comparison:
    """One algorithm against its library's default at (op, nprocs, size): ``ratio`` the
    Hodges–Lehmann estimate of algorithm / default with its interval (< 1: the algorithm is
    faster); ``p_value`` of the one-sided test "default slower than algorithm × (1 +
    min_effect)", ``p_adjusted`` after Holm over the library's family; ``significant``:
    p_adjusted ≤ α."""

    library: str
    op: str
    nprocs: int
    size: int
    alternative: str
    algorithm: str
    variable: str
    value: str
    launches_default: int
    launches_algorithm: int
    median_default_ns: float
    median_algorithm_ns: float
    ratio: float
    ratio_ci_low: float | None
    ratio_ci_high: float | None
    p_value: float
    p_method: str
    p_adjusted: float = math.nan
    stars: str = ""
    significant: bool = False
    design: str = "unpaired"  # analysis.designs: paired by round, stratified by state, unpaired
    pairs: int = 0  # rounds both ran (paired by round): the paired test's sample

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, kw_only=True)
class Choice:
    """What to use at (library, op, nprocs, size): ``alternative`` None for the default.
    ``ratio`` (with its interval) is the predicted time of the choice / the default's (1 for the
    default)."""

    library: str
    op: str
    nprocs: int
    size: int
    alternative: str | None
    algorithm: str
    setting: AlgorithmSetting | None
    ratio: float
    ratio_ci_low: float | None
    ratio_ci_high: float | None
    p_adjusted: float | None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["setting"] = None if self.setting is None else {"variable": self.setting.variable,
                                                          "value": self.setting.value,
                                                          "params": dict(self.setting.params)}
        return d


@dataclass(frozen=True, kw_only=True)
class SizeRange:
    """Measured sizes ``sizes`` (ascending, contiguous in the measured order) of (library, op,
    nprocs) with one choice; ``choices`` per size, for the predicted speedups."""

    library: str
    op: str
    nprocs: int
    sizes: tuple[int, ...]
    alternative: str | None
    algorithm: str
    setting: AlgorithmSetting | None
    choices: tuple[Choice, ...]

    @property
    def size_min(self) -> int:
        return self.sizes[0]

    @property
    def size_max(self) -> int:
        return self.sizes[-1]

    def to_dict(self) -> dict[str, Any]:
        return {"library": self.library, "op": self.op, "nprocs": self.nprocs, "size_min": self.size_min,
                "size_max": self.size_max, "sizes": list(self.sizes), "alternative": self.alternative,
                "algorithm": self.algorithm,
                "setting": None if self.setting is None else {"variable": self.setting.variable,
                                                              "value": self.setting.value,
                                                              "params": dict(self.setting.params)},
                "predicted_ratio": [c.ratio for c in self.choices],
                "predicted_ratio_ci": [[c.ratio_ci_low, c.ratio_ci_high] for c in self.choices]}


@dataclass(frozen=True, kw_only=True)
class LibraryTuning:
    """One library's result: its default alternative, the algorithm alternatives, every
    comparison, the choice per (op, nprocs, size) and the merged ranges; ``provenance`` what the
    launches recorded (machine, library version, tool version, first and last launch)."""

    library: str
    default: str
    alternatives: tuple[TuningAlternative, ...]
    comparisons: tuple[Comparison, ...]
    choices: tuple[Choice, ...]
    ranges: tuple[SizeRange, ...]
    provenance: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"library": self.library, "default": self.default,
                "alternatives": [{"alternative": a.alternative,
                                  "settings": {op: asdict(s) | {"params": dict(s.params)} for op, s in a.settings.items()}}
                                 for a in self.alternatives],
                "provenance": dict(self.provenance),
                "comparisons": [c.to_dict() for c in self.comparisons],
                "choices": [c.to_dict() for c in self.choices],
                "ranges": [r.to_dict() for r in self.ranges]}


@dataclass(frozen=True, kw_only=True)
class TuningResult:
    min_effect: float
    alpha: float
    confidence: float
    test: str
    correction: str
    libraries: tuple[LibraryTuning, ...]
    campaign_id: Any
    warnings: tuple[AnalysisWarning, ...]

    def library(self, name: str) -> LibraryTuning:
        for lib in self.libraries:
            if lib.library == name:
                return lib
        raise AnalysisError(f"the campaign tuned no {name} (it tuned {', '.join(l.library for l in self.libraries)})")

    def to_dict(self) -> dict[str, Any]:
        return {"min_effect": self.min_effect, "alpha": self.alpha, "confidence": self.confidence,
                "test": self.test, "correction": self.correction, "campaign_id": self.campaign_id,
                "libraries": [lib.to_dict() for lib in self.libraries],
                "warnings": [w.to_dict() for w in self.warnings]}


# what tune does with the states `analyze` found (the `states` note it repeats)
STATES_SHOWN = ("tune tests each algorithm against the default per round, and state by state where a round's "
                "launches ran in different states; it reports no row per state")


def _default_of(library: str, alts: list[TuningAlternative]) -> TuningAlternative:
    defaults = [a for a in alts if a.is_default]
    if not defaults:
        raise AnalysisError(f"{library}: no alternative runs the library's default (one that sets no algorithm "
                            f"variable, as `mpimeter run --mpi {library}` does): tuning compares every algorithm "
                            "with it")
    named = [a for a in defaults if a.alternative == library]
    if len(defaults) > 1 and not named:
        raise AnalysisError(f"{library}: several alternatives run the library's default "
                            f"({', '.join(a.alternative for a in defaults)}) and none is named {library}")
    return named[0] if named else defaults[0]


def _per_p(group: Group) -> dict[int, dict[tuple[str, int], dict[int, float]]]:
    """nprocs → (op, size) → launch → per-launch median. A process count has a slice per root
    (None for the unrooted operations): they are merged, and an (op, size) measured at several
    roots is refused (a tuning file has no root)."""
    out: dict[int, dict[tuple[str, int], dict[int, float]]] = {}
    for where in group.slices():
        p, root = where[:2]
        samples = {k: {s.launch: float(s.median_ns) for s in r.per_launch if s.n > 0}
                   for k, r in group.at(where).rows().items()}
        samples = {k: v for k, v in samples.items() if v}
        mine = out.setdefault(p, {})
        twice = sorted(set(samples) & set(mine))
        if twice:
            op, size = twice[0]
            raise AnalysisError(f"{group.name} measured {op} at size {size}, p = {p} with several roots; "
                                "tune a campaign with one root")
        mine.update(samples)
    return out


def _states_at(default: Group, alt: Group, p: int, matched: list) -> tuple[dict[int, str], dict[int, str]] | None:
    """Launch → state of the default's and the algorithm's launches at p when their states match
    (analysis.matching; None: no states, or none that can be matched); the matched states are
    added to ``matched`` (what tune says of the states: matching.without_too_few)."""
    where = next((w for w in default.slices() if w[0] == p), None)
    theirs = next((w for w in alt.slices() if w[0] == p), None)
    if where is None or theirs is None:
        return None
    m, _ = _matching.match(default.at(where), alt.at(theirs), per_repetition=False)
    if m is None:
        return None
    matched += [m.a, m.b]
    return launch_states(m)


def _design_test(default: dict[int, float], alg: dict[int, float], per_round: int | None,
                 states: tuple[dict[int, str], dict[int, str]] | None, *, min_effect: float, confidence: float,
                 seed: int, pair_if: int, half_step: float = 0.0) -> tuple[str, int, Any, Any]:
    """(design, pairs, test, ratio interval) of "default slower than alg × (1 + min_effect)"
    (analysis.designs): by round when the campaign interleaved them and every round's launches
    share a state, with at least ``pair_if`` rounds; state by state when states are matched
    (van Elteren); else the rank-sum test of the per-launch medians. Each test counts a speed-up
    only beyond the timer's grid: the algorithm's values ``half_step`` up, the default's down
    (analysis.gating.beyond_grid); the ratio interval is of the values as read."""
    design, both = _designs.UNPAIRED, []
    if per_round is not None:
        rd, ra = _designs.rounds(default, per_round), _designs.rounds(alg, per_round)
        sd = sa = None
        if states is not None:
            sd, sa = (_designs.rounds({i: s for i, s in m.items() if i in v}, per_round)
                      for m, v in ((states[0], default), (states[1], alg)))
        design, both = _designs.round_pairs(rd, ra, sd, sa)
        if design == _designs.BY_ROUND and len(both) >= pair_if:
            x, y = np.array([ra[r] for r in both]), np.array([rd[r] for r in both])
            return (design, len(both), _paired.paired_slowdown_test(*beyond_grid(x, y, half_step), min_effect),
                    _paired.paired_ratio(y, x, confidence=confidence))
    a, b = np.array(list(default.values())), np.array(list(alg.values()))
    if states is not None:
        strata = [(np.array([v for i, v in alg.items() if states[1].get(i) == name]),
                   np.array([v for i, v in default.items() if states[0].get(i) == name]))
                  for name in dict.fromkeys(states[0].values())]
        return (_designs.BY_STATE, 0,
                _strat.stratified_slowdown_test([beyond_grid(g, d, half_step) for g, d in strata], min_effect),
                _strat.stratified_ratio([(d, g) for g, d in strata], confidence=confidence))
    return (_designs.UNPAIRED, 0, _cmp.slowdown_test(*beyond_grid(b, a, half_step), min_effect),
            _cmp.compare_two(a, b, confidence=confidence, seed=seed).ratio_ci)


def _provenance(result: AnalysisResult, alternatives: Sequence[str]) -> dict[str, Any]:
    metas = [li.meta for a in alternatives for li in result.campaign.launches_of(a) if li.meta]
    def distinct(values):
        return sorted({v for v in values if v})
    starts = sorted(m.wall_start for m in metas if m.wall_start)
    return {"machine": distinct(h for m in metas for h in m.hosts) or distinct(m.host_of_rank0 for m in metas),
            "cpu_model": distinct(m.system.cpu_model for m in metas),
            "library_version": distinct((m.mpi.library_version or "").splitlines()[0] if m.mpi.library_version else None
                                        for m in metas),
            "tool_version": distinct(m.tool.version for m in metas),
            "first_launch": starts[0] if starts else None, "last_launch": starts[-1] if starts else None}


def tune(result: AnalysisResult, *, min_effect: float = 0.05, alpha: float = 0.05, confidence: float = 0.95,
         libraries: Sequence[str] | None = None, seed: int = 0,
         names: Mapping[str, Mapping[str, Mapping[str, str]]] | None = None) -> TuningResult:
    """The tuning of every library of the campaign that has algorithm alternatives (``libraries``:
    only these). Raises :class:`AnalysisError` when a library has no default alternative, no
    algorithm alternative, or nothing both measured."""
    if not 0 <= min_effect < 10:
        raise AnalysisError(f"the minimum effect must be ≥ 0 and below 10 (a fraction: 0.05 = 5 %), got {min_effect}")
    by_library, warnings = tuning_alternatives(result, names)
    if libraries:
        missing = [lib for lib in libraries if lib not in by_library]
        if missing:
            raise AnalysisError(f"the campaign has no alternative of {', '.join(missing)} to tune (it has "
                                f"{', '.join(by_library) or 'none of ' + ', '.join(LIBRARIES)})")
        by_library = {lib: by_library[lib] for lib in libraries}
    tuned = {lib: alts for lib, alts in by_library.items() if any(not a.is_default for a in alts)}
    if not tuned:
        raise AnalysisError("the campaign has no algorithm alternatives: run one with `mpimeter run --algorithms "
                            "allreduce=all`, or a --variant that sets the library's algorithm variable "
                            "(OMPI_MCA_coll_tuned_<op>_algorithm, MPIR_CVAR_<OP>_INTRA_ALGORITHM)")
    groups = {g.alternative: g for g in groups_of([result])}
    out = []
    matched: list = []  # the states compared state by state (_states_at)
    for library, alts in tuned.items():
        default = _default_of(library, alts)
        others = [a for a in alts if not a.is_default]
        out.append(_tune_library(result, library, default, others, groups, min_effect=min_effect, alpha=alpha,
                                 confidence=confidence, seed=seed, warnings=warnings, matched=matched))
    warnings += _matching.states_said_as(_matching.without_too_few(result, matched), result, STATES_SHOWN)
    record = result.campaign.campaign_record
    return TuningResult(min_effect=min_effect, alpha=alpha, confidence=confidence,
                        test=_test_text({c.design for lib in out for c in lib.comparisons}),
                        correction="holm (per library, over every (op, p, size, algorithm))", libraries=tuple(out),
                        campaign_id=record.id if record is not None else None, warnings=dedupe(warnings))


def _tune_library(result: AnalysisResult, library: str, default: TuningAlternative, others: list[TuningAlternative],
                  groups: Mapping[str, Group], *, min_effect: float, alpha: float, confidence: float, seed: int,
                  warnings: list[AnalysisWarning], matched: list) -> LibraryTuning:
    base = _per_p(groups[default.alternative])
    rows: list[Comparison] = []
    planned = []  # (alternative, setting, p, size, default's launches, algorithm's launches, states, timer grid)
    for alt in others:
        theirs = _per_p(groups[alt.alternative])
        # the timer grid the two alternatives' launches recorded (the gate's rule)
        grid_ns = sides_grid_ns((result, default.alternative), (result, alt.alternative))
        for op, setting in sorted(alt.settings.items()):
            for p in sorted(set(base) & set(theirs)):
                states = _states_at(groups[default.alternative], groups[alt.alternative], p, matched)
                for (o, size) in sorted(k for k in theirs[p] if k[0] == op and k in base[p]):
                    planned.append((alt, setting, p, size, base[p][(o, size)], theirs[p][(o, size)], states,
                                    grid_ns))
    # rounds paired only when enough of them can reach Holm's first level (launch counts decide, never the times)
    pair_if = next((n for n in range(1, 64) if _paired.min_p_value(n) <= alpha / max(len(planned), 1)), 64)
    per_round = {a.alternative: _designs.launches_per_round(result, a.alternative) for a in (default, *others)}
    for alt, setting, p, size, d, g, states, grid_ns in planned:
        same = per_round[default.alternative] == per_round[alt.alternative]
        rounds = per_round[default.alternative] if same else None
        half = half_grid_step(np.array(list(d.values())), np.array(list(g.values())), grid_ns)
        design, pairs, test, ci = _design_test(d, g, rounds, states, min_effect=min_effect, confidence=confidence,
                                               seed=seed, pair_if=pair_if, half_step=half)
        rows.append(Comparison(library=library, op=setting.op, nprocs=p, size=size, alternative=alt.alternative,
                               algorithm=setting.name, variable=setting.variable, value=setting.value,
                               launches_default=len(d), launches_algorithm=len(g),
                               median_default_ns=float(np.median(list(d.values()))),
                               median_algorithm_ns=float(np.median(list(g.values()))), ratio=ci.estimate,
                               ratio_ci_low=ci.low, ratio_ci_high=ci.high, p_value=test.p_value,
                               p_method=test.method, design=design, pairs=pairs))
    if not rows:
        raise AnalysisError(f"{library}: no (op, p, size) was measured both by the default ({default.alternative}) "
                            f"and by an algorithm alternative ({', '.join(a.alternative for a in others)}) of its "
                            "operation")
    adj = _hyp.holm(np.array([r.p_value for r in rows]))
    rows = [replace(r, p_adjusted=float(q), stars=_hyp.stars(float(q), alpha=alpha),
                    significant=bool(math.isfinite(q) and q <= alpha)) for r, q in zip(rows, adj)]
    warnings += low_power_warning([(r.launches_default, r.launches_algorithm, f"{r.op}/{r.size} p={r.nprocs}")
                                   for r in rows if r.design != _designs.BY_ROUND], "greater", alpha, "alternative")
    warnings += _designs.paired_low_power([(r.pairs, f"{r.op}/{r.size} p={r.nprocs}") for r in rows
                                           if r.design == _designs.BY_ROUND], len(rows), alpha, "alternative")
    settings = {a.alternative: a.settings for a in others}
    choices = []
    for key in sorted({(r.op, r.nprocs, r.size) for r in rows}):
        cands = [r for r in rows if (r.op, r.nprocs, r.size) == key]
        best = min((r for r in cands if r.significant), key=lambda r: (r.ratio, r.p_adjusted), default=None)
        if best is None:
            choices.append(Choice(library=library, op=key[0], nprocs=key[1], size=key[2], alternative=None,
                                  algorithm="default", setting=None, ratio=1.0, ratio_ci_low=None,
                                  ratio_ci_high=None, p_adjusted=None))
        else:
            choices.append(Choice(library=library, op=key[0], nprocs=key[1], size=key[2],
                                  alternative=best.alternative, algorithm=best.algorithm,
                                  setting=settings[best.alternative][best.op], ratio=best.ratio,
                                  ratio_ci_low=best.ratio_ci_low, ratio_ci_high=best.ratio_ci_high,
                                  p_adjusted=best.p_adjusted))
    return LibraryTuning(library=library, default=default.alternative, alternatives=(default, *others),
                         comparisons=tuple(rows), choices=tuple(choices), ranges=tuple(merge_ranges(choices)),
                         provenance=_provenance(result, [default.alternative, *(a.alternative for a in others)]))


def _test_text(designs: set[str]) -> str:
    """The tests the comparisons used, by design."""
    what = {_designs.BY_ROUND: "one-sided wilcoxon signed-rank on per-round ratios default / algorithm (paired by "
                               "round: the alternatives ran in the same rounds)",
            _designs.BY_STATE: f"one-sided {_matching.STRATIFIED_TEST} (stratified by state: launches of a round ran "
                               "in different machine states)",
            _designs.UNPAIRED: "one-sided wilcoxon-rank-sum on per-launch medians (unpaired: no record of the "
                               "rounds, or too few of them to pair)"}
    return "; ".join(what[d] for d in (_designs.BY_ROUND, _designs.BY_STATE, _designs.UNPAIRED) if d in designs) + \
        " — default slower than algorithm × (1 + min_effect)"


def merge_ranges(choices: Sequence[Choice]) -> list[SizeRange]:
    """Contiguous measured sizes of one (library, op, nprocs) with the same choice, as ranges."""
    out: list[SizeRange] = []
    for c in sorted(choices, key=lambda c: (c.library, c.op, c.nprocs, c.size)):
        last = out[-1] if out else None
        if last and (last.library, last.op, last.nprocs, last.alternative) == (c.library, c.op, c.nprocs, c.alternative):
            out[-1] = replace(last, sizes=(*last.sizes, c.size), choices=(*last.choices, c))
        else:
            out.append(SizeRange(library=c.library, op=c.op, nprocs=c.nprocs, sizes=(c.size,),
                                 alternative=c.alternative, algorithm=c.algorithm, setting=c.setting, choices=(c,)))
    return out
