# SPDX-License-Identifier: BSD-3-Clause
"""The mpimeter-bench binaries built and what each says of itself: where they are (the bench dir),
which are built, and the document of `mpimeter-bench --describe` (docs/FORMAT.md,
"mpimeter-bench --describe"), run once per binary and cached by its resolved path, size and
mtime, so a rebuilt binary is asked again.

The binary is the one source of its facts; this module reads them and imports nothing of
mpimeter, so that every layer may ask: io.redact for the secret words it redacts by, io.counters
for the sources of counters, the campaign for the typed description (campaign.describe) and the
launchers (campaign.launcher).
The bench dir is `--bench-dir`, else $MPIMETER_BENCH_DIR, else `build/` of the repository this
package lives in; the binary of library LIB is `<bench dir>/LIB/bin/mpimeter-bench`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

from mpimeter.errors import MpimeterError

DESCRIBE_VERSION = 1
MPI_LIBRARIES = ("openmpi", "mpich")  # Debian's libraries, which `make build` builds side by side
# SimGrid's SMPI (`make build-smpi`): a simulated library, run only when named (`run --mpi smpi`,
# under smpirun on a platform file: campaign.simulation), never by default beside the real ones.
# smpicc links its binary as a plugin of the simulator, which runs only under smpirun: asked a
# question (--describe, --validate) it answers as one simulated rank of the shipped platform.
SIMULATED_LIBRARY = "smpi"
SMPI_LAUNCHER = "smpirun"
DEFAULT_SMPI_PLATFORM = Path(__file__).resolve().parents[1] / "platforms" / "cluster-128.xml"
BENCH_RELATIVE = Path("bin") / "mpimeter-bench"
BENCH_DIR_ENV = "MPIMETER_BENCH_DIR"
# default_bench_dir in words, for every --bench-dir help, and what to do when no binary is there
# (a package installed outside a checkout has no `make build` of its own: it needs one of the two)
DEFAULT_BENCH_DIR_TEXT = f"${BENCH_DIR_ENV}, else build/ of the checkout this mpimeter runs from, else ./build"
NO_BENCH_ADVICE = f"build it with `make build` in a checkout, or give --bench-dir / ${BENCH_DIR_ENV}"
BUILD_RECORD = "mpi.json"  # CMakeLists.txt writes it
# A library's name is the folder of its build (scripts/mpi-library checks the same rule).
LIBRARY_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$")


class DescribeError(ValueError, MpimeterError):
    """The binary could not describe itself (missing, not executable, another format)."""


@lru_cache(maxsize=1)
def repo_root() -> Path | None:
    """The repository holding this package (python/src/mpimeter/...), or None if installed
    elsewhere. Asked for every launch a campaign reads: the package does not move, so once."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "CMakeLists.txt").is_file() and (parent / "python").is_dir():
            return parent
    return None


def default_bench_dir() -> Path:
    env = os.environ.get(BENCH_DIR_ENV)
    if env:
        return Path(env)
    root = repo_root()
    return (root / "build") if root else Path("build")


def bench_binary(bench_dir: Path, mpi: str) -> Path:
    return Path(bench_dir) / mpi / BENCH_RELATIVE


def built_libraries(bench_dir: Path) -> list[str]:
    """Every MPI library of the bench dir with an executable binary: Debian's two first, then
    every other build with a record (mpi.json; not the SimGrid build, SIMULATED_LIBRARY, which
    writes none: a campaign runs it only when `--mpi smpi` names it), by name. Whether its
    launcher is installed is campaign.launcher's question."""
    try:
        others = sorted(p.name for p in Path(bench_dir).iterdir()
                        if p.name not in (*MPI_LIBRARIES, SIMULATED_LIBRARY) and LIBRARY_NAME.match(p.name)
                        and (p / BUILD_RECORD).is_file())
    except OSError:
        others = []
    return [mpi for mpi in [*MPI_LIBRARIES, *others] if is_executable_file(bench_binary(bench_dir, mpi))]


def is_executable_file(path: Path) -> bool:
    """Is there an executable file at ``path``? False for any path the system cannot look up
    (too long, a folder in its way, no permission): the caller says what is missing."""
    try:
        return path.is_file() and os.access(path, os.X_OK)
    except (OSError, ValueError):
        return False


def question_argv(binary: str | Path, args: list[str]) -> list[str]:
    """The command that asks ``binary`` a question (``--describe``, ``--validate NP ...``): the
    binary itself, or the SimGrid build (the one in a SIMULATED_LIBRARY folder) under smpirun."""
    if Path(binary).parent.parent.name != SIMULATED_LIBRARY:
        return [str(binary), *args]
    return [SMPI_LAUNCHER, "-np", "1", "-platform", str(DEFAULT_SMPI_PLATFORM), str(binary), *args]


