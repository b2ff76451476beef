# SPDX-License-Identifier: BSD-3-Clause
"""Writing what the commands print and save, safely: text from files (operation, alternative,
folder and host names) is untrusted and never reaches the terminal raw, CSV cells never start a
formula, and files are written whole or not at all.

- :func:`terminal_text` escapes control characters (C0, DEL, C1) and the Unicode bidirectional
  overrides as ``\\xNN`` / ``\\uNNNN``: a name holding ``ESC [2J`` prints as ``\\x1b[2J`` instead of
  clearing the screen. :func:`console` is a rich Console that does this to every string it
  renders (tables, titles, lines).
- :func:`csv_cell`: a text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
  return and is not a number gets a leading ``'`` (spreadsheets would run it as a formula);
  control characters are escaped as above (docs/FORMAT.md, "analyze").
- :func:`output_failed`: when stdout itself cannot be written (a full disk, a closed pipe), one
  line on stderr and exit 2, with stdout redirected so that Python's own flush at exit stays quiet.
- :func:`exits_on_errors`: the one place an error of the package (``mpimeter.errors``) becomes
  what a command says and exits with.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from mpimeter.controlchars import escape_control_chars
from mpimeter.errors import EXIT_BAD_INPUT, MpimeterError


def terminal_text(text: str, *, one_line: bool = False) -> str:
    """``text`` with every character that could steer a terminal escaped (``one_line``: newlines
    and tabs too): ``mpimeter.controlchars``, the one escape of the package."""
    return escape_control_chars(text, one_line=one_line)


class SafeConsole(Console):
    """A rich Console that escapes control characters in every string it renders, and fits a
    table wider than itself (an 80-column terminal): no vertical lines, one space between
    columns, and cells that fold onto more lines instead of losing characters to an ellipsis."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(terminal_text(text), **kwargs)

    def print(self, *objects: Any, **kwargs: Any) -> None:
        from rich import box  # not at import: `--help` and `--version` print no table
        from rich.table import Table

        for obj in objects:
            if isinstance(obj, Table) and self._natural_width(obj) > self.width:
                obj.box = box.SIMPLE_HEAD
                obj.show_edge = False
                obj.pad_edge = False
                obj.padding = (0, 0)  # the box's one space between columns
                for column in obj.columns:
                    # short columns (names, sizes, counts) stay on one line; the long ones
                    # (intervals, notes) wrap, folding a word only when it alone is too long
                    column.no_wrap = _longest_cell(column) <= _SHORT_COLUMN
                    column.overflow = "fold"
        super().print(*objects, **kwargs)

    def _natural_width(self, table: Any) -> int:
        """How wide the table would be with room enough (rich clamps a measure to the console)."""
        return self.measure(table, options=self.options.update_width(1_000_000)).maximum


_SHORT_COLUMN = 12  # characters: a column no wider is never wrapped in a narrow table


def _longest_cell(column: Any) -> int:
    from rich.cells import cell_len

    texts = [column.header, *column.cells]
    return max(cell_len(t.plain if isinstance(t, Text) else str(t)) for t in texts)


def console() -> SafeConsole:
    """On a terminal, its width (rich reads it, or $COLUMNS); elsewhere $COLUMNS when set, else
    160 columns, so that a log or a pipe keeps a wide table's rows whole. Tables wrap their cells
    to fit (COLUMNS=80: 80 columns)."""
    width = None if sys.stdout.isatty() else _columns_given() or 160
    return SafeConsole(width=width, highlight=False, markup=False)


def _columns_given() -> int | None:
    """$COLUMNS as a width (at least 40, as rich needs for a table of a few columns), or None
    when unset or not a whole number (then the default applies, as for every other program)."""
    text = os.environ.get("COLUMNS", "").strip()
    return max(int(text), 40) if text.isdigit() and int(text) > 0 else None


def clean(obj: Any) -> Any:
    """JSON-safe: NaN and infinities become null, tuples lists, paths strings."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    return str(obj)


def write_json(obj: dict) -> None:
    """JSON on stdout; non-ASCII and control characters as \\u escapes (ensure_ascii)."""
    click.echo(json.dumps(clean(obj), indent=2, allow_nan=False))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def csv_cell(value: Any) -> Any:
    """One CSV cell: lists of plain values joined with ';', nested records (a row's per-state
    results) as JSON, which any CSV reader's consumer can parse; missing values empty, text made
    inert."""
    if isinstance(value, dict) or (isinstance(value, (list, tuple)) and
                                   any(isinstance(x, (dict, list, tuple)) for x in value)):
        value = json.dumps(clean(value), allow_nan=False, separators=(",", ":"))
    elif isinstance(value, (list, tuple)):
        value = ";".join(str(x) for x in value)
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if not isinstance(value, str):
        return value
    if value.startswith(_FORMULA_START) and not _is_number(value):
        value = "'" + value
    return terminal_text(value, one_line=True)


def write_csv(rows: list[dict]) -> None:
    if not rows:
        return
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=[csv_cell(k) for k in rows[0]], lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({csv_cell(k): csv_cell(v) for k, v in clean(r).items()})
    click.echo(buf.getvalue(), nl=False)


def os_error_text(exc: OSError) -> str:
    """'<file>: <what the system said>' for an OSError, without Python's decoration."""
    what = exc.strerror or str(exc)
    name = exc.filename if exc.filename is not None else None
    return f"{name}: {what}" if name is not None else what


def output_failed(command: str, exc: OSError) -> None:
    """stdout cannot be written: say so on stderr, silence the final flush, exit 2."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    fail(command, f"cannot write the output: {exc.strerror or exc}")


def _say_error(command: str, message: str) -> None:
    click.echo(f"mpimeter {command}: error: {terminal_text(message, one_line=True)}", err=True)


def fail(command: str, message: str) -> None:
    """The one form of every error: one line on stderr, exit 2."""
    _say_error(command, message)
    sys.exit(EXIT_BAD_INPUT)


@contextmanager
def exits_on_errors(command: str) -> Iterator[None]:
    """The one mapping of the package's errors to what a command does: an ``MpimeterError``
    that reaches it is said in the one form of :func:`fail` (its ``str``) and the command exits
    with its ``exit_code``. A ``with`` block (``common.guarded``) or a decorator of a command's
    function (the commands that run campaigns)."""
    try:
        yield
    except click.ClickException:
        raise  # click says its own (OneLineUsageError: one line with the --help hint)
    except MpimeterError as exc:
        _say_error(command, str(exc))
        sys.exit(exc.exit_code)
