# SPDX-License-Identifier: BSD-3-Clause
"""What a long command (`store add`, `report`, `site`) is doing while it works: on a terminal, a
rich spinner on stderr with the current step, its number and the seconds since the command
began; elsewhere (a pipe, a log, a test) nothing, so that what the command prints stays what it
was. The names shown come from the user or from files: they pass through output.terminal_text."""

from __future__ import annotations

import sys
import time
from types import TracebackType

from mpimeter.cli.output import terminal_text


def _terminal_console():
    """stderr's rich Console when stderr is a terminal, else None (nothing is shown)."""
    if not sys.stderr.isatty():
        return None
    from rich.console import Console

    return Console(stderr=True, highlight=False)


class Steps:
    """``with Steps("report", 4) as steps: steps.step("loading results/ar")``. ``console``: a rich
    Console to draw on (tests); by default stderr's when it is a terminal, else none."""

    def __init__(self, command: str, total: int, *, console=None):
        if console is None:
            console = _terminal_console()
        self._command = command
        self._total = total
        self._done = 0
        self._started = time.monotonic()
        self._status = None  # the spinner and the live display it is drawn in (rich's Status, made public)
        if console is not None:
            from rich.live import Live
            from rich.spinner import Spinner

            spinner = Spinner("dots", text="", style="status.spinner")
            self._status = (spinner, Live(spinner, console=console, refresh_per_second=12.5, transient=True))

    def __enter__(self) -> Steps:
        if self._status is not None:
            self._status[1].start()
        return self

    def step(self, what: str) -> None:
        """The next step begins: ``what`` it does."""
        self._done += 1
        if self._status is None:
            return
        from rich.text import Text

        elapsed = time.monotonic() - self._started
        spinner, live = self._status
        spinner.update(text=Text(f"{self._command}: {terminal_text(what, one_line=True)} "
                                 f"(step {self._done} of {self._total}, {elapsed:.0f} s)",
                                 no_wrap=True, overflow="ellipsis"))  # one line, however narrow
        live.refresh()  # drawn now: a step shorter than the spinner's frame is shown too

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._status is not None:
            self._status[1].stop()
