"""`mpimeter run`: a campaign of launches of mpimeter-bench (see mpimeter.campaign)."""

from __future__ import annotations

import shlex
import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import click

from mpimeter.campaign import benchopts, followup, spec
from mpimeter.campaign import state as st
from mpimeter.campaign.executor import SubprocessExecutor
from mpimeter.campaign.plan import PlanError
from mpimeter.campaign.progress import make_progress
from mpimeter.campaign.runner import CampaignRunner, RunOutcome
from mpimeter.cli.analyze import fail  # "mpimeter <command>: error: ...", exit 2

EXIT_FAILED_LAUNCHES = 1
EXIT_INTERRUPTED = 130
# Options that may be combined with --resume (everything else comes from campaign.json).
RESUME_OPTIONS = frozenset({"resume", "launch_timeout", "retries", "no_analyze"})


class FloatOrAuto(click.ParamType):
    """A number, or the word `auto` (mpimeter-bench chooses, e.g. the window from a pilot)."""

    name = "number|auto"

    def convert(self, value, param, ctx):
        if isinstance(value, float) or value == "auto":
            return value
        try:
            return float(value)
        except ValueError:
            self.fail(f"{value!r} is neither a number nor auto", param, ctx)


def _bench_option(opt: benchopts.BenchOption):
    kind = ({"int": int, "float": float, "str": str, "float-or-auto": FloatOrAuto()}.get(opt.kind)
            or click.Choice(opt.choices))
    return click.option(opt.flag, opt.dest, type=kind, default=None, help=opt.help + " [bench]")


def _with_bench_options(fn):
    for opt in reversed(benchopts.BENCH_OPTIONS):
        fn = _bench_option(opt)(fn)
    return fn


def campaign_options(fn):
    """The options that define a campaign (shared with `mpimeter reproducibility`)."""
    options = [
        click.option("--np", "np", type=int, default=None,
                     help="ranks per launch [default: the machine's cores, at least 2]"),
        click.option("--launches", type=int, default=10, show_default=True,
                     help="launches (mpiruns) per alternative; 10-30 (Hunold & Carpen-Amarie §4.2)"),
        click.option("--mpi", default=None,
                     help="MPI libraries, comma-separated (openmpi,mpich) [default: every one built]"),
        click.option("--variant", "variants", multiple=True, metavar="NAME='ENV=VALUE ...'",
                     help="one more alternative: a library with these environment settings, "
                          "next to the library as it is (repeatable). OMPI_*/OPAL_*/PRTE_* "
                          "run with openmpi only, MPIR_CVAR_*/MPICH_*/HYDRA_* with "
                          "mpich only, other variables with every library"),
        click.option("--launcher", default="local", show_default=True,
                     help="local, srun, or a template with {np} and {cmd}"),
        click.option("--bench-dir", type=click.Path(path_type=Path), default=None,
                     help="folder holding <lib>/bin/mpimeter-bench [default: $MPIMETER_BENCH_DIR, "
                          "else build/ of this repository]"),
        click.option("--seed", type=int, default=None, help="campaign seed [default: drawn, recorded]"),
        click.option("--launch-timeout", type=float, default=None,
                     help="seconds before a launch is stopped [default: derived from the plan]"),
        click.option("--retries", type=int, default=1, show_default=True,
                     help="rounds of retries of failed launches at the end"),
    ]
    fn = _with_bench_options(fn)
    for option in reversed(options):
        fn = option(fn)
    return fn


def make_request(*, np, launches, mpi, variants, launcher, bench_dir, seed, launch_timeout,
                 bench_values, bench_extra, argv) -> spec.CampaignRequest:
    return spec.CampaignRequest(
        np=np, launches=launches, mpis=[m.strip() for m in mpi.split(",")] if mpi is not None else None,
        variants=list(variants), launcher=launcher, bench_dir=bench_dir,
        bench_values={k: v for k, v in bench_values.items() if v is not None},
        extra_bench_args=list(bench_extra), seed=seed, launch_timeout_s=launch_timeout,
        command=shlex.join(argv))


def check_new_folder(folder: Path, option: str, command: str = "run") -> None:
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        fail(command, f"{option} {folder} exists and is not empty; choose another folder"
             + (f", or continue that campaign with --resume {folder}" if command == "run"
                else ""))


@click.command("run", context_settings={"help_option_names": ["-h", "--help"]})
@campaign_options
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="campaign folder to create [default: results/run-<date>-<time>]")
@click.option("--resume", type=click.Path(path_type=Path), default=None,
              help="continue the campaign in this folder (settings from its campaign.json)")
