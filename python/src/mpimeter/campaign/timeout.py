# SPDX-License-Identifier: BSD-3-Clause
"""What a launch that ran past its time limit was doing, and what to do about it: the reason
campaign.json records for a timed-out launch (docs/FORMAT.md, launches[].reason).

The binary rewrites its meta.json after every test, so the folder of a launch that was stopped
says how far it got: the tests finished, the last one's window and invalid repetitions (a window
that doubled test after test and repetitions all invalid mean the ranks could not start
together), the test in progress, and how long ago a test last finished. The machine's load
(/proc/loadavg) says whether other processes held the cores. meta.json is untrusted and may be
missing or cut: whatever cannot be read is left out of the message, never an error.
"""

from __future__ import annotations

import time
from pathlib import Path

from mpimeter.io.errors import InputError
from mpimeter.io.meta import read_document
from mpimeter.units import format_ns

LOADAVG = Path("/proc/loadavg")


def machine_load(path: Path = LOADAVG) -> tuple[float, float, float] | None:
    """The 1-, 5- and 15-minute load averages (None where unreadable)."""
    try:
        first = path.read_text().split()[:3]
        return tuple(float(x) for x in first)  # type: ignore[return-value]
    except (OSError, ValueError):
        return None


def _num(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def progress(folder: Path, now: float | None = None) -> list[str]:
    """Phrases on how far the launch got, from its meta.json (empty when there is none)."""
    meta_path = folder / "meta.json"
    try:
        meta = read_document(meta_path)  # meta.json's one read (io.meta)
        mtime = meta_path.stat().st_mtime
    except (InputError, OSError):
        return ["it wrote no readable meta.json (it did not get past its start: MPI start-up or the clock sync)"]
    tests = meta.get("tests")
    if not isinstance(tests, list):
        return []
    tests = [t for t in tests if isinstance(t, dict)]
    finished = [t for t in tests if t.get("status") in ("complete", "incomplete", "failed")]
    said = [f"{len(finished)} of {len(tests)} tests finished"]
    if finished:
        last = max(finished, key=lambda t: _num(t.get("started_s")) or 0.0)
        said.append(f"the last one, {_label(last)}: {_window(last)}{_invalid(last)}")
    running = next((t for t in tests if t.get("status") == "running"), None)
    if running is None:
        running = next((t for t in tests if t.get("status") == "pending"), None)
    if running is not None:
        said.append(f"in progress: {_label(running)}{_window(running, prefix=', window ')}")
    since = (now if now is not None else time.time()) - mtime
    if since >= 1:
        said.append(f"meta.json last rewritten {since:.0f} s before the stop")
    return said


def _label(t: dict) -> str:
    return f"test {t.get('test')} ({t.get('op')} {t.get('size')})"


def _window(t: dict, prefix: str = "window ") -> str:
    w = _num(t.get("window_ns"))
    if w is None:
        return "" if prefix.startswith(",") else "no window"
    return f"{prefix}{format_ns(w)}"


def _invalid(t: dict) -> str:
    nrep, invalid = _num(t.get("nrep")), _num(t.get("invalid"))
    if nrep is None or invalid is None:
        return ""
    return f", {invalid:.0f} of {nrep:.0f} repetitions invalid"


def advice(np: int, cores: int | None) -> str:
    """What to do, in the order that helps most on a busy machine."""
    parts = ["give it more time (--launch-timeout SECONDS)",
             "use a start method that holds on a busy machine (--procsync roundtime, or barrier)"]
    if cores is not None and np > cores:
        parts.append(f"run fewer ranks ({np} ranks share {cores} cores: --np {cores})")
    else:
        parts.append("run fewer ranks or on a quieter machine")
    return "; ".join(parts)


def timeout_reason(timeout_s: float, folder: Path, np: int, *, cores: int | None = None,
                   loadavg: tuple[float, float, float] | None = None, now: float | None = None) -> str:
    """One line: the limit, what the launch was doing, this machine's load, what to do.
    ``cores``: those the ranks run on, when all run here (--launcher local); None otherwise."""
    load = loadavg if loadavg is not None else machine_load()
    parts = [f"timed out after {timeout_s:g} s (terminated)"] + progress(folder, now)
    if load is not None:
        where = f"on its {cores} cores" if cores is not None else "on the machine of mpimeter run"
        parts.append(f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min) {where}")
    return "; ".join(parts) + f". To do: {advice(np, cores)}"
