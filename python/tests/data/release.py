# SPDX-License-Identifier: BSD-3-Clause
"""The package as a user installs it, offline: an sdist and a wheel built by setuptools' own
build backend from a copy of python/ (no build isolation, so no download; the test extra brings
setuptools >= 77), and the wheel installed by `pip install --no-deps --no-index` into a fresh
venv, whose dependencies (click, ...) come from this environment through a .pth line instead of
from PyPI. Shared by the release tests and those that run the installed `mpimeter`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PACKAGE = REPO / "python"


def setuptools_version() -> tuple[int, ...]:
    try:
        import setuptools
    except ImportError:
        return (0,)
    return tuple(int(p) for p in setuptools.__version__.split(".")[:1])


# why a test of the installed package is skipped, or None
SKIP_REASON = ("no source tree" if not (PACKAGE / "pyproject.toml").exists() else
               # without it, building would need PyPI (build isolation)
               "setuptools >= 77 not installed (the test extra)" if setuptools_version() < (77,) else None)


def installed_env() -> dict[str, str]:
    """This environment without what would put the source tree before what was installed."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


def build_dist(tmp: Path) -> Path:
    """sdist and wheel built from a copy of python/ (the build writes egg-info beside the
    sources) into ``tmp``/dist."""
    src = tmp / "python"
    # the whole folder, as a release builds it (MANIFEST.in decides what the sdist leaves out);
    # LICENSE is a link: copied as the file it names
    shutil.copytree(PACKAGE, src, ignore=shutil.ignore_patterns(
        "__pycache__", "*.egg-info", "*.pyc", ".pytest_cache", ".hypothesis", "build", "dist"))
    out = tmp / "dist"
    # the backend rewrites sys.argv while it builds: the folder is read once, first
    script = ("import sys; from setuptools import build_meta as b; out = sys.argv[1]; "
              "b.build_sdist(out); b.build_wheel(out)")
    proc = subprocess.run([sys.executable, "-c", script, str(out)], cwd=src, env=installed_env(),
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def install_wheel(dist: Path, env_dir: Path) -> str:
    """The wheel of ``dist`` installed into a fresh venv at ``env_dir`` by this environment's pip
    (`pip --python`: the venv gets no pip of its own, whose installation by ensurepip costs
    seconds); its site-packages."""
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    # the dependencies from this environment, after the venv's own site-packages (no download)
    Path(site, "deps-from-test-env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (wheel,) = dist.glob("*.whl")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                              "--no-index", "-q", str(wheel)], capture_output=True, text=True, timeout=120,
                             env=installed_env())
    assert install.returncode == 0, install.stderr
    return site
