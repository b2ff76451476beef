"""campaign.json: the record of a campaign (docs/FORMAT.md), read, updated and written atomically.

The file is rewritten (temporary file, fsync, rename) after every launch and before each one
starts, so that whatever stops `mpimeter run` - a Ctrl-C, a SIGKILL, a power cut - the file on
disk is always a complete, parseable record. A launch is marked `incomplete` the moment it
starts; it becomes `complete` or `failed` when it ends.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mpimeter import SCHEMA_VERSION, __version__
from mpimeter.campaign.plan import Alternative

CAMPAIGN_FILE = "campaign.json"
LAUNCH_STATUSES = ("complete", "failed", "incomplete", "pending")


class CampaignFileError(ValueError):
    """campaign.json is missing, does not parse, or has a version we do not know."""


@dataclass
class Attempt:
    """One earlier attempt of a launch that did not complete, and where its folder went."""

    attempt: int
    status: str
    reason: str
    exit_code: int | None
    duration_s: float | None
    started: str | None
    folder: str | None  # campaign-relative; None when the attempt wrote no folder
    stderr_tail: str = ""


@dataclass
class LaunchRecord:
    alternative: str
    index: int
    folder: str  # campaign-relative: [<alternative>/]launches/NNN
    seed: int
    status: str = "pending"
    exit_code: int | None = None
    duration_s: float | None = None
    retries: int = 0  # attempts after the first
    attempts: int = 0  # attempts started, this one included
    reason: str = ""  # why it is not complete: "exit code 1", "timed out after 180 s", ...
    stderr_tail: str = ""
    started: str | None = None
    ended: str | None = None
    argv: list[str] = field(default_factory=list)
    stdout_log: str | None = None
    stderr_log: str | None = None
    previous_attempts: list[Attempt] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, int]:
        return (self.alternative, self.index)


@dataclass
class CampaignState:
    command: str
    bench_args: list[str]
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
    schema_version: int = SCHEMA_VERSION
    tool: dict = field(default_factory=lambda: {"name": "mpimeter", "version": __version__})

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
        obj = {
            "schema_version": self.schema_version,
            "tool": self.tool,
            "status": self.status,
            "command": self.command,
            "bench_args": self.bench_args,
            "launcher": self.launcher,
            "np": self.np,
            "launches_per_alternative": self.launches_per_alternative,
            "seed": self.seed,
            "launch_timeout_s": self.launch_timeout_s,
            "alternatives": [
                {**alt.to_json(), "launch_template": self.launch_templates[alt.name],
                 "bench": self.bench_binaries[alt.name]}
                for alt in self.alternatives
            ],
            "created": self.created,
            "updated": self.updated,
            "counts": self.counts(),
            "notes": self.notes,
            "launches": [asdict(rec) for rec in self.launches],
            "history": self.history,
            "sessions": self.sessions,
        }
        return obj

    @classmethod
    def from_json(cls, obj: dict, source: Path) -> CampaignState:
        version = obj.get("schema_version")
        if version != SCHEMA_VERSION:
            raise CampaignFileError(f"{source}: schema_version {version!r} is not one this "
                                    f"mpimeter reads (it reads {SCHEMA_VERSION})")
        try:
            alternatives = [Alternative.from_json(a) for a in obj["alternatives"]]
            launches = []
            for raw in obj["launches"]:
                raw = dict(raw)
                previous = [Attempt(**a) for a in raw.pop("previous_attempts", [])]
                launches.append(LaunchRecord(**raw, previous_attempts=previous))
            return cls(
                command=obj["command"], bench_args=list(obj["bench_args"]),
                launcher=obj["launcher"], np=int(obj["np"]),
                launches_per_alternative=int(obj["launches_per_alternative"]),
                seed=int(obj["seed"]), alternatives=alternatives,
                launch_templates={a["name"]: a["launch_template"] for a in obj["alternatives"]},
                bench_binaries={a["name"]: a["bench"] for a in obj["alternatives"]},
                launch_timeout_s=float(obj["launch_timeout_s"]), launches=launches,
                status=obj.get("status", "pending"), created=obj.get("created", ""),
                updated=obj.get("updated", ""), notes=list(obj.get("notes", [])),
                history=list(obj.get("history", [])), sessions=list(obj.get("sessions", [])),
                tool=obj.get("tool", {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CampaignFileError(f"{source}: not a campaign record this mpimeter can resume "
                                    f"({type(exc).__name__}: {exc})") from None


def now_utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def load(campaign_dir: Path) -> CampaignState:
    path = Path(campaign_dir) / CAMPAIGN_FILE
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise CampaignFileError(f"{path}: no such file (is {campaign_dir} a folder written by "
                                "`mpimeter run`?)") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CampaignFileError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise CampaignFileError(f"{path}: expected a JSON object")
    return CampaignState.from_json(obj, path)


def save(state: CampaignState, campaign_dir: Path) -> None:
    """Atomic rewrite: readers see the old file or the new one, never a mix."""
    state.updated = now_utc()
    campaign_dir = Path(campaign_dir)
    text = json.dumps(state.to_json(), indent=1) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".campaign.", suffix=".tmp", dir=campaign_dir)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, campaign_dir / CAMPAIGN_FILE)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(campaign_dir, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def session_record(argv: list[str], resumed: bool) -> dict:
    return {"started": now_utc(), "ended": None, "host": socket.gethostname(), "pid": os.getpid(),
            "argv": list(argv), "resumed": resumed, "outcome": "running"}
