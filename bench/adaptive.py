# SPDX-License-Identifier: BSD-3-Clause
"""What adaptive measurement does on this machine; prints one JSON object. Not a test.

    .venv/bin/python bench/adaptive.py [--lib openmpi] [--np 2] [--out FILE] [--skip-campaign]

1. Repetitions: allreduce and bcast at 8 B, 1 KiB, 64 KiB, one launch with each rule (`--nrep
   auto:ci`, `--nrep auto:rse`, defaults: precision 0.02, 30 to 3000, every 10) and one with the
   fixed `--nrep 300`; per test the repetitions used and the precision reached — for the fixed
   launch both rules' precision computed the way the binary's rules compute it (the same
   statistics: mpimeter.stats.intervals.median_ci, scipy's trimmed mean and Tukey–McLaughlin
   standard error) on its 300 run times.
2. Sizes: `--sizes auto:8:1048576` for allreduce and bcast (fixed --nrep 100): the sizes added per
   operation, in order, and why the refinement stopped.
3. Launches: `mpimeter run --launches auto` (min 10, max 30, ±2 %, --nrep auto) for allreduce and
   bcast at 8 B and 64 KiB: launches run, and per (op, size) where and why it stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
# the run times and precisions as the binary's rules compute them: the MPI tests' own helpers,
# which check the binary against them
sys.path.insert(0, str(REPO / "c" / "tests" / "mpi"))
from test_adaptive import _precision, _runtimes  # noqa: E402


def bench(lib: str, np_: int, args: list[str]) -> None:
    runner = (["mpirun.openmpi", "--oversubscribe", "-np", str(np_)] + (["--allow-run-as-root"] if os.geteuid() == 0
                                                                        else [])
              if lib == "openmpi" else ["mpiexec.mpich", "-np", str(np_)])
    subprocess.run(runner + [str(REPO / "build" / lib / "bin" / "mpimeter-bench"), *args], check=True,
                   capture_output=True, text=True, timeout=3600)


def repetitions(lib: str, np_: int, work: Path) -> dict:
    common = ["--ops", "allreduce,bcast", "--sizes", "8,1024,65536", "--seed", "14"]
    out: dict = {}
    for label, extra in (("ci", ["--nrep", "auto:ci"]), ("rse", ["--nrep", "auto:rse"]), ("fixed", ["--nrep", "300"])):
        folder = work / f"nrep-{label}"
        t0 = time.monotonic()
        bench(lib, np_, [*common, *extra, "--out", str(folder)])
        meta = json.loads((folder / "meta.json").read_text())
        raw = pd.read_csv(folder / "raw.csv")
        rows = []
        for t in meta["tests"]:
            x = _runtimes(meta, raw, t["test"])
            row = {"op": t["op"], "size": t["size"], "nrep": t["nrep"], "valid": int(x.size),
                   "duration_s": round(t["duration_s"], 3)}
            if t["adaptive"]:
                row.update(stopped_by=t["adaptive"]["stopped_by"], precision=t["adaptive"]["precision"])
            else:
                res = meta["timer"]["resolution_ns"]
                row.update(precision_if={"ci": _precision("ci", x, res), "rse": _precision("rse", x, res),
                                         "median_ns": float(pd.Series(x).median())})
            rows.append(row)
        out[label] = {"wall_s": round(time.monotonic() - t0, 2),
                      "tests": sorted(rows, key=lambda r: (r["op"], r["size"]))}
    return out


def sizes(lib: str, np_: int, work: Path) -> dict:
    folder = work / "sizes"
    t0 = time.monotonic()
    bench(lib, np_, ["--ops", "allreduce,bcast", "--sizes", "auto:8:1048576", "--nrep", "100", "--seed", "14",
                     "--out", str(folder)])
    meta = json.loads((folder / "meta.json").read_text())
    return {"wall_s": round(time.monotonic() - t0, 2), "grid": meta["config"]["sizes"],
            "refinement": meta["size_refinement"]}


def launches(lib: str, np_: int, work: Path) -> dict:
    folder = work / "campaign"
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-m", "mpimeter", "run", "--np", str(np_), "--mpi", lib, "--launches", "auto",
                    "--ops", "allreduce,bcast", "--sizes", "8,65536", "--nrep", "auto", "--seed", "14",
                    "--out", str(folder), "--no-analyze"], check=True, capture_output=True, text=True, timeout=7200)
    doc = json.loads((folder / "campaign.json").read_text())
    return {"wall_s": round(time.monotonic() - t0, 1), "launches": len(doc["launches"]),
            "tests_of_added_launches": [x["tests"] for x in doc["launches"] if x.get("tests")],
            "pairs": doc["adaptive_launches"]["pairs"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="openmpi")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--skip-campaign", action="store_true")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mm-adaptive-"))
    try:
        result = {"lib": a.lib, "np": a.np, "repetitions": repetitions(a.lib, a.np, work),
                  "sizes": sizes(a.lib, a.np, work)}
        if not a.skip_campaign:
            result["launches"] = launches(a.lib, a.np, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(result, indent=1)
    if a.out:
        a.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
