# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --suite FILE`: a whole suite of measurements in one TOML file, as SKaMPI's
`.skampi` parameter file describes all of its measurements (Reussner et al. 1998 §2), with the
comparisons its report draws between operations (§6).

    name = "skampi"               # optional, and so is description
    [run]                         # options of `mpimeter run` for the whole campaign
    mpi = "openmpi"
    [[measurement]]               # name, ops (a list), and options of `mpimeter run`
    name = "ping-pong"
    ops = ["pingpong-send-recv", "pingpong-ssend-recv"]
    [[comparison]]                # two measured operations, name optional
    ops = ["pingpong-send-recv", "pingpong-ssend-recv"]

An option is named as on the command line without its dashes (`sizes`, `np`, `variant`); which
names are options and whether a value is allowed is the command's own knowledge (its options and
the binary's --describe), passed in as ``options`` and ``check``: this module knows no option.

A suite is ONE campaign: mpimeter-bench takes one --sizes, one --procsync, ... per launch and the
campaign runs one set of alternatives and process counts. So the measurements' operations are
joined, and every other option a measurement gives must be given the same by every measurement
and [run] that give it; the file is refused otherwise (naming the option and both values).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpimeter.errors import MpimeterError
from mpimeter.io import bounded
from mpimeter.io.errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser as a package, when installed (a suite alone needs it: not a dependency)
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None

MAX_SUITE_BYTES = 1 << 20  # a suite is a page of text; a larger file is not one
MAX_NAME_CHARS = 200
TOP_KEYS = ("name", "description", "run", "measurement", "comparison")
MEASUREMENT_KEYS = ("name", "ops")  # and the options
COMPARISON_KEYS = ("name", "ops")
OPS = "ops"  # the option the measurements' operations make up


class SuiteError(ValueError, MpimeterError):
    """A suite that cannot be run; the message names the file, the place in it and what is allowed."""


@dataclass(frozen=True)
class OptionKind:
    flag: bool = False  # true or false
    multiple: bool = False  # a list (or one value): the option may be given several times


@dataclass(frozen=True)
class Comparison:
    name: str
    a: str
    b: str


@dataclass(frozen=True, kw_only=True)
class Suite:
    path: str  # as given
    text: str
    name: str
    values: Mapping[str, Any]  # option name -> its value as the command line would give it
    measurements: tuple[tuple[str, tuple[str, ...]], ...]  # (name, ops)
    comparisons: tuple[Comparison, ...]

    def record(self) -> dict[str, Any]:
        """What campaign.json keeps of it (docs/FORMAT.md, "campaign.json"): the text as read,
        and what the report and `--resume` need of it without reading the file again."""
        return {"file": self.path, "name": self.name, "text": self.text, "options": dict(self.values),
                "measurements": [{"name": n, "ops": list(ops)} for n, ops in self.measurements],
                "comparisons": [{"name": c.name, "ops": [c.a, c.b]} for c in self.comparisons]}


