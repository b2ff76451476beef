# SPDX-License-Identifier: BSD-3-Clause
"""The release artefacts (docs/RELEASING.md): the package builds as an sdist and a wheel whose
metadata carry the licence and the README, and the wheel installed into a fresh venv gives a
working `mpimeter`.

Offline and in well under a minute (data.release)."""

from __future__ import annotations

import email
import re
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from data.release import PACKAGE, REPO, SKIP_REASON, build_dist, install_wheel, installed_env

import mpimeter

VERSION = mpimeter.__version__

pytestmark = pytest.mark.skipif(SKIP_REASON is not None, reason=SKIP_REASON or "")


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    return build_dist(tmp_path_factory.mktemp("release"))


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
        # the default platform of `run --mpi smpi`, a data file beside the code
        assert "mpimeter/platforms/cluster-128.xml" in z.namelist()


def test_wheel_metadata_say_where_the_c_core_comes_from(dist):
    # the package README sends a pip user to the release's source tarball for mpimeter-bench:
    # the links must be in the metadata, and the homepage the one the Spack recipes name
    links = dict(link.split(", ", 1) for link in _metadata(dist).get_all("Project-URL") or [])
    recipe = (REPO / "spack" / "spack_repo" / "mpimeter" / "packages" / "mpimeter" / "package.py").read_text()
    homepage = re.search(r'^\s*homepage = "([^"]+)"', recipe, re.MULTILINE).group(1)
    assert links.get("Homepage") == homepage, links
    assert links.get("Releases") == f"{homepage}/releases", links
    assert "Releases" in (PACKAGE / "README.md").read_text()


def test_sdist_holds_the_licence_and_the_package(dist):
    (sdist,) = dist.glob("*.tar.gz")
    assert sdist.name == f"mpimeter-{VERSION}.tar.gz"
    with tarfile.open(sdist) as t:
        names = set(t.getnames())
        top = f"mpimeter-{VERSION}"
        assert {f"{top}/LICENSE", f"{top}/README.md", f"{top}/PKG-INFO",
                f"{top}/src/mpimeter/__init__.py"} <= names
        assert t.getmember(f"{top}/LICENSE").isfile()  # the file itself, not a dangling link
        # python/tests need their conftest.py and data/, which setuptools would leave out
        assert not [n for n in names if n.startswith(f"{top}/tests")], "tests in the sdist"


def test_wheel_installs_into_a_fresh_venv_and_runs(dist, tmp_path):
    env_dir = tmp_path / "venv"
    site = install_wheel(dist, env_dir)
    python = env_dir / "bin" / "python"
    where = subprocess.run([str(python), "-c", "import mpimeter; print(mpimeter.__file__)"],
                           capture_output=True, text=True, timeout=60, env=installed_env(), cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(site), f"not the installed copy: {where.stdout}"
    run = subprocess.run([str(env_dir / "bin" / "mpimeter"), "--version"], capture_output=True, text=True,
                         timeout=60, env=installed_env(), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"mpimeter, version {VERSION}\n"
    helped = subprocess.run([str(env_dir / "bin" / "mpimeter"), "analyze", "--help"], capture_output=True,
                            text=True, timeout=120, env=installed_env(), cwd=tmp_path)
    assert helped.returncode == 0 and "Usage: mpimeter analyze" in helped.stdout, helped.stderr
