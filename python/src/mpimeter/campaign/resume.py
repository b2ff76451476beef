# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --resume`: what a campaign read back from campaign.json may run.

campaign.json is untrusted (state.load checks every value and path). What it would have run is
checked here against what the user asks for now: commands recorded in a file are not run
without the user asking again.
- the launcher template of each alternative must be what the recorded launcher (`local`, for
  that alternative's library and variables, or `srun`) gives now; a template of the user's own
  is run only when given again with `--launcher`, and `--launcher` chooses a new one (recorded);
- the bench binary of each alternative must be `<bench dir>/<lib>/bin/mpimeter-bench` as found
  now, or the one under `--bench-dir` given again (recorded);
- nothing inside the campaign on the way to a launch folder may be a symbolic link (it would let
  a launch write, or a folder be moved, outside the campaign);
- a secret variant value is not in campaign.json: it comes from the environment of `--resume`;
  a redacted bench argument or launcher template cannot be run again: refused, saying so;
- what it writes from now on is redacted by the secret words campaign.json records together
  with those of the binaries it runs now (campaign.secrets), never by fewer;
- a variable campaign.json sets for an alternative still to run must be on the allow-list of
  what a file may set (:mod:`mpimeter.launch_vars`: the libraries' collective-tuning and
  progress-thread variables, each value of its type), even with `--trust-recorded`; any other variable runs only
  when the environment of `--resume` sets it to the same value (the user's own choice, not the
  file's). `run --variant`, the user's own command line, sets any variable;
- the allowed variables are shown and run only when confirmed with `--trust-recorded`;
- the bench arguments are checked again by the binary that will run them (its --describe and
  --validate: only options it describes, values within its bounds), and shown.
Every refusal is a PlanError (one line) before anything runs or moves.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from mpimeter.campaign import inputfiles, launch_env, launcher, limits, secrets, simulation
from mpimeter.campaign import state as st
from mpimeter.campaign.launch_record import DONE_STATUSES, alternative_prefix
from mpimeter.campaign.plan import PlanError

NAMED_LAUNCHERS = ("local", "srun")


def prepare(state: st.CampaignState, campaign_dir: Path, *, launcher_given: str | None = None,
            bench_dir: Path | None = None, launch_timeout: float | None = None,
            environ: Mapping[str, str] = os.environ, trust_recorded: bool = False) -> st.CampaignState:
    """Checks a loaded campaign against what may run now and applies what the user gave again.
    Raises PlanError."""
    if launch_timeout is not None:
        state.launch_timeout_s = limits.check_launch_timeout(launch_timeout)
    check_no_links(state, Path(campaign_dir))
    _allowed_variables(state, environ)
    _recorded_variables(state, environ, trust_recorded)
    _redacted_arguments(state, launcher_given)
    _templates(state, launcher_given, bench_dir, trust_recorded)
    _binaries(state, bench_dir)
    _secret_words(state, bench_dir)
    _bench_args(state)
    inputfiles.check_unchanged(state.bench_args, state.input_files, state.bench_binaries.values(), state.np)
    if state.simulation is not None:  # the platform is an input file of the simulated launches
        simulation.check_unchanged(state.simulation)
    _secrets(state, environ)
    return state


def _todo(state: st.CampaignState) -> set[str]:
    return {rec.alternative for rec in state.launches if rec.status not in DONE_STATUSES}


def _users_own(key: str, value: str, environ: Mapping[str, str]) -> bool:
    """A secret (its value comes from the environment) or a value the environment of `--resume`
    sets already: the launch gets it from the user, whatever the file says."""
    return value == secrets.REDACTED or environ.get(key) == value


def _allowed_variables(state: st.CampaignState, environ: Mapping[str, str]) -> None:
    todo = _todo(state)
    for alt in state.alternatives:
        for key, value in alt.env.items():
            if alt.name not in todo or _users_own(key, value, environ):
                continue
            why = launch_env.refusal(key, value)
            if why is not None:
                raise PlanError(
                    f"cannot resume: campaign.json, alternative {alt.name}: {why}. A variable recorded in a "
                    "file runs only when it is on this list, even with --trust-recorded; set it to the recorded "
                    "value in the environment of `mpimeter run --resume`, or start a new campaign with --variant "
                    "(your own command line sets any variable)")


def _recorded_variables(state: st.CampaignState, environ: Mapping[str, str], trust: bool) -> None:
    """The variables a file would set for the launches still to run: shown, and run only when
    confirmed (secret ones and those the environment sets already come from the user; every
    other one passed the allow-list above)."""
    todo = _todo(state)
    shown = []
    for alt in state.alternatives:
        plain = {k: v for k, v in alt.env.items() if not _users_own(k, v, environ)}
        if alt.name in todo and plain:
            shown.append(f"{alt.name}: " + " ".join(f"{k}={v}" for k, v in
                                                   secrets.redact_env(plain, state.secret_words).items()))
    if shown and not trust:
        raise PlanError(f"cannot resume: campaign.json sets environment variables for the launches still to run "
                        f"({'; '.join(shown)}); a variable recorded in a file is run only when confirmed: check "
                        "them and add --trust-recorded")


def _bench_args(state: st.CampaignState) -> None:
    """The recorded bench arguments, checked again by each binary that will run them."""
    from mpimeter.campaign import describe as _describe

    for alt in state.alternatives:
        try:
            for ranks in state.process_counts:
                _describe.validate(state.bench_binaries[alt.name], state.bench_args.argv(), ranks)
        except _describe.DescribeError as exc:
            raise PlanError(f"cannot resume: campaign.json's bench_args are refused by "
                            f"{state.bench_binaries[alt.name]}: {exc}") from None


BUDGET_FLAG = "--launch-budget-s"


def budget_follows_timeout(state: st.CampaignState) -> list[str]:
    """`--resume --launch-timeout`: the tests' time budget the tool derived from the first run's
    timeout (limits.budget_within_timeout) is derived again from the timeout given now, so that a
    longer timeout lets the tests run their repetitions and a shorter one still ends them before
    the timeout kills the launch. A budget the user gave (on any recorded command line: a file
    without them cannot say) is kept as given, and said when the timeout now cuts it. Returns
    the lines to show; the new value is in campaign.json's bench_args and each later launch's argv."""
    from mpimeter.campaign import describe as _describe

    current = state.bench_args.value(BUDGET_FLAG)
    limit = round(limits.BUDGET_SHARE_OF_TIMEOUT * state.launch_timeout_s, 1)
    if current is not None and not state.launch_budget_derived:
        if float(current) > limit:
            return [f"{BUDGET_FLAG} {current} (given) is kept: the launch timeout of {state.launch_timeout_s:g} s "
                    f"may kill a launch before its tests end with their rows (they end by {limit:g} s)"]
        return []
    free = state.bench_args.without(BUDGET_FLAG)
    binary = state.bench_binaries[state.alternatives[0].name]
    try:
        validated = _describe.validate(binary, free.argv(), state.np)
    except _describe.DescribeError as exc:
        raise PlanError(f"cannot resume: campaign.json's bench_args are refused by {binary}: {exc}") from None
    args, _ = limits.budget_within_timeout(free, validated, state.launch_timeout_s)
    now = args.value(BUDGET_FLAG)
    if now == current:
        return []
    state.bench_args = args
    state.launch_budget_derived = now is not None
    default = (validated.config.get("procsync_params") or {}).get("launch_budget_s")
    shown = f"{now} s" if now is not None else f"back to the binary's default, {default:g} s,"
    was = f"{current} s" if current is not None else "the binary's default"
    line = (f"{BUDGET_FLAG}: the tests' time budget is {shown} for the launches still to run (was {was}): "
            f"a budget the tool derived follows the launch timeout, now {state.launch_timeout_s:g} s "
            f"(at most {limits.BUDGET_SHARE_OF_TIMEOUT:.0%} of it)")
    state.notes.append(line)
    return [line]


def check_no_links(state: st.CampaignState, campaign_dir: Path) -> None:
    """Every folder between the campaign and its launch, attempt and log folders is a real
    folder (or not there yet)."""
    folders, files = set(), set()
    for rec in state.launches:
        prefix = alternative_prefix(state.alternatives, rec.alternative)
        folders |= {prefix.rstrip("/"), f"{prefix}launches", f"{prefix}attempts", f"{prefix}logs",
                    rec.folder}
        if rec.status not in DONE_STATUSES:  # the logs of its next attempt
            stem = f"{prefix}logs/{rec.index:03d}.{rec.attempts + 1}"
            files |= {f"{stem}.stdout", f"{stem}.stderr"}
    for place in sorted(p for p in folders | files if p):
        path = campaign_dir / place
        if path.is_symlink():
            raise PlanError(f"cannot resume: {path} is a symbolic link; a campaign folder holds "
                            "none (a launch would write, or a folder be moved, outside it)")
        if place in folders and path.exists() and not path.is_dir():
            raise PlanError(f"cannot resume: {path} is not a folder")


def _templates(state: st.CampaignState, given: str | None, bench_dir: Path | None, trust: bool = False) -> None:
    mpis = sorted({a.mpi for a in state.alternatives})
    if given is not None:
        for alt in state.alternatives:
            template = launcher.resolve_template(given, alt.mpi, sorted(alt.env), bench_dir=bench_dir,
                                                 simulation=state.simulation)
            launcher.check_launcher_program(template)
            if given != "local":  # local is each library's own launcher
                launcher.check_template_fits(template, alt.mpi, mpis)
            state.launch_templates[alt.name] = template
        state.launcher = given
        return
    for alt in state.alternatives:
        recorded = state.launch_templates[alt.name]
        if state.launcher not in NAMED_LAUNCHERS and trust:  # shown, and confirmed
            launcher.check_launcher_program(recorded)
            continue
        if state.launcher not in NAMED_LAUNCHERS:
            raise PlanError(f"cannot resume: campaign.json would run {alt.name} with the launcher "
                            f"template {recorded!r}; a template recorded in a file is run only "
                            f"when given again: add --launcher {shlex.quote(state.launcher)} "
                            "(or local, srun, another template), or confirm it with --trust-recorded")
        now = launcher.resolve_template(state.launcher, alt.mpi, sorted(alt.env), bench_dir=bench_dir,
                                        simulation=state.simulation)
        if recorded != now:
            raise PlanError(f"cannot resume: campaign.json gives {alt.name} the launcher template "
                            f"{recorded!r}, but --launcher {state.launcher} gives {now!r} now; "
                            "give --launcher with --resume to choose the launcher")
        launcher.check_launcher_program(now)


def _redacted_arguments(state: st.CampaignState, launcher_given: str | None) -> None:
    """A value campaign.json holds redacted is gone: bench arguments, or a launcher template
    not given again, holding one cannot run as they did."""
    where = [f"bench_args {shlex.join(state.bench_args.argv())}"] if secrets.REDACTED in state.bench_args.argv() else []
    if launcher_given is None:
        where += [f"{alt.name}'s launch_template {state.launch_templates[alt.name]!r}" for alt in state.alternatives
                  if secrets.REDACTED in state.launch_templates[alt.name]]
    if where:
        raise PlanError(f"cannot resume: campaign.json holds {where[0]} with {secrets.REDACTED} values (a secret, "
                        "or every value when no mpimeter-bench could give its secret words as it was written), "
                        "which cannot run again; start a new campaign (--out) with --bench-dir naming the "
                        "folder of the built mpimeter-bench")


def _secret_words(state: st.CampaignState, bench_dir: Path | None) -> None:
    """What is written from now on is redacted by the recorded words and those of the bench dir
    the launches run from: never by fewer than when the campaign was planned."""
    where = Path(bench_dir) if bench_dir is not None else launcher.default_bench_dir()
    state.secret_words = tuple(sorted(set(state.secret_words or ()) | set(secrets.secret_words(where))))


def _binaries(state: st.CampaignState, bench_dir: Path | None) -> None:
    where = Path(bench_dir) if bench_dir is not None else launcher.default_bench_dir()
    for alt in state.alternatives:
        try:
            found = str(launcher.check_binary(where, alt.mpi))
        except PlanError as exc:
            raise PlanError(f"cannot resume: {exc}") from None
        recorded = state.bench_binaries[alt.name]
        if bench_dir is None and recorded != found:
            raise PlanError(f"cannot resume: campaign.json runs {alt.name} with {recorded!r}, "
                            f"but {alt.mpi}'s mpimeter-bench is {found} now (under {where}); "
                            "give --bench-dir with --resume to run the one of that folder")
        state.bench_binaries[alt.name] = found


def _secrets(state: st.CampaignState, environ: Mapping[str, str]) -> None:
    """Secret values are not in campaign.json: each comes from the environment, for every
    alternative that still has launches to run."""
    todo = _todo(state)
    alternatives = []
    for alt in state.alternatives:
        env = dict(alt.env)
        for key, value in alt.env.items():
            if alt.name in todo and value == secrets.REDACTED:
                if key not in environ:
                    raise PlanError(f"cannot resume: alternative {alt.name} sets {key}, a secret "
                                    f"that campaign.json does not hold; set {key} in the "
                                    "environment of `mpimeter run --resume`")
                env[key] = environ[key]
        alternatives.append(replace(alt, env=env))
    state.alternatives = alternatives


def build_changes(state: st.CampaignState, campaign_dir: Path) -> list[str]:
    """One line per alternative with launches still to run whose binary now is another build
    (version or git revision, as its --describe says) than the one its complete launches recorded
    in meta.json (`tool`): `mpimeter analyze` refuses to pool launches of two builds (io.siblings),
    so the mix is said before it is made, not after the campaign (a rebuild under the same path,
    or another --bench-dir, looks the same to the path check of `_binaries`)."""
    from mpimeter.campaign import describe as _describe
    from mpimeter.io.errors import InputError
    from mpimeter.io.meta import read_document

    def build(tool) -> tuple[str, str] | None:
        if not isinstance(tool, Mapping):
            return None
        return str(tool.get("version")), str(tool.get("git_revision"))

    said = []
    for alt in state.alternatives:
        done = [r for r in state.launches if r.alternative == alt.name and r.status == "complete"]
        if alt.name not in _todo(state) or not done:
            continue
        try:
            now = build(_describe.describe(state.bench_binaries[alt.name]).tool)
            then = build(read_document(Path(campaign_dir) / done[0].folder / "meta.json").get("tool"))
        except (_describe.DescribeError, InputError, OSError):
            continue  # a binary or a launch that cannot be read is said by what reads it
        if now is not None and then is not None and now != then:
            said.append(f"{alt.name}: its mpimeter-bench {state.bench_binaries[alt.name]} is build "
                        f"{' '.join(now)}, its {len(done)} complete launch(es) ran build {' '.join(then)} "
                        f"(meta.json tool): `mpimeter analyze` will refuse to pool the two builds "
                        f"(--allow-mixed reads them with a warning); to keep the campaign one build, stop "
                        f"it (Ctrl-C) and resume with the --bench-dir of build {then[1]}")
    return said
