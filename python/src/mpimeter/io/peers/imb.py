# SPDX-License-Identifier: BSD-3-Clause
"""Intel MPI Benchmarks, IMB-MPI1 output of the 2019–2021 releases (the "MPI-1 part"), and
IMB-RMA's (the "MPI-RMA part", mapped onto mpimeter's rows by :mod:`mpimeter.io.peers.imb_rma`).

The file is a header (date, machine, MPI version, the calling sequence, datatypes), then one
table per benchmark::

    #---------------------------------------------------
    # Benchmarking Allreduce
    # #processes = 2
    #---------------------------------------------------
           #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]
                8         1000         0.33         0.34         0.33

and ``# All processes entering MPI_Finalize`` at the end of a run that finished. What IMB
measures (Hunold & Carpen-Amarie 2016, Table 3 MS2 and Table 4 PS6): each rank times
``#repetitions`` back-to-back calls and divides by their number; the table gives the minimum,
maximum and average of these per-rank means over the ranks. Single-transfer benchmarks
(PingPong) print one time ``t``, half the mean round trip. No per-rank, no per-repetition data:
each test becomes one aggregate, whose headline is ``t_max`` (IMB's basis for bandwidth: the
slowest rank) or ``t``.
"""

from __future__ import annotations

import re

from mpimeter.io.peers import imb_rma
from mpimeter.io.peers.common import Lines, PeerRun, PeerTest, decimal_ns, whole

TOOL = "imb"
LABEL = "IMB"
_TITLE = re.compile(r"^#\s+Intel\(R\) MPI Benchmarks (?P<version>.+?), (?P<part>.+?) part\s*$")
_BENCH = re.compile(r"^# Benchmarking (?P<name>\S+)\s*$")
_PROCS = re.compile(r"^# #processes = (?P<n>\S+)\s*$")
_WAITING = re.compile(r"^# \( \d+ additional processes? waiting in MPI_Barrier\)\s*$")
_KEYVALUE = re.compile(r"^# (?P<key>[^:]+?)\s*:\s*(?P<value>.*?)\s*$")
_RULE = re.compile(r"^#-{10,}\s*$")
_MODE = re.compile(r"^#\s+MODE: (?P<mode>\S+)\s*$")  # IMB-RMA: AGGREGATE | NON-AGGREGATE
_FINALIZE = "# All processes entering MPI_Finalize"
# the versions this parser was written for (their layout); others are refused
_VERSIONS = re.compile(r"^(2019|2021)\b")

# IMB's benchmark names with an mpimeter operation of the same meaning and size (bytes per rank,
# as IMB counts them); the others keep IMB's name ("imb:Exchange").
OPS = {"PingPong": "pingpong-send-recv", "Allreduce": "allreduce", "Bcast": "bcast", "Reduce": "reduce",
       "Allgather": "allgather", "Alltoall": "alltoall", "Gather": "gather", "Scatter": "scatter",
       "Barrier": "barrier"}
_COLUMNS = {"#bytes": "bytes", "#repetitions": "repetitions", "t[usec]": "t", "t_min[usec]": "t_min",
            "t_max[usec]": "t_max", "t_avg[usec]": "t_avg", "Mbytes/sec": "rate", "Msg/sec": "msgrate",
            "defects": "defects"}


def recognise(lines: Lines) -> bool:
    return any(_TITLE.match(lines[i]) for i in range(min(len(lines), 5)))


