# SPDX-License-Identifier: BSD-3-Clause
"""The checks of an imported launch (meta.json ``origin``, io.origin) that need the whole launch:
against raw.csv (one row per repetition, rank −1, ``start_ns`` 0, and for aggregate data the one
row carrying the headline), and the warnings that say, once per launch, what such a launch cannot
give. Above io.meta (they read its LaunchMeta); the parser of ``origin`` is below it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from mpimeter.io.errors import AnalysisWarning, InputError
from mpimeter.io.meta import LaunchMeta
from mpimeter.warning_codes import warning


def check_rows(path: Path, raw: pa.Table, meta: LaunchMeta) -> None:
    """raw.csv of an imported launch: start_ns 0 on every row (the tools print no timestamps);
    global times exactly when origin says the run times are global, and then equal to the local
    columns; an aggregate's one row carries its headline (twice it for a round trip)."""
    origin = meta.origin
    if origin is None or raw.num_rows == 0:
        return
    start = raw["start_ns"].to_numpy()
    end = raw["end_ns"].to_numpy()
    bad = np.nonzero(start != 0)[0]
    if bad.size:
        raise InputError(path, f"row {int(bad[0]) + 2} has start_ns {int(start[bad[0]])}; an imported launch has no "
                               "timestamps, so start_ns is 0", line=int(bad[0]) + 2)
    gs, ge = raw["gstart_ns"], raw["gend_ns"]
    if origin.global_times:
        same = (gs.null_count == 0 and ge.null_count == 0 and bool(np.all(gs.to_numpy() == 0))
                and bool(np.array_equal(ge.to_numpy(), end)))
        if not same:
            raise InputError(path, "origin.global_times is true: every row's gstart_ns must be 0 and gend_ns equal "
                                   "to end_ns (the tool's global run time)")
    elif gs.null_count != raw.num_rows or ge.null_count != raw.num_rows:
        raise InputError(path, "has global times, but origin.global_times is false (the tool's run times are local)")
    if not origin.aggregates:
        return
    test = raw["test"].to_numpy()
    for i in range(raw.num_rows):
        ot = origin.test(int(test[i]))
        want = ot.aggregates_ns[ot.headline] * (2 if _round_trip(meta, raw["op"][i].as_py()) else 1)
        if int(end[i]) != want:
            raise InputError(path, f"row {i + 2} has end_ns {int(end[i])}, but origin.tests[{ot.test}] says "
                                   f"{ot.headline} = {ot.aggregates_ns[ot.headline]} ns (raw.csv must carry "
                                   f"{want})", line=i + 2)


def _round_trip(meta: LaunchMeta, op: str) -> bool:
    info = meta.operation(op)
    return info is not None and info.round_trip


def imported_warnings(meta: LaunchMeta, folder: Path) -> list[AnalysisWarning]:
    """Once per imported launch: what it is and what cannot be computed from it."""
    o = meta.origin
    if o is None:
        return []
    where = str(folder / "meta.json")
    if o.aggregates:
        heads = sorted({t.headline for t in o.tests if t.headline})
        return [warning("imported-aggregates", label=o.label, file=o.file, headlines=", ".join(heads), where=where)]
    lacks = " and ".join(o.lacks) or "nothing"
    return [warning("imported-repetitions", label=o.label, file=o.file, run_time=o.run_time, lacks=lacks, where=where)]