def _kind(value: Any) -> str:
    return {bool: "true/false", str: "text", int: "a number", float: "a number", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


def read_text(path: Path) -> str:
    try:
        data = bounded.read_bytes(path, MAX_SUITE_BYTES)
    except InputError as exc:
        raise SuiteError(f"--suite {path}: {exc}") from None
    except OSError as exc:
        raise SuiteError(f"--suite {path}: cannot read it ({exc.strerror or exc}); give a TOML file") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SuiteError(f"--suite {path}: not UTF-8 text (byte {exc.start}); give a TOML file") from None


def load(path: Path, *, options: Mapping[str, OptionKind],
         check: Callable[[str, Any], str | None]) -> Suite:
    """The suite in ``path``, every key and value checked; SuiteError (one line) otherwise.
    ``options``: the options a suite may set (the allow-list), ``check(option, value)``: why a
    value is not allowed, or None."""
    if tomllib is None:
        raise SuiteError(f"--suite {path}: reading TOML needs Python 3.11 or the package tomli "
                         "(pip install tomli) under this Python 3.10")
    text = read_text(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SuiteError(f"--suite {path}: not TOML: {exc}") from None
    r = _Reader(f"--suite {path}", options, check)
    r.only(doc, "top level", TOP_KEYS, with_options=False)
    name = r.text_of(doc, "name", "", default=Path(path).stem)
    r.text_of(doc, "description", "")
    run = doc.get("run", {})
    if not isinstance(run, dict):
        raise r.fail("run", f"expected a table [run], found {_kind(run)}")
    r.only(run, "[run]", (), with_options=True)
    if OPS in run:
        raise r.fail("[run]", f"{OPS} belong to the measurements ([[measurement]] ops = [...])")
    values: dict[str, Any] = {key: r.value_of(key, raw, f"[run] {key}") for key, raw in run.items()}
    measurements = _measurements(r, _array_of_tables(doc, "measurement", r.fail), values)
    all_ops = list(dict.fromkeys(op for _, ops in measurements for op in ops))
    values[OPS] = ",".join(all_ops)
    return Suite(path=str(path), text=text, name=name, values=values, measurements=tuple(measurements),
                 comparisons=_comparisons(r, _array_of_tables(doc, "comparison", r.fail), all_ops))


class _Reader:
    """The checks every table of a suite goes through; errors name the file and the place."""

    def __init__(self, where: str, options: Mapping[str, OptionKind], check: Callable[[str, Any], str | None]):
        self.where, self.options, self.check = where, options, check

    def fail(self, place: str, what: str) -> SuiteError:
        return SuiteError(f"{self.where}: {place}: {what}")

    def only(self, table: dict, place: str, known: tuple[str, ...], with_options: bool) -> None:
        for key in table:
            if key not in known and not (with_options and key in self.options):
                allowed = ", ".join([*known, *(["the options of `mpimeter run` that a file may set ("
                                                + ", ".join(sorted(self.options)) + ")"] if with_options else [])])
                raise self.fail(place, f"unknown key {key!r}; allowed: {allowed}")

    def text_of(self, table: dict, key: str, place: str, default: str = "") -> str:
        value = table.get(key, default)
        if not isinstance(value, str) or len(value) > MAX_NAME_CHARS or not value.isprintable():
            raise self.fail(f"{place}{key}", f"expected text of at most {MAX_NAME_CHARS} printable characters, "
                                             f"found {_kind(value)}")
        return value

    def value_of(self, key: str, raw: Any, place: str) -> Any:
        """The value as the command line gives it: a flag true/false, a list joined by commas (a
        LIST option) or kept a list (an option given several times); each checked."""
        kind = self.options[key]
        if kind.flag:
            if not isinstance(raw, bool):
                raise self.fail(place, f"{key} is a flag: expected true or false, found {_kind(raw)}")
            return raw
        items = raw if isinstance(raw, list) else [raw]
        if not items or not all(isinstance(i, (str, int, float)) and not isinstance(i, bool) for i in items):
            raise self.fail(place, f"{key}: expected text, a number or a list of them, found {_kind(raw)}")
        words = [str(i) for i in items]
        value: Any = words if kind.multiple else ",".join(words)
        for one in (value if kind.multiple else [value]):
            why = self.check(key, one)
            if why:
                raise self.fail(place, f"{key} = {one!r}: {why}")
        return value


def _measurements(r: _Reader, tables: list[dict], values: dict[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """(name, ops) of each [[measurement]]; its other options added to ``values``, refused when
    they differ from what [run] or another measurement gave."""
    given_by = {key: "[run]" for key in values}
    measurements = []
    for i, m in enumerate(tables, start=1):
        place = f"[[measurement]] {i}"
        r.only(m, place, MEASUREMENT_KEYS, with_options=True)
        m_name = r.text_of(m, "name", f"{place} ", default=f"measurement {i}")
        place += f" ({m_name})" if "name" in m else ""
        ops = m.get(OPS)
        if not isinstance(ops, list) or not ops or not all(isinstance(o, str) and o for o in ops):
            raise r.fail(f"{place} ops", f"expected a list of operation names, found {_kind(ops)}")
        for op in ops:
            why = r.check(OPS, op) if OPS in r.options else None
            if why:
                raise r.fail(f"{place} ops", why)
        measurements.append((m_name, tuple(ops)))
        for key, raw in m.items():
            if key in MEASUREMENT_KEYS:
                continue
            value = r.value_of(key, raw, f"{place} {key}")
            if key in values and values[key] != value:
                raise r.fail(f"{place} {key}",
                             f"{value!r}, but {given_by[key]} gives {values[key]!r}: one campaign runs one {key} "
                             "for every operation (each launch runs one set of options); give the same value, or "
                             "run the measurements as two suites")
            values[key], given_by[key] = value, place
    if not measurements:
        raise r.fail("top level", "no [[measurement]]: give at least one, with ops = [...]")
    return measurements


def _comparisons(r: _Reader, tables: list[dict], all_ops: list[str]) -> tuple[Comparison, ...]:
    comparisons = []
    for i, c in enumerate(tables, start=1):
        place = f"[[comparison]] {i}"
        r.only(c, place, COMPARISON_KEYS, with_options=False)
        pair = c.get(OPS)
        if (not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(o, str) for o in pair)
                or pair[0] == pair[1]):
            raise r.fail(f"{place} ops", "expected two different operation names, ops = [\"A\", \"B\"]")
        for op in pair:
            if op not in all_ops:
                raise r.fail(f"{place} ops", f"{op!r} is not measured by the suite (its ops: {', '.join(all_ops)})")
        comparisons.append(Comparison(name=r.text_of(c, "name", f"{place} ", default=f"{pair[0]} vs {pair[1]}"),
                                      a=pair[0], b=pair[1]))
    return tuple(comparisons)


def _array_of_tables(doc: dict, key: str, fail) -> list[dict]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise fail(key, f"expected tables [[{key}]], found {_kind(value)}")
    return value


def read_recorded(value: Any, fail: Callable[[str, str], Any]) -> dict[str, Any] | None:
    """campaign.json's ``suite`` read back (`run --resume`): None, or an object of the shape
    :meth:`Suite.record` writes (kept as it is, to be written again); ``fail(key, what)`` raises."""
    if value is None:
        return None
    shape = {"file": str, "name": str, "text": str, "options": dict, "measurements": list, "comparisons": list}
    if not isinstance(value, dict) or set(value) != set(shape):
        fail("suite", f"expected null or an object with {', '.join(shape)}")
    for key, kind in shape.items():
        if not isinstance(value[key], kind):
            fail(f"suite.{key}", f"expected {kind.__name__}, found {_kind(value[key])}")
    for key in ("measurements", "comparisons"):
        for i, entry in enumerate(value[key]):
            if not (isinstance(entry, dict) and set(entry) == {"name", "ops"} and isinstance(entry["name"], str)
                    and isinstance(entry["ops"], list) and all(isinstance(o, str) for o in entry["ops"])):
                fail(f"suite.{key}[{i}]", "expected an object with name (text) and ops (a list of names)")
    return value
