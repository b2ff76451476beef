# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --mpi smpi`: a campaign of the SimGrid build (`make build-smpi`) on a simulated
cluster, each launch one `smpirun` of it on a platform file (docs/GUIDE.md, "Simulated clusters").

- The platform: ``--platform FILE``, else the one shipped with the package
  (``mpimeter/platforms/cluster-128.xml``: what bench/sim_platform.py writes for 128 hosts, seed 1, the
  cluster of the clock-sync study). A user's file is untrusted: a regular file, readable, at most
  MAX_PLATFORM_BYTES, a SimGrid ``<platform>`` with at least as many hosts as ``--np`` (one
  simulated rank per host: SMPI places rank r on the r-th host in the order of their names, and
  would put ranks beyond the hosts on the first ones again). It is named by its absolute
  path in the launcher template and recorded in campaign.json (``simulation``) with its sha256 and
  the SimGrid version; ``--resume`` refuses a platform that changed since (its launches would be
  pooled with the earlier ones, which simulated another cluster). Every launch also gets both in
  its environment (MPIMETER_SMPI_PLATFORM, MPIMETER_SMPI_PLATFORM_SHA256), which the binary
  records in meta.json's ``environment``.
- Determinism: simulated time is the only clock the binary reads under SMPI (smpicc routes
  clock_gettime, gettimeofday and nanosleep to the simulator), and SMPI_CFG turns off the one
  way real time leaks in (the CPU time between MPI calls, measured on this machine and injected
  as simulated computation). The same campaign seed gives the same launch seeds and order, so two
  campaigns of one seed give the same simulated times (c/tests/simgrid/test_run_smpi.py).
- smpirun joins the program's arguments with spaces and expands them unquoted (a shell script):
  a word with a space or a shell pattern character would reach the binary as other words, so such
  words are refused before anything runs (:func:`check_words`).
