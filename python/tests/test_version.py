# SPDX-License-Identifier: BSD-3-Clause
"""One version: `mpimeter --version` and `mpimeter-bench --version` print the same number, which
has one home (mpimeter.__version__): the package metadata and the C build read it from there, and
the release files (CITATION.cff, CHANGELOG.md, the Spack recipe) name it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from data.testkit import REPO, tomllib

import mpimeter
from mpimeter.cli import main
from mpimeter.io import bench_binaries

VERSION = mpimeter.__version__


def test_version_is_a_plain_release_number():
    # CMakeLists.txt reads it with a regular expression that accepts X.Y.Z only
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", VERSION)


def test_cli_prints_the_package_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"mpimeter, version {VERSION}\n"


@pytest.mark.skipif(not (REPO / "CMakeLists.txt").exists(), reason="no source tree")
@pytest.mark.skipif(tomllib is None, reason="Python 3.10 reads TOML with tomli, which is not installed")
def test_the_package_and_the_c_build_take_it_from_the_one_home():
    pyproject = tomllib.loads((REPO / "python" / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mpimeter.__version__"}
    cmake = (REPO / "CMakeLists.txt").read_text()
    assert "file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/python/src/mpimeter/__init__.py" in cmake
    assert 'add_compile_definitions(MM_TOOL_VERSION="${PROJECT_VERSION}")' in cmake
    c_sources = [*(REPO / "c").rglob("*.c"), *(REPO / "c").rglob("*.h")]
    defining = [p.relative_to(REPO) for p in c_sources if re.search(r"#define\s+MM_TOOL_VERSION", p.read_text())]
    assert defining == [], f"a second home of the version: {defining}"


@pytest.mark.skipif(not (REPO / "CITATION.cff").exists(), reason="no source tree")
def test_release_files_name_the_version():
    citation = (REPO / "CITATION.cff").read_text()
    assert re.search(rf"^version: {re.escape(VERSION)}$", citation, re.M), "CITATION.cff"
    _check_changelog((REPO / "CHANGELOG.md").read_text())
    for package in ("mpimeter", "py_mpimeter"):
        recipe = (REPO / "spack" / "spack_repo" / "mpimeter" / "packages" / package / "package.py").read_text()
        assert f'version("{VERSION}"' in recipe, f"the Spack recipe {package}"


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _check_changelog(changelog: str, version: str = VERSION) -> None:
    """A dated heading is a tagged release (docs/RELEASING.md): until the tag, the version's
    entries stay under [Unreleased], which names the version they will be released as."""
    dated = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d\d-\d\d$", changelog, re.M)
    unreleased = re.search(r"^## \[Unreleased\]\n\n(.*)$", changelog, re.M)
    assert unreleased, "CHANGELOG.md: no [Unreleased] section"
    to_be = re.match(r"To be released as (\d+\.\d+\.\d+)\b", unreleased.group(1))
    if version in dated:
        assert to_be is None, f"CHANGELOG.md: {version} is both released and to be released"
    else:
        assert to_be and to_be.group(1) == version, \
            f"CHANGELOG.md: neither a heading [{version}] - DATE nor 'To be released as {version}'"
    assert all(_release(v) <= _release(version) for v in dated), f"CHANGELOG.md: a release after {version}"


def test_the_changelog_rule_refuses_what_it_should():
    released = "## [Unreleased]\n\n### Added\n\n## [1.2.0] - 2026-01-02\n"
    to_be = "## [Unreleased]\n\nTo be released as 1.3.0 (...)\n\n## [1.2.0] - 2026-01-02\n"
    _check_changelog(released, "1.2.0")
    _check_changelog(to_be, "1.3.0")
    for text, version in ((released, "1.3.0"),  # the new version named nowhere
                          (to_be, "1.2.0"),     # a release after the version
                          (to_be.replace("1.3.0", "1.2.0"), "1.2.0"),  # released and to be released
                          ("## [1.2.0] - 2026-01-02\n", "1.2.0")):  # no [Unreleased]
        with pytest.raises(AssertionError):
            _check_changelog(text, version)


def _built_benches() -> list[Path]:
    bench_dir = bench_binaries.default_bench_dir()
    return [bench_binaries.bench_binary(bench_dir, lib) for lib in bench_binaries.built_libraries(bench_dir)]


@pytest.mark.skipif(not _built_benches(), reason="no mpimeter-bench built (make build)")
@pytest.mark.parametrize("bench", _built_benches(), ids=lambda p: p.parents[1].name)
def test_mpimeter_bench_prints_the_same_version(bench):
    proc = subprocess.run([str(bench), "--version"], capture_output=True, text=True, timeout=60,
                          env=bench_binaries.singleton_env())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[:2] == ["mpimeter-bench", VERSION], proc.stdout
