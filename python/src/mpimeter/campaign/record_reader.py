# SPDX-License-Identifier: BSD-3-Clause
"""Typed access to a parsed campaign.json read back as untrusted input: each value checked for its
kind, each failure a CampaignFileError naming the file and the key. Shared by the campaign's
record (campaign.state) and its launches' records (campaign.launch_record).
"""

from __future__ import annotations

import math
from pathlib import Path

from mpimeter.errors import MpimeterError


class CampaignFileError(ValueError, MpimeterError):
    """campaign.json is missing, does not parse, or is not a record this mpimeter can resume."""


KINDS = {"object": "an object", "list": "a list", "string": "a string",
         "integer": "an integer", "number": "a finite number"}


def found(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {dict: "an object", list: "a list", str: "a string", int: "an integer",
            float: "a number"}.get(type(value), type(value).__name__)


class RecordReader:
    """Typed access to a parsed campaign.json; each failure names the file and the key."""

    def __init__(self, source: Path):
        self.source = source

    def fail(self, where: str, what: str):
        raise CampaignFileError(f"{self.source}: {where}: {what}")

    def check(self, value, where: str, kind: str, *, optional: bool = False):
        if value is None and optional:
            return None
        ok = {"object": isinstance(value, dict), "list": isinstance(value, list),
              "string": isinstance(value, str),
              "integer": isinstance(value, int) and not isinstance(value, bool),
              "number": (isinstance(value, (int, float)) and not isinstance(value, bool)
                         and math.isfinite(value))}[kind]
        if not ok:
            self.fail(where, f"expected {KINDS[kind]}{' or null' if optional else ''}, "
                             f"found {found(value)}")
        return value

    def get(self, obj: dict, key: str, kind: str, *, where: str = "", optional: bool = False,
            default=None):
        place = f"{where}.{key}" if where else key
        if key not in obj:
            if optional:
                return default
            self.fail(place, "missing")
        return self.check(obj[key], place, kind, optional=optional)

    def objects(self, obj: dict, key: str) -> list[dict]:
        items = self.get(obj, key, "list", optional=True, default=[])
        return [self.check(x, f"{key}[{i}]", "object") for i, x in enumerate(items)]

    def only(self, obj: dict, where: str, known: set[str]) -> None:
        unknown = sorted(set(obj) - known)
        if unknown:
            self.fail(where, f"unknown key {unknown[0]!r}")
