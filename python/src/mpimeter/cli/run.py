"""`mpimeter run`: a campaign of launches of mpimeter-bench (see mpimeter.campaign)."""

from __future__ import annotations

import shlex
import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import click

from mpimeter.campaign import adaptive as _adaptive
from mpimeter.campaign import followup, limits, lock, secrets, spec
from mpimeter.campaign import resume as resuming
from mpimeter.campaign import state as st
from mpimeter.campaign.executor import SubprocessExecutor
from mpimeter.campaign.plan import PlanError
from mpimeter.campaign.progress import make_progress
from mpimeter.campaign.runner import CampaignRunner, RunOutcome
from mpimeter.cli.analyze import fail  # "mpimeter <command>: error: ...", exit 2
from mpimeter.cli.benchparams import DescribedCommand

EXIT_FAILED_LAUNCHES = 1
EXIT_INTERRUPTED = 130
# Options that may be combined with --resume (everything else comes from campaign.json);
# --launcher and --bench-dir choose again what runs (campaign.resume).
RESUME_OPTIONS = frozenset({"resume", "launch_timeout", "retries", "no_analyze", "launcher",
                            "bench_dir", "trust_recorded"})


class LaunchCount(click.ParamType):
    """--launches: a number, or auto (campaign.adaptive: until every pair is precise enough)."""

    name = "N|auto"

    def convert(self, value, param, ctx):
        if isinstance(value, int) or value == "auto":
            return value
        try:
            return int(value, 10)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is neither a whole number nor auto", param, ctx)


def campaign_options(fn):
    """The options that define a campaign (shared with `mpimeter reproducibility`). The options
    passed on to mpimeter-bench ([bench]) are added by the command class (DescribedCommand) from
    the binary's own description."""
    options = [
        click.option("--np", "np", type=int, default=None,
                     help=f"ranks per launch, at most {limits.MAX_NP} (--launcher local: "
                          f"{limits.LOCAL_RANKS_PER_CPU} per core) [default: the machine's "
                          "cores, at least 2]"),
        click.option("--launches", type=LaunchCount(), default=10, show_default=True,
                     help="launches (mpiruns) per alternative; 10-30 (Hunold & Carpen-Amarie "
                          f"§4.2), at most {limits.MAX_LAUNCHES} ({limits.MAX_TOTAL_LAUNCHES} in "
                          "all); auto = from --launches-min on, until the interval of every (op, "
                          "size)'s median across launches is within ±--launches-precision, at most "
                          "--launches-max, each added launch running only the tests that need it"),
        click.option("--mpi", default=None,
                     help="MPI libraries, comma-separated (openmpi,mpich) [default: every one built]"),
        click.option("--variant", "variants", multiple=True, metavar="NAME='ENV=VALUE ...'",
                     help="one more alternative: a library with these environment settings, "
                          "next to the library as it is (repeatable). OMPI_*/OPAL_*/PRTE_* "
                          "run with openmpi only, MPIR_CVAR_*/MPICH_*/HYDRA_* with "
                          "mpich only, other variables with every library"),
        click.option("--launcher", default="local", show_default=True,
                     help="local, srun, or a template with {np} and {cmd} (with --resume: "
                          "the launcher to use from now on)"),
        click.option("--bench-dir", type=click.Path(path_type=Path), default=None,
                     help="folder holding <lib>/bin/mpimeter-bench [default: $MPIMETER_BENCH_DIR, "
                          "else build/ of this repository] (with --resume: the binaries to use "
                          "from now on)"),
        click.option("--seed", type=int, default=None,
                     help=f"campaign seed, 0 to {limits.SEED_LIMIT} [default: drawn, recorded]"),
        click.option("--launch-timeout", type=float, default=None,
                     help="seconds before a launch is stopped, at most "
                          f"{limits.MAX_LAUNCH_TIMEOUT_S:g} [default: derived from the plan, "
                          f"at most {limits.MAX_DERIVED_LAUNCH_TIMEOUT_S:g}]"),
        click.option("--retries", type=int, default=1, show_default=True,
                     help=f"rounds of retries of failed launches at the end (at most "
                          f"{limits.MAX_RETRIES})"),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def make_request(*, np, launches, mpi, variants, launcher, bench_dir, seed, launch_timeout,
                 bench_values, bench_extra, argv, launches_rule=None) -> spec.CampaignRequest:
    return spec.CampaignRequest(
        np=np, launches=launches, launches_rule=dict(launches_rule or {}), mpis=[m.strip() for m in mpi.split(",")] if mpi is not None else None,
        variants=list(variants), launcher=launcher, bench_dir=bench_dir,
        bench_values={k: v for k, v in bench_values.items() if v is not None},
        extra_bench_args=list(bench_extra), seed=seed, launch_timeout_s=launch_timeout,
        command=shlex.join(secrets.redact_argv(argv)))


def refused(command: str, call):
    """call(), with a folder refused or a bad number said in one line (exit 2)."""
    try:
        return call()
    except (lock.FolderRefused, PlanError) as exc:
        fail(command, str(exc))


@click.command("run", cls=DescribedCommand, bench_mode="bench",
               context_settings={"help_option_names": ["-h", "--help"]})
@campaign_options
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="campaign folder to create [default: results/run-<date>-<time>]")
@click.option("--resume", type=click.Path(path_type=Path), default=None,
              help="continue the campaign in this folder (settings from its campaign.json)")
