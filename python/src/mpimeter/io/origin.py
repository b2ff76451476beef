# SPDX-License-Identifier: BSD-3-Clause
"""meta.json ``origin`` (schema version 4, docs/FORMAT.md "Imported launches"): a launch that
``mpimeter import`` made from another benchmark's output (IMB, OSU, ReproMPI) rather than one
mpimeter-bench measured.

Read here, below io.meta (which calls the parser): the typed :class:`Origin` and its checks
against meta.json's tests (one origin test per meta test, aggregates holding their headline,
``config.raw`` reduced). Its checks against raw.csv and the warnings of an imported launch need
the whole launch's meta.json: io.origin_checks, above io.meta.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from mpimeter.io import redact
from mpimeter.io.errors import InputError
from mpimeter.io.jsonread import BOOL, NAT, STR, Fields

TOOLS = ("imb", "osu", "reprompi")
DATA = ("aggregates", "repetitions")
ORIGIN_VERSION = 4  # the meta.json schema_version that introduced ``origin``


@dataclass(frozen=True, kw_only=True)
class OriginTest:
    test: int
    name: str  # the tool's name of the benchmark or call
    line: int | None  # where its first row is in the imported file
    repetitions: int | None  # the tool's repetitions behind the numbers (None: not printed)
    valid_repetitions: int | None
    headline: str | None  # aggregates: the key raw.csv carries
    aggregates_ns: Mapping[str, int] = field(default_factory=dict, compare=False)


@dataclass(frozen=True, kw_only=True)
class Origin:
    tool: str  # imb | osu | reprompi
    tool_name: str
    tool_version: str | None
    file: str  # the imported file's name
    sha256: str | None
    command: str | None
    data: str  # aggregates | repetitions
    run_time: str  # what a raw.csv row's run time is
    lacks: tuple[str, ...]
    global_times: bool
    tests: tuple[OriginTest, ...]
    settings: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def label(self) -> str:
        return f"{self.tool_name} {self.tool_version}" if self.tool_version else self.tool_name

    @property
    def aggregates(self) -> bool:
        return self.data == "aggregates"

    def test(self, index: int) -> OriginTest:
        return self.tests[index]


class MetaTest(Protocol):
    """What the parser reads of each of meta.json's tests (io.meta.TestRecord)."""

    test: int
    status: str
    nrep: int


def parse_origin(f: Fields, version: int, tests: tuple[MetaTest, ...], raw_mode: str) -> Origin | None:
    """meta.json ``origin`` (None when absent); refused in a version before 4, or when it does not
    match the launch's tests."""
    o = f.obj("origin")
    if o is None:
        return None
    if version < ORIGIN_VERSION:
        raise f.fail("origin", f"is only defined from schema_version {ORIGIN_VERSION} on; this meta.json has "
                               f"version {version}")
    if raw_mode != "reduced":
        raise InputError(f.path, "config.raw must be 'reduced' in an imported launch (origin is set): its raw.csv "
                                 "has one row per repetition, not per rank")
    data = o.need("data", STR, choices=DATA)
    origin_tests = []
    for i, t in enumerate(o.objs("tests", required=True)):
        index = t.need("test", NAT)
        if index != i:
            raise t.fail("test", f"is {index}; origin.tests follows meta.json's tests, so it must be {i}")
        aggregates = t.mapping("aggregates_ns", NAT)
        headline = t.get("headline", STR)
        if data == "aggregates" and headline not in aggregates:
            raise t.fail("headline", f"is {headline!r}, which is not a key of aggregates_ns ({', '.join(aggregates)})")
        origin_tests.append(OriginTest(test=index, name=t.need("name", STR), line=t.get("line", NAT),
                                       repetitions=t.get("repetitions", NAT),
                                       valid_repetitions=t.get("valid_repetitions", NAT), headline=headline,
                                       aggregates_ns=MappingProxyType(dict(aggregates))))
    if len(origin_tests) != len(tests):
        raise o.fail("tests", f"lists {len(origin_tests)} tests, meta.json's tests {len(tests)}: they must match")
    if data == "aggregates":
        for t in tests:
            if t.status == "complete" and t.nrep != 1:
                raise InputError(f.path, f"tests[{t.test}].nrep is {t.nrep}; an imported aggregate is one row (nrep 1)")
    return Origin(
        tool=o.need("tool", STR, choices=TOOLS), tool_name=o.need("tool_name", STR),
        tool_version=o.get("tool_version", STR), file=o.need("file", STR), sha256=o.get("sha256", STR),
        command=redact.reading_rule().text(o.get("command", STR)), data=data, run_time=o.need("run_time", STR), lacks=o.items("lacks", STR),
        global_times=o.get("global_times", BOOL, False), tests=tuple(origin_tests),
        settings=MappingProxyType(redact.reading_rule().facts(o.mapping("settings", STR))))


def to_document(origin: Origin) -> dict[str, Any]:
    """The ``origin`` object as written (mpimeter.io.peers.write)."""
    return {
        "tool": origin.tool, "tool_name": origin.tool_name, "tool_version": origin.tool_version,
        "file": origin.file, "sha256": origin.sha256, "command": origin.command, "data": origin.data,
        "run_time": origin.run_time, "lacks": list(origin.lacks), "global_times": origin.global_times,
        "settings": dict(origin.settings),
        "tests": [{"test": t.test, "name": t.name, "line": t.line, "repetitions": t.repetitions,
                   "valid_repetitions": t.valid_repetitions, "headline": t.headline,
                   "aggregates_ns": dict(t.aggregates_ns)} for t in origin.tests],
    }
