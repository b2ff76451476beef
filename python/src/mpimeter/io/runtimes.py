# SPDX-License-Identifier: BSD-3-Clause
"""Reductions of the raw table (one row per rank per repetition) done by DuckDB over Arrow.

- :func:`repetition_times`: one row per (alternative, launch, test, rep) with the run time
  under every clock: ``online_ns`` = max gend − min gstart, ``resync_ns`` the same on the
  re-synced global clock, ``local_ns`` = max over ranks of end − start, over the timed ranks
  (every rank; a round trip's initiator alone: ``timed_ranks``) (docs/FORMAT.md, "run time of a
  repetition"); ``valid`` = all ranks valid; ``spread_ns`` = max − min ``gstart_ns``
  over ranks (how far apart the ranks started on the online global clock; NaN without global
  times or per-rank rows); ``rspread_ns`` the same on the re-synced global clock (NaN without it).
- :func:`rank_launch_medians`: per (alternative, op, size, launch, rank) the median local
  duration of the rank's valid repetitions (the input of the rank tests);
- :func:`rank_durations`: local durations per rank and repetition, filtered.

Each works on one launch's rows or on many launches' alike (mpimeter.io.campaign.with_keys): the
analysis reduces a campaign launch by launch and keeps only these.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from mpimeter.io.csvread import dictionary_codes
from mpimeter.stats.median import leading_medians


@dataclass(frozen=True)
class RunTime:
    """The run time of one repetition on one clock (docs/FORMAT.md, "run time of a repetition";
    docs/ARCHITECTURE.md, "The Python package"), defined once here for both reductions below,
    the numpy one (:meth:`over_ranks`) and the SQL one (:meth:`sql`): on a global clock, the latest end minus
    the earliest start over the timed ranks; on the ranks' local clocks, the longest local
    duration. The timed ranks are every rank but for a round trip, whose initiator's call alone
    is the round trip (the answering rank's waits for the ping: SKaMPI, Reussner et al. 1998
    §2.1; IMB and OSU time it so): the numpy one is given the timed ranks' rows, the SQL one
    reads a ``timed`` column. The C side's one definition is the reduced raw writer's (pinned to this by
    c/tests/mpi/test_raw_format.py)."""

    name: str  # the column of RepetitionTimes
    start: str  # raw.csv columns
    end: str
    global_clock: bool

    def over_ranks(self, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        """Per repetition, from (ranks × repetitions) matrices of the start and end columns."""
        if self.global_clock:
            return (end.max(0) - start.min(0)).astype(float)
        return (end - start).max(0).astype(float)

    def sql(self) -> str:
        """The same as a DuckDB aggregate over one repetition's rows (``timed``: the row's rank
        is one of the timed ranks)."""
        if self.global_clock:
            return (f"max(CASE WHEN timed THEN {self.end} END) - min(CASE WHEN timed THEN {self.start} END) "
                    f"AS {self.name}")
        return f"max(CASE WHEN timed THEN {self.end} - {self.start} END) AS {self.name}"


RUN_TIMES = (RunTime("online_ns", "gstart_ns", "gend_ns", True),  # the online global clock
             RunTime("resync_ns", "rgstart_ns", "rgend_ns", True),  # re-synced after the fact (sync.csv)
             RunTime("local_ns", "start_ns", "end_ns", False))  # no global clock


_database: duckdb.DuckDBPyConnection | None = None
_database_lock = threading.Lock()


def connect() -> duckdb.DuckDBPyConnection:
    """A connection of its own for the reductions below, to the process's one in-memory DuckDB
    database: opening a database costs about 16 ms of CPU, a cursor of an open one 0.4 ms, and a
    launch the fast path cannot reduce needs one. A cursor is a separate connection, so the
    tables registered on it are its own (DuckDB's temporary views are connection-local) and a
    thread may hold one (a DuckDB connection is not shared between threads)."""
    global _database
    with _database_lock:
        if _database is None:
            _database = duckdb.connect()
        return _database.cursor()


@dataclass(frozen=True, kw_only=True)
class RepetitionTimes:
    """Columns as numpy arrays (one entry per repetition), sorted by alternative, launch, test,
    rep; strings as codes into ``alternatives`` / ``ops``; run times float with NaN = missing."""

    alternative: np.ndarray
    alternatives: list[str]
    launch: np.ndarray
    test: np.ndarray
    op: np.ndarray
    ops: list[str]
    size: np.ndarray
    rep: np.ndarray
    online_ns: np.ndarray
    resync_ns: np.ndarray
    local_ns: np.ndarray
    valid: np.ndarray
    spread_ns: np.ndarray
    rspread_ns: np.ndarray | None = None  # None: all NaN (filled in __post_init__)

    def __post_init__(self) -> None:
        if self.rspread_ns is None:
            object.__setattr__(self, "rspread_ns", np.full(self.rep.size, np.nan))

    def __len__(self) -> int:
        return int(self.rep.size)


def concat_repetition_times(parts: list[RepetitionTimes]) -> RepetitionTimes:
    """Several launches' repetition times (each grouped as :func:`repetition_times` groups them)
    as one, in the order given; the string codes are remapped to one list each."""
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return repetition_times(pa.table({}))
    alternatives: list[str] = []
    ops: list[str] = []

    def remap(codes: np.ndarray, names: list[str], into: list[str]) -> np.ndarray:
        for n in names:
            if n not in into:
                into.append(n)
        table = np.array([into.index(n) for n in names], dtype=np.int32)
        return table[codes] if codes.size else codes.astype(np.int32)

    alt = np.concatenate([remap(p.alternative, p.alternatives, alternatives) for p in parts])
    op = np.concatenate([remap(p.op, p.ops, ops) for p in parts])

    def cat(name: str) -> np.ndarray:
        return np.concatenate([getattr(p, name) for p in parts])

    return RepetitionTimes(alternative=alt, alternatives=alternatives, launch=cat("launch"), test=cat("test"),
                           op=op, ops=ops, size=cat("size"), rep=cat("rep"), online_ns=cat("online_ns"),
                           resync_ns=cat("resync_ns"), local_ns=cat("local_ns"), valid=cat("valid"),
                           spread_ns=cat("spread_ns"), rspread_ns=cat("rspread_ns"))


_codes = dictionary_codes


def _floats(col: pa.ChunkedArray) -> np.ndarray:
    return pc.fill_null(col.cast(pa.float64()), np.nan).to_numpy()


def _int_column(raw: pa.Table, name: str) -> np.ndarray | None:
    """int64 values, None when the column has some nulls; all-null columns give None too."""
    col = raw[name]
    return col.to_numpy() if col.null_count == 0 else None


RANK_MEDIAN_COLUMNS = ("alternative", "op", "size", "launch", "rank", "med")


# op -> the one rank whose rows make its run time (a round trip's initiator); ops not named: every rank
TimedRanks = Mapping[str, int]


def _timed_rows(ranks: np.ndarray, timed_rank: int | None) -> np.ndarray | slice:
    """Which rows of a block's (ranks × reps) matrices make the run time: the timed rank's, when
    the block has per-rank rows and holds it; else every row."""
    if timed_rank is None or ranks[0] < 0:
        return slice(None)
    rows = ranks == timed_rank
    return rows if rows.any() else slice(None)


def _blockwise(raw: pa.Table, *, medians: bool = False,
               timed_ranks: TimedRanks | None = None) -> tuple[RepetitionTimes, pd.DataFrame | None] | None:
    """Fast path for the layout mpimeter-bench writes: per (launch, test) one block of rows,
    rank-major (all repetitions 0 … n−1 of the first rank, then the next rank …). Reduces each
    block as a (ranks × reps) matrix; with ``medians`` also each rank's median local duration of
    its valid repetitions (:func:`rank_launch_medians`). Blocks laid out repetition-major (the
    ranks of repetition 0, then of 1 …: test fixtures, converted data) are read transposed when
    the general path is certain to give the same answer (:func:`_as_general`). None when the
    table is laid out otherwise."""
    alt, alts = _codes(raw["alternative"])
    launch, test = raw["launch"].to_numpy(), raw["test"].to_numpy()
    rank, rep = raw["rank"].to_numpy(), raw["rep"].to_numpy()
    start, end = raw["start_ns"].to_numpy(), raw["end_ns"].to_numpy()
    glob = _global_clocks(raw)
    starts = _block_starts(alt, launch, test)
    if glob is None or starts is None:
        return None
    ends = np.append(starts[1:], raw.num_rows)
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("alt", "launch", "test", "op", "size", "rep",
                                                          *(rt.name for rt in RUN_TIMES), "valid", "spread",
                                                          "rspread")}
    op_codes, ops = _codes(raw["op"])
    size = raw["size"].to_numpy()
    valid = raw["valid"].to_numpy()
    layouts = set()
    med_parts: list[tuple[int, int, np.ndarray, np.ndarray]] = []  # (first row, ranks, rank ids, medians)
    for lo, hi in zip(starts.tolist(), ends.tolist()):
        shape = _block_shape(rep[lo:hi], rank[lo:hi])
        if shape is None:
            return None
        p, nrep, layout = shape
        layouts.add(layout)

        def matrix(x: np.ndarray) -> np.ndarray:  # the block's (ranks × reps) matrix of a column
            return x[lo:hi].reshape(p, nrep) if layout == "rank" else x[lo:hi].reshape(nrep, p).T

        rk = matrix(rank)
        timed = _timed_rows(rk[:, 0], (timed_ranks or {}).get(ops[op_codes[lo]]))
        nan = np.full(nrep, np.nan)
        parts["alt"].append(np.full(nrep, alt[lo]))
        parts["launch"].append(np.full(nrep, launch[lo]))
        parts["test"].append(np.full(nrep, test[lo]))
        parts["op"].append(np.full(nrep, op_codes[lo]))
        parts["size"].append(np.full(nrep, size[lo]))
        parts["rep"].append(np.arange(nrep))
        for rt in RUN_TIMES:
            pair = (rt.start, rt.end)
            if not rt.global_clock:
                parts[rt.name].append(rt.over_ranks(matrix(start)[timed], matrix(end)[timed]))
            elif pair in glob:
                gs, ge = glob[pair]
                parts[rt.name].append(rt.over_ranks(matrix(gs)[timed], matrix(ge)[timed]))
            else:
                parts[rt.name].append(nan)
        local = matrix(end) - matrix(start)  # the ranks' own durations (rank medians)
        ok = matrix(valid) == 1
        parts["valid"].append(ok.all(0))
        if medians and rk[0, 0] >= 0:
            # each rank's median of its valid repetitions (NaN, dropped, for a rank without any)
            ordered = np.sort(np.where(ok, local, np.nan), axis=1)
            med_parts.append((lo, p, rk[:, 0], leading_medians(ordered, ok.sum(axis=1), axis=1)))
        for key, pair in (("spread", ("gstart_ns", "gend_ns")), ("rspread", ("rgstart_ns", "rgend_ns"))):
            if pair in glob and rk[0, 0] >= 0:
                gs = matrix(glob[pair][0])
                parts[key].append((gs.max(0) - gs.min(0)).astype(float))
            else:
                parts[key].append(nan)
    cat = {k: np.concatenate(v) for k, v in parts.items()}
    if "rep" in layouts:
        if "rank" in layouts or not _as_general(raw, starts, glob, alt=(alt, alts), op=(op_codes, ops)):
            return None
        cat["rep"] = cat["rep"].astype(rep.dtype)  # the general path's type
    reps = RepetitionTimes(alternative=cat["alt"], alternatives=alts, launch=cat["launch"], test=cat["test"],
                           op=cat["op"], ops=ops, size=cat["size"], rep=cat["rep"], online_ns=cat["online_ns"],
                           resync_ns=cat["resync_ns"], local_ns=cat["local_ns"], valid=cat["valid"],
                           spread_ns=cat["spread"], rspread_ns=cat["rspread"])
    if not medians:
        return reps, None
    frame = _median_frame(med_parts, alt, alts, op_codes, ops, size, launch)
    if "rep" in layouts and frame is not None and frame.empty:
        return reps, None  # the general path's empty frame has types of its own
    return reps, frame


def _global_clocks(raw: pa.Table) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] | None:
    """The (start, end) columns of each global clock that has times in every row; None when one
    has them in some rows only (the general path's case)."""
    glob = {}
    for pair in ((rt.start, rt.end) for rt in RUN_TIMES if rt.global_clock):
        nulls = raw[pair[0]].null_count + raw[pair[1]].null_count
        if nulls == 0:
            glob[pair] = (_int_column(raw, pair[0]), _int_column(raw, pair[1]))
        elif nulls != 2 * raw.num_rows:
            return None
    return glob


def _block_starts(alt: np.ndarray, launch: np.ndarray, test: np.ndarray) -> np.ndarray | None:
    """The first row of each (alternative, launch, test) block; None when one is in several pieces."""
    change = np.ones(alt.size, dtype=bool)
    change[1:] = (alt[1:] != alt[:-1]) | (launch[1:] != launch[:-1]) | (test[1:] != test[:-1])
    starts = np.nonzero(change)[0]
    block_keys = np.stack([alt[starts], launch[starts], test[starts]], axis=1)
    return starts if np.unique(block_keys, axis=0).shape[0] == starts.size else None


def _block_shape(rep: np.ndarray, rank: np.ndarray) -> tuple[int, int, str] | None:
    """A block's ranks, repetitions and layout: "rank"-major (one rank's repetitions 0 … n−1,
    then the next rank's; so is a block of one rank) or "rep"-major (the same ranks for every
    repetition 0 … n−1); None: neither."""
    nrep = int(rep.max()) + 1
    if rep.size % nrep:
        return None
    ranks = rep.size // nrep
    reps = np.arange(nrep)
    by_rank = rank.reshape(ranks, nrep)
    if (np.array_equal(rep.reshape(ranks, nrep), np.broadcast_to(reps, (ranks, nrep)))
            and (by_rank == by_rank[:, :1]).all()):
        return ranks, nrep, "rank"
    by_rep = rank.reshape(nrep, ranks)
    if (np.array_equal(rep.reshape(nrep, ranks), np.broadcast_to(reps[:, None], (nrep, ranks)))
            and (by_rep == by_rep[:1]).all()):
        return ranks, nrep, "rep"
    return None


# times of at most 2^51 ns in magnitude: each difference (at most 2^52) is a float exactly, so
# numpy's medians are DuckDB's and no run time is beyond the 2^53 the general path's cast to
# float refuses
_EXACT_NS = 2 ** 51


def _as_general(raw: pa.Table, starts: np.ndarray, glob: dict, *, alt: tuple[np.ndarray, list[str]],
                op: tuple[np.ndarray, list[str]]) -> bool:
    """Whether the blocks' reduction is, to the bit, what the general path (SQL) gives of ``raw``:
    its order (the blocks sorted by alternative, launch, test), its lists of alternatives and ops
    (first appearance in that order), its types, and values it neither refuses nor rounds
    otherwise. The bench's rank-major layout keeps the fast path's own answer. ``starts``: the
    blocks' first rows; ``glob``: the global clocks' columns; ``alt``, ``op``: codes and names."""
    columns = ("alternative", "launch", "test", "op", "size", "rank", "rep", "start_ns", "end_ns", "valid")
    if any(raw[c].null_count for c in columns) or not np.isin(raw["valid"].to_numpy(), (0, 1)).all():
        return False
    (alt, alts), (op_codes, ops) = alt, op
    size, rank = raw["size"].to_numpy(), raw["rank"].to_numpy()
    times = [raw["start_ns"].to_numpy(), raw["end_ns"].to_numpy(), *(x for pair in glob.values() for x in pair)]
    if any(t.min() < -_EXACT_NS or t.max() > _EXACT_NS for t in times):
        return False
    # within a block one op, one size, ranks of one sign (SQL takes any row's and filters rows)
    within = np.ones(rank.size, dtype=bool)
    within[starts] = False
    within = within[1:]
    if (within & ((op_codes[1:] != op_codes[:-1]) | (size[1:] != size[:-1])
                  | ((rank[1:] < 0) != (rank[:-1] < 0)))).any():
        return False
    for codes, names in ((alt[starts], alts), (op_codes[starts], ops)):
        used, first = np.unique(codes, return_index=True)
        if (None in names or len(set(names)) != len(names)
                or not np.array_equal(used[np.argsort(first)], np.arange(len(names)))):
            return False
    keys = (raw["test"].to_numpy()[starts], raw["launch"].to_numpy()[starts], _string_ranks(alts)[alt[starts]])
    if not np.array_equal(np.lexsort(keys), np.arange(starts.size)):
        return False
    return not np.logical_and.reduce([k[1:] == k[:-1] for k in keys]).any()


def _string_ranks(values: list[str]) -> np.ndarray:
    """The position of each value in the sorted distinct values (None last, as pandas sorts a
    missing string): sorting codes by it sorts their strings."""
    order = sorted(set(values), key=lambda v: (v is None, v or ""))
    return np.array([order.index(v) for v in values], dtype=np.int64)


def _median_frame(med_parts: list, alt: np.ndarray, alts: list[str], op_codes: np.ndarray, ops: list[str],
                  size: np.ndarray, launch: np.ndarray) -> pd.DataFrame | None:
    """The rank medians of the blocks, in the order and types of the SQL of rank_launch_medians;
    None when a launch has two tests of one (op, size) (their medians pool repetitions: SQL)."""
    if not med_parts:
        return pd.DataFrame({c: [] for c in RANK_MEDIAN_COLUMNS})
    firsts = np.repeat([lo for lo, _, _, _ in med_parts], [p for _, p, _, _ in med_parts])
    columns = {
        "alternative": np.asarray(alts, dtype=object)[alt[firsts]],
        "op": np.asarray(ops, dtype=object)[op_codes[firsts]],
        "size": size[firsts].astype(np.int64),
        "launch": launch[firsts].astype(np.int32),
        "rank": np.concatenate([r for _, _, r, _ in med_parts]).astype(np.int32),
        "med": np.concatenate([m for _, _, _, m in med_parts]),
    }
    kept = np.nonzero(np.isfinite(columns["med"]))[0]
    if not kept.size:
        # no rank has a valid repetition: pandas takes the strings' type from the values, so the
        # frame of one row, emptied, has the columns' types of the others
        return pd.DataFrame({c: v[:1] for c, v in columns.items()}).iloc[:0]
    # sorted by (alternative, op, size, launch, rank) in numpy: the frame is built once, sorted
    # (pandas' filter, sort and duplicate search were a third of a launch's reduction)
    keys = [columns["rank"], columns["launch"], columns["size"], _string_ranks(ops)[op_codes[firsts]],
            _string_ranks(alts)[alt[firsts]]]
    order = kept[np.lexsort([k[kept] for k in keys])]
    # several tests of one (op, size) in a launch: the median over all their valid repetitions
    if np.logical_and.reduce([k[order][1:] == k[order][:-1] for k in keys]).any():
        return None
    return pd.DataFrame({c: v[order] for c, v in columns.items()})


def repetition_times(raw: pa.Table, con: duckdb.DuckDBPyConnection | None = None, *,
                     fast: bool = True, timed_ranks: TimedRanks | None = None) -> RepetitionTimes:
    """One entry per (alternative, launch, test, rep), grouped by (alternative, launch, test)
    and in repetition order within. ``fast``: try the blocks' fast path first (:func:`_blockwise`);
    ``timed_ranks``: op → the rank whose rows alone make its run time (a round trip's initiator)."""
    if raw.num_rows == 0:
        e = np.array([], dtype=np.int64)
        f = np.array([], dtype=float)
        return RepetitionTimes(alternative=e, alternatives=[], launch=e, test=e, op=e, ops=[], size=e, rep=e,
                               online_ns=f, resync_ns=f, local_ns=f, valid=np.array([], dtype=bool), spread_ns=f,
                               rspread_ns=f)
    if fast:
        quick = _blockwise(raw, timed_ranks=timed_ranks)
        if quick is not None:
            return quick[0]
    own = con is None
    con = connect() if own else con
    con.register("raw", _with_timed_column(raw, timed_ranks))
    t = con.sql(
        f"""
        SELECT alternative, launch, test, any_value(op) AS op, any_value(size) AS size, rep,
               {", ".join(rt.sql() for rt in RUN_TIMES)},
               min(valid) AS valid,
               CASE WHEN min(rank) >= 0 THEN max(gstart_ns) - min(gstart_ns) END AS spread_ns,
               CASE WHEN min(rank) >= 0 THEN max(rgstart_ns) - min(rgstart_ns) END AS rspread_ns
        FROM raw
        GROUP BY alternative, launch, test, rep
        ORDER BY alternative, launch, test, rep
        """
    ).to_arrow_table()
    con.unregister("raw")
    if own:
        con.close()
    alt, alts = _codes(t["alternative"])
    op, ops = _codes(t["op"])
    return RepetitionTimes(
        alternative=alt, alternatives=alts, launch=t["launch"].to_numpy(), test=t["test"].to_numpy(), op=op,
        ops=ops, size=t["size"].to_numpy(), rep=t["rep"].to_numpy(), online_ns=_floats(t["online_ns"]),
        resync_ns=_floats(t["resync_ns"]), local_ns=_floats(t["local_ns"]), valid=t["valid"].to_numpy() == 1,
        spread_ns=_floats(t["spread_ns"]), rspread_ns=_floats(t["rspread_ns"]))


def _with_timed_column(raw: pa.Table, timed_ranks: TimedRanks | None) -> pa.Table:
    """``raw`` with a boolean column ``timed``: false on the rows of a rank other than its
    operation's timed rank (:func:`_timed_rows`: only where that rank has rows in the test)."""
    untimed = pa.array(np.zeros(raw.num_rows, dtype=bool))
    rank = raw["rank"]
    for op, timed_rank in (timed_ranks or {}).items():
        of_op = pc.equal(raw["op"], op)
        if not pc.any(pc.and_(of_op, pc.equal(rank, timed_rank))).as_py():
            continue  # the test has no row of that rank: every rank, as the fast path
        untimed = pc.or_(untimed, pc.and_(of_op, pc.and_(pc.greater_equal(rank, 0), pc.not_equal(rank, timed_rank))))
    return raw.append_column("timed", pc.invert(untimed))


def _rank_medians_sql(raw: pa.Table, con: duckdb.DuckDBPyConnection | None) -> pd.DataFrame:
    own = con is None
    con = connect() if own else con
    con.register("raw_ranks", raw)
    try:
        return con.sql("""
            SELECT alternative, op, size, launch, rank, median(end_ns - start_ns) AS med
            FROM raw_ranks WHERE valid = 1 AND rank >= 0
            GROUP BY alternative, op, size, launch, rank
            ORDER BY alternative, op, size, launch, rank""").df()
    finally:
        con.unregister("raw_ranks")
        if own:
            con.close()


def rank_launch_medians(raw: pa.Table, con: duckdb.DuckDBPyConnection | None = None) -> pd.DataFrame:
    """alternative, op, size, launch, rank, med: the median local duration (end − start) of each
    rank's valid repetitions in each launch (no rows for --raw reduced launches)."""
    return reduce_raw(raw, con)[1]


def reduce_raw(raw: pa.Table, con: duckdb.DuckDBPyConnection | None = None, *,
               timed_ranks: TimedRanks | None = None) -> tuple[RepetitionTimes, pd.DataFrame]:
    """:func:`repetition_times` and :func:`rank_launch_medians` in one pass over the rows."""
    if raw.num_rows == 0:
        return repetition_times(raw), pd.DataFrame({c: [] for c in RANK_MEDIAN_COLUMNS})
    quick = _blockwise(raw, medians=True, timed_ranks=timed_ranks)
    if quick is not None and quick[1] is not None:
        return quick
    reps = quick[0] if quick is not None else repetition_times(raw, con, fast=False, timed_ranks=timed_ranks)
    return reps, _rank_medians_sql(raw, con)


def rank_durations(
    raw: pa.Table, *, alternative: str | None = None, op: str | None = None, size: int | None = None
) -> pd.DataFrame:
    """alternative, launch, test, op, size, rank, rep, duration_ns, valid (``test``: a launch holds
    one test per root, p and work pieces of an (op, size); a fingerprint shows one of them)."""
    mask = None
    for col, val in (("alternative", alternative), ("op", op), ("size", size)):
        if val is not None:
            m = pc.equal(raw[col], val)
            mask = m if mask is None else pc.and_(mask, m)
    t = raw if mask is None else raw.filter(mask)
    dur = pc.subtract(t["end_ns"], t["start_ns"])
    out = pa.table(
        {
            "alternative": t["alternative"],
            "launch": t["launch"],
            "test": t["test"],
            "op": t["op"],
            "size": t["size"],
            "rank": t["rank"],
            "rep": t["rep"],
            "duration_ns": dur,
            "valid": t["valid"],
        }
    )
    return out.to_pandas()