def parse(lines: Lines) -> PeerRun:
    title = next(((i, m) for i in range(min(len(lines), 5)) if (m := _TITLE.match(lines[i]))), None)
    if title is None:
        raise lines.fail(0, "is not IMB output: no '#    Intel(R) MPI Benchmarks <version>, MPI-1 part' line in its "
                            "first 5 lines")
    index, m = title
    version, part = m["version"], m["part"]
    if part not in ("MPI-1", "MPI-RMA"):
        raise lines.fail(index, f"is IMB's {part} part; only IMB-MPI1 and IMB-RMA output (the MPI-1 and MPI-RMA "
                                "parts) is imported")
    rma = part == "MPI-RMA"
    syncs: dict[str, int] = {}  # IMB-RMA: the --rma-sync mode of each table, first line
    bursts: dict[int, int] = {}  # IMB-RMA's contention tables: #repetitions (mpimeter's --rma-burst), first line
    if not _VERSIONS.match(version):
        raise lines.fail(index, f"is IMB {version}; this importer reads the layout of IMB-MPI1 2019–2021 output")
    lines.check_not_cut(LABEL)
    settings, command, i = _header(lines, index + 1)
    tests: list[PeerTest] = []
    nprocs, waited = None, False  # waited: a table so far ran with other processes waiting
    finished = False
    while i < len(lines):
        text = lines[i]
        if text.startswith(_FINALIZE):
            finished = True
            break
        bench = _BENCH.match(text)
        if bench is None:
            if text.strip() in ("", "#") or _RULE.match(text):
                i += 1
                continue
            raise lines.fail(i, f"unexpected line {text.strip()[:60]!r} between IMB tables (expected '# Benchmarking "
                                "<name>' or '# All processes entering MPI_Finalize')")
        name = bench["name"]
        procs = _PROCS.match(lines[i + 1]) if i + 1 < len(lines) else None
        if procs is None:
            raise lines.fail(i + 1, f"the table of {name} has no '# #processes = N' line")
        n = whole(procs["n"], lines, i + 1, "#processes", minimum=1)
        at, i = i + 1, i + 2
        mode, waiting = None, False
        while i < len(lines) and (_WAITING.match(lines[i]) or _RULE.match(lines[i]) or lines[i].strip() == "#"
                                  or _MODE.match(lines[i])):
            mode = found["mode"] if (found := _MODE.match(lines[i])) else mode
            waiting = waiting or _WAITING.match(lines[i]) is not None
            i += 1
        if nprocs is not None and n != nprocs:
            raise lines.fail(at, f"{name} ran with {n} processes, an earlier table with {nprocs}; a launch has one "
                                 "number of processes: " + _one_count(waited or waiting))
        nprocs, waited = n, waited or waiting
        op = None
        if rma:
            op, sync = imb_rma.map_table(lines, i, name, mode, n)
            syncs.setdefault(sync, i)
        table, i = _table(lines, i, name, op)
        for t in table if rma and imb_rma.is_contention(name) else ():
            bursts.setdefault(t.repetitions, t.line - 1)
        tests += table
    if not finished:
        raise lines.fail(len(lines) - 1, "the IMB output ends before '# All processes entering MPI_Finalize': the "
                                         "run did not finish or the file was cut short")
    if not tests:
        raise lines.fail(i, "holds no benchmark table")
    return PeerRun(
        tool=TOOL, tool_name=f"Intel(R) MPI Benchmarks (IMB-{'RMA' if rma else 'MPI1'})", tool_version=version,
        path=lines.path, sha256=lines.sha256, command=command, date=settings.get("Date"), nprocs=nprocs,
        data="aggregates",
        run_time=("IMB-RMA's t (the origin's mean time of one operation and its flush over #repetitions; "
                  "contention patterns: t x #repetitions, the time of #repetitions rounds and one flush)" if rma else
                  "IMB's t_max (max over ranks of each rank's mean time of #repetitions back-to-back calls); "
                  "ping-pongs: twice IMB's t (its half round trip)"),
        lacks=("per-repetition run times", "per-rank times", "timestamps", "global times"),
        settings=settings, tests=tuple(tests), procsync="none", clocksync="none", timer="wtime", global_times=False,
        mpi_version=f"MPI {settings['MPI Version']}" if settings.get("MPI Version") else None,
        kernel=" ".join(settings[k] for k in ("System", "Release", "Version") if settings.get(k)) or None,
        rma=imb_rma.run_rma(lines, syncs, bursts) if rma else None)


