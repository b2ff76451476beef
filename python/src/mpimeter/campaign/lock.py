# SPDX-License-Identifier: BSD-3-Clause
"""One writer per campaign folder: an exclusive flock(2) on `<campaign>/.mpimeter.lock`, held by
`mpimeter run`, `run --resume` and each trial of `mpimeter reproducibility --trials` for as long
as they run. Without it two writers replace each other's campaign.json and run the same pending
launches twice.

The lock is taken before anything is decided from the folder's contents, so two commands
started together cannot both find it free. The kernel drops it when its holder ends, however it
ends (no stale lock to clean up); the file stays and says who held it last (pid, host, since
when), which is what a refused writer is told. Launches do not inherit it (close-on-exec).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import stat
import time
from pathlib import Path

from mpimeter.atomic import kind_of
from mpimeter.errors import MpimeterError

LOCK_FILE = ".mpimeter.lock"
_HOLDER_WAIT_S = 2.0  # a holder writes who it is right after it has the lock


class CampaignLocked(MpimeterError):
    """Another process holds the campaign's lock; the message names it."""


class CampaignLock:
    def __init__(self, folder: Path, fd: int):
        self.folder = folder
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, folder: Path, *, create: bool = False, command: str = "run") -> CampaignLock:
        """Locks `folder` (creating it first when `create`). Raises CampaignLocked when another
        process holds it, OSError when the folder or its lock file cannot be opened (a lock
        file that is a symbolic link or not a regular file is refused)."""
        folder = Path(folder)
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        path = folder / LOCK_FILE
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OSError(errno.ELOOP, "the lock file is a symbolic link", str(path)) from None
            raise
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, "the lock file is not a regular file", str(path))
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise CampaignLocked(f"{folder} is in use by another mpimeter ({_holder(fd)}); "
                                     "wait for it to end or stop it, then try again") from None
            record = {"pid": os.getpid(), "host": socket.gethostname(), "command": command,
                      "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)
        except BaseException:
            os.close(fd)
            raise
        return cls(folder, fd)

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the last descriptor drops the flock

    def __enter__(self) -> CampaignLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _holder(fd: int) -> str:
    """Who holds the lock, from what it wrote into the file: `pid 123 on host, run since ...`."""
    deadline = time.monotonic() + _HOLDER_WAIT_S
    while True:
        try:
            record = json.loads(os.pread(fd, 4096, 0).decode("utf-8", errors="replace"))
            pid, host = int(record["pid"]), _printable(record["host"], 255)
            command = _printable(record.get("command", "?"), 40)
            since = _printable(record.get("since", "?"), 40)
            return f"pid {pid} on {host}, `mpimeter {command}` since {since}"
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            if time.monotonic() > deadline:
                return "its pid is not recorded"
            time.sleep(0.05)


def _printable(value, limit: int) -> str:
    """A value from the lock file (written by whoever held it) as one line of plain text."""
    return "".join(c if c.isprintable() else "?" for c in str(value)[:limit])


# --- the folder of a new or resumed campaign ----------------------------------------------------

class FolderRefused(MpimeterError):
    """The folder cannot hold this campaign; the message says why and what to do."""


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ENOTDIR:
        return "a part of the path is not a folder"
    return exc.strerror or str(exc)


def _entries(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir()]


def check_new_folder(folder: Path, option: str, hint: str = "") -> None:
    """Before anything is prepared: `folder` is free for a new campaign as far as can be told
    without writing (missing, empty, or a campaign folder another writer may hold). Never
    writes; a folder holding anything but a lock file is refused untouched."""
    try:
        kind = kind_of(folder)
        if kind is None:
            return
        if kind != "a folder":  # a link too, even to a folder: the campaign would land elsewhere
            raise FolderRefused(f"{option} {folder}: not a folder ({kind}); give a new folder or an empty one, "
                                "not a link to one")
        entries = _entries(folder)
    except OSError as exc:
        raise FolderRefused(f"{option} {folder}: {_reason(exc)}") from None
    if entries and LOCK_FILE not in entries:
        raise FolderRefused(f"{option} {folder} exists and is not empty; choose another "
                            f"folder{hint}")


def lock_new_folder(folder: Path, option: str, command: str, hint: str = "") -> CampaignLock:
    """Creates `folder` (or takes it empty), locks it, then checks it holds nothing but the lock
    file: decided under the lock, so two commands started together cannot both take it."""
    check_new_folder(folder, option, hint)
    try:
        lock = CampaignLock.acquire(folder, create=True, command=command)
    except CampaignLocked as exc:
        raise FolderRefused(str(exc)) from None
    except OSError as exc:
        raise FolderRefused(f"{option} {folder}: cannot create and lock it "
                            f"({_reason(exc)})") from None
    try:
        check_new_folder(folder, option, hint)  # again, under the lock: a link put there since is refused
        others = [name for name in _entries(folder) if name != LOCK_FILE]
    except FolderRefused:
        lock.release()
        raise
    except OSError as exc:
        lock.release()
        raise FolderRefused(f"{option} {folder}: {_reason(exc)}") from None
    if others:
        lock.release()
        raise FolderRefused(f"{option} {folder} exists and is not empty; choose another "
                            f"folder{hint}")
    return lock


def lock_existing_folder(folder: Path, option: str, command: str, holds: str) -> CampaignLock:
    """Locks the folder of an existing campaign (`--resume`) before it is read. A folder without
    the campaign's file `holds` (campaign.json) is refused before the lock file is made: it is
    not a campaign, and a lock file left in it (a launch folder, an alternative's, the user's
    own) would be an output where mpimeter owns nothing (CONTRIBUTING.md, "The rules a review
    enforces")."""
    try:
        if not folder.exists():
            raise FolderRefused(f"{option} {folder}: no such folder")
        if not folder.is_dir():
            raise FolderRefused(f"{option} {folder}: not a folder (give the campaign folder, "
                                f"the one holding {holds})")
        if not os.path.lexists(folder / holds):  # one that is there, of any kind, is load's to judge
            raise FolderRefused(f"{option} {folder}: no {holds} in it (give the campaign folder "
                                f"`mpimeter run` wrote, the one holding {holds})")
        return CampaignLock.acquire(folder, command=command)
    except CampaignLocked as exc:
        raise FolderRefused(str(exc)) from None
    except OSError as exc:
        raise FolderRefused(f"{option} {folder}: cannot lock it ({_reason(exc)})") from None
