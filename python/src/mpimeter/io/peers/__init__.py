# SPDX-License-Identifier: BSD-3-Clause
"""Parsers of other MPI benchmarks' outputs (IMB, OSU, ReproMPI): one module per tool, each with
``recognise(lines)`` and ``parse(lines)`` → :class:`PeerRun`; :func:`read_peer` picks the module
the user named and refuses a file that another tool wrote, or none (mixed tools in one import).
``mpimeter.io.peers.write`` turns a parsed run into a launch folder (docs/FORMAT.md, "Imported
launches").
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from mpimeter.io.errors import InputError
from mpimeter.io.peers import imb, osu, reprompi
from mpimeter.io.peers.common import Lines, PeerRun, PeerTest

TOOLS: dict[str, ModuleType] = {"imb": imb, "osu": osu, "reprompi": reprompi}

__all__ = ["TOOLS", "PeerRun", "PeerTest", "read_peer", "identify"]


def identify(lines: Lines) -> str | None:
    """The tool whose output ``lines`` is (None: none of the known ones)."""
    return next((name for name, module in TOOLS.items() if module.recognise(lines)), None)


def read_peer(tool: str, path: str | Path, *, nprocs: int | None = None, osu_window: int | None = None) -> PeerRun:
    """Parses the output file at ``path`` as ``tool``'s; InputError naming the file and line for a
    file of another tool or of no known format, a header that does not parse, a truncated table."""
    if tool not in TOOLS:
        raise ValueError(f"unknown tool {tool!r}")
    module = TOOLS[tool]
    lines = Lines(Path(path), module.LABEL)
    found = identify(lines)
    top = next((i for i in range(len(lines)) if lines[i].strip()), 0)  # the first line with text
    if found is None:
        raise lines.fail(top, f"is not {module.LABEL} output, nor any other format mpimeter import reads (IMB, OSU, ReproMPI): an unknown format")
    if found != tool:
        raise lines.fail(top, f"is {TOOLS[found].LABEL} output, not {module.LABEL}'s: one import reads one tool's "
                            f"outputs (mpimeter import {found} …)")
    if osu_window is not None and tool != "osu":
        raise InputError(lines.path, f"--osu-window {osu_window}: only OSU's one-sided bandwidth tables take it, "
                                     f"not {module.LABEL} output")
    if tool == "osu":
        run = osu.parse(lines, nprocs=nprocs, window=osu_window)
        if run.nprocs is None:
            raise InputError(lines.path, "OSU does not print how many ranks ran this test; give it with --np N")
        return run
    run = module.parse(lines)
    if nprocs is not None and run.nprocs != nprocs:
        raise InputError(lines.path, f"the output says {run.nprocs} ranks ran; --np {nprocs} contradicts it")
    return run
