# SPDX-License-Identifier: BSD-3-Clause
"""``guidelines``: the self-consistent performance guidelines of MPI checked on a campaign.

Three kinds of guideline, each a pair of samples of per-launch medians of one alternative (one
library) at one number of ranks p — a campaign of several p is judged p by p, one
Holm family over all — and, for rooted operations, at one root; ``lhs`` that must be no slower
than ``rhs``:

- ``mock-up``: a collective at size m against its mock-up at m (an op of the binary's table whose
  meta.json record says ``mockup_of``: the same result through other calls, timed as one) —
  "a specialized operation is no slower than a composition doing the same";
- ``monotony``: an operation at size m against the same operation at the next larger size
  measured — "more data is never faster";
- ``split``: an operation at m against two calls at m/2 (twice the per-launch medians at m/2)
  — "one call with m is no slower than two with m/2";
- ``irregular``: a regular collective against its irregular form moving the same data
  (REGULAR_IRREGULAR: Allgather ⪯ Allgatherv, Gather ⪯ Gatherv, Scatter ⪯ Scatterv, Alltoall ⪯
  Alltoallv, Reduce_scatter_block at m ⪯ Reduce_scatter at nprocs x m, its whole vector) —
  "a regular operation is no slower than the irregular one given regular counts".

Both sides of a guideline ran in the same launches, so the design pairs them (``paired by
launch``): the test is the one-sided Wilcoxon signed-rank test of the per-launch ratios lhs/rhs
(stats.paired, exact), on the launches that measured both — the launch's own speed, a machine
state included, multiplies both sides and cancels in the ratio — with the paired Hodges–Lehmann
ratio (median of the Walsh averages of the log ratios) and its interval. Where no launch
measured both sides (``unpaired``) the one-sided Wilcoxon rank-sum test of the per-launch
medians and the two-sample Hodges–Lehmann ratio stand in; so they do where the launches are too
few for the signed-rank test to reach Holm's first level in the family (its smallest p is
2^−pairs: 1/32 with 5 launches, where the rank-sum's is 1/252) — a rule of the launch counts, not
of the times, so choosing by it keeps the error rate. A guideline is violated where the test
says ``lhs`` is slower than ``rhs`` after Holm's correction over the whole family of rows tested
together; each row carries the ratio lhs/rhs (> 1: lhs slower) with its interval and
says which design it used.

Both tests count a violation only beyond the timer's grid, as the gate counts a slowdown
(analysis.gating): each lhs value is moved half a grid step down and each rhs value half a step
up (a ``split``'s rhs, twice a value at m/2, a whole step: twice the half) before they are
compared, so that per-launch medians of ~35 ns on a 10 ns timer (30, 35 or 40 ns) do not read 40
against 30 ns as a 33 % violation of what is a difference of a few ns. The grid is the timer's
recorded resolution (meta.json ``timer.resolution_ns``, the coarsest of the alternative's
launches; half of it for one-way latencies, half a timed round trip), else the grid both sides'
values lie on; the ratio and its interval are of the values as read.

Paper: Träff, Gropp & Thakur 2010 (self-consistent MPI performance guidelines, among them regular ⪯
irregular); Hunold, Carpen-Amarie, Lübbe & Träff 2016 (PGMPI) for the list tested here; Träff 2012
(mpicroscope, Hunold & Carpen-Amarie 2016 ref. [4]); the PGMPI work (Hunold, Carpen-Amarie,
Lübbe & Träff 2016) for testing them on per-launch samples with a correction over the family;
the statistics are those of ``compare`` (Hunold & Carpen-Amarie 2016 §5.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from mpimeter.analysis.choices import GUIDELINE_KINDS as KINDS
from mpimeter.analysis.choices import REGULAR_IRREGULAR
from mpimeter.analysis.diagnostics import dedupe
from mpimeter.analysis.designs import paired_low_power
from mpimeter.analysis.gating import half_grid_step, sides_grid_ns
from mpimeter.analysis.groups import Group, groups_of, low_power_warning
from mpimeter.analysis.loading import AnalysisError
from mpimeter.analysis.matching import states_said_as as _states_said_as
from mpimeter.analysis.results import AnalysisResult
from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import compare as _cmp
from mpimeter.stats import hypothesis as _hyp
from mpimeter.stats import paired as _paired
from mpimeter.warning_codes import warning

STATEMENTS = {
    "mock-up": "{op}({size}) no slower than its mock-up {versus}({size})",
    "monotony": "{op}({size}) no slower than {op}({versus_size})",
    "split": "{op}({size}) no slower than 2 x {op}({versus_size})",
    "irregular": "{op}({size}) no slower than {versus}({versus_size})",
}



@dataclass(frozen=True, kw_only=True)
class GuidelineRow:
    """One guideline at one size for one alternative on ``nprocs`` ranks: ``op`` at ``size``
    (lhs) against ``versus`` at ``versus_size`` (rhs; for ``split`` two calls: twice its
    per-launch medians). ``ratio`` estimates lhs / rhs (> 1: lhs slower) with its interval;
    ``p_value`` of the one-sided rank-sum test "lhs slower", ``p_adjusted`` after Holm over all
    rows; ``violated``: p_adjusted ≤ α."""

    kind: str
    alternative: str
    nprocs: int
    op: str
    size: int
    versus: str
    versus_size: int
    statement: str
    launches_lhs: int
    launches_rhs: int
    median_lhs_ns: float
    median_rhs_ns: float
    ratio: float
    ratio_ci_low: float | None
    ratio_ci_high: float | None
    ratio_ci_method: str
    p_value: float
    p_method: str
    p_adjusted: float = math.nan
    stars: str = ""
    violated: bool = False
    root: int | None = None  # lhs's root when the operation takes one (rhs at the same root, or none)
    design: str = "unpaired"  # DESIGNS: paired by launch (signed-rank on per-launch ratios) or unpaired
    pairs: int = 0  # launches that measured both sides (the paired test's sample)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


PAIRED, UNPAIRED = "paired by launch", "unpaired"
DESIGNS = (PAIRED, UNPAIRED)
# what the guidelines do with the states `analyze` found (the `states` note they repeat)
STATES_SHOWN = ("a guideline whose two sides ran in the same launches is tested on per-launch ratios, in which "
                "the state cancels; no row is reported per state")


@dataclass(frozen=True, kw_only=True)
class GuidelineTest:
    """The test of one guideline row: ``design`` (DESIGNS), ``pairs`` the launches with both
    sides, the medians of each side over its launches, the ratio lhs / rhs with its interval,
    p of the one-sided test "lhs slower" and how it was computed."""

    design: str
    pairs: int
    launches_lhs: int
    launches_rhs: int
    median_lhs_ns: float
    median_rhs_ns: float
    ratio: Any  # stats.intervals.Interval
    p_value: float
    p_method: str


def guideline_test(lhs: dict[int, float], rhs: dict[int, float], *, confidence: float = 0.95,
                   ratio_ci: str = "hodges-lehmann", seed: int = 0, paired: bool = True,
                   half_steps: tuple[float, float] = (0.0, 0.0)) -> GuidelineTest:
    """The one-sided test that ``lhs`` is slower than ``rhs`` (launch → per-launch median, rhs
    already scaled: twice for ``split``): with ``paired``, by launch on the launches that
    measured both; unpaired (rank-sum) when not, or when none did (module docstring). The test
    counts only what lies beyond the timer's grid: lhs moved ``half_steps[0]`` down, rhs
    ``half_steps[1]`` up (:func:`grid_half_steps`); the ratio is of the values as read."""
    both = sorted(set(lhs) & set(rhs)) if paired else []
    a, b = np.array(list(rhs.values()), dtype=float), np.array(list(lhs.values()), dtype=float)
    med_l, med_r = float(np.median(b)), float(np.median(a))
    down, up = half_steps
    if not both:  # "lhs slower" = the rhs sample below the lhs sample; the ratio lhs/rhs is b/a
        pc = _cmp.compare_two(a, b, alternative="less", confidence=confidence, ratio_ci=ratio_ci, seed=seed)
        test = _cmp.slowdown_test(a + up, b - down, 0.0)
        return GuidelineTest(design=UNPAIRED, pairs=0, launches_lhs=b.size, launches_rhs=a.size,
                             median_lhs_ns=med_l, median_rhs_ns=med_r, ratio=pc.ratio_ci, p_value=test.p_value,
                             p_method=test.method)
    x, y = np.array([rhs[i] for i in both]), np.array([lhs[i] for i in both])
    test = _paired.paired_slowdown_test(x + up, y - down, 0.0)
    ci = (_paired.paired_bootstrap_ratio(x, y, confidence=confidence, seed=seed) if ratio_ci == "bootstrap"
          else _paired.paired_ratio(x, y, confidence=confidence))
    return GuidelineTest(design=PAIRED, pairs=len(both), launches_lhs=b.size, launches_rhs=a.size,
                         median_lhs_ns=med_l, median_rhs_ns=med_r, ratio=ci, p_value=test.p_value,
                         p_method=test.method)


def grid_half_steps(lhs: dict[int, float], rhs: dict[int, float], factor: float, grid_ns: float | None, *,
                    one_way: bool = False) -> tuple[float, float]:
    """How far a guideline's test moves lhs down and rhs up (module docstring): half the timer's
    grid step (``grid_ns`` the recorded resolution, halved for one-way latencies; None: the grid
    both sides' values lie on, analysis.gating.half_grid_step), the rhs's × ``factor``, the
    number of its calls (``rhs`` its values as read, before that factor)."""
    half = half_grid_step(np.array(list(lhs.values()), dtype=float), np.array(list(rhs.values()), dtype=float),
                          grid_ns if grid_ns is None or not one_way else grid_ns / 2)
    return half, half * factor


@dataclass(frozen=True, kw_only=True)
class GuidelinesResult:
    kinds: tuple[str, ...]
    test: str
    correction: str
    confidence: float
    alpha: float
    rows: tuple[GuidelineRow, ...]
    warnings: tuple[AnalysisWarning, ...]

    @property
    def violations(self) -> tuple[GuidelineRow, ...]:
        return tuple(r for r in self.rows if r.violated)

    def to_dict(self) -> dict[str, Any]:
        return {"kinds": list(self.kinds), "test": self.test, "correction": self.correction,
                "confidence": self.confidence, "alpha": self.alpha, "violations": len(self.violations),
                "rows": [r.to_dict() for r in self.rows], "warnings": [w.to_dict() for w in self.warnings]}


def mockups_of(result: AnalysisResult, alternative: str) -> dict[str, str]:
    """mock-up op → the op it mocks up, as the alternative's launches recorded it (meta.json
    ``operations[op].mockup_of``: the binary's table is the one source)."""
    out: dict[str, str] = {}
    for li in result.campaign.launches_of(alternative):
        for name, info in li.meta.operations.items():
            if info.mockup_of:
                out[name] = info.mockup_of
    return out


def _slices(group: Group) -> dict[int, dict[tuple[str, int, int | None], dict[int, float]]]:
    """Per p, the group's per-launch medians (launch → median) keyed (op, size, root): the rows
    of one p only (a guideline compares one operation with another on the same processes)."""
    out: dict[int, dict[tuple[str, int, int | None], dict[int, float]]] = {}
    for r in group.result.rows:
        if r.alternative != group.alternative:
            continue
        values = {s.launch: float(s.median_ns) for s in r.per_launch if s.n > 0}
        if values:
            out.setdefault(r.nprocs, {})[(r.op, r.size, r.root)] = values
    return dict(sorted(out.items()))


def _pairs(kind: str, samples: dict, mockups: dict[str, str], selected: set[str] | None, nprocs: int = 1):
    """(op, size, root, versus, versus_size, versus_root, factor of rhs) of one kind that both
    sides measured at one p (``nprocs``); a mock-up without a root of its own is paired with
    each root of its original, one with a root with the same root."""
    if kind == "irregular":
        for (op, size, root) in sorted(samples, key=_key_order):
            if op in REGULAR_IRREGULAR:
                versus, per = REGULAR_IRREGULAR[op]
                versus_size = size * (nprocs if per == "nprocs" else 1)
                if (versus, versus_size, root) in samples:
                    yield op, size, root, versus, versus_size, root, 1.0
        return
    if kind == "mock-up":
        for (mock, size, mroot) in sorted(samples, key=_key_order):
            of = mockups.get(mock)
            if not of or (selected is not None and mock not in selected):
                continue
            for (op, osize, oroot) in sorted(samples, key=_key_order):
                if op == of and osize == size and (mroot is None or oroot is None or mroot == oroot):
                    yield of, size, oroot, mock, size, mroot, 1.0
        return
    plain = sorted(((op, size, root) for op, size, root in samples if op not in mockups), key=_key_order)
    sizes: dict[tuple[str, int | None], list[int]] = {}
    for op, size, root in plain:
        sizes.setdefault((op, root), []).append(size)
    for (op, root), measured in sizes.items():
        if kind == "monotony":
            for small, large in zip(measured, measured[1:]):
                yield op, small, root, op, large, root, 1.0
        else:
            for size in measured:
                if size > 0 and size % 2 == 0 and size // 2 in measured:
                    yield op, size, root, op, size // 2, root, 2.0


def _key_order(key: tuple[str, int, int | None]) -> tuple:
    return key[0], key[1], -1 if key[2] is None else key[2]


def _untestable(kinds: Sequence[str], name: str, plain: list[str], per_p: dict, mock: dict[str, str],
                selected: set[str] | None) -> list[AnalysisWarning]:
    """The notes on the operations of one alternative (``name``) that a kind of guideline could not
    test: measured at one size (monotony), no size with its half (split), no irregular form
    measured beside a regular collective (irregular)."""
    warnings: list[AnalysisWarning] = []
    if "monotony" in kinds:
        single = [op for op in plain if not any(sum(1 for o, _, _ in at_p if o == op) >= 2
                                                for at_p in per_p.values())]
        if single:
            warnings.append(warning("guideline-untestable", kind="monotony", alternative=name,
                                    ops=", ".join(single), why="measured at one size only"))
    if "split" in kinds:
        unsplit = [op for op in plain if not any(o == op and s > 0 and s % 2 == 0 and (op, s // 2, r) in at_p
                                                 for at_p in per_p.values() for o, s, r in at_p)]
        if unsplit:
            warnings.append(warning("guideline-untestable", kind="split", alternative=name,
                                    ops=", ".join(unsplit), why="no size measured together with its half"))
    if "irregular" in kinds:
        tested = {pair[0] for p, at_p in per_p.items() for pair in _pairs("irregular", at_p, mock, selected, p)}
        alone = [op for op in plain if op in REGULAR_IRREGULAR and op not in tested]
        if alone:
            warnings.append(warning("guideline-untestable", kind="irregular", alternative=name,
                                    ops=", ".join(alone), why="its irregular form (allgatherv, ...) not measured "
                                    "at the same size (reduce_scatter_block: at nprocs x the size)"))
    return warnings


def check(result: AnalysisResult, *, kinds: Sequence[str] = KINDS, mockups: Sequence[str] | None = None,
          confidence: float = 0.95, ratio_ci: str = "hodges-lehmann", alpha: float = 0.05,
          seed: int = 0) -> GuidelinesResult:
    """Every guideline of ``kinds`` that the campaign measured both sides of, per alternative.
    ``mockups``: only these mock-ups (each must have been measured with its original, else
    :class:`AnalysisError`). Raises :class:`AnalysisError` when nothing can be tested."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise AnalysisError(f"guideline kinds must be among {', '.join(KINDS)}, got {', '.join(unknown) or 'none'}")
    groups = groups_of([result])
    warnings: list[AnalysisWarning] = []
    selected = set(mockups) if mockups else None
    rows: list[GuidelineRow] = []
    planned: list[tuple] = []  # every row's facts and samples, tested once the family's size is known
    for g in groups:
        per_p = _slices(g)
        grid_ns = sides_grid_ns((result, g.alternative))
        one_way = {(r.nprocs, r.op, r.size, r.root) for r in result.rows
                   if r.alternative == g.alternative and r.one_way}
        samples = {(op, size): v for at_p in per_p.values() for (op, size, _), v in at_p.items()}
        mock = mockups_of(result, g.alternative)
        measured = {op for op, _ in samples}
        if "mock-up" in kinds:
            for name in sorted(selected or ()):
                if name not in mock or name not in measured:
                    raise AnalysisError(f"--mockup {name}: {g.name} did not measure it (measured mock-ups: "
                                     f"{', '.join(sorted(m for m in mock if m in measured)) or 'none'}; plan them "
                                     "with mpimeter run --guidelines)")
            if not any(m in measured for m in mock):
                raise AnalysisError(f"{g.name} measured no mock-up, so no mock-up guideline can be checked: plan the "
                                 "campaign with mpimeter run --guidelines, or check --kind monotony,split only")
            for name in sorted(m for m in mock if m in measured and (selected is None or m in selected)):
                if not any(n == name and any((o, z) == (mock[name], s) for o, z, _ in at_p)
                           for at_p in per_p.values() for n, s, _ in at_p):
                    raise AnalysisError(f"the mock-up {name} of {mock[name]}: {g.name} measured "
                                     f"{mock[name] if mock[name] in measured else 'no ' + mock[name]} at none of "
                                     "its sizes and process counts; measure both with the same --sizes")
        plain = sorted(op for op in measured if op not in mock)
        warnings += _untestable(kinds, g.name, plain, per_p, mock, selected)
        for nprocs, at_p in per_p.items():
            for kind in kinds:
                for op, size, root, versus, versus_size, versus_root, factor in _pairs(kind, at_p, mock, selected,
                                                                                       nprocs):
                    lhs, read = at_p[(op, size, root)], at_p[(versus, versus_size, versus_root)]
                    rhs = {i: v * factor for i, v in read.items()}
                    halves = grid_half_steps(lhs, read, factor, grid_ns, one_way={(nprocs, op, size, root),
                                             (nprocs, versus, versus_size, versus_root)} <= one_way)
                    planned.append((kind, g.name, nprocs, op, size, versus, versus_size, root, lhs, rhs, halves))
    # paired where the pairs can reach Holm's first level in this family (the launch counts decide, never the
    # times: with 5 launches the signed-rank test's smallest p, 1/32, cannot, while the rank-sum's 1/252 can)
    family = len(planned)
    for kind, name, nprocs, op, size, versus, versus_size, root, lhs, rhs, halves in planned:
        pairs = len(set(lhs) & set(rhs))
        t = guideline_test(lhs, rhs, confidence=confidence, ratio_ci=ratio_ci, seed=seed,
                           paired=pairs > 0 and _paired.min_p_value(pairs) <= alpha / family, half_steps=halves)
        rows.append(GuidelineRow(
            kind=kind, alternative=name, nprocs=nprocs, op=op, size=size, versus=versus, versus_size=versus_size,
            statement=STATEMENTS[kind].format(op=op, size=size, versus=versus, versus_size=versus_size)
            + ("" if root is None else f" at root {root}"),
            launches_lhs=t.launches_lhs, launches_rhs=t.launches_rhs, median_lhs_ns=t.median_lhs_ns,
            median_rhs_ns=t.median_rhs_ns, ratio=t.ratio.estimate, ratio_ci_low=t.ratio.low,
            ratio_ci_high=t.ratio.high, ratio_ci_method=t.ratio.method, p_value=t.p_value, p_method=t.p_method,
            root=root, design=t.design, pairs=t.pairs))
    if not rows:
        raise AnalysisError("no guideline could be tested: the campaign measured no mock-up together with its "
                            "operation at one size (plan one with mpimeter run --guidelines), no operation at two "
                            "sizes (monotony), no size together with its half (split) and no regular collective "
                            "with its irregular form (irregular)")
    adj = _hyp.holm(np.array([r.p_value for r in rows]))
    rows = [replace(r, p_adjusted=float(p), stars=_hyp.stars(float(p), alpha=alpha),
                    violated=bool(math.isfinite(p) and p <= alpha)) for r, p in zip(rows, adj)]
    several_p = len({r.nprocs for r in rows}) > 1
    warnings += low_power_warning([(r.launches_rhs, r.launches_lhs,
                                    f"{r.op}/{r.size}" + (f" p={r.nprocs}" if several_p else ""))
                                   for r in rows if r.design == UNPAIRED], "less", alpha, "alternative")
    warnings += paired_low_power([(r.pairs, f"{r.op}/{r.size}" + (f" p={r.nprocs}" if several_p else ""))
                                  for r in rows if r.design == PAIRED], len(rows), alpha, "alternative")
    warnings += _states_said_as(result.warnings, result, STATES_SHOWN)
    designs = [d for d in DESIGNS if any(r.design == d for r in rows)]
    test = "; ".join({PAIRED: "one-sided wilcoxon signed-rank on per-launch ratios lhs/rhs, paired by launch "
                              "(lhs slower than rhs)",
                      UNPAIRED: "one-sided wilcoxon-rank-sum on per-launch medians (lhs slower than rhs), unpaired: "
                                "no launch measured both sides, or too few launches to pair"}[d] for d in designs)
    return GuidelinesResult(kinds=tuple(kinds), test=test, correction="holm", confidence=confidence, alpha=alpha,
                            rows=tuple(rows), warnings=dedupe(warnings))
