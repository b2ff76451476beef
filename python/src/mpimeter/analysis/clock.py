# SPDX-License-Identifier: BSD-3-Clause
"""Which clock gives the run time of a repetition for one launch (docs/FORMAT.md, "run time of a
repetition"): a policy of the analysis over the facts ``mpimeter.io`` read.

- ``global-resync``: the global times recomputed after the fact from the ≥ 2 syncs in sync.csv
  (piecewise-linear per rank between sync points) — the best estimate there is;
- ``global-online``: ``gstart_ns``/``gend_ns`` as written, when the launch used a global clock
  (a clock sync, or a process sync that starts repetitions on one) and raw.csv has them;
- ``local``: otherwise, the largest local duration over ranks.
"""

from __future__ import annotations

from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.launch import LaunchData
from mpimeter.units import format_ns
from mpimeter.warning_codes import warning


def choose_clock(data: LaunchData) -> tuple[str, str, list[AnalysisWarning]]:
    """(clock, the reason in words, warnings) for ``--clock auto``."""
    meta = data.meta
    cs, ps = meta.clock_sync.method, meta.proc_sync.method
    if meta.origin is not None:  # imported: the tool computed the run times on its own clock
        clock = "global-online" if data.has_global else "local"
        return clock, f"as {meta.origin.label} computed it: {meta.origin.run_time}", []
    # the binary writes global times exactly when the launch had a global clock (a clock sync,
    # or a process sync that starts repetitions on one): their presence is the fact to go by
    if not data.has_global:
        return "local", f"local: clock sync {cs!r} and process sync {ps!r}: raw.csv has no global times", []
    if data.resynced:
        reason = f"global, recomputed from {data.syncs} syncs in sync.csv (piecewise-linear per rank)"
        if data.resync_change_ns is not None:
            reason += f"; moves global times by up to {format_ns(data.resync_change_ns)} against the online clock"
        return "global-resync", reason, []
    if data.resync_error is not None:
        found = warning("resync-clock", error=data.resync_error, where=str(data.folder / "sync.csv"))
        return "global-online", f"global, online clock as written ({data.resync_error})", [found]
    why = "raw mode reduced has no per-rank times" if data.syncs >= 2 else "one sync only"
    return "global-online", f"global, online clock as written ({why})", []
