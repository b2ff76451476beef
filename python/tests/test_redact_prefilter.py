# SPDX-License-Identifier: BSD-3-Clause
"""The secret-shape prefilter of io/redact: every alternative of _SHAPES begins with one of
_SHAPE_STARTS, so that a text holding none of them can be skipped without missing a match. An
alternative added to the pattern without its start fails here instead of leaking silently."""

from __future__ import annotations

from mpimeter.io import redact


def _alternatives(pattern: str) -> list[str]:
    """The branches of ``pattern`` and of its groups, split at every '|' outside character
    classes, each with its leading look-behinds and group openings removed."""
    branches, start, in_class, i = [], 0, False, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "|":
            branches.append(pattern[start:i])
            start = i + 1
        i += 1
    branches.append(pattern[start:])
    out = []
    for b in branches:
        while True:
            if b.startswith("(?<!") or b.startswith("(?<="):
                b = b[b.index("]") + 2:]  # a look-behind of one character class
            elif b.startswith("(?:") or b.startswith("("):
                b = b[3:] if b.startswith("(?:") else b[1:]
            else:
                break
        out.append(b)
    return out


def test_every_shape_alternative_begins_with_a_prefilter_start():
    branches = _alternatives(redact._SHAPES.pattern)
    assert len(branches) >= 12  # the pattern's alternatives were all found
    for branch in branches:
        assert branch.startswith(redact._SHAPE_STARTS), branch


def test_a_text_without_any_start_is_not_a_shape_and_one_with_a_key_is():
    assert not redact.has_secret_shape("plain words, numbers 12345 and paths /usr/lib")
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    assert redact.has_secret_shape(f"id={key}")
    assert redact.redact_shapes(f"id {key} end") == f"id {redact.REDACTED} end"
