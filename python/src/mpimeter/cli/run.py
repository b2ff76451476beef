# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run`: a campaign of launches of mpimeter-bench (see mpimeter.campaign)."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import click

from mpimeter.campaign import adaptive as _adaptive
from mpimeter.campaign import limits
from mpimeter.cli.benchparams import DescribedCommand
from mpimeter.cli.campaign_run import (EXIT_FAILED_LAUNCHES, EXIT_INTERRUPTED, campaign_options, execute_campaign,
                                       make_request, resume_command, stop_signals_as_interrupt)
from mpimeter.cli.output import exits_on_errors, fail  # "mpimeter <command>: error: ...", exit 2
from mpimeter.cli.suite_option import check_conflicts, loaded_suite, suite_option
from mpimeter.io.bench_binaries import NO_BENCH_ADVICE

# What only running a campaign needs (planning, campaign.json, the runner, the analysis after it)
# is imported in `command`, not here: `mpimeter run --help` answers without it.

# Options that may be combined with --resume (everything else comes from campaign.json);
# --launcher and --bench-dir choose again what runs (campaign.resume).
RESUME_OPTIONS = frozenset({"resume", "launch_timeout", "retries", "analyze", "launcher",
                            "bench_dir", "trust_recorded", "test_timeout"})


@click.command("run", cls=DescribedCommand, bench_mode="bench",
               context_settings={"help_option_names": ["-h", "--help"]})
@campaign_options
@suite_option
@click.option("--out", type=click.Path(), default=None, callback=lambda ctx, param, value: _folder(value, param),
              help="campaign folder to create [default: results/run-<date>-<time>]")
@click.option("--resume", type=click.Path(), default=None, callback=lambda ctx, param, value: _folder(value, param),
              help="continue the campaign in this folder (settings from its campaign.json)")
@click.option("--trust-recorded", is_flag=True,
              help="with --resume: run the environment variables and launcher template campaign.json "
                   "records (shown first); without it they are refused. Only the libraries' collective-"
                   "tuning and progress-thread variables (OMPI_MCA_coll_*, MPIR_CVAR_<OP>_INTRA_ALGORITHM, "
                   "MPIR_CVAR_ASYNC_PROGRESS, ...) come from the file, even then; --variant on your own "
                   "command line sets any variable")
@click.option("--analyze/--no-analyze", "analyze", default=True,
              help="print the analysis and write the report once the campaign is complete [default: analyze; "
                   "with --resume: as the campaign's first run was told]")
@click.option("--guidelines", is_flag=True,
              help="measure what `mpimeter guidelines` checks: each operation of --ops (default: every one "
                   "with a mock-up) followed by its mock-ups, as the binary's --describe lists them")
@click.option("--preload-pgmpi", "preload_pgmpi", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE",
              help="run every launch with libmpimeter-pgmpi.so preloaded (LD_PRELOAD) and FILE as its "
                   "configuration (written by `mpimeter guidelines --replace`): the calls it names run their "
                   "mock-up where a guideline was violated; meta.json records it (pgmpi)")
@click.option("--platform", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="with --mpi smpi (the SimGrid build, `make build-smpi`): the simulated cluster, a SimGrid "
                   "platform file with a host per rank [default: the 128-host cluster shipped with mpimeter]; "
                   "its path and sha256 are recorded")
@click.option("--algorithms", "algorithms", multiple=True, metavar="'OP=all|NAME[,NAME..][;OP2=...]'",
              help="the library's own algorithms of OP as alternatives (repeatable, or ';'-separated): each "
                   "runs with the library's variable set (Open MPI coll_tuned_<op>_algorithm with "
                   "use_dynamic_rules, MPICH MPIR_CVAR_<OP>_INTRA_ALGORITHM), next to the library as it is; "
                   "the names are those mpimeter-bench --list-algorithms confirms")
@click.option("--launches-min", type=int, default=None,
              help=f"--launches auto: launches per alternative before the rule may stop a pair "
                   f"[default: {_adaptive.DEFAULT_MIN}]")
@click.option("--launches-max", type=int, default=None,
              help=f"--launches auto: launches per alternative at most [default: {_adaptive.DEFAULT_MAX}]")
