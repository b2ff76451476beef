# SPDX-License-Identifier: BSD-3-Clause
"""meta.json ``tests[]`` (docs/FORMAT.md) as typed records: one :class:`TestRecord` per
operation at a size (and communicator size, root, work pieces), in plan order, with its validity counts, the
start-method switches and the nonblocking and adaptive records; read by io.meta."""

from __future__ import annotations

from dataclasses import dataclass

from mpimeter.io.jsonread import BOOL, INT, NAT, NUM, STR, Fields
from mpimeter.io.meta_adaptive import AdaptiveRecord, adaptive_record

TEST_STATUSES = ("complete", "incomplete", "failed", "pending", "running")
# the test statuses whose rows raw.csv holds: incomplete = a time budget ended the test before --nrep
ROW_STATUSES = ("complete", "incomplete")
ENDED_BY = ("nrep", "budget", "rule")  # rule: --nrep auto's stopping rule (schema 4)


@dataclass(frozen=True)
class TestError:
    code: str
    message: str


@dataclass(frozen=True)
class NbcRecord:
    """meta.json ``tests[].nbc`` (schema 3): a nonblocking collective's computation."""

    compute_ns: int  # t_b
    tests: int  # MPI_Test calls per repetition
    work_units: int  # work-based scheme: the largest calibrated unit count over ranks (0: time-based)
    calibrated_ns: int | None  # work-based: the longest time those units took alone
    blocking_nrep: int  # repetitions of the blocking phase


@dataclass(frozen=True)
class BackToBack:
    """meta.json ``tests[].back_to_back`` (``--back-to-back``): after the test, ``calls`` calls
    back to back timed as one interval (OSU's and IMB's quantity); ``mean_ns`` = interval / calls,
    the longest over the ranks, as the op times it (a ping-pong's is a round trip)."""

    calls: int
    mean_ns: float


@dataclass(frozen=True, kw_only=True)
class OtherCpu:
    """meta.json ``tests[].other_cpu``: the CPU share other processes used on rank 0's machine per
    block of repetitions (Roth 2021 §4.4). Block k holds the recorded repetitions ``first_rep[k]``
    to ``first_rep[k] + nrep[k] - 1``; its share is in [0, 1], read by the tick ``tick_s`` of
    /proc/stat, so a block much shorter than a tick per CPU reads 0 or a whole tick's worth."""

    block_reps: int  # repetitions per block, warm-up and redone ones included
    tick_s: float | None
    first_rep: tuple[int, ...]
    nrep: tuple[int, ...]
    wall_s: tuple[float, ...]
    # busy CPU − the host's ranks' CPU per block, s, signed (a tick short reads negative): what
    # pools blocks without the bias of the clamped share
    other_cpu_s: tuple[float, ...]
    share: tuple[float, ...]


@dataclass(frozen=True, kw_only=True)
class ProcSyncSwitch:
    """meta.json ``tests[].procsync_switches[]``: the test went on with another start method
    (the window's own policy on a busy machine); repetitions ``from_rep`` on used ``to``."""

    from_method: str
    to: str
    why: str  # late-at-cap | late-twice | round-trip (a ping-pong under an automatic window)
    from_rep: int
    late_fraction: float | None = None
    window_ns: int | None = None


