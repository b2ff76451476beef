# SPDX-License-Identifier: BSD-3-Clause
"""ReproMPI (``mpibenchmark``) output: a ``#`` preamble (command line, calls, sizes), the ``#@``
header of ``key=value`` facts, then either per-measurement rows (the default) or summary rows
(``--summary``), and the two trailer lines ``# Benchmark started at …`` and ``# Execution
time: …`` of a run that finished.

Per-measurement rows, one per repetition (Hunold & Carpen-Amarie 2016, §3 and Algorithm 3)::

    test nrep count runtime_sec                       (barrier or other process syncs)
    test nrep count errorcode runtime_sec             (window sync: errorcode ≠ 0 = invalid)

``runtime_sec`` is, per repetition, the maximum over ranks of the local run times
(``#@runtime_type=local``) or max end − min start on the global clock (``global``). Summary rows
(``test count total_nrep valid_nrep`` then ``mean_sec``, ``median_sec``, ``min_sec``, ``max_sec``
as asked) are statistics of those run times over the valid repetitions. The column ``count`` is
in elements of ``#@datatype``: sizes in bytes are count × ``#@datatype_size_bytes`` (builds that
print ``msize_bytes`` give bytes). Per-process rows (``--verbose``) are refused: this importer
does not read them.
"""

from __future__ import annotations

import re

from mpimeter.io.peers.common import Lines, PeerRun, PeerTest, decimal_ns, whole

TOOL = "reprompi"
LABEL = "ReproMPI"
_ARGS = "#Command-Line Arguments:"
_KEY = re.compile(r"^#@(?P<key>[A-Za-z0-9_]+)=(?P<value>.*?)\s*$")
_TRAILER = ("# Benchmark started at", "# Execution time:")
_REQUIRED = ("nprocs", "nrep", "runtime_type", "procsync", "clocksync")
OPS = {"MPI_Allreduce": "allreduce", "MPI_Bcast": "bcast", "MPI_Reduce": "reduce", "MPI_Allgather": "allgather",
       "MPI_Alltoall": "alltoall", "MPI_Gather": "gather", "MPI_Scatter": "scatter", "MPI_Barrier": "barrier",
       "MPI_Scan": "scan", "MPI_Exscan": "exscan", "MPI_Reduce_scatter_block": "reduce_scatter_block"}
# ReproMPI's process and clock syncs → mpimeter's names (the same methods); others are kept as given
_PROCSYNC = {"MPI_Barrier": "barrier", "window": "window", "roundtime": "roundtime", "Dissem_Barrier": "barrier"}
_CLOCKSYNC = {"HCA3O": "hca3o", "HCA3": "hca3", "HCA2": "hca2", "HCA": "hca", "JK": "jk", "SKaMPI": "skampi",
              "None": "none", "no": "none"}
_CLOCKS = {"MPI_Wtime": "wtime", "RDTSC": "tsc", "RDTSCP": "tsc", "clock_gettime": "monotonic"}
_SUMMARY = ("mean", "median", "min", "max")


def recognise(lines: Lines) -> bool:
    return len(lines) > 0 and lines[0].startswith(_ARGS)


