# SPDX-License-Identifier: BSD-3-Clause
"""``compare --ops A,B``: two operations of one alternative, (size, p, root) by (size, p, root),
with the statistics ``compare`` uses between alternatives (SKaMPI's report compares operations
with each other: Send vs Ssend, Reduce vs Scan; Reussner et al. 1998 §6): the rank-sum test on
per-launch medians (on repetitions with ``per_repetition``), the ratio B/A with its interval at
the level Holm tested the row at, Holm over every row.

Two operations are compared only when their times mean the same kind of thing: both sized in the
same unit, both one-way latencies of a pair of ranks or both calls of the whole communicator
(a ping-pong's one-way latency against a collective's run time is not a comparison of two ways
to do one thing). Which ranks communicate is the binary's fact (meta.json
``operations[op].uses_pair``), not guessed from the name or the kind.

Work pieces (mw-workpieces: one test per value of ``--workpieces LIST``) are a
dimension of the rows like the root: an operation with them is compared number by number — with
the same number when both have them, and each number against the other operation's one result at
that (size, p, root) when only one has them (mw-workpieces at 1, 4, 16 pieces each against
mw-waitsome: three rows, each naming its pieces). Never pooled over the numbers: the call's work
grows with them."""

from __future__ import annotations

import math
import numpy as np

from mpimeter.analysis.comparison import ComparisonResult, ComparisonRow, _at_holm_level
from mpimeter.analysis.groups import check_launches, groups_of, low_power_warning, slice_label, slice_pieces
from mpimeter.analysis.loading import AnalysisError
from mpimeter.analysis.results import AnalysisResult
from mpimeter.stats import compare as _cmp
from mpimeter.stats import hypothesis as _hyp

# Which operations' times answer the same question: those of two ranks (the rest idle) against
# those of the whole communicator, against no communication at all. The binary records which
# (meta.json operations[op].uses_pair; kind local: none communicates), so that a one-sided
# contention row (rma-one-put-all: every rank) is not taken for a pair's (rma-put).
_PAIR = "two ranks (a pair)"
_WHOLE = "the whole communicator"
_NONE = "no communication"
# launches that predate uses_pair: the kinds whose every row was a pair's then
_PAIR_KINDS = ("point-to-point",)


def _family_of(op: str, info) -> str:
    """The family of ``op`` as one launch recorded it (``info``: its operations entry or None)."""
    kind = info.kind if info is not None else None
    if kind == "local":
        return _NONE
    uses_pair = info.uses_pair if info is not None else None
    if uses_pair is None and kind == "one-sided":
        # one-sided rows are of both families (rma-put: the pair; rma-all-put-all: every rank)
        raise AnalysisError(f"{op}: its launches do not record whether only the pair or every rank communicates "
                            "(meta.json operations[op].uses_pair, written by newer binaries and imports): run or "
                            "import them again to compare it with another operation")
    if uses_pair is None:
        return _PAIR if kind in _PAIR_KINDS else _WHOLE
    return _PAIR if uses_pair else _WHOLE


def family(result: AnalysisResult, op: str) -> tuple[str, str, bool]:
    """(family, size unit, one-way) of ``op`` as its launches recorded it."""
    families = {_family_of(op, li.meta.operations.get(op)) for li in result.campaign.launches
                if op in li.meta.operations}
    if len(families) > 1:
        raise AnalysisError(f"{op}: its launches record it as of {' and of '.join(sorted(families))}: "
                            "not one pattern to compare")
    one_way = any(r.one_way for r in result.rows if r.op == op)
    return next(iter(families), _WHOLE), result.size_unit(op), one_way


def check_pair(result: AnalysisResult, op_a: str, op_b: str) -> None:
    """AnalysisError (one line) when the two cannot be compared: not two distinct measured
    operations, or times of different kinds."""
    measured = sorted({r.op for r in result.rows})
    if op_a == op_b:
        raise AnalysisError(f"--ops {op_a},{op_b}: give two different operations")
    for op in (op_a, op_b):
        if op not in measured:
            raise AnalysisError(f"--ops {op_a},{op_b}: {op} was not measured (measured: {', '.join(measured)})")
    fa, fb = family(result, op_a), family(result, op_b)
    if fa[1] != fb[1]:
        raise AnalysisError(f"--ops {op_a},{op_b}: {op_a} is sized in {fa[1]}, {op_b} in {fb[1]}: the sizes do "
                            "not name the same thing, so the rows cannot be matched")
    if fa[0] != fb[0] or fa[2] != fb[2]:
        what = {True: "a one-way latency", False: "a run time"}
        raise AnalysisError(f"--ops {op_a},{op_b}: {op_a} times {what[fa[2]]} of {fa[0]}, {op_b} {what[fb[2]]} "
                            f"of {fb[0]}: different patterns, not two ways to do one thing")


