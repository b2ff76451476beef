# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter sync-check`: how good is each clock synchronization on this machine?

Runs `mpimeter-bench --sync-check --json` once under the chosen launcher; the bench syncs with
every named algorithm, then measures the residual offsets (rank 0's global clock against every
rank's) at the requested times after each sync, and, where every rank reads one clock (the `virtual`
timer's base on one host, or one kernel clock), the true errors. The
algorithms share their waits, so a check can run later than asked (another algorithm's sync ran at
its time); each check says when it ran (``since_sync_s``), and the table and the hold lines go by
that when the check ran late (:func:`check_times_s`). This command shows the result as a table,
or passes the JSON object through with --json.

The options passed on to the bench (`--clocksync`, `--check-at`, `--timer`, the clock-sync
parameters, the virtual timer's) are the bench's own: they come from `mpimeter-bench --describe`,
are checked in its words, and the whole command line is checked by `mpimeter-bench --validate NP`
before anything is launched.

Under the table, one line per algorithm says how long its sync held within --tolerance-ns (the
window's start tolerance `auto` at its least, 1000 ns): the long-term drift study of docs/ALGORITHMS.md ("How
long a sync holds") is this command with check times out to minutes (bench/drift.py runs it
across libraries and rank counts).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from mpimeter.campaign import describe as _describe
from mpimeter.campaign import launcher as launch
from mpimeter.campaign import limits
from mpimeter.cli.common import fail
from mpimeter.cli.output import exits_on_errors
from mpimeter.cli.benchparams import DescribedCommand
from mpimeter.io.bench_binaries import DEFAULT_BENCH_DIR_TEXT, NO_BENCH_ADVICE
from mpimeter.units import format_ns

COMMAND = "sync-check"
TOLERANCE_NS = 1000  # the least of the window's start tolerance (auto): what a window's start needs of the clock
LATE_S, LATE_SHARE = 0.001, 0.01  # a check later than its time by more than both ran late (check_times_s)


def _fail(message: str) -> None:
    fail(COMMAND, message)


def check_times_s(checks: list[dict]) -> list[float]:
    """When one algorithm's checks ran, in seconds after its sync ended: each check's ``t_s``, the
    time asked, unless it ran late, later than ``t_s`` by more than 1 ms and 1 % of it (waking up
    and agreeing on the next step take up to a millisecond); then its ``since_sync_s``, as the
    bench measured it; never before an earlier check of the list (they ran in order). An output
    without ``since_sync_s`` ran every check at its time."""
    times: list[float] = []
    for check in checks:
        asked = float(check["t_s"])
        ran = float(check.get("since_sync_s", asked))
        at = ran if ran - asked > max(LATE_S, LATE_SHARE * asked) else asked
        times.append(max(at, times[-1]) if times else at)
    return times


def render_table(result: dict, console: Console, *, tolerance_ns: float = TOLERANCE_NS,
                 one_clock: bool = False) -> None:
    """One row per (algorithm, check time): sync duration, max |residual|, max |true error|; then
    per algorithm how long it held within ``tolerance_ns``. ``one_clock``: the ranks read one kernel
    clock (the truth is that clock, not a virtual timer's base)."""
    has_truth = any("max_abs_true_error_ns" in c for a in result["algorithms"] for c in a["checks"])
    table = Table(title="clock synchronization: residual offsets after the sync")
    for name in ["algorithm", "sync duration", "t after sync", "max |residual|"]:
        table.add_column(name, justify="right" if name != "algorithm" else "left")
    if has_truth:
        table.add_column("max |true error|", justify="right")
    for alg in result["algorithms"]:
        for i, (check, at_s) in enumerate(zip(alg["checks"], check_times_s(alg["checks"]))):
            row = [alg["name"] if i == 0 else "",
                   format_ns(alg["sync_duration_s"] * 1e9) if i == 0 else "",
                   f"{at_s:.4g} s", format_ns(check.get("max_abs_residual_ns"))]
            if has_truth:
                row.append(format_ns(check.get("max_abs_true_error_ns")))
            table.add_row(*row)
    console.print(table)
    if has_truth:
        console.print("true error: the global clock against the one clock every rank reads (the virtual timer's "
                      "base, or one kernel clock); a residual beyond it is the residual check's own error")
    for alg in result["algorithms"]:
        console.print(hold_line(alg, tolerance_ns=tolerance_ns, one_clock=one_clock), soft_wrap=True, highlight=False)


# where every rank reads one kernel clock, a sync can only add its own error: the advice is none
ONE_CLOCK_ADVICE = "every rank reads one clock here: a run needs no sync (--clocksync auto takes that clock as is)"


def hold_line(alg: dict, *, tolerance_ns: float, one_clock: bool = False) -> str:
    """How long one algorithm's sync stayed within the tolerance, by the largest |true error|
    when the run knew the truth, else by the largest |residual|, at the times the checks ran: up
    to two checks beyond it in a row, or beyond it at the last (mpimeter.stats.clockdrift.hold_time
    says why)."""
    checks = alg["checks"]
    truth = all("max_abs_true_error_ns" in c for c in checks)
    key = "max_abs_true_error_ns" if truth else "max_abs_residual_ns"
    one_clock = one_clock and truth
    what = "|true error|" if truth else "|residual|"
    from mpimeter.stats import clockdrift  # numpy and scipy: not for --help or a refusal

    hold = clockdrift.hold_time(check_times_s(checks), [c[key] for c in checks], tolerance_ns=tolerance_ns)
    head = f"{alg['name']}: {what} within {tolerance_ns:g} ns"  # in the unit of --tolerance-ns
    if hold.held_s is None:
        line = f"{head} at no check (beyond it from {hold.first_beyond_s:.4g} s after the sync)"
        line += f": {ONE_CLOCK_ADVICE}" if one_clock else ""
    elif hold.held_throughout:
        line = f"{head} through the last check, {hold.held_s:.4g} s after the sync"
    else:
        line = (f"{head} through {hold.held_s:.4g} s after the sync, beyond it from {hold.first_beyond_s:.4g} s: "
                + (ONE_CLOCK_ADVICE if one_clock else "re-sync sooner"))
    if hold.spikes_s:
        line += (f" (beyond it once at {', '.join(f'{t:.4g}' for t in hold.spikes_s)} s and within again at the next "
                 f"check: the check's spike, not the sync's)")
    return line


def _bench_args(desc: _describe.Description, given: dict[str, object]) -> list[str]:
    """The pass-through options as the bench reads them, each checked in the bench's words; every
    clock sync but `none` when --clocksync is not given."""
    args = _describe.option_args(desc, "sync-check", given)
    if given.get("clocksync") is None:
        args += ["--clocksync", ",".join(n for n in desc.names("clock_syncs") if n != "none")]
    return args


@click.command("sync-check", cls=DescribedCommand, bench_mode="sync-check", exclude=frozenset({"json"}))
@click.option("--np", "np_", type=int, default=2, show_default=True,
              help=f"Number of ranks, at least 2, at most {limits.MAX_NP} (--launcher local: "
                   f"{limits.LOCAL_RANKS_PER_CPU} per core).")
@click.option("--mpi", default=None, help="MPI library: openmpi or mpich [first one built].")
@click.option("--launcher", default="local", show_default=True,
              help="local, srun, or a template with {np} and {cmd}.")
@click.option("--bench-dir", type=click.Path(path_type=Path), default=None,
              help=f"Folder holding <mpi>/bin/mpimeter-bench [{DEFAULT_BENCH_DIR_TEXT}].")
@click.option("--timeout", type=float, default=600, show_default=True,
              help="Give up after this many seconds (> 0).")
@click.option("--json", "as_json", is_flag=True, help="Print the bench's JSON object.")
@click.option("--tolerance-ns", type=float, default=None,
              help=f"The error a sync may reach and still hold, for the table's last lines (> 0) "
                   f"[{TOLERANCE_NS}: the least start tolerance of the window, --start-tolerance-ns auto].")
@exits_on_errors(COMMAND)
def command(np_, mpi, launcher, bench_dir, timeout, as_json, tolerance_ns, **bench_values) -> None:
    """Measure how good each clock synchronization is, now and seconds later (the options marked
    [bench] are mpimeter-bench's own; --clocksync defaults to every clock sync it has)."""
    if np_ < 2:
        _fail(f"--np {np_}: must be at least 2 (a sync needs a second rank)")
    # the bound of `mpimeter run`: with --launcher local every rank runs on this machine
    limits.check_np(np_, local=launcher == "local")
    if not (math.isfinite(timeout) and timeout > 0):
        _fail(f"--timeout {timeout:g}: must be a positive number of seconds")
    if tolerance_ns is not None and as_json:
        _fail("--tolerance-ns applies to the table; --json prints the checks as measured")
    if tolerance_ns is not None and not (math.isfinite(tolerance_ns) and tolerance_ns > 0):
        _fail(f"--tolerance-ns {tolerance_ns:g}: must be a positive number of nanoseconds")
    bench_dir = bench_dir or launch.default_bench_dir()
    if mpi is None:
        found = launch.found_libraries(bench_dir)
        if not found:
            _fail(f"no mpimeter-bench under {bench_dir} ({NO_BENCH_ADVICE})")
        mpi = found[0]
    binary = launch.check_binary(bench_dir, mpi)
    template = launch.resolve_template(launcher, mpi, bench_dir=bench_dir)
    launch.check_launcher_program(template)
    desc = _describe.describe(binary)
    args = ["--sync-check", "--json", *_bench_args(desc, bench_values)]
    _describe.validate(binary, args, np_)  # the combinations, in the bench's words
    argv = launch.build_argv(template, np_, [str(binary), *args])
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        _fail(f"no answer within {timeout:g} s from: {' '.join(argv)}")
    if proc.returncode != 0:
        _bench_failed(proc, np_)
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        _fail(f"the bench printed no JSON object ({exc}); its output was:\n{proc.stdout[:2000]}")
    if as_json:
        click.echo(json.dumps(result))
    else:
        timer = bench_values.get("timer") or desc.option("timer").default
        click.echo(f"{mpi}, {np_} ranks, timer {timer}")
        # a truth without the virtual timer is the one kernel clock every rank reads
        render_table(result, Console(), tolerance_ns=TOLERANCE_NS if tolerance_ns is None else tolerance_ns,
                     one_clock=timer != "virtual")


def _bench_failed(proc: subprocess.CompletedProcess, np_: int) -> None:
    """Exit with the bench's own lines (each rank may print the same one), without the
    launcher's abort banners; all of stderr when the bench said nothing (a crash). A bench
    that counted fewer ranks than --np (its "(got N)") was started as separate one-rank jobs:
    its refusal would blame the --np the user gave, which was checked above."""
    own = list(dict.fromkeys(line.strip() for line in proc.stderr.splitlines()
                             if line.startswith("mpimeter-bench")))
    counted = [(int(m.group(1)), line) for line in own if (m := re.search(r"ranks \(got (\d+)\)$", line))]
    split = launch.separate_jobs_message(np_, *min(counted)) if counted else ""
    if split:
        click.echo(f"mpimeter {COMMAND}: {split}", err=True)
        sys.exit(1)
    if proc.returncode == 2 and own:  # bad input: the bench says which, in one line
        _fail(own[0])
    click.echo("\n".join(f"mpimeter {COMMAND}: {line}" for line in own) if own else proc.stderr.strip(),
               err=True)
    sys.exit(2 if proc.returncode == 2 else 1)
