"""OSU Micro-Benchmarks one-sided tables (``mpi/one-sided``, OSU 5.x): one table per run::

    # OSU MPI_Put Latency Test v5.3
    # Window creation: MPI_Win_allocate
    # Synchronization: MPI_Win_flush
    # Size            Latency (us)
    8                         0.06

The mapping onto mpimeter's ``rma-*`` rows and ``--rma-sync`` modes was read from OSU 5.3's
sources (``osu_put_latency.c`` … ``osu_get_bw.c``); other major versions are refused rather than
assumed to time the same epochs. Rank 0 is the origin, rank 1 the target, on exactly 2 ranks.

- Latency tables: rank 0's mean time per iteration. ``lock`` is lock, op, unlock per iteration
  (OSU takes a shared lock for Put, Get, Accumulate, an exclusive one for Fetch_and_op,
  Compare_and_swap, Get_accumulate: mpimeter's ``lock-shared`` and ``lock``); ``flush`` and
  ``flush_local`` open one shared lock on the target before the loop and time op + flush
  (mpimeter's ``lock-all-flush(-local)``, whose epoch is opened once by ``MPI_Win_lock_all``: the
  timed calls are the same); ``fence`` and ``pscw`` exchange the operation both ways and print half
  an iteration: one epoch of one operation, as mpimeter's ``fence`` / ``pscw`` rows.
- Bandwidth tables print MB/s (10^6 B/s) of 32 operations per epoch (OSU's window); the run time
  imported is the epoch's, size × 32 / rate, the row ``rma-put-bw`` / ``rma-get-bw`` with
  ``config.rma.burst`` 32.
- Refused: ``lock_all`` (an ``MPI_Win_lock_all``/``unlock_all`` epoch per operation: no mpimeter
  mode times that) and the bi-directional bandwidth (both ranks put at once: no mpimeter row).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from mpimeter.io.peers.common import Lines, PeerRun, PeerTest, decimal_ns, whole

TITLE = re.compile(r"^# OSU MPI_(?P<call>Put|Get|Accumulate|Get_accumulate|Fetch_and_op|Compare_and_swap)"
                   r"(?P<variant>-\S+)? (?P<what>[Ll]atency|Bandwidth|Bi-directional Bandwidth) Test "
                   r"v(?P<version>\d+\.\d+(?:\.\d+)?)\s*$")
_WINDOW = re.compile(r"^# Window creation: (?P<kind>\S+)\s*$")
_SYNC = re.compile(r"^# Synchronization: (?P<sync>\S+)\s*$")
_HEADER = re.compile(r"^# Size\s+(?P<unit>Latency \(us\)|Bandwidth \(MB/s\))\s*$")
BURST = 32  # OSU 5.3's WINDOW_SIZE_LARGE: operations per epoch of its bandwidth tests
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


def parse(lines: Lines, top: int, *, nprocs: int | None) -> PeerRun:
    m = TITLE.match(lines[top])
    assert m is not None
    call, version, what = m["call"], m["version"], m["what"].lower()
    if version.split(".")[0] != "5":
        raise lines.fail(top, f"is OSU {version}'s one-sided test; this importer maps the epochs of OSU 5.x's "
                              "one-sided tests (read from their source) and no other version's")
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
    window = _header_line(lines, i, _WINDOW, "# Window creation: <call>")
    settings["Window creation"] = window
    sync = _header_line(lines, i + 1, _SYNC, "# Synchronization: <calls>")
    settings["Synchronization"] = sync
    if window not in WINDOWS:
        raise lines.fail(i, f"window creation {window!r} is not one of {', '.join(WINDOWS)}")
    if sync == "MPI_Win_lock/unlock":
        mode = "lock" if call in _EXCLUSIVE else "lock-shared"
    elif sync in SYNCS:
        mode = SYNCS[sync]
    elif sync == "MPI_Win_lock_all/unlock_all":
        raise lines.fail(i + 1, "OSU's lock_all synchronization times an MPI_Win_lock_all/unlock_all epoch per "
                                "operation; no mpimeter --rma-sync mode times that (lock-all-flush opens it once)")
    else:
        raise lines.fail(i + 1, f"synchronization {sync!r} is not one OSU 5.x prints ({', '.join(SYNCS)}, "
                                "MPI_Win_lock/unlock, MPI_Win_lock_all/unlock_all)")
    header = lines[i + 2] if i + 2 < len(lines) else ""
    h = _HEADER.match(header)
    if h is None or (h["unit"].startswith("Bandwidth") != bandwidth):
        raise lines.fail(min(i + 2, len(lines) - 1), f"the column header does not parse: {header.strip()!r} "
                         f"(expected '# Size  {'Bandwidth (MB/s)' if bandwidth else 'Latency (us)'}')")
    if bandwidth and call not in BW_OPS:
        raise lines.fail(top, f"is OSU's MPI_{call} bandwidth test; mpimeter has bandwidth rows for "
                              f"{', '.join(BW_OPS)} only")
    op = BW_OPS[call] if bandwidth else OPS[call]
    tests = [_row(lines, j, op, call, bandwidth) for j in range(i + 3, len(lines)) if lines[j].strip()]
    if not tests:
        raise lines.fail(len(lines) - 1, "the OSU table has no rows: the run did not get to its first size")
    if bandwidth:
        run_time = (f"one epoch of {BURST} back-to-back operations, size x {BURST} / OSU's bandwidth "
                    "(rank 0's MB/s over its timed iterations)")
    else:
        run_time = "OSU's latency (rank 0's mean time per iteration; fence and pscw: half an exchange, one epoch)"
    lacks = ("per-repetition run times", "per-rank times", "timestamps", "global times", "the target's times")
    rma = {"sync": mode, "window": WINDOWS[window], "burst": BURST if bandwidth else 1, "window_bytes": None}
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


def _row(lines: Lines, j: int, op: str, call: str, bandwidth: bool) -> PeerTest:
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
    try:
        rate = Decimal(fields[1])
    except InvalidOperation:
        raise lines.fail(j, f"bandwidth {fields[1]!r} is not a number") from None
    if not rate.is_finite() or rate <= 0 or size == 0:
        raise lines.fail(j, f"bandwidth {fields[1]!r} at size {size}: an epoch time needs a rate > 0 and a size > 0")
    # MB/s = 10^6 B/s = B/us: the epoch of BURST operations takes size * BURST / rate microseconds
    ns = decimal_ns(str(Decimal(size * BURST) / rate), 1000, lines, j, "epoch time")
    return PeerTest(name=f"MPI_{call}", op=op, size=size, line=j + 1, repetitions=None, run_times_ns=(ns,),
                    valid=(True,), headline="epoch", aggregates_ns={"epoch": ns})