def _slice_pairs(g, op_a: str, op_b: str, per_repetition: bool) -> list[tuple[tuple, tuple]]:
    """The (p, root[, workpieces]) slices of the two operations to compare: the same p; the same
    root, or any root of the one when the other has none (allreduce against bcast at root 0, 1 …);
    the same work pieces, or each number of the one when the other has none."""
    def slices_of(op: str) -> list[tuple]:
        return [w for w in g.slices() if any(o == op for o, _ in g.at(w).samples(per_repetition))]

    def agree(x, y) -> bool:
        return x is None or y is None or x == y

    return [(wa, wb) for wa in slices_of(op_a) for wb in slices_of(op_b)
            if wa[0] == wb[0] and agree(wa[1], wb[1]) and agree(slice_pieces(wa), slice_pieces(wb))]


def _joint(where_a: tuple, where_b: tuple) -> tuple:
    """The row's (p, root[, workpieces]): each of root and work pieces from the side that has it."""
    root = where_a[1] if where_a[1] is not None else where_b[1]
    pieces = slice_pieces(where_a) if slice_pieces(where_a) is not None else slice_pieces(where_b)
    return (where_a[0], root) if pieces is None else (where_a[0], root, pieces)


def compare_ops(result: AnalysisResult, op_a: str, op_b: str, *, alternative: str = "two-sided",
                per_repetition: bool = False, confidence: float = 0.95, ratio_ci: str = "hodges-lehmann",
                alpha: float = 0.05, seed: int = 0) -> ComparisonResult:
    """``op_a`` against ``op_b`` in every alternative of ``result``: one row per (size, p, root,
    workpieces) both measured. The rows name the operations as their sides (``a``, ``b``; prefixed with the
    alternative when there are several) and ``op`` as "A vs B"."""
    if alternative not in _hyp.ALTERNATIVES:
        raise AnalysisError(f"alternative must be one of {', '.join(_hyp.ALTERNATIVES)}, got {alternative!r}")
    check_pair(result, op_a, op_b)
    groups = groups_of([result])
    check_launches(groups, per_repetition)
    several = len(groups) > 1
    rows: list[ComparisonRow] = []
    samples: dict[tuple, dict] = {}
    shown = any(len(g.slices()) > 1 for g in groups)
    for g in groups:
        side_a, side_b = (f"{g.name}:{op}" if several else op for op in (op_a, op_b))
        for where_a, where_b in _slice_pairs(g, op_a, op_b, per_repetition):
            gs_a, gs_b = g.at(where_a), g.at(where_b)
            s_a, s_b = gs_a.samples(per_repetition), gs_b.samples(per_repetition)
            where = _joint(where_a, where_b)
            sizes = sorted({size for op, size in s_a if op == op_a} & {size for op, size in s_b if op == op_b})
            for size in sizes:
                a, b = s_a[(op_a, size)], s_b[(op_b, size)]
                samples[(side_a, where, size)], samples[(side_b, where, size)] = a, b
                pc = _cmp.compare_two(a, b, alternative=alternative, confidence=confidence, ratio_ci=ratio_ci,
                                      seed=seed)
                rows.append(ComparisonRow(
                    op=f"{op_a} vs {op_b}", size=size, a=side_a, b=side_b, launches_a=gs_a.launches(op_a, size),
                    launches_b=gs_b.launches(op_b, size), median_a_ns=pc.median_a, median_b_ns=pc.median_b,
                    ratio_of_medians=pc.ratio, ratio=pc.ratio_ci.estimate, ratio_ci_low=pc.ratio_ci.low,
                    ratio_ci_high=pc.ratio_ci.high, ratio_ci_method=pc.ratio_ci.method, statistic=pc.statistic,
                    p_value=pc.p_value, p_method=pc.p_method, p_adjusted=math.nan, stars="", significant=False,
                    one_way=gs_a.one_way(op_a, size) and gs_b.one_way(op_b, size), nprocs=where[0], root=where[1],
                    workpieces=slice_pieces(where)))
    if not rows:
        raise AnalysisError(f"--ops {op_a},{op_b}: no size (at one process count, root and number of work pieces) "
                            "was measured for both")
    p_all = np.array([r.p_value for r in rows])
    adj, levels = _hyp.holm(p_all), _hyp.holm_levels(p_all, alpha)
    rows = [_at_holm_level(r, float(p), float(level),
                           # _at_holm_level looks samples up by (side, (op, size)): one row's two samples
                           {r.a: {(r.op, r.size): samples[(r.a, r.where, r.size)]},
                            r.b: {(r.op, r.size): samples[(r.b, r.where, r.size)]}},
                           alternative=alternative, alpha=alpha, ratio_ci=ratio_ci, seed=seed)
            for r, p, level in zip(rows, adj, levels)]
    warnings = []
    if not per_repetition:
        warnings += low_power_warning([(r.launches_a, r.launches_b, f"{r.size}{slice_label(r.where, shown)}")
                                       for r in rows], alternative, alpha, "alternative")
    warnings += list(result.warnings)
    test = ("wilcoxon-rank-sum on " + ("repetitions pooled over launches" if per_repetition else "per-launch medians")
            + f", {op_b} against {op_a} within each alternative")
    return ComparisonResult(groups=(op_a, op_b), alternative=alternative, test=test, correction="holm",
                            confidence=confidence, alpha=alpha, rows=tuple(rows), omnibus=(),
                            warnings=tuple(warnings), metric="time")
