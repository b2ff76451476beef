# SPDX-License-Identifier: BSD-3-Clause
"""Files written whole or not at all, and only over what mpimeter may replace: the bytes go to a
temporary file in the target's folder, are fsync'd and renamed over the target (rename is atomic
within a file system). On any error the temporary file is removed, so a full disk or a read-only
folder leaves neither a partial file nor a ``.tmp`` behind, and an existing file is kept as it was.

The target must be a regular file or nothing: a device (``/dev/null``), a FIFO, a socket, a
symbolic link (whatever it points to) or a folder is refused with :class:`NotRegularFile`, an
OSError naming the path, so every command words it in one line. The check is made without
following links (``lstat``) before anything is written and again right before the rename; a
missing target is created with ``link(2)``, which fails if anything appeared there meanwhile, so
only a regular file swapped for something else between that last ``lstat`` and the rename (a
window of microseconds, in a folder the user writes) could still be replaced.

Folder outputs (a campaign, a site) are checked by :func:`check_folder_target`: a folder or
nothing, never a symbolic link, device, FIFO, socket or file.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from mpimeter.errors import MpimeterError

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISREG, "a regular file"))


class NotRegularFile(OSError, MpimeterError):
    """The output path holds something mpimeter must not replace; ``str`` of it, and its
    ``filename``/``strerror``, give the one line the commands print."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def kind_of(path: Path) -> str | None:
    """What is at ``path``, not following a link ("a folder", "a symbolic link", "a FIFO" …), or
    None when nothing is. Other errors (a part of the path not a folder, no permission) raise."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    return next((name for test, name in _KINDS if test(mode)), "an unknown kind of file")


def _refused(path: Path, kind: str, option: str | None, why: str) -> NotRegularFile:
    shown = f"{option} {path}" if option else str(path)
    return NotRegularFile(errno.EINVAL, why.format(kind=kind), shown)


def check_file_target(path: Path, option: str | None = None) -> None:
    """Raises NotRegularFile unless ``path`` is a regular file or nothing (a symbolic link is
    refused even when it points to a regular file). ``option`` (``--out``) prefixes the path in
    the message."""
    kind = kind_of(Path(path))
    if kind not in (None, "a regular file"):
        raise _refused(Path(path), kind, option,
                       "not a regular file ({kind}); mpimeter writes only regular files")


def check_folder_target(path: Path, option: str | None = None) -> None:
    """Raises NotRegularFile unless ``path`` is a folder (not a link to one) or nothing."""
    kind = kind_of(Path(path))
    if kind not in (None, "a folder"):
        raise _refused(Path(path), kind, option, "not a folder ({kind}); mpimeter writes a folder output only "
                       "as a new folder or into a folder, never through a link")


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _put_in_place(tmp: str, path: Path) -> None:
    """Moves ``tmp`` to ``path`` if ``path`` is a regular file or nothing (module docstring)."""
    for _ in range(2):
        check_file_target(path)
        if kind_of(path) is not None:
            os.replace(tmp, path)
            return
        try:
            os.link(tmp, path)  # fails with EEXIST if anything took the name since the check
        except FileExistsError:
            continue  # look at what is there now: replaced if a regular file, else refused
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                raise
            os.replace(tmp, path)  # a file system without hard links: the rename alone
            return
        os.unlink(tmp)
        return
    check_file_target(path)
    os.replace(tmp, path)


def _temporary_next_to(path: Path) -> tuple[int, str]:
    """The open temporary file that :func:`write_atomic_with` writes before the rename, in
    ``path``'s folder; an OSError naming ``path`` when the name is too long, the target is not a
    regular file or nothing (NotRegularFile), or the folder cannot take a new file."""
    if len(os.fsencode(path.name)) > _name_max(path.parent):
        raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), str(path))
    try:
        check_file_target(path)
        return tempfile.mkstemp(prefix=f".{path.name[:100]}.", suffix=".tmp", dir=path.parent)
    except NotRegularFile:
        raise
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None


def check_writable(path: Path) -> None:
    """Raises what :func:`write_atomic` would raise before writing a byte to ``path`` (a name too
    long, a target not a regular file, a folder read-only or not the user's), leaving nothing
    behind: a command that computes for minutes before it writes says so at once instead. What
    only the bytes show (a full disk) still shows when the file is written."""
    fd, tmp = _temporary_next_to(Path(path))
    os.close(fd)
    os.unlink(tmp)


def write_atomic_with(path: Path, write: Callable[[BinaryIO], None], *, durable: bool = False,
                      fsync: bool = True) -> None:
    """As :func:`write_atomic`, with the bytes written by ``write`` into the open temporary file
    (for writers that stream: Parquet, figures). ``fsync`` False: the bytes are not forced to disk
    before the rename, so a power cut may leave the file empty or partly written; only for a copy
    that can be derived again and whose reader refuses a torn one (the Parquet copy of raw.csv,
    mpimeter.io.csvread)."""
    path = Path(path)
    folder = path.parent
    fd, tmp = _temporary_next_to(path)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        _put_in_place(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, NotRegularFile):
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise
    if durable:
        try:
            dfd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass  # some file systems refuse to fsync a folder: the rename is done all the same


def write_atomic(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Writes ``data`` to ``path`` whole or not at all, over a regular file or nothing (see the
    module docstring); raises OSError naming ``path`` (NotRegularFile when the target is not a
    regular file). The file gets the usual permissions (0666 less the umask). ``durable``: the
    rename itself is fsync'd too (the folder), so that it survives a power cut."""
    write_atomic_with(path, lambda f: f.write(data), durable=durable)
