# SPDX-License-Identifier: BSD-3-Clause
"""scripts/setup.sh's pip step (`make demo`, `make test`): minutes the first time, so a line
before it and one after it with its duration. Run on a copy of the script in a scratch tree whose
.venv/bin/pip only records its arguments (the system parts find everything installed)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALLED = ("mpicc.openmpi", "mpicc.mpich", "cmake", "cc", "papi_avail")

pytestmark = pytest.mark.skipif(
    not all(shutil.which(p) for p in INSTALLED) or not Path("/usr/include/papi.h").is_file(),
    reason="needs what scripts/setup.sh installs already installed (make build installs it)")


def test_the_pip_step_says_when_it_starts_and_how_long_it_took(tmp_path):
    _fake_tree(tmp_path, pip=f'echo "$*" >> {tmp_path / "pip.log"}')
    env = {k: v for k, v in os.environ.items() if not k.startswith("MM_WITH_")}
    done = subprocess.run(["bash", str(tmp_path / "scripts" / "setup.sh")], capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    before = [i for i, line in enumerate(lines) if line.startswith("setup: installing the Python package")]
    after = [i for i, line in enumerate(lines)
             if re.fullmatch(r"setup: installed the Python package into \.venv in \d+ s", line)]
    assert len(before) == 1 and len(after) == 1 and before[0] < after[0], done.stdout
    assert "-e python" in (tmp_path / "pip.log").read_text()  # the step ran between the two lines


def _fake_tree(tmp_path: Path, pip: str = "exit 0") -> None:
    """A scratch tree with a copy of the script, the Python package's two files and a .venv whose
    python does nothing and whose pip runs the shell line ``pip`` (default: nothing)."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "pyproject.toml").write_text("")
    (tmp_path / "python" / "constraints.txt").write_text("")
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    for name, body in (("python", "exit 0"), ("pip", pip)):
        (venv_bin / name).write_text(f"#!/bin/sh\n{body}\n")
        (venv_bin / name).chmod(0o755)


def _path_without_papi_tools(tmp_path: Path, uid: int, python3: str | None = None) -> str:
    """A PATH with what the script runs but papi_avail, an `id` that says ``uid`` and an apt-get
    that fails (nothing is installed by the test, also as root); ``python3``: a script instead of
    the interpreter."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("bash", "dirname", "touch", "rm", "head", "mpicc.openmpi", "mpicc.mpich", "cmake", "cc"):
        (bin_dir / name).symlink_to(shutil.which(name))
    if python3 is None:  # the interpreter itself (a `python3` on PATH may be a shim that needs more of PATH)
        (bin_dir / "python3").symlink_to(os.path.realpath(sys.executable))
    else:
        (bin_dir / "python3").write_text(python3)
        (bin_dir / "python3").chmod(0o755)
    for name, body in (("id", f"echo {uid}"), ("apt-get", "exit 100")):
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    return str(bin_dir)


@pytest.mark.parametrize("uid", [1000, 0])
def test_papi_tools_missing_alone_is_not_said_to_build_without_papi(tmp_path, uid):
    # CMakeLists.txt builds with PAPI whenever papi.h and libpapi are found: papi-tools (papi_avail)
    # only serves the tests' comparison, so its absence must not be reported as a build without PAPI
    _fake_tree(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MM_WITH_")}
    env["PATH"] = _path_without_papi_tools(tmp_path, uid)
    done = subprocess.run(["bash", str(tmp_path / "scripts" / "setup.sh")], capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    said = [line for line in done.stderr.splitlines() if "papi" in line.lower()]
    assert len(said) == 1 and "papi-tools" in said[0] and "libpapi-dev" not in said[0], done.stderr
    assert "built without PAPI" not in said[0] and "papi_avail are skipped" in said[0], said


def test_a_venv_left_without_pip_is_made_again(tmp_path):
    # Debian's `python3 -m venv` without python3-venv stops after bin/python: once the package is
    # installed, the next `make demo` must make the venv again, not fail on .venv/bin/pip
    _fake_tree(tmp_path)
    (tmp_path / ".venv" / "bin" / "pip").unlink()
    log = tmp_path / "python3.log"
    done = _setup_making_the_venv(tmp_path, "pip", log)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "-m venv .venv" in log.read_text()
    assert "setup: installed the Python package" in done.stdout


def _setup_making_the_venv(tmp_path: Path, makes: str, log: Path | None = None) -> subprocess.CompletedProcess:
    """setup.sh in the tree with a `python3` whose `-m venv DIR` writes DIR/bin/``makes`` (a
    script that does nothing) and nothing else, each call logged to ``log``."""
    fake_python3 = ("#!/bin/sh\n" + (f'echo "$*" >> {log}\n' if log else "") +
                    f'if [ "$1 $2" = "-m venv" ]; then printf \'#!/bin/sh\\nexit 0\\n\' > "$3/bin/{makes}"; '
                    f'{shutil.which("chmod")} +x "$3/bin/{makes}"; fi\nexit 0\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("MM_WITH_")}
    env["PATH"] = _path_without_papi_tools(tmp_path, 1000, python3=fake_python3)
    return subprocess.run(["bash", str(tmp_path / "scripts" / "setup.sh")], capture_output=True,
                          text=True, timeout=120, env=env, cwd=tmp_path)


def _run_setup(tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MM_WITH_")}
    return subprocess.run(["bash", str(tmp_path / "scripts" / "setup.sh")], capture_output=True,
                          text=True, timeout=120, env=env)


def test_a_venv_made_for_another_checkout_is_refused_and_a_stamp_names_its_own(tmp_path):
    # a venv cannot move: one copied or moved with its checkout runs the other checkout's code
    # (the editable install) or none (its scripts name the old interpreter)
    tree = tmp_path / "tree"
    tree.mkdir()
    _fake_tree(tree)
    done = _run_setup(tree)
    assert done.returncode == 0, done.stderr
    stamp = tree / ".venv" / ".mpimeter-installed"
    assert Path(stamp.read_text().strip()).samefile(tree)  # names the checkout it was made for
    stamp.write_text(f"{tmp_path / 'gone'}\n")
    stamp.touch()  # newer than pyproject.toml: nothing to install, still refused
    done = _run_setup(tree)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"setup: .venv was made for the checkout in {tmp_path / 'gone'}, not this one" in done.stderr
    assert "rm -rf .venv" in done.stderr and "installing the Python package" not in done.stdout


def test_a_venv_linked_on_purpose_is_not_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    _fake_tree(shared)
    (shared / ".venv" / ".mpimeter-installed").write_text(f"{shared}\n")
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "setup.sh", tree / "scripts" / "setup.sh")
    shutil.copytree(shared / "python", tree / "python")
    (tree / ".venv").symlink_to(shared / ".venv")
    done = _run_setup(tree)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_venv_made_again_gets_its_package_again(tmp_path):
    # the interpreter of .venv gone (a Python upgrade removed it): the venv is made again with
    # the new one, which has no mpimeter, so the stamp left from before must not skip the install
    _fake_tree(tmp_path)
    (tmp_path / ".venv" / "bin" / "python").unlink()
    (tmp_path / ".venv" / ".mpimeter-installed").write_text(f"{tmp_path}\n")
    done = _setup_making_the_venv(tmp_path, "python")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "setup: installed the Python package" in done.stdout, done.stdout
