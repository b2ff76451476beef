# SPDX-License-Identifier: BSD-3-Clause
"""The nonblocking benchmark: nonblocking overhead and overlap, ping-pong latency and bandwidth, and the
systematic overhead of one measurement per timer; prints one JSON object. Not a test.

    .venv/bin/python bench/nbc_pingpong.py [--libs openmpi,mpich] [--np 4] [--nrep 30] [--dir /tmp/mm-bench]

1. Nonblocking: on --np ranks with each library, iallreduce and ibcast at 8 B, 64 KiB and
   1 MiB, with --nbc-scheme time and work, without and with MPI_Test calls (--test-interval
   16384: 1, 5 and 65 tests at the three sizes): one launch each, analysed with
   `mpimeter.analysis` (overhead, blocking, NBCBench/IMB/OSU overlap, medians over repetitions).
2. Ping-pong: pingpong-send-recv between 2 ranks from 1 B to 4 MiB (×4 steps), --datatype byte:
   one-way latency (half the round trip) and bandwidth (size / one-way), next to the
   osu_latency output taken on this machine (../shared/data/peer-outputs/osu-latency.txt) when
   it is there.
3. Per timer the binary describes: probes.empty_region_ns (the median of 1001 empty timed
   regions, max over ranks) and the median of simple-empty.

Timings on a loaded 2-core machine are noisy: compare within one run, never across runs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from mpimeter import analysis
from mpimeter.campaign.launcher import bench_binary, build_argv, default_bench_dir, local_template

ROOT = Path(__file__).resolve().parents[1]
OSU = ROOT.parent / "shared" / "data" / "peer-outputs" / "osu-latency.txt"
NBC_SIZES = (8, 65536, 1048576)
PP_SIZES = tuple(4 ** k for k in range(12))  # 1 B … 4 MiB


def launch(lib: str, np_: int, args: list[str], out: Path) -> analysis.AnalysisResult:
    if out.exists():
        shutil.rmtree(out)
    argv = build_argv(local_template(lib), np_, [str(bench_binary(default_bench_dir(), lib)), *args, "--out", str(out)])
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    return analysis.analyze(analysis.load_campaign(out, cache=False, store=False))


def nonblocking(lib: str, np_: int, nrep: int, root: Path) -> list[dict]:
    rows = []
    for scheme in ("time", "work"):
        for interval in (None, 16384):
            extra = ["--test-interval", str(interval)] if interval else []
            res = launch(lib, np_, ["--ops", "iallreduce,ibcast", "--sizes", ",".join(map(str, NBC_SIZES)),
                                    "--nrep", str(nrep), "--nbc-scheme", scheme, "--seed", "12", *extra],
                         root / f"nbc-{lib}-{scheme}-{interval or 0}")
            for r in res.nbc_rows:
                rows.append({"lib": lib, "scheme": scheme, "test_interval": interval, "op": r.op, "size": r.size,
                             "tests": r.tests_per_rep, "overhead_ns": round(r.overhead_ns),
                             "init_ns": round(r.init_ns), "test_ns": round(r.test_ns), "wait_ns": round(r.wait_ns),
                             "blocking_ns": round(r.blocking_ns), "compute_ns": round(r.compute_ns),
                             "overlap": round(r.overlap, 3), "overlap_imb": round(r.overlap_imb, 3),
                             "overlap_osu": round(r.overlap_osu, 3), "repetitions": r.repetitions})
    return rows


def osu_latency() -> dict[int, float]:
    if not OSU.exists():
        return {}
    out = {}
    for line in OSU.read_text().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            out[int(parts[0])] = float(parts[1]) * 1000.0
    return out


def pingpong(lib: str, nrep: int, root: Path) -> list[dict]:
    res = launch(lib, 2, ["--ops", "pingpong-send-recv", "--datatype", "byte", "--sizes",
                          ",".join(map(str, PP_SIZES)), "--nrep", str(nrep), "--seed", "12"], root / f"pp-{lib}")
    osu = osu_latency() if lib == "openmpi" else {}
    return [{"lib": lib, "size": r.size, "one_way_ns": round(r.median_ns, 1),
             "bandwidth_GiBps": None if r.bandwidth_Bps is None else round(r.bandwidth_Bps / 2**30, 3),
             "osu_latency_ns": osu.get(r.size)} for r in res.rows]


def timers(lib: str) -> list[str]:
    doc = json.loads(subprocess.run([str(bench_binary(default_bench_dir(), lib)), "--describe"], capture_output=True,
                                    text=True, check=True).stdout)
    # wtime says "unavailable" before MPI_Init (--describe runs without MPI): tried like the others
    return [t["name"] for t in doc["timers"] if t["name"] != "virtual"]


def empty_regions(lib: str, root: Path) -> list[dict]:
    rows = []
    for timer in timers(lib):
        try:
            res = launch(lib, 2, ["--ops", "simple-empty", "--timer", timer, "--nrep", "1000", "--procsync",
                                  "barrier", "--clocksync", "none"], root / f"empty-{lib}-{timer}")
        except SystemExit as exc:  # a timer this machine lacks: say so, go on
            rows.append({"lib": lib, "timer": timer, "error": str(exc)[-300:]})
            continue
        (li,) = res.campaign.launches
        rows.append({"lib": lib, "timer": timer, "empty_region_ns": li.meta.empty_region_ns,
                     "simple_empty_median_ns": round(res.rows[0].median_ns, 1)})
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--libs", default="openmpi,mpich")
    p.add_argument("--np", type=int, default=4)
    p.add_argument("--nrep", type=int, default=30)
    p.add_argument("--pp-nrep", type=int, default=300)
    p.add_argument("--dir", type=Path, default=Path("/tmp/mm-bench-nbc"))
    a = p.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    libs = a.libs.split(",")
    out = {"np": a.np, "nonblocking": [], "pingpong": [], "empty_region": []}
    for lib in libs:
        out["nonblocking"] += nonblocking(lib, a.np, a.nrep, a.dir)
        out["pingpong"] += pingpong(lib, a.pp_nrep, a.dir)
        out["empty_region"] += empty_regions(lib, a.dir)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
