# SPDX-License-Identifier: BSD-3-Clause
"""Load-and-analyze time and peak memory of `mpimeter.analysis` at 10^6 … 10^8 raw rows; prints JSON.

    .venv/bin/python bench/load_analyze.py [--cases 1e6:2:10,1e7:2:10,1e8:1024:30] [--dir /tmp/mpimeter-bench]

A case is ROWS:RANKS:LAUNCHES: a synthetic campaign of LAUNCHES launches on RANKS ranks and 10
tests (allreduce and bcast at 5 sizes), as many repetitions as make ROWS raw rows, written
exactly as docs/FORMAT.md says (python/tests/data/synth.py), once per case under --dir. The
default 10^8 case is the large case: a 1024-rank campaign of 30 launches.

For each case, each in a fresh process (so that its peak RSS is its own):
cold = read raw.csv (no Parquet copy, no campaign.duckdb yet) + analyze; warm = the same again,
now reading the Parquet copies. Reported: seconds for load and analyze, the process's peak RSS
(ru_maxrss), and whether the Parquet copies and the store were (re)written by the warm run.
Not a test: no pass/fail, the figures go into notes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python" / "tests" / "data"))

OPS, SIZES = ("allreduce", "bcast"), (8, 64, 512, 4096, 32768)


def make(folder: Path, rows: int, ranks: int, launches: int) -> dict:
    import synth

    tests = len(OPS) * len(SIZES)
    nrep = max(1, round(rows / (launches * ranks * tests)))
    total = launches * ranks * tests * nrep
    marker = folder / "rows.json"
    if marker.exists() and json.loads(marker.read_text()).get("rows") == total:
        return json.loads(marker.read_text())
    if folder.exists():
        shutil.rmtree(folder)
    t0 = time.perf_counter()
    synth.write_campaign(folder, launches, seed=7, ops=OPS, sizes=SIZES, nrep=nrep, nprocs=ranks)
    info = {"rows": total, "launches": launches, "ranks": ranks, "tests": tests, "nrep": nrep,
            "csv_bytes": sum(p.stat().st_size for p in folder.rglob("raw.csv")),
            "generate_s": round(time.perf_counter() - t0, 1)}
    marker.write_text(json.dumps(info))
    return info


def _mtimes(folder: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns
            for p in [*folder.rglob("raw.parquet"), *folder.rglob("campaign.duckdb")]}


def measure(folder: Path) -> dict:
    """One load + analyze in this process (run as a child: ``--measure FOLDER``)."""
    from mpimeter import analysis

    before = _mtimes(folder)
    t0 = time.perf_counter()
    camp = analysis.load_campaign(folder)
    t1 = time.perf_counter()
    res = analysis.analyze(camp)
    t2 = time.perf_counter()
    after = _mtimes(folder)
    return {"load_s": round(t1 - t0, 2), "analyze_s": round(t2 - t1, 2), "total_s": round(t2 - t0, 2),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "cpu_s": round(sum(resource.getrusage(resource.RUSAGE_SELF)[:2]), 1),
            "result_rows": len(res.rows), "repetitions": len(res.repetitions),
            "files_written": sum(1 for k, v in after.items() if before.get(k) != v)}


def child(folder: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--measure", str(folder)], check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="1e6:2:10,1e7:2:10,1e8:1024:30")
    ap.add_argument("--dir", default="/tmp/mpimeter-bench")
    ap.add_argument("--measure", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(Path(args.measure))))
        return
    out = {"benchmark": "load_analyze", "machine_cpus": os.cpu_count(),
           "loadavg_start": list(os.getloadavg()), "cases": []}
    for case in args.cases.split(","):
        rows, ranks, launches = case.split(":")
        n, p, nl = int(float(rows)), int(ranks), int(launches)
        folder = Path(args.dir) / f"rows_{n}_p{p}_l{nl}"
        info = make(folder, n, p, nl)
        for f in [*folder.rglob("raw.parquet"), *folder.rglob("campaign.duckdb")]:
            f.unlink()
        cold = child(folder)
        warm = child(folder)
        out["cases"].append(dict(info, cold=cold, warm=warm))
    out["loadavg_end"] = list(os.getloadavg())
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
