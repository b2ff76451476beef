# SPDX-License-Identifier: BSD-3-Clause
"""The Spack package repository in spack/, read as text and Python syntax trees (no Spack needed):
the layout Spack 1.0 and later read (spack_repo/<namespace>/repo.yaml with a v2 Package API,
packages/<name>/package.py), and in each recipe what a site needs to install it: homepage, url
and git, licence, maintainers, versions, variants, and the Python dependencies of
python/pyproject.toml with the same bounds. docs/INSTALL.md, "Spack", says how it is used; `spack
audit` and `spack style` check it where Spack is installed."""

from __future__ import annotations

import ast
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from data.testkit import REPO, tomllib

import mpimeter
from mpimeter.io.bench_binaries import BENCH_DIR_ENV

SPACK = REPO / "spack"
NAMESPACE = "mpimeter"
REPO_ROOT = SPACK / "spack_repo" / NAMESPACE
# Spack's package name -> its folder (a Python module name: '-' becomes '_') and its class
PACKAGES = {
    "mpimeter": ("mpimeter", "Mpimeter", "CMakePackage", "cmake"),
    "py-mpimeter": ("py_mpimeter", "PyMpimeter", "PythonPackage", "python"),
}
# a pyproject dependency -> the Spack package that provides it, where the name is not py-<name>
SPACK_NAME = {"duckdb": "duckdb"}
# where Spack is installed, its own checks run too (SPACK_ROOT: set by Spack's shell support)
SPACK_BIN = Path(os.environ.get("SPACK_ROOT", "/nonexistent")) / "bin" / "spack"


@dataclass
class Recipe:
    """What a package.py declares: class attributes and directive calls, as literals."""

    path: Path
    tree: ast.Module
    cls: ast.ClassDef
    attributes: dict[str, object] = field(default_factory=dict)
    calls: dict[str, list[ast.Call]] = field(default_factory=dict)
    methods: dict[str, ast.FunctionDef] = field(default_factory=dict)

    def args(self, directive: str) -> list[tuple[list, dict]]:
        return [([ast.literal_eval(a) for a in call.args],
                 {k.arg: ast.literal_eval(k.value) for k in call.keywords})
                for call in self.calls.get(directive, [])]


def read_recipe(spack_name: str) -> Recipe:
    folder, class_name, _, _ = PACKAGES[spack_name]
    path = REPO_ROOT / "packages" / folder / "package.py"
    assert path.is_file(), f"{path.relative_to(REPO)} is missing"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    assert [c.name for c in classes] == [class_name], f"{path}: one class, {class_name}"
    recipe = Recipe(path=path, tree=tree, cls=classes[0])
    for node in recipe.cls.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            recipe.attributes[node.targets[0].id] = ast.literal_eval(node.value)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name):
            recipe.calls.setdefault(node.value.func.id, []).append(node.value)
        elif isinstance(node, ast.FunctionDef):
            recipe.methods[node.name] = node
    return recipe


@pytest.fixture(scope="module", params=sorted(PACKAGES))
def recipe(request) -> Recipe:
    return read_recipe(request.param)


def versions(recipe: Recipe) -> list[str]:
    return [args[0] for args, _ in recipe.args("version")]


def test_the_repository_has_the_package_api_v2_layout():
    repo_yaml = (REPO_ROOT / "repo.yaml").read_text(encoding="utf-8")
    assert re.search(rf"^\s+namespace:\s*'?{NAMESPACE}'?\s*$", repo_yaml, re.M), repo_yaml
    assert re.search(r"^\s+api:\s*v2\.\d+\s*$", repo_yaml, re.M), "repo.yaml: api v2.x"
    # the folder names are the package names, '-' written '_' (Spack's mapping, one to one)
    folders = sorted(p.name for p in (REPO_ROOT / "packages").iterdir() if p.is_dir())
    assert folders == sorted(folder for folder, *_ in PACKAGES.values())
    assert all((REPO_ROOT / "packages" / f / "package.py").is_file() for f in folders)
    # nothing left of the API v1 layout (repo.yaml and packages/ at the top of spack/)
    assert sorted(p.name for p in SPACK.iterdir()) == ["spack_repo"]


