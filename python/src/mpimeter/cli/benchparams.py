# SPDX-License-Identifier: BSD-3-Clause
"""The options a command passes on to mpimeter-bench, built from the binary's own description.

`mpimeter run` and `mpimeter sync-check` have their own options (--np, --mpi, --launches, ...)
and pass others on to the binary. Those are not written down here: a `DescribedCommand` asks the
binary that will run (`--bench-dir`, or $MPIMETER_BENCH_DIR, or the repository's build/; the first
library of `--mpi`, or the first one built) for `--describe` when the command line is parsed, and
turns every option of the requested mode into a click option with the binary's help, default and
allowed values. Values stay text: they are checked in the binary's words (describe.check_value),
then as a whole by the binary itself (describe.validate).
"""

from __future__ import annotations

from pathlib import Path

import click

from mpimeter.campaign import describe as _describe
from mpimeter.campaign import launcher as _launcher
from mpimeter.io.bench_binaries import NO_BENCH_ADVICE, is_executable_file

BENCH_MARK = "[bench]"


def _scan(args: list[str], flag: str) -> str | None:
    """The value of `flag` on a raw command line (--flag X or --flag=X; last one wins)."""
    value = None
    for i, token in enumerate(args):
        if token == "--":
            break
        if token == flag and i + 1 < len(args):
            value = args[i + 1]
        elif token.startswith(flag + "="):
            value = token.split("=", 1)[1]
    return value


def binary_for(args: list[str]) -> Path | None:
    """The binary a command line will run: its --bench-dir (or the default) and the first library
    of its --mpi (or the first one built). None when there is none."""
    bench_dir = Path(_scan(args, "--bench-dir") or _launcher.default_bench_dir())
    mpi = (_scan(args, "--mpi") or "").split(",")[0].strip()
    # the named library's binary; when it has none (the command will say so), any one built,
    # so that the command line still parses and the real problem is the one reported
    libs = ([mpi] if mpi else []) + _launcher.found_libraries(bench_dir)
    for lib in libs:
        path = _launcher.bench_binary(bench_dir, lib)
        if is_executable_file(path):
            return path
    return None


def describe_for(args: list[str]) -> _describe.Description | None:
    binary = binary_for(args)
    if binary is None:
        return None
    try:
        return _describe.describe(binary)
    except _describe.DescribeError:
        return None  # the command itself says what is wrong with the binary, when it needs it


def option_help(spec: _describe.OptionSpec) -> str:
    parts = [spec.help]
    if spec.default:
        parts.append(f"[default: {spec.default}]")
    if spec.allowed and spec.type not in ("path", "sizes"):
        parts.append(f"(allowed: {spec.allowed}{' ' + spec.unit if spec.unit and spec.is_number else ''})")
    return " ".join(parts) + " " + BENCH_MARK


# bench_click_options' options by (description, mode, exclude): a command builds its options at
# every parse (DescribedCommand.make_context), and a description's are the same each time; a few
# descriptions at most (one per binary), as describe.describe caches them; building them cost
# more than the rest of a parse of `mpimeter run`.
_OPTIONS: dict[tuple[int, str, frozenset[str]], tuple[_describe.Description, list[click.Option]]] = {}
_OPTIONS_KEPT = 16


def bench_click_options(desc: _describe.Description, mode: str, *,
                        exclude: frozenset[str] = frozenset()) -> list[click.Option]:
    """One click option per option of the binary in `mode`: text values (checked later in the
    binary's words), flags as flags. Built once per description (click keeps a value in the
    context, never in its option)."""
    key = (id(desc), mode, exclude)
    made = _OPTIONS.get(key)
    if made is None:  # the entry holds its description: no other object takes that id meanwhile
        if len(_OPTIONS) >= _OPTIONS_KEPT:
            _OPTIONS.clear()
        made = _OPTIONS[key] = (desc, _click_options(desc, mode, exclude))
    return list(made[1])


def _click_options(desc: _describe.Description, mode: str, exclude: frozenset[str]) -> list[click.Option]:
    out = []
    for spec in desc.options_for(mode):
        if spec.name in exclude:
            continue
        if spec.type == "flag":
            out.append(click.Option([spec.flag, spec.dest], is_flag=True, default=None,
                                    help=option_help(spec)))
        else:
            out.append(click.Option([spec.flag, spec.dest], type=str, default=None,
                                    metavar=spec.metavar or "VALUE", help=option_help(spec)))
    return out


class DescribedCommand(click.Command):
    """A command whose [bench] options come from the binary's --describe at parse time."""

    def __init__(self, *args, bench_mode: str, exclude: frozenset[str] = frozenset(), **kwargs):
        super().__init__(*args, **kwargs)
        self._own_params = list(self.params)
        self._bench_mode = bench_mode
        self._exclude = exclude
        self.description: _describe.Description | None = None
        self._bench_dir = ""  # where the binary was looked for (load_bench_params)

    def load_bench_params(self, args: list[str]) -> None:
        own = {name for p in self._own_params for name in p.opts}
        self.description = describe_for(list(args))
        self._bench_dir = _scan(list(args), "--bench-dir") or str(_launcher.default_bench_dir())
        extra = []
        if self.description is not None:
            extra = [o for o in bench_click_options(self.description, self._bench_mode,
                                                    exclude=self._exclude)
                     if not set(o.opts) & own]
        self.params = self._own_params + extra

    def make_context(self, info_name, args, parent=None, **extra):
        self.load_bench_params(list(args))
        return super().make_context(info_name, args, parent=parent, **extra)

    def parse_args(self, ctx, args):
        """Without a binary to describe them, the [bench] options are unknown: an option of the
        binary's (--ops) is then said to be missing because the binary is, not as a typo of the
        command's own options (click's "No such option ... Did you mean --mpi?")."""
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            if self.description is not None:
                raise
            raise click.NoSuchOption(
                exc.option_name, ctx=ctx,
                message=f"{exc.option_name} is not an option of mpimeter {ctx.info_name} itself; those passed on to mpimeter-bench "
                        f"{BENCH_MARK} come from its --describe, and no binary answered under {self._bench_dir} "
                        f"({NO_BENCH_ADVICE})") from None

    def format_help_text(self, ctx, formatter):
        super().format_help_text(ctx, formatter)
        if self.description is None:
            formatter.write_paragraph()
            formatter.write_text(f"No mpimeter-bench was found under {self._bench_dir} ({NO_BENCH_ADVICE}): "
                                 "its options are not listed here.")

    def format_options(self, ctx, formatter):
        """Two groups: the command's own options, then those it passes on to mpimeter-bench
        (from --describe, marked [bench]), instead of one list of both."""
        own = [p.get_help_record(ctx) for p in self._own_params]
        own.extend(p.get_help_record(ctx) for p in self.get_params(ctx) if p.name == "help")
        bench = [p.get_help_record(ctx) for p in self.params if p not in self._own_params]
        with formatter.section("Options"):
            formatter.write_dl([r for r in own if r])
        if any(bench):
            with formatter.section(f"Options of mpimeter-bench {BENCH_MARK}"):
                formatter.write_dl([r for r in bench if r])
