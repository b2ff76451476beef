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
- the environment variables of the alternatives still to run are shown and run only when
  confirmed with `--trust-recorded`; a variable that chooses what code the loader or an
  interpreter runs (:data:`LOADER_PREFIXES`: LD_PRELOAD, DYLD_*, PYTHONPATH, ...) is never taken
  from the file, even then: it runs only when the environment of `--resume` sets it to the same
  value (the user's own choice, not the file's);
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

from mpimeter.campaign import inputfiles, launcher, limits, secrets
from mpimeter.campaign import state as st
from mpimeter.campaign.plan import PlanError

NAMED_LAUNCHERS = ("local", "srun")
# Variables that make the dynamic loader, a shell or an interpreter load code of their choosing
# (ld.so(8), dyld(1), python(1), perl(1), bash(1), ...): never taken from a file.
LOADER_PREFIXES = ("LD_", "DYLD_", "PYTHON", "PERL5", "PERLLIB", "RUBYLIB", "RUBYOPT", "NODE_OPTIONS",
                   "NODE_PATH", "BASH_ENV", "ENV", "SHELLOPTS", "PS4", "IFS", "GCONV_PATH", "LOCPATH",
                   "NLSPATH", "MALLOC_", "GLIBC_TUNABLES", "HOSTALIASES", "PATH", "LUA_", "TCLLIBPATH",
                   "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "OPAL_PREFIX", "OMPI_MCA_mca_base_component_path",
                   "OMPI_MCA_plm_rsh_agent", "OMPI_MCA_orte_launch_agent", "PRTE_MCA_plm_ssh_agent",
                   "HYDRA_LAUNCHER_EXEC", "HYDRA_BOOTSTRAP_EXEC", "MPIEXEC_", "I_MPI_HYDRA_BOOTSTRAP_EXEC")


def is_loader_variable(name: str) -> bool:
    """Does the variable choose code the loader, a shell, an interpreter or the MPI launcher runs?
    Exact names (ENV, IFS, PATH, ...) or prefixes (LD_, DYLD_, PYTHON, MALLOC_, ...)."""
    exact = {"ENV", "IFS", "PATH", "PS4", "SHELLOPTS", "BASH_ENV", "GCONV_PATH", "LOCPATH", "NLSPATH",
             "HOSTALIASES", "GLIBC_TUNABLES", "NODE_OPTIONS", "NODE_PATH", "TCLLIBPATH", "OPAL_PREFIX",
             "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"}
    if name in exact:
        return True
    return any(name.startswith(p) for p in LOADER_PREFIXES if p not in exact)


def prepare(state: st.CampaignState, campaign_dir: Path, *, launcher_given: str | None = None,
            bench_dir: Path | None = None, launch_timeout: float | None = None,
            environ: Mapping[str, str] = os.environ, trust_recorded: bool = False) -> st.CampaignState:
    """Checks a loaded campaign against what may run now and applies what the user gave again.
    Raises PlanError."""
    if launch_timeout is not None:
        state.launch_timeout_s = limits.check_launch_timeout(launch_timeout)
    check_no_links(state, Path(campaign_dir))
    _loader_variables(state, environ)
    _recorded_variables(state, trust_recorded)
    _templates(state, launcher_given, bench_dir, trust_recorded)
    _binaries(state, bench_dir)
    _bench_args(state)
    inputfiles.check_unchanged(state.bench_args, state.input_files, state.bench_binaries.values(), state.np)
    _secrets(state, environ)
    return state


def _todo(state: st.CampaignState) -> set[str]:
    return {rec.alternative for rec in state.launches if rec.status != "complete"}


def _loader_variables(state: st.CampaignState, environ: Mapping[str, str]) -> None:
    todo = _todo(state)
    for alt in state.alternatives:
        for key, value in alt.env.items():
            if alt.name in todo and is_loader_variable(key) and environ.get(key) != value:
                raise PlanError(
                    f"cannot resume: campaign.json sets {key} for alternative {alt.name}; a variable that chooses "
                    "what code the loader or an interpreter runs is never taken from a file. Set it to the value "
                    f"you mean in the environment of `mpimeter run --resume` ({key}=..., the same value as "
                    "recorded), or start a new campaign with --variant")


def _recorded_variables(state: st.CampaignState, trust: bool) -> None:
    """The variables a file would set for the launches still to run: shown, and run only when
    confirmed (secret ones come from the environment, loader ones are checked above)."""
    todo = _todo(state)
    shown = []
    for alt in state.alternatives:
        plain = {k: v for k, v in alt.env.items() if v != secrets.REDACTED and not is_loader_variable(k)}
        if alt.name in todo and plain:
            shown.append(f"{alt.name}: " + " ".join(f"{k}={v}" for k, v in secrets.redact_env(plain).items()))
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


def check_no_links(state: st.CampaignState, campaign_dir: Path) -> None:
    """Every folder between the campaign and its launch, attempt and log folders is a real
    folder (or not there yet)."""
    folders, files = set(), set()
    for rec in state.launches:
        prefix = st.alternative_prefix(state.alternatives, rec.alternative)
        folders |= {prefix.rstrip("/"), f"{prefix}launches", f"{prefix}attempts", f"{prefix}logs",
                    rec.folder}
        if rec.status != "complete":  # the logs of its next attempt
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
            template = launcher.resolve_template(given, alt.mpi, sorted(alt.env), bench_dir=bench_dir)
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
        now = launcher.resolve_template(state.launcher, alt.mpi, sorted(alt.env), bench_dir=bench_dir)
        if recorded != now:
            raise PlanError(f"cannot resume: campaign.json gives {alt.name} the launcher template "
                            f"{recorded!r}, but --launcher {state.launcher} gives {now!r} now; "
                            "give --launcher with --resume to choose the launcher")
        launcher.check_launcher_program(now)


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
