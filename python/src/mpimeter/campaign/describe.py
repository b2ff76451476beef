# SPDX-License-Identifier: BSD-3-Clause
"""What an mpimeter-bench binary says it can do: `mpimeter-bench --describe` (docs/FORMAT.md,
"mpimeter-bench --describe"), read once per binary and kept as typed, frozen records.

The Python half keeps no copy of the binary's options, bounds or registries: `mpimeter run` and
`mpimeter sync-check` build their pass-through options, their checks and their help from this
description, and a final `mpimeter-bench --validate NP` checks the combination exactly as a launch
would (`validate`). The document is read by io.bench_binaries (the one reader of the binary's
self-description, cached per binary by its resolved path, size and mtime, so a rebuilt binary is
asked again); here it becomes typed records, kept per binary as well.
"""

from __future__ import annotations

import json
import math
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from mpimeter.io import bench_binaries as _bench_binaries
from mpimeter.io.bench_binaries import DescribeError, question_argv, singleton_env

SECRET_REDACTED = "<redacted>"


@dataclass(frozen=True, kw_only=True)
class OptionSpec:
    """One option of the binary, as --describe gives it."""

    name: str
    type: str  # flag | int | float | uint64 | name | names | choice | sizes | floats | path
    metavar: str | None
    default: str
    unit: str | None
    help: str
    allowed: str  # the words the binary uses for what is allowed
    auto: bool = False
    min: float | None = None
    max: float | None = None
    min_exclusive: bool = False
    max_exclusive: bool = False
    zero_allowed: bool = False  # 0 (off) besides min to max; absent in older binaries
    # the words accepted besides numbers when ``auto``: ("auto",) or, for --nrep,
    # ("auto", "auto:ci", "auto:rse"); absent in older binaries: ("auto",)
    auto_values: tuple[str, ...] = ("auto",)
    choices: tuple[str, ...] | None = None
    what: str | None = None  # what a name is called in messages ("timer", "clock sync")
    modes: tuple[str, ...] = ()
    per_launch: bool = False
    selects_mode: bool = False
    hidden: bool = False
    # the operations an op-scoped option shapes (the binary refuses it without one of them in
    # --ops); None: it shapes every test (or an older binary that does not say)
    ops: tuple[str, ...] | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name

    @property
    def dest(self) -> str:
        return self.name.replace("-", "_")

    @property
    def is_number(self) -> bool:
        return self.type in ("int", "float", "uint64", "floats")


@dataclass(frozen=True, kw_only=True)
class Description:
    """The whole document; registries as tuples of plain dicts keyed as in FORMAT.md."""

    binary: Path
    tool: dict[str, Any]
    options: tuple[OptionSpec, ...]
    messages: dict[str, str]
    timers: tuple[dict[str, Any], ...]
    clock_syncs: tuple[dict[str, Any], ...]
    process_syncs: tuple[dict[str, Any], ...]
    operations: tuple[dict[str, Any], ...]
    datatypes: tuple[dict[str, Any], ...]
    reduce_ops: tuple[dict[str, Any], ...]
    environment: dict[str, tuple[str, ...]]
    limits: dict[str, int] = field(default_factory=dict)

    def option(self, name: str) -> OptionSpec:
        for o in self.options:
            if o.name == name:
                return o
        raise KeyError(name)

    def has_option(self, name: str) -> bool:
        return any(o.name == name for o in self.options)

    def op_scopes(self) -> dict[str, frozenset[str]]:
        """--flag → the operations it shapes, for the op-scoped options."""
        return {o.flag: frozenset(o.ops) for o in self.options if o.ops is not None}

    def options_for(self, mode: str) -> tuple[OptionSpec, ...]:
        """The options a user may pass on in `mode` ("bench" or "sync-check"): not the ones the
        tool sets itself per launch, not the informational or hidden ones, not the mode switch."""
        return tuple(o for o in self.options if mode in o.modes and not o.hidden
                     and not o.selects_mode and "info" not in o.modes
                     and not (mode == "bench" and o.per_launch))

    def names(self, registry: str) -> tuple[str, ...]:
        return tuple(e["name"] for e in getattr(self, registry))

    def process_sync(self, name: str) -> dict[str, Any] | None:
        return next((p for p in self.process_syncs if p["name"] == name), None)

    def message(self, key: str, *, option: str, value: str, allowed: str, what: str = "") -> str:
        """A bad-input message in the binary's words (without its "mpimeter-bench: " prefix);
        the value quoted as the binary quotes it (at most its limits' quoted_value bytes)."""
        value = quoted_value(value, self.limits.get("quoted_value"))
        text = self.messages[key]
        for k, v in (("{option}", option), ("{value}", value), ("{allowed}", allowed), ("{what}", what)):
            text = text.replace(k, v)
        return text


