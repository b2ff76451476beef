# SPDX-License-Identifier: BSD-3-Clause
"""Bad input (an exception naming the file, and the line for CSV); the typed warnings are
``mpimeter.warning_codes.AnalysisWarning``, re-exported here for the readers."""

from __future__ import annotations

from pathlib import Path

from mpimeter.errors import MpimeterError
from mpimeter.warning_codes import AnalysisWarning  # noqa: F401  (the readers' warnings; made in the registry)


class InputError(MpimeterError):
    """Bad input: a folder that is not a launch or campaign, a file that does not parse, an
    unknown schema_version. ``str()`` is ``path:line: what`` (``path: what`` without a line).
    The CLI prints it and exits with code 2."""

    def __init__(self, path: str | Path, what: str, *, line: int | None = None) -> None:
        self.path = Path(path)
        self.what = what
        self.line = line
        where = f"{self.path}:{line}" if line is not None else f"{self.path}"
        super().__init__(f"{where}: {what}")
