# SPDX-License-Identifier: BSD-3-Clause
"""The Python package's imports run one way (docs/ARCHITECTURE.md, "The Python package: its
levels", whose table this test reads: one source for the levels): no two modules import each other,
directly or around a circle (imports under TYPE_CHECKING count: they are a dependency all the
same), no `mpimeter` sub-command module imports another (what they share is in cli.common,
cli.group, cli.output and the cli.*_view modules), and nothing below `cli` reaches up into it."""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from pathlib import Path

import mpimeter
from mpimeter.cli import COMMANDS
from data.package_sources import package_trees

# the circle finder of the C half's check (c/tests/tools/layers.py, run by ctest with the
# system's Python alone): one Tarjan for both halves
_spec = importlib.util.spec_from_file_location(
    "mm_layers", Path(__file__).resolve().parents[2] / "c" / "tests" / "tools" / "layers.py")
_layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_layers)
_circles = _layers.circles

SRC = Path(mpimeter.__file__).resolve().parent.parent

# none left: io.origin's checks that read the whole launch are in io.origin_checks (above
# io.meta, its parser below it); io.redact's reading rule takes the binaries' secret words from
# io.bench_binaries, which imports nothing of mpimeter (campaign.secrets takes them there too)
KNOWN_CIRCLES: set[frozenset[str]] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for path in (SRC / "mpimeter").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module → the mpimeter modules it imports (anywhere in it, at any depth); a name imported
    from a package counts as its sub-module when there is one."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(package_trees()[path.relative_to(SRC / "mpimeter")]):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    found.add(sub if sub in modules else base)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
                found.add("<importlib>")
        graph[name] = {m for m in found if (m in modules or m == "<importlib>") and m != name}
    return graph


@functools.cache
def _graph() -> dict[str, set[str]]:
    """The import graph, read on first use: at import, every test process that collects this
    module parsed the whole package (most of a second of each xdist worker's start), used or not."""
    return _imports(_modules())


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {frozenset("abc")}
    assert _circles({"a": {"b"}, "b": set()}) == set()


def test_no_module_circles():
    assert _circles(_graph()) == KNOWN_CIRCLES


def test_no_subcommand_imports_another():
    commands = {f"mpimeter.cli.{c}" for c in COMMANDS}
    assert len(commands) == len(COMMANDS) > 10
    crossing = sorted((m, t) for m in commands for t in _graph()[m] & commands)
    assert crossing == []


def test_nothing_below_cli_imports_it_or_finds_modules_by_name():
    upward = sorted((m, t) for m, targets in _graph().items()
                    if not m.startswith("mpimeter.cli") and m != "mpimeter.__main__"  # `python -m mpimeter`
                    for t in targets if t.startswith("mpimeter.cli") or t == "<importlib>")
    assert upward == []
    assert {m for m, targets in _graph().items() if "<importlib>" in targets} == {"mpimeter.cli"}


ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "ARCHITECTURE.md"
SECTION = "## The Python package: its levels"


def _levels_of(doc: str) -> tuple[set[str], ...]:
    """The packages of each level, from the top down: the first column of the table under SECTION
    (a package imports those below it, or its siblings on one level, never one above)."""
    assert SECTION in doc, f"{ARCHITECTURE} has no section {SECTION!r}"
    rows = []
    for line in doc.split(SECTION, 1)[1].split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        names = re.findall(r"`([\w.]+)`", cells[0]) if cells else []
        if names:
            rows.append(set(names))
    return tuple(rows)


LEVELS = _levels_of(ARCHITECTURE.read_text(encoding="utf-8"))


def test_the_levels_are_read_from_the_architecture_table():
    doc = f"""x\n{SECTION}\n\n| packages | what |\n|---|---|\n| `cli` | top |\n| `io`, `stats` | below |\n\n## next\n| `x` | y |"""
    assert _levels_of(doc) == ({"cli"}, {"io", "stats"})
    assert LEVELS[0] >= {"__main__"} and {"cli"} in LEVELS and "stats" in set().union(*LEVELS)
    assert LEVELS[-1] >= {"mpimeter", "warning_codes"}  # the ground, at the bottom


def _level(module: str) -> int:
    part = module.split(".")[1] if "." in module else module
    return next(i for i, names in enumerate(LEVELS) if part in names)


def test_the_levels_name_every_module():
    assert {m for m in _graph() if not any((m.split(".")[1] if "." in m else m) in n for n in LEVELS)} == set()


def test_no_import_runs_up_the_levels():
    """io below campaign: io.redact takes the binary's words from io.bench_binaries, not from
    campaign.describe."""
    upward = sorted((m, t) for m, targets in _graph().items() for t in targets - {"<importlib>"}
                    if _level(t) < _level(m))
    assert upward == []
    # what the check sees: an import from io up into campaign would be one
    assert _level("mpimeter.campaign.describe") < _level("mpimeter.io.redact")
