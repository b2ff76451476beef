# SPDX-License-Identifier: BSD-3-Clause
"""campaign.json: the record of a campaign (docs/FORMAT.md), read, updated and written atomically.

The file is rewritten (temporary file, fsync, rename) after every launch and before each one
starts, so that whatever stops `mpimeter run` - a Ctrl-C, a SIGKILL, a power cut - the file on
disk is always a complete, parseable record. A launch is marked `incomplete` the moment it
starts; it becomes `complete` or `failed` when it ends.

Read back (`--resume`) by its one reader (mpimeter.io.campaign_record), the file is untrusted
input: every value is checked for its type and bounds (campaign.limits), every path must be the
one the layout prescribes for its launch (`[<alternative>/]launches/NNN`, never `..` or an
absolute path), every alternative a usable name; anything else is refused with a message naming
the key (CampaignFileError). Values of secret variables (campaign.secrets) are never written.
Each launch's entry, its layout and its reading back are campaign.launch_record's; the typed
access to the parsed file that both use is campaign.record_reader's.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mpimeter import SCHEMA_VERSION, __version__
from mpimeter.atomic import write_atomic
from mpimeter.campaign import adaptive as _adaptive
from mpimeter.campaign import algorithms as _algorithms
from mpimeter.campaign import inputfiles as _inputfiles
from mpimeter.campaign import pilot as _pilot
from mpimeter.campaign import suite as _suite
from mpimeter.campaign import limits, nplist, secrets, simulation, testretry
from mpimeter.campaign.benchargs import BenchArgs
from mpimeter.campaign.launch_record import LAUNCH_STATUSES, LaunchRecord, read_launches
from mpimeter.campaign.plan import ENV_KEY, Alternative, PlanError, check_name
from mpimeter.campaign.record_reader import CampaignFileError, RecordReader, found
from mpimeter.errors import MpimeterError
from mpimeter.io import campaign_record, slurm
from mpimeter.io.errors import InputError

CAMPAIGN_FILE = campaign_record.FILE_NAME
CAMPAIGN_STATUSES = ("pending", "running", "interrupted", "complete", "failed", "refused")
# Options the campaign sets per launch; bench_args may not hold them. --order: a campaign's
# launches are always shuffled (each by its seed), so that drifts do not line up with sizes.
RESERVED_BENCH_FLAGS = ("--out", "--seed", "--force", "--order")


class CampaignWriteError(MpimeterError):
    """campaign.json could not be written (read-only or full file system, a value not finite)."""


@dataclass(kw_only=True)
class CampaignState:
    command: str
    bench_args: BenchArgs  # typed once: read from the user (campaign.spec) or from this file
    launcher: str
    np: int
    launches_per_alternative: int
    seed: int
    alternatives: list[Alternative]
    launch_templates: dict[str, str]  # alternative -> template with {np} and {cmd}
    bench_binaries: dict[str, str]  # alternative -> absolute path of mpimeter-bench
    launch_timeout_s: float
    launches: list[LaunchRecord]
    status: str = "pending"  # pending | running | interrupted | complete | failed | refused
    created: str = ""
    updated: str = ""
    notes: list[str] = field(default_factory=list)
    history: list[dict] = field(default_factory=list)  # every attempt, in the order run
    sessions: list[dict] = field(default_factory=list)  # every `mpimeter run` on this folder
    # --launches auto: the rule and every pair's state (launches_per_alternative is its max)
    adaptive: _adaptive.AdaptiveLaunches | None = None
    sizes_pilot: _pilot.SizesPilot | None = None  # --sizes auto: the launch that decides the sizes (pilot.py)
    schema_version: int = SCHEMA_VERSION
    tool: dict = field(default_factory=lambda: {"name": "mpimeter", "version": __version__})
    # what identifies the campaign wherever its folder goes (the results store's key): drawn
    # when the campaign is created, kept by --resume; a file without one gets one when resumed
    campaign_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    # --np LIST: the process counts, in the order given (campaign.nplist); empty: [np]. Launch
    # `index` of an alternative runs at plan.launch_np(np_list, index); np is the largest.
    np_list: list[int] = field(default_factory=list)
    # the files the launches read (campaign.inputfiles): option -> {"path", "fnv1a64"}
    input_files: dict[str, dict[str, str]] = field(default_factory=dict)
    # what it redacts by (campaign.secrets): the secret words of the binaries of the bench dir
    # it runs from, recorded so that --resume redacts by them too; empty: none could say (every
    # value redacted); None: not known (the default bench dir's)
    secret_words: tuple[str, ...] | None = None
    # whether `mpimeter run` analyzes the campaign once complete (--analyze/--no-analyze of the
    # run that made it; --resume does the same unless told); None: a file from before (analyze)
    analyze_after: bool | None = None
    # campaign.testretry: the tests that crashed or hung a launch; --test-timeout (None: the launch's)
    failed_tests: list[testretry.FailedTest] = field(default_factory=list)
    test_timeout_s: float | None = None
    suite: dict | None = None  # `run --suite`: the suite's record (campaign.suite.Suite.record)
    simulation: dict | None = None  # `run --mpi smpi`: platform, sha256, SimGrid (campaign.simulation)
    # bench_args' --launch-budget-s is the tool's, derived from the launch timeout
    # (limits.budget_within_timeout), not the user's: --resume derives it again from its timeout
    launch_budget_derived: bool = False

    @property
    def process_counts(self) -> list[int]:
        return list(self.np_list) or [self.np]

    @property
    def launches_per_alternative_planned(self) -> int:
        """Launches per alternative over every process count."""
        return self.launches_per_alternative * len(self.process_counts)

    def np_of(self, rec: LaunchRecord) -> int:
        """The ranks of one launch: its own under --np LIST, else the campaign's np."""
        return rec.np if self.np_list and rec.np is not None else self.np

    def launch(self, alternative: str, index: int) -> LaunchRecord:
        for rec in self.launches:
            if rec.alternative == alternative and rec.index == index:
                return rec
        raise KeyError((alternative, index))

    def alternative(self, name: str) -> Alternative:
        for alt in self.alternatives:
            if alt.name == name:
                return alt
        raise KeyError(name)

    def counts(self) -> dict[str, int]:
        counts = {s: 0 for s in LAUNCH_STATUSES}
        for rec in self.launches:
            counts[rec.status] = counts.get(rec.status, 0) + 1
        return counts

    def to_json(self) -> dict:
        """The record as written: secret values redacted (campaign.secrets)."""
        words = self.secret_words
        launches = []
        for rec in self.launches:
            obj = asdict(rec)
            obj["argv"] = secrets.redact_argv(rec.argv, words)
            obj["stderr_tail"] = secrets.redact_text(rec.stderr_tail, words)
            for attempt in obj["previous_attempts"]:
                attempt["stderr_tail"] = secrets.redact_text(attempt["stderr_tail"], words)
            launches.append(obj)
        return {
            "schema_version": self.schema_version,
            "id": self.campaign_id,
            "tool": self.tool,
            "status": self.status,
            "command": secrets.redact_text(self.command, words),
            "bench_args": secrets.redact_argv(self.bench_args.argv(), words),
            "input_files": self.input_files,
            "launcher": secrets.redact_text(self.launcher, words),
            "secret_words": list(words) if words is not None else None,
            "analyze_after": self.analyze_after,
            "suite": self.suite,
            "simulation": self.simulation,
            "np": self.np,
            "np_list": self.process_counts,
            "launches_per_alternative": self.launches_per_alternative,
            "seed": self.seed,
            "launch_timeout_s": self.launch_timeout_s,
            "test_timeout_s": self.test_timeout_s,
            "launch_budget_derived": self.launch_budget_derived,
            "failed_tests": [asdict(f) for f in self.failed_tests],
            "alternatives": [
                {**alt.to_json(), "env": secrets.redact_env(alt.env, words),
                 "launch_template": secrets.redact_text(self.launch_templates[alt.name], words),
                 "bench": self.bench_binaries[alt.name]}
                for alt in self.alternatives
            ],
            "created": self.created,
            "updated": self.updated,
            "counts": self.counts(),
            "notes": self.notes,
            "launches": launches,
            "history": self.history,
            "sessions": [{**s, "argv": secrets.redact_argv(s.get("argv") or [], words)}
                         for s in self.sessions],
            "adaptive_launches": self.adaptive.to_json() if self.adaptive is not None else None,
            "sizes_pilot": self.sizes_pilot.to_json() if self.sizes_pilot is not None else None,
        }

    @classmethod
    def from_json(cls, obj: dict, source: Path) -> CampaignState:
        """Every key checked (type, bounds, layout); CampaignFileError names the first bad one."""
        r = RecordReader(source)
        version = obj.get("schema_version")
        if version != SCHEMA_VERSION or isinstance(version, bool):
            raise CampaignFileError(f"{source}: schema_version {version!r} is not one this "
                                    f"mpimeter reads (it reads {SCHEMA_VERSION})")
        try:
            alternatives, templates, binaries = _read_alternatives(r, obj)
            np = limits.check_np(r.get(obj, "np", "integer"), flag="np")
            np_list = _read_np_list(r, obj, np)
            per_alt = limits.check_launches(r.get(obj, "launches_per_alternative", "integer"),
                                            len(alternatives), flag="launches_per_alternative")
            seed = limits.check_seed(r.get(obj, "seed", "integer"), flag="seed")
            timeout = limits.check_launch_timeout(r.get(obj, "launch_timeout_s", "number"),
                                                  flag="launch_timeout_s")
        except PlanError as exc:
            raise CampaignFileError(f"{source}: {exc}") from None
        bench_args = BenchArgs.parse([r.check(a, f"bench_args[{i}]", "string")
                                      for i, a in enumerate(r.get(obj, "bench_args", "list"))])
        reserved = [o.argv()[0] for o in bench_args.options if o.flag in RESERVED_BENCH_FLAGS]
        if reserved:
            r.fail("bench_args", f"{reserved[0]!r} is set by the campaign for each launch "
                   f"({', '.join(RESERVED_BENCH_FLAGS)} may not be bench_args)")
        status = r.get(obj, "status", "string", optional=True, default="pending")
        if status not in CAMPAIGN_STATUSES:
            r.fail("status", f"{status!r} is not one of {', '.join(CAMPAIGN_STATUSES)}")
        adaptive = _adaptive.read(obj.get("adaptive_launches"), r.fail, [a.name for a in alternatives])
        if adaptive is not None and adaptive.max != per_alt:
            r.fail("adaptive_launches.max", f"{adaptive.max} is not launches_per_alternative {per_alt}")
        if adaptive is not None and len(np_list) > 1:
            r.fail("np_list", "several process counts do not go with --launches auto (adaptive_launches)")
        launches = read_launches(r, obj, alternatives, per_alt, adaptive=adaptive is not None,
                                 np_list=np_list)
        sizes_pilot = _pilot.read(obj.get("sizes_pilot"), r.fail)
        for i, rec in enumerate(launches):
            if rec.tests is not None and sizes_pilot is not None and rec.tests == sizes_pilot.tests():
                continue  # --sizes auto: the sizes the pilot decided
            if rec.tests is not None and rec.piece is not None and set(rec.tests["ops"]) <= set(bench_args.ops):
                continue  # the tests a launch cut by a crashing or hanging test left (testretry)
            if rec.tests is not None and (adaptive is None or not set(rec.tests["ops"]) <= set(bench_args.ops)):
                r.fail(f"launches[{i}].tests", "a subset of the campaign's --ops is run only under "
                       "--launches auto (adaptive_launches)")
        return cls(
            command=r.get(obj, "command", "string"), bench_args=bench_args,
            launcher=r.get(obj, "launcher", "string"), np=np, launches_per_alternative=per_alt,
            seed=seed, alternatives=alternatives, launch_templates=templates,
            bench_binaries=binaries, launch_timeout_s=timeout, launches=launches, status=status,
            created=r.get(obj, "created", "string", optional=True, default=""),
            updated=r.get(obj, "updated", "string", optional=True, default=""),
            notes=[r.check(n, f"notes[{i}]", "string")
                   for i, n in enumerate(r.get(obj, "notes", "list", optional=True, default=[]))],
            history=r.objects(obj, "history"), sessions=_read_sessions(r, obj),
            tool=r.get(obj, "tool", "object", optional=True, default={}), adaptive=adaptive,
            sizes_pilot=sizes_pilot, np_list=np_list if len(np_list) > 1 else [], **_read_id(r, obj),
            input_files=_inputfiles.read(obj.get("input_files"), bench_args, r.fail),
            secret_words=secrets.read_words(obj.get("secret_words"), r.fail),
            analyze_after=_read_flag(r, obj, "analyze_after"),
            launch_budget_derived=bool(_read_flag(r, obj, "launch_budget_derived")), suite=_suite.read_recorded(obj.get("suite"), r.fail),
            failed_tests=testretry.read_failed_tests(obj.get("failed_tests"), r.fail, [a.name for a in alternatives]),
            test_timeout_s=testretry.read_test_timeout(obj.get("test_timeout_s"), r.fail),
            simulation=simulation.read(obj.get("simulation"), r.fail),
        )