def parse(lines: Lines) -> PeerRun:
    if not recognise(lines):
        raise lines.fail(0, f"is not ReproMPI output: the first line does not start with {_ARGS!r}")
    lines.check_not_cut(LABEL)
    command = lines[0][len(_ARGS):].strip() or None
    header: dict[str, str] = {}
    i = 1
    while i < len(lines) and lines[i].startswith("#"):
        if m := _KEY.match(lines[i]):
            header[m["key"]] = m["value"]
        elif lines[i].startswith("#@"):
            raise lines.fail(i, f"the header line {lines[i].strip()[:60]!r} does not parse (expected #@key=value)")
        i += 1
    missing = [k for k in _REQUIRED if k not in header]
    if missing:
        raise lines.fail(i - 1, f"the #@ header lacks {', '.join('#@' + k for k in missing)}")
    nprocs = whole(header["nprocs"], lines, _line_of(lines, "nprocs"), "#@nprocs", minimum=1)
    nrep = whole(header["nrep"], lines, _line_of(lines, "nrep"), "#@nrep", minimum=1)
    runtime_type = header["runtime_type"]
    if runtime_type not in ("local", "global"):
        raise lines.fail(_line_of(lines, "runtime_type"), f"#@runtime_type={runtime_type!r}: expected local or global")
    if i >= len(lines):
        raise lines.fail(len(lines) - 1, "the ReproMPI output ends after its header: the file was cut short")
    columns = lines[i].split()
    width = 1
    if "datatype_size_bytes" in header:
        width = whole(header["datatype_size_bytes"], lines, _line_of(lines, "datatype_size_bytes"),
                      "#@datatype_size_bytes", minimum=1)
    if columns and columns[0] == "process":
        raise lines.fail(i, "per-process rows (mpibenchmark --verbose) are not imported; import the default "
                            "per-measurement or the --summary output")
    if columns[:2] == ["test", "nrep"]:
        data = "repetitions"
        tests, end = _measurements(lines, i, columns, nrep, width)
    elif columns[:1] == ["test"] and columns[2:4] == ["total_nrep", "valid_nrep"]:
        data = "aggregates"
        tests, end = _summaries(lines, i, columns, width)
    else:
        raise lines.fail(i, f"the column header does not parse: {lines[i].strip()!r} (expected 'test nrep count "
                            "[errorcode] runtime_sec' or the --summary header 'test count total_nrep valid_nrep …')")
    _trailer(lines, end)
    clock = "global clock (max end − min start)" if runtime_type == "global" else "max over ranks of local durations"
    if data == "repetitions":
        run_time = f"ReproMPI's runtime_sec of each repetition: {clock}"
        lacks = ("per-rank times", "timestamps")
    else:
        run_time = f"ReproMPI's --summary {tests[0].headline} over valid repetitions of the {clock}"
        lacks = ("per-repetition run times", "per-rank times", "timestamps")
    return PeerRun(
        tool=TOOL, tool_name="ReproMPI (mpibenchmark)", tool_version=_version(header),
        path=lines.path, sha256=lines.sha256, command=command, date=_started(lines), nprocs=nprocs, data=data,
        run_time=run_time, lacks=lacks, settings=header, tests=tuple(tests),
        procsync=_PROCSYNC.get(header["procsync"], header["procsync"]),
        clocksync=_CLOCKSYNC.get(header["clocksync"], header["clocksync"]),
        timer=_CLOCKS.get(header.get("clock", ""), header.get("clock", "unknown")),
        global_times=runtime_type == "global")


def _version(header: dict[str, str]) -> str | None:
    """ReproMPI prints the git commit it was built from, or 'unknown'."""
    sha = header.get("reproMPIcommitSHA1", "unknown")
    return None if sha in ("", "unknown") else f"commit {sha}"


def _line_of(lines: Lines, key: str) -> int:
    return next((i for i in range(len(lines)) if lines[i].startswith(f"#@{key}=")), 0)


def _table_rows(lines: Lines, header: int, width: int) -> tuple[list[tuple[int, list[str]]], int]:
    """The rows after the column header at ``header`` up to the first '#' line: (line index,
    fields) each with ``width`` fields; and the index where the table ends."""
    rows = []
    j = header + 1
    while j < len(lines) and not lines[j].startswith("#"):
        fields = lines[j].split()
        if fields:
            if len(fields) != width:
                raise lines.fail(j, f"a row has {len(fields)} fields, the header {width}: a truncated or garbled table")
            rows.append((j, fields))
        j += 1
    return rows, j


def _size(text: str, column: str, width: int, lines: Lines, index: int) -> int:
    value = whole(text, lines, index, column)
    return value if column == "msize_bytes" else value * width