@click.option("--launches-precision", type=float, default=None,
              help="--launches auto: a pair is done when its interval lies within ±E of its median, "
                   f"above 0, below 1 [default: {_adaptive.DEFAULT_PRECISION}]")
@click.option("--launches-confidence", type=float, default=None,
              help="--launches auto: confidence level of that interval, above 0, below 1 "
                   f"[default: {_adaptive.DEFAULT_CONFIDENCE}]")
@click.option("--test-timeout", type=float, default=None,
              help="seconds one test may run before its launch is stopped, the test recorded as hung and "
                   "retried last alone, the launch's other tests going on in a launch of their own; at most "
                   "the launch timeout [default: the launch timeout]")
@click.argument("bench_extra", nargs=-1, type=click.UNPROCESSED, metavar="[-- BENCH_ARGS...]")
@click.pass_context
@exits_on_errors("run")
def command(ctx: click.Context, np, launches, mpi, variants, launcher, bench_dir, out, resume,
            seed, launch_timeout, retries, trust_recorded, analyze, guidelines, preload_pgmpi, platform, algorithms,
            launches_min,
            launches_max, launches_precision,
            launches_confidence, test_timeout, bench_extra, **bench_values) -> None:
    """Run a campaign: LAUNCHES launches of mpimeter-bench per alternative, interleaved in a
    seeded random order, each with its own seed and folder; failures are retried once at the
    end; Ctrl-C stops cleanly and --resume continues.

    The options marked [bench] are passed on to mpimeter-bench, and so is everything after `--`.
    """
    from mpimeter.campaign import guideline_plan, lock, simulation, spec
    from mpimeter.campaign import resume as resuming
    from mpimeter.campaign import state as st
    from mpimeter.campaign.plan import PlanError

    argv = ["mpimeter", "run", *sys.argv[2:]] if len(sys.argv) > 1 else ["mpimeter", "run"]
    limits.check_retries(retries)
    check_conflicts(ctx)
    suite = loaded_suite(ctx)
    if suite is not None and resume is not None:
        fail("run", "--resume takes the settings and the suite from campaign.json; do not also give --suite")
    if trust_recorded and resume is None:
        fail("run", "--trust-recorded confirms what campaign.json records: it goes with --resume only")
    if resume is not None:
        _refuse_campaign_options(ctx)
        campaign_dir = Path(resume)
        held = lock.lock_existing_folder(campaign_dir, "--resume", "run", st.CAMPAIGN_FILE)
        source = ctx.get_parameter_source("launcher")
        try:
            state = resuming.prepare(
                st.load(campaign_dir), campaign_dir, bench_dir=bench_dir,
                launch_timeout=launch_timeout, trust_recorded=trust_recorded,
                launcher_given=launcher if source != click.core.ParameterSource.DEFAULT else None)
            _set_test_timeout(state, test_timeout)
            budget_lines = resuming.budget_follows_timeout(state) if launch_timeout is not None else []
        except (st.CampaignFileError, PlanError):
            held.release()
            raise
        for line in budget_lines:
            click.echo(f"note: {line}", err=True)
        for line in resuming.build_changes(state, campaign_dir):
            click.echo(f"warning: {line}", err=True)
    else:
        campaign_dir = out or Path("results") / time.strftime("run-%Y%m%d-%H%M%S")
        hint = (f", or continue that campaign with --resume {campaign_dir}"
                if _holds_campaign(campaign_dir, st.CAMPAIGN_FILE) else "")
        lock.check_new_folder(campaign_dir, "--out", hint)
        if guidelines:  # both sides of every guideline, before the campaign is planned
            if ctx.command.description is None:
                fail("run", "--guidelines reads the mock-ups from mpimeter-bench --describe: no binary found "
                            f"({NO_BENCH_ADVICE})")
            bench_values["ops"] = guideline_plan.ops_with_mockups(
                ctx.command.description.operations, bench_values.get("ops"))
        request = make_request(np=np, launches=launches, mpi=mpi, variants=variants,
                               launcher=launcher, bench_dir=bench_dir, seed=seed,
                               launch_timeout=launch_timeout, bench_values=bench_values,
                               bench_extra=bench_extra, argv=argv, algorithms=algorithms,
                               preload_pgmpi=preload_pgmpi, platform=platform,
                               launches_rule={"min": launches_min, "max": launches_max,
                                              "precision": launches_precision,
                                              "confidence": launches_confidence})
        state = spec.prepare(request)
        if state.simulation is not None:  # the launch folders' paths reach the binary through smpirun
            simulation.check_words([str(campaign_dir), str(campaign_dir.absolute())], "--out")
        _set_test_timeout(state, test_timeout)
        state.analyze_after = analyze
        state.suite = suite.record() if suite is not None else None
        held = lock.lock_new_folder(campaign_dir, "--out", "run", hint)
    with held:
        outcome = execute_campaign(state, campaign_dir, argv=argv, retries=retries,
                                   resumed=resume is not None)
        if ctx.get_parameter_source("analyze") == click.core.ParameterSource.DEFAULT:
            analyze = state.analyze_after is not False  # --resume: as the first run was told
        if analyze and state.counts()["complete"]:
            _analyze_after(campaign_dir)
    if outcome.status != "complete":
        click.echo(f"some launches failed; retry them with: {resume_command(state, campaign_dir)}",
                   err=True)
        sys.exit(EXIT_FAILED_LAUNCHES)


