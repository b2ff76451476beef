# SPDX-License-Identifier: BSD-3-Clause
"""raw.csv checked against meta.json (docs/FORMAT.md, "Reader rules"): every way a file can be
corrupt that would still parse is caught here, with a message naming the file, the line or the
test, what is wrong and what is allowed.

- :func:`check_values` — per row: ``valid`` ∈ {0, 1}; ``rep`` ≥ 0; ``rank`` in −1 … nprocs−1;
  every timestamp within ±2^62 ns of the launch epoch (so that the difference of any two fits a
  64-bit integer: a run time never overflows to a negative number); ``end_ns ≥ start_ns`` and
  ``gend_ns ≥ gstart_ns``; ``gstart_ns``/``gend_ns`` both given or both empty; the test exists
  in meta.json with the same op and size.
- :func:`check_components` — the nonblocking components (raw format 2): on rows of operations
  meta.json calls ``nonblocking`` init/test/wait/compute are given and not negative,
  blocking is empty or not negative, and init + wait ≤ end − start (they are parts of it); on
  every other row all five are empty.
- :func:`check_unique` — no (test, rank, rep) appears twice.
- :func:`check_whole` — every test meta.json lists as ``complete`` is whole: full raw mode has
  ranks 0 … nprocs−1 each with repetitions 0 … nrep−1 (``tests[].nrep``), reduced mode rank −1
  with repetitions 0 … nrep−1; nothing else.

Cost: O(N) for a file in the order mpimeter-bench writes it (test, rank, rep ascending);
O(N log N) otherwise (a sort for the duplicate check).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mpimeter.io.csvread import dictionary_codes
from mpimeter.io.errors import InputError
from mpimeter.io.meta import ROW_STATUSES, LaunchMeta, TestRecord
from mpimeter.io.rawformat import COMPONENTS  # raw format 2's nonblocking components, in column order

TIME_LIMIT = 2**62  # ns, about 146 years: two timestamps within ±2^62 differ by less than 2^63
# No repetition outlasts its launch, and no launch runs longer than the longest --launch-timeout
# (campaign.limits.MAX_LAUNCH_TIMEOUT_S, 7 days; a test checks the two agree).
MAX_PLAUSIBLE_NS = 7 * 86_400 * 10**9
# A timer this fine sees every call take at least one tick (the call and the timer's own overhead
# are tens of ns): a run time of 0 is then no measurement.
FINE_TIMER_NS = 100.0


def _fail_at(path: Path, mask: np.ndarray, what: str) -> None:
    if mask.any():
        idx = int(np.argmax(mask))
        raise InputError(path, what.format(i=idx), line=idx + 2)  # line 1 is the header


def _empty(col: pa.ChunkedArray) -> np.ndarray:
    """Where ``col`` is empty (null), a bool per row; the common columns with none or only
    nulls take no Arrow call (a launch's check made tens of them, each dearer than its rows)."""
    if col.null_count == 0:
        return np.zeros(len(col), dtype=bool)
    if col.null_count == len(col):
        return np.ones(len(col), dtype=bool)
    return pc.is_null(col).to_numpy(zero_copy_only=False)


def _filled(col: pa.ChunkedArray) -> np.ndarray:
    """``col``'s integers with 0 where empty (see :func:`_empty`)."""
    if col.null_count == 0:
        return col.to_numpy()
    if col.null_count == len(col):
        return np.zeros(len(col), dtype=col.type.to_pandas_dtype())
    return pc.fill_null(col, 0).to_numpy()


def check_values(path: Path, raw: pa.Table, meta: LaunchMeta) -> None:
    """Row by row (see the module docstring)."""
    valid = raw["valid"].to_numpy()
    _fail_at(path, (valid != 0) & (valid != 1), "column valid must be 0 or 1")
    _fail_at(path, raw["rep"].to_numpy() < 0, "rep is negative")
    rank = raw["rank"].to_numpy()
    nprocs = meta.nprocs
    _fail_at(path, (rank < -1) | (rank >= nprocs), f"rank is not in -1 … {nprocs - 1} (nprocs = {nprocs} in meta.json)")
    _fail_at(path, _empty(raw["gstart_ns"]) != _empty(raw["gend_ns"]),
             "gstart_ns and gend_ns must both be given or both be empty")
    filled = {}
    for name in ("start_ns", "end_ns", "gstart_ns", "gend_ns"):
        values = filled[name] = _filled(raw[name])
        _fail_at(path, (values >= TIME_LIMIT) | (values <= -TIME_LIMIT),
                 f"{name} is out of range: timestamps must lie within ±2^62 ns (about 146 years) of the launch "
                 "epoch, so that run times fit 64-bit integers")
    duration = filled["end_ns"] - filled["start_ns"]
    _fail_at(path, duration < 0, "end_ns is before start_ns")
    _fail_at(path, duration > MAX_PLAUSIBLE_NS,
             f"end_ns − start_ns is beyond the plausible maximum (allowed: 0 … {MAX_PLAUSIBLE_NS} ns, 7 days, the "
             "longest launch)")
    fine = meta.timer.resolution_ns is not None and 0 < meta.timer.resolution_ns <= FINE_TIMER_NS
    if fine:
        _fail_at(path, (duration == 0) & (rank >= 0),
                 f"end_ns equals start_ns: a call took place and the timer ticks every {meta.timer.resolution_ns:g} ns "
                 "(allowed: a run time ≥ 1 ns)")
    if raw["gstart_ns"].null_count < raw.num_rows:
        gs, ge = filled["gstart_ns"], filled["gend_ns"]
        _fail_at(path, ge < gs, "gend_ns is before gstart_ns")
        _fail_at(path, ge - gs > MAX_PLAUSIBLE_NS,
                 f"gend_ns − gstart_ns is beyond the plausible maximum (allowed: 0 … {MAX_PLAUSIBLE_NS} ns)")
    tests = meta.tests
    test = raw["test"].to_numpy()
    _fail_at(path, (test < 0) | (test >= len(tests)), f"test is not one of the {len(tests)} tests in meta.json")
    if not tests:
        return
    sizes = np.array([t.size for t in tests], dtype=np.int64)
    _fail_at(path, raw["size"].to_numpy() != sizes[test], "size differs from the size meta.json gives for this test")
    codes, names = dictionary_codes(raw["op"])  # compare integer codes, not 10^7 strings
    expected = np.array([names.index(t.op) if t.op in names else -1 for t in tests], dtype=np.int32)
    _fail_at(path, codes != expected[test], "op differs from the op meta.json gives for this test")


def check_unique(path: Path, raw: pa.Table, meta: LaunchMeta) -> None:
    """No (test, rank, rep) twice: a repeated row would count one repetition twice."""
    n = raw.num_rows
    if n < 2:
        return
    test, rank, rep = (raw[c].to_numpy() for c in ("test", "rank", "rep"))
    later = (test[1:] > test[:-1]) | ((test[1:] == test[:-1]) & (
        (rank[1:] > rank[:-1]) | ((rank[1:] == rank[:-1]) & (rep[1:] > rep[:-1]))))
    if later.all():
        return  # strictly ascending, as mpimeter-bench writes it
    order = np.lexsort((rep, rank, test))
    t, r, p = test[order], rank[order], rep[order]
    same = (t[1:] == t[:-1]) & (r[1:] == r[:-1]) & (p[1:] == p[:-1])
    if not same.any():
        return
    k = int(np.argmax(same))
    first, second = sorted((int(order[k]), int(order[k + 1])))
    label = meta.tests[int(t[k])].label
    raise InputError(path, f"repetition {int(p[k])} of rank {int(r[k])} in {label} appears twice (lines {first + 2} "
                           f"and {second + 2}); each (test, rank, rep) is written once", line=second + 2)


def expected_nrep(meta: LaunchMeta, t: TestRecord) -> tuple[int | None, str]:
    """(rows per rank of a finished test, where that number comes from): ``tests[].nrep``; in a
    hand-made meta.json without it the number is unknown (a time budget may have ended the test
    early): None, and every rank must have as many rows as the first one."""
    if t.nrep is not None:
        return t.nrep, f"tests[{t.test}].nrep"
    return None, "the rows of the first rank"


def check_whole(path: Path, raw: pa.Table, meta: LaunchMeta) -> None:
    """Every finished test has exactly its rows (see the module docstring)."""
    finished = [t for t in meta.tests if t.status in ROW_STATUSES]
    if not finished:
        return
    test, rank, rep = (raw[c].to_numpy() for c in ("test", "rank", "rep"))
    index = np.array([t.test for t in finished])
    slot = np.full(len(meta.tests), -1, dtype=np.int64)
    slot[index] = np.arange(len(finished))
    mine = slot[test] >= 0 if test.size else np.zeros(0, dtype=bool)
    reduced = meta.reduced
    if reduced:
        _fail_at(path, mine & (rank >= 0), "rank is not -1, but meta.json says config.raw is reduced "
                                           "(one row per repetition, rank -1)")
    else:
        _fail_at(path, mine & (rank < 0), "rank is -1 (a --raw reduced row), but meta.json says config.raw is full "
                                          "(one row per rank and repetition)")
    nranks = 1 if reduced else meta.nprocs
    expected = [expected_nrep(meta, t) for t in finished]
    if len(finished) * nranks > int(mine.sum()) + 1_000_000:
        _first_absent_rank(path, meta, finished, expected, test[mine], rank[mine])  # too many cells to count
    cell = slot[test[mine]] * nranks + (0 if reduced else rank[mine].astype(np.int64))
    counts = np.bincount(cell, minlength=len(finished) * nranks).reshape(len(finished), nranks)
    want = np.array([counts[i, 0] if n is None else n for i, (n, _) in enumerate(expected)], dtype=np.int64)
    per_test = np.full(len(meta.tests), np.iinfo(np.int64).max)
    per_test[index] = want
    extra = mine & (rep >= per_test[test]) if test.size else mine
    if extra.any():
        k = int(np.argmax(extra))
        i = int(slot[test[k]])
        t, n = finished[i], int(want[i])
        raise InputError(path, f"{t.label} has repetition {int(rep[k])}, but {expected[i][1]} is {n} (its "
                               f"repetitions are 0 … {n - 1})", line=k + 2)
    # a test on a sub-communicator (--nprocs LIST, tests[].nprocs) has rows of its first k ranks only
    in_comm = np.ones((len(finished), nranks), dtype=bool) if reduced else \
        np.arange(nranks)[None, :] < np.array([t.nprocs or nranks for t in finished])[:, None]
    short = np.argwhere(counts != np.where(in_comm, want[:, None], 0))
    if short.size:
        i, j = (int(v) for v in short[0])
        t, n, source = finished[i], int(want[i]), expected[i][1]
        who = -1 if reduced else j
        if not in_comm[i, j]:
            raise InputError(path, f"{t.label} ran on a communicator of {t.nprocs} ranks (tests[].nprocs), but "
                                   f"raw.csv has {int(counts[i, j])} rows of rank {who} for it")
        if counts[i, j] == 0:
            raise InputError(path, _absent(meta, t, who, set(np.unique(rank[mine & (test == t.test)]).tolist()), n,
                                           source))
        missing = np.setdiff1d(np.arange(n), rep[mine & (test == t.test) & (rank == who)])
        rank_text = "the reduced rows (rank -1)" if reduced else f"rank {who}"
        raise InputError(path, f"{t.label} is complete in meta.json, but {rank_text} has {int(counts[i, j])} of its "
                               f"{n} rows (missing repetitions {_ranges(missing)}; {source} = {n})")


def _absent(meta: LaunchMeta, t: TestRecord, who: int, have: set[int], n: int, source: str) -> str:
    if meta.reduced:
        return f"{t.label} is complete in meta.json, but raw.csv has no rows of it ({source} = {n})"
    ranks = "rank" if len(have) == 1 else "ranks"
    present = f"rows of {ranks} {_ranges(np.array(sorted(have)))} only" if have else "no rows of it at all"
    k = t.nprocs or meta.nprocs
    return (f"{t.label} is complete in meta.json, but raw.csv has no rows of rank {who} (it has {present}; meta.json "
            f"says nprocs {k}, so ranks 0 … {k - 1} must each have {n} rows, {source})")


def _first_absent_rank(path: Path, meta: LaunchMeta, finished: list[TestRecord], expected: list, test: np.ndarray,
                       rank: np.ndarray) -> None:
    """Raises for the first finished test that lacks a rank entirely (without counting cells)."""
    for t, (n, source) in zip(finished, expected):
        if n == 0:
            continue
        have = set(np.unique(rank[test == t.test]).tolist())
        wanted = [-1] if meta.reduced else range(t.nprocs or meta.nprocs)
        absent = next((r for r in wanted if r not in have), None)
        if absent is not None:
            raise InputError(path, _absent(meta, t, absent, have, -1 if n is None else n, source))


def _ranges(values: np.ndarray, limit: int = 6) -> str:
    """'0, 3 … 7, 9' for sorted integers (at most ``limit`` pieces, then '…')."""
    vals = [int(v) for v in values]
    if not vals:
        return "none"
    pieces, lo = [], vals[0]
    for prev, cur in zip(vals, vals[1:] + [None]):
        if cur is None or cur != prev + 1:
            pieces.append(str(lo) if lo == prev else f"{lo} … {prev}")
            lo = cur
    return ", ".join(pieces[:limit]) + (", …" if len(pieces) > limit else "")



def check_components(path: Path, raw: pa.Table, meta: LaunchMeta) -> None:
    """The nonblocking components (see the module docstring). Rows of an operation meta.json
    does not describe (schema 1) are taken as not nonblocking."""
    if not meta.tests or raw.num_rows == 0:
        return
    nbc_test = np.array([meta.kind(t.op) == "nonblocking" for t in meta.tests], dtype=bool)
    is_nbc = nbc_test[raw["test"].to_numpy()]
    if not is_nbc.any() and all(raw[name].null_count == raw.num_rows for name in COMPONENTS):
        return  # no nonblocking row and no component given: nothing below can fail
    for name in COMPONENTS:
        col = raw[name]
        null, values = _empty(col), _filled(col)
        _fail_at(path, ~is_nbc & ~null, f"{name} is given for an operation that is not a nonblocking collective "
                                        "(only nonblocking rows have components)")
        if name != "blocking_ns":
            _fail_at(path, is_nbc & null, f"{name} is empty on a nonblocking collective's row")
        _fail_at(path, is_nbc & (values < 0), f"{name} is negative")
        _fail_at(path, values >= TIME_LIMIT, f"{name} is out of range (at most 2^62 ns)")
        _fail_at(path, is_nbc & (values > MAX_PLAUSIBLE_NS),
                 f"{name} is beyond the plausible maximum (allowed: 0 … {MAX_PLAUSIBLE_NS} ns)")
        if name == "compute_ns":  # the binary computes for a calibrated time > 0 (bench/nbc_test.c)
            _fail_at(path, is_nbc & ~null & (values <= 0),
                     "compute_ns is 0 on a nonblocking collective's row; the binary always computes (allowed: > 0 ns)")
    if is_nbc.any():
        parts = _filled(raw["init_ns"]) + _filled(raw["wait_ns"])
        total = raw["end_ns"].to_numpy() - raw["start_ns"].to_numpy()
        _fail_at(path, is_nbc & (parts > total), "init_ns + wait_ns exceed end_ns − start_ns, of which they are parts")
