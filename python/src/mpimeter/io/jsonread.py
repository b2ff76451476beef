# SPDX-License-Identifier: BSD-3-Clause
"""Reading the JSON files of a launch or campaign folder (meta.json, campaign.json) as untrusted
input: the text parses, nests at most :data:`MAX_DEPTH` levels (a deeper document would exhaust
Python's recursion in every later walk over it), and each value the reader uses has the type it
must have. Every error is an :class:`InputError` naming the file and the key path
(``tests[3].nrep``), and saying what was found and what is allowed.

:class:`Fields` is the typed view of one JSON object: ``need`` for a required key, ``get`` for an
optional one (absent or null → the default), ``obj`` / ``objs`` for nested objects. Keys the
reader does not ask for are ignored.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from mpimeter.io.errors import InputError

MAX_DEPTH = 64  # meta.json nests 4 levels deep; 64 leaves room for any sane extension
MAX_BYTES = 256 * 2**20  # a meta.json of a 100 000-rank launch is some tens of MiB


def _not_json(name: str):
    raise ValueError(f"{name} is not a JSON number (numbers are finite in the files mpimeter writes)")


def load_json(path: Path, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The parsed JSON document at ``path``: the one check of every JSON file mpimeter reads
    back (meta.json, campaign.json, for the analysis and for ``--resume``). InputError when it is
    missing, not a regular file (a FIFO is never waited on), larger than ``max_bytes``, not
    UTF-8, not JSON (NaN and Infinity included), or nested deeper than ``max_depth``."""
    try:  # non-blocking: a FIFO in place of the file must not hang the reader
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise InputError(path, "not a regular file")
            data = f.read(max_bytes + 1)
    except FileNotFoundError:
        raise InputError(path, "is missing") from None
    except OSError as exc:
        raise InputError(path, f"cannot be read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise InputError(path, f"is larger than {max_bytes / 2**20:.0f} MiB; at most {max_bytes // 2**20} MiB are read")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"is not UTF-8 text (byte {exc.start})") from None
    try:
        value = json.loads(text, parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"does not parse as JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None
    except RecursionError:
        raise InputError(path, f"nests arrays or objects too deeply to be read (at most {max_depth} levels)") from None
    except ValueError as exc:  # NaN, Infinity
        raise InputError(path, f"does not parse as JSON: {exc}") from None
    if nesting_depth(value, max_depth) > max_depth:
        raise InputError(path, f"nests arrays or objects more than {max_depth} levels deep; at most {max_depth} are "
                               "allowed")
    return value


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How many arrays/objects deep ``value`` nests (a scalar: 0), counted up to ``limit`` + 1;
    iterative, so any depth is safe."""
    if not isinstance(value, (dict, list)):
        return 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]  # containers only, with their depth
    while stack:
        v, d = stack.pop()
        if d > deepest:
            deepest = d
            if deepest > limit:
                return deepest
        # the scalars, most of a document, are never pushed: a third of the time of the walk
        stack.extend([(c, d + 1) for c in (v.values() if isinstance(v, dict) else v) if isinstance(c, (dict, list))])
    return deepest


def type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
            dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)


# The JSON types a key may have: checker and how the message names it.
INT = (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer")
NAT = (lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0, "an integer ≥ 0")
NUM = (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v), "a number")
STR = (lambda v: isinstance(v, str), "a string")
BOOL = (lambda v: isinstance(v, bool), "a boolean")
LIST = (lambda v: isinstance(v, list), "an array")
OBJ = (lambda v: isinstance(v, dict), "an object")
Kind = tuple[Callable[[Any], bool], str]


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Fields:
    """Typed access to one JSON object of ``path``; ``where`` is its key path ('' at the top)."""

    def __init__(self, path: Path, value: Any, where: str = "") -> None:
        if not isinstance(value, dict):
            raise InputError(path, f"{where or 'the document'} is {type_name(value)}, not an object")
        self.path, self.value, self.where = path, value, where

    def _key(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def fail(self, key: str, what: str) -> InputError:
        return InputError(self.path, f"{self._key(key)} {what}")

    def _check(self, key: str, value: Any, kind: Kind, choices: tuple | None) -> Any:
        ok, name = kind
        if not ok(value):
            found = f"is {type_name(value)}" + (f" ({_short(value)})" if isinstance(value, (int, float, str)) else "")
            raise self.fail(key, f"{found}; it must be {name}")
        if choices is not None and value not in choices:
            raise self.fail(key, f"is {_short(value)}; it must be one of {', '.join(map(str, choices))}")
        return value

    def has(self, key: str) -> bool:
        return key in self.value

    # need, get and items test the common good value inline and call _check (which words the
    # error) only for a bad one: a launch's meta.json makes some 200 of these calls

    def need(self, key: str, kind: Kind, *, choices: tuple | None = None) -> Any:
        """A required key of the given kind (null is not allowed)."""
        if key not in self.value:
            raise InputError(self.path, f"has no key {self._key(key)}")
        value = self.value[key]
        if kind[0](value) and (choices is None or value in choices):
            return value
        return self._check(key, value, kind, choices)

    def get(self, key: str, kind: Kind, default: Any = None, *, choices: tuple | None = None) -> Any:
        """An optional key: ``default`` when absent or null."""
        value = self.value.get(key)
        if value is None:
            return default
        if kind[0](value) and (choices is None or value in choices):
            return value
        return self._check(key, value, kind, choices)

    def obj(self, key: str) -> Fields | None:
        """A nested object, or None when absent or null."""
        value = self.value.get(key)
        return None if value is None else Fields(self.path, self._check(key, value, OBJ, None), self._key(key))

    def items(self, key: str, kind: Kind) -> tuple:
        """An optional array whose items are all of ``kind`` (absent or null: empty)."""
        values = self.get(key, LIST, [])
        ok = kind[0]
        if not all(ok(v) for v in values):
            for i, v in enumerate(values):
                self._check(f"{key}[{i}]", v, kind, None)
        return tuple(values)

    def items_or_none(self, key: str, kind: Kind) -> tuple | None:
        """Like ``items``, but None when the key is absent or null."""
        return None if self.value.get(key) is None else self.items(key, kind)

    def objs(self, key: str, *, required: bool = False) -> Iterator[Fields]:
        """The objects of an array of objects (absent or null: none, unless ``required``)."""
        values = self.need(key, LIST) if required else self.get(key, LIST, [])
        for i, v in enumerate(values):
            yield Fields(self.path, v, f"{self._key(key)}[{i}]")

    def mapping(self, key: str, kind: Kind) -> Mapping[str, Any]:
        """An optional object whose values are all of ``kind`` (absent or null: empty)."""
        sub = self.obj(key)
        if sub is None:
            return {}
        return {k: sub._check(k, v, kind, None) for k, v in sub.value.items()}
