# SPDX-License-Identifier: BSD-3-Clause
"""The allow-list of mpimeter.launch_vars applied where a file's content becomes a launch
(resume, tune's env files and ``--verify``, ``--algorithms``): a refusal is a PlanError, one line."""

from __future__ import annotations

from collections.abc import Mapping

from mpimeter.campaign.plan import PlanError
from mpimeter.launch_vars import excerpt, refusal, value_type

__all__ = ["check", "check_env", "excerpt", "refusal", "value_type"]


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
