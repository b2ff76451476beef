# SPDX-License-Identifier: BSD-3-Clause
"""One launch's entry of campaign.json (docs/FORMAT.md): its record and its earlier attempts, the
folder the campaign layout gives it (`[<alternative>/]launches/NNN`), and its reading back as
untrusted input: every path must be the one the layout prescribes for its launch (its folder, its
logs, its attempts' folders; never `..` or an absolute path), every number within its bounds
(campaign.limits); anything else is refused with a message naming the key (CampaignFileError).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mpimeter.campaign import adaptive as _adaptive
from mpimeter.campaign import limits, oversub, testretry
from mpimeter.campaign.plan import Alternative, PlanError
from mpimeter.campaign.record_reader import CampaignFileError, RecordReader

LAUNCH_STATUSES = ("complete", "failed", "incomplete", "pending", "cut")
# cut: ended by a test that crashed or hung; its other tests went to pieces (campaign.testretry)
DONE_STATUSES = ("complete", "cut")


def alternative_prefix(alternatives: list[Alternative], name: str) -> str:
    """Folder of an alternative inside the campaign (docs/FORMAT.md): a campaign of one
    alternative keeps `launches/` at its top; several alternatives get one sub-campaign each."""
    return "" if len(alternatives) == 1 else f"{name}/"


def launch_folder(alternatives: list[Alternative], name: str, index: int) -> str:
    return f"{alternative_prefix(alternatives, name)}launches/{index:03d}"


@dataclass(kw_only=True)
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


@dataclass(kw_only=True)
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
    # the running attempt's processes: launch_id, host, boot_id, then pid, session, start_ticks
    process: dict | None = None
    slurm_job: str | None = None  # the Slurm job id of the attempt's session, inside Slurm
    # --launches auto: the subset of tests this launch runs, {"ops": [...], "sizes": [...]}
    # (its --ops and --sizes); None: the campaign's bench arguments as they are
    tests: dict | None = None
    # --launcher local with more ranks than cores: what the launcher set for the library's
    # yield-when-idle mode (campaign.oversub.settings); None when the ranks fit the cores
    oversubscription: dict | None = None
    # ranks of this launch (--np LIST: one of the campaign's np_list); None in a campaign.json
    # written before process counts were per launch: the campaign's np
    np: int | None = None
    # campaign.testretry: the launch this one continues ({"of", "kind"}), and the test it died in
    piece: dict | None = None
    cut: dict | None = None

    @property
    def key(self) -> tuple[str, int]:
        return (self.alternative, self.index)


_OPTIONAL_STRINGS = ("started", "ended", "stdout_log", "stderr_log", "slurm_job")


def read_launches(r: RecordReader, obj: dict, alternatives: list[Alternative], per_alt: int, *,
                  adaptive: bool = False, np_list: list[int] | None = None) -> list[LaunchRecord]:
    """campaign.json's ``launches``, each checked against the campaign's alternatives, launches
    per alternative and process counts; every planned launch has its record, none twice."""
    np_list = np_list or []
    counts = max(1, len(np_list))
    names = [a.name for a in alternatives]
    records: list[LaunchRecord] = []
    seen: set[tuple[str, int]] = set()
    for i, raw in enumerate(r.get(obj, "launches", "list")):
        where = f"launches[{i}]"
        raw = r.check(raw, where, "object")
        r.only(raw, where, set(LaunchRecord.__dataclass_fields__))
        alt = r.get(raw, "alternative", "string", where=where)
        if alt not in names:
            r.fail(where, f"unknown alternative {alt!r} (campaign.json lists {', '.join(names)})")
        index = r.get(raw, "index", "integer", where=where)
        piece = testretry.read_piece(raw.get("piece"), r.fail, f"{where}.piece")
        if not 0 <= index < per_alt * counts + (limits.MAX_ATTEMPTS if piece else 0):
            r.fail(f"{where}.index", f"{index} is not below launches_per_alternative {per_alt}"
                   + (f" × {counts} process counts" if counts > 1 else ""))
        launch_ranks = r.get(raw, "np", "integer", where=where, optional=True)
        if launch_ranks is not None and launch_ranks != (launch_ranks if piece and launch_ranks in np_list
                                                         else np_list[index % counts]):
            r.fail(f"{where}.np", f"{launch_ranks} is not {np_list[index % counts]}, the process "
                   "count np_list gives this launch")
        if (alt, index) in seen:
            r.fail(where, f"{alt} #{index:03d} is listed twice")
        seen.add((alt, index))
        prefix = alternative_prefix(alternatives, alt)
        expected = launch_folder(alternatives, alt, index)
        if r.get(raw, "folder", "string", where=where) != expected:
            r.fail(f"{where}.folder", f"{raw['folder']!r} is not {expected!r}, the folder the "
                   "campaign layout gives this launch")
        status = r.get(raw, "status", "string", where=where)
        if status not in LAUNCH_STATUSES:
            r.fail(f"{where}.status", f"{status!r} is not one of {', '.join(LAUNCH_STATUSES)}")
        fields = {k: r.get(raw, k, "string", where=where, optional=True) for k in _OPTIONAL_STRINGS}
        for key, suffix in (("stdout_log", "stdout"), ("stderr_log", "stderr")):
            pattern = re.escape(prefix) + rf"logs/{index:03d}\.[1-9][0-9]*\.{suffix}"
            if fields[key] is not None and not re.fullmatch(pattern, fields[key]):
                r.fail(f"{where}.{key}",
                       f"{fields[key]!r} is not {prefix}logs/{index:03d}.K.{suffix}")
        attempts = r.get(raw, "attempts", "integer", where=where, optional=True, default=0)
        if not 0 <= attempts <= limits.MAX_ATTEMPTS:
            r.fail(f"{where}.attempts", f"{attempts} is not between 0 and {limits.MAX_ATTEMPTS}")
        records.append(LaunchRecord(
            alternative=alt, index=index, folder=expected, seed=_seed(r, raw, where),
            status=status, attempts=attempts, retries=max(0, attempts - 1),
            exit_code=r.get(raw, "exit_code", "integer", where=where, optional=True),
            duration_s=r.get(raw, "duration_s", "number", where=where, optional=True),
            reason=r.get(raw, "reason", "string", where=where, optional=True, default=""),
            stderr_tail=r.get(raw, "stderr_tail", "string", where=where, optional=True, default=""),
            argv=[r.check(a, f"{where}.argv", "string")
                  for a in r.get(raw, "argv", "list", where=where, optional=True, default=[])],
            previous_attempts=_read_attempts(r, raw, where, prefix, index),
            process=_read_process(r, raw, where),
            oversubscription=oversub.check_record(raw.get("oversubscription"), r.fail, f"{where}.oversubscription"),
            tests=_adaptive.read_tests(raw.get("tests"), r.fail, f"{where}.tests"), np=launch_ranks,
            piece=piece, cut=testretry.read_cut(raw.get("cut"), r.fail, f"{where}.cut"), **fields))
    # --launches auto plans launches as the rule asks for them: per alternative 0 ... k-1, k at most
    # launches_per_alternative (its max); otherwise every launch is planned from the start
    planned = {a: (1 + max((rec.index for rec in records if rec.alternative == a and rec.piece is None),
                           default=-1)) if adaptive else per_alt * counts for a in names}
    missing = [(a, n) for a in names for n in range(planned[a]) if (a, n) not in seen]
    if missing:
        r.fail("launches", f"no record of {missing[0][0]} #{missing[0][1]:03d} "
                           f"({per_alt} launches per alternative)")
    return records


def _seed(r: RecordReader, raw: dict, where: str) -> int:
    try:
        return limits.check_seed(r.get(raw, "seed", "integer", where=where), flag=f"{where}.seed")
    except PlanError as exc:
        raise CampaignFileError(f"{r.source}: {exc}") from None


def _read_attempts(r: RecordReader, raw: dict, where: str, prefix: str, index: int) -> list[Attempt]:
    attempts = []
    pattern = re.escape(prefix) + rf"attempts/{index:03d}\.[1-9][0-9]*(-[1-9][0-9]*)?"
    known = set(Attempt.__dataclass_fields__)
    items = r.get(raw, "previous_attempts", "list", where=where, optional=True, default=[])
    for k, item in enumerate(items):
        place = f"{where}.previous_attempts[{k}]"
        item = r.check(item, place, "object")
        r.only(item, place, known)
        folder = r.get(item, "folder", "string", where=place, optional=True)
        if folder is not None and not re.fullmatch(pattern, folder):
            r.fail(f"{place}.folder", f"{folder!r} is not {prefix}attempts/{index:03d}.K")
        attempts.append(Attempt(
            attempt=r.get(item, "attempt", "integer", where=place),
            status=r.get(item, "status", "string", where=place),
            reason=r.get(item, "reason", "string", where=place, optional=True, default=""),
            exit_code=r.get(item, "exit_code", "integer", where=place, optional=True),
            duration_s=r.get(item, "duration_s", "number", where=place, optional=True),
            started=r.get(item, "started", "string", where=place, optional=True),
            folder=folder,
            stderr_tail=r.get(item, "stderr_tail", "string", where=place, optional=True,
                              default="")))
    return attempts


_PROCESS_KEYS = {"launch_id": "string", "host": "string", "boot_id": "string",
                 "pid": "integer", "session": "integer", "start_ticks": "integer"}


def _read_process(r: RecordReader, raw: dict, where: str) -> dict | None:
    process = r.get(raw, "process", "object", where=where, optional=True)
    if process is None:
        return None
    place = f"{where}.process"
    r.only(process, place, set(_PROCESS_KEYS))
    r.get(process, "launch_id", "string", where=place)  # required: it finds the processes
    return {k: r.get(process, k, kind, where=place) for k, kind in _PROCESS_KEYS.items()
            if k in process}

