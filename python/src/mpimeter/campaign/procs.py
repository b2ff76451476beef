# SPDX-License-Identifier: BSD-3-Clause
"""The processes of a launch, from /proc: who they are, whether they still run, stopping them.

A process is named by (pid, start time): a pid alone may have been reused by the time we look.
Each launch runs with MPIMETER_LAUNCH_ID=<random id>@<campaign folder's device:inode> in its
environment, which every process it starts inherits (mpirun's local ranks too); campaign.json
records the random id, the launch's session and its start time (`process`, docs/FORMAT.md). A
launch that outlived the `mpimeter run` that started it is found again by that marker: only
processes that carry it are ever stopped, so neither a reused pid nor a forged campaign.json (a
copy elsewhere names another folder) can make `--resume` stop anything but a launch of this
campaign.
"""

from __future__ import annotations

import os
import signal
import socket
import time
import uuid
from pathlib import Path

LAUNCH_ID_VAR = "MPIMETER_LAUNCH_ID"
_ENVIRON_LIMIT = 1 << 20

Target = tuple[int, str]  # (pid, start time in clock ticks since boot, as /proc says it)


def new_launch_id() -> str:
    return uuid.uuid4().hex


def marker(launch_id: str, campaign_dir: Path) -> str:
    """The value of LAUNCH_ID_VAR for a launch of the campaign in `campaign_dir`."""
    st = os.stat(campaign_dir)
    return f"{launch_id}@{st.st_dev}:{st.st_ino}"


def boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return ""


def where() -> dict:
    """This machine and boot: a recorded process is looked for only where it ran."""
    return {"host": socket.gethostname(), "boot_id": boot_id()}


def identity(pid: int) -> dict:
    """What campaign.json records of a launch's first process as it starts."""
    stat = _stat(pid)
    return {"pid": pid, "session": int(stat[3]) if stat else pid,
            "start_ticks": int(stat[19]) if stat else 0, **where()}


def scan() -> list[tuple[int, str, int, int]]:
    """(pid, start time, session id, parent pid) of every process, from /proc."""
    rows = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat = _stat(int(entry))
        if stat:
            rows.append((int(entry), stat[19], int(stat[3]), int(stat[1])))
    return rows


def _stat(pid: int) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name: [state, ppid, pgrp, session, ...];
    index 19 is the start time (field 22 of proc(5))."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode(errors="replace")
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2:].split()
    return fields if len(fields) > 19 else None


def alive(target: Target) -> bool:
    stat = _stat(target[0])
    return stat is not None and stat[19] == target[1] and stat[0] != "Z"


def signal_all(targets: set[Target], sig: int) -> None:
    for target in targets:
        if alive(target):  # the same process, not a reused pid
            try:
                os.kill(target[0], sig)
            except (ProcessLookupError, PermissionError):
                pass


def _carries(pid: int, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return marker in f.read(_ENVIRON_LIMIT).split(b"\0")
    except OSError:
        return False


def launch_processes(process: dict, value: str) -> set[Target]:
    """The live processes of a recorded launch: those carrying its marker `value`, and the other
    members of its session when its first process (pid and start time as recorded) still runs
    and carries the marker itself (a rank may have wiped its environment)."""
    entry = f"{LAUNCH_ID_VAR}={value}".encode()
    table = scan()
    found = {(pid, start) for pid, start, _, _ in table if _carries(pid, entry)}
    first = (process.get("pid"), str(process.get("start_ticks")))
    if first in found:
        found |= {(pid, start) for pid, start, sid, _ in table if sid == process.get("session")}
    return {t for t in found if alive(t)}


def stop(targets: set[Target], grace_s: float) -> str:
    """SIGTERM to every target, up to grace_s for them to end, then SIGKILL; how it ended."""
    signal_all(targets, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(alive(t) for t in targets):
        time.sleep(0.05)
    left = {t for t in targets if alive(t)}
    if not left:
        return "SIGTERM"
    signal_all(left, signal.SIGKILL)
    return f"SIGTERM, then SIGKILL after {grace_s:g} s"
