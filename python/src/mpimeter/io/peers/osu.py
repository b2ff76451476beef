# SPDX-License-Identifier: BSD-3-Clause
"""OSU Micro-Benchmarks latency tables, versions 5.x to 7.x: one table per run (one file)::

    # OSU MPI Allreduce Latency Test v7.4
    # Datatype: MPI_CHAR.                                         (7.x only)
    # Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations      (-f)
    8                       0.58              0.56              0.60        1000

What OSU measures (Hunold & Carpen-Amarie 2016, Table 3 MS1 and Table 4 PS3): per iteration a
barrier, then the timed call; each rank's mean over the iterations; ``Avg`` is the mean of the
per-rank means over the ranks, ``Min``/``Max`` (with ``-f``) their minimum and maximum; 7.x's
``-z`` adds percentiles of the per-iteration times (``P50 Tail Lat(us)``: aggregate ``p50``).
``osu_latency`` (``# OSU MPI Latency Test``; 5.x prints ``Latency (us)``) is a ping-pong
between two ranks: rank 0's mean round trip, halved. Only latency tables are imported (not
bandwidth or message-rate tables, nor the non-blocking tests' overlap columns); the one-sided
tests' tables (latency and bandwidth) are read by :mod:`mpimeter.io.peers.osu_rma`. OSU does not
print how many ranks ran its collectives: ``mpimeter import osu --np N`` says it.
"""

from __future__ import annotations

import re

from mpimeter.io.peers import osu_rma
from mpimeter.io.peers.common import Lines, PeerRun, PeerTest, decimal_ns, split_columns, whole

TOOL = "osu"
LABEL = "OSU"
_TITLE = re.compile(r"^# OSU MPI(?P<variant>-\S+)? (?P<name>.+?) Test v(?P<version>\d+\.\d+(?:\.\d+)?)\s*$")
_DATATYPE = re.compile(r"^# Datatype: (?P<type>\S+?)\.?\s*$")
_MAJORS = ("5", "6", "7")
# the test names of OSU's latency tables → mpimeter operations of the same meaning and size
OPS = {"Latency": "pingpong-send-recv", "Allreduce Latency": "allreduce", "Broadcast Latency": "bcast",
       "Reduce Latency": "reduce", "Allgather Latency": "allgather", "All-to-All Latency": "alltoall",
       "Alltoall Latency": "alltoall", "Gather Latency": "gather", "Scatter Latency": "scatter",
       "Barrier Latency": "barrier"}
_COLUMNS = {"Size": "size", "Avg Latency(us)": "avg", "Latency (us)": "avg", "Min Latency(us)": "min",
            "Max Latency(us)": "max", "Iterations": "iterations"}
# 7.x's -z: percentiles of the per-iteration times (osu_latency: rank 0's one-way, round trip / 2;
# collectives: the mean over ranks per iteration), "P50 Tail Lat(us)" → aggregate "p50"
_TAIL = re.compile(r"^P(?P<pct>[1-9][0-9]?) Tail Lat\(us\)$")


def _column_key(name: str) -> str | None:
    tail = _TAIL.match(name)
    return f"p{tail['pct']}" if tail else _COLUMNS.get(name)


def _first(lines: Lines) -> int:
    """OSU prints an empty line before its title."""
    return next((i for i in range(len(lines)) if lines[i].strip()), 0)


def recognise(lines: Lines) -> bool:
    if len(lines) == 0:
        return False
    title = lines[_first(lines)]
    return _TITLE.match(title) is not None or osu_rma.recognise(title)


