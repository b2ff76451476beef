# SPDX-License-Identifier: BSD-3-Clause
"""The one-sided benchmark: mpimeter's one-sided latency and bandwidth beside OSU's, interleaved in
one run; writes bench/results/rma_vs_osu.json. Not a test.

    .venv/bin/python bench/rma_vs_osu.py --osu-dir DIR [--libs openmpi,mpich] [--rounds 1] [--nrep 200]

DIR holds OSU Micro-Benchmarks 5.x one-sided binaries built against each library, as
DIR/<lib>/osu_put_latency, osu_get_latency, osu_put_bw (OSU's sources: mpi/one-sided). Per
library and round, for each synchronization mode OSU has that mpimeter has too (OSU -s lock,
flush, flush_local, fence, pscw ↔ --rma-sync lock-shared, lock-all-flush, lock-all-flush-local,
fence, pscw; OSU's lock_all has no mpimeter mode) and for put and get: one OSU run, then one
mpimeter launch of the same operation, mode and window (MPI_Win_allocate, OSU's default) at 8 B,
1 KiB and 64 KiB; then osu_put_bw (flush) beside rma-put-bw with --rma-burst 32 (OSU's window).
OSU's tables are read with mpimeter's own importer (mpimeter.io.peers), so the mapping is the
one `mpimeter import osu` uses. OSU prints a mean; mpimeter's median and mean are both given.

The machine is shared: each figure carries the 1-minute load average before and after it
(os.getloadavg). Compare within one round, never across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from mpimeter import analysis
from mpimeter.campaign.launcher import bench_binary, build_argv, default_bench_dir, local_template
from mpimeter.io.peers import read_peer

ROOT = Path(__file__).resolve().parents[1]
SIZES = (8, 1024, 65536)
# OSU -s → mpimeter --rma-sync (the mapping of mpimeter.io.peers.osu_rma for put and get)
MODES = {"lock": "lock-shared", "flush": "lock-all-flush", "flush_local": "lock-all-flush-local", "fence": "fence",
         "pscw": "pscw"}
BURST = 32  # OSU 5.x's window of back-to-back operations in its bandwidth tests


def load() -> float:
    return round(os.getloadavg()[0], 2)


def osu(lib: str, binary: Path, args: list[str], out: Path, iters: int) -> dict:
    before = load()
    argv = build_argv(local_template(lib), 2, [str(binary), *args, "-i", str(iters), "-x", str(max(iters // 10, 1))])
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}", "load_before": before}
    out.write_text(proc.stdout)
    run = read_peer("osu", out)
    return {"ns": {t.size: t.run_times_ns[0] for t in run.tests}, "sync": run.rma["sync"],
            "load_before": before, "load_after": load(), "seconds": round(time.monotonic() - t0, 1)}


def mpimeter(lib: str, args: list[str], out: Path) -> dict:
    if out.exists():
        shutil.rmtree(out)
    before = load()
    argv = build_argv(local_template(lib), 2, [str(bench_binary(default_bench_dir(), lib)), *args, "--seed", "28",
                                               "--out", str(out)])
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}", "load_before": before}
    res = analysis.analyze(analysis.load_campaign(out, cache=False, store=False))
    return {"rows": {(r.op, r.size): r for r in res.rows}, "failed": failures(out), "load_before": before,
            "load_after": load()}


def failures(out: Path) -> dict[tuple[str, int], str]:
    """The launch's failed tests (no rows: e.g. verify-failed) → their error message."""
    meta = json.loads((out / "meta.json").read_text())
    return {(t["op"], t["size"]): f"{t['error']['code']}: {t['error'].get('message', '')}"
            for t in meta["tests"] if t["status"] == "failed" and t.get("error")}


