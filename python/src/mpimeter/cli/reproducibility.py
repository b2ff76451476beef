# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter reproducibility`: how reproducible the outcome of a benchmarking method is
(Hunold & Carpen-Amarie 2016, §5.3, Fig. 12) - the same campaign run T times, or a set of
existing campaign folders, and per (op, size) the spread of the trials' results."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from mpimeter.atomic import write_atomic
from mpimeter.campaign import limits
from mpimeter.cli.benchparams import DescribedCommand
from mpimeter.cli.campaign_run import (EXIT_FAILED_LAUNCHES, campaign_options, execute_campaign,
                                       make_request, resume_command)
from mpimeter.cli.output import clean, exits_on_errors, fail  # "mpimeter <command>: error: ...", exit 2

COMMAND = "reproducibility"
RESULT_FILE = "reproducibility.json"


@click.command("reproducibility", cls=DescribedCommand, bench_mode="bench",
               context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("campaigns", nargs=-1, type=click.Path(path_type=Path))
@click.option("--trials", type=int, default=None,
              help="run the campaign this many times (into --out/trial-NN) instead of reading "
                   f"existing CAMPAIGNS (2 to {limits.MAX_TRIALS})")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="folder for the trials [default: results/repro-<date>-<time>]")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True)
@click.option("--bench-arg", "bench_extra", multiple=True,
              help="one more argument for mpimeter-bench, verbatim (repeatable)")
@campaign_options
@click.pass_context
@exits_on_errors(COMMAND)
def command(ctx: click.Context, campaigns, trials, out, fmt, np, launches, mpi, variants, launcher,
            bench_dir, seed, launch_timeout, retries, bench_extra, **bench_values) -> None:
    """Per (op, size) — and p, root, work pieces where trials measured several — each trial's
    mean of per-launch medians divided by the smallest trial's (Fig. 12's normalized run time);
    the spread is the largest of these (1.00 = identical trials).

    Either give two or more existing campaign folders (CAMPAIGNS), or --trials T and the campaign
    options of `mpimeter run` to run T campaigns one after the other. An interrupted trial can be
    finished with `mpimeter run --resume OUT/trial-NN`, then the folders given here.
    """
    from mpimeter.campaign import lock  # like what running needs: not before the command line is parsed
    from mpimeter.campaign import reproducibility as rp  # pandas: not before the command line is parsed

    argv = ["mpimeter", "reproducibility", *sys.argv[2:]]
    if campaigns and trials is not None:
        fail(COMMAND, "give either existing CAMPAIGNS or --trials, not both")
    if not campaigns and trials is None:
        fail(COMMAND, "give two or more campaign folders, or --trials T to run them")
    if campaigns:
        # The options of a new run mean nothing for campaigns that exist: refuse, not ignore.
        given = [name for name in ctx.params
                 if ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT
                 and name not in ("campaigns", "fmt")]
        if given:
            fail(COMMAND, f"{', '.join(_option_name(ctx, g) for g in given)}: only with --trials "
                          "(they define the campaigns to run); existing CAMPAIGNS are read as "
                          "they are")
        if len(campaigns) < 2:
            fail(COMMAND, "the spread needs at least 2 campaigns (trials)")
        for folder in campaigns:
            try:
                is_dir = folder.is_dir()
            except OSError as exc:  # a name too long, a loop of links: one line, never a traceback
                fail(COMMAND, f"{_shown(folder)}: {exc.strerror or exc}")
            if not is_dir:
                fail(COMMAND, f"{_shown(folder)}: no such folder")
        twice = rp.same_folders(list(campaigns))
        if twice:
            fail(COMMAND, f"{twice[0]}: given more than once; the spread compares different trials, "
                          "give each trial folder once")
        folders = list(campaigns)
    else:
        limits.check_trials(trials)
        limits.check_retries(retries)
        if seed is not None:
            limits.check_seed(seed)
        out = out or Path("results") / f"repro-{_stamp()}"
        try:
            lock.check_new_folder(out, "--out")
        except OSError as exc:
            fail(COMMAND, f"--out {_shown(out)}: {exc.strerror or exc}")
        options = dict(np=np, launches=launches, mpi=mpi, variants=variants, launcher=launcher,
                       bench_dir=bench_dir, seed=seed, launch_timeout=launch_timeout,
                       bench_values=bench_values, bench_extra=bench_extra)
        folders = _run_trials(out, trials, argv, retries, options)
    loaded = []
    for folder in folders:
        trial = rp.load_trial(folder)
        if trial.medians.empty:
            fail(COMMAND, f"{folder}: no complete launch with results")
        loaded.append(trial)
    source = loaded[0].source
    rows = rp.spread_table([t.medians for t in loaded])
    differences = rp.settings_differences(loaded)
    if differences:
        # Trials of different methods measure the settings, not reproducibility: say so, on stderr.
        click.echo(f"mpimeter {COMMAND}: warning: the trials were run with different settings, so the "
                   f"spread is not the reproducibility of one method: {'; '.join(differences)}", err=True)
    if not rows:
        fail(COMMAND, "no (alternative, op, size) is present in every trial")
    result = {"trials": [str(f) for f in folders], "per_launch_medians_from": source,
              "settings_differ": differences, "rows": [r.to_dict() for r in rows]}
    if trials is not None:
        try:
            write_atomic(out / RESULT_FILE, (json.dumps(clean(result), indent=1, allow_nan=False) + "\n").encode())
        except OSError as exc:
            fail(COMMAND, f"cannot write {out / RESULT_FILE}: {exc.strerror or exc}")
    _print(rows, fmt, result, source)