def _read_flag(r: RecordReader, obj: dict, key: str) -> bool | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, bool):
        r.fail(key, f"expected true, false or null, found {found(value)}")
    return value


# --- reading untrusted JSON -----------------------------------------------------------------------

_ID = re.compile(r"[0-9a-f]{32}")


def _read_id(r: RecordReader, obj: dict) -> dict:
    """``id`` when the file has one (32 hex digits, as written); none: a new one is drawn."""
    value = r.get(obj, "id", "string", optional=True, default=None)
    if value is None:
        return {}
    if not _ID.fullmatch(value):
        r.fail("id", f"{value[:40]!r} is not 32 hex digits")
    return {"campaign_id": value}


def _read_alternatives(r: RecordReader, obj: dict):
    alternatives, templates, binaries = [], {}, {}
    for i, raw in enumerate(r.get(obj, "alternatives", "list")):
        where = f"alternatives[{i}]"
        raw = r.check(raw, where, "object")
        try:
            name = check_name(r.get(raw, "name", "string", where=where), "alternative")
            mpi = check_name(r.get(raw, "mpi", "string", where=where), "library")
        except PlanError as exc:
            r.fail(where, str(exc))
        env = r.get(raw, "env", "object", where=where, optional=True, default={})
        for key, value in env.items():
            if not ENV_KEY.match(key):
                r.fail(f"{where}.env", f"{key!r} is not a variable name")
            r.check(value, f"{where}.env.{key}", "string")
        if name in templates:
            r.fail(where, f"alternative {name!r} is listed twice")
        algorithms = _algorithms.check_record(raw.get("algorithms"), env, r.fail, f"{where}.algorithms")
        alternatives.append(Alternative(name, mpi, dict(env), algorithms=algorithms))
        templates[name] = r.get(raw, "launch_template", "string", where=where)
        binaries[name] = r.get(raw, "bench", "string", where=where)
    if not alternatives:
        r.fail("alternatives", "empty")
    return alternatives, templates, binaries


