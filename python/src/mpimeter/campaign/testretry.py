# SPDX-License-Identifier: BSD-3-Clause
"""Measurement-level retry (SKaMPI, Reussner et al. 1998 §3.3: "skip the crashing measurement and
retry it last"): a test that crashes its launch or hangs past --test-timeout costs that test, not
the launch.

The binary rewrites meta.json after every test, its tests listed in the order they run (`test`
is the position in the shuffled plan), so the folder of a launch that died says which tests
finished and which one was running: the first one not finished, once the probes before the
tests had begun (`phases.probes.start_s`). The runner then

- marks the launch `cut` (its finished tests stay in its folder, which `mpimeter analyze` reads
  as any launch that stopped early: the rows of finished tests, an `incomplete-launch` warning);
- runs the tests it did not reach, at once, in continuation launches of their own (`piece.kind`
  "rest"), one per set of sizes the operations share, since a launch runs the product of its
  --ops and --sizes;
- retries the culprit last, alone, in a launch of its own (`piece.kind` "retry"), at most
  --retries times, and records in campaign.json `failed_tests` how each attempt ended.

The pieces stay launches of their own, not merged into the launch they continue: each ran its own
processes and clock sync, so rows of two pieces share no clock and no epoch (docs/FORMAT.md,
"A launch folder"); every test is still measured once per planned launch.

A launch whose tests cannot be told apart by operation and size (--roots, --nprocs lists: several
tests per pair), whose meta.json is unreadable, or that died before its tests began is retried
whole, as before. What reaches a piece's command line from meta.json (untrusted) passes an
allow-list: only operations of the launch's own --ops, sizes as whole numbers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mpimeter.campaign import limits
from mpimeter.campaign.plan import PlanError
from mpimeter.io.errors import InputError
from mpimeter.io.meta import read_document

HOW = ("crashed", "hung")
PIECE_KINDS = ("rest", "retry")
FAILED_TEST_STATUSES = ("retrying", "passed", "failed")
FINISHED = ("complete", "incomplete", "failed")  # a test's statuses in meta.json once it ended
MAX_SIZE = 2**62


@dataclass(frozen=True)
class Cut:
    """Where a launch died: the test running then, and the tests it did not reach."""

    test: int  # the culprit's position in the launch's plan
    op: str
    size: int
    finished: int
    rest: tuple[tuple[str, int], ...]  # (op, size) of the tests not reached, in plan order


@dataclass(kw_only=True)
class FailedTest:
    """One test that crashed or hung a launch, with every attempt of it (campaign.json
    `failed_tests`): `retrying` while retries are left, then `passed` or `failed`."""

    alternative: str
    launch: int  # the planned launch whose measurement of the test it is (pieces' `of`)
    op: str
    size: int
    status: str = "retrying"
    attempts: list[dict] = field(default_factory=list)  # {"launch", "how", "reason"}, in order

    def matches(self, alternative: str, launch: int, op: str, size: int) -> bool:
        return (self.alternative, self.launch, self.op, self.size) == (alternative, launch, op, size)


def _tests_began(meta: dict, finished: int) -> bool:
    """Whether the launch reached its tests: a test finished, or the probes before them began
    (their write of meta.json is the last before the first test)."""
    phases = meta.get("phases")
    probes = phases.get("probes") if isinstance(phases, dict) else None
    start = probes.get("start_s") if isinstance(probes, dict) else None
    began = isinstance(start, (int, float)) and not isinstance(start, bool) and start >= 0
    return finished > 0 or began


def find_cut(folder: Path, allowed_ops: list[str]) -> Cut | None:
    """The test a launch died in, from its meta.json; None when the launch must be retried whole
    (see the module's docstring)."""
    try:
        meta = read_document(Path(folder) / "meta.json")
    except InputError:
        return None
    tests = meta.get("tests")
    if not isinstance(tests, list) or not tests:
        return None
    rows = []
    for t in tests:
        if not isinstance(t, dict):
            return None
        index, op, size, status = t.get("test"), t.get("op"), t.get("size"), t.get("status")
        if (not isinstance(index, int) or isinstance(index, bool) or op not in allowed_ops
                or not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= MAX_SIZE
                or not isinstance(status, str)):
            return None
        rows.append((index, op, size, status))
    rows.sort()
    pairs = [(op, size) for _, op, size, _ in rows]
    if len(set(pairs)) != len(pairs) or len({r[0] for r in rows}) != len(rows):
        return None  # several tests per (operation, size): a piece could not name one alone
    finished = sum(r[3] in FINISHED for r in rows)
    left = [r for r in rows if r[3] not in FINISHED]
    if not left or not _tests_began(meta, finished):
        return None
    culprit = left[0]
    return Cut(test=culprit[0], op=culprit[1], size=culprit[2], finished=finished,
               rest=tuple((op, size) for _, op, size, _ in left[1:]))


def rest_launches(rest: tuple[tuple[str, int], ...], ops_order: list[str]) -> list[dict]:
    """The `tests` ({"ops", "sizes"}) of the continuation launches that run exactly `rest`: the
    operations grouped by the sizes they have left (a launch runs its --ops × --sizes)."""
    sizes_of: dict[str, set[int]] = {}
    for op, size in rest:
        sizes_of.setdefault(op, set()).add(size)
    groups: dict[tuple[int, ...], list[str]] = {}
    for op in sorted(sizes_of, key=lambda o: (ops_order.index(o) if o in ops_order else len(ops_order), o)):
        groups.setdefault(tuple(sorted(sizes_of[op])), []).append(op)
    return [{"ops": ops, "sizes": list(sizes)} for sizes, ops in groups.items()]


class HangWatch:
    """Polled by the executor while a launch runs: says why to stop it once its current test has
    run longer than `timeout_s`. A test's time counts from the rewrite of meta.json that ended
    the test before it (or the probes, for the first); before the tests begin only the launch
    timeout applies."""

    def __init__(self, folder: Path, timeout_s: float, *, clock: Callable[[], float] = time.monotonic):
        self.meta_path = Path(folder) / "meta.json"
        self.timeout_s = timeout_s
        self.clock = clock
        self._seen: tuple[int, int] | None = None
        self._since = clock()
        self._running = False
        self._label = ""

    def __call__(self) -> str | None:
        try:
            st = self.meta_path.stat()
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != self._seen:
            self._seen, self._since = stamp, self.clock()
            self._look()
        waited = self.clock() - self._since
        if self._running and waited > self.timeout_s:
            return f"hung: {self._label} ran past --test-timeout {self.timeout_s:g} s (stopped)"
        return None

    def _look(self) -> None:
        try:
            meta = read_document(self.meta_path)
        except InputError:  # caught mid-rewrite or cut: the next poll reads it again
            return
        tests = [t for t in meta.get("tests") or [] if isinstance(t, dict)]
        finished = sum(t.get("status") in FINISHED for t in tests)
        left = [t for t in tests if t.get("status") not in FINISHED]
        self._running = bool(left) and _tests_began(meta, finished)
        if left:
            t = min(left, key=lambda x: x.get("test") if isinstance(x.get("test"), int) else 0)
            self._label = f"test {t.get('test')} ({t.get('op')} {t.get('size')})"


# --- campaign.json (untrusted) -------------------------------------------------------------------

def read_piece(obj, fail: Callable[[str, str], None], where: str) -> dict | None:
    """A launch's `piece`: null, or {"of": index, "kind": rest|retry}."""
    if obj is None:
        return None
    if not isinstance(obj, dict) or set(obj) != {"of", "kind"}:
        fail(where, "expected null or an object with of and kind")
    of, kind = obj["of"], obj["kind"]
    if not isinstance(of, int) or isinstance(of, bool) or of < 0 or kind not in PIECE_KINDS:
        fail(where, f"of must be a launch index and kind one of {', '.join(PIECE_KINDS)}")
    return {"of": of, "kind": kind}


def read_cut(obj, fail: Callable[[str, str], None], where: str) -> dict | None:
    """A launch's `cut`: null, or the test it died in {"test", "op", "size", "how", "finished"}."""
    if obj is None:
        return None
    if not isinstance(obj, dict) or set(obj) != {"test", "op", "size", "how", "finished"}:
        fail(where, "expected null or an object with test, op, size, how and finished")
    whole = [obj[k] for k in ("test", "size", "finished")]
    if (not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in whole)
            or not isinstance(obj["op"], str) or obj["how"] not in HOW):
        fail(where, f"test, size and finished must be whole numbers, op a name, how one of {', '.join(HOW)}")
    return dict(obj)