@click.option("--trust-recorded", is_flag=True,
              help="with --resume: run the environment variables and launcher template campaign.json "
                   "records (shown first); without it they are refused (variables of the loader or an "
                   "interpreter, LD_*, DYLD_*, PYTHON*, ..., never come from the file)")
@click.option("--no-analyze", is_flag=True, help="do not print the analysis or write the report")
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
@click.argument("bench_extra", nargs=-1, type=click.UNPROCESSED, metavar="[-- BENCH_ARGS...]")
@click.pass_context
def command(ctx: click.Context, np, launches, mpi, variants, launcher, bench_dir, out, resume,
            seed, launch_timeout, retries, trust_recorded, no_analyze, launches_min, launches_max, launches_precision,
            launches_confidence, bench_extra, **bench_values) -> None:
    """Run a campaign: LAUNCHES launches of mpimeter-bench per alternative, interleaved in a
    seeded random order, each with its own seed and folder; failures are retried once at the
    end; Ctrl-C stops cleanly and --resume continues.

    The options marked [bench] are passed on to mpimeter-bench, and so is everything after `--`.
    """
    argv = ["mpimeter", "run", *sys.argv[2:]] if len(sys.argv) > 1 else ["mpimeter", "run"]
    refused("run", lambda: limits.check_retries(retries))
    if trust_recorded and resume is None:
        fail("run", "--trust-recorded confirms what campaign.json records: it goes with --resume only")
    if resume is not None:
        given = [name for name, value in ctx.params.items()
                 if ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT
                 and name not in RESUME_OPTIONS]
        if given:
            fail("run", f"--resume takes the settings from campaign.json; do not also give "
                 f"{', '.join('--' + g.replace('_', '-') for g in given)}")
        campaign_dir = Path(resume)
        held = refused("run", lambda: lock.lock_existing_folder(campaign_dir, "--resume", "run"))
        source = ctx.get_parameter_source("launcher")
        try:
            state = resuming.prepare(
                st.load(campaign_dir), campaign_dir, bench_dir=bench_dir,
                launch_timeout=launch_timeout, trust_recorded=trust_recorded,
                launcher_given=launcher if source != click.core.ParameterSource.DEFAULT else None)
        except (st.CampaignFileError, PlanError) as exc:
            held.release()
            fail("run", str(exc))
    else:
        campaign_dir = out or Path("results") / time.strftime("run-%Y%m%d-%H%M%S")
        hint = f", or continue that campaign with --resume {campaign_dir}"
        refused("run", lambda: lock.check_new_folder(campaign_dir, "--out", hint))
        request = make_request(np=np, launches=launches, mpi=mpi, variants=variants,
                               launcher=launcher, bench_dir=bench_dir, seed=seed,
                               launch_timeout=launch_timeout, bench_values=bench_values,
                               bench_extra=bench_extra, argv=argv,
                               launches_rule={"min": launches_min, "max": launches_max,
                                              "precision": launches_precision,
                                              "confidence": launches_confidence})
        state = refused("run", lambda: spec.prepare(request))
        held = refused("run", lambda: lock.lock_new_folder(campaign_dir, "--out", "run", hint))
    with held:
        outcome = execute_campaign(state, campaign_dir, argv=argv, retries=retries,
                                   resumed=resume is not None)
        if not no_analyze and state.counts()["complete"]:
            followup.after_campaign(campaign_dir, echo=click.echo)
    if outcome.status != "complete":
        click.echo(f"some launches failed; retry them with: {resume_command(state, campaign_dir)}",
                   err=True)
        sys.exit(EXIT_FAILED_LAUNCHES)


