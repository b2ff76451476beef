# SPDX-License-Identifier: BSD-3-Clause
"""The click group of `mpimeter` (and of `mpimeter store`): bad command lines said in one line
naming the command, options that take one value refused when given twice, and the [bench]
options of a command loaded from the binary it will run."""

from __future__ import annotations

import click

from mpimeter.errors import MpimeterError

__all__ = ["MpimeterGroup", "OneLineUsageError", "repeated_options"]


class OneLineUsageError(click.UsageError, MpimeterError):
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
        from mpimeter.cli.benchparams import DescribedCommand  # it imports the campaign package (lazy: a fast --help)

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
