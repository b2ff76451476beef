# SPDX-License-Identifier: BSD-3-Clause
"""OSU Micro-Benchmarks one-sided tables (``mpi/one-sided``, OSU 5.x to 7.x): one table per run::

    # OSU MPI_Put Latency Test v7.4
    # Window creation: MPI_Win_allocate
    # Synchronization: MPI_Win_flush
    # Datatype: MPI_CHAR.                   (7.x only)
    # Size          Latency (us)
    8                       0.06

The mapping onto mpimeter's ``rma-*`` rows and ``--rma-sync`` modes was read from OSU's sources:
5.3's (``osu_put_latency.c`` … ``osu_get_bw.c``), and 6.1's and 7.4's ``osu_put_latency.c``,
``osu_get_latency.c``, ``osu_put_bw.c``, ``osu_get_bw.c`` and ``print_header_one_sided``, whose
epochs per ``-s`` option are 5.x's (the same MPI calls in the same order around the timestamps).
Rank 0 is the origin, rank 1 the target, on exactly 2 ranks.

- Latency tables: rank 0's mean time per iteration. ``lock`` is lock, op, unlock per iteration
  (OSU takes a shared lock for Put, Get, Accumulate, an exclusive one for Fetch_and_op,
  Compare_and_swap, Get_accumulate: mpimeter's ``lock-shared`` and ``lock``); ``flush`` and
  ``flush_local`` open one shared lock on the target before the loop and time op + flush
  (mpimeter's ``lock-all-flush(-local)``, whose epoch is opened once by ``MPI_Win_lock_all``: the
  timed calls are the same); ``fence`` and ``pscw`` exchange the operation both ways and print half
  an iteration: one epoch of one operation, as mpimeter's ``fence`` / ``pscw`` rows.
- Bandwidth tables print MB/s (10^6 B/s) of a window of operations per epoch; the run time
  imported is the epoch's, size × window / rate, the row ``rma-put-bw`` / ``rma-get-bw`` with
  ``config.rma.burst`` = the window: 32 in OSU 5.0–5.3 (``WINDOW_SIZE_LARGE`` of the test's
  file), 64 in 5.4–5.6 (``WINDOW_SIZE_LARGE`` of ``osu_util.h``, no option changes it); from 5.7
  on ``-W N`` sets it (default 64) and the output does not print it, so ``--osu-window N`` must
  say it (64 unless the run was given ``-W``).
- OSU 6.x/7.x: only the MPI_Put and MPI_Get tables (7.x's accumulate, fetch-and-op and
  compare-and-swap tests loop over datatypes, ``-T``, whose tables are not mapped); 7.x's
  ``# Datatype:`` line must say MPI_CHAR.
- Refused: ``lock_all`` (an ``MPI_Win_lock_all``/``unlock_all`` epoch per operation: no mpimeter
  mode times that), the bi-directional bandwidth (both ranks put at once: no mpimeter row), and
  extra columns (7.x's tail latencies, validation).
"""

from __future__ import annotations

import re
from decimal import Decimal

from mpimeter.io.peers.common import Lines, PeerRun, PeerTest, decimal_ns, plain_decimal, whole

TITLE = re.compile(r"^# OSU MPI_(?P<call>Put|Get|Accumulate|Get_accumulate|Fetch_and_op|Compare_and_swap)"
                   r"(?P<variant>-\S+)? (?P<what>[Ll]atency|Bandwidth|Bi-directional Bandwidth) Test "
                   r"v(?P<version>\d+\.\d+(?:\.\d+)?)\s*$")
_WINDOW = re.compile(r"^# Window creation: (?P<kind>\S+)\s*$")
_SYNC = re.compile(r"^# Synchronization: (?P<sync>\S+)\s*$")
_DATATYPE = re.compile(r"^# Datatype: (?P<type>\S+?)\.?\s*$")
_HEADER = re.compile(r"^# Size\s+(?P<unit>Latency \(us\)|Bandwidth \(MB/s\))\s*$")
BURST = 32  # OSU 5.0-5.3's WINDOW_SIZE_LARGE: operations per epoch of its bandwidth tests
BURST_5_4 = 64  # OSU 5.4-5.6's (osu_util.h), and the default of -W from 5.7 on
# the calls of OSU 6.x/7.x whose tables are mapped (the others take datatypes, -T, in 7.x)
_CALLS_6_7 = ("Put", "Get")
OPS = {"Put": "rma-put", "Get": "rma-get", "Accumulate": "rma-acc", "Get_accumulate": "rma-get-acc",
       "Fetch_and_op": "rma-fop", "Compare_and_swap": "rma-cas"}