@dataclass(frozen=True, kw_only=True)
class TestRecord:
    """One entry of meta.json ``tests`` (an operation at a size, in plan order)."""

    test: int
    op: str
    size: int
    status: str  # complete | incomplete | failed | pending | running
    nrep: int | None = None  # repetitions recorded (rows per rank in raw.csv)
    nrep_asked: int | None = None
    ended_by: str | None = None  # nrep | budget | rule | None
    ended_by_recorded: bool = False  # False in meta.json written before the key existed
    invalid: int = 0
    invalid_late_start: int = 0
    invalid_late_wakeup: int = 0
    invalid_overrun: int = 0
    invalid_round_late: int = 0
    redone: int = 0
    resyncs: int = 0
    window_ns: int | None = None
    window_pilot_ns: int | None = None  # an automatic window's first size (its pilot's)
    start_tolerance_ns: int | None = None
    error: TestError | None = None
    started_s: float | None = None
    duration_s: float | None = None
    nbc: NbcRecord | None = None
    adaptive: AdaptiveRecord | None = None  # --nrep auto
    size_added: bool = False  # --sizes auto: added by the refinement, not in the initial grid
    refine_round: int | None = None  # --sizes auto: 0 for the grid, k for the k-th round
    budget_s: float | None = None  # the test's time budget (--launch-budget-s shared out)
    procsync_switches: tuple[ProcSyncSwitch, ...] = ()
    # the communicator size the test ran on (--nprocs LIST: a sub-communicator); None: the
    # launch's nprocs (meta.json written before tests carried it)
    nprocs: int | None = None
    root: int | None = None  # rooted operations: the root rank of this test (None: not recorded)
    workpieces: int | None = None  # mw-workpieces: the pieces its master handed out (--workpieces)
    # the data term of the op's bound on this test's communicator, as a multiple of size (None:
    # no bound stated, or a launch before it was recorded per test)
    bound_bytes_per_size: float | None = None
    # --subtract-overhead: the empty timed region measured before the test on its ranks, per
    # raw.csv row (SKaMPI §3.1); the analysis subtracts it from the test's run times. None: off
    overhead_ns: float | None = None
    back_to_back: BackToBack | None = None  # --back-to-back: its companion interval; None: none ran
    other_cpu: OtherCpu | None = None  # other processes' CPU share per block; None: not measured

    @property
    def final_method(self) -> str | None:
        """The start method the test ended with when it switched (None: it did not)."""
        return self.procsync_switches[-1].to if self.procsync_switches else None

    @property
    def unplanned_from(self) -> int | None:
        """The first repetition measured by a method without a planned start (barrier), or None."""
        return next((s.from_rep for s in self.procsync_switches if s.to not in ("window", "roundtime", "harmonize")),
                    None)

    @property
    def label(self) -> str:
        """How FORMAT.md names a test in messages: ``test 3 (bcast 8)``."""
        return f"test {self.test} ({self.op} {self.size})"


def read_tests(f: Fields, launch_nprocs: int) -> tuple[TestRecord, ...]:
    tests = []
    for i, t in enumerate(f.objs("tests", required=True)):
        index = t.need("test", INT)
        if index != i:
            raise t.fail("test", f"is {index}; tests are listed in plan order, so it must be {i}")
        err = t.obj("error")
        comm_size = t.get("nprocs", INT)
        if comm_size is not None and not 1 <= comm_size <= launch_nprocs:
            raise t.fail("nprocs", f"is {comm_size}; a test's communicator has 1 to {launch_nprocs} "
                                   "ranks (the launch's nprocs)")
        root = t.get("root", INT)
        if root is not None and not 0 <= root < (comm_size or launch_nprocs):
            raise t.fail("root", f"is {root}; a root is a rank of the test's communicator, 0 to "
                                 f"{(comm_size or launch_nprocs) - 1}")
        for key in ("bound_bytes_per_size", "overhead_ns"):
            value = t.get(key, NUM)
            if value is not None and value < 0:
                raise t.fail(key, f"is {value}; it cannot be negative")
        tests.append(TestRecord(
            test=index, op=t.need("op", STR), size=t.need("size", NAT), status=t.need("status", STR, choices=TEST_STATUSES),
            nrep=t.get("nrep", NAT), nrep_asked=t.get("nrep_asked", NAT),
            ended_by=t.get("ended_by", STR, choices=ENDED_BY), ended_by_recorded=t.has("ended_by"),
            invalid=t.get("invalid", NAT, 0), invalid_late_start=t.get("invalid_late_start", NAT, 0),
            invalid_late_wakeup=t.get("invalid_late_wakeup", NAT, 0), invalid_overrun=t.get("invalid_overrun", NAT, 0),
            invalid_round_late=t.get("invalid_round_late", NAT, 0), redone=t.get("redone", NAT, 0),
            resyncs=t.get("resyncs", NAT, 0), window_ns=t.get("window_ns", NAT),
            window_pilot_ns=t.get("window_pilot_ns", NAT), start_tolerance_ns=t.get("start_tolerance_ns", NAT),
            error=None if err is None else TestError(err.need("code", STR), err.need("message", STR)),
            started_s=t.get("started_s", NUM), duration_s=t.get("duration_s", NUM), nbc=_nbc(t.obj("nbc")),
            adaptive=adaptive_record(t.obj("adaptive")), size_added=t.get("size_added", BOOL, False),
            refine_round=t.get("refine_round", NAT), budget_s=t.get("budget_s", NUM),
            procsync_switches=tuple(_switch(s) for s in t.objs("procsync_switches")),
            nprocs=comm_size, root=root, workpieces=_positive(t, "workpieces"),
            bound_bytes_per_size=t.get("bound_bytes_per_size", NUM), overhead_ns=t.get("overhead_ns", NUM),
            back_to_back=_back_to_back(t.obj("back_to_back")),
            other_cpu=_other_cpu(t.obj("other_cpu"), t.get("nrep", NAT))))
    return tuple(tests)