def read_failed_tests(raw, fail: Callable[[str, str], None], alternatives: list[str]) -> list[FailedTest]:
    """campaign.json `failed_tests` (absent in a file written before measurement-level retry)."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        fail("failed_tests", "expected a list")
    out = []
    for i, item in enumerate(raw):
        where = f"failed_tests[{i}]"
        keys = {"alternative", "launch", "op", "size", "status", "attempts"}
        if not isinstance(item, dict) or set(item) != keys:
            fail(where, f"expected an object with {', '.join(sorted(keys))}")
        if item["alternative"] not in alternatives:
            fail(f"{where}.alternative", f"{item['alternative']!r} is not an alternative of the campaign")
        if item["status"] not in FAILED_TEST_STATUSES:
            fail(f"{where}.status", f"{item['status']!r} is not one of {', '.join(FAILED_TEST_STATUSES)}")
        numbers = (item["size"], item["launch"])
        if not isinstance(item["op"], str) or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in numbers):
            fail(where, "op must be a name, size and launch whole numbers")
        attempts = item["attempts"]
        if not isinstance(attempts, list) or not all(
                isinstance(a, dict) and set(a) == {"launch", "how", "reason"} and a["how"] in HOW
                and isinstance(a["launch"], int) and not isinstance(a["launch"], bool)
                and isinstance(a["reason"], str) for a in attempts):
            fail(f"{where}.attempts", "expected a list of {launch, how, reason}")
        out.append(FailedTest(alternative=item["alternative"], launch=item["launch"], op=item["op"],
                              size=item["size"], status=item["status"], attempts=[dict(a) for a in attempts]))
    return out


def read_test_timeout(value, fail: Callable[[str, str], None]) -> float | None:
    """campaign.json `test_timeout_s`: null (the launch timeout) or a time a launch timeout may
    be (a later --resume may have given a shorter launch timeout: the launch's then stops first)."""
    if value is None:
        return None
    try:
        return limits.check_test_timeout(value, limits.MAX_LAUNCH_TIMEOUT_S, flag="test_timeout_s")
    except PlanError as exc:
        fail("test_timeout_s", str(exc))
