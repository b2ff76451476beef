# SPDX-License-Identifier: BSD-3-Clause
"""What every peer-output parser shares: the parsed run (:class:`PeerRun`, one file = one run =
one launch), the text as numbered lines, and exact unit conversion.

The parsers are strict: a line they do not recognise where a table or header is expected is bad
input (:class:`mpimeter.io.errors.InputError` naming the file and line), never skipped. Times
are converted to integer nanoseconds from their decimal text (no binary floating point in
between), rounding half away from zero only where the tool printed finer than 1 ns (ReproMPI's
``%14.10f`` seconds: 0.1 ns).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

from mpimeter.io import bounded
from mpimeter.io.errors import InputError

MAX_BYTES = 64 * 2**20  # a ReproMPI file of 10^5 repetitions × 20 tests is ~50 MiB


@dataclass(frozen=True, kw_only=True)
class PeerTest:
    """One table row group of the tool's output: an operation at a size.

    ``run_times_ns`` is what a raw.csv row carries per repetition: for ``aggregates`` data one
    value, the tool's ``headline`` aggregate (doubled for a round trip, see ``round_trip``); for
    ``repetitions`` data one per repetition, with ``valid``."""

    name: str  # the tool's name of the benchmark or call (PingPong, MPI_Allreduce, …)
    op: str  # mpimeter's operation name, or "<tool>:<name>" when there is no equivalent
    size: int  # bytes
    line: int  # line of its first row in the file
    repetitions: int | None  # the tool's repetitions behind the numbers (None: it does not say)
    run_times_ns: tuple[int, ...]
    valid: tuple[bool, ...]
    headline: str | None = None  # aggregates: the key whose value the raw row carries
    aggregates_ns: dict[str, int] = field(default_factory=dict)
    round_trip: bool = False  # the timed call is a round trip; the tool printed half of it
    valid_repetitions: int | None = None  # of ``repetitions``, those the tool counted as valid (None: all)


@dataclass(frozen=True, kw_only=True)
class PeerRun:
    """One run of a peer benchmark as read from its output file."""

    tool: str  # imb | osu | reprompi
    tool_name: str
    tool_version: str | None
    path: Path
    sha256: str
    command: str | None
    date: str | None  # as the tool printed it (no time zone)
    nprocs: int | None  # None: the output does not say (OSU collectives)
    data: str  # "aggregates" | "repetitions"
    run_time: str  # what one raw.csv row's run time is, in words
    lacks: tuple[str, ...]
    settings: dict[str, str]  # the tool's header facts, as printed
    tests: tuple[PeerTest, ...]
    procsync: str  # mpimeter's name of the tool's process sync (none = back-to-back, MS2)
    clocksync: str
    timer: str
    global_times: bool  # the run times are on a global clock (ReproMPI --runtime-type=global)
    mpi_version: str | None = None
    kernel: str | None = None
    # one-sided runs: meta.json's config.rma (sync, window, burst, window_bytes), in mpimeter's names
    rma: dict[str, object] | None = None
    datatype: str | None = None  # mpimeter's name of the tool's datatype, where it is known


class Lines:
    """The file as numbered lines (1-based), refusing what cannot be text."""

    def __init__(self, path: Path, tool_label: str) -> None:
        self.path = path
        try:
            data = bounded.read_bytes(path, MAX_BYTES)
        except FileNotFoundError:
            raise InputError(path, "does not exist") from None
        except IsADirectoryError:
            raise InputError(path, f"is a folder; give the {tool_label} output file") from None
        except OSError as exc:
            raise InputError(path, f"cannot be read: {exc.strerror or exc}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(path, f"is not text (byte {exc.start} is not UTF-8)") from None
        if "\x00" in text:
            raise InputError(path, "is not text (it holds NUL bytes)")
        self.sha256 = hashlib.sha256(data).hexdigest()
        self.lines = text.split("\n")
        # a last line without its newline: the output was cut while being written
        self.cut_last = bool(self.lines) and self.lines[-1] != ""
        if not self.cut_last:
            self.lines.pop()

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, index: int) -> str:
        return self.lines[index]

    def fail(self, index: int, what: str) -> InputError:
        """An error naming the line at 0-based ``index``."""
        return InputError(self.path, what, line=index + 1)

    def check_not_cut(self, tool_label: str) -> None:
        if self.cut_last:
            raise self.fail(len(self.lines) - 1, f"the last line has no newline: the {tool_label} output was cut "
                                                 "short (a truncated file); import complete outputs only")


def decimal_ns(text: str, unit_ns: int, lines: Lines, index: int, what: str) -> int:
    """The decimal ``text`` in a unit of ``unit_ns`` nanoseconds → integer ns (half away from
    zero); bad input names the line."""
    value = plain_decimal(text)
    if value is None:
        raise lines.fail(index, f"{what} {text!r} is not a number")
    if not value.is_finite() or value < 0:
        raise lines.fail(index, f"{what} {text!r} is not a finite time ≥ 0")
    # compared before rounding: quantize() of a number beyond Decimal's 28 digits (1e308) raises
    if value > Decimal(2**62) / unit_ns:
        raise lines.fail(index, f"{what} {text!r} is beyond 2^62 ns (allowed: a finite time from 0 to 2^62 ns)")
    ns = (value * unit_ns).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return int(ns)


def plain_decimal(text: str) -> Decimal | None:
    """``text`` as a Decimal when it is one as the tools print numbers (ASCII: Decimal and int
    also take other scripts' digits and "1_0", which no tool prints), else None."""
    if not text.isascii() or "_" in text:
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def whole(text: str, lines: Lines, index: int, what: str, *, minimum: int = 0) -> int:
    # ASCII digits only: str.isdigit() is also true of "²", which int() refuses (a traceback)
    if not (text.isascii() and text.isdigit()):
        raise lines.fail(index, f"{what} {text!r} is not a whole number ≥ {minimum}")
    value = int(text)
    if value < minimum or value > 2**62:
        raise lines.fail(index, f"{what} {text!r} is out of range (a whole number from {minimum} to 2^62)")
    return value


def split_columns(text: str) -> list[str]:
    """A table header as the tools print it: names separated by two or more spaces."""
    return [c for c in (part.strip() for part in text.replace("\t", "  ").split("  ")) if c]
