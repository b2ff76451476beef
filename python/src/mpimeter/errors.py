# SPDX-License-Identifier: BSD-3-Clause
"""The one root of the errors mpimeter raises on purpose: :class:`MpimeterError`.

Its message (``str``) is the one line a command prints, and ``exit_code`` what the command exits
with; ``mpimeter.cli.output.exits_on_errors`` is the one place that maps them. A subclass keeps
the builtin base its callers catch as well (``ValueError``, ``OSError``), and sets
``exit_code`` when it means another code than bad input. This module imports nothing of the
package, so that every layer may raise its errors from here.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = ["EXIT_BAD_INPUT", "MpimeterError"]

EXIT_BAD_INPUT = 2  # bad input: the message says what was wrong and what is allowed


class MpimeterError(Exception):
    """An error mpimeter raises on purpose; the command prints ``str()`` of it in one line and
    exits with ``exit_code``."""

    exit_code: ClassVar[int] = EXIT_BAD_INPUT
