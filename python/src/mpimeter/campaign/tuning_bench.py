# SPDX-License-Identifier: BSD-3-Clause
"""What ``mpimeter tune`` asks of the binaries and libraries it writes for: the algorithms a
library lists (``mpimeter-bench --list-algorithms``, one rank), the shared MPI library a binary
runs with (its built-in MPICH selection tree is read from there), and the verification campaign
(``mpimeter run``, default against the tuning file set)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mpimeter.campaign import launch_env, launcher
from mpimeter.campaign.plan import PlanError

LIST_TIMEOUT_S = 120


@dataclass(frozen=True)
class AlgorithmList:
    """op → the number of algorithm values the library lists (MPI_T enumeration; 0: none
    listed), and op → {value: name}."""

    counts: Mapping[str, int]
    names: Mapping[str, Mapping[str, str]]


def bench_of(mpi: str, recorded: str | None, bench_dir: Path | None) -> Path:
    """The binary to ask: ``--bench-dir``'s, else the one campaign.json recorded when it still
    exists, else the default bench dir's. PlanError when none is there."""
    if bench_dir is None and recorded and Path(recorded).is_file():
        return Path(recorded)
    return launcher.check_binary(bench_dir or launcher.default_bench_dir(), mpi)


def list_algorithms(mpi: str, bench: Path) -> AlgorithmList:
    """The binary's ``--list-algorithms`` on one rank under the library's own launcher."""
    argv = launcher.build_argv(launcher.local_template(mpi), 1, [str(bench), "--list-algorithms"])
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=LIST_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PlanError(f"{bench} --list-algorithms did not run: {exc}") from None
    if done.returncode != 0:
        raise PlanError(f"{bench} --list-algorithms failed (exit {done.returncode}): {done.stderr.strip()[-200:]}")
    try:
        doc = json.loads(done.stdout)
        counts, names = {}, {}
        for a in doc["algorithms"]:
            counts[str(a["op"])] = len(a["choices"])
            names[str(a["op"])] = {str(c["value"]): str(c["name"]) for c in a["choices"]}
    except (ValueError, KeyError, TypeError) as exc:
        raise PlanError(f"{bench} --list-algorithms printed no algorithm list ({exc})") from None
    return AlgorithmList(counts, names)


def mpi_library_file(bench: Path) -> Path:
    """The shared MPI library the binary loads (``ldd``): where MPICH keeps its built-in tree."""
    try:
        done = subprocess.run(["ldd", str(bench)], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PlanError(f"ldd {bench} did not run: {exc}") from None
    for line in done.stdout.splitlines():
        m = re.match(r"\s*(libmpi\S*\.so\S*)\s+=>\s+(\S+)", line)
        if m and Path(m.group(2)).is_file():
            return Path(m.group(2))
    raise PlanError(f"{bench}: ldd names no shared MPI library (libmpi*.so) it loads")


def verify_env(library: str, file_format: str, file: Path, settings: Mapping[str, str]) -> dict[str, str]:
    """The variables that make a library use a tuning file (``env``: the file's own settings),
    each passed through the allow-list of what a file may set (campaign.launch_env): PlanError."""
    path = str(file.resolve())
    if file_format == "openmpi-rules":
        env = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1", "OMPI_MCA_coll_tuned_dynamic_rules_filename": path}
    elif file_format == "mpich-json":
        env = {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": path}
    else:
        env = dict(settings)
    return launch_env.check_env(env, f"--verify {file}")


def verification_argv(library: str, env: Mapping[str, str], *, out: Path, nprocs: Sequence[int], ops: Sequence[str],
                      sizes: Sequence[int], launches: int, extra: Sequence[str]) -> list[str]:
    """The ``mpimeter run`` command of the verification campaign: the library as it is and
    ``tuned`` (the library with ``env``, each value quoted as --variant splits it)."""
    variant = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items()))
    return [sys.executable, "-m", "mpimeter", "run", "--mpi", library, "--variant", f"tuned={variant}",
            "--np", ",".join(map(str, nprocs)), "--launches", str(launches), "--ops", ",".join(ops),
            "--sizes", ",".join(map(str, sizes)), "--out", str(out), "--no-analyze", *extra]


def run_verification(library: str, env: Mapping[str, str], *, out: Path, nprocs: Sequence[int], ops: Sequence[str],
                     sizes: Sequence[int], launches: int, extra: Sequence[str]) -> int:
    """Runs :func:`verification_argv`; its exit code. Its progress goes to stderr, so that stdout
    holds tune's own output alone."""
    argv = verification_argv(library, env, out=out, nprocs=nprocs, ops=ops, sizes=sizes, launches=launches,
                             extra=extra)
    try:
        progress = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # a stream without a file (a test's capture)
        progress = subprocess.DEVNULL
    return subprocess.run(argv, stdout=progress).returncode
