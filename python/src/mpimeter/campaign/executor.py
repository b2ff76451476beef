# SPDX-License-Identifier: BSD-3-Clause
"""Running one launch command: the executor interface and the real executor.

The campaign runner never starts processes itself; it hands a command to an executor and gets an
`ExecResult` back (a fake executor for tests lives in `campaign.fake`). The real executor starts
the command in its own session (so a Ctrl-C on the terminal reaches only `mpimeter run`, which
then decides what to stop), writes its stdout and stderr to files, and on a timeout or a
KeyboardInterrupt terminates everything the launch started: SIGTERM to every process of the
launch's session and to every descendant (mpirun's ranks may have been re-parented or have their
own process group), a grace period, then SIGKILL to whatever is left.

A launch must not outlive `mpimeter run`: killed (SIGKILL, or its terminal gone), it can stop
nothing itself, so each launch's first process (mpirun) gets the parent-death signal SIGTERM
(prctl PR_SET_PDEATHSIG), on which mpirun stops its ranks. The signal comes when the *thread*
that started the launch ends: launches are started from the main thread. What still outlives it
(a launcher that ignores SIGTERM, a shell that does not pass it on) is found and stopped by the
next `--resume` (stop_leftover, campaign.procs).
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import stat
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from mpimeter.atomic import NotRegularFile
from mpimeter.campaign import procs, secrets

STDERR_TAIL_LINES = 20
STDERR_TAIL_CHARS = 2000


@dataclass(frozen=True)
class ExecResult:
    exit_code: int | None  # None when the process was killed by us after a timeout
    duration_s: float
    timed_out: bool = False
    stderr_tail: str = ""
    stopped_because: str = ""  # the `watch` that stopped the launch said this (campaign.testretry)

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
            stdout_path: Path, stderr_path: Path,
            on_start: Callable[[dict], None] | None = None,
            secret_words: secrets.Words = None,
            watch: Callable[[], str | None] | None = None) -> ExecResult:
        """Runs argv to its end or to the timeout. `on_start` gets the launch's identity
        (campaign.procs.identity) once it runs. `watch`, polled while it runs, stops it when it
        says why (a test past --test-timeout: campaign.testretry.HangWatch). The stderr tail is redacted by `secret_words`
        (the campaign's, campaign.secrets). On KeyboardInterrupt it stops the command and
        re-raises."""
        ...

    def stop_leftover(self, process: dict, marker: str) -> str | None:
        """Stops what still runs of a launch recorded in campaign.json (`process`), found by
        its `marker` (campaign.procs), and says what it did; None when nothing of it runs."""
        ...


def tail(path: Path, *, lines: int = STDERR_TAIL_LINES, chars: int = STDERR_TAIL_CHARS,
         words: secrets.Words = None) -> str:
    """The last lines of a launch's stderr, secrets redacted (campaign.secrets) before anything is
    cut: a cut through `Authorization: Bearer …` would leave the token without its name. A first
    line the read began inside is left out (or, in one long line, its first partial word)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 4 * chars))
            text = f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    if size > 4 * chars:  # the read began inside a line: leave out what is left of it
        newline = text.find("\n")
        if newline >= 0:
            text = text[newline + 1:]
        else:
            first_word = re.match(r"\s*\S*", text)
            text = text[first_word.end():]
    kept = secrets.redact_text("\n".join(text.splitlines()[-lines:]), words)
    return kept[-chars:]


