# SPDX-License-Identifier: BSD-3-Clause
"""One root for the package's errors (mpimeter.errors.MpimeterError) and one place in the CLI
that maps one to what a command says and exits with (cli.output.exits_on_errors, which
cli.common.guarded and the commands that run campaigns use): every exception class of the
package derives from the root, and no `except` clause of cli/ turns one into an exit itself."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import mpimeter
from mpimeter.cli import main
from mpimeter.cli.common import guarded
from mpimeter.cli.group import OneLineUsageError
from mpimeter.cli.output import exits_on_errors
from mpimeter.errors import EXIT_BAD_INPUT, MpimeterError
from data.package_sources import package_trees

SRC = Path(mpimeter.__file__).resolve().parent


def _modules():
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "__main__.py":  # importing it runs the command
            continue
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        yield importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))


def _exception_classes() -> dict[str, type]:
    found = {}
    for module in _modules():
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, BaseException)
                    and value.__module__ == module.__name__):
                found[f"{module.__name__}.{value.__qualname__}"] = value
    return found


EXCEPTIONS = _exception_classes()


def test_every_exception_of_the_package_derives_from_the_root():
    assert len(EXCEPTIONS) >= 15 and "mpimeter.campaign.plan.PlanError" in EXCEPTIONS
    assert sorted(name for name, cls in EXCEPTIONS.items() if not issubclass(cls, MpimeterError)) == []


def test_the_builtin_bases_callers_catch_are_kept():
    by_name = {name.rpartition(".")[2]: cls for name, cls in EXCEPTIONS.items()}
    for name in ("PlanError", "AnalysisError", "DescribeError", "CampaignFileError", "TuningFileError",
                 "ClockModelError"):
        assert issubclass(by_name[name], ValueError), name
    assert issubclass(by_name["NotRegularFile"], OSError)
    assert issubclass(by_name["OneLineUsageError"], click.UsageError)


def test_every_exit_code_is_a_failure_code():
    codes = {name: cls.exit_code for name, cls in EXCEPTIONS.items()}
    assert all(isinstance(c, int) and 0 < c < 126 for c in codes.values()), codes


class _Unusual(MpimeterError):
    exit_code = 7


def test_guarded_says_the_error_and_exits_with_its_code(capsys):
    def body() -> int:
        raise _Unusual("bad thing\nin two lines")

    with pytest.raises(SystemExit) as stop:
        guarded("demo", body)
    assert stop.value.code == 7
    assert capsys.readouterr().err == "mpimeter demo: error: bad thing\\x0ain two lines\n"


def test_the_mapping_decorates_a_command(capsys):
    @exits_on_errors("demo sub")
    def command(fail: bool) -> str:
        if fail:
            raise MpimeterError("nothing to do")
        return "done"

    assert command(False) == "done"
    with pytest.raises(SystemExit) as stop:
        command(True)
    assert stop.value.code == EXIT_BAD_INPUT
    assert capsys.readouterr().err == "mpimeter demo sub: error: nothing to do\n"


def test_a_click_usage_error_is_left_to_click():
    with pytest.raises(OneLineUsageError), exits_on_errors("demo"):
        raise OneLineUsageError("--x given more than once", "demo")


def test_a_command_that_runs_campaigns_maps_errors_through_the_root(tmp_path):
    """sync-check's rank bound is a PlanError raised by campaign.limits: one line, exit 2."""
    r = CliRunner().invoke(main, ["sync-check", "--np", "100000", "--bench-dir", str(tmp_path)])
    assert r.exit_code == EXIT_BAD_INPUT, r.output
    assert r.stderr.startswith("mpimeter sync-check: error: --np 100000") and r.stderr.count("\n") == 1


def _cli_exits_on_package_errors() -> list[str]:
    """'file:line' of each `except` clause in cli/ (but the mapping's own) that names an error
    of the package and exits in its body (fail, _fail, sys.exit) instead of leaving it to the
    mapping."""
    names = {name.rpartition(".")[2] for name in EXCEPTIONS} - {"OneLineUsageError"}
    found = []
    for path, tree in package_trees().items():
        if path.parent != Path("cli"):
            continue
        mapping = {id(n) for f in ast.walk(tree)
                   if isinstance(f, ast.FunctionDef) and f.name == exits_on_errors.__wrapped__.__name__
                   for n in ast.walk(f)}
        for handler in ast.walk(tree):
            if not isinstance(handler, ast.ExceptHandler) or handler.type is None or id(handler) in mapping:
                continue
            caught = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", None)
                      for n in ast.walk(handler.type)}
            exits = any(isinstance(c, ast.Call) and ast.unparse(c.func) in ("fail", "_fail", "sys.exit")
                        for stmt in handler.body for c in ast.walk(stmt))
            if caught & names and exits:
                found.append(f"{path.name}:{handler.lineno}")
    return found


def test_the_cli_maps_the_package_errors_in_one_place():
    assert _cli_exits_on_package_errors() == []
