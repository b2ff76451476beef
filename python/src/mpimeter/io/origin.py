"""meta.json ``origin`` (schema version 4, docs/FORMAT.md "Imported launches"): a launch that
``mpimeter import`` made from another benchmark's output (IMB, OSU, ReproMPI) rather than one
mpimeter-bench measured.

Read here: the typed :class:`Origin`; its checks against meta.json's tests (one origin test per
meta test, aggregates holding their headline, ``config.raw`` reduced) and against raw.csv (one
row per repetition, rank −1, ``start_ns`` 0, and for aggregate data the one row carrying the
headline); and the warnings that say, once per launch, what such a launch cannot give.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from mpimeter.io import redact
from mpimeter.io.errors import AnalysisWarning, InputError
from mpimeter.io.jsonread import BOOL, NAT, STR, Fields
from mpimeter.warning_codes import warning

if TYPE_CHECKING:
    from mpimeter.io.meta import LaunchMeta, TestRecord

TOOLS = ("imb", "osu", "reprompi")
DATA = ("aggregates", "repetitions")
ORIGIN_VERSION = 4  # the meta.json schema_version that introduced ``origin``


@dataclass(frozen=True)
class OriginTest:
    test: int
    name: str  # the tool's name of the benchmark or call
    line: int | None  # where its first row is in the imported file
    repetitions: int | None  # the tool's repetitions behind the numbers (None: not printed)
    valid_repetitions: int | None
    headline: str | None  # aggregates: the key raw.csv carries
    aggregates_ns: Mapping[str, int] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
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


def parse_origin(f: Fields, version: int, tests: tuple[TestRecord, ...], raw_mode: str) -> Origin | None:
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
        origin_tests.append(OriginTest(index, t.need("name", STR), t.get("line", NAT), t.get("repetitions", NAT),
                                       t.get("valid_repetitions", NAT), headline, MappingProxyType(dict(aggregates))))
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


def check_rows(path: Path, raw: pa.Table, meta: LaunchMeta) -> None:
    """raw.csv of an imported launch: start_ns 0 on every row (the tools print no timestamps);
    global times exactly when origin says the run times are global, and then equal to the local
    columns; an aggregate's one row carries its headline (twice it for a round trip)."""
    origin = meta.origin
    if origin is None or raw.num_rows == 0:
        return
    start = raw["start_ns"].to_numpy()
    end = raw["end_ns"].to_numpy()
    bad = np.nonzero(start != 0)[0]
    if bad.size:
        raise InputError(path, f"row {int(bad[0]) + 2} has start_ns {int(start[bad[0]])}; an imported launch has no "
                               "timestamps, so start_ns is 0", line=int(bad[0]) + 2)
    gs, ge = raw["gstart_ns"], raw["gend_ns"]
    if origin.global_times:
        same = (gs.null_count == 0 and ge.null_count == 0 and bool(np.all(gs.to_numpy() == 0))
                and bool(np.array_equal(ge.to_numpy(), end)))
        if not same:
            raise InputError(path, "origin.global_times is true: every row's gstart_ns must be 0 and gend_ns equal "
                                   "to end_ns (the tool's global run time)")
    elif gs.null_count != raw.num_rows or ge.null_count != raw.num_rows:
        raise InputError(path, "has global times, but origin.global_times is false (the tool's run times are local)")
    if not origin.aggregates:
        return
    test = raw["test"].to_numpy()
    for i in range(raw.num_rows):
        ot = origin.test(int(test[i]))
        want = ot.aggregates_ns[ot.headline] * (2 if _round_trip(meta, raw["op"][i].as_py()) else 1)
        if int(end[i]) != want:
            raise InputError(path, f"row {i + 2} has end_ns {int(end[i])}, but origin.tests[{ot.test}] says "
                                   f"{ot.headline} = {ot.aggregates_ns[ot.headline]} ns (raw.csv must carry "
                                   f"{want})", line=i + 2)


def _round_trip(meta: LaunchMeta, op: str) -> bool:
    info = meta.operation(op)
    return info is not None and info.round_trip


def imported_warnings(meta: LaunchMeta, folder: Path) -> list[AnalysisWarning]:
    """Once per imported launch: what it is and what cannot be computed from it."""
    o = meta.origin
    if o is None:
        return []
    where = str(folder / "meta.json")
    if o.aggregates:
        heads = sorted({t.headline for t in o.tests if t.headline})
        return [warning("imported-aggregates", label=o.label, file=o.file, headlines=", ".join(heads), where=where)]
    lacks = " and ".join(o.lacks) or "nothing"
    return [warning("imported-repetitions", label=o.label, file=o.file, run_time=o.run_time, lacks=lacks, where=where)]


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