def latency(lib: str, osu_dir: Path, work: Path, nrep: int, iters: int, rnd: int) -> list[dict]:
    figures = []
    for osu_mode, sync in MODES.items():
        for call in ("put", "get"):
            o = osu(lib, osu_dir / lib / f"osu_{call}_latency", ["-s", osu_mode],
                    work / f"osu-{lib}-{call}-{osu_mode}-{rnd}.txt", iters)
            m = mpimeter(lib, ["--ops", f"rma-{call}", "--sizes", ",".join(map(str, SIZES)), "--rma-sync", sync,
                               "--rma-window", "allocate", "--nrep", str(nrep)], work / f"mm-{lib}-{call}-{sync}-{rnd}")
            for size in SIZES:
                row = m.get("rows", {}).get((f"rma-{call}", size))
                figures.append({
                    "lib": lib, "round": rnd, "op": f"rma-{call}", "osu": f"osu_{call}_latency -s {osu_mode}",
                    "rma_sync": sync, "size": size, "osu_mean_ns": o.get("ns", {}).get(size),
                    "mpimeter_median_ns": None if row is None else round(row.median_ns, 1),
                    "mpimeter_mean_ns": None if row is None else round(row.mean_ns, 1),
                    "mpimeter_repetitions": None if row is None else row.repetitions,
                    "load_osu": [o.get("load_before"), o.get("load_after")],
                    "load_mpimeter": [m.get("load_before"), m.get("load_after")],
                    "error": o.get("error") or m.get("error") or m.get("failed", {}).get((f"rma-{call}", size))})
    return figures


def bandwidth(lib: str, osu_dir: Path, work: Path, nrep: int, iters: int, rnd: int) -> list[dict]:
    o = osu(lib, osu_dir / lib / "osu_put_bw", ["-s", "flush"], work / f"osu-{lib}-put-bw-{rnd}.txt", iters)
    m = mpimeter(lib, ["--ops", "rma-put-bw", "--sizes", ",".join(map(str, SIZES)), "--rma-sync", "lock-all-flush",
                       "--rma-window", "allocate", "--rma-burst", str(BURST), "--nrep", str(nrep)],
                 work / f"mm-{lib}-put-bw-{rnd}")
    figures = []
    for size in SIZES:
        row = m.get("rows", {}).get(("rma-put-bw", size))
        osu_ns = o.get("ns", {}).get(size)
        figures.append({
            "lib": lib, "round": rnd, "op": "rma-put-bw", "osu": "osu_put_bw -s flush", "rma_sync": "lock-all-flush",
            "burst": BURST, "size": size,
            "osu_MBps": None if not osu_ns else round(size * BURST / osu_ns * 1000, 1),
            # the harmonic mean of size x burst / run time over the repetitions
            "mpimeter_MBps": None if row is None or row.bandwidth_Bps is None else round(row.bandwidth_Bps / 1e6, 1),
            "mpimeter_median_epoch_ns": None if row is None else round(row.median_ns, 1),
            "load_osu": [o.get("load_before"), o.get("load_after")],
            "load_mpimeter": [m.get("load_before"), m.get("load_after")],
            "error": o.get("error") or m.get("error") or m.get("failed", {}).get(("rma-put-bw", size))})
    return figures


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--osu-dir", type=Path, required=True)
    p.add_argument("--libs", default="openmpi,mpich")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--nrep", type=int, default=200)
    p.add_argument("--osu-iters", type=int, default=200)
    p.add_argument("--dir", type=Path, default=Path("/tmp/mm-bench-rma"))
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "rma_vs_osu.json")
    a = p.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    out = {"np": 2, "sizes": list(SIZES), "window": "allocate", "osu_iters": a.osu_iters, "nrep": a.nrep,
           "cpus": os.cpu_count(), "latency": [], "bandwidth": []}
    for rnd in range(a.rounds):
        for lib in a.libs.split(","):
            out["latency"] += latency(lib, a.osu_dir, a.dir, a.nrep, a.osu_iters, rnd)
            out["bandwidth"] += bandwidth(lib, a.osu_dir, a.dir, a.nrep, a.osu_iters, rnd)
            a.out.write_text(json.dumps(out, indent=1) + "\n")  # kept as it grows
    a.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
