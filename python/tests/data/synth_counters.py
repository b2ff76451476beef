# SPDX-License-Identifier: BSD-3-Clause
"""Adds counters to a synthetic launch folder (data/synth.py) as mpimeter-bench writes them:
meta.json ``counters`` and counters.csv with one row per raw.csv row and counter
(docs/FORMAT.md, "counters.csv"). Each counter's value is a function of the row's local duration
and a seeded generator, so tests know which counters go with the run time and which do not."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

Counter = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def independent(dur: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A counter that has nothing to do with the run time."""
    return rng.poisson(20, dur.size).astype(float)


def follows(dur: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A counter that grows with the run time (a byte count of retransmissions, say)."""
    return np.rint(dur / 20.0 + rng.poisson(5, dur.size)).astype(float)


def add_counters(folder: str | Path, counters: dict[str, Counter], *, seed: int = 0, read_ns: float = 150.0,
                 left_out: tuple[tuple[str, str], ...] = ()) -> Path:
    folder = Path(folder)
    meta = json.loads((folder / "meta.json").read_text())
    raw = pd.read_csv(folder / "raw.csv") if (folder / "raw.csv").exists() else pd.DataFrame(
        columns=["test", "rank", "rep", "start_ns", "end_ns"])
    rng = np.random.default_rng(seed)
    names = list(counters)
    meta["counters"] = {
        "file": "counters.csv", "mpit_pvars": ",".join(names), "papi": None, "papi_version": None,
        "reads": "before the process sync's wait and right after the call's second timestamp",
        "metrics": [{"name": n, "source": "mpi_t", "class": "counter", "datatype": "unsigned long long",
                     "binding": "none", "elements": 1, "continuous": True, "value": "integer",
                     "description": f"synthetic {n}"} for n in names],
        "left_out": [{"name": n, "why": w} for n, w in left_out],
        "read_ns_by_test": {str(t["test"]): read_ns for t in meta["tests"] if t["status"] == "complete"},
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=1))
    dur = (raw["end_ns"] - raw["start_ns"]).to_numpy(dtype=float)
    values = {n: f(dur, rng) for n, f in counters.items()}
    with open(folder / "counters.csv", "w") as f:
        f.write("test,rank,rep,metric,value\n")
        for i, (t, r, p) in enumerate(raw[["test", "rank", "rep"]].itertuples(index=False)):
            for n in names:
                f.write(f"{t},{r},{p},{n},{int(values[n][i])}\n")
    return folder
