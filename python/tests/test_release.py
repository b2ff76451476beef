# SPDX-License-Identifier: BSD-3-Clause
"""The release artefacts (docs/RELEASING.md): the package builds as an sdist and a wheel whose
metadata carry the licence and the README, and the wheel installed into a fresh venv gives a
working `mpimeter`.

Offline and in well under a minute: setuptools' own build backend on a copy of python/ (no build
isolation, so no download; the test extra brings setuptools >= 77), `pip install --no-deps
--no-index` of the wheel into a fresh venv, whose dependencies (click, ...) come from this
environment through a .pth line instead of from PyPI."""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

import mpimeter

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "python"
VERSION = mpimeter.__version__


def _setuptools_version() -> tuple[int, ...]:
    try:
        import setuptools
    except ImportError:
        return (0,)
    return tuple(int(p) for p in setuptools.__version__.split(".")[:1])


pytestmark = [
    pytest.mark.skipif(not (PACKAGE / "pyproject.toml").exists(), reason="no source tree"),
    # the test extra installs it; without it, building would need PyPI (build isolation)
    pytest.mark.skipif(_setuptools_version() < (77,), reason="setuptools >= 77 not installed (the test extra)"),
]


def _env() -> dict[str, str]:
    # PYTHONPATH would put the source tree before what was installed
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """sdist and wheel built from a copy of python/ (the build writes egg-info beside the sources)."""
    tmp = tmp_path_factory.mktemp("release")
    src = tmp / "python"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(PACKAGE / name, src / name)  # LICENSE is a link: copied as the file it names
    shutil.copytree(PACKAGE / "src", src / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc"))
    out = tmp / "dist"
    # the backend rewrites sys.argv while it builds: the folder is read once, first
    script = ("import sys; from setuptools import build_meta as b; out = sys.argv[1]; "
              "b.build_sdist(out); b.build_wheel(out)")
    proc = subprocess.run([sys.executable, "-c", script, str(out)], cwd=src, env=_env(),
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def _metadata(dist: Path) -> email.message.Message:
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        return email.message_from_bytes(z.read(f"mpimeter-{VERSION}.dist-info/METADATA"))


def test_wheel_metadata_carry_version_licence_and_readme(dist):
    meta = _metadata(dist)
    assert meta["Name"] == "mpimeter" and meta["Version"] == VERSION
    assert meta["License-Expression"] == "BSD-3-Clause"
    assert meta.get_all("License-File") == ["LICENSE"]
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().strip() == (PACKAGE / "README.md").read_text().strip()
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        licence = z.read(f"mpimeter-{VERSION}.dist-info/licenses/LICENSE").decode()
        assert licence == (REPO / "LICENSE").read_text()
        assert "mpimeter/cli/__init__.py" in z.namelist()


def test_sdist_holds_the_licence_and_the_package(dist):
    (sdist,) = dist.glob("*.tar.gz")
    assert sdist.name == f"mpimeter-{VERSION}.tar.gz"
    with tarfile.open(sdist) as t:
        names = set(t.getnames())
        top = f"mpimeter-{VERSION}"
        assert {f"{top}/LICENSE", f"{top}/README.md", f"{top}/PKG-INFO",
                f"{top}/src/mpimeter/__init__.py"} <= names
        assert t.getmember(f"{top}/LICENSE").isfile()  # the file itself, not a dangling link


def test_wheel_installs_into_a_fresh_venv_and_runs(dist, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    # the dependencies from this environment, after the venv's own site-packages (no download)
    Path(site, "deps-from-test-env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (wheel,) = dist.glob("*.whl")
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
                             capture_output=True, text=True, timeout=120, env=_env())
    assert install.returncode == 0, install.stderr
    where = subprocess.run([str(python), "-c", "import mpimeter; print(mpimeter.__file__)"],
                           capture_output=True, text=True, timeout=60, env=_env(), cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(site), f"not the installed copy: {where.stdout}"
    run = subprocess.run([str(env_dir / "bin" / "mpimeter"), "--version"], capture_output=True, text=True,
                         timeout=60, env=_env(), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"mpimeter, version {VERSION}\n"
    helped = subprocess.run([str(env_dir / "bin" / "mpimeter"), "analyze", "--help"], capture_output=True,
                            text=True, timeout=120, env=_env(), cwd=tmp_path)
    assert helped.returncode == 0 and "Usage: mpimeter analyze" in helped.stdout, helped.stderr