def parse(lines: Lines, *, nprocs: int | None = None, window: int | None = None) -> PeerRun:
    """``window``: the operations per epoch of a one-sided bandwidth test (``--osu-window``,
    OSU's ``-W``), which OSU 5.7 and later do not print; only those tables take it."""
    top = _first(lines)
    if len(lines) and osu_rma.recognise(lines[top]):
        return osu_rma.parse(lines, top, nprocs=nprocs, window=window)
    m = _TITLE.match(lines[top]) if len(lines) else None
    if m is None:
        raise lines.fail(top, "is not OSU output: the first line is not '# OSU MPI <test> Test v<version>'")
    if window is not None:
        raise lines.fail(top, f"--osu-window {window}: only OSU's one-sided bandwidth tables take it; this is OSU's "
                              f"{m['name']} test")
    name, version = m["name"], m["version"]
    if version.split(".")[0] not in _MAJORS:
        raise lines.fail(top, f"is OSU {version}; this importer reads the latency tables of OSU 5.x to 7.x")
    if m["variant"]:
        raise lines.fail(top, f"is the OSU MPI{m['variant']} variant; only host-memory MPI tests are imported")
    if not name.endswith("Latency"):
        raise lines.fail(top, f"is OSU's {name} test; only latency tables (run times) are imported, not bandwidths "
                            "or message rates")
    lines.check_not_cut(LABEL)
    settings = {"test": name}
    i = top + 1
    if i < len(lines) and (d := _DATATYPE.match(lines[i])):
        settings["Datatype"] = d["type"]
        i += 1
    if i >= len(lines):
        raise lines.fail(len(lines) - 1, "the OSU output ends before its column header: the file was cut short")
    header = lines[i]
    columns = split_columns(header.lstrip("#").strip()) if header.startswith("#") else []
    keys = [_column_key(c) for c in columns]
    if not columns or None in keys or "avg" not in keys:
        raise lines.fail(i, f"the column header does not parse: {header.strip()!r} (known columns: "
                            f"{', '.join(_COLUMNS)}, P<1-99> Tail Lat(us); an average latency is required)")
    round_trip = name == "Latency"
    if round_trip:
        if nprocs not in (None, 2):
            raise lines.fail(top, f"osu_latency runs on exactly 2 ranks; --np {nprocs} contradicts it")
        nprocs = 2
    op = OPS.get(name, f"{TOOL}:{name}")
    tests = []
    for j in range(i + 1, len(lines)):
        text = lines[j]
        if not text.strip():
            continue
        if text.startswith("#"):
            raise lines.fail(j, f"unexpected line {text.strip()[:60]!r} after the table: one file holds one OSU run")
        fields = text.split()
        if len(fields) != len(keys):
            raise lines.fail(j, f"a row has {len(fields)} fields, the header {len(keys)}: a truncated or garbled "
                                "table")
        row = dict(zip(keys, fields))
        size = whole(row["size"], lines, j, "Size") if "size" in row else 0
        aggregates = {k: decimal_ns(row[k], 1000, lines, j, f"{k} latency") for k in keys
                      if k not in ("size", "iterations")}
        reps = whole(row["iterations"], lines, j, "Iterations", minimum=1) if "iterations" in row else None
        value = aggregates["avg"] * (2 if round_trip else 1)
        tests.append(PeerTest(name=name, op=op, size=size, line=j + 1, repetitions=reps, run_times_ns=(value,),
                              valid=(True,), headline="avg", aggregates_ns=aggregates, round_trip=round_trip))
    if not tests:
        raise lines.fail(len(lines) - 1, "the OSU table has no rows: the run did not get to its first size")
    lacks = ["per-repetition run times", "per-rank times", "timestamps", "global times", "the number of ranks"]
    if nprocs is not None:
        lacks.remove("the number of ranks")
    if round_trip:
        run_time = "twice OSU's average latency (rank 0's mean round trip; OSU prints half of it)"
    else:
        run_time = "OSU's average latency (mean over ranks of each rank's mean time per iteration)"
    return PeerRun(
        tool=TOOL, tool_name="OSU Micro-Benchmarks", tool_version=version, path=lines.path, sha256=lines.sha256,
        command=None, date=None, nprocs=nprocs, data="aggregates", run_time=run_time, lacks=tuple(lacks),
        settings=settings, tests=tuple(tests), procsync="none" if round_trip else "barrier", clocksync="none",
        timer="wtime", global_times=False)
