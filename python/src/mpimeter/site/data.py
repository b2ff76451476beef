# SPDX-License-Identifier: BSD-3-Clause
"""What the site shows, read from a results store: campaigns, their alternatives grouped into
series — one machine, one library (with its variant settings) on one number of ranks, over
time — results, and per-launch medians for the gate of each campaign against the one before.

Everything read here is untrusted (a store is a file anyone can write): names are only ever
shown escaped, file names of pages are derived from hashes (:func:`page_name`), and campaign
ids are checked against their pattern before one is used in a path.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from mpimeter.io.rowcheck import MAX_PLAUSIBLE_NS
from mpimeter.resultstore import values
from mpimeter.resultstore.identity import ID_PATTERN
from mpimeter.resultstore.schema import StoreError, relation

_FALLBACK_ID = re.compile(r"m[0-9a-f]{31}")


@dataclass(frozen=True, kw_only=True)
class Series:
    """One machine × library (variant) × ranks × origin: the line a history follows. `origin`
    is the tool an imported campaign came from (meta.json origin.tool: imb, osu, reprompi), ''
    for mpimeter's own launches: IMB's and OSU's numbers of one library are different
    measurements (what a run time is differs, docs/FORMAT.md "Imported launches") and are
    never one history line."""

    machine: str
    library: str
    variant: str
    nprocs: int
    origin: str = ""
    # the Slurm partition(s) the launches ran in (meta.json environment SLURM_JOB_PARTITION),
    # comma-separated; '' outside Slurm. A cluster's partitions are often different hardware
    # under one machine name: each is a history line of its own.
    partition: str = ""

    @property
    def label(self) -> str:
        variant = f" [{self.variant}]" if self.variant else ""
        origin = f" ({self.origin.upper()} import)" if self.origin else ""
        return f"{self.library}{variant}{origin}, {self.nprocs} rank{'s' if self.nprocs != 1 else ''}"

    @property
    def where(self) -> str:
        """The machine, with the partition when the launches ran in one."""
        return f"{self.machine} · partition {self.partition}" if self.partition else self.machine

    @property
    def key(self) -> str:
        # own launches outside Slurm keep their page names
        origin = (self.origin,) if self.origin or self.partition else ()
        partition = (self.partition,) if self.partition else ()
        return page_name("series", self.machine, self.library, self.variant, str(self.nprocs), *origin, *partition)


@dataclass(frozen=True, kw_only=True)
class SiteData:
    store: str
    campaigns: pd.DataFrame  # one row per campaign, oldest first
    alternatives: pd.DataFrame  # with a `series` column (Series)
    results: pd.DataFrame  # with `series`, `first_start`
    medians: pd.DataFrame  # per-launch medians: campaign_id, alternative, op, size, median_ns
    reports: frozenset[str] = field(repr=False)  # the campaigns whose report the store holds (never copied)
    # per (campaign, alternative), the timer resolutions its launches recorded (meta.json
    # timer.resolution_ns): the grid the history's gate counts a slowdown beyond
    timer_resolutions: dict[tuple[str, str], tuple[float, ...]] = field(default_factory=dict, repr=False)

    def series(self) -> list[Series]:
        return sorted(set(self.alternatives["series"]),  # a machine's partitions one after the other
                      key=lambda s: (s.machine, s.partition, s.library, s.variant, s.nprocs, s.origin))

    @cached_property
    def report_positions(self) -> dict[Series, int]:
        """Per series, the position of its alternative in its latest campaign: the report of
        that campaign colours it ALTERNATIVE_COLORS[position] (report.overview)."""
        alts = self.alternatives
        start = dict(zip(self.campaigns["campaign_id"], self.campaigns["first_start"]))
        latest: dict[Series, tuple[str, int]] = {}
        for cid, g in alts.groupby("campaign_id", sort=False):
            for position, s in enumerate(g["series"]):  # the campaign's order, as stored
                when = str(start.get(cid) or "")
                if s not in latest or when >= latest[s][0]:
                    latest[s] = (when, position)
        return {s: position for s, (_, position) in latest.items()}


def page_name(kind: str, *parts: str) -> str:
    """A file-name-safe, collision-free name for what ``parts`` name: a readable ASCII prefix
    and a hash of the exact text."""
    text = "\x1f".join(parts)
    readable = re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")[:40] or kind
    return f"{readable}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"


def campaign_file(campaign_id: str) -> str:
    """The page name of a campaign: its id when it has an id's form, else a hash of it."""
    if ID_PATTERN.fullmatch(campaign_id) or _FALLBACK_ID.fullmatch(campaign_id):
        return campaign_id
    return page_name("campaign", campaign_id)