def _one_count(waiting: bool) -> str:
    """What gives tables of one process count. IMB's default runs each collective at 2, 4, …, -np
    processes, which -npmin NP makes -np alone; but a single-transfer benchmark (PingPong,
    PingPing, …) runs on 2 active processes at any -np, the others "waiting in MPI_Barrier" (IMB
    User Guide, "Running Intel(R) MPI Benchmarks"): no -npmin puts it beside a collective on more."""
    if waiting:
        return ("IMB runs its two-process benchmarks on 2 processes whatever -np (the others waiting), so import "
                "them from a 2-process run and the collectives from another (-npmin)")
    return "import output of one process count (IMB -npmin)"


def _header(lines: Lines, i: int) -> tuple[dict[str, str], str | None, int]:
    """The key/value header up to the first table; the calling sequence."""
    settings: dict[str, str] = {}
    command = None
    while i < len(lines) and not _BENCH.match(lines[i]):
        text = lines[i]
        if text.startswith("# Calling sequence was:"):
            j = i + 1
            while j < len(lines) and lines[j].strip() in ("", "#"):
                j += 1
            if j < len(lines) and lines[j].startswith("# ") and not _RULE.match(lines[j]):
                command = lines[j][2:].strip()
                i = j
        elif (m := _KEYVALUE.match(text)) and not text.startswith("# List of"):
            settings[m["key"]] = m["value"]
        i += 1
    return settings, command, i


def _table(lines: Lines, i: int, name: str, rma_op: str | None) -> tuple[list[PeerTest], int]:
    if i >= len(lines):
        raise lines.fail(len(lines) - 1, f"the table of {name} has no column header: the file was cut short")
    columns = lines[i].split()
    unknown = [c for c in columns if c not in _COLUMNS]
    keys = [_COLUMNS.get(c) for c in columns]
    if unknown or "repetitions" not in keys or not {"t", "t_max"} & set(keys):
        raise lines.fail(i, f"the column header of {name} does not parse: {lines[i].strip()!r} (known columns: "
                            f"{', '.join(_COLUMNS)}; #repetitions and t[usec] or t_max[usec] are required)")
    op = rma_op or OPS.get(name, f"{TOOL}:{name}")
    round_trip = name == "PingPong"
    tests = []
    i += 1
    while i < len(lines) and lines[i].strip() and not lines[i].startswith("#"):
        fields = lines[i].split()
        if len(fields) != len(keys):
            raise lines.fail(i, f"a row of {name} has {len(fields)} fields, the header {len(keys)}: a truncated or "
                                "garbled table")
        row = dict(zip(keys, fields))
        size = whole(row["bytes"], lines, i, "#bytes") if "bytes" in row else 0
        if rma_op is not None and name in imb_rma.ELEMENT:
            size = 0  # one element per call: mpimeter's row at size 0 (IMB prints the element's bytes)
        reps = whole(row["repetitions"], lines, i, "#repetitions", minimum=1)
        aggregates = {k: decimal_ns(row[k], 1000, lines, i, f"{k}[usec]")
                      for k in ("t", "t_min", "t_max", "t_avg") if k in row}
        headline = "t_max" if "t_max" in aggregates else "t"
        # IMB-RMA's contention patterns: the whole sample, #repetitions rounds and one flush (mpimeter's
        # timed call at --rma-burst #repetitions)
        value = aggregates[headline] * (2 if round_trip else reps if rma_op and imb_rma.is_contention(name) else 1)
        tests.append(PeerTest(name=name, op=op, size=size, line=i + 1, repetitions=reps, run_times_ns=(value,),
                              valid=(True,), headline=headline, aggregates_ns=aggregates, round_trip=round_trip))
        i += 1
    if not tests:
        raise lines.fail(min(i, len(lines) - 1), f"the table of {name} has no rows: a truncated table")
    return tests, i
