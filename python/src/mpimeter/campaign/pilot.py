# SPDX-License-Identifier: BSD-3-Clause
"""`--sizes auto` in a campaign of several launches: the sizes are decided once, by a pilot launch,
and every other launch measures the same set.

Why: `--sizes auto` refines the sizes inside a launch (SKaMPI §3.2) — where linear interpolation
is worst *in that launch's* medians. Run as such in every launch of a campaign, each launch chose
its own sizes: in a 3-launch campaign 17 of 40 sizes were measured in only 1 or 2 launches, and
their across-launch results silently rested on fewer launches. So the first launch of the
campaign (the pilot: the first in the campaign's order, usually alternative 1 #000) runs with
`--sizes auto`; when it completes, the sizes it measured — every size of every operation, the
grid and the added ones — are recorded in campaign.json (`sizes_pilot`) and every other launch of
every alternative runs `--sizes` with exactly that list (its `tests`, the cross product of the
campaign's operations and these sizes; `--sizes-precision`/`--sizes-budget`, which apply to
`--sizes auto` only, are left out). A size the pilot measured for one operation but not another
is then measured for all of them in the later launches, one launch fewer: analyze flags every
size measured in fewer launches than the rest of its operation (`fewer-launches`).
A pilot that fails is retried like any launch; until one completes, nothing else runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpimeter.campaign.benchargs import BenchArgs

SIZES_AUTO_ONLY = ("--sizes-precision", "--sizes-budget")  # refused by the binary without --sizes auto


@dataclass
class SizesPilot:
    """campaign.json ``sizes_pilot``: which launch decides the sizes and, once it completed,
    the operations and sizes every other launch measures (None: not decided yet)."""

    alternative: str
    index: int
    ops: list[str] | None = None
    sizes: list[int] | None = None

    @property
    def decided(self) -> bool:
        return self.sizes is not None

    def tests(self) -> dict[str, list] | None:
        return {"ops": list(self.ops or []), "sizes": list(self.sizes or [])} if self.decided else None

    def to_json(self) -> dict[str, Any]:
        return {"alternative": self.alternative, "index": self.index, "ops": self.ops, "sizes": self.sizes}


def wanted(bench_args: BenchArgs) -> bool:
    """Does the campaign refine its sizes (`--sizes auto…`)?"""
    return (bench_args.sizes or "").startswith("auto")


def decide(pilot_folder: Path, ops_order: list[str]) -> tuple[list[str], list[int]]:
    """The operations (in the campaign's order, then the pilot's) and every size the pilot
    launch measured, from its meta.json (read as untrusted: io.meta)."""
    from mpimeter.io.meta import read_meta

    meta = read_meta(Path(pilot_folder) / "meta.json")
    measured = [t for t in meta.tests if t.status == "complete"]
    if not measured:
        raise ValueError(f"{pilot_folder}: the pilot launch measured no test, so no sizes can be decided")
    seen = list(dict.fromkeys(t.op for t in measured))
    ops = [op for op in ops_order if op in seen] + [op for op in seen if op not in ops_order]
    return ops, sorted({int(t.size) for t in measured})


def launch_args(bench_args: BenchArgs, tests: dict[str, list] | None,
                scopes: Mapping[str, frozenset[str]] | None = None) -> list[str]:
    """The bench arguments of a launch after the pilot: the decided --ops/--sizes, without the
    options of --sizes auto (and without op-scoped options none of its operations takes:
    ``scopes``, BenchArgs.for_tests)."""
    args = bench_args.for_tests(tests, scopes)
    if tests:
        for flag in SIZES_AUTO_ONLY:
            args = args.without(flag)
    return args.argv()


def read(obj: Any, fail: Callable[[str, str], None]) -> SizesPilot | None:
    """campaign.json ``sizes_pilot`` (untrusted)."""
    if obj is None:
        return None
    if not isinstance(obj, dict) or not {"alternative", "index"} <= set(obj) or not set(obj) <= {
            "alternative", "index", "ops", "sizes"}:
        fail("sizes_pilot", "expected null or an object with alternative, index, ops and sizes")
    alt, index, ops, sizes = obj["alternative"], obj["index"], obj.get("ops"), obj.get("sizes")
    if not isinstance(alt, str) or not isinstance(index, int) or isinstance(index, bool) or index < 0:
        fail("sizes_pilot", "alternative must be a name and index a whole number ≥ 0")
    if (ops is None) != (sizes is None):
        fail("sizes_pilot", "ops and sizes are both null (not decided) or both lists")
    if ops is not None and (not isinstance(ops, list) or not ops or not all(isinstance(o, str) and o for o in ops)):
        fail("sizes_pilot.ops", "expected a list of operation names")
    if sizes is not None and (not isinstance(sizes, list) or not sizes or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in sizes)):
        fail("sizes_pilot.sizes", "expected a list of whole numbers of at least 0")
    return SizesPilot(alt, index, None if ops is None else list(ops), None if sizes is None else list(sizes))
