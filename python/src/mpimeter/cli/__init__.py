# SPDX-License-Identifier: BSD-3-Clause
"""The `mpimeter` command: one module per sub-command (see COMMANDS). A sub-command module
imports no other: what they share is in `common`, `group`, `output` and the `*_view` modules.

A sub-command's module is imported only when that command is asked for (click's lazy-group
pattern), and imports pandas, scipy, numpy, matplotlib and duckdb only in the functions that run
it, never at the top: they take seconds, while `mpimeter --version`, `--help`, shell completion
and every `mpimeter SUB --help` (or a refused command line) need none of them. The choices its
options offer come from modules that import none either (`mpimeter.analysis.choices`, ...). The
list in `--help` and in completion reads each command's name and docstring from its module's
source (`ast`), so the help text still lives with the command only.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from functools import lru_cache

import click

from mpimeter import __version__
from mpimeter.cli.group import MpimeterGroup, OneLineUsageError, repeated_options

__all__ = ["COMMANDS", "MpimeterGroup", "OneLineUsageError", "main", "repeated_options"]

# Each entry is a module of this package that defines a click command named `command`.
COMMANDS = [
    "run", "reproducibility",
    "analyze", "compare", "gate", "guidelines", "tune",
    "fingerprint", "report", "imports", "schemes",
    "sync_check",
    "model", "store", "site", "export",
]


@lru_cache(maxsize=None)
def _declared(module: str) -> tuple[str, str]:
    """The command name and docstring that `mpimeter.cli.<module>` declares: the first argument
    of the `click.command(...)` / `click.group(...)` decorating its function `command`."""
    spec = importlib.util.find_spec(f"mpimeter.cli.{module}")
    tree = ast.parse(spec.loader.get_source(spec.name))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "command":
            for deco in node.decorator_list:
                if (isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute)
                        and deco.func.attr in ("command", "group") and deco.args
                        and isinstance(deco.args[0], ast.Constant)):
                    return deco.args[0].value, ast.get_docstring(node) or ""
    raise RuntimeError(f"mpimeter.cli.{module}: no click command named `command`")


class LazyGroup(MpimeterGroup):
    """Imports a sub-command's module when the command is asked for, not before."""

    def __init__(self, *args, modules: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.modules = modules

    def _module_of(self) -> dict[str, str]:
        return {_declared(m)[0]: m for m in self.modules}

    def list_commands(self, ctx):
        return sorted({*self._module_of(), *self.commands})

    def get_command(self, ctx, cmd_name):
        if cmd_name not in self.commands:
            # the module named like the command first: parsing it alone is enough, mostly
            guess = cmd_name.replace("-", "_")
            if guess in self.modules and _declared(guess)[0] == cmd_name:
                module = guess
            else:
                module = self._module_of().get(cmd_name)
            if module is None:
                return None
            self.add_command(importlib.import_module(f"mpimeter.cli.{module}").command, cmd_name)
        return self.commands[cmd_name]

    def format_commands(self, ctx, formatter):
        """click's list, from the declared docstrings (no import)."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        docs = {name: _declared(module)[1] for name, module in self._module_of().items()}
        rows = []
        for name in names:
            if name in self.commands:
                text = self.commands[name].get_short_help_str(limit)
            else:
                text = click.Command(name, help=docs[name]).get_short_help_str(limit)
            rows.append((name, text))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def shell_complete(self, ctx, incomplete):
        """Command names from the declared docstrings; options of the group as click does."""
        from click.shell_completion import CompletionItem

        if incomplete.startswith("-"):
            return super().shell_complete(ctx, incomplete)
        modules = self._module_of()
        return [CompletionItem(name, help=click.Command(name, help=_declared(modules[name])[1])
                               .get_short_help_str())
                for name in self.list_commands(ctx) if name.startswith(incomplete) and name in modules]


@click.group(cls=LazyGroup, modules=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mpimeter")
def main() -> None:
    """MPI micro-benchmarks you can trust: run campaigns, analyze, compare, report."""
