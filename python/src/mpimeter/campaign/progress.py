# SPDX-License-Identifier: BSD-3-Clause
"""Progress of a campaign: a rich progress bar on a terminal, one plain line per launch
otherwise (logs, CI), nothing in tests. Each counts the launches attempted (ended complete or
failed, as campaign.json records them) of the total, so that a failed launch moves the count too,
and shows the elapsed time, an estimate of the time remaining (mean duration of the attempts
finished so far × attempts left) and the failures."""

from __future__ import annotations

import sys
import time
from typing import Protocol, TextIO

from mpimeter.campaign.launch_record import LaunchRecord


class ProgressSink(Protocol):
    """`counts` is always the campaign record's own count of launches per status
    (CampaignState.counts(), as just saved to campaign.json), so that what is shown - after a
    resume, a retry or a Ctrl-C - is what the record says."""

    def start(self, *, total: int, todo: int, counts: dict[str, int]) -> None: ...
    def launch_started(self, rec: LaunchRecord) -> None: ...
    def launch_finished(self, rec: LaunchRecord, counts: dict[str, int]) -> None: ...
    def extend(self, added: int) -> None: ...  # --launches auto planned `added` more launches
    def close(self, counts: dict[str, int]) -> None: ...


class NullProgress:
    def start(self, *, total: int, todo: int, counts: dict[str, int]) -> None:
        pass

    def launch_started(self, rec: LaunchRecord) -> None:
        pass

    def launch_finished(self, rec: LaunchRecord, counts: dict[str, int]) -> None:
        pass

    def extend(self, added: int) -> None:
        pass

    def close(self, counts: dict[str, int]) -> None:
        pass


class _Counts:
    """What both displays show: the record's counts (complete of total, failed, incomplete)
    and an estimate: wall time per attempt finished in this session × attempts left (retries
    are not foreseen)."""

    def __init__(self) -> None:
        self.total = self.todo = self.finished_attempts = 0
        self.record: dict[str, int] = {}
        self.t0 = time.monotonic()

    def start(self, total: int, todo: int, counts: dict[str, int]) -> None:
        self.total, self.todo, self.record = total, todo, dict(counts)
        self.t0 = time.monotonic()

    def finished(self, counts: dict[str, int]) -> None:
        self.finished_attempts += 1
        self.record = dict(counts)

    def extend(self, added: int) -> None:
        self.total += added
        self.todo += added

    @property
    def done(self) -> int:
        return self.record.get("complete", 0)

    @property
    def attempted(self) -> int:
        """Launches that ended, complete or failed (a failed one may be retried later)."""
        return self.done + self.failed

    @property
    def failed(self) -> int:
        return self.record.get("failed", 0)

    @property
    def incomplete(self) -> int:
        return self.record.get("incomplete", 0)

    def problems(self) -> str:
        """`complete C, failed F`, and `, incomplete I` when a launch was stopped (Ctrl-C)."""
        return f"complete {self.done}, failed {self.failed}" + (
            f", incomplete {self.incomplete}" if self.incomplete else "")

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

    def start(self, *, total: int, todo: int, counts: dict[str, int]) -> None:
        self.counts.start(total, todo, counts)
        done = self.counts.done
        already = f" ({done} already complete)" if done else ""
        print(f"campaign: {todo} launch(es) to run of {total}{already}", file=self.stream,
              flush=True)

    def launch_started(self, rec: LaunchRecord) -> None:
        pass

    def launch_finished(self, rec: LaunchRecord, counts: dict[str, int]) -> None:
        c = self.counts
        c.finished(counts)
        retry = f" (attempt {rec.attempts})" if rec.attempts > 1 else ""
        why = f": {rec.reason}" if rec.status != "complete" else ""
        print(f"[{c.attempted}/{c.total}] {rec.alternative} #{rec.index:03d}{retry} {rec.status}"
              f"{why} in {rec.duration_s:.1f} s | elapsed {_fmt_s(c.elapsed_s())}, "
              f"~{_fmt_s(c.remaining_s())} left, {c.problems()}",
              file=self.stream, flush=True)

    def extend(self, added: int) -> None:
        self.counts.extend(added)
        print(f"campaign: {added} more launch(es) for the pairs not yet precise enough "
              f"(--launches auto), {self.counts.total} in all", file=self.stream, flush=True)

    def close(self, counts: dict[str, int]) -> None:
        # A campaign stopped between two launches leaves one `incomplete` that no line above
        # shows: end with the record's counts so that the last line agrees with campaign.json.
        if dict(counts) != self.counts.record:
            self.counts.record = dict(counts)
            c = self.counts
            print(f"[{c.attempted}/{c.total}] stopped | elapsed {_fmt_s(c.elapsed_s())}, "
                  f"{c.problems()}, pending {counts.get('pending', 0)}",
                  file=self.stream, flush=True)


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
                            TextColumn("{task.fields[eta]} left, {task.fields[problems]}"),
                            console=self.console, transient=False)
        self.task = None

    def start(self, *, total: int, todo: int, counts: dict[str, int]) -> None:
        c = self.counts
        c.start(total, todo, counts)
        self.bar.start()
        self.task = self.bar.add_task("launches", total=total, completed=c.attempted, eta="?",
                                      problems=c.problems())

    def launch_started(self, rec: LaunchRecord) -> None:
        retry = f" (attempt {rec.attempts})" if rec.attempts > 1 else ""
        self.bar.update(self.task, description=f"{rec.alternative} #{rec.index:03d}{retry}")

    def launch_finished(self, rec: LaunchRecord, counts: dict[str, int]) -> None:
        c = self.counts
        c.finished(counts)
        if rec.status != "complete":
            self.console.print(f"[yellow]{rec.alternative} #{rec.index:03d} {rec.status}: "
                               f"{rec.reason}[/yellow]")
        self.bar.update(self.task, completed=c.attempted, problems=c.problems(),
                        eta=_fmt_s(c.remaining_s()))

    def extend(self, added: int) -> None:
        self.counts.extend(added)
        if self.task is not None:
            self.bar.update(self.task, total=self.counts.total)

    def close(self, counts: dict[str, int]) -> None:
        if self.task is not None:
            self.counts.record = dict(counts)
            self.bar.update(self.task, description="launches", completed=self.counts.attempted,
                            problems=self.counts.problems())
        self.bar.stop()


def make_progress(stream: TextIO | None = None) -> ProgressSink:
    stream = stream or sys.stdout
    if stream.isatty():
        return RichProgress()
    return PlainProgress(stream)
