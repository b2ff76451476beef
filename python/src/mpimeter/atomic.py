# SPDX-License-Identifier: BSD-3-Clause
"""Files written whole or not at all: the bytes go to a temporary file in the target's folder, are
fsync'd and renamed over the target (rename is atomic within a file system). On any error the
temporary file is removed, so a full disk or a read-only folder leaves neither a partial file
nor a ``.tmp`` behind, and an existing file is kept as it was."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Writes ``data`` to ``path`` whole or not at all (see the module docstring); raises OSError
    naming ``path``. The file gets the usual permissions (0666 less the umask). ``durable``: the
    rename itself is fsync'd too (the folder), so that it survives a power cut."""
    path = Path(path)
    folder = path.parent
    if len(os.fsencode(path.name)) > _name_max(folder):
        raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), str(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:100]}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
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