@click.option("--no-analyze", is_flag=True, help="do not print the analysis or write the report")
@click.argument("bench_extra", nargs=-1, type=click.UNPROCESSED, metavar="[-- BENCH_ARGS...]")
@click.pass_context
def command(ctx: click.Context, np, launches, mpi, variants, launcher, bench_dir, out, resume,
            seed, launch_timeout, retries, no_analyze, bench_extra, **bench_values) -> None:
    """Run a campaign: LAUNCHES launches of mpimeter-bench per alternative, interleaved in a
    seeded random order, each with its own seed and folder; failures are retried once at the
    end; Ctrl-C stops cleanly and --resume continues.

    The options marked [bench] are passed on to mpimeter-bench, and so is everything after `--`.
    """
    argv = ["mpimeter", "run", *sys.argv[2:]] if len(sys.argv) > 1 else ["mpimeter", "run"]
    if retries < 0:
        fail("run", f"--retries {retries}: must be 0 or more")
    if resume is not None:
        given = [name for name, value in ctx.params.items()
                 if ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT
                 and name not in RESUME_OPTIONS]
        if given:
            fail("run", f"--resume takes the settings from campaign.json; do not also give "
                 f"{', '.join('--' + g.replace('_', '-') for g in given)}")
        try:
            state = st.load(resume)
            spec.check_resumable(state)
        except (st.CampaignFileError, PlanError) as exc:
            fail("run", str(exc))
        if launch_timeout is not None:
            if launch_timeout <= 0:
                fail("run", f"--launch-timeout {launch_timeout:g}: must be positive (seconds)")
            state.launch_timeout_s = launch_timeout
        campaign_dir = Path(resume)
    else:
        campaign_dir = out or Path("results") / time.strftime("run-%Y%m%d-%H%M%S")
        check_new_folder(campaign_dir, "--out")
        request = make_request(np=np, launches=launches, mpi=mpi, variants=variants,
                               launcher=launcher, bench_dir=bench_dir, seed=seed,
                               launch_timeout=launch_timeout, bench_values=bench_values,
                               bench_extra=bench_extra, argv=argv)
        try:
            state = spec.prepare(request)
        except PlanError as exc:
            fail("run", str(exc))
        try:
            campaign_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            fail("run", f"--out {campaign_dir}: cannot create it ({exc.strerror})")
    outcome = execute_campaign(state, campaign_dir, argv=argv, retries=retries,
                               resumed=resume is not None)
    if not no_analyze and state.counts()["complete"]:
        followup.after_campaign(campaign_dir, echo=click.echo)
    if outcome.status != "complete":
        click.echo(f"some launches failed; retry them with: mpimeter run --resume {campaign_dir}",
                   err=True)
        sys.exit(EXIT_FAILED_LAUNCHES)


def execute_campaign(state: st.CampaignState, campaign_dir: Path, *, argv: list[str],
                     retries: int, resumed: bool, command: str = "run") -> RunOutcome:
    """Runs a prepared campaign with the real executor and prints its summary. Exits 2 when
    the bench refused its options and 130 on Ctrl-C; returns the outcome otherwise."""
    _describe(state, campaign_dir, resumed=resumed)
    runner = CampaignRunner(state, campaign_dir, SubprocessExecutor(), progress=make_progress(),
                            retries=retries, argv=argv, resumed=resumed)
    t0 = time.monotonic()
    with _sigterm_as_interrupt():
        outcome = runner.run()
    wall = time.monotonic() - t0
    counts = state.counts()
    click.echo(f"campaign {outcome.status} in {wall:.0f} s: {counts['complete']} complete, "
               f"{counts['failed']} failed, {counts['incomplete']} incomplete, "
               f"{counts['pending']} pending — {campaign_dir / st.CAMPAIGN_FILE}")
    if outcome.status == "refused":
        fail(command, outcome.message)
    if outcome.status == "interrupted":
        click.echo(f"interrupted; continue with: mpimeter run --resume {campaign_dir}", err=True)
        sys.exit(EXIT_INTERRUPTED)
    for rec in state.launches:
        if rec.status != "complete":
            click.echo(f"  {rec.alternative} #{rec.index:03d}: {rec.status} ({rec.reason}); "
                       f"stderr: {rec.stderr_log}", err=True)
    return outcome


def _describe(state: st.CampaignState, campaign_dir: Path, *, resumed: bool) -> None:
    alts = ", ".join(a.name + (f" ({' '.join(f'{k}={v}' for k, v in a.env.items())})"
                               if a.env else "") for a in state.alternatives)
    verb = "resuming" if resumed else "campaign"
    click.echo(f"{verb} {campaign_dir}: {state.launches_per_alternative} launches × "
               f"{len(state.alternatives)} alternative(s) [{alts}], {state.np} ranks, "
               f"seed {state.seed}, launch timeout {state.launch_timeout_s:g} s")
    click.echo(f"  bench args: {shlex.join(state.bench_args)}")
    for note in state.notes if not resumed else []:
        click.echo(f"  note: {note}")


@contextmanager
def _sigterm_as_interrupt():
    """A SIGTERM (a batch system ending the job) stops the campaign like a Ctrl-C."""
    def handler(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
