"""The `mpimeter` command: one module per sub-command (see COMMANDS).

A sub-command's module is imported only when that command runs (click's lazy-group pattern):
they import pandas, scipy, matplotlib and duckdb, which take seconds, while `mpimeter --version`,
`mpimeter --help` and shell completion of the command names need none of them. The list in
`--help` and in completion reads each command's name and docstring from its module's source
(`ast`), so the help text still lives with the command only.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from functools import lru_cache

import click

from mpimeter import __version__

# Each entry is a module of this package that defines a click command named `command`.
COMMANDS = [
    "run", "reproducibility",
    "analyze", "compare", "gate",
    "fingerprint", "report", "imports", "schemes",
    "sync_check",
    "model", "store", "site",
]


class OneLineUsageError(click.UsageError):
    """A bad command line, said the way every mpimeter error is: one line with the command's
    name, exit 2 (click's own form is four lines of usage around the message)."""

    def __init__(self, message: str, command: str) -> None:
        super().__init__(message)
        self.command = command

    def show(self, file=None) -> None:
        click.echo(f"mpimeter {self.command}: error: {self.format_message()} "
                   f"(see mpimeter {self.command} --help)", err=True)


def repeated_options(command: click.Command, args: list[str]) -> list[str]:
    """Options given more than once that take one value: click keeps the last without a word,
    which would silently drop what the user wrote first."""
    single = {}
    for param in command.params:
        if isinstance(param, click.Option) and not param.multiple and not param.is_flag:
            for opt in param.opts + param.secondary_opts:
                single[opt] = param.name
    seen: dict[str, list[str]] = {}
    for token in args:
        if token == "--":
            break
        flag = token.split("=", 1)[0]
        if flag in single:
            seen.setdefault(single[flag], []).append(flag)
    return [flags[0] for flags in seen.values() if len(flags) > 1]


class MpimeterGroup(click.Group):
    prefix = ""  # a group inside mpimeter names its sub-commands "<group> <sub-command>" in messages

    def resolve_command(self, ctx, args):
        from mpimeter.cli.benchparams import DescribedCommand  # it imports the campaign package

        name, command, rest = super().resolve_command(ctx, args)
        if isinstance(command, DescribedCommand):
            command.load_bench_params(rest)  # its [bench] options, from the binary it will run
        if command is not None:
            repeated = repeated_options(command, rest)
            if repeated:
                raise OneLineUsageError(f"{', '.join(repeated)} given more than once; give each "
                                        "once", self.prefix + (name.replace("_", "-") if name else ""))
        return name, command, rest

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except OneLineUsageError:
            raise
        except click.UsageError as exc:
            sub = exc.ctx.info_name if exc.ctx is not None and exc.ctx.parent is not None else None
            if sub is None:
                raise
            raise OneLineUsageError(exc.format_message(), self.prefix + sub) from None


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