"""

from __future__ import annotations

import hashlib
import re
import shlex
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from mpimeter.campaign.plan import PlanError
from mpimeter.io import bounded
from mpimeter.io.bench_binaries import DEFAULT_SMPI_PLATFORM, SIMULATED_LIBRARY, SMPI_LAUNCHER
from mpimeter.io.errors import InputError

LIBRARY = SIMULATED_LIBRARY
LAUNCHER = SMPI_LAUNCHER
DEFAULT_PLATFORM = DEFAULT_SMPI_PLATFORM
MAX_PLATFORM_BYTES = 64 << 20  # a 4096-host cluster with a link per host is ~2 MiB
# docs/ALGORITHMS.md, "Simulated clusters": without the first, the real CPU time between MPI
# calls is injected as simulated computation (two runs differ, and by this machine's load); the
# default gather is pathologically slow at scale. bench/simulate.py runs the study with them.
SMPI_CFG = ("--cfg=smpi/simulate-computation:no", "--cfg=smpi/gather:ompi_binomial")
PLATFORM_ENV = "MPIMETER_SMPI_PLATFORM"
PLATFORM_SHA256_ENV = "MPIMETER_SMPI_PLATFORM_SHA256"

_HOST = re.compile(rb"<host\s[^>]*?\bid\s*=\s*[\"']([^\"'<>]{1,256})[\"']")
_ROOT = re.compile(rb"<platform[\s>]")
_SHA256 = re.compile(r"[0-9a-f]{64}")
# what the shell that smpirun is would split a word at or expand in it
_SHELL_SPECIAL = re.compile(r"[\s*?\[\]]")


def is_simulated(mpi: str) -> bool:
    return mpi == LIBRARY


def platform_hosts(path: Path) -> tuple[list[str], str]:
    """The host ids of the platform at ``path`` in file order, and its sha256. PlanError (one
    line) for what is not a readable SimGrid platform within the bound."""
    try:
        bounded.check_regular(path)
        if path.is_dir():
            raise PlanError(f"--platform {path}: a folder; give a SimGrid platform file (.xml)")
        data = bounded.read_bytes(path, MAX_PLATFORM_BYTES)
    except FileNotFoundError:
        raise PlanError(f"--platform {path}: no such file; give a SimGrid platform file (.xml)") from None
    except InputError as exc:
        raise PlanError(f"--platform {exc}") from None
    except OSError as exc:
        raise PlanError(f"--platform {path}: cannot read it ({exc.strerror or exc})") from None
    if not _ROOT.search(data):
        raise PlanError(f"--platform {path}: not a SimGrid platform (no <platform> element)")
    hosts = [m.decode("utf-8", "replace") for m in _HOST.findall(data)]
    if not hosts:
        raise PlanError(f"--platform {path}: no <host id=...> in it; give a platform that names its hosts "
                        "(bench/sim_platform.py P DIR writes a cluster of P)")
    if len(set(hosts)) != len(hosts):
        raise PlanError(f"--platform {path}: a host id appears twice")
    bad = next((h for h in hosts if not h.isprintable() or _SHELL_SPECIAL.search(h)), None)
    if bad is not None:
        raise PlanError(f"--platform {path}: host id {bad[:40]!r} holds a space or control character")
    return hosts, hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=1)
def simgrid_version() -> str:
    """What `smpirun -version` says ("SimGrid version 3.32"); PlanError when it cannot run."""
    program = shutil.which(LAUNCHER)
    if program is None:
        raise PlanError("--mpi smpi: smpirun is not on PATH (install SimGrid: as root, apt-get install "
                        "libsimgrid-dev; then make build-smpi)")
    try:
        done = subprocess.run([program, "-version"], capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise PlanError(f"--mpi smpi: {program} -version could not run ({exc})") from None
    line = (done.stdout.strip().splitlines() or [""])[0]
    if done.returncode != 0 or "SimGrid" not in line:
        raise PlanError(f"--mpi smpi: {program} -version did not name a SimGrid version ({line[:80]!r})")
    return line[:200]


def record(platform: Path | None, nps: list[int]) -> dict:
    """campaign.json's ``simulation``: the platform (absolute path, sha256, hosts), the SimGrid
    version and the smpirun settings. ``platform`` None: the shipped one."""
    path = Path(platform if platform is not None else DEFAULT_PLATFORM).absolute()
    check_words([str(path)], "--platform")
    hosts, digest = platform_hosts(path)
    if max(nps) > len(hosts):
        raise PlanError(f"--np {max(nps)}: the platform {path} has {len(hosts)} hosts, one simulated rank "
                        f"each; give at most {len(hosts)} ranks, or a platform with more hosts "
                        "(bench/sim_platform.py P DIR writes a cluster of P)")
    return {"platform": str(path), "sha256": digest, "hosts": len(hosts),
            "simgrid_version": simgrid_version(), "smpi_cfg": list(SMPI_CFG)}


def template(simulation: dict | None) -> str:
    """The `local` launcher of the SimGrid build: smpirun on the recorded platform, every host of
    it available (no hostfile: SMPI then takes the platform's hosts)."""
    if not simulation:
        raise PlanError("--mpi smpi: the SimGrid build runs in `mpimeter run --mpi smpi` campaigns only "
                        "(on the platform of its --platform)")
    options = shlex.join(["-platform", simulation["platform"], *simulation["smpi_cfg"]])
    return f"{LAUNCHER} -np {{np}} {options} {{cmd}}"


def launch_env(simulation: dict) -> dict[str, str]:
    """What every simulated launch carries into meta.json's environment."""
    return {PLATFORM_ENV: simulation["platform"], PLATFORM_SHA256_ENV: simulation["sha256"]}


def check_words(words: list[str], where: str) -> None:
    """PlanError unless every word reaches the binary through smpirun as it is (see the module)."""
    for word in words:
        if _SHELL_SPECIAL.search(word) or not word.isprintable():
            raise PlanError(f"{where} {word[:60]!r}: smpirun passes the program's arguments through its shell "
                            "unquoted, so a space, tab or one of * ? [ ] would change them; choose a path or "
                            "value without them")


def check_unchanged(simulation: dict) -> None:
    """`--resume`: the platform is the one the campaign's launches simulated."""
    path = Path(simulation["platform"])
    try:
        _, digest = platform_hosts(path)
    except PlanError as exc:
        raise PlanError(f"cannot resume: campaign.json's {exc}") from None
    if digest != simulation["sha256"]:
        raise PlanError(f"cannot resume: the platform {path} changed since the campaign started (sha256 "
                        f"{digest[:12]}..., recorded {simulation['sha256'][:12]}...); its launches would be pooled "
                        "with ones that simulated another cluster: start a new campaign (--out)")


def read(raw: object, fail) -> dict | None:
    """campaign.json's ``simulation`` (untrusted): the keys and types :func:`record` writes;
    ``fail(where, what)`` raises."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        fail("simulation", "expected an object or null")
    unknown = sorted(set(raw) - {"platform", "sha256", "hosts", "simgrid_version", "smpi_cfg"})
    if unknown:
        fail("simulation", f"unknown key {unknown[0]!r}")
    for key in ("platform", "sha256", "simgrid_version"):
        if not isinstance(raw.get(key), str):
            fail(f"simulation.{key}", "expected a string")
    if not Path(raw["platform"]).is_absolute() or _SHELL_SPECIAL.search(raw["platform"]) \
            or not raw["platform"].isprintable():
        fail("simulation.platform", "expected an absolute path without spaces or * ? [ ]")
    if not _SHA256.fullmatch(raw["sha256"]):
        fail("simulation.sha256", "expected 64 hex digits")
    hosts = raw.get("hosts")
    if isinstance(hosts, bool) or not isinstance(hosts, int) or hosts < 1:
        fail("simulation.hosts", "expected a positive integer")
    if raw.get("smpi_cfg") != list(SMPI_CFG):  # the settings this mpimeter runs with, nothing else
        fail("simulation.smpi_cfg", f"expected {list(SMPI_CFG)}")
    return {k: raw[k] for k in ("platform", "sha256", "hosts", "simgrid_version", "smpi_cfg")}
