# SPDX-License-Identifier: BSD-3-Clause
"""`make build` against an MPI reached only through a plain `mpicc` / `mpiexec` on PATH, as a
module system gives it (Cray MPICH, Intel MPI, Spack's Open MPI): Debian's `*.openmpi` /
`*.mpich` names and every other `mpi*` program hidden. Each library installed here (Open MPI,
MPICH) in turn stands behind the plain names; the build must name itself after the library
(from its version string) and `mpimeter run --mpi NAME` must run it through the launcher the
build recorded. CMake alone, with MPICH's `mpicc` first on PATH or given by path and Open MPI's
`mpicc`/`mpiexec` also on PATH, builds against MPICH and records MPICH's launcher. Also the
build's bad input: one line, exit 2. (`make test-anympi`; part of `make test`.) Builds only the
binary (BUILD_TARGET), into a temporary folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SYSTEM_DIRS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
DEBIAN = {"openmpi": ("mpicc.openmpi", "mpiexec.openmpi"), "mpich": ("mpicc.mpich", "mpiexec.mpich")}
# What else a library's bin folder holds that its mpiexec runs from beside itself (Hydra starts
# its proxies from its own folder).
HELPERS = {"openmpi": (), "mpich": ("hydra_pmi_proxy",)}

pytestmark = pytest.mark.skipif(not any(shutil.which(cc) for cc, _ in DEBIAN.values()),
                                reason="needs Open MPI or MPICH installed (make build installs them)")


@pytest.fixture(scope="module")
def system_without_mpi(tmp_path_factory) -> Path:
    """Every program of the system folders except the `mpi*` ones, as a folder of symlinks."""
    folder = tmp_path_factory.mktemp("system")
    for directory in SYSTEM_DIRS:
        if not os.path.isdir(directory):
            continue
        for entry in os.scandir(directory):
            if entry.name.startswith("mpi") or (folder / entry.name).exists():
                continue
            (folder / entry.name).symlink_to(entry.path)
    return folder


def _path_for(library: str, system: Path, tmp: Path) -> str:
    mpi_bin = tmp / f"{library}-module" / "bin"
    mpi_bin.mkdir(parents=True)
    compiler, launcher = DEBIAN[library]
    (mpi_bin / "mpicc").symlink_to(shutil.which(compiler))
    (mpi_bin / "mpiexec").symlink_to(shutil.which(launcher))
    for helper in HELPERS[library]:
        (mpi_bin / helper).symlink_to(shutil.which(helper))
    return f"{REPO / '.venv' / 'bin'}:{mpi_bin}:{system}"


def _make(path: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("MPICC", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["PATH"] = path
    return subprocess.run(["make", "--no-print-directory", "-C", str(REPO), "build-libs", *args],
                          env=env, capture_output=True, text=True, timeout=1800)


@pytest.mark.parametrize("library", [lib for lib, (cc, _) in DEBIAN.items() if shutil.which(cc)])
def test_a_plain_mpicc_builds_and_runs_under_the_name_of_its_library(library, system_without_mpi, tmp_path):
    path = _path_for(library, system_without_mpi, tmp_path)
    assert shutil.which("mpicc.openmpi", path=path) is None and shutil.which("mpicc.mpich", path=path) is None
    bench = tmp_path / "build"
    r = _make(path, f"BUILD_DIR={bench}", "BUILD_TARGET=mpimeter-bench")
    assert r.returncode == 0, r.stdout + r.stderr
    print(r.stdout)
    assert sorted(p.name for p in bench.iterdir() if p.is_dir()) == [library]
    record = json.loads((bench / library / "mpi.json").read_text())
    assert record["library"] == library
    assert record["mpiexec"] == str(tmp_path / f"{library}-module" / "bin" / "mpiexec")
    assert f"built {bench}/{library}/bin/mpimeter-bench" in r.stdout

    env = {**os.environ, "PATH": path}
    out = tmp_path / "campaign"
    run = subprocess.run([sys.executable, "-m", "mpimeter", "run", "--bench-dir", str(bench),
                          "--mpi", library, "--np", "2", "--launches", "2", "--ops", "allreduce",
                          "--sizes", "8", "--nrep", "20", "--no-analyze", "--out", str(out)],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    campaign = json.loads((out / "campaign.json").read_text())
    [alternative] = campaign["alternatives"]
    assert alternative["launch_template"].startswith(str(tmp_path / f"{library}-module" / "bin" / "mpiexec"))
    assert alternative["bench"] == str(bench / library / "bin" / "mpimeter-bench")
    assert [launch["status"] for launch in campaign["launches"]] == ["complete", "complete"]
    metas = sorted(out.glob("**/launches/*/meta.json"))
    assert len(metas) == 2
    version = json.loads(metas[0].read_text())["mpi"]["library_version"]
    assert ("Open MPI" if library == "openmpi" else "MPICH") in version


@pytest.mark.parametrize("args, message", [
    (["MPICC=gcc"], "MPICC='gcc': not an MPI C compiler"),
    (["MPICC=no-such-mpicc"], "MPICC='no-such-mpicc': not found"),
    (["MPICC=mpicc", "MPI_NAME=my/mpi"], "MPI_NAME='my/mpi': a library name holds only letters"),
    (["MPICC=mpicc", "MPI_NAME=.x"], "MPI_NAME='.x': a library name starts with"),
    (["MPICC=mpicc", "LAUNCHER=srun -n 4"], "LAUNCHER='srun -n 4': a launcher template needs both {np} and {cmd}"),
    (["LAUNCHER=srun -n {np} {cmd}"], "MPI_NAME and LAUNCHER name one library: give its compiler with MPICC"),
])
def test_bad_build_input_is_one_line_and_exit_2(args, message, system_without_mpi, tmp_path):
    library = next(lib for lib, (cc, _) in DEBIAN.items() if shutil.which(cc))
    path = _path_for(library, system_without_mpi, tmp_path)
    bench = tmp_path / "build"
    r = _make(path, f"BUILD_DIR={bench}", *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr
    assert not any(p.is_dir() for p in bench.glob("*")), "nothing built"


def test_a_build_configured_for_another_checkout_is_refused(system_without_mpi, tmp_path):
    # a checkout moved or copied with its build/: CMake would build the sources its cache names
    # (the other checkout's) and make would say "built"
    library = next(lib for lib, (cc, _) in DEBIAN.items() if shutil.which(cc))
    path = _path_for(library, system_without_mpi, tmp_path)
    bench = tmp_path / "build"
    (bench / library).mkdir(parents=True)
    (bench / library / "CMakeCache.txt").write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={tmp_path / 'gone'}\n")
    r = _make(path, f"BUILD_DIR={bench}", "MPICC=mpicc")
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert f"was configured for the sources in {tmp_path / 'gone'}, not this checkout" in lines[0], r.stderr
    assert f"rm -rf {bench / library}" in lines[0] and "built" not in r.stdout
    assert sorted(p.name for p in (bench / library).iterdir()) == ["CMakeCache.txt"], "nothing configured"


def _module(folder: Path, library: str, *, launcher: bool = True) -> Path:
    """A module's bin folder: plain `mpicc` (and `mpiexec`) of one library."""
    folder.mkdir(parents=True)
    compiler, mpiexec = DEBIAN[library]
    (folder / "mpicc").symlink_to(shutil.which(compiler))
    if launcher:
        (folder / "mpiexec").symlink_to(shutil.which(mpiexec))
        for helper in HELPERS[library]:
            (folder / helper).symlink_to(shutil.which(helper))
    return folder