BW_OPS = {"Put": "rma-put-bw", "Get": "rma-get-bw"}
# OSU 5.3's lock per call in its -s lock runs
_EXCLUSIVE = ("Fetch_and_op", "Compare_and_swap", "Get_accumulate")
WINDOWS = {"MPI_Win_create": "create", "MPI_Win_allocate": "allocate", "MPI_Win_create_dynamic": "dynamic"}
SYNCS = {"MPI_Win_post/start/complete/wait": "pscw", "MPI_Win_fence": "fence", "MPI_Win_flush": "lock-all-flush",
         "MPI_Win_flush_local": "lock-all-flush-local"}
# one element of MPI_LONG_LONG: mpimeter's fop/cas rows take one element of --datatype at size 0
_ELEMENT = ("Fetch_and_op", "Compare_and_swap")


def recognise(line: str) -> bool:
    return TITLE.match(line) is not None


def _window(lines: Lines, top: int, version: str, bandwidth: bool, window: int | None) -> int:
    """Operations per epoch of the table: 1 for latency tables, the bandwidth tests' window else."""
    major, minor = (int(x) for x in version.split(".")[:2])
    if not bandwidth:
        if window is not None:
            raise lines.fail(top, f"--osu-window {window}: OSU's latency tests time one operation per epoch; give "
                                  "--osu-window with bandwidth tables only")
        return 1
    fixed = BURST if (major, minor) <= (5, 3) else BURST_5_4 if (major, minor) <= (5, 6) else None
    if fixed is not None:
        if window not in (None, fixed):
            raise lines.fail(top, f"--osu-window {window}: OSU {version}'s bandwidth tests put {fixed} operations "
                                  "per epoch, which no option changes; allowed: no --osu-window, or "
                                  f"--osu-window {fixed}")
        return fixed
    if window is None:
        raise lines.fail(top, f"is OSU {version}'s bandwidth test, whose operations per epoch (-W N, default "
                              f"{BURST_5_4}) the output does not print; give --osu-window N ({BURST_5_4} unless "
                              "the run was given -W)")
    return window


def parse(lines: Lines, top: int, *, nprocs: int | None, window: int | None = None) -> PeerRun:
    m = TITLE.match(lines[top])
    assert m is not None
    call, version, what = m["call"], m["version"], m["what"].lower()
    major = version.split(".")[0]
    if major not in ("5", "6", "7"):
        raise lines.fail(top, f"is OSU {version}'s one-sided test; this importer maps the epochs of OSU 5.x to "
                              "7.x's one-sided tests (read from their sources) and no other version's")
    if major != "5" and call not in _CALLS_6_7:
        raise lines.fail(top, f"is OSU {version}'s MPI_{call} test; of OSU 6.x/7.x's one-sided tests only the "
                              "MPI_Put and MPI_Get tables are mapped (7.x's others loop over datatypes, -T, "
                              "whose tables this importer has not read)")
    if m["variant"]:
        raise lines.fail(top, f"is the OSU MPI{m['variant']} variant; only host-memory MPI tests are imported")
    if what == "bi-directional bandwidth":
        raise lines.fail(top, f"is OSU's MPI_{call} bi-directional bandwidth test (both ranks write at once); "
                              "mpimeter has no such row")
    bandwidth = what == "bandwidth"
    if nprocs not in (None, 2):
        raise lines.fail(top, f"OSU's one-sided tests run on exactly 2 ranks; --np {nprocs} contradicts it")
    lines.check_not_cut("OSU")
    # the datatype of OSU 5.3's calls (not printed): MPI_CHAR, one MPI_LONG_LONG for fop and cas
    # (mpimeter has no long long: config.datatype stays null for them)
    settings = {"test": f"MPI_{call} {m['what']}",
                "Datatype (from the source)": "MPI_LONG_LONG" if call in _ELEMENT else "MPI_CHAR"}
    i = top + 1
    window_kind = _header_line(lines, i, _WINDOW, "# Window creation: <call>")
    settings["Window creation"] = window_kind
    sync = _header_line(lines, i + 1, _SYNC, "# Synchronization: <calls>")
    settings["Synchronization"] = sync
    if window_kind not in WINDOWS:
        raise lines.fail(i, f"window creation {window_kind!r} is not one of {', '.join(WINDOWS)}")
    if sync == "MPI_Win_lock/unlock":
        mode = "lock" if call in _EXCLUSIVE else "lock-shared"
    elif sync in SYNCS:
        mode = SYNCS[sync]
    elif sync == "MPI_Win_lock_all/unlock_all":
        raise lines.fail(i + 1, "OSU's lock_all synchronization times an MPI_Win_lock_all/unlock_all epoch per "
                                "operation; no mpimeter --rma-sync mode times that (lock-all-flush opens it once)")
    else:
        raise lines.fail(i + 1, f"synchronization {sync!r} is not one OSU prints ({', '.join(SYNCS)}, "
                                "MPI_Win_lock/unlock, MPI_Win_lock_all/unlock_all)")
    h_at = i + 2
    # OSU 7.x prints the datatype of the calls (MPI_Type_get_name) before the column header
    d = _DATATYPE.match(lines[h_at]) if major != "5" and h_at < len(lines) else None
    if d is not None:
        if d["type"] != "MPI_CHAR":
            raise lines.fail(h_at, f"datatype {d['type']}: OSU's MPI_{call} tests move MPI_CHAR; this table is "
                                   "not one whose sizes are known")
        settings["Datatype"] = d["type"]
        h_at += 1
    header = lines[h_at] if h_at < len(lines) else ""
    h = _HEADER.match(header)
    if h is None or (h["unit"].startswith("Bandwidth") != bandwidth):
        raise lines.fail(min(h_at, len(lines) - 1), f"the column header does not parse: {header.strip()!r} "
                         f"(expected '# Size  {'Bandwidth (MB/s)' if bandwidth else 'Latency (us)'}'; extra "
                         "columns such as tail latencies or validation are not imported)")
    if bandwidth and call not in BW_OPS:
        raise lines.fail(top, f"is OSU's MPI_{call} bandwidth test; mpimeter has bandwidth rows for "
                              f"{', '.join(BW_OPS)} only")
    op = BW_OPS[call] if bandwidth else OPS[call]
    burst = _window(lines, top, version, bandwidth, window)
    if bandwidth:
        settings["Window size (operations per epoch)"] = str(burst)
    tests = [_row(lines, j, op, call, bandwidth, burst) for j in range(h_at + 1, len(lines)) if lines[j].strip()]
    if not tests:
        raise lines.fail(len(lines) - 1, "the OSU table has no rows: the run did not get to its first size")
    if bandwidth:
        run_time = (f"one epoch of {burst} back-to-back operations, size x {burst} / OSU's bandwidth "
                    "(rank 0's MB/s over its timed iterations)")
    else:
        run_time = "OSU's latency (rank 0's mean time per iteration; fence and pscw: half an exchange, one epoch)"
    lacks = ("per-repetition run times", "per-rank times", "timestamps", "global times", "the target's times")
    rma = {"sync": mode, "window": WINDOWS[window_kind], "burst": burst, "window_bytes": None}
    return PeerRun(
        tool="osu", tool_name="OSU Micro-Benchmarks", tool_version=version, path=lines.path, sha256=lines.sha256,
        command=None, date=None, nprocs=2, data="aggregates", run_time=run_time, lacks=lacks, settings=settings,
        tests=tuple(tests), procsync="none", clocksync="none", timer="wtime", global_times=False, rma=rma,
        datatype=None if call in _ELEMENT else "char")