def quoted_value(value: str, limit: int | None) -> str:
    """What a message quotes of a value: its first ``limit`` UTF-8 bytes, never half a character,
    then "..."; a control character as '?' (None: the whole value, as older binaries quote it)."""
    if limit is None:
        return value
    data = value.encode("utf-8", "surrogateescape")
    cut = data[:limit].decode("utf-8", "ignore") if len(data) > limit else value
    text = "".join("?" if ord(c) < 0x20 or c == "\x7f" else c for c in cut)
    return text + ("..." if len(data) > limit else "")


def _spec(obj: dict[str, Any]) -> OptionSpec:
    choices = obj.get("choices")
    return OptionSpec(
        name=obj["name"], type=obj["type"], metavar=obj.get("metavar"), default=obj.get("default", ""),
        unit=obj.get("unit"), help=obj.get("help", ""), allowed=obj.get("allowed", ""),
        auto=bool(obj.get("auto")), min=obj.get("min"), max=obj.get("max"),
        min_exclusive=bool(obj.get("min_exclusive")), max_exclusive=bool(obj.get("max_exclusive")),
        zero_allowed=bool(obj.get("zero_allowed")),
        auto_values=tuple(obj.get("auto_values") or ("auto",)),
        choices=tuple(choices) if isinstance(choices, list) else None, what=obj.get("what"),
        modes=tuple(obj.get("modes") or ()), per_launch=bool(obj.get("per_launch")),
        selects_mode=bool(obj.get("selects_mode")), hidden=bool(obj.get("hidden")),
        ops=tuple(obj["ops"]) if isinstance(obj.get("ops"), list) else None)


def parse(doc: dict[str, Any], binary: Path) -> Description:
    """The typed description from the parsed document. DescribeError for another version."""
    _bench_binaries.check_version(doc, binary)
    try:
        return Description(
            binary=binary, tool=dict(doc["tool"]), options=tuple(_spec(o) for o in doc["options"]),
            messages=dict(doc["messages"]), timers=tuple(doc["timers"]),
            clock_syncs=tuple(doc["clock_syncs"]), process_syncs=tuple(doc["process_syncs"]),
            operations=tuple(doc["operations"]), datatypes=tuple(doc["datatypes"]),
            reduce_ops=tuple(doc["reduce_ops"]),
            environment={k: tuple(v) for k, v in doc["environment"].items()},
            limits=dict(doc.get("limits") or {}))
    except (KeyError, TypeError) as exc:
        raise DescribeError(f"{binary} --describe: not the document this mpimeter reads "
                            f"({type(exc).__name__}: {exc})") from None


@lru_cache(maxsize=16)
def _describe_cached(path: str, size: int, mtime_ns: int) -> Description:
    return parse(_bench_binaries.document(path), Path(path))


def describe(binary: str | Path) -> Description:
    """The description of `binary`, asked once per (path, size, mtime)."""
    return _describe_cached(*_bench_binaries.identity(binary))


def check_value(desc: Description, spec: OptionSpec, value: str) -> str | None:
    """Why `value` is not allowed for the option, in the binary's words, or None. Checks what
    the option alone decides (type, range, names); combinations are left to `validate`."""
    text = str(value)
    if spec.type in ("int", "float", "uint64"):
        if spec.auto and text in spec.auto_values:
            return None
        return _check_number(desc, spec, text)
    if spec.type == "floats":
        for item in text.split(","):
            why = _check_number(desc, spec, item) if item else None  # empty items: the binary says
            if why:
                return why
        return None
    if spec.type in ("name", "names", "choice") and spec.choices is not None:
        items = text.split(",") if spec.type == "names" else [text]
        allowed = set(spec.choices) | ({"auto"} if spec.auto else set())
        for item in items:
            if item and item not in allowed:
                return desc.message("unknown_name", option=spec.name, value=item, allowed=spec.allowed,
                                    what=spec.what or "")
    return None