def _cmake(path: str, build: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("MPICC", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["PATH"] = path
    return subprocess.run(["cmake", "-S", str(REPO), "-B", str(build), "-DMM_WERROR=ON", *args],
                          env=env, capture_output=True, text=True, timeout=900)


BOTH = all(shutil.which(cc) for cc, _ in DEBIAN.values())


@pytest.mark.skipif(not BOTH, reason="needs both Open MPI and MPICH installed (make build installs them)")
def test_cmake_alone_takes_the_mpicc_first_on_path_and_the_launcher_of_its_library(system_without_mpi, tmp_path):
    # MPICH's mpicc alone in its folder, Open MPI's mpicc and mpiexec after it on PATH: FindMPI
    # by itself looks beside the first mpiexec it finds and built against Open MPI.
    mpich = _module(tmp_path / "mpich-module" / "bin", "mpich", launcher=False)
    openmpi = _module(tmp_path / "openmpi-module" / "bin", "openmpi")
    build = tmp_path / "build" / "mpich"
    r = _cmake(f"{mpich}:{openmpi}:{system_without_mpi}", build)
    assert r.returncode == 0, r.stdout + r.stderr
    record = json.loads((build / "mpi.json").read_text())
    assert record["mpicc"] == str(mpich / "mpicc")
    assert record["library"] == "mpich"
    # no mpiexec beside the plain name: the one beside the file it links to (mpiexec.mpich)
    assert record["mpiexec"] == shutil.which("mpiexec.mpich")
    assert "libmpich" in (build / "CMakeCache.txt").read_text()


@pytest.mark.skipif(not BOTH, reason="needs both Open MPI and MPICH installed (make build installs them)")
def test_cmake_given_mpichs_mpicc_records_mpichs_mpiexec_and_runs_an_mpich_campaign(system_without_mpi, tmp_path):
    mpich = _module(tmp_path / "mpich-module" / "bin", "mpich")
    openmpi = _module(tmp_path / "openmpi-module" / "bin", "openmpi")
    path = f"{REPO / '.venv' / 'bin'}:{openmpi}:{system_without_mpi}"  # Open MPI's mpiexec on PATH
    bench = tmp_path / "build"
    r = _cmake(path, bench / "mpich", f"-DMPI_C_COMPILER={mpich / 'mpicc'}")
    assert r.returncode == 0, r.stdout + r.stderr
    record = json.loads((bench / "mpich" / "mpi.json").read_text())
    assert (record["library"], record["mpiexec"]) == ("mpich", str(mpich / "mpiexec"))
    r = subprocess.run(["nice", "-n", "19", "cmake", "--build", str(bench / "mpich"), "-j", "2",
                        "--target", "mpimeter-bench"], capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout + r.stderr

    out = tmp_path / "campaign"
    run = subprocess.run([sys.executable, "-m", "mpimeter", "run", "--bench-dir", str(bench),
                          "--mpi", "mpich", "--np", "2", "--launches", "1", "--ops", "allreduce",
                          "--sizes", "8", "--nrep", "20", "--no-analyze", "--out", str(out)],
                         env={**os.environ, "PATH": path}, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    campaign = json.loads((out / "campaign.json").read_text())
    [alternative] = campaign["alternatives"]
    assert alternative["launch_template"].startswith(f"{mpich / 'mpiexec'} -np ")
    [meta] = out.glob("**/launches/*/meta.json")
    assert "MPICH" in json.loads(meta.read_text())["mpi"]["library_version"]