def resume_command(state: st.CampaignState, campaign_dir: Path) -> str:
    """The command that continues a campaign; a launcher template of the user's own is given
    again (campaign.json alone does not make `--resume` run it)."""
    again = "" if state.launcher in resuming.NAMED_LAUNCHERS else \
        f" --launcher {shlex.quote(secrets.redact_text(state.launcher))}"
    return f"mpimeter run --resume {shlex.quote(str(campaign_dir))}{again}"


def execute_campaign(state: st.CampaignState, campaign_dir: Path, *, argv: list[str],
                     retries: int, resumed: bool, command: str = "run") -> RunOutcome:
    """Runs a prepared campaign (its folder locked by the caller) with the real executor and
    prints its summary. Exits 2 when the bench refused its options or campaign.json cannot be
    written, and 130 on Ctrl-C, SIGTERM or SIGHUP; returns the outcome otherwise."""
    _describe(state, campaign_dir, resumed=resumed)
    runner = CampaignRunner(state, campaign_dir, SubprocessExecutor(), progress=make_progress(),
                            retries=retries, argv=argv, resumed=resumed, notify=click.echo)
    t0 = time.monotonic()
    try:
        with _stop_signals_as_interrupt():
            outcome = runner.run()
    except st.CampaignWriteError as exc:
        fail(command, f"{exc}; the campaign stopped (continue it with "
                      f"{resume_command(state, campaign_dir)} once it can be written)")
    except OSError as exc:  # a launch's folder or logs could not be made, or stdout is gone
        fail(command, f"cannot write {exc.filename or 'the output'}: {exc.strerror or exc}; "
                      "the campaign stopped")
    wall = time.monotonic() - t0
    counts = state.counts()
    click.echo(f"campaign {outcome.status} in {wall:.0f} s: {counts['complete']} complete, "
               f"{counts['failed']} failed, {counts['incomplete']} incomplete, "
               f"{counts['pending']} pending — {campaign_dir / st.CAMPAIGN_FILE}")
    if outcome.status == "refused":
        fail(command, outcome.message)
    if outcome.status == "interrupted":
        click.echo(f"interrupted; continue with: {resume_command(state, campaign_dir)}", err=True)
        sys.exit(EXIT_INTERRUPTED)
    for rec in state.launches:
        if rec.status != "complete":
            click.echo(f"  {rec.alternative} #{rec.index:03d}: {rec.status} ({rec.reason}); "
                       f"stderr: {rec.stderr_log}", err=True)
    return outcome


def _describe(state: st.CampaignState, campaign_dir: Path, *, resumed: bool) -> None:
    """What is about to run: the plan, and the launcher template and bench binary of every
    alternative (secret values redacted)."""
    def settings(env: dict[str, str]) -> str:
        shown = " ".join(f"{k}={v}" for k, v in secrets.redact_env(env).items())
        return f" ({shown})" if env else ""

    alts = ", ".join(a.name + settings(a.env) for a in state.alternatives)
    verb = "resuming" if resumed else "campaign"
    rule = state.adaptive
    count = (f"{state.launches_per_alternative}" if rule is None else
             f"{rule.min}–{rule.max} (auto: until ±{rule.precision:g} at {rule.confidence:g})")
    click.echo(f"{verb} {campaign_dir}: {count} launches × "
               f"{len(state.alternatives)} alternative(s) [{alts}], {state.np} ranks, "
               f"seed {state.seed}, launch timeout {state.launch_timeout_s:g} s")
    click.echo(f"  bench args: {shlex.join(secrets.redact_argv(state.bench_args))}")
    for label, per_alt in (("launcher", state.launch_templates), ("bench", state.bench_binaries)):
        groups: dict[str, list[str]] = {}
        for alt in state.alternatives:
            groups.setdefault(secrets.redact_text(per_alt[alt.name]), []).append(alt.name)
        for value, names in groups.items():
            which = f" ({', '.join(names)})" if len(groups) > 1 else ""
            click.echo(f"  {label}: {value}{which}")
    for note in state.notes if not resumed else []:
        click.echo(f"  note: {note}")


@contextmanager
def _stop_signals_as_interrupt():
    """SIGTERM (a batch system ending the job) and SIGHUP (the terminal gone) stop the campaign
    like a Ctrl-C: the running launch is stopped and campaign.json says so."""
    def handler(signum, frame):
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
