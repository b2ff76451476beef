# SPDX-License-Identifier: BSD-3-Clause
"""From what a user asked for to a campaign record ready to run: every input validated once,
the defaults resolved (and written out explicitly, so campaign.json says exactly what ran)."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path

from mpimeter.campaign import adaptive as _adaptive
from mpimeter.campaign import algorithms as _algorithms
from mpimeter.campaign import benchopts, inputfiles, launch_env, launcher, limits, nplist, plan, secrets
from mpimeter.campaign import simulation as _simulation
from mpimeter.campaign import state as st
from mpimeter.campaign.benchargs import BenchArgs
from mpimeter.campaign.plan import PlanError
from mpimeter.campaign.runner import new_state
from mpimeter.campaign.state import RESERVED_BENCH_FLAGS
from mpimeter.io import slurm
from mpimeter.io.bench_binaries import NO_BENCH_ADVICE
from mpimeter.io.pgmpi_format import CONFIG_ENV, LIBRARY


@dataclass(kw_only=True)
class CampaignRequest:
    # ranks per launch: a number, a list or its text (campaign.nplist: "2,4", "2:64:x2");
    # None: the machine's cores, at least 2 (--launcher srun in an allocation: its tasks)
    np: int | str | list[int] | None = None
    launches: int | str = 10  # or "auto" (campaign.adaptive)
    # --launches auto: min, max, precision, confidence as given (None: the default)
    launches_rule: dict[str, object] = field(default_factory=dict)
    mpis: list[str] | None = None  # None: every library with a built binary
    variants: list[str] = field(default_factory=list)  # NAME='ENV=VALUE ...'
    algorithms: list[str] = field(default_factory=list)  # OP=all|NAME[,NAME..][;OP2=...] (campaign.algorithms)
    launcher: str = "local"
    bench_dir: Path | None = None
    bench_values: dict[str, object] = field(default_factory=dict)  # BenchOption.dest -> value
    extra_bench_args: list[str] = field(default_factory=list)  # after `--`, passed verbatim
    seed: int | None = None
    launch_timeout_s: float | None = None
    command: str = "mpimeter run"
    preload_pgmpi: Path | None = None  # libmpimeter-pgmpi.so's configuration (campaign.launch_env)
    platform: Path | None = None  # --mpi smpi: the SimGrid platform (None: the shipped one; campaign.simulation)


def _preload_pgmpi(alternatives: list[plan.Alternative], bench_dir: Path, config: Path) -> list[plan.Alternative]:
    """The alternatives, each preloading its library's libmpimeter-pgmpi.so with ``config`` (in
    its env, so that the launcher forwards it to every rank and campaign.json records it)."""
    out = []
    for alt in alternatives:
        taken = sorted(k for k in alt.env if k in ("LD_PRELOAD", CONFIG_ENV))
        if taken:
            raise PlanError(f"--preload-pgmpi: the alternative {alt.name} sets {', '.join(taken)} itself; "
                            "give one or the other")
        library = launcher.bench_binary(bench_dir, alt.mpi).parent.parent / "lib" / LIBRARY
        out.append(replace(alt, env={**alt.env, **launch_env.pgmpi_preload(library, config, "--preload-pgmpi")}))
    return out


def _is_srun(launcher_name: str) -> bool:
    """`--launcher srun`, or a template that starts with srun (`srun --mpi=pmix -n {np} {cmd}`)."""
    try:
        words = shlex.split(launcher_name)
    except ValueError:
        return False  # launcher.check_template says what is wrong with it
    return bool(words) and os.path.basename(words[0]) == "srun"


def default_np(launcher_name: str = "local") -> tuple[int, str]:
    """The ranks of a launch when --np is not given, and a note saying where they came from
    ("" for this machine's cores). Under srun (`--launcher srun`, or a template starting with
    it) the ranks run on the allocation's nodes, not on the machine mpimeter runs on (salloc
    runs it on the login node): the allocation's tasks, as the batch script passes them
    (examples/slurm)."""
    tasks = (slurm.allocation(os.environ) or {}).get("ntasks", "") if _is_srun(launcher_name) else ""
    if tasks.isdigit() and int(tasks) < 2:
        raise PlanError(f"--launcher {launcher_name}: the allocation has {int(tasks)} task(s) (SLURM_NTASKS) and "
                        "a launch needs 2 ranks at least; allocate more (--ntasks) or give --np")
    if tasks.isdigit():
        return int(tasks), f"--np {int(tasks)}: the allocation's tasks (SLURM_NTASKS), as --np was not given"
    return max(2, len(os.sched_getaffinity(0))), ""


def outside_allocation_note(launcher_name: str) -> str:
    """`--launcher srun` outside a Slurm allocation: srun then allocates a job of its own for
    every launch (queue waits, other nodes each time), not a job step of one allocation as
    docs/SLURM.md describes; the launches stay comparable only as launches of separate
    allocations (Hunold & Carpen-Amarie 2016, §7)."""
    if not _is_srun(launcher_name) or slurm.allocation(os.environ) is not None:
        return ""
    return ("--launcher srun outside a Slurm allocation (no SLURM_JOB_ID): srun allocates a job "
            "for each launch, which may wait in the queue and get other nodes; run mpimeter inside "
            "salloc or sbatch for one allocation (docs/SLURM.md)")


def prepare(request: CampaignRequest) -> st.CampaignState:
    """Validates everything and builds the campaign record. Raises PlanError."""
    np_note = ""
    if request.np is None:
        default, np_note = default_np(request.launcher)
        nps = [default]
    else:
        nps = nplist.parse(request.np)
    simulated = _simulation.LIBRARY in (request.mpis or [])
    for ranks in nps:  # simulated ranks are contexts of one process, not processes on the cores
        limits.check_np(ranks, local=request.launcher == "local" and not simulated)
    np = max(nps)
    rule = _rule(request)
    if rule is not None and len(nps) > 1:
        raise PlanError(f"--np {','.join(map(str, nps))}: several process counts do not go with "
                        "--launches auto (give a number of launches, or one --np)")
    launches = rule.max if rule is not None else request.launches
    limits.check_launches(launches)
    if len(nps) > 1:
        limits.check_launches(launches * len(nps), flag=f"--launches × process counts ({launches} × {len(nps)})")
    if request.launch_timeout_s is not None:
        limits.check_launch_timeout(request.launch_timeout_s)
    if request.seed is not None:
        limits.check_seed(request.seed)
    extra = BenchArgs.parse(request.extra_bench_args)  # read once; the binaries check them
    for option in extra.options:
        if option.flag in RESERVED_BENCH_FLAGS:
            raise PlanError(f"{option.argv()[0]}: the campaign sets {', '.join(RESERVED_BENCH_FLAGS)} "
                            "itself (one launch folder, one seed and a shuffled order per launch)")
    bench_dir = Path(request.bench_dir) if request.bench_dir else launcher.default_bench_dir()
    mpis = request.mpis
    if mpis is not None and not all(mpis):
        raise PlanError(f"--mpi {','.join(mpis)!r}: empty library name; allowed: the folders of "
                        f"the bench dir ({', '.join(launcher.found_libraries(bench_dir)) or 'none built'}), "
                        "comma-separated (or leave --mpi out for every library built)")
    for mpi in mpis or []:
        launcher.check_library_name(mpi)
    found_under = None
    if not mpis:
        mpis = launcher.found_libraries(bench_dir)
        found_under = str(bench_dir)
        if not mpis:
            raise PlanError(f"no MPI library found: no <lib>/bin/mpimeter-bench under {bench_dir} "
                            f"with its launcher on PATH ({NO_BENCH_ADVICE})")
    simulation = _simulation_record(request, list(mpis), nps)
    variants = [plan.parse_variant(v) for v in request.variants]
    wanted = _algorithms.parse_request(request.algorithms)
    alternatives = plan.make_alternatives(list(mpis), variants, found_under=found_under)
    if wanted:
        alternatives += _algorithm_alternatives(wanted, list(mpis), variants, alternatives, bench_dir)
    if request.preload_pgmpi is not None:
        alternatives = _preload_pgmpi(alternatives, bench_dir, Path(request.preload_pgmpi))
    limits.check_launches(launches, len(alternatives))
    if len(nps) > 1:
        limits.check_launches(launches * len(nps), len(alternatives),
                              flag=f"--launches × process counts ({launches} × {len(nps)})")

    binaries: dict[str, str] = {}
    templates: dict[str, str] = {}
    for alt in alternatives:
        binaries[alt.name] = str(launcher.check_binary(bench_dir, alt.mpi))
        templates[alt.name] = launcher.resolve_template(request.launcher, alt.mpi, sorted(alt.env),
                                                        bench_dir=bench_dir, simulation=simulation)
        launcher.check_launcher_program(templates[alt.name])
        if request.launcher != "local":  # local is each library's own launcher
            launcher.check_template_fits(templates[alt.name], alt.mpi, sorted({a.mpi for a in alternatives}))

    # the bench options: checked in the binaries' words, then by the binaries themselves
    resolved = benchopts.resolve(list(binaries.values()), request.bench_values, extra, np)
    for ranks in [r for r in nps if r != np]:
        benchopts.validate_all(list(binaries.values()), resolved.args, ranks)
    # the files the launches read: by absolute path, their digest recorded (campaign.inputfiles)
    flags = tuple(dict.fromkeys(f for d in benchopts.describe_all(list(binaries.values()))
                                for f in inputfiles.input_flags(d)))
    bench_args, notes = inputfiles.absolute(resolved.args, flags, Path.cwd())
    notes = [note for note in (np_note, outside_allocation_note(request.launcher)) if note] + \
        [*resolved.notes, *notes]
    input_files = inputfiles.digests(bench_args, resolved.validated.config)
    measured = set(resolved.validated.config.get("ops") or [])
    unmeasured = [op for op in wanted if op not in measured]
    if unmeasured:
        raise PlanError(f"--algorithms {unmeasured[0]}: the campaign does not measure {unmeasured[0]} "
                        f"(--ops {','.join(sorted(measured))}); add it to --ops")
    if rule is not None:
        _adaptive.check_bench_args(bench_args)
        ops = set(resolved.validated.config.get("ops") or [])
        rule.sizeless_ops = sorted({o["name"] for d in benchopts.describe_all(list(binaries.values()))
                                    for o in d.operations if o.get("size_unused")} & ops)
    timeout = request.launch_timeout_s
    if timeout is None:
        timeout, note = limits.cap_derived_timeout(benchopts.default_launch_timeout(resolved.validated, np))
        notes.append(note)
    bench_args, budget_note = limits.budget_within_timeout(bench_args, resolved.validated, timeout)
    notes += budget_note
    seed = plan.draw_campaign_seed() if request.seed is None else request.seed
    # --launches auto: the first `min` launches are planned now, the rule adds the rest
    order = plan.interleave([a.name for a in alternatives], rule.min if rule else launches, seed,
                            nps if len(nps) > 1 else None)
    state = new_state(command=request.command, bench_args=bench_args, launcher=request.launcher,
                      np=np, launches=launches, seed=seed, alternatives=alternatives,
                      templates=templates, binaries=binaries, timeout_s=timeout, order=order,
                      notes=notes, adaptive=rule, np_list=nps)
    state.input_files = input_files
    state.launch_budget_derived = bool(budget_note)
    state.secret_words = secrets.secret_words(bench_dir)  # its binaries' words, recorded
    state.simulation = simulation
    if simulation is not None:  # what reaches the binary through smpirun's shell (campaign.simulation)
        _simulation.check_words([*binaries.values(), *bench_args.argv()], "--mpi smpi: the bench argument")
    return state


def _simulation_record(request: CampaignRequest, mpis: list[str], nps: list[int]) -> dict | None:
    """campaign.simulation's record when the campaign runs the SimGrid build, else None; a
    --platform without it, or the SimGrid build beside a real library, is refused."""
    if _simulation.LIBRARY not in mpis:
        if request.platform is not None:
            raise PlanError(f"--platform {request.platform}: a SimGrid platform is for --mpi smpi only "
                            f"(this campaign runs {','.join(mpis)})")
        return None
    if len(mpis) > 1:
        raise PlanError(f"--mpi {','.join(mpis)}: the SimGrid build runs alone (simulated times are not "
                        "comparable with measured ones); run one campaign with --mpi smpi and one without")
    if request.preload_pgmpi is not None or request.algorithms:
        given = "--preload-pgmpi" if request.preload_pgmpi is not None else "--algorithms"
        raise PlanError(f"{given}: not with --mpi smpi (the simulator runs its ranks itself: nothing is "
                        "preloaded, and its algorithms are chosen by its own --cfg settings, not the "
                        "libraries' variables); leave it out")
    # what reaches the binary through smpirun's shell, before the binary is asked about it
    given = [str(w) for v in request.bench_values.values() for w in (v if isinstance(v, (list, tuple)) else [v])]
    _simulation.check_words([*given, *request.extra_bench_args], "--mpi smpi: the bench argument")
    return _simulation.record(request.platform, nps)


def _algorithm_alternatives(wanted: dict[str, list[str] | None], mpis: list[str],
                            variants: list[tuple[str, dict[str, str]]], taken: list[plan.Alternative],
                            bench_dir: Path) -> list[plan.Alternative]:
    """--algorithms: per library, one alternative per requested algorithm, as the library's
    own mpimeter-bench lists them (campaign.algorithms); the baselines are already there."""
    by_mpi = {mpi: _algorithms.listing(launcher.check_binary(bench_dir, mpi), list(wanted)) for mpi in mpis}
    _algorithms.check_variants(wanted, by_mpi, variants)
    names = {a.name for a in taken}
    out = []
    for mpi in mpis:
        try:
            listed = _algorithms.alternatives(mpi, wanted, by_mpi[mpi])
        except PlanError as exc:
            if len(mpis) == 1:
                raise
            others = ",".join(m for m in mpis if m != mpi)
            raise PlanError(f"{exc} (algorithm names are one library's: the campaign runs {','.join(mpis)}; "
                            f"--mpi {others} leaves {mpi} out)") from None
        for alt in listed:
            if alt.name in names:
                raise PlanError(f"--algorithms: the alternative {alt.name!r} is also a --variant's name; "
                                "choose another --variant name")
            names.add(alt.name)
            out.append(alt)
    return out


def _rule(request: CampaignRequest) -> _adaptive.AdaptiveLaunches | None:
    """--launches auto's rule from its options; those options without it are refused."""
    given = {k: v for k, v in request.launches_rule.items() if v is not None}
    if request.launches != "auto":
        if given:
            key = sorted(given)[0]
            raise PlanError(f"--launches-{key} {given[key]} applies only to --launches auto "
                            f"(given: --launches {request.launches})")
        return None
    rule = _adaptive.AdaptiveLaunches(**given)
    _adaptive.check_settings(rule.min, rule.max, rule.precision, rule.confidence)
    return rule
