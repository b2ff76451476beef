# SPDX-License-Identifier: BSD-3-Clause
"""Per-launch medians of default launches (window starts) under variants of the environment or
of the binary, interleaved launch by launch: which launch-level factor puts a launch's small-message
median in its high mode? (docs/ALGORITHMS.md, "Two modes of the call after the idle time".)

    .venv/bin/python bench/launch_modes.py --launches 30 \
        --variant default --variant fbox_off:OMPI_MCA_btl_vader_fbox_max=0 \
        --variant nopause@/tmp/nopause-build/bin/mpimeter-bench --out bench/results/launch_modes.json

A variant is NAME, NAME:VAR=VALUE[,VAR=VALUE...] (environment of the launch; Open MPI reads
OMPI_MCA_* as MCA parameters) or NAME@BINARY (another mpimeter-bench). Per launch: the median of
the valid per-repetition run times (max over ranks of the end, min of the start, on the global
clock) per size, the launch's state from its cache-line probe, the test's back-to-back companion's mean, the cache-line probe, the load. Per
variant and state: the normal-scaled MAD of the log per-launch medians (%), the launches' sorted 8 B medians
and the share of launches whose 8 B median is above 1.6 × the variant's lowest quartile (the high
mode). Not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _launches import NCPUS, launch_argv, state, timed  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SIZES = (8, 1024, 65536)
FAST_BELOW_NS = 200.0  # as bench/peers.py
HIGH = 1.6  # a launch's 8 B median above HIGH × the variant's lowest quartile is in the high mode


def parse_variant(text: str) -> tuple[str, dict[str, str], str | None]:
    if "@" in text:
        name, binary = text.split("@", 1)
        return name, {}, binary
    name, _, env = text.partition(":")
    pairs = [kv.split("=", 1) for kv in env.split(",") if kv]
    if not name or any(len(kv) != 2 or not kv[0] for kv in pairs):
        raise argparse.ArgumentTypeError(f"{text!r}: a variant is NAME, NAME:VAR=VALUE[,VAR=VALUE...] or NAME@BINARY")
    return name, dict(pairs), None


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    """``env`` set for the block, the earlier values (or their absence) back after it."""
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def medians(folder: Path) -> dict:
    """Per size, the raw median of the valid repetitions' run times, not the analysis's
    (bench/peers.py's mpimeter_values): its outlier filter would hide part of a mode, and the
    modes are what this study looks at."""
    meta = json.loads((folder / "meta.json").read_text())
    raw = pd.read_csv(folder / "raw.csv")
    out: dict = {"values_ns": {}, "back_to_back_ns": {}, "valid_share": {}}
    for t in meta["tests"]:
        test_rows = raw[raw.test == t["test"]]
        rows = test_rows[test_rows.valid == 1]
        out["valid_share"][str(t["size"])] = round(rows.rep.nunique() / max(test_rows.rep.nunique(), 1), 3)
        per_rep = rows.pivot_table(index="rep", columns="rank", values=["gstart_ns", "gend_ns"])
        run = per_rep["gend_ns"].max(axis=1) - per_rep["gstart_ns"].min(axis=1)
        out["values_ns"][str(t["size"])] = float(run.median()) if len(run) else None
        out["back_to_back_ns"][str(t["size"])] = (t.get("back_to_back") or {}).get("mean_ns")
    probes = (meta.get("probes") or {}).get("cacheline_rtt_ns") or [{}]
    out["cacheline_rtt_ns"] = probes[0].get("rtt_ns")
    out["order"] = [t["size"] for t in meta["tests"]]
    return out


def summary(launches: list[dict]) -> dict:
    out = {}
    for size in map(str, SIZES):
        v = np.array([x["values_ns"][size] for x in launches if x.get("values_ns", {}).get(size)])
        if len(v) < 3:
            continue
        logs = np.log(v)
        spread = 100 * 1.4826 * float(np.median(np.abs(logs - np.median(logs))))
        valid = [x["valid_share"][size] for x in launches if size in x.get("valid_share", {})]
        out[size] = {"launches": len(v), "spread_pct": round(spread, 2), "median_ns": float(np.median(v)),
                     "sorted_ns": sorted(v.round(1).tolist()),
                     "valid_share_median": float(np.median(valid)) if valid else None}
        if size == "8":
            out[size]["high_mode_share"] = round(float(np.mean(v > HIGH * np.quantile(v, 0.25))), 3)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--launches", type=int, default=30)
    p.add_argument("--variant", action="append", required=True, type=parse_variant)
    p.add_argument("--lib", default="openmpi")
    p.add_argument("--seed", type=int, default=56)
    p.add_argument("--out", type=Path, required=True)
    a = p.parse_args()
    variants = a.variant
    default_bench = REPO / "build" / a.lib / "bin" / "mpimeter-bench"
    rng = random.Random(a.seed)
    tmp = Path(tempfile.mkdtemp(prefix="modes."))
    records: dict[str, list[dict]] = {name: [] for name, _, _ in variants}
    try:
        for k in range(a.launches):
            order = list(variants)
            rng.shuffle(order)
            for name, env, binary in order:
                folder = tmp / f"{k:03d}-{name}"
                argv = [str(binary or default_bench), "--ops", "allreduce", "--sizes", ",".join(map(str, SIZES)),
                        "--seed", str(rng.randrange(2**31)), "--out", str(folder)]
                with _environment(env):
                    done, wall, load = timed(launch_argv(a.lib, argv), 120)
                rec = {"launch": k, "wall_s": round(wall, 3), **load}
                if done.returncode == 0:
                    rec.update(medians(folder))
                else:
                    rec["error"] = done.stderr.strip()[-300:]
                records[name].append(rec)
                shutil.rmtree(folder, ignore_errors=True)
            print(f"launch {k + 1}/{a.launches}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result = {"launches_per_variant": a.launches, "lib": a.lib, "seed": a.seed, "cpus": NCPUS, "sizes": list(SIZES),
              "variants": {name: {"env": env, "bench": binary or str(default_bench)} for name, env, binary in variants},
              "value": "median over valid repetitions of max(end) - min(start) on the global clock, per launch",
              "high_mode": f"8 B median above {HIGH} x the variant's lowest quartile",
              "state_rule": f"fast: the launch's cache-line round trip below {FAST_BELOW_NS} ns, else slow",
              "summary": {name: {st: summary([r for r in recs if state(r.get("cacheline_rtt_ns"), FAST_BELOW_NS) == st])
                                 for st in ("fast", "slow")} for name, recs in records.items()},
              "launches": records}
    a.out.write_text(json.dumps(result, indent=1) + "\n")
    for name, by_state in result["summary"].items():
        for st, s in by_state.items():
            print(name, st, {size: (x["launches"], x["spread_pct"], x["median_ns"], x.get("high_mode_share"))
                             for size, x in s.items()})


if __name__ == "__main__":
    main()