def _measurements(lines: Lines, i: int, columns: list[str], nrep: int, width: int) -> tuple[list[PeerTest], int]:
    window = columns[3:4] == ["errorcode"]
    expect = ["test", "nrep", columns[2], *(["errorcode"] if window else []), "runtime_sec"]
    if columns != expect or columns[2] not in ("count", "msize_bytes"):
        raise lines.fail(i, f"the column header does not parse: {' '.join(columns)!r}")
    tests: list[PeerTest] = []
    rows: list[tuple[int, bool]] = []
    first = None
    key = None
    table, j = _table_rows(lines, i, len(columns))
    for k, fields in table:
        name, rep = fields[0], whole(fields[1], lines, k, "nrep")
        size = _size(fields[2], columns[2], width, lines, k)
        if rep == 0:
            if key is not None:
                tests.append(_test(lines, first, key, rows, nrep))
            key, first, rows = (name, size), k, []
        elif key != (name, size) or rep != len(rows):
            raise lines.fail(k, f"expected repetition {len(rows)} of {key[0] if key else '?'}, found {name} {rep}: "
                                "rows out of order or missing")
        code = whole(fields[3], lines, k, "errorcode") if window else 0
        rows.append((decimal_ns(fields[-1], 10**9, lines, k, "runtime_sec"), code == 0))
    if key is None:
        raise lines.fail(min(j, len(lines) - 1), "the ReproMPI table has no rows")
    tests.append(_test(lines, first, key, rows, nrep))
    return tests, j


def _test(lines: Lines, first: int, key: tuple[str, int], rows: list[tuple[int, bool]], nrep: int) -> PeerTest:
    name, size = key
    if len(rows) != nrep:
        raise lines.fail(first + len(rows), f"{name} {size} B has {len(rows)} repetitions, the header says "
                                            f"#@nrep={nrep}: a truncated table")
    return PeerTest(name=name, op=OPS.get(name, f"{TOOL}:{name}"), size=size, line=first + 1, repetitions=nrep,
                    run_times_ns=tuple(t for t, _ in rows), valid=tuple(v for _, v in rows),
                    valid_repetitions=sum(v for _, v in rows))


def _summaries(lines: Lines, i: int, columns: list[str], width: int) -> tuple[list[PeerTest], int]:
    stats = [c[:-4] for c in columns[4:] if c.endswith("_sec")]
    if columns[1] not in ("count", "msize_bytes") or len(stats) != len(columns) - 4 or not stats \
            or any(s not in _SUMMARY for s in stats):
        raise lines.fail(i, f"the summary header does not parse: {' '.join(columns)!r} (statistics allowed: "
                            f"{', '.join(s + '_sec' for s in _SUMMARY)})")
    headline = "median" if "median" in stats else stats[0]
    tests = []
    table, j = _table_rows(lines, i, len(columns))
    for k, fields in table:
        name = fields[0]
        size = _size(fields[1], columns[1], width, lines, k)
        total = whole(fields[2], lines, k, "total_nrep", minimum=1)
        valid = whole(fields[3], lines, k, "valid_nrep")
        if valid > total:
            raise lines.fail(k, f"valid_nrep {valid} exceeds total_nrep {total}")
        aggregates = {s: decimal_ns(v, 10**9, lines, k, f"{s}_sec") for s, v in zip(stats, fields[4:])}
        tests.append(PeerTest(name=name, op=OPS.get(name, f"{TOOL}:{name}"), size=size, line=k + 1, repetitions=total,
                              run_times_ns=(aggregates[headline],), valid=(valid > 0,), headline=headline,
                              aggregates_ns=aggregates, valid_repetitions=valid))
    if not tests:
        raise lines.fail(min(j, len(lines) - 1), "the ReproMPI summary has no rows")
    return tests, j


def _trailer(lines: Lines, j: int) -> None:
    rest = [k for k in range(j, len(lines)) if lines[k].strip()]
    found = [any(lines[k].startswith(t) for k in rest) for t in _TRAILER]
    if not all(found):
        raise lines.fail(len(lines) - 1, "the ReproMPI output ends without '# Benchmark started at …' and '# "
                                         "Execution time: …': the run did not finish or the file was cut short")
    for k in rest:
        if not any(lines[k].startswith(t) for t in _TRAILER):
            raise lines.fail(k, f"unexpected line {lines[k].strip()[:60]!r} after the ReproMPI table")


def _started(lines: Lines) -> str | None:
    for k in range(len(lines) - 1, max(len(lines) - 5, -1), -1):
        if lines[k].startswith(_TRAILER[0]):
            return lines[k][len(_TRAILER[0]):].strip()
    return None