def _read_sessions(r: RecordReader, obj: dict) -> list[dict]:
    sessions = r.objects(obj, "sessions")
    for i, session in enumerate(sessions):
        where = f"sessions[{i}]"
        for arg in r.get(session, "argv", "list", where=where, optional=True, default=[]):
            r.check(arg, f"{where}.argv", "string")
        allocation = r.get(session, "slurm", "object", where=where, optional=True)
        if allocation is not None:  # written back as read: only known keys, string values
            r.only(allocation, f"{where}.slurm", set(slurm.ALLOCATION_VARS))
            for key, value in allocation.items():
                r.check(value, f"{where}.slurm.{key}", "string")
            r.get(allocation, "job_id", "string", where=f"{where}.slurm")
    return sessions


def _read_np_list(r: RecordReader, obj: dict, np: int) -> list[int]:
    """``np_list`` (absent in a campaign.json written before --np LIST: [np]); its values
    distinct, each a valid np, the largest being np."""
    raw = r.get(obj, "np_list", "list", optional=True, default=None)
    if raw is None:
        return [np]
    values = [r.check(v, f"np_list[{i}]", "integer") for i, v in enumerate(raw)]
    try:
        values = nplist.parse(values, flag="np_list")
        for v in values:
            limits.check_np(v, flag="np_list")
    except PlanError as exc:
        r.fail("np_list", str(exc))
    if max(values) != np:
        r.fail("np_list", f"its largest value {max(values)} is not np {np}")
    return values


