# SPDX-License-Identifier: BSD-3-Clause
"""Machine states: what moves with the slow episodes inside one launch (bench/episodes.c). Not a test.

    .venv/bin/python bench/episodes.py [--series 4] [--seconds 30] [--lib openmpi]
        [--out bench/results/episodes.json]

Builds bench/episodes.c with the library's mpicc in a temporary folder and runs it --series
times, one after the other, each one launch of 2 ranks for --seconds. Per series: the per-second
medians of its rounds (allreduce 8 B, a compute loop, an 8-byte MPI ping-pong, a cache-line round
trip between the ranks without MPI), the range of each (max/min of the per-second medians), and
the Spearman correlation of the allreduce's round medians with each of the others. Reading: a
path whose range stays near 1 while the allreduce's moves, and whose correlation is low, is not
what the episodes slow down.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

import pandas as pd
from scipy import stats

from mpimeter.campaign.launcher import build_argv, local_template

REPO = Path(__file__).resolve().parents[1]
MPICC = {"openmpi": "mpicc.openmpi", "mpich": "mpicc.mpich"}
PATHS = ("compute_ns", "pingpong_8_ns", "cacheline_rtt_ns")


def series(binary: Path, lib: str, seconds: float) -> dict:
    argv = build_argv(local_template(lib), 2, [str(binary), str(seconds)])
    out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds * 4 + 60, check=True).stdout
    rounds = pd.read_csv(pd.io.common.StringIO(out), sep=" ")
    per_second = rounds.groupby(rounds.seconds.astype(int)).median().drop(columns="seconds")
    return {"rounds": len(rounds),
            "range_max_over_min": {c: round(float(per_second[c].max() / per_second[c].min()), 3)
                                   for c in per_second.columns},
            "median_ns": {c: float(rounds[c].median()) for c in rounds.columns if c != "seconds"},
            "spearman_with_allreduce": {c: round(float(stats.spearmanr(rounds.allreduce_8_ns, rounds[c])[0]), 3)
                                        for c in PATHS},
            "per_second_ns": per_second.astype(int).reset_index().to_dict("records")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--lib", default="openmpi", choices=sorted(MPICC))
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "episodes.json")
    args = parser.parse_args()
    if args.series < 1 or not 1 <= args.seconds <= 3600:
        parser.error("--series must be at least 1 and --seconds within 1..3600")
    with tempfile.TemporaryDirectory() as tmp:
        binary = Path(tmp) / "episodes"
        subprocess.run([MPICC[args.lib], "-O2", "-o", str(binary), str(REPO / "bench" / "episodes.c")], check=True)
        result = {"lib": args.lib, "seconds": args.seconds, "series": []}
        for i in range(args.series):
            result["series"].append(series(binary, args.lib, args.seconds))
            s = result["series"][-1]
            print(f"series {i}: medians {s['median_ns']}; range {s['range_max_over_min']}; "
                  f"spearman with allreduce {s['spearman_with_allreduce']}", flush=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
