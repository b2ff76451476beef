# SPDX-License-Identifier: BSD-3-Clause
"""Which test one fingerprint (``mpimeter fingerprint``, ``mpimeter.report.fingerprint``) is of,
and the analysis of that test alone.

What: the tests a campaign holds — one per row an analysis of it would have, (alternative, op,
size, p, root, work pieces) — read from its repetitions before anything is analysed
(:func:`campaign_tests`); the one test a request names among them, or the one line that says
what the campaign has instead (:func:`select_test`, the same for a campaign and for the rows of
an analysis result); and the analysis of that (alternative, op, size) alone (:func:`analyze_test`).

Why: the analysis of a whole campaign costs most of its time in the warm-up test of every launch
and test (``mpimeter.stats.warmup``); a fingerprint shows one test, and a request that names
none of the campaign's is refused before that time is spent.

Numbers: none of its own; ``analyze(tests=...)`` (``analysis.pipeline``) says what of the
campaign as a whole (rank tests, launch effects, states, clock note) the result of one test keeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from mpimeter.analysis import scaling as _scaling
from mpimeter.analysis.loading import Campaign
from mpimeter.analysis.pipeline import analyze
from mpimeter.analysis.results import AnalysisResult
from mpimeter.analysis.rowkey import RowKey


Test = TypeVar("Test")  # a RowKey or a Row: anything with the fields of a RowKey


def campaign_tests(campaign: Campaign) -> tuple[RowKey, ...]:
    """The tests of ``campaign``, one per row its analysis has (``analyze`` makes one per
    (alternative, op, size, p, root, work pieces) of its repetitions), in no particular order."""
    reps = campaign.reductions.reps
    if len(reps) == 0:
        return ()
    groups = np.stack([np.asarray(reps.alternative, dtype=np.int64), np.asarray(reps.launch, dtype=np.int64),
                       np.asarray(reps.test, dtype=np.int64)], axis=1)
    _, first = np.unique(groups, axis=0, return_index=True)  # one repetition per (alternative, launch, test)
    infos = {(li.alternative, li.index): li for li in campaign.launches}
    keys = set()
    for i in first.tolist():
        alternative, launch, test = reps.alternatives[reps.alternative[i]], int(reps.launch[i]), int(reps.test[i])
        info = infos.get((alternative, launch))
        nprocs, root = _scaling.test_ranks(info, test)
        keys.add(RowKey(alternative=alternative, op=reps.ops[reps.op[i]], size=int(reps.size[i]), nprocs=nprocs,
                         root=root, workpieces=_scaling.test_workpieces(info, test)))
    return tuple(keys)


def select_test(tests: Sequence[Test], alternatives: Sequence[str], op: str, size: int,
                alternative: str | None = None, *, nprocs: int | None = None, root: int | None = None,
                workpieces: int | None = None) -> Test:
    """The one of ``tests`` (test keys, or an analysis's rows) that the request names. Raises
    ValueError saying what the campaign has: a campaign of several ``alternatives`` needs one
    named; a test measured at several p, roots or work pieces needs the one asked for."""
    alternative = _resolve_alternative(alternatives, alternative)
    # a test is also its p and root; one of several must be named
    same = [t for t in tests if t.op == op and t.size == size and t.alternative == alternative]
    if not same:  # the operation or the size is missing at any p: the p asked for is beside the point
        raise ValueError(_missing_test(tests, op, size, alternative))
    found = [t for t in same if nprocs in (None, t.nprocs) and root in (None, t.root)
             and workpieces in (None, t.workpieces)]
    if not found:
        asked = ", ".join(([f"p = {nprocs}"] if nprocs is not None else []) + ([f"root {root}"] if root is not None else [])
                          + ([f"{workpieces} workpieces"] if workpieces is not None else []))
        rootless = root is not None and all(t.root is None for t in same)
        raise ValueError(f"{op} {size} of {alternative} was measured at {_where(same)} only, not at {asked}"
                         + (f" ({op} has no root: leave out --root)" if rootless else ""))
    if len({(t.nprocs, t.root, t.workpieces) for t in found}) > 1:
        raise ValueError(f"{op} {size} of {alternative} was measured at {_where(found)}: {_how_to_name(found)}")
    return found[0]


def _how_to_name(found: Sequence) -> str:
    """The options that tell ``found`` apart — only those: `--np` where every test ran at one p
    cannot choose among roots (CONTRIBUTING.md: advice must be able to help)."""
    options = [name for name, attr in (("--np", "nprocs"), ("--root", "root"), ("--workpieces", "workpieces"))
               if len({getattr(t, attr) for t in found}) > 1]
    return f"name one with {' and '.join(options)}"


def _where(tests: Sequence) -> str:
    """'p = 2, p = 4 root 0': the p, root and work pieces of ``tests``, each once, in order."""
    keys = sorted({(t.nprocs, -1 if t.root is None else t.root, -1 if t.workpieces is None else t.workpieces)
                   for t in tests})
    return ", ".join(f"p = {p}" + ("" if root < 0 else f" root {root}") + ("" if pieces < 0 else f" workpieces {pieces}")
                     for p, root, pieces in keys)


def analyze_test(campaign: Campaign, test: RowKey, **settings) -> AnalysisResult:
    """The analysis of ``test``'s (alternative, op, size) alone (``analyze(tests=...)``), with
    the analysis ``settings`` of :func:`mpimeter.analysis.analyze`."""
    return analyze(campaign, tests={(test.alternative, test.op, test.size)}, **settings)


def no_distribution(campaign: Campaign, alternative: str) -> str | None:
    """Why the tests of ``alternative`` have no fingerprint, or None: every launch of it was
    imported from a tool's aggregates (IMB, OSU, ReproMPI --summary), one value per test and run,
    not a distribution (docs/FORMAT.md, "Imported launches": quartiles, outlier filter, warm-up
    and fingerprints have nothing to work on). Drawn anyway, the one value would show as a
    repetition categorized "first" (Roth 2021 §4.5), which it is not."""
    origins = [li.meta.origin for li in campaign.launches_of(alternative)]
    if not origins or not all(o is not None and o.aggregates for o in origins):
        return None
    labels = ", ".join(dict.fromkeys(o.label for o in origins))
    return (f"{alternative} was imported from {labels}: one aggregate per test and run, no repetitions to draw a "
            f"fingerprint of (mpimeter analyze gives its values)")


def _missing_test(tests: Sequence, op: str, size: int, alternative: str) -> str:
    present = sorted({(t.op, t.size) for t in tests if t.alternative == alternative})
    ops = sorted({o for o, _ in present})
    if op not in ops:
        return f"no operation {op!r} in {alternative}; it has: {', '.join(ops)}"
    sizes = [s for o, s in present if o == op]
    return f"no size {size} for {op} in {alternative}; it has: {', '.join(map(str, sizes))}"


def _resolve_alternative(alternatives: Sequence[str], alternative: str | None) -> str:
    names = tuple(alternatives)
    if alternative is None:
        if len(names) != 1:
            raise ValueError(f"the campaign has alternatives {', '.join(names)}: name one")
        return names[0]
    if alternative not in names:
        raise ValueError(f"no alternative {alternative!r}; the campaign has {', '.join(names)}")
    return alternative
