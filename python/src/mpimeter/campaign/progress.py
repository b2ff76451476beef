"""Progress of a campaign: a rich progress bar on a terminal, one plain line per launch
otherwise (logs, CI), nothing in tests. Each shows launches done / total, elapsed time, an
estimate of the time remaining (mean launch duration so far × launches left) and failures."""

from __future__ import annotations

import sys
import time
from typing import Protocol, TextIO

from mpimeter.campaign.state import LaunchRecord


class ProgressSink(Protocol):
    def start(self, *, total: int, done: int, todo: int) -> None: ...
    def launch_started(self, rec: LaunchRecord) -> None: ...
    def launch_finished(self, rec: LaunchRecord) -> None: ...
    def close(self) -> None: ...


class NullProgress:
    def start(self, *, total: int, done: int, todo: int) -> None:
        pass

    def launch_started(self, rec: LaunchRecord) -> None:
        pass

    def launch_finished(self, rec: LaunchRecord) -> None:
        pass

    def close(self) -> None:
        pass


class _Counts:
    """What both displays show. The estimate: wall time per finished attempt so far × attempts
    left (retries are not foreseen)."""

    def __init__(self) -> None:
        self.total = self.done = self.todo = self.failed = self.finished_attempts = 0
        self.t0 = time.monotonic()

    def start(self, total: int, done: int, todo: int) -> None:
        self.total, self.done, self.todo = total, done, todo
        self.t0 = time.monotonic()

    def finished(self, rec: LaunchRecord) -> None:
        self.finished_attempts += 1
        if rec.status == "complete":
            self.done += 1
        else:
            self.failed += 1

    def remaining_s(self) -> float | None:
        if not self.finished_attempts:
            return None
        left = max(0, self.todo - self.finished_attempts)
        return left * (time.monotonic() - self.t0) / self.finished_attempts

    def elapsed_s(self) -> float:
        return time.monotonic() - self.t0


def _fmt_s(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class PlainProgress:
    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stdout
        self.counts = _Counts()

    def start(self, *, total: int, done: int, todo: int) -> None:
        self.counts.start(total, done, todo)
        already = f" ({done} already complete)" if done else ""
        print(f"campaign: {todo} launch(es) to run of {total}{already}", file=self.stream,
              flush=True)

    def launch_started(self, rec: LaunchRecord) -> None:
        pass

    def launch_finished(self, rec: LaunchRecord) -> None:
        c = self.counts
        c.finished(rec)
        retry = f" (attempt {rec.attempts})" if rec.attempts > 1 else ""
        why = f": {rec.reason}" if rec.status != "complete" else ""
        print(f"[{c.done}/{c.total}] {rec.alternative} #{rec.index:03d}{retry} {rec.status}"
              f"{why} in {rec.duration_s:.1f} s | elapsed {_fmt_s(c.elapsed_s())}, "
              f"~{_fmt_s(c.remaining_s())} left, failures {c.failed}",
              file=self.stream, flush=True)

    def close(self) -> None:
        pass


class RichProgress:
    """A live bar; also prints one line per failure so that failures stay visible."""

    def __init__(self, console=None):
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn)

        self.console = console or Console()
        self.counts = _Counts()
        self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                            MofNCompleteColumn(), TextColumn("elapsed"), TimeElapsedColumn(),
                            TextColumn("{task.fields[eta]} left, failures {task.fields[failed]}"),
                            console=self.console, transient=False)
        self.task = None

    def start(self, *, total: int, done: int, todo: int) -> None:
        self.counts.start(total, done, todo)
        self.bar.start()
        self.task = self.bar.add_task("launches", total=total, completed=done, eta="?",
                                      failed=0)

    def launch_started(self, rec: LaunchRecord) -> None:
        retry = f" (attempt {rec.attempts})" if rec.attempts > 1 else ""
        self.bar.update(self.task, description=f"{rec.alternative} #{rec.index:03d}{retry}")

    def launch_finished(self, rec: LaunchRecord) -> None:
        c = self.counts
        c.finished(rec)
        if rec.status != "complete":
            self.console.print(f"[yellow]{rec.alternative} #{rec.index:03d} {rec.status}: "
                               f"{rec.reason}[/yellow]")
        self.bar.update(self.task, completed=c.done, failed=c.failed,
                        eta=_fmt_s(c.remaining_s()))

    def close(self) -> None:
        if self.task is not None:
            self.bar.update(self.task, description="launches")
        self.bar.stop()


def make_progress(stream: TextIO | None = None) -> ProgressSink:
    stream = stream or sys.stdout
    if stream.isatty():
        return RichProgress()
    return PlainProgress(stream)