class SubprocessExecutor:
    """Runs a launch as a child process in its own session, which dies with this process."""

    def __init__(self, *, grace_s: float = 5.0):
        self.grace_s = grace_s

    def run(self, argv: list[str], *, env: dict[str, str], timeout_s: float,
            stdout_path: Path, stderr_path: Path,
            on_start: Callable[[dict], None] | None = None,
            secret_words: secrets.Words = None,
            watch: Callable[[], str | None] | None = None) -> ExecResult:
        stdout_path.parent.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        with open(stdout_path, "wb", opener=_no_links) as out, \
                open(stderr_path, "wb", opener=_no_links) as err:
            try:
                with _signals_held() as held:  # a Ctrl-C now would lose the process started
                    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                            stderr=err, env=env, start_new_session=True,
                                            preexec_fn=_die_with(os.getpid()))
            except OSError as exc:
                err.write(f"cannot start {argv[0]}: {exc}\n".encode())
                err.flush()
                return ExecResult(127, time.monotonic() - start, False, tail(stderr_path, words=secret_words))
            try:
                for signum in held:  # delivered now, where they stop the launch
                    signal.raise_signal(signum)
                if on_start is not None:
                    on_start(procs.identity(proc.pid))
                code, stopped = _wait(proc, timeout_s, watch)
                timed_out = False
                if stopped:
                    terminate_launch(proc, self.grace_s)
                    return ExecResult(None, time.monotonic() - start, False,
                                      tail(stderr_path, words=secret_words), stopped)
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
        return ExecResult(code, time.monotonic() - start, timed_out, tail(stderr_path, words=secret_words))

    def stop_leftover(self, process: dict, marker: str) -> str | None:
        here = procs.where()
        if process.get("host") != here["host"] or process.get("boot_id") != here["boot_id"]:
            if process.get("host") == here["host"]:
                return None  # started before this machine last booted: nothing of it runs
            return (f"was started on {process.get('host')!r}, not here ({here['host']}): "
                    "if it still runs there, stop it")
        targets = procs.launch_processes(process, marker)
        if not targets:
            return None
        how = procs.stop(targets, self.grace_s)
        pids = ", ".join(str(pid) for pid, _ in sorted(targets))
        return f"was still running (pid {pids}): stopped it ({how})"


WATCH_EVERY_S = 0.1


def _wait(proc: subprocess.Popen, timeout_s: float, watch: Callable[[], str | None] | None
          ) -> tuple[int | None, str]:
    """The exit code, or None and why `watch` said to stop; TimeoutExpired past timeout_s."""
    if watch is None:
        return proc.wait(timeout=timeout_s), ""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return proc.wait(timeout=max(0.0, min(WATCH_EVERY_S, deadline - time.monotonic()))), ""
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                raise
        said = watch()
        if said:
            return None, said


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def obeyed(signals: tuple[int, ...] = STOP_SIGNALS) -> tuple[int, ...]:
    """The stop signals this process obeys: those it was not started ignoring. `nohup mpimeter
    run` ignores SIGHUP and a shell's background job SIGINT; they stay ignored, as their user
    asked (a campaign under nohup must outlive its terminal)."""
    return tuple(s for s in signals if signal.getsignal(s) is not signal.SIG_IGN)


@contextmanager
def _signals_held():
    """Ctrl-C, SIGTERM and SIGHUP arriving while a launch is being started are held back (their
    Python handlers run in the main thread only), and listed for the caller to deliver once
    the process is there to be stopped."""
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    previous = {sig: signal.signal(sig, lambda signum, frame: held.append(signum))
                for sig in obeyed()}
    try:
        yield held
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _no_links(path: str, flags: int) -> int:
    """Log files are opened without following a symbolic link (one left in logs/ would make the
    launch's output overwrite a file outside the campaign), and only as regular files: a FIFO
    would block the open (O_NONBLOCK, then cleared), a device would get the launch's output."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # a link; a FIFO nobody reads
            raise NotRegularFile(errno.EINVAL, "not a regular file; mpimeter writes only regular files",
                                 path) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file; mpimeter writes only regular files", path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


# --- dying with mpimeter run --------------------------------------------------------------------

PR_SET_PDEATHSIG = 1
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
    _prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
except (OSError, AttributeError):  # not Linux: launches are stopped by --resume only
    _prctl = None


def _die_with(parent_pid: int) -> Callable[[], None] | None:
    """In the child, before exec: SIGTERM when the parent dies, also if it died already."""
    if _prctl is None:
        return None

    def setup() -> None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent_pid:  # the parent died before the line above
            os.kill(os.getpid(), signal.SIGTERM)

    return setup


# --- stopping a launch -------------------------------------------------------------------------

def terminate_launch(proc: subprocess.Popen, grace_s: float) -> None:
    """SIGTERM to the launch's session and descendants, wait up to grace_s, then SIGKILL."""
    targets = _launch_processes(proc.pid)
    procs.signal_all(targets, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if proc.poll() is not None and not any(procs.alive(p) for p in targets):
            break
        time.sleep(0.05)
    targets |= _launch_processes(proc.pid)
    procs.signal_all(targets, signal.SIGKILL)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass


def _kill_session(sid: int) -> None:
    leftovers = {p for p in procs.scan() if p[2] == sid and p[0] != sid}
    procs.signal_all({(pid, start) for pid, start, _, _ in leftovers}, signal.SIGKILL)


def _launch_processes(root_pid: int) -> set[procs.Target]:
    """(pid, start time) of the launch's process, every process in its session (the session id
    is the launch's pid, from start_new_session) and every descendant."""
    table = procs.scan()
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