def singleton_env() -> dict[str, str]:
    """Running the binary without mpirun as root: Open MPI would refuse a singleton otherwise."""
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def identity(binary: str | Path) -> tuple[str, int, int]:
    """What a description is cached by: the binary's resolved path, size and mtime."""
    path = Path(binary).resolve()
    try:
        st = path.stat()
    except OSError as exc:
        raise DescribeError(f"{binary}: {exc.strerror}") from None
    return str(path), st.st_size, st.st_mtime_ns


def check_version(doc: Any, binary: str | Path) -> None:
    """DescribeError unless ``doc`` is a description of the version this mpimeter reads."""
    version = doc.get("describe_version") if isinstance(doc, dict) else None
    if version != DESCRIBE_VERSION:
        raise DescribeError(f"{binary} --describe: describe_version {version!r}; this mpimeter reads "
                            f"version {DESCRIBE_VERSION} (rebuild the binary with `make build`)")


@lru_cache(maxsize=16)
def _printed(path: str, size: int, mtime_ns: int) -> str:
    """What ``path --describe`` printed, checked to be a JSON document (asked once per key)."""
    try:
        done = subprocess.run(question_argv(path, ["--describe"]), capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL, env=singleton_env())
    except (OSError, subprocess.SubprocessError) as exc:
        raise DescribeError(f"{path} --describe could not run: {exc}") from None
    if done.returncode != 0:
        raise DescribeError(f"{path} --describe exited {done.returncode}: {done.stderr.strip()[:300]}")
    try:
        json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise DescribeError(f"{path} --describe printed no JSON document ({exc})") from None
    return done.stdout


def document(binary: str | Path) -> Any:
    """The --describe document of ``binary`` as parsed JSON (a fresh copy at each call: the
    caller may keep or change it), untrusted: the version and the keys are the reader's to check."""
    return json.loads(_printed(*identity(binary)))


def secret_words(binary: str | Path) -> tuple[str, ...]:
    """The binary's secret words (``environment.secret_words``: the rule it applies to
    meta.json's environment). DescribeError when it cannot say."""
    path = identity(binary)[0]
    doc = document(binary)
    check_version(doc, path)
    environment = doc.get("environment")
    words = environment.get("secret_words") if isinstance(environment, dict) else None
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise DescribeError(f"{path} --describe: environment.secret_words is not a list of words")
    return tuple(words)


def built_secret_words(bench_dir: str | Path | None = None) -> tuple[str, ...]:
    """The secret words of the binaries built in ``bench_dir`` (None: the default bench dir; the
    SimGrid build too), the union should they differ; empty when no binary can say. The one source of them for
    io.redact's reading rule and for campaign.secrets (what mpimeter writes: a campaign asks the
    bench dir it runs from). Asked once per bench dir: the default follows $MPIMETER_BENCH_DIR,
    which may change within one process (and a relative one with the working folder)."""
    return _built_union(os.path.abspath(default_bench_dir() if bench_dir is None else bench_dir), "secret_words")


def counter_sources(binary: str | Path) -> tuple[str, ...]:
    """The sources of counters the binary reads (``counter_sources[].name``: what meta.json's
    ``counters.metrics[].source`` may be). DescribeError when it cannot say (a binary older than
    the list)."""
    path = identity(binary)[0]
    doc = document(binary)
    check_version(doc, path)
    sources = doc.get("counter_sources")
    names = [s.get("name") if isinstance(s, dict) else None for s in sources] if isinstance(sources, list) else [None]
    if not all(isinstance(n, str) for n in names):
        raise DescribeError(f"{path} --describe: counter_sources is not a list of named sources")
    return tuple(names)


def built_counter_sources(bench_dir: str | Path | None = None) -> tuple[str, ...]:
    """The counter sources of the binaries built in ``bench_dir``, as :func:`built_secret_words`
    (the union; empty when no binary can say): the one source of them for io.counters."""
    return _built_union(os.path.abspath(default_bench_dir() if bench_dir is None else bench_dir), "counter_sources")


@lru_cache(maxsize=8)
def _built_union(bench_dir: str, what: str) -> tuple[str, ...]:
    ask = {"secret_words": secret_words, "counter_sources": counter_sources}[what]
    names: set[str] = set()
    simulated = [SIMULATED_LIBRARY] if is_executable_file(bench_binary(bench_dir, SIMULATED_LIBRARY)) else []
    for lib in built_libraries(bench_dir) + simulated:
        try:
            names |= set(ask(bench_binary(bench_dir, lib)))
        except DescribeError:
            continue
    return tuple(sorted(names))
