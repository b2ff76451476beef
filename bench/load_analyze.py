"""Load-and-analyze time of `mpimeter.analysis` for 10^6 and 10^7 raw rows; prints JSON.

    .venv/bin/python bench/load_analyze.py [--rows 1e6,1e7] [--dir /tmp/mpimeter-bench]

A synthetic campaign (10 launches, 2 ranks, skewed run times, written exactly as
docs/FORMAT.md says) is generated under --dir once per size. For each size it measures:
cold = read raw.csv (no Parquet copy yet) + analyze; warm = read the Parquet copies + analyze.
Not a test: no pass/fail, the figures go into notes.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python" / "tests" / "data"))

import synth  # noqa: E402

from mpimeter import analysis  # noqa: E402

LAUNCHES, RANKS = 10, 2


def make(folder: Path, rows: int) -> dict:
    tests = 10
    nrep = max(1, rows // (LAUNCHES * RANKS * tests))
    ops, sizes = ("allreduce", "bcast"), (8, 64, 512, 4096, 32768)
    marker = folder / "rows.json"
    if marker.exists() and json.loads(marker.read_text())["rows"] == LAUNCHES * RANKS * tests * nrep:
        return json.loads(marker.read_text())
    if folder.exists():
        shutil.rmtree(folder)
    synth.write_campaign(folder, LAUNCHES, seed=7, ops=ops, sizes=sizes, nrep=nrep, nprocs=RANKS)
    info = {"rows": LAUNCHES * RANKS * tests * nrep, "launches": LAUNCHES, "ranks": RANKS, "tests": tests,
            "nrep": nrep, "csv_bytes": sum(p.stat().st_size for p in folder.rglob("raw.csv"))}
    marker.write_text(json.dumps(info))
    return info


def timed(folder: Path) -> dict:
    t0 = time.perf_counter()
    camp = analysis.load_campaign(folder)
    t1 = time.perf_counter()
    res = analysis.analyze(camp)
    t2 = time.perf_counter()
    return {"load_s": round(t1 - t0, 3), "analyze_s": round(t2 - t1, 3), "total_s": round(t2 - t0, 3),
            "result_rows": len(res.rows)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="1e6,1e7")
    ap.add_argument("--dir", default="/tmp/mpimeter-bench")
    args = ap.parse_args()
    out = {"benchmark": "load_analyze", "machine_cpus": __import__("os").cpu_count(), "sizes": []}
    for n in (int(float(x)) for x in args.rows.split(",")):
        folder = Path(args.dir) / f"rows_{n}"
        info = make(folder, n)
        for p in list(folder.rglob("raw.parquet")) + list(folder.rglob("campaign.duckdb")):
            p.unlink()
        cold = timed(folder)
        warm = timed(folder)
        out["sizes"].append(dict(info, cold=cold, warm=warm))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
