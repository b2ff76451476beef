# SPDX-License-Identifier: BSD-3-Clause
"""The allow-list of mpimeter.launch_vars applied where a file's content becomes a launch
(resume, tune's env files and ``--verify``, ``--algorithms``): a refusal is a PlanError, one line.
And the one way LD_PRELOAD reaches a launch: ``run --preload-pgmpi`` (:func:`pgmpi_preload`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mpimeter.campaign.plan import PlanError
from mpimeter.launch_vars import excerpt, refusal, value_type
from mpimeter.io.pgmpi_format import CONFIG_ENV, not_a_config

__all__ = ["check", "check_env", "excerpt", "pgmpi_preload", "refusal", "value_type"]


def check(name: str, value: str, where: str) -> None:
    """PlanError (one line, starting with ``where``) unless ``name=value`` may reach a launch
    from a file."""
    why = refusal(name, value)
    if why is not None:
        raise PlanError(f"{where}: {why}")


def check_env(env: Mapping[str, str], where: str) -> dict[str, str]:
    """Every variable of ``env`` checked (:func:`check`); a copy of it."""
    for name, value in env.items():
        check(name, value, where)
    return dict(env)


def pgmpi_preload(library: Path, config: Path, where: str) -> dict[str, str]:
    """The two variables that preload libmpimeter-pgmpi.so with ``config`` (`mpimeter run
    --preload-pgmpi`): the only way LD_PRELOAD reaches a launch this module produces, and only
    with the library built beside the alternative's binary (an allow-list of one file) and a
    configuration `mpimeter guidelines --replace` wrote. PlanError (one line) otherwise."""
    if not library.is_file():
        raise PlanError(f"{where}: {library} is not built (make build builds libmpimeter-pgmpi.so beside "
                        "mpimeter-bench)")
    why = not_a_config(config)
    if why:
        raise PlanError(f"{where} {config}: not a configuration of libmpimeter-pgmpi.so ({why}); write one with "
                        "mpimeter guidelines --replace FILE")
    env = {"LD_PRELOAD": str(library.resolve()), CONFIG_ENV: str(config.resolve())}
    if any(c in env["LD_PRELOAD"] for c in " :"):  # the loader splits LD_PRELOAD at both
        raise PlanError(f"{where}: the library's path {excerpt(env['LD_PRELOAD'])} holds a space or ':', which "
                        "LD_PRELOAD cannot carry; build in a folder without them")
    for name, value in env.items():
        if any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in value):
            raise PlanError(f"{where}: {name}={excerpt(value)} holds a control character (a newline, tab, ...)")
    return env