def test_each_recipe_builds_with_the_build_system_of_spacks_builtin_repository(recipe: Recipe):
    spack_name = next(n for n, (folder, *_) in PACKAGES.items() if folder == recipe.path.parent.name)
    _, _, base, module = PACKAGES[spack_name]
    assert [b.id for b in recipe.cls.bases if isinstance(b, ast.Name)] == [base]
    imports = {(node.module, alias.name) for node in recipe.tree.body if isinstance(node, ast.ImportFrom)
               for alias in node.names}
    assert (f"spack_repo.builtin.build_systems.{module}", base) in imports
    assert ("spack.package", "*") in imports
    assert recipe.path.read_text(encoding="utf-8").startswith("# SPDX-License-Identifier: BSD-3-Clause\n")
    assert ast.get_docstring(recipe.cls), "spack audit requires a docstring"


def test_each_recipe_names_where_it_comes_from_its_licence_and_maintainers(recipe: Recipe):
    for attribute in ("homepage", "url", "git"):
        value = recipe.attributes.get(attribute)
        assert isinstance(value, str) and value.startswith("https://"), f"{recipe.path}: {attribute} = {value!r}"
    assert recipe.attributes["git"].endswith(".git")
    # the url is the release's source tarball of the whole tree (docs/RELEASING.md)
    assert re.search(r"/mpimeter-[0-9.]+-source\.tar\.gz$", recipe.attributes["url"])
    assert recipe.args("license") == [(["BSD-3-Clause"], {})]
    maintainers = [name for args, _ in recipe.args("maintainers") for name in args]
    assert maintainers and all(isinstance(m, str) and m for m in maintainers)


def test_each_recipe_has_this_version_and_a_source_for_each(recipe: Recipe):
    assert mpimeter.__version__ in versions(recipe)
    for args, keywords in recipe.args("version"):
        # a checksum of the tarball, or the git tag or branch it is built from
        assert {"sha256", "tag", "branch", "commit"} & set(keywords), f"{recipe.path}: version {args[0]}"
        if "sha256" in keywords:
            assert re.fullmatch(r"[0-9a-f]{64}", keywords["sha256"])


def test_both_recipes_have_the_same_versions_and_the_cli_needs_its_own_bench():
    core, cli = read_recipe("mpimeter"), read_recipe("py-mpimeter")
    assert versions(core) == versions(cli)
    bench_deps = {keywords.get("when"): (args[0], keywords.get("type"))
                  for args, keywords in cli.args("depends_on") if args[0].startswith("mpimeter@")}
    assert bench_deps == {f"@{v}": (f"mpimeter@{v}", "run") for v in versions(cli)}


def test_the_core_builds_with_mpi_and_puts_its_bench_dir_in_the_run_environment():
    core = read_recipe("mpimeter")
    dependencies = {args[0]: keywords for args, keywords in core.args("depends_on")}
    assert "mpi" in dependencies and "c" in dependencies
    for args, keywords in core.args("variant"):
        assert keywords.get("description"), f"variant {args[0]} has no description"
        assert args[0] in {"papi", "simgrid"}
        # each variant turns on a dependency, only when asked for
        assert keywords.get("default") is False and dependencies[args[0]] == {"when": f"+{args[0]}"}
    run_env = ast.unparse(core.methods["setup_run_environment"])
    assert f"env.set('{BENCH_DIR_ENV}', self.prefix.share.mpimeter.bench)" in run_env  # ast.unparse quotes
    # the bench dir CMake installs into (`cmake --install`)
    assert "DESTINATION share/mpimeter/bench/${MM_MPI_LIBRARY}" in (REPO / "CMakeLists.txt").read_text()


def _spack_range(specifier: str) -> str:
    """A pip specifier of pyproject.toml (">=1.26,<3") as Spack's version range ("@1.26:2"): a
    lower bound as it is, an upper bound "<N" or "<N.M" as the last release series below it."""
    low, high = "", ""
    for part in specifier.split(","):
        part = part.strip()
        if part.startswith(">="):
            low = part[2:]
        elif part.startswith("<"):
            numbers = part[1:].split(".")
            assert len(numbers) <= 2 and numbers[-1] != "0", f"no Spack range for {specifier!r}"
            high = ".".join([*numbers[:-1], str(int(numbers[-1]) - 1)])
        else:
            raise AssertionError(f"no Spack range for {specifier!r}")
    return f"@{low}:{high}"


