# SPDX-License-Identifier: BSD-3-Clause
"""Reading a file with a bound in bytes that holds whatever the path is: a regular file, a
device (``/dev/zero`` has size 0 and never ends), a pipe or a FIFO (no size at all). The size a
file says is not trusted: at most ``limit + 1`` bytes are read, and one more than the limit is
refused. A FIFO is opened without waiting for a writer (one that never comes would block)."""

from __future__ import annotations

import os
from pathlib import Path

from mpimeter.io.errors import InputError

_CHUNK = 1 << 20


def read_bytes(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes of ``path``; InputError (naming the file) when it holds more.
    OSError as open() and read() raise them (the caller words them)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        os.set_blocking(fd, True)  # the open was not to wait; the reads are ordinary ones
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if total > limit:
        raise InputError(path, f"holds more than {limit // 2**20} MiB; at most {limit // 2**20} MiB are read"
                               " (a device, a pipe or a file too large to be an output of one run)")
    return b"".join(chunks)


def check_regular(path: Path) -> None:
    """Refuses what is not a regular file (a device or FIFO), for readers that need one."""
    try:
        st = os.stat(path)
    except OSError:
        return  # the reader's own open says what is wrong
    import stat

    if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
        raise InputError(path, "is not a regular file (a device, pipe or FIFO); give a file")
