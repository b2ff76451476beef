# SPDX-License-Identifier: BSD-3-Clause
"""What `mpimeter run` and `mpimeter reproducibility` share: the options that define a campaign,
the request made of them, and running a prepared campaign with its summary (mpimeter.campaign)."""

from __future__ import annotations

import shlex
import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mpimeter.campaign import limits
from mpimeter.cli.output import fail  # "mpimeter <command>: error: ...", exit 2
from mpimeter.io.bench_binaries import DEFAULT_BENCH_DIR_TEXT

# The options need limits alone; what running a campaign needs is imported where it runs, so
# that `mpimeter run --help` and `reproducibility --help` answer without planning or the runner.
if TYPE_CHECKING:
    from mpimeter.campaign import spec
    from mpimeter.campaign import state as st
    from mpimeter.campaign.runner import RunOutcome

EXIT_FAILED_LAUNCHES = 1
EXIT_INTERRUPTED = 130


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
        click.option("--np", "np", type=str, default=None, metavar="LIST",
                     help=f"ranks per launch, at most {limits.MAX_NP} (--launcher local: "
                          f"{limits.LOCAL_RANKS_PER_CPU} per core); a list runs every alternative "
                          "at each: 2,4,8, 2:64:x2 (geometric), 2:8:+2 (arithmetic) [default: "
                          "the machine's cores, at least 2; srun (--launcher srun or an srun template) in an allocation: its tasks]"),
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
                     help=f"folder holding <lib>/bin/mpimeter-bench [default: {DEFAULT_BENCH_DIR_TEXT}] "
                          "(with --resume: the binaries to use from now on)"),
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
                 bench_values, bench_extra, argv, launches_rule=None, algorithms=(),
                 preload_pgmpi=None, platform=None) -> spec.CampaignRequest:
    from mpimeter.campaign import secrets, spec

    return spec.CampaignRequest(
        algorithms=list(algorithms),
        np=np, launches=launches, launches_rule=dict(launches_rule or {}), mpis=[m.strip() for m in mpi.split(",")] if mpi is not None else None,
        variants=list(variants), launcher=launcher, bench_dir=bench_dir,
        bench_values={k: v for k, v in bench_values.items() if v is not None},
        extra_bench_args=list(bench_extra), seed=seed, launch_timeout_s=launch_timeout, preload_pgmpi=preload_pgmpi,
        platform=platform,
        command=shlex.join(secrets.redact_argv(argv, secrets.secret_words(bench_dir))))


def resume_command(state: st.CampaignState, campaign_dir: Path) -> str:
    """The command that continues a campaign; a launcher template of the user's own is given
    again (campaign.json alone does not make `--resume` run it), and so is the bench dir when
    it is not the default one (`--resume` runs the binaries of the default otherwise)."""
    from mpimeter.campaign import resume as resuming
    from mpimeter.campaign import secrets

    again = "" if state.launcher in resuming.NAMED_LAUNCHERS else \
        f" --launcher {shlex.quote(secrets.redact_text(state.launcher, state.secret_words))}"
    bench_dir = _bench_dir_of(state)
    if bench_dir is not None:
        again += f" --bench-dir {shlex.quote(str(bench_dir))}"
    return f"mpimeter run --resume {shlex.quote(str(campaign_dir))}{again}"


def _bench_dir_of(state: st.CampaignState) -> Path | None:
    """The bench dir the campaign's binaries (resolved paths) are in, when it is not the default
    one and its <lib>/bin/mpimeter-bench are they; None otherwise."""
    from mpimeter.io import bench_binaries

    def holds(folder: Path) -> bool:
        return all(bench_binaries.bench_binary(folder, alt.mpi).resolve() == Path(state.bench_binaries[alt.name])
                   for alt in state.alternatives)

    dirs = {Path(b).parents[2] for b in state.bench_binaries.values()}
    if len(dirs) != 1 or holds(bench_binaries.default_bench_dir()):
        return None
    folder = dirs.pop()
    return folder if holds(folder) else None