@pytest.mark.parametrize("specifier, spack", [(">=1.26,<3", "@1.26:2"), (">=0.14.2,<0.16", "@0.14.2:0.15"),
                                              (">=15", "@15:"), (">=8.2,<9", "@8.2:8")])
def test_a_pip_specifier_becomes_the_spack_range_of_the_same_releases(specifier, spack):
    assert _spack_range(specifier) == spack


@pytest.mark.skipif(tomllib is None, reason="Python 3.10 reads TOML with tomli, which is not installed")
def test_the_cli_depends_on_spacks_python_packages_with_the_bounds_of_pyproject():
    cli = read_recipe("py-mpimeter")
    pyproject = tomllib.loads((REPO / "python" / "pyproject.toml").read_text(encoding="utf-8"))
    declared = {}
    for args, keywords in cli.args("depends_on"):
        name = re.match(r"[a-z0-9-]+", args[0]).group(0)
        declared[name] = (args[0], keywords.get("type"))
    python_low = pyproject["project"]["requires-python"].removeprefix(">=")
    assert declared.pop("python") == (f"python@{python_low}:", ("build", "run"))
    build_backend = Requirement(pyproject["build-system"]["requires"][0])
    assert declared.pop(f"py-{build_backend.name}") == (
        f"py-{build_backend.name}{_spack_range(str(build_backend.specifier))}", "build")
    for dependency in pyproject["project"]["dependencies"]:
        requirement = Requirement(dependency)
        spack_name = SPACK_NAME.get(requirement.name, f"py-{requirement.name}")
        spec, deptype = declared.pop(spack_name, (None, None))
        assert spec is not None, f"py-mpimeter does not depend on {spack_name} ({dependency})"
        assert spec.startswith(spack_name + _spack_range(str(requirement.specifier))), (spec, dependency)
        assert deptype == ("build", "run")
        if spack_name == "duckdb":  # its Python module comes with +python (Spack has no py-duckdb)
            assert spec.endswith("+python"), spec
    assert set(declared) == {"mpimeter"}, f"depends on what pyproject.toml does not: {declared}"


def test_the_install_guides_spack_commands_name_this_repository_and_version_and_end_with_the_cli():
    """docs/INSTALL.md's Spack block is not run by the docs harness (it needs Spack): what it names
    is checked here: an environment made and active before develop/add, the repository folder that
    exists, this version, and `mpimeter --version` last."""
    guide = (REPO / "docs" / "INSTALL.md").read_text(encoding="utf-8")
    section = guide[guide.index("\n## Spack\n"):]
    block = re.search(r"\n```\n(.*?)\n```\n", section, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    first = commands[0]
    assert first.startswith("spack env create ") and "spack env activate " in first, first
    added = re.search(r"^spack repo add \$PWD/(\S+)$", "\n".join(commands), re.M)
    assert added and (REPO / added.group(1)) == REPO_ROOT, "spack repo add names the repository folder"
    assert set(re.findall(r"mpimeter@([0-9][0-9.]*)", block)) == {mpimeter.__version__}
    assert any(c.startswith("spack install") for c in commands)
    assert commands[-1] == "mpimeter --version"


@pytest.mark.skipif(not SPACK_BIN.is_file(), reason="Spack is not installed here (no $SPACK_ROOT/bin/spack)")
def test_spack_audit_passes_both_recipes(tmp_path):
    """Spack's own checks of directives, attributes and properties, with this repository in a
    configuration scope of the test's own (nothing of the user's configuration changes)."""
    (tmp_path / "repos.yaml").write_text(f"repos:\n  {NAMESPACE}: {REPO_ROOT}\n", encoding="utf-8")
    # the first call of a Spack may build its package index: minutes on a busy machine
    done = subprocess.run([str(SPACK_BIN), "-C", str(tmp_path), "audit", "packages", *PACKAGES],
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "PKG-DIRECTIVES: passed" in done.stdout and "PKG-PROPERTIES: passed" in done.stdout, done.stdout