def _other_cpu(f: Fields | None, nrep: int | None) -> OtherCpu | None:
    if f is None:
        return None
    block_reps, tick_s = f.need("block_reps", NAT), f.get("tick_s", NUM)
    first, counts = f.items("first_rep", NAT), f.items("nrep", NAT)
    wall, other, share = f.items("wall_s", NUM), f.items("other_cpu_s", NUM), f.items("share", NUM)
    if block_reps < 1:
        raise f.fail("block_reps", f"is {block_reps}; a block holds at least 1 repetition")
    if not len(first) == len(counts) == len(wall) == len(other) == len(share) >= 1:
        raise f.fail("share", f"has {len(share)} blocks, first_rep {len(first)}, nrep {len(counts)}, wall_s "
                              f"{len(wall)}, other_cpu_s {len(other)}; each block has one of each, and there is "
                              "at least one")
    bad = next((k for k, x in enumerate(share) if not 0 <= x <= 1), None)
    if bad is not None:
        raise f.fail(f"share[{bad}]", f"is {share[bad]}; a share of the machine's CPU time is 0 to 1")
    bad = next((k for k, x in enumerate(wall) if x < 0), None)
    if bad is not None:
        raise f.fail(f"wall_s[{bad}]", f"is {wall[bad]}; a block's length cannot be negative")
    # the blocks follow one another: each starts where the one before ended, the first at 0
    bad = next((k for k in range(len(first)) if first[k] != (first[k - 1] + counts[k - 1] if k else 0)), None)
    if bad is not None:
        raise f.fail(f"first_rep[{bad}]", f"is {first[bad]}; the blocks follow one another from repetition 0, "
                                          "each starting where the one before ended")
    if nrep is not None and first[-1] + counts[-1] != nrep:
        raise f.fail("nrep", f"sums to {first[-1] + counts[-1]}; the blocks hold the test's {nrep} repetitions")
    return OtherCpu(block_reps=block_reps, tick_s=None if tick_s is None else float(tick_s), first_rep=first,
                    nrep=counts, wall_s=tuple(float(x) for x in wall),
                    other_cpu_s=tuple(float(x) for x in other), share=tuple(float(x) for x in share))


def _positive(f: Fields, key: str) -> int | None:
    value = f.get(key, INT)
    if value is not None and value < 1:
        raise f.fail(key, f"is {value}; at least 1 work piece is handed out")
    return value


def _back_to_back(f: Fields | None) -> BackToBack | None:
    if f is None:
        return None
    calls, mean_ns = f.need("calls", INT), f.need("mean_ns", NUM)
    if calls < 1:
        raise f.fail("calls", f"is {calls}; a back-to-back interval has at least 1 call")
    if not mean_ns > 0:
        raise f.fail("mean_ns", f"is {mean_ns}; a time per call is positive")
    return BackToBack(calls=calls, mean_ns=float(mean_ns))


def _switch(f: Fields) -> ProcSyncSwitch:
    return ProcSyncSwitch(from_method=f.need("from", STR), to=f.need("to", STR), why=f.need("why", STR),
                          from_rep=f.need("from_rep", NAT), late_fraction=f.get("late_fraction", NUM),
                          window_ns=f.get("window_ns", NAT))


def _nbc(f: Fields | None) -> NbcRecord | None:
    if f is None:
        return None
    return NbcRecord(f.need("compute_ns", NAT), f.need("tests", NAT), f.get("work_units", NAT, 0),
                     f.get("calibrated_ns", NAT), f.get("blocking_nrep", NAT, 0))
