"""From what a user asked for to a campaign record ready to run: every input validated once,
the defaults resolved (and written out explicitly, so campaign.json says exactly what ran)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from mpimeter.campaign import benchopts, launcher, plan
from mpimeter.campaign import state as st
from mpimeter.campaign.plan import PlanError
from mpimeter.campaign.runner import new_state

# Options the campaign sets per launch; a user may not pass them to the bench.
RESERVED_BENCH_FLAGS = ("--out", "--seed", "--force")


@dataclass
class CampaignRequest:
    np: int | None = None  # None: the machine's cores, at least 2
    launches: int = 10
    mpis: list[str] | None = None  # None: every library with a built binary
    variants: list[str] = field(default_factory=list)  # NAME='ENV=VALUE ...'
    launcher: str = "local"
    bench_dir: Path | None = None
    bench_values: dict[str, object] = field(default_factory=dict)  # BenchOption.dest -> value
    extra_bench_args: list[str] = field(default_factory=list)  # after `--`, passed verbatim
    seed: int | None = None
    launch_timeout_s: float | None = None
    command: str = "mpimeter run"


def default_np() -> int:
    return max(2, len(os.sched_getaffinity(0)))


def prepare(request: CampaignRequest) -> st.CampaignState:
    """Validates everything and builds the campaign record. Raises PlanError."""
    np = default_np() if request.np is None else request.np
    if np < 1:
        raise PlanError(f"--np {np}: must be at least 1")
    if request.launches < 1:
        raise PlanError(f"--launches {request.launches}: must be at least 1")
    if request.launch_timeout_s is not None and request.launch_timeout_s <= 0:
        raise PlanError(f"--launch-timeout {request.launch_timeout_s:g}: must be positive (seconds)")
    for token in request.extra_bench_args:
        if token.split("=", 1)[0] in RESERVED_BENCH_FLAGS:
            raise PlanError(f"{token}: the campaign sets {', '.join(RESERVED_BENCH_FLAGS)} itself "
                            "(one launch folder and one seed per launch)")
    bench_dir = Path(request.bench_dir) if request.bench_dir else launcher.default_bench_dir()
    mpis = request.mpis
    if mpis is not None and not all(mpis):
        raise PlanError(f"--mpi {','.join(mpis)!r}: empty library name; allowed: "
                        f"{', '.join(launcher.MPI_LIBRARIES)}, comma-separated (or leave --mpi "
                        "out for every library built)")
    found_under = None
    if not mpis:
        mpis = launcher.found_libraries(bench_dir)
        found_under = str(bench_dir)
        if not mpis:
            raise PlanError(f"no MPI library found: no <lib>/bin/mpimeter-bench under {bench_dir} "
                            f"for {', '.join(launcher.MPI_LIBRARIES)} (run `make build`, or give "
                            f"--bench-dir / ${launcher.BENCH_DIR_ENV})")
    variants = [plan.parse_variant(v) for v in request.variants]
    alternatives = plan.make_alternatives(list(mpis), variants, found_under=found_under)

    binaries: dict[str, str] = {}
    templates: dict[str, str] = {}
    for alt in alternatives:
        binaries[alt.name] = str(launcher.check_binary(bench_dir, alt.mpi))
        templates[alt.name] = launcher.resolve_template(request.launcher, alt.mpi, sorted(alt.env))
        launcher.check_launcher_program(templates[alt.name])
        launcher.check_template_fits(templates[alt.name], alt.mpi, sorted({a.mpi for a in alternatives}))

    distinct = sorted(set(binaries.values()))
    known_ops = benchopts.bench_ops(Path(distinct[0]))
    help_text = benchopts.bench_help(Path(distinct[0]))
    known_names = benchopts.help_lists(help_text) if help_text else None
    benchopts.check_bench_args(request.bench_values, np, known_ops, known_names)
    notes = []
    clocksync, why = benchopts.FALLBACK_CLOCKSYNC, ""
    if request.bench_values.get("clocksync") is None:
        answers = [benchopts.best_clocksync(Path(b)) for b in distinct]
        clocksync = (benchopts.BEST_CLOCKSYNC
                     if all(a[0] == benchopts.BEST_CLOCKSYNC for a in answers)
                     else benchopts.FALLBACK_CLOCKSYNC)
        why = "; ".join(sorted({a[1] for a in answers}))
        notes.append(f"default clock sync {clocksync}: {why}")
    if known_ops is None:
        notes.append("mpimeter-bench --list-ops did not answer: operation names are checked by "
                     "the first launch")
    bench_args = benchopts.resolve_bench_args(request.bench_values, clocksync)
    bench_args += list(request.extra_bench_args)
    timeout = request.launch_timeout_s
    if timeout is None:
        timeout = benchopts.default_launch_timeout(bench_args, np)
        notes.append(f"launch timeout {timeout:g} s, derived from the plan")
    seed = plan.draw_campaign_seed() if request.seed is None else request.seed
    order = plan.interleave([a.name for a in alternatives], request.launches, seed)
    return new_state(command=request.command, bench_args=bench_args, launcher=request.launcher,
                     np=np, launches=request.launches, seed=seed, alternatives=alternatives,
                     templates=templates, binaries=binaries, timeout_s=timeout, order=order,
                     notes=notes)


def check_resumable(state: st.CampaignState) -> None:
    """A campaign can be resumed when the binaries and launcher programs it used still exist."""
    for alt in state.alternatives:
        binary = Path(state.bench_binaries[alt.name])
        if not (binary.is_file() and os.access(binary, os.X_OK)):
            raise PlanError(f"cannot resume: {alt.name}'s mpimeter-bench {binary} is gone "
                            "(rebuild it with `make build`)")
        launcher.check_launcher_program(state.launch_templates[alt.name])