def load(con, store: str) -> SiteData:
    """Reads everything the site needs from an open store connection; StoreError (one line) for
    a store that lacks a table or column, or holds a value no run produces (resultstore.values)."""
    import duckdb

    try:
        values.check(con, store)
        return _load(con, store)
    except duckdb.Error as exc:
        raise StoreError(f"{store}: cannot be read as a results store: {str(exc).splitlines()[0][:300]}") from None


def _text_none(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a missing text (SQL NULL) as None: pandas' text columns hold NaN for it,
    which is true in ``value or "–"`` and prints "nan" in a page (an imported campaign has no
    CPU, compiler or library version)."""
    frame = frame.copy()
    for column in frame.columns:
        if pd.api.types.is_string_dtype(frame[column]) or frame[column].dtype == object:
            values = frame[column].astype(object)
            frame[column] = values.where(values.notna(), None)
    return frame


def _load(con, store: str) -> SiteData:
    campaigns = con.execute(
        "SELECT campaign_id, name, path, machine, id_source, added, first_start, last_end, alternatives, launches, "
        "command, seed, tool_version, report_source FROM campaigns ORDER BY first_start NULLS LAST, campaign_id").df()
    alternatives = con.execute("SELECT * FROM alternatives").df()
    campaigns = _text_none(campaigns)
    # rows of one root only (a history line is one root's); p per row (NULL: a store row
    # written before results carried it, the alternative's nprocs); mw-workpieces: one row per number
    # of work pieces (NULL: other ops, and rows stored before the column)
    results = con.execute(f"SELECT * FROM {relation(con, 'results')} WHERE root IS NULL OR root = 0").df()
    medians = con.execute("SELECT campaign_id, alternative, op, size, median_ns, nprocs, workpieces FROM "
                          f"{relation(con, 'launch_summaries')} "
                          "WHERE n > 0 AND median_ns IS NOT NULL AND (root IS NULL OR root = 0)").df()
    for frame in (results, medians):
        frame["workpieces"] = pd.array([int(w) if pd.notna(w) else None for w in frame["workpieces"]], dtype=object)
    reports = frozenset(str(cid) for (cid,) in
                        con.execute("SELECT campaign_id FROM campaigns WHERE report IS NOT NULL").fetchall())
    # the tool an imported alternative came from (its launches' meta.json origin.tool)
    origin_of = {(str(cid), str(alt)): str(tool) for cid, alt, tool in con.execute(
        "SELECT campaign_id, alternative, min(json_extract_string(meta, '$.origin.tool')) FROM launches "
        "GROUP BY campaign_id, alternative").fetchall() if tool}
    # the Slurm partitions an alternative's launches ran in (rank 0's environment)
    partition_of = {(str(cid), str(alt)): ",".join(sorted({str(p) for p in parts if p}))
                    for cid, alt, parts in con.execute(
        "SELECT campaign_id, alternative, list(DISTINCT json_extract_string(meta, "
        "'$.environment.SLURM_JOB_PARTITION')) FROM launches GROUP BY campaign_id, alternative").fetchall()}
    machine_of = dict(zip(campaigns["campaign_id"], campaigns["machine"]))
    alt_np = {(c, a): n for c, a, n in zip(alternatives["campaign_id"], alternatives["alternative"],
                                           alternatives["nprocs"])}
    for frame in (results, medians):
        frame["nprocs"] = [n if pd.notna(n) else alt_np.get((c, a)) for c, a, n in
                           zip(frame["campaign_id"], frame["alternative"], frame["nprocs"])]
    alternatives = _text_none(_per_process_count(alternatives, results))
    alternatives["series"] = [
        Series(machine=str(machine_of.get(cid, "?")), library=str(lib or "unknown"), variant=str(var or ""),
               nprocs=int(n) if pd.notna(n) else 0, origin=origin_of.get((str(cid), str(alt)), ""),
               partition=partition_of.get((str(cid), str(alt)), ""))
        for cid, alt, lib, var, n in zip(alternatives["campaign_id"], alternatives["alternative"],
                                         alternatives["library"], alternatives["variant"], alternatives["nprocs"])]
    key = alternatives.set_index(["campaign_id", "alternative"])["series"]
    start = dict(zip(campaigns["campaign_id"], campaigns["first_start"]))
    key = alternatives.set_index(["campaign_id", "alternative", "nprocs"])["series"]
    results["series"] = [key.get((c, a, n)) for c, a, n in
                         zip(results["campaign_id"], results["alternative"], results["nprocs"])]
    results["first_start"] = [start.get(c) for c in results["campaign_id"]]
    results = results[results["series"].notna()].reset_index(drop=True)
    return SiteData(store=store, campaigns=campaigns.reset_index(drop=True), alternatives=alternatives,
                    results=results, medians=medians, reports=reports,
                    timer_resolutions=_timer_resolutions(con, store))


def _timer_resolutions(con, store: str) -> dict[tuple[str, str], tuple[float, ...]]:
    """Per (campaign, alternative), the timer resolutions its launches recorded (those without
    one left out); StoreError for a value no run writes (resultstore.values' bounds of a time)."""
    out: dict[tuple[str, str], list[float]] = {}
    for cid, alt, launch, text in con.execute(
            "SELECT campaign_id, alternative, launch, json_extract(meta, '$.timer.resolution_ns') FROM launches "
            "ORDER BY campaign_id, alternative, launch").fetchall():
        value = None if text is None else json.loads(text)
        if value is None:
            continue
        number = -1.0  # not a number: refused below
        if isinstance(value, float):
            number = value
        elif isinstance(value, int) and not isinstance(value, bool):
            number = float(min(value, 10**300))  # a longer integer would not fit a float
        if not 0 <= number <= MAX_PLAUSIBLE_NS:  # NaN fails too
            raise StoreError(f"{store}: table launches, row (campaign_id {cid!r}, alternative {alt!r}, "
                             f"launch {launch!r}): meta timer.resolution_ns is {str(text)[:40]}; allowed: a time in "
                             f"ns ≥ 0, at most {MAX_PLAUSIBLE_NS:g} (no run produces this value: the store was "
                             "changed by hand)")
        out.setdefault((str(cid), str(alt)), []).append(number)
    return {k: tuple(v) for k, v in out.items()}


def _per_process_count(alternatives: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """One row per alternative and process count its results hold (a --np LIST campaign's
    alternative is one history line per p), with the launches of that p (the most any of its
    results rests on: `run --np 2,4` runs each launch at one p, and the alternative's count is of
    every p); an alternative without results keeps its own."""
    counts: dict[tuple, list] = {}
    launches: dict[tuple, int] = {}
    for c, a, n, k in zip(results["campaign_id"], results["alternative"], results["nprocs"], results["launches"]):
        if pd.notna(n):
            counts.setdefault((c, a), set()).add(int(n))
            launches[c, a, int(n)] = max(launches.get((c, a, int(n)), 0), int(k))
    rows = []
    for _, row in alternatives.iterrows():
        found = sorted(counts.get((row["campaign_id"], row["alternative"]), ()))
        for n in found or [row["nprocs"]]:
            at_p = launches.get((row["campaign_id"], row["alternative"], n)) if len(found) > 1 else None
            rows.append({**row.to_dict(), "nprocs": n, "launches": row["launches"] if at_p is None else at_p})
    return pd.DataFrame(rows, columns=alternatives.columns) if rows else alternatives


def samples(data: SiteData, campaign_id: str, alternative: str, nprocs: int | None = None
            ) -> dict[tuple, np.ndarray]:
    """Per (op, size), the per-launch medians of one alternative of one campaign (at ``nprocs``
    ranks when given: a --np LIST campaign's alternative ran at several). An mw-workpieces row is
    keyed (op, size, (p, None, workpieces)), one key per number of work pieces, as the gate keys a
    slice (analysis.gating.gate_rows), so that its work pieces are never pooled."""
    m = data.medians
    mine = m[(m["campaign_id"] == campaign_id) & (m["alternative"] == alternative)]
    if nprocs is not None:
        mine = mine[mine["nprocs"] == nprocs]
    out: dict[tuple, np.ndarray] = {}
    for (op, size, pieces), g in mine.groupby(["op", "size", mine["workpieces"].map(pieces_order)], sort=True):
        n = g["nprocs"].iloc[0]
        key = (str(op), int(size)) if pieces < 0 else (
            str(op), int(size), (int(n) if pd.notna(n) else 0, None, int(pieces)))
        out[key] = g["median_ns"].to_numpy(dtype=float)
    return out


def pieces_of(value) -> int | None:
    """A stored work-pieces value as an int; None for rows without (every op but mw-workpieces)."""
    return None if value is None or pd.isna(value) else int(value)


def pieces_order(value) -> int:
    """Work pieces as a sort and group key: -1 for rows without."""
    pieces = pieces_of(value)
    return -1 if pieces is None else pieces


def has_pieces(frame: pd.DataFrame, pieces: int | None) -> pd.Series:
    """The rows of ``frame`` (results or medians) at ``pieces`` work pieces (None: rows without)."""
    return frame["workpieces"].map(lambda w: pieces_of(w) == pieces).astype(bool)


def pieces_text(pieces: int | None) -> str:
    """`` · 16 workpieces`` for labels and titles; '' for rows without work pieces."""
    return "" if pieces is None else f" · {pieces} workpieces"