def _shown(path: Path) -> str:
    """A path as a message shows it: a very long one cut in the middle (the line stays one line)."""
    text = str(path)
    return text if len(text) <= 200 else f"{text[:100]}…{text[-60:]} ({len(text)} characters)"


def _run_trials(out: Path, trials: int, argv: list[str], retries: int, options: dict) -> list[Path]:
    """Runs the trials one after the other. The trials' folder is held (campaign.lock) for the
    whole run, once the first trial is known to be a valid campaign; each trial's folder while
    it runs."""
    from mpimeter.campaign import lock, spec
    from mpimeter.campaign.plan import SEED_LIMIT, draw_campaign_seed

    base_seed = options.pop("seed")
    base_seed = draw_campaign_seed() if base_seed is None else base_seed
    folders: list[Path] = []
    held_out = None
    try:
        for trial in range(trials):
            folder = out / f"trial-{trial:02d}"
            # Each trial is an independent run of the method: its own seed, derived and recorded.
            seed = (base_seed + 7919 * trial) % SEED_LIMIT or 1
            request = make_request(seed=seed, argv=argv, **options)
            state = spec.prepare(request)
            if held_out is None:
                held_out = lock.lock_new_folder(out, "--out", COMMAND)
            held = lock.lock_new_folder(folder, "--out", COMMAND)
            click.echo(f"trial {trial + 1}/{trials}")
            with held:
                outcome = execute_campaign(state, folder, argv=argv, retries=retries,
                                           resumed=False, command=COMMAND)
            if outcome.status != "complete":
                click.echo(f"mpimeter {COMMAND}: error: trial {folder} did not complete "
                           f"({outcome.message}); finish it with `{resume_command(state, folder)}`",
                           err=True)
                sys.exit(EXIT_FAILED_LAUNCHES)
            folders.append(folder)
    finally:
        if held_out is not None:
            held_out.release()
    return folders


def _print(rows: list[rp.SpreadRow], fmt: str, result: dict, source: str) -> None:
    if fmt == "json":
        click.echo(json.dumps(result, indent=1))
        return
    if fmt == "csv":
        click.echo("alternative,op,size,nprocs,root,workpieces,trials,spread,normalized")
        for r in rows:
            norm = " ".join(f"{x:.4f}" for x in r.normalized)
            where = ",".join("" if v is None else str(v) for v in (r.nprocs, r.root, r.workpieces))
            click.echo(f"{r.alternative},{r.op},{r.size},{where},{r.trials},{r.spread:.4f},{norm}")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Reproducibility of the outcome (Hunold & Carpen-Amarie 2016 §5.3): "
                        "trial mean of per-launch medians / smallest trial")
    several = len({r.alternative for r in rows}) > 1
    if several:
        table.add_column("alternative")
    # a row per p, root and number of work pieces, as `analyze` has: the columns that tell them apart
    where = [(name, attr) for name, attr in (("p", "nprocs"), ("root", "root"), ("workpieces", "workpieces"))
             if _tells_apart(rows, attr)]
    for name in ("op", "size", *(n for n, _ in where), "trials", "smallest mean", "spread (max/min)",
                 "normalized, sorted"):
        table.add_column(name, justify="left" if name == "op" else "right")
    for r in rows:
        cells = [r.op, str(r.size), *("–" if getattr(r, a) is None else str(getattr(r, a)) for _, a in where),
                 str(r.trials), f"{min(r.means_ns) / 1000:.2f} µs",
                 f"{r.spread:.3f} (+{(r.spread - 1) * 100:.1f} %)",
                 " ".join(f"{x:.3f}" for x in sorted(r.normalized))]
        table.add_row(*([r.alternative] if several else []), *cells)
    console = Console()
    console.print(table)
    console.print(f"per-launch medians from {source}")


def _tells_apart(rows: list[rp.SpreadRow], attr: str) -> bool:
    """Whether two rows differ in ``attr`` alone (one test at two p, or two roots): only then is
    it a column (a root of bcast beside none of allreduce tells nothing apart)."""
    others = [a for a in ("nprocs", "root", "workpieces") if a != attr]
    groups: dict[tuple, set] = {}
    for r in rows:
        groups.setdefault((r.alternative, r.op, r.size, *(getattr(r, a) for a in others)), set()).add(getattr(r, attr))
    return any(len(values) > 1 for values in groups.values())


def _option_name(ctx: click.Context, param_name: str) -> str:
    for param in ctx.command.params:
        if param.name == param_name and param.opts:
            return param.opts[0]
    return "--" + param_name.replace("_", "-")


def _stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")