def option_args(desc: Description, mode: str, values: dict[str, object], *,
                written_out: tuple[str, ...] = ()) -> list[str]:
    """The command line of :func:`option_pairs`."""
    return [word for flag, value in option_pairs(desc, mode, values, written_out=written_out)
            for word in ([flag] if value is None else [flag, value])]


def option_pairs(desc: Description, mode: str, values: dict[str, object], *,
                 written_out: tuple[str, ...] = ()) -> list[tuple[str, str | None]]:
    """The options given in ``values`` (by dest; None or False: not given) as (flag, value)
    pairs (value None for a flag), each checked in the binary's words (DescribeError), in the
    binary's option order; the options named in ``written_out`` are given the binary's own
    default when not given."""
    options = {o.dest: o for o in desc.options_for(mode)}
    unknown = sorted(k for k, v in values.items() if v not in (None, False) and k not in options)
    if unknown:
        raise DescribeError(f"--{unknown[0].replace('_', '-')}: mpimeter-bench {desc.binary} has no such "
                            "option (see mpimeter-bench --help)")
    pairs: list[tuple[str, str | None]] = []
    for spec in options.values():
        value = values.get(spec.dest)
        if value in (None, False):
            if spec.name in written_out:
                pairs.append((spec.flag, spec.default))
            continue
        if spec.type == "flag":
            pairs.append((spec.flag, None))
            continue
        why = check_value(desc, spec, str(value))
        if why:
            raise DescribeError(why)
        pairs.append((spec.flag, str(value)))
    return pairs


def _check_number(desc: Description, spec: OptionSpec, text: str) -> str | None:
    whole = spec.type in ("int", "uint64")
    try:
        if spec.type == "uint64" and text.lstrip().startswith("-"):
            raise ValueError("unsigned")  # strtoull's reading: a sign is not part of the number
        number = int(text, 10) if whole else float(text)
    except ValueError:
        key = "not_whole_number" if whole else "not_a_number"
        return desc.message(key, option=spec.name, value=text, allowed=spec.allowed)
    if not whole and not math.isfinite(number):
        return desc.message("not_a_number", option=spec.name, value=text, allowed=spec.allowed)
    if number == 0 and spec.zero_allowed:
        return None
    low_ok = spec.min is None or (number > spec.min if spec.min_exclusive else number >= spec.min)
    high_ok = spec.max is None or (number < spec.max if spec.max_exclusive else number <= spec.max)
    if not (low_ok and high_ok):
        return desc.message("out_of_range", option=spec.name, value=text, allowed=spec.allowed)
    return None


@dataclass(frozen=True)
class Validated:
    """What `mpimeter-bench --validate NP` resolved: the configuration as meta.json's "config"
    would hold it, the number of tests, and the operations' kinds."""

    config: dict[str, Any]
    tests: int
    operations: dict[str, Any]


def validate(binary: str | Path, args: list[str], nprocs: int) -> Validated:
    """Runs `binary --validate NP args` (no MPI needed). Raises DescribeError with the binary's
    own one-line message (without its prefix) when it refuses the options."""
    try:
        done = subprocess.run(question_argv(binary, ["--validate", str(nprocs), *args]), capture_output=True,
                              text=True, timeout=30, stdin=subprocess.DEVNULL, env=singleton_env())
    except (OSError, subprocess.SubprocessError) as exc:
        raise DescribeError(f"{binary} --validate could not run: {exc}") from None
    if done.returncode != 0:
        lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
        own = next((ln for ln in lines if ln.startswith("mpimeter-bench: ")), lines[0] if lines else "")
        raise DescribeError(own.removeprefix("mpimeter-bench: ") or f"exit code {done.returncode}")
    try:
        doc = json.loads(done.stdout)
        return Validated(dict(doc["config"]), int(doc["tests"]), dict(doc["operations"]))
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise DescribeError(f"{binary} --validate printed no configuration ({exc})") from None