def _header_line(lines: Lines, i: int, pattern: re.Pattern[str], expected: str) -> str:
    m = pattern.match(lines[i]) if i < len(lines) else None
    if m is None:
        raise lines.fail(min(i, len(lines) - 1), f"expected '{expected}' here, found "
                                                 f"{(lines[i] if i < len(lines) else '').strip()[:60]!r}")
    return m.group(1)


def _row(lines: Lines, j: int, op: str, call: str, bandwidth: bool, burst: int) -> PeerTest:
    text = lines[j]
    if text.startswith("#"):
        raise lines.fail(j, f"unexpected line {text.strip()[:60]!r} after the table: one file holds one OSU run")
    fields = text.split()
    if len(fields) != 2:
        raise lines.fail(j, f"a row has {len(fields)} fields, the header 2: a truncated or garbled table")
    size = whole(fields[0], lines, j, "Size")
    if call in _ELEMENT:
        if size != 8:
            raise lines.fail(j, f"size {size}: OSU's MPI_{call} test moves one MPI_LONG_LONG (8 bytes)")
        size = 0  # mpimeter's row: one element of --datatype, one test at size 0
    if not bandwidth:
        ns = decimal_ns(fields[1], 1000, lines, j, "latency")
        return PeerTest(name=f"MPI_{call}", op=op, size=size, line=j + 1, repetitions=None, run_times_ns=(ns,),
                        valid=(True,), headline="avg", aggregates_ns={"avg": ns})
    rate = plain_decimal(fields[1])
    if rate is None:
        raise lines.fail(j, f"bandwidth {fields[1]!r} is not a number")
    if not rate.is_finite() or rate <= 0 or size == 0:
        raise lines.fail(j, f"bandwidth {fields[1]!r} at size {size}: an epoch time needs a rate > 0 and a size > 0")
    # MB/s = 10^6 B/s = B/us: the epoch of burst operations takes size * burst / rate microseconds
    ns = decimal_ns(str(Decimal(size * burst) / rate), 1000, lines, j, "epoch time")
    return PeerTest(name=f"MPI_{call}", op=op, size=size, line=j + 1, repetitions=None, run_times_ns=(ns,),
                    valid=(True,), headline="epoch", aggregates_ns={"epoch": ns})
