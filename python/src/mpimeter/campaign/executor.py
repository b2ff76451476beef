"""Running one launch command: the executor interface and the real executor.

The campaign runner never starts processes itself; it hands a command to an executor and gets an
`ExecResult` back (a fake executor for tests lives in `campaign.fake`). The real executor starts
the command in its own session (so a Ctrl-C on the terminal reaches only `mpimeter run`, which
then decides what to stop), writes its stdout and stderr to files, and on a timeout or a
KeyboardInterrupt terminates everything the launch started: SIGTERM to every process of the
launch's session and to every descendant (mpirun's ranks may have been re-parented or have their
own process group), a grace period, then SIGKILL to whatever is left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

STDERR_TAIL_LINES = 20
STDERR_TAIL_CHARS = 2000


@dataclass(frozen=True)
class ExecResult:
    exit_code: int | None  # None when the process was killed by us after a timeout
    duration_s: float
    timed_out: bool = False
    stderr_tail: str = ""

    @property
    def signal_name(self) -> str | None:
        if self.exit_code is not None and self.exit_code < 0:
            try:
                return signal.Signals(-self.exit_code).name
            except ValueError:
                return f"signal {-self.exit_code}"
        return None


class Executor(Protocol):
    def run(self, argv: list[str], *, env: dict[str, str], timeout_s: float,
            stdout_path: Path, stderr_path: Path) -> ExecResult:
        """Runs argv to its end or to the timeout. On KeyboardInterrupt it stops the command
        and re-raises."""
        ...


def tail(path: Path, *, lines: int = STDERR_TAIL_LINES, chars: int = STDERR_TAIL_CHARS) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 4 * chars))
            text = f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    kept = "\n".join(text.splitlines()[-lines:])
    return kept[-chars:]


class SubprocessExecutor:
    """Runs a launch as a child process in its own session."""

    def __init__(self, *, grace_s: float = 5.0):
        self.grace_s = grace_s

    def run(self, argv: list[str], *, env: dict[str, str], timeout_s: float,
            stdout_path: Path, stderr_path: Path) -> ExecResult:
        stdout_path.parent.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
            try:
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                        env=env, start_new_session=True)
            except OSError as exc:
                err.write(f"cannot start {argv[0]}: {exc}\n".encode())
                err.flush()
                return ExecResult(127, time.monotonic() - start, False, tail(stderr_path))
            try:
                code = proc.wait(timeout=timeout_s)
                timed_out = False
            except subprocess.TimeoutExpired:
                terminate_launch(proc, self.grace_s)
                code, timed_out = None, True
            except BaseException:  # KeyboardInterrupt (Ctrl-C, or SIGTERM turned into it)
                terminate_launch(proc, self.grace_s)
                raise
            finally:
                # Whatever the launch left behind in its session goes too (a rank that outlived
                # mpirun would keep a core busy during the next launch).
                _kill_session(proc.pid)
        return ExecResult(code, time.monotonic() - start, timed_out, tail(stderr_path))


# --- stopping a launch -------------------------------------------------------------------------

def terminate_launch(proc: subprocess.Popen, grace_s: float) -> None:
    """SIGTERM to the launch's session and descendants, wait up to grace_s, then SIGKILL."""
    targets = _launch_processes(proc.pid)
    _signal_all(targets, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if proc.poll() is not None and not any(_alive(p) for p in targets):
            break
        time.sleep(0.05)
    targets |= _launch_processes(proc.pid)
    _signal_all(targets, signal.SIGKILL)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass


def _kill_session(sid: int) -> None:
    leftovers = {p for p in _scan() if p[2] == sid and p[0] != sid}
    _signal_all({(pid, start) for pid, start, _, _ in leftovers}, signal.SIGKILL)


def _launch_processes(root_pid: int) -> set[tuple[int, str]]:
    """(pid, start time) of the launch's process, every process in its session (the session id
    is the launch's pid, from start_new_session) and every descendant."""
    table = _scan()
    children: dict[int, list[int]] = {}
    start_of: dict[int, str] = {}
    found: set[int] = set()
    for pid, start, sid, ppid in table:
        children.setdefault(ppid, []).append(pid)
        start_of[pid] = start
        if sid == root_pid:
            found.add(pid)
    stack = [root_pid]
    while stack:
        pid = stack.pop()
        found.add(pid)
        stack.extend(c for c in children.get(pid, []) if c not in found)
    return {(pid, start_of[pid]) for pid in found if pid in start_of}


def _scan() -> list[tuple[int, str, int, int]]:
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


def _alive(target: tuple[int, str]) -> bool:
    stat = _stat(target[0])
    return stat is not None and stat[19] == target[1] and stat[0] != "Z"


def _signal_all(targets: set[tuple[int, str]], sig: int) -> None:
    for target in targets:
        if _alive(target):  # the same process, not a reused pid
            try:
                os.kill(target[0], sig)
            except (ProcessLookupError, PermissionError):
                pass