def execute_campaign(state: st.CampaignState, campaign_dir: Path, *, argv: list[str],
                     retries: int, resumed: bool, command: str = "run") -> RunOutcome:
    """Runs a prepared campaign (its folder locked by the caller) with the real executor and
    prints its summary. Exits 2 when the bench refused its options or campaign.json cannot be
    written, and 130 on Ctrl-C, SIGTERM or SIGHUP; returns the outcome otherwise."""
    from mpimeter.campaign import state as st
    from mpimeter.campaign.executor import SubprocessExecutor
    from mpimeter.campaign.progress import make_progress
    from mpimeter.campaign.runner import CampaignRunner

    _describe(state, campaign_dir, resumed=resumed)
    runner = CampaignRunner(state, campaign_dir, SubprocessExecutor(), progress=make_progress(),
                            retries=retries, argv=argv, resumed=resumed, notify=click.echo)
    t0 = time.monotonic()
    try:
        with stop_signals_as_interrupt():
            outcome = runner.run()
    except st.CampaignWriteError as exc:
        raise st.CampaignWriteError(f"{exc}; the campaign stopped (continue it with "
                                    f"{resume_command(state, campaign_dir)} once it can be written)") from None
    except OSError as exc:  # a launch's folder or logs could not be made, or stdout is gone
        fail(command, f"cannot write {exc.filename or 'the output'}: {exc.strerror or exc}; "
                      "the campaign stopped")
    wall = time.monotonic() - t0
    counts = state.counts()
    cut = f"{counts['cut']} cut by a test, " if counts["cut"] else ""
    click.echo(f"campaign {outcome.status} in {wall:.0f} s: {counts['complete']} complete, {cut}"
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
    for failed in state.failed_tests:  # measurement-level retry (campaign.testretry)
        click.echo(f"  {failed.alternative} test {failed.op} {failed.size} of launch #{failed.launch:03d}: "
                   f"{failed.status} after {len(failed.attempts)} failed attempt(s) "
                   f"({', '.join(a['how'] for a in failed.attempts)})", err=True)
    if outcome.message and outcome.status == "failed":
        click.echo(f"  {outcome.message}", err=True)
    return outcome


def _ranks(state: st.CampaignState) -> str:
    counts = state.process_counts
    if len(counts) == 1:
        return f"{counts[0]} ranks"
    return f"at each of {','.join(map(str, counts))} ranks"


def _describe(state: st.CampaignState, campaign_dir: Path, *, resumed: bool) -> None:
    """What is about to run: the plan, and the launcher template and bench binary of every
    alternative (secret values redacted)."""
    from mpimeter.campaign import secrets

    def settings(env: dict[str, str]) -> str:
        shown = " ".join(f"{k}={v}" for k, v in secrets.redact_env(env, state.secret_words).items())
        return f" ({shown})" if env else ""

    alts = ", ".join(a.name + settings(a.env) for a in state.alternatives)
    verb = "resuming" if resumed else "campaign"
    rule = state.adaptive
    count = (f"{state.launches_per_alternative}" if rule is None else
             f"{rule.min}–{rule.max} (auto: until ±{rule.precision:g} at {rule.confidence:g})")
    click.echo(f"{verb} {campaign_dir}: {count} launches × "
               f"{len(state.alternatives)} alternative(s) [{alts}], {_ranks(state)}, "
               f"seed {state.seed}, launch timeout {state.launch_timeout_s:g} s")
    click.echo(f"  bench args: {shlex.join(secrets.redact_argv(state.bench_args.argv(), state.secret_words))}")
    for label, per_alt in (("launcher", state.launch_templates), ("bench", state.bench_binaries)):
        groups: dict[str, list[str]] = {}
        for alt in state.alternatives:
            groups.setdefault(secrets.redact_text(per_alt[alt.name], state.secret_words), []).append(alt.name)
        for value, names in groups.items():
            which = f" ({', '.join(names)})" if len(groups) > 1 else ""
            click.echo(f"  {label}: {value}{which}")
    for note in state.notes if not resumed else []:
        click.echo(f"  note: {note}")


@contextmanager
def stop_signals_as_interrupt():
    """SIGTERM (a batch system ending the job) and SIGHUP (the terminal gone) stop the campaign
    like a Ctrl-C: the running launch is stopped and campaign.json says so. A signal the process
    was started ignoring (SIGHUP under nohup) stays ignored."""
    from mpimeter.campaign.executor import obeyed

    def handler(signum, frame):
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, handler) for sig in obeyed((signal.SIGTERM, signal.SIGHUP))}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
