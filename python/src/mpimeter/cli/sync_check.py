"""`mpimeter sync-check`: how good is each clock synchronization on this machine?

Runs `mpimeter-bench --sync-check --json` once under the chosen launcher; the bench runs every
named algorithm, then measures the residual offsets (rank 0's global clock against every rank's)
at the requested times after the sync, and, on the `virtual` timer, the true errors. This command
shows the result as a table, or passes the JSON object through with --json.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from mpimeter.campaign import launcher as launch
from mpimeter.campaign.benchopts import clocksync_names, bench_help
from mpimeter.campaign.plan import PlanError


def _fail(message: str) -> None:
    click.echo(f"mpimeter sync-check: {message}", err=True)
    sys.exit(2)


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
@click.option("--np", "np_", type=click.IntRange(min=2), default=2, show_default=True,
              help="Number of ranks.")
@click.option("--mpi", default=None, help="MPI library: openmpi or mpich [first one built].")
@click.option("--launcher", default="local", show_default=True,
              help="local, srun, or a template with {np} and {cmd}.")
@click.option("--bench-dir", type=click.Path(path_type=Path), default=None,
              help="Folder holding <mpi>/bin/mpimeter-bench [build/ of the repository].")
@click.option("--clocksync", default=None,
              help="Algorithms to check, comma-separated [every one the bench knows].")
@click.option("--check-at", default="0,1,2,5,10", show_default=True,
              help="Seconds after the sync at which to measure the residuals.")
@click.option("--timer", default="monotonic", show_default=True, help="Local clock of the bench.")
@click.option("--virtual-offset-s", type=float, default=None,
              help="Virtual timer: offsets drawn uniformly in ±X s.")
@click.option("--virtual-skew-ppm", type=float, default=None,
              help="Virtual timer: skews of +Y or -Y ppm.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed of the virtual clocks.")
@click.option("--nfit", type=click.IntRange(min=1), default=None, help="Fit points per edge.")
@click.option("--pingpongs", type=click.IntRange(min=1), default=None,
              help="Max round trips per offset measurement.")
@click.option("--fit-span-s", type=float, default=None, help="Spread fit points over S seconds.")
@click.option("--timeout", type=float, default=600, show_default=True,
              help="Give up after this many seconds.")
@click.option("--json", "as_json", is_flag=True, help="Print the bench's JSON object.")
def command(np_, mpi, launcher, bench_dir, clocksync, check_at, timer, virtual_offset_s,
            virtual_skew_ppm, seed, nfit, pingpongs, fit_span_s, timeout, as_json) -> None:
    """Measure how good each clock synchronization is, now and seconds later."""
    bench_dir = bench_dir or launch.default_bench_dir()
    if mpi is None:
        found = launch.found_libraries(bench_dir)
        if not found:
            _fail(f"no mpimeter-bench under {bench_dir} (run `make build`)")
        mpi = found[0]
    try:
        binary = launch.check_binary(bench_dir, mpi)
        template = launch.resolve_template(launcher, mpi)
        launch.check_launcher_program(template)
    except PlanError as exc:
        _fail(str(exc))
    if clocksync is None:
        names = sorted(clocksync_names(bench_help(binary) or ""))
        clocksync = ",".join(n for n in names if n != "none")
        if not clocksync:
            _fail(f"{binary} lists no clock sync in --help")
    bench_argv = [str(binary), "--sync-check", "--json", "--clocksync", clocksync,
                  "--check-at", check_at, "--timer", timer]
    for flag, value in [("--virtual-offset-s", virtual_offset_s),
                        ("--virtual-skew-ppm", virtual_skew_ppm), ("--seed", seed),
                        ("--nfit", nfit), ("--pingpongs", pingpongs),
                        ("--fit-span-s", fit_span_s)]:
        if value is not None:
            bench_argv += [flag, str(value)]
    argv = launch.build_argv(template, np_, bench_argv)
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        _fail(f"no answer within {timeout:g} s from: {' '.join(argv)}")
    if proc.returncode != 0:
        click.echo(proc.stderr.strip(), err=True)
        sys.exit(2 if proc.returncode == 2 else 1)
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        _fail(f"the bench printed no JSON object ({exc}); its output was:\n{proc.stdout[:2000]}")
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(f"{mpi}, {np_} ranks, timer {timer}")
        render_table(result, Console())
