# SPDX-License-Identifier: BSD-3-Clause
"""Text from files (operation, alternative, folder and host names) made visible instead of
active, for every place that shows it: the terminal (``cli.output.terminal_text``), the HTML
report and its SVG figures (``report.html.esc``) and the matplotlib figures
(``report.figures``). A control character (C0, DEL, C1) or a Unicode bidirectional override
becomes ``\\xNN`` / ``\\uNNNN``: a name holding ``ESC [2J`` shows as ``\\x1b[2J`` instead of
clearing a screen, and a BEL shows as ``\\x07`` instead of a missing glyph in a figure. The
escape leaves a backslash alone, so escaping twice gives the same text. This module imports
nothing of the package, so that every layer may use it.
"""

from __future__ import annotations

import re

__all__ = ["escape_control_chars"]

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
_UNSAFE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")  # newlines and tabs too


def _escape(match: re.Match) -> str:
    c = ord(match.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def escape_control_chars(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character and bidirectional override escaped; newlines and
    tabs are kept unless ``one_line``."""
    return (_UNSAFE_LINE if one_line else _UNSAFE).sub(_escape, text)
