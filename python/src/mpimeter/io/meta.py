# SPDX-License-Identifier: BSD-3-Clause
"""meta.json (docs/FORMAT.md) as one frozen record, :class:`LaunchMeta`: the launch facts every
other module uses, typed, so that no module indexes the raw document.

Schema versions 1 to 4 are read (:data:`META_VERSIONS`); what version 1 lacks gets a neutral
value: no ``operations`` (an empty mapping: nothing is known to finish apart), no
``late_wakeup`` counts (0), no ``start_tolerance_ns`` (None: the analysis derives one, see
FORMAT.md "run time of a repetition"), no test ``error`` (None), no ``cpus_seen`` (empty),
``cpu_changes`` 0, ``cpu_khz`` None, no probes, no ``mpi_t``, no ``failed_syncs`` (0). Its
``warnings`` strings become conditions with code ``bench-warning``, except the copy of
``clock_sync.warning`` (the binary's own verdict on the residual, which the analysis now judges
itself from the numbers).

Required: ``schema_version``, ``status``, ``nprocs`` and ``tests`` (each with ``test``, ``op``,
``size``, ``status``, and ``tests[i].test == i``: tests are listed in plan order). Every other
key may be absent or null (hand-made launch folders lack most of them) but, when present, must
have its documented type. Keys this reader does not know are ignored. Every violation is an
:class:`InputError` naming the file and the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from mpimeter.io import origin as _origin
from mpimeter.io import redact
from mpimeter.io.errors import InputError
from mpimeter.io.jsonread import BOOL, INT, NAT, NUM, STR, Fields, load_json, type_name
from mpimeter.io.meta_adaptive import (NrepAuto, SizeRefinement, SizesAuto,
                                       nrep_auto, size_refinement, sizes_auto)
from mpimeter.io.meta_tests import (ENDED_BY, ROW_STATUSES, TEST_STATUSES, NbcRecord, ProcSyncSwitch,  # noqa: F401 (their home)
                                    TestError, TestRecord, read_tests)
from mpimeter.io.meta_bounds import (CopyBandwidth, LatencyFloor, read_bound_volume, read_copy_bandwidth,
                                     read_latency_floor)
from mpimeter.warning_codes import CONDITION_CODES

# 4: version 3 plus the adaptive records (--nrep auto, --sizes auto) the binary writes, and
# ``origin`` in launches imported from other benchmarks' outputs (mpimeter.io.origin)
META_VERSIONS = (1, 2, 3, 4)
STATUSES = ("running", "complete", "incomplete", "failed")
RAW_MODES = ("full", "reduced")
_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _empty() -> Mapping[str, Any]:
    return _EMPTY


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Tool:
    name: str | None = None
    version: str | None = None
    git_revision: str | None = None


@dataclass(frozen=True, kw_only=True)
class Config:
    """meta.json ``config``: the resolved configuration. ``entries`` is the whole object as read
    (every setting, for display and for comparing the settings of launches)."""

    ops: tuple[str, ...] = ()
    sizes: tuple[int, ...] = ()
    nrep: int | None = None
    warmup: int | None = None
    timer: str | None = None
    clocksync: str | None = None
    procsync: str | None = None
    window_us: float | None = None
    start_tolerance_ns: int | None = None  # None: automatic (or a version-1 launch)
    seed: int | None = None
    raw: str = "full"
    datatype: str | None = None
    resync_s: float | None = None  # None: never re-synced
    roundtime_budget_s: float | None = None  # procsync_params
    fit_span_s: float | None = None  # clocksync_params
    nrep_auto: NrepAuto | None = None  # None: a fixed --nrep (or a launch before schema 4)
    sizes_auto: SizesAuto | None = None  # None: the sizes were given
    entries: Mapping[str, Any] = field(default_factory=_empty, compare=False, repr=False)


@dataclass(frozen=True)
class Timer:
    name: str | None = None
    resolution_ns: float | None = None
    overhead_ns: float | None = None
    tsc_hz: float | None = None


@dataclass(frozen=True)
class Residual:
    """A residual check of the clock sync: rank 0's global clock minus each rank's."""

    ranks: tuple[int, ...] = ()
    residual_ns: tuple[float, ...] = ()
    max_abs_ns: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ClockSync:
    method: str = "none"
    model: str | None = None  # offset | linear | identity
    duration_s: float | None = None
    total_duration_s: float | None = None
    resyncs: int = 0
    failed_syncs: int = 0
    residual_start: Residual | None = None
    residual_end: Residual | None = None
    recorded: bool = False  # meta.json names the method (a hand-made one may not)
    self_check_used: str | None = None  # clock_sync.self_check.used: drift-aware | offset-only (None: not checked)
    chosen: str | None = None  # clock_sync.chosen: given | auto | "auto, one clock" (None: not recorded)

    @property
    def described(self) -> str:
        """The method with how it was chosen when the binary said so: "none (auto, one clock)"."""
        return self.method if self.chosen in (None, "given", "auto") else f"{self.method} ({self.chosen})"

    @property
    def one_clock(self) -> bool:
        """Every rank read one kernel clock, so no sync ran (``chosen`` "auto, one clock"): the
        clocks agree by construction, and a residual check measures only its own error."""
        return self.chosen == "auto, one clock"

    @property
    def worst_residual_ns(self) -> float:
        """The largest |residual| measured at the start or the end (0 when none was)."""
        return max((r.max_abs_ns for r in (self.residual_start, self.residual_end) if r is not None), default=0.0)


@dataclass(frozen=True)
class Reasons:
    """Counts of invalid (or redone) repetitions by reason."""

    total: int = 0
    late_start: int = 0
    late_wakeup: int = 0
    overrun: int = 0
    round_late: int = 0


@dataclass(frozen=True, kw_only=True)
class ProcSync:
    method: str = "none"
    scheme: str | None = None
    window_ns_by_test: Mapping[int, int] = field(default_factory=_empty, compare=False)
    invalid: Reasons = Reasons()
    redone: Reasons = Reasons()
    recorded: bool = False  # meta.json names the method (a hand-made one may not)


@dataclass(frozen=True, kw_only=True)
class Rank:
    rank: int
    host: str | None = None
    cpus: tuple[int, ...] = ()
    pid: int | None = None
    cpus_seen: tuple[int, ...] = ()
    cpu_changes: int = 0
    cpu_khz: tuple[int, ...] | None = None


@dataclass(frozen=True)
class CachelineProbe:
    ranks: tuple[int, ...]
    host: str | None
    cpus: tuple[int, ...]
    rtt_ns: float | None


@dataclass(frozen=True)
class PairSample:
    ranks: tuple[int, ...]
    median_rtt_ns: float | None


@dataclass(frozen=True)
class PingpongPair:
    """probes.pingpong_pair: the two ranks of the launch's ping-pongs, ``chosen_by`` ``option``
    (--pair) or ``largest-latency`` (SKaMPI's rule over ``samples``)."""

    ranks: tuple[int, ...]
    chosen_by: str | None
    samples: tuple[PairSample, ...] = ()


@dataclass(frozen=True)
class MpiT:
    cvars: int | None
    digest: str | None
    selected: Mapping[str, str] = field(default_factory=_empty, compare=False)


@dataclass(frozen=True)
class Mpi:
    library: str = "unknown"
    version: str | None = None
    library_version: str | None = None
    library_version_full: str | None = None
    mpi_t: MpiT | None = None

    @property
    def library_version_line(self) -> str | None:
        """The first line of MPI_Get_library_version (the rest is build detail)."""
        return self.library_version.splitlines()[0] if self.library_version else None


@dataclass(frozen=True, kw_only=True)
class Operation:
    kind: str | None = None
    ranks_finish_apart: bool = False
    size_unit: str = "bytes"
    round_trip: bool = False  # the timed call is a round trip: the analysis halves it
    bound_formula: str | None = None  # bound_volume.formula: the data term of the op's bound, in words
    bound_bytes_per_size: float | None = None  # bound_volume.bytes_per_size; None: no bound stated
    mockup_of: str | None = None  # a mock-up: the operation whose result it gives (guidelines)
    # only the two ranks of the pair communicate (ping-pongs, one-sided pair rows); False: the
    # whole communicator (or none: kind local); None: not recorded (launches before the key)
    uses_pair: bool | None = None


@dataclass(frozen=True)
class Build:
    compiler: str | None = None
    flags: str | None = None
    mpicc: str | None = None


@dataclass(frozen=True)
class System:
    kernel: str | None = None
    cpu_model: str | None = None
    tsc_flags: tuple[str, ...] = ()
    governor: str | None = None
    ncpus: int | None = None


@dataclass(frozen=True)
class Load:
    loadavg_start: tuple[float, ...] | None = None
    loadavg_end: tuple[float, ...] | None = None
    other_cpu_s: float | None = None
    own_cpu_s: float | None = None
    wall_s: float | None = None


@dataclass(frozen=True)
class Condition:
    """Something the binary noticed: a stable ``code``, the fact, what to do, where."""

    code: str
    message: str
    hint: str = ""
    where: str | None = None


@dataclass(frozen=True, kw_only=True)
class LaunchMeta:
    """One launch's meta.json. ``document`` is the whole JSON object as read, for showing it (the
    report's provenance, the DuckDB store); code that needs a fact uses the typed fields."""

    path: Path
    schema_version: int
    status: str
    nprocs: int
    tests: tuple[TestRecord, ...]
    tool: Tool = Tool()
    pid: int | None = None
    host_of_rank0: str | None = None
    argv: tuple[str, ...] = ()
    config: Config = Config()
    operations: Mapping[str, Operation] = field(default_factory=_empty, compare=False)
    mpi: Mpi = Mpi()
    build: Build = Build()
    system: System = System()
    ranks: tuple[Rank, ...] = ()
    cacheline_probes: tuple[CachelineProbe, ...] = ()
    empty_region_ns: float | None = None  # probes.empty_region_ns; None: not recorded (older launches)
    pingpong_pair: PingpongPair | None = None
    copy_bandwidth: CopyBandwidth | None = None  # probes.copy_bandwidth (meta_bounds); None: not measured
    latency_floor: LatencyFloor | None = None  # probes.latency_floor (meta_bounds); None: not measured
    environment: Mapping[str, str] = field(default_factory=_empty, compare=False)
    load: Load = Load()
    timer: Timer = Timer()
    clock_sync: ClockSync = ClockSync()
    proc_sync: ProcSync = ProcSync()
    launch_epoch_local_ns_rank0: int | None = None
    wall_start: str | None = None
    wall_end: str | None = None
    conditions: tuple[Condition, ...] = ()
    size_refinement: tuple[SizeRefinement, ...] | None = None  # None: no --sizes auto
    document: Mapping[str, Any] = field(default_factory=_empty, compare=False, repr=False)
    origin: _origin.Origin | None = None  # schema 4: imported from another benchmark's output (None: measured)

    @property
    def finished_tests(self) -> tuple[int, ...]:
        return tuple(t.test for t in self.tests if t.status in ROW_STATUSES)

    @property
    def hosts(self) -> tuple[str, ...]:
        """The distinct hosts of the ranks, in rank order."""
        return tuple(dict.fromkeys(r.host for r in self.ranks if r.host is not None))

    @property
    def reduced(self) -> bool:
        return self.config.raw == "reduced"

    def operation(self, op: str) -> Operation | None:
        """What the binary's operations table says of ``op`` (None: not recorded, version 1)."""
        return self.operations.get(op)

    def kind(self, op: str) -> str | None:
        """The operation's pattern kind as the binary's table gave it (None: not recorded)."""
        info = self.operations.get(op)
        return info.kind if info is not None else None

    def size_unit(self, op: str) -> str:
        """``bytes`` or ``ns``: as recorded (schema 2); a version-1 launch recorded no operations
        table, and its one operation sized in ns was ``delay``."""
        info = self.operations.get(op)
        if info is not None:
            return info.size_unit
        return "ns" if self.schema_version == 1 and op == "delay" else "bytes"


def read_document(path: str | Path) -> dict[str, Any]:
    """meta.json as the file holds it, by its one read (load_json: bounded, UTF-8, finite numbers,
    nesting), an object; InputError otherwise. Typed by :func:`parse_meta`; the campaign looks
    into the document of a launch it just ran (its status, how far it got, its secrets)."""
    path = Path(path)
    document = load_json(path)
    if not isinstance(document, dict):
        raise InputError(path, f"the document is {type_name(document)}, not an object")
    return document


def read_meta(path: str | Path) -> LaunchMeta:
    """Reads and checks meta.json; raises :class:`InputError` naming the file and the key."""
    path = Path(path)
    return parse_meta(read_document(path), path)


def parse_meta(document: Any, path: Path) -> LaunchMeta:
    """A parsed meta.json document → :class:`LaunchMeta` (``path`` names it in errors)."""
    f = Fields(path, document)
    if not f.has("schema_version"):
        raise InputError(path, "has no schema_version")
    version = f.value["schema_version"]
    if version not in META_VERSIONS or isinstance(version, bool):
        raise InputError(path, f"has schema_version {version!r}; this mpimeter reads versions "
                               f"{', '.join(map(str, META_VERSIONS))} (upgrade mpimeter?)")
    nprocs = f.need("nprocs", INT)
    if nprocs < 1:
        raise f.fail("nprocs", f"is {nprocs}; it must be at least 1")
    clock_sync = _clock_sync(f.obj("clock_sync"))
    tests, config = read_tests(f, nprocs), _config(f.obj("config"))
    rule = redact.reading_rule()  # asked once: it looks for the built binaries each time
    meta = LaunchMeta(
        path=path, schema_version=version, status=f.need("status", STR, choices=STATUSES), nprocs=nprocs,
        tests=tests, tool=_tool(f.obj("tool")), pid=f.get("pid", INT), host_of_rank0=f.get("host_of_rank0", STR),
        argv=tuple(rule.argv(f.items("argv", STR))), config=config, operations=_operations(f.obj("operations")),
        mpi=_mpi(f.obj("mpi")), build=_build(f.obj("build")), system=_system(f.obj("system")),
        ranks=_ranks(f, nprocs), cacheline_probes=_probes(f.obj("probes")),
        empty_region_ns=_empty_region(f.obj("probes")), pingpong_pair=_pingpong_pair(f.obj("probes")),
        copy_bandwidth=read_copy_bandwidth(f.obj("probes")), latency_floor=read_latency_floor(f.obj("probes")),
        # the binary redacts by name with its words; Python adds its words and the shapes (io.redact)
        environment=_frozen(rule.env(f.mapping("environment", STR))), load=_load(f.obj("load")), timer=_timer(f.obj("timer")),
        clock_sync=clock_sync, proc_sync=_proc_sync(f.obj("proc_sync")),
        launch_epoch_local_ns_rank0=f.get("launch_epoch_local_ns_rank0", INT),
        wall_start=f.get("wall_start", STR), wall_end=f.get("wall_end", STR),
        conditions=_conditions(f, version), size_refinement=size_refinement(f),
        document=redact.meta_document(document),  # shown whole by the report and kept by the store
        origin=_origin.parse_origin(f, version, tests, config.raw))
    return meta


def _tool(f: Fields | None) -> Tool:
    if f is None:
        return Tool()
    return Tool(f.get("name", STR), f.get("version", STR), f.get("git_revision", STR))


def _config(f: Fields | None) -> Config:
    if f is None:
        return Config()
    cs, ps = f.obj("clocksync_params"), f.obj("procsync_params")
    return Config(
        ops=f.items("ops", STR), sizes=f.items("sizes", NAT), nrep=f.get("nrep", NAT), warmup=f.get("warmup", NAT),
        timer=f.get("timer", STR), clocksync=f.get("clocksync", STR), procsync=f.get("procsync", STR),
        window_us=f.get("window_us", NUM), start_tolerance_ns=f.get("start_tolerance_ns", NAT),
        seed=f.get("seed", INT), raw=f.get("raw", STR, "full", choices=RAW_MODES), datatype=f.get("datatype", STR),
        resync_s=f.get("resync_s", NUM), roundtime_budget_s=None if ps is None else ps.get("roundtime_budget_s", NUM),
        fit_span_s=None if cs is None else cs.get("fit_span_s", NUM), nrep_auto=nrep_auto(f.obj("nrep_auto")),
        sizes_auto=sizes_auto(f.obj("sizes_auto")), entries=_frozen(f.value))


def _timer(f: Fields | None) -> Timer:
    if f is None:
        return Timer()
    return Timer(f.get("name", STR), f.get("resolution_ns", NUM), f.get("overhead_ns", NUM), f.get("tsc_hz", NUM))


def _residual(f: Fields | None) -> Residual | None:
    if f is None:
        return None
    values = f.items("residual_ns", NUM)
    max_abs = f.get("max_abs_ns", NUM)
    if max_abs is None:
        max_abs = max((abs(v) for v in values), default=0.0)
    if max_abs < 0:
        raise f.fail("max_abs_ns", f"is {max_abs}; an absolute value is never negative")
    return Residual(f.items("ranks", INT), values, float(max_abs))


def _clock_sync(f: Fields | None) -> ClockSync:
    if f is None:
        return ClockSync()
    return ClockSync(
        method=f.get("method", STR, "none"), model=f.get("model", STR), duration_s=f.get("duration_s", NUM),
        total_duration_s=f.get("total_duration_s", NUM), resyncs=f.get("resyncs", NAT, 0),
        failed_syncs=f.get("failed_syncs", NAT, 0), residual_start=_residual(f.obj("residual_start")),
        residual_end=_residual(f.obj("residual_end")), recorded=f.get("method", STR) is not None,
        self_check_used=None if f.obj("self_check") is None else f.obj("self_check").get("used", STR),
        chosen=f.get("chosen", STR))


def _reasons(f: Fields | None) -> Reasons:
    if f is None:
        return Reasons()
    src = f.obj("reasons") or f  # redone: {"total", "reasons": {...}}; invalid: flat
    return Reasons(f.get("total", NAT, 0), src.get("late_start", NAT, 0), src.get("late_wakeup", NAT, 0),
                   src.get("overrun", NAT, 0), src.get("round_late", NAT, 0))


def _proc_sync(f: Fields | None) -> ProcSync:
    if f is None:
        return ProcSync()
    windows = {}
    for key, value in f.mapping("window_ns_by_test", NAT).items():
        if not key.isdigit():
            raise f.fail("window_ns_by_test", f"has the key {key!r}; keys are test indices (\"0\", \"1\", …)")
        windows[int(key)] = value
    return ProcSync(method=f.get("method", STR, "none"), scheme=f.get("scheme", STR),
                    window_ns_by_test=_frozen(windows), invalid=_reasons(f.obj("invalid")),
                    redone=_reasons(f.obj("redone")), recorded=f.get("method", STR) is not None)


def _ranks(f: Fields, nprocs: int) -> tuple[Rank, ...]:
    ranks = []
    for i, r in enumerate(f.objs("ranks")):
        rank = r.need("rank", INT)
        if rank != i:
            raise r.fail("rank", f"is {rank}; ranks are listed in order, so it must be {i}")
        ranks.append(Rank(rank=rank, host=r.get("host", STR), cpus=r.items("cpus", NAT), pid=r.get("pid", INT),
                          cpus_seen=r.items("cpus_seen", NAT), cpu_changes=r.get("cpu_changes", NAT, 0),
                          cpu_khz=r.items_or_none("cpu_khz", NAT)))
    if ranks and len(ranks) != nprocs:
        raise InputError(f.path, f"ranks lists {len(ranks)} ranks, but nprocs is {nprocs}")
    return tuple(ranks)


def _probes(f: Fields | None) -> tuple[CachelineProbe, ...]:
    if f is None:
        return ()
    return tuple(CachelineProbe(p.items("ranks", INT), p.get("host", STR), p.items("cpus", NAT), p.get("rtt_ns", NUM))
                 for p in f.objs("cacheline_rtt_ns"))


def _empty_region(f: Fields | None) -> float | None:
    value = None if f is None else f.get("empty_region_ns", NUM)
    if value is not None and value < 0:
        raise f.fail("empty_region_ns", f"is {value}; a duration cannot be negative")
    return value


def _pingpong_pair(f: Fields | None) -> PingpongPair | None:
    p = None if f is None else f.obj("pingpong_pair")
    if p is None:
        return None
    return PingpongPair(p.items("ranks", NAT), p.get("chosen_by", STR),
                        tuple(PairSample(s.items("ranks", NAT), s.get("median_rtt_ns", NUM))
                              for s in p.objs("samples")))


def _mpi(f: Fields | None) -> Mpi:
    if f is None:
        return Mpi()
    t = f.obj("mpi_t")
    mpi_t = None if t is None else MpiT(t.get("cvars", NAT), t.get("digest", STR), _frozen(t.mapping("selected", STR)))
    return Mpi(f.get("library", STR, "unknown"), f.get("version", STR), f.get("library_version", STR),
               f.get("library_version_full", STR), mpi_t)


def _operations(f: Fields | None) -> Mapping[str, Operation]:
    if f is None:
        return _EMPTY
    ops = {}
    for name in f.value:
        o = f.obj(name)
        if o is None:
            continue
        # read in the order of the fields: the first bad key is the one reported
        kind, apart = o.get("kind", STR), o.get("ranks_finish_apart", BOOL, False)
        size_unit = o.get("size_unit", STR, "bytes", choices=("bytes", "ns"))
        round_trip = o.get("round_trip", BOOL, False)
        bound_formula, bound_bytes_per_size = read_bound_volume(o)
        ops[name] = Operation(kind=kind, ranks_finish_apart=apart, size_unit=size_unit, round_trip=round_trip,
                              bound_formula=bound_formula, bound_bytes_per_size=bound_bytes_per_size,
                              mockup_of=o.get("mockup_of", STR), uses_pair=o.get("uses_pair", BOOL))
    return _frozen(ops)


def _build(f: Fields | None) -> Build:
    if f is None:
        return Build()
    return Build(f.get("compiler", STR), f.get("flags", STR), f.get("mpicc", STR))


def _system(f: Fields | None) -> System:
    if f is None:
        return System()
    return System(f.get("kernel", STR), f.get("cpu_model", STR), f.items("tsc_flags", STR), f.get("governor", STR),
                  f.get("ncpus", NAT))


def _load(f: Fields | None) -> Load:
    if f is None:
        return Load()
    return Load(f.items_or_none("loadavg_start", NUM), f.items_or_none("loadavg_end", NUM), f.get("other_cpu_s", NUM), f.get("own_cpu_s", NUM), f.get("wall_s", NUM))


def _conditions(f: Fields, version: int) -> tuple[Condition, ...]:
    if version >= 2:
        return tuple(Condition(c.need("code", STR, choices=CONDITION_CODES), c.need("message", STR), c.get("hint", STR, ""), c.get("where", STR))
                     for c in f.objs("conditions"))
    cs = f.obj("clock_sync")
    verdict = None if cs is None else cs.get("warning", STR)  # superseded by the analysis's own judgement
    return tuple(Condition("bench-warning", text, "see the launch's meta.json", None)
                 for text in f.items("warnings", STR) if text != verdict)
