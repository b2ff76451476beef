# SPDX-License-Identifier: BSD-3-Clause
"""How one launch is started: the launcher template, the bench binary of each MPI library, the
command line.

A launcher is a template with `{np}` and `{cmd}`: `{cmd}` becomes the bench command (binary and
arguments), `{np}` the number of ranks. Two names stand for templates: `local` (the right mpirun
for the chosen MPI library, with the flags this machine needs) and `srun` (inside a Slurm
allocation). The binary of library LIB is `<bench dir>/LIB/bin/mpimeter-bench`; the bench dir is
`--bench-dir`, else $MPIMETER_BENCH_DIR, else `build/` of the repository this package lives in
(io.bench_binaries, which also says which binaries are built).
A build of any library also holds `<bench dir>/LIB/mpi.json` (written by CMake): the launcher
found beside its compiler and the template the user set for it (`make build LAUNCHER=...`), which
is what `local` means for that library. The SimGrid build (`smpi`) has none: its `local` is
smpirun on the campaign's platform (campaign.simulation).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from mpimeter.campaign import simulation as _simulation
from mpimeter.campaign.plan import PlanError
# where the binaries are and which are built: io.bench_binaries, the one place below every reader
from mpimeter.io.bench_binaries import (BENCH_DIR_ENV, BUILD_RECORD, LIBRARY_NAME, SIMULATED_LIBRARY,
                                        bench_binary, built_libraries, default_bench_dir,
                                        is_executable_file)

# The launcher a library's `local` uses when its build recorded none: Cray's MPICH runs under srun.
_DEFAULT_PROGRAM = {"openmpi": "mpirun", "mpich": "mpiexec", "cray-mpich": "srun"}


def check_library_name(mpi: str) -> None:
    if not LIBRARY_NAME.match(mpi):
        raise PlanError(f"--mpi {mpi!r}: a library name is a folder of the bench dir: letters, "
                        "digits, '.', '_' and '-', at most 64, not starting with '.' or '-'")


def build_record(mpi: str, bench_dir: Path | None = None) -> dict[str, str]:
    """What the build of `mpi` recorded about its launcher ({} when it has no mpi.json). Read
    from disk, so checked: string values only, a launcher template with {np} and {cmd}."""
    path = Path(bench_dir if bench_dir is not None else default_bench_dir()) / mpi / BUILD_RECORD
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PlanError(f"{path}: cannot read it ({exc}); rebuild with `make build`") from None
    keys = ("library", "mpiexec", "launcher")
    if not isinstance(record, dict) or not all(isinstance(record.get(k, ""), str) for k in keys):
        raise PlanError(f"{path}: not a build record (library, mpiexec, launcher: strings); "
                        "rebuild with `make build`")
    if record.get("launcher"):
        try:
            check_template(record["launcher"])
        except PlanError as exc:
            raise PlanError(f"{path}: {exc}") from None
    return {k: record.get(k, "") for k in keys}


def local_template(mpi: str, env_keys: list[str] | None = None, *, as_root: bool | None = None,
                   bench_dir: Path | None = None, simulation: dict | None = None) -> str:
    """`local`: the launcher of the library itself (never the `mpirun` alternatives link):
    Debian's mpirun.openmpi / mpiexec.mpich when installed, else the one its build found beside
    its compiler (mpi.json), or the template the user set for it at build time.
    Open MPI needs --allow-run-as-root as root, and --oversubscribe for more ranks than cores;
    its -x forwards a variant's variables to every rank (also on remote hosts). The SimGrid
    build's: smpirun on ``simulation``'s platform (campaign.simulation.record)."""
    if as_root is None:
        as_root = os.geteuid() == 0
    check_library_name(mpi)
    if _simulation.is_simulated(mpi):
        return _simulation.template(simulation)
    record = build_record(mpi, bench_dir)
    if record.get("launcher"):
        return record["launcher"]
    # The flags are the library's the binary is built with (its record), not its folder's name.
    library = record.get("library") or mpi
    recorded = record.get("mpiexec", "")
    debian = shutil.which({"openmpi": "mpirun.openmpi", "mpich": "mpiexec.mpich"}.get(library, ""))
    if debian and (not recorded or _same_program(recorded, debian)):
        program = os.path.basename(debian)  # Debian's name, as campaigns have always recorded it
    else:
        program = recorded or _DEFAULT_PROGRAM.get(library, "")
    if not program:
        raise PlanError(f"--launcher local: no launcher known for {mpi!r} (its build recorded "
                        "none); rebuild it with `make build MPICC=... LAUNCHER='mpiexec -n {np} "
                        "{cmd}'`, or give --launcher with a template with {np} and {cmd}")
    _check_launcher_library(mpi, library, program, bench_dir)
    program = shlex.quote(program)
    if os.path.basename(program) == "srun":
        return f"{program} -n {{np}} {{cmd}}"
    if library == "openmpi":
        parts = [program]
        if as_root:
            parts.append("--allow-run-as-root")
        parts.append("--oversubscribe")
        for key in env_keys or []:
            parts += ["-x", key]
        return " ".join(parts + ["-np", "{np}", "{cmd}"])
    # Hydra (MPICH, Intel MPI, MVAPICH) forwards the whole environment by default; -n is the
    # standard's flag (MPI 4.0 §11.5), which every mpiexec takes.
    return f"{program} {'-np' if library == 'mpich' else '-n'} {{np}} {{cmd}}"


# Whose process manager starts each library's ranks (a key of LIBRARY_LAUNCHERS): another one
# starts them as separate one-rank jobs, or refuses with its own words ("run as root").
LAUNCHER_OF_LIBRARY = {"openmpi": "openmpi", "spectrum-mpi": "openmpi", "mpich": "mpich",
                       "intelmpi": "mpich", "mvapich": "mpich"}
# What each of them says first on --version (Open MPI 4: OpenRTE, 5: PRRTE; MPICH: Hydra).
_VERSION_WORDS = {"openmpi": ("(OpenRTE)", "(Open MPI)", "(PRRTE)", "(PRTE)"), "mpich": ("HYDRA",)}


def _check_launcher_library(mpi: str, library: str, program: str, bench_dir: Path | None) -> None:
    """Refuse a build whose recorded launcher belongs to another library than its binary."""
    wanted = LAUNCHER_OF_LIBRARY.get(library)
    found = _launcher_library(program) if wanted else None
    if found and found != wanted:
        record = Path(bench_dir if bench_dir is not None else default_bench_dir()) / mpi / BUILD_RECORD
        raise PlanError(f"--mpi {mpi}: its binary is built with {library} ({record}) but its "
                        f"launcher {program} is {found}'s, which cannot start its ranks; rebuild "
                        "it with the mpicc and mpiexec of one library (`make build MPICC=...`)")


def _launcher_library(program: str) -> str | None:
    """Whose launcher ``program`` is (a key of LIBRARY_LAUNCHERS): by the name of the file it
    links to, else by what its --version says; None when it cannot tell (srun, a script)."""
    path = shutil.which(program)
    if path is None:
        return None
    real = os.path.realpath(path)
    for library, names in LIBRARY_LAUNCHERS.items():
        if os.path.basename(real) in names:
            return library
    return None if os.path.basename(real) == "srun" else _launcher_library_by_version(real)


@lru_cache(maxsize=8)
def _launcher_library_by_version(path: str) -> str | None:
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = (done.stdout + done.stderr).strip().splitlines()
    first = lines[0] if lines else ""
    for library, words in _VERSION_WORDS.items():
        if any(word in first for word in words):
            return library
    return None


def _same_program(a: str, b: str) -> bool:
    return os.path.realpath(shutil.which(a) or a) == os.path.realpath(shutil.which(b) or b)


def resolve_template(launcher: str, mpi: str, env_keys: list[str] | None = None, *,
                     bench_dir: Path | None = None, simulation: dict | None = None) -> str:
    if _simulation.is_simulated(mpi) and launcher != "local":
        raise PlanError(f"--launcher {launcher}: the SimGrid build runs under smpirun on its platform "
                        "(--platform) only; leave --launcher at local")
    if launcher == "local":
        return local_template(mpi, env_keys, bench_dir=bench_dir, simulation=simulation)
    if launcher == "srun":
        return "srun -n {np} {cmd}"  # srun exports the whole environment by default
    check_template(launcher)
    return launcher


def check_template(template: str) -> None:
    try:
        tokens = shlex.split(template)
    except ValueError as exc:
        raise PlanError(f"--launcher {template!r}: cannot split it: {exc}") from None
    if not tokens:
        raise PlanError("--launcher: empty template")
    if "{cmd}" not in template or "{np}" not in template:
        raise PlanError(f"--launcher {template!r}: a template needs both {{np}} and {{cmd}} "
                        "(e.g. 'srun -n {np} {cmd}'), or use 'local' or 'srun'")
    if "{cmd}" in tokens[0]:
        raise PlanError(f"--launcher {template!r}: the template must start with a launcher program")


def build_argv(template: str, np: int, bench_argv: list[str]) -> list[str]:
    """The command of one launch. A `{cmd}` word expands to the bench argv word by word; inside
    a longer word (`sh -c "{cmd}"`) it becomes the shell-quoted command line."""
    argv: list[str] = []
    for token in shlex.split(template):
        if token == "{cmd}":
            argv.extend(bench_argv)
            continue
        token = token.replace("{cmd}", shlex.join(bench_argv))
        argv.append(token.replace("{np}", str(np)))
    return argv


def separate_jobs_message(np: int, nprocs: object, evidence: str) -> str:
    """Why `np` processes whose MPI world counted fewer ranks (`nprocs`, read from `evidence`)
    are no launch: the launcher started them without wiring them up (srun without an MPI plugin
    the library understands, another library's mpirun), so each ran as its own MPI job, and the
    bench's own refusals ("--out exists ... --force", "needs at least 2 ranks") name a cause
    and advice that cannot help. "" when the counts fit or nprocs is no count."""
    if not isinstance(nprocs, int) or isinstance(nprocs, bool) or nprocs >= np:
        return ""
    return (f"its {np} processes ran as separate {nprocs}-rank MPI jobs ({evidence}), not wired "
            "up by the launcher; srun needs an MPI plugin the library understands (SLURM_MPI_TYPE "
            "or srun --mpi; `srun --mpi=list`), mpirun the library's own")


# Programs that start the ranks of one library only, and names that depend on the machine.
LIBRARY_LAUNCHERS = {
    "openmpi": frozenset({"mpirun.openmpi", "mpiexec.openmpi", "orterun", "prterun", "prun"}),
    "mpich": frozenset({"mpirun.mpich", "mpiexec.mpich", "mpiexec.hydra"}),
}
GENERIC_LAUNCHERS = frozenset({"mpirun", "mpiexec"})


def _template_programs(template: str) -> list[str]:
    """The program names in a template, also inside a quoted shell command (`sh -c '...'`)."""
    names = []
    for token in shlex.split(template):
        for word in token.split():
            names.append(os.path.basename(word))
    return names


def check_template_fits(template: str, mpi: str, campaign_mpis: list[str]) -> None:
    """A user's template starts every alternative's ranks: another library's mpirun would start
    them as separate one-rank jobs (which all write to the same --out), and a plain `mpirun` can
    be only one of the libraries of a campaign that has several."""
    programs = _template_programs(template)
    for other, names in LIBRARY_LAUNCHERS.items():
        used = [p for p in programs if p in names]
        if used and other != mpi:
            raise PlanError(f"--launcher {template!r}: {used[0]} starts {other} ranks, but this "
                            f"campaign also runs {mpi}; run one campaign per library (--mpi "
                            f"{other}) or use --launcher local (the right mpirun for each)")
    generic = [p for p in programs if p in GENERIC_LAUNCHERS]
    if generic and len(campaign_mpis) > 1:
        raise PlanError(f"--launcher {template!r}: {generic[0]} is one MPI library's launcher, "
                        f"but the campaign runs {', '.join(campaign_mpis)}; give --mpi with the "
                        "library it belongs to, or use --launcher local")


def check_launcher_program(template: str) -> None:
    program = shlex.split(template)[0]
    if shutil.which(program) is None:
        raise PlanError(f"launcher program {program!r} (from {template!r}) is not on PATH")


def found_libraries(bench_dir: Path) -> list[str]:
    """Every MPI library that has a built binary (io.bench_binaries.built_libraries, in its
    order) and whose launcher is installed."""
    found = []
    for mpi in built_libraries(bench_dir):
        try:
            program = shlex.split(local_template(mpi, bench_dir=bench_dir))[0]
        except (PlanError, ValueError):
            continue  # its own --mpi says what is wrong
        if shutil.which(program):
            found.append(mpi)
    return found


def check_binary(bench_dir: Path, mpi: str) -> Path:
    check_library_name(mpi)
    binary = bench_binary(bench_dir, mpi)
    if not is_executable_file(binary):
        build = "make build-smpi" if mpi == SIMULATED_LIBRARY else "make build"  # SimGrid's is its own target
        raise PlanError(f"--mpi {mpi}: no mpimeter-bench at {binary} (build it with `{build}`, "
                        f"or point --bench-dir / ${BENCH_DIR_ENV} to the folder holding {mpi}/bin/)")
    return binary.resolve()
