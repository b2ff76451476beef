"""Bad input (an exception naming the file, and the line for CSV) and typed warnings."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class InputError(Exception):
    """Bad input: a folder that is not a launch or campaign, a file that does not parse, an
    unknown schema_version. ``str()`` is ``path:line: what`` (``path: what`` without a line).
    The CLI prints it and exits with code 2."""

    def __init__(self, path: str | Path, what: str, *, line: int | None = None) -> None:
        self.path = Path(path)
        self.what = what
        self.line = line
        where = f"{self.path}:{line}" if line is not None else f"{self.path}"
        super().__init__(f"{where}: {what}")


@dataclass(frozen=True)
class AnalysisWarning:
    """An instability or caveat, with what to do about it (STYLE.md, principle 8).

    ``code`` is stable and machine-readable (e.g. ``too-few-launches``, ``normality-failed``,
    ``invalid-repetitions``, ``sync-residual``, ``long-warmup``, ``machine-load``,
    ``incomplete-launch``, ``truncated-line``, ``one-launch``, ``ranks-differ``,
    ``resync-clock``, ``per-repetition``); ``where`` names the file, launch or row concerned.
    ``count`` is how many warnings of this code it stands for (mpimeter.analysis.warning_groups
    merges repeats); ``severity`` ranks warnings of one code (the largest is the worst case shown
    for the group; 0 when the producer does not rank them)."""

    code: str
    message: str
    hint: str
    where: str | None = None
    count: int = 1
    severity: float = field(default=0.0, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "hint": self.hint, "where": self.where,
                "count": self.count}