def _folder(value: str | None, param: click.Parameter) -> Path | None:
    """--out and --resume as given. An empty one is refused, not taken for `.` (Path('') is the
    current folder): `--out "$OUT"` with OUT unset would write, and `--resume "$DIR"` resume, the
    campaign of whatever folder the command runs in (CONTRIBUTING.md: nothing the user gave is
    silently changed)."""
    if value is None:
        return None
    if not value:
        raise click.BadParameter("an empty path; give a folder (or leave the option out)", param=param)
    return Path(value)


def _holds_campaign(folder: Path, campaign_file: str) -> bool:
    """Whether `folder` holds a campaign.json: --resume reads it, so only then is --resume advised
    (a folder of anything else cannot be resumed, and the advice would not help). A path the
    system refuses (too long, ...) holds none; check_new_folder says what is wrong with it."""
    try:
        return (folder / campaign_file).is_file()
    except OSError:
        return False


def _refuse_campaign_options(ctx: click.Context) -> None:
    """--resume takes the campaign's settings from campaign.json: any other option given is
    refused, named as the user gives it."""
    # an empty `-- BENCH_ARGS` is not given: click 8.2 (the oldest pyproject accepts)
    # reports an absent nargs=-1 argument as COMMANDLINE
    given = [name for name, value in ctx.params.items()
             if ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT
             and name not in RESUME_OPTIONS and not (name == "bench_extra" and not value)]
    if given:
        fail("run", f"--resume takes the settings from campaign.json; do not also give "
             f"{', '.join(_option_name(ctx, name) for name in given)}")


def _option_name(ctx: click.Context, name: str) -> str:
    """How the user gives a parameter: its long option (`--variant`, not the parameter's name
    `variants`), or `-- BENCH_ARGS` for the arguments after `--`: an error names what the user
    can find in --help (CONTRIBUTING.md, "The rules a review enforces")."""
    for param in ctx.command.params:
        if param.name == name:
            return "-- BENCH_ARGS" if isinstance(param, click.Argument) else max(param.opts, key=len)
    return "--" + name.replace("_", "-")


def _set_test_timeout(state, seconds: float | None) -> None:
    """--test-timeout, checked against the launch timeout (given or derived); kept by --resume."""
    if seconds is not None:
        state.test_timeout_s = limits.check_test_timeout(seconds, state.launch_timeout_s)


def _analyze_after(campaign_dir: Path) -> None:
    """The analysis and report after the campaign. Ctrl-C, SIGTERM or SIGHUP stop them, as they
    stop a campaign: exit 130, saying how to make them again (the launches are all recorded)."""
    from mpimeter.cli import after_run

    try:
        with stop_signals_as_interrupt():
            after_run.after_campaign(campaign_dir, echo=click.echo)
    except KeyboardInterrupt:
        folder = shlex.quote(str(campaign_dir))
        report = shlex.quote(str(Path(campaign_dir) / after_run.REPORT_FILE))
        click.echo(f"\nanalysis interrupted (the launches are recorded); redo it with: mpimeter analyze {folder} "
                   f"and mpimeter report {folder} -o {report}", err=True)
        sys.exit(EXIT_INTERRUPTED)
