# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --suite FILE` (mpimeter.campaign.suite): the suite's options become the command's
defaults (click's default map), so that each goes through the very conversion and checks its
command-line option goes through; nothing here lists an option.

The allow-list is the command's own options, less those that choose what runs or where
(SESSION_ONLY: a launcher template or a bench dir from a file would run what the file says) and
the [bench] options the binary's --describe lists; a value is checked as the command line's is
(click's type, then the binary's words, describe.check_value), and a --variant's variables pass
mpimeter.launch_vars like every variable that reaches a launch from a file.

An option given both in the suite and on the command line is refused (:func:`check_conflicts`):
neither silently wins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from mpimeter.cli.group import OneLineUsageError
from mpimeter.io.bench_binaries import NO_BENCH_ADVICE

# What only the command line may give: where the campaign goes, what runs it, this session's own
# choices, and the suite itself.
SESSION_ONLY = frozenset({"suite", "out", "resume", "trust_recorded", "launcher", "bench_dir", "analyze",
                          "bench_extra", "help"})
META_KEY = "mpimeter.suite"


def _options(command: click.Command) -> dict[str, click.Option]:
    """The suite's key (the long flag without its dashes) -> the option, for every option a suite may set."""
    out = {}
    for param in command.params:
        if isinstance(param, click.Option) and param.name not in SESSION_ONLY:
            longs = [o for o in param.opts if o.startswith("--")]
            if longs:
                out[longs[0][2:]] = param
    return out


def _checker(ctx: click.Context, params: dict[str, click.Option]):
    from mpimeter import launch_vars
    from mpimeter.campaign import describe as _describe
    from mpimeter.campaign import plan

    description = getattr(ctx.command, "description", None)
    bench = {spec.dest: spec for spec in description.options_for("bench")} if description is not None else {}

    def check(key: str, value: Any) -> str | None:
        param = params[key]
        if param.name in bench:
            return _describe.check_value(description, bench[param.name], value)
        if param.name == "variants":
            try:
                _, env = plan.parse_variant(value)
            except plan.PlanError as exc:
                return str(exc)
            for name, text in env.items():
                why = launch_vars.refusal(name, text)
                if why:
                    return f"{why} (a variant from a file sets only these; --variant on the command line sets any)"
            return None
        try:
            param.type.convert(value, param, ctx)
        except click.BadParameter as exc:
            return exc.format_message()
        return None

    return check


def load_suite(ctx: click.Context, param: click.Parameter, value: Path | None):
    """The --suite callback (an eager option: it runs before the options it fills in)."""
    if value is None or ctx.resilient_parsing:
        return value
    from mpimeter.campaign import suite as _suite

    if getattr(ctx.command, "description", None) is None:  # the options a suite may set are the binary's
        raise OneLineUsageError("--suite: the options of mpimeter-bench come from its --describe, and no binary was "
                                f"found ({NO_BENCH_ADVICE})", ctx.info_name or "run")
    params = _options(ctx.command)
    kinds = {key: _suite.OptionKind(flag=p.is_flag, multiple=p.multiple) for key, p in params.items()}
    try:
        loaded = _suite.load(Path(value), options=kinds, check=_checker(ctx, params))
    except _suite.SuiteError as exc:
        raise OneLineUsageError(str(exc), ctx.info_name or "run") from None
    ctx.default_map = {**(ctx.default_map or {}), **{params[k].name: v for k, v in loaded.values.items()}}
    ctx.meta[META_KEY] = loaded
    return value


def suite_option(fn):
    return click.option(
        "--suite", type=click.Path(path_type=Path, dir_okay=False), default=None, is_eager=True,
        expose_value=False, callback=load_suite,
        help="a whole suite in one TOML file: measurements (ops and the options of this command), the "
             "comparisons the report draws (docs/GUIDE.md, \"Suites\"); an option given both here and in the "
             "suite is refused")(fn)


def loaded_suite(ctx: click.Context):
    """The suite of this command line (mpimeter.campaign.suite.Suite), or None."""
    return ctx.meta.get(META_KEY)


def check_conflicts(ctx: click.Context) -> None:
    """Refuses an option the suite sets that the command line gives too."""
    suite = loaded_suite(ctx)
    if suite is None:
        return
    params = _options(ctx.command)
    for key in suite.values:
        if ctx.get_parameter_source(params[key].name) == click.core.ParameterSource.COMMANDLINE:
            raise OneLineUsageError(f"--{key} is given on the command line and in --suite {suite.path}: give it in "
                                    "one place (the command line does not override a suite)", ctx.info_name or "run")
