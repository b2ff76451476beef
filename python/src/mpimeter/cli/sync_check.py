"""`mpimeter sync-check`: how good is each clock synchronization on this machine?

Runs `mpimeter-bench --sync-check --json` once under the chosen launcher; the bench runs every
named algorithm, then measures the residual offsets (rank 0's global clock against every rank's)
at the requested times after the sync, and, on the `virtual` timer, the true errors. This command
shows the result as a table, or passes the JSON object through with --json.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from mpimeter.campaign import launcher as launch
from mpimeter.campaign import benchopts
from mpimeter.campaign.benchopts import bench_help, help_lists
from mpimeter.campaign.plan import PlanError
from mpimeter.cli.analyze import fail


COMMAND = "sync-check"
# What mpimeter-bench accepts (c/src/config/config.c), checked here first so that a bad value
# gets one line from us instead of an abort block from mpirun.
MAX_ALGORITHMS = 16   # MM_MAX_ALGS
MAX_CHECKS = 32       # MM_MAX_CHECKS
MAX_CHECK_AT_S = 3600.0
MAX_SEED = 2**64 - 1  # an unsigned 64-bit integer
VIRTUAL_ONLY = ("--virtual-offset-s", "--virtual-skew-ppm", "--seed")


def _fail(message: str) -> None:
    fail(COMMAND, message)


def _in_range(flag: str, value: float) -> None:
    """The bounds `mpimeter run` checks too (one table: benchopts.BENCH_OPTIONS)."""
    try:
        benchopts.check_number(benchopts.option(flag), value)
    except PlanError as exc:
        _fail(str(exc))


def parse_check_at(text: str) -> list[float]:
    """Seconds after the sync, comma-separated, non-decreasing, each in [0, 3600]."""
    items = [t.strip() for t in text.split(",")]
    if any(not t for t in items):
        _fail(f"--check-at {text!r}: empty item; give seconds, comma-separated (e.g. 0,1,2,5,10)")
    if len(items) > MAX_CHECKS:
        _fail(f"--check-at {text!r}: {len(items)} times; at most {MAX_CHECKS}")
    times = []
    for item in items:
        try:
            value = float(item)
        except ValueError:
            _fail(f"--check-at {text!r}: {item!r} is not a number of seconds")
        if not (math.isfinite(value) and 0 <= value <= MAX_CHECK_AT_S):
            _fail(f"--check-at {text!r}: {item} must be between 0 and {MAX_CHECK_AT_S:g} s")
        if times and value < times[-1]:
            _fail(f"--check-at {text!r}: times must not decrease")
        times.append(value)
    return times


def parse_clocksync(text: str, known: set[str]) -> list[str]:
    """Algorithm names, comma-separated, each one the bench lists in --help (any name when
    the bench could not be asked)."""
    names = [t.strip() for t in text.split(",")]
    if any(not n for n in names):
        _fail(f"--clocksync {text!r}: empty item; give names, comma-separated")
    if len(names) > MAX_ALGORITHMS:
        _fail(f"--clocksync {text!r}: {len(names)} names; at most {MAX_ALGORITHMS}")
    for i, name in enumerate(names):
        if known and name not in known:
            _fail(f"--clocksync {name}: unknown; mpimeter-bench accepts {', '.join(sorted(known))}")
        if name in names[:i]:
            _fail(f"--clocksync {text!r}: {name} is given twice")
    return names


def _ns(value: float | None) -> str:
    if value is None:
        return "-"
    if abs(value) >= 1e6:
        return f"{value / 1e6:.3f} ms"
    if abs(value) >= 1e3:
        return f"{value / 1e3:.2f} µs"
    return f"{value:.0f} ns"


def render_table(result: dict, console: Console) -> None:
    """One row per (algorithm, check time): sync duration, max |residual|, max |true error|."""
    has_truth = any("max_abs_true_error_ns" in c for a in result["algorithms"] for c in a["checks"])
    table = Table(title="clock synchronization: residual offsets after the sync")
    for name in ["algorithm", "sync duration", "t after sync", "max |residual|"]:
        table.add_column(name, justify="right" if name != "algorithm" else "left")
    if has_truth:
        table.add_column("max |true error|", justify="right")
    for alg in result["algorithms"]:
        for i, check in enumerate(alg["checks"]):
            row = [alg["name"] if i == 0 else "",
                   f"{alg['sync_duration_s'] * 1e3:.1f} ms" if i == 0 else "",
                   f"{check['t_s']:g} s", _ns(check.get("max_abs_residual_ns"))]
            if has_truth:
                row.append(_ns(check.get("max_abs_true_error_ns")))
            table.add_row(*row)
    console.print(table)
    if has_truth:
        console.print("true error: the global clock against the virtual timer's base clock, "
                      "which all ranks share on one host")


@click.command("sync-check")
@click.option("--np", "np_", type=int, default=2, show_default=True,
              help="Number of ranks (at least 2).")
@click.option("--mpi", default=None, help="MPI library: openmpi or mpich [first one built].")
@click.option("--launcher", default="local", show_default=True,
              help="local, srun, or a template with {np} and {cmd}.")
@click.option("--bench-dir", type=click.Path(path_type=Path), default=None,
              help="Folder holding <mpi>/bin/mpimeter-bench [build/ of the repository].")
@click.option("--clocksync", default=None,
              help="Algorithms to check, comma-separated [every one the bench knows].")
@click.option("--check-at", default="0,1,2,5,10", show_default=True,
              help=f"Seconds after the sync at which to measure the residuals (non-decreasing, "
                   f"0 to {MAX_CHECK_AT_S:g}, at most {MAX_CHECKS}).")
@click.option("--timer", default="monotonic", show_default=True, help="Local clock of the bench.")
@click.option("--virtual-offset-s", type=float, default=None,
              help="Virtual timer: offsets drawn uniformly in ±X s (0 to 1e6).")
@click.option("--virtual-skew-ppm", type=float, default=None,
              help="Virtual timer: skews of +Y or -Y ppm (0 to 1e5).")
@click.option("--seed", type=int, default=None, help="Virtual timer: seed of the virtual clocks.")
@click.option("--nfit", type=int, default=None, help="Fit points per edge (1 to 1e6).")
@click.option("--pingpongs", type=int, default=None,
              help="Max round trips per offset measurement (1 to 1e7).")
@click.option("--fit-span-s", type=float, default=None,
              help="Spread fit points over S seconds (> 0, ≤ 3600).")
@click.option("--timeout", type=float, default=600, show_default=True,
              help="Give up after this many seconds (> 0).")
@click.option("--json", "as_json", is_flag=True, help="Print the bench's JSON object.")
def command(np_, mpi, launcher, bench_dir, clocksync, check_at, timer, virtual_offset_s,
            virtual_skew_ppm, seed, nfit, pingpongs, fit_span_s, timeout, as_json) -> None:
    """Measure how good each clock synchronization is, now and seconds later."""
    if np_ < 2:
        _fail(f"--np {np_}: must be at least 2 (a sync needs a second rank)")
    if not (math.isfinite(timeout) and timeout > 0):
        _fail(f"--timeout {timeout:g}: must be a positive number of seconds")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        _fail(f"--seed {seed}: must be a whole number from 0 to {MAX_SEED}")
    numbers = {"--virtual-offset-s": virtual_offset_s, "--virtual-skew-ppm": virtual_skew_ppm,
               "--nfit": nfit, "--pingpongs": pingpongs, "--fit-span-s": fit_span_s}
    for flag, value in numbers.items():
        if value is not None:
            _in_range(flag, value)
    if timer != "virtual":
        given = [flag for flag, value in zip(VIRTUAL_ONLY, (virtual_offset_s, virtual_skew_ppm, seed))
                 if value is not None]
        if given:
            _fail(f"{', '.join(given)}: only with --timer virtual (given: --timer {timer})")
    check_times = parse_check_at(check_at)
    bench_dir = bench_dir or launch.default_bench_dir()
    if mpi is None:
        found = launch.found_libraries(bench_dir)
        if not found:
            _fail(f"no mpimeter-bench under {bench_dir} (run `make build`)")
        mpi = found[0]
    if launcher == "local" and mpi not in launch.MPI_LIBRARIES:
        _fail(f"--mpi {mpi}: unknown; allowed: {', '.join(launch.MPI_LIBRARIES)} "
              "(or another folder of --bench-dir with a --launcher template)")
    try:
        template = launch.resolve_template(launcher, mpi)
        binary = launch.check_binary(bench_dir, mpi)
        launch.check_launcher_program(template)
    except PlanError as exc:
        _fail(str(exc))
    known = help_lists(bench_help(binary) or "")  # empty when the bench cannot say
    timers = known.get("timer", set())
    if timers and timer not in timers:
        _fail(f"--timer {timer}: unknown; mpimeter-bench accepts {', '.join(sorted(timers))}")
    algorithms = known.get("clocksync", set())
    if clocksync is None:
        names = sorted(algorithms - {"none"})
        if not names:
            _fail(f"{binary} lists no clock sync in --help; name them with --clocksync")
    else:
        names = parse_clocksync(clocksync, algorithms | ({"auto"} if algorithms else set()))
    # the checked values, written so that the bench reads exactly what was checked
    bench_argv = [str(binary), "--sync-check", "--json", "--clocksync", ",".join(names),
                  "--check-at", ",".join(repr(t) for t in check_times), "--timer", timer]
    for flag, value in [*numbers.items(), ("--seed", seed)]:
        if value is not None:
            bench_argv += [flag, repr(value)]
    argv = launch.build_argv(template, np_, bench_argv)
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        _fail(f"no answer within {timeout:g} s from: {' '.join(argv)}")
    if proc.returncode != 0:
        _bench_failed(proc)
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        _fail(f"the bench printed no JSON object ({exc}); its output was:\n{proc.stdout[:2000]}")
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(f"{mpi}, {np_} ranks, timer {timer}")
        render_table(result, Console())


def _bench_failed(proc: subprocess.CompletedProcess) -> None:
    """Exit with the bench's own lines (each rank may print the same one), without the
    launcher's abort banners; all of stderr when the bench said nothing (a crash)."""
    own = list(dict.fromkeys(line.strip() for line in proc.stderr.splitlines()
                             if line.startswith("mpimeter-bench")))
    if proc.returncode == 2 and own:  # bad input: the bench says which, in one line
        _fail(own[0])
    click.echo("\n".join(f"mpimeter {COMMAND}: {line}" for line in own) if own else proc.stderr.strip(),
               err=True)
    sys.exit(2 if proc.returncode == 2 else 1)