# --- the file -----------------------------------------------------------------------------------

def now_utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def load(campaign_dir: Path) -> CampaignState:
    """campaign.json of ``campaign_dir`` for ``--resume``: read by its one reader
    (mpimeter.io.campaign_record.read_document: a regular file, bounded, UTF-8, finite numbers,
    an object, at most MAX_DEPTH levels, since it is written back and json.dumps recurses per
    level), then typed, every value checked against what a campaign may run
    (CampaignState.from_json)."""
    path = Path(campaign_dir) / CAMPAIGN_FILE
    if not path.exists() and not path.is_symlink():
        raise CampaignFileError(f"{path}: no such file (is {campaign_dir} a folder written by "
                                "`mpimeter run`?)")
    try:
        obj = campaign_record.read_document(path, max_depth=MAX_DEPTH)
    except InputError as exc:
        raise CampaignFileError(str(exc)) from None
    return CampaignState.from_json(obj, path)


MAX_DEPTH = 32  # campaign.json nests 5 levels deep


def save(state: CampaignState, campaign_dir: Path) -> None:
    """Atomic rewrite: readers see the old file or the new one, never a mix. CampaignWriteError
    when it cannot be written (no temporary file is left)."""
    state.updated = now_utc()
    campaign_dir = Path(campaign_dir)
    target = campaign_dir / CAMPAIGN_FILE
    try:
        text = json.dumps(state.to_json(), indent=1, allow_nan=False) + "\n"
    except ValueError as exc:
        raise CampaignWriteError(f"cannot write {target}: a value is not a finite number "
                                 f"({exc})") from None
    try:
        write_atomic(target, text.encode(), durable=True)
    except OSError as exc:
        raise CampaignWriteError(f"cannot write {target}: {exc.strerror or exc}") from None


def session_record(argv: list[str], resumed: bool, environ: Mapping[str, str] | None = None) -> dict:
    """One `mpimeter run` on the folder; inside a Slurm job also the allocation (io.slurm)."""
    record = {"started": now_utc(), "ended": None, "host": socket.gethostname(),
              "pid": os.getpid(), "argv": list(argv), "resumed": resumed, "outcome": "running"}
    allocation = slurm.allocation(os.environ if environ is None else environ)
    if allocation is not None:
        record["slurm"] = allocation
    return record
