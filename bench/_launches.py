# SPDX-License-Identifier: BSD-3-Clause
"""What the launch studies (bench/launch_states.py, bench/peers.py) share: starting one launch
with the project's own launcher and timing it, the load around it, the machine state from the
cache-line probe, what an mpimeter launch folder says about its cost, and foreign CPU load
started on purpose. Not a test; imported by the scripts beside it.

The load of a launch is the 1-minute load average before it and the other processes' share of
the CPU during it: the machine's busy CPU time (/proc/stat's first line, idle and iowait left
out) minus the CPU time of this script's reaped children, over wall time × CPUs. CPU hogs started
by :func:`cpu_hogs` are not reaped while they run, so their time counts as the others'.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "src"))

from mpimeter.campaign.launcher import build_argv, local_template  # noqa: E402
from mpimeter.io import bounded, jsonread  # noqa: E402

NCPUS = os.cpu_count() or 1
# a busy loop in a shell: foreign load, at the niceness cpu_hogs is given
HOG_LOOP = ["sh", "-c", "while :; do :; done"]
# With autogroups (sched(7), "The autogroup feature"; on by default in Debian's kernels) the
# scheduler first shares the CPUs equally between sessions and applies a process's nice value
# only inside its own session: a hog started in a session of its own at nice 19 took as much CPU
# as a nice-0 one (two of them 67-86 % of the machine beside a launch, measured). The session's
# nice value, /proc/PID/autogroup, is what weighs it against the launch's session.
AUTOGROUP = Path("/proc/self/autogroup")
SYNC_CSV_MAX_BYTES = 256 * 2**20  # a clock sync of thousands of ranks writes some tens of MiB


def busy_s() -> float:
    """The machine's busy CPU seconds so far (all CPUs: /proc/stat's first line, idle and iowait
    left out)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def children_s() -> float:
    t = os.times()
    return t.children_user + t.children_system


def launch_argv(lib: str, bench_argv: list[str], nprocs: int = 2) -> list[str]:
    """The command that starts ``bench_argv`` on ``nprocs`` ranks as `mpimeter run --launcher
    local` does (the library's own launcher; as root with --allow-run-as-root)."""
    return build_argv(local_template(lib), nprocs, bench_argv)


def timed(cmd: list[str], timeout_s: float | None = None) -> tuple[subprocess.CompletedProcess, float, dict]:
    """Runs ``cmd`` in a session of its own; its wall time and the load around it (load average,
    other processes' CPU share). Past ``timeout_s`` the whole session (launcher and ranks) is
    killed and the result has returncode None and the reason in stderr."""
    load = os.getloadavg()[0]
    busy, own = busy_s(), children_s()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout_s)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code, err = None, f"timed out after {timeout_s} s (killed)\n{err}"
    wall = time.perf_counter() - start
    other = max(0.0, (busy_s() - busy) - (children_s() - own))
    done = subprocess.CompletedProcess(cmd, code, out, err)
    return done, wall, {"load1": load, "other_cpu_share": round(other / (wall * NCPUS), 3)}


def state(rtt: float | None, fast_below_ns: float) -> str:
    """The machine's speed state in a launch from its cache-line round trip (as measured on the test machine: 49-111
    ns fast, 344-414 ns slow); "unknown" when the probe gave none (it gives up after 20 ms
    without an answer: a loaded machine)."""
    if rtt is None or rtt < 0:
        return "unknown"
    return "fast" if rtt < fast_below_ns else "slow"


def launch_facts(folder: Path) -> dict:
    """What an mpimeter launch folder's meta.json says about the launch itself: the cache-line
    round trip, the phases' seconds, the clock sync's cost and residuals, the sync's edge points, each
    test's window (pilot, largest, switches)."""
    meta = jsonread.load_json(folder / "meta.json")
    probes = (meta.get("probes") or {}).get("cacheline_rtt_ns") or []
    rtt = probes[0].get("rtt_ns") if probes else None
    sync_csv = folder / "sync.csv"
    edges = None
    if sync_csv.is_file():
        text = bounded.read_bytes(sync_csv, SYNC_CSV_MAX_BYTES).decode("utf-8", "replace")
        edges = sum(1 for line in text.splitlines() if ",edge," in line)
    cs = meta.get("clock_sync") or {}
    tests = [t for t in meta.get("tests") or [] if isinstance(t, dict)]
    return {"cacheline_rtt_ns": rtt, "sync_edge_points": edges,
            # per size: the pilot's window, the largest the test used, its start-method switches
            "windows_ns": {str(t.get("size")): [t.get("window_pilot_ns"), t.get("window_ns"),
                                                 len(t.get("procsync_switches") or [])] for t in tests},
            "residual_start_ns": (cs.get("residual_start") or {}).get("max_abs_ns"),
            "residual_end_ns": (cs.get("residual_end") or {}).get("max_abs_ns"),
            "phases": {k: (v or {}).get("seconds") for k, v in (meta.get("phases") or {}).items()},
            "clock_sync_s": cs.get("duration_s") if cs else None}


def hog_record(n: int, nice: int) -> dict:
    """What :func:`cpu_hogs` starts, as the results record it."""
    return {"cpu_hogs": n, "hog": f"{' '.join(HOG_LOOP[:2])} '{HOG_LOOP[2]}' at nice {nice}",
            "session_nice": nice if AUTOGROUP.exists() else None}


@contextlib.contextmanager
def cpu_hogs(n: int, nice: int = 19) -> Iterator[list[int]]:
    """``n`` busy loops at ``nice`` for the duration of the block (their pids), each in a session
    of its own whose autogroup nice value is ``nice`` too where the kernel has autogroups; each is
    ended by its own process group id afterwards, whatever happened inside."""
    # an absolute nice value (`nice -n` adds to the caller's, which may itself be niced)
    procs = [subprocess.Popen(HOG_LOOP, stdin=subprocess.DEVNULL, start_new_session=True,
                              preexec_fn=lambda: os.setpriority(os.PRIO_PROCESS, 0, nice)) for _ in range(n)]
    try:
        if AUTOGROUP.exists():
            for p in procs:
                Path(f"/proc/{p.pid}/autogroup").write_text(f"{nice}\n")
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
        for p in procs:
            p.wait(timeout=10)
