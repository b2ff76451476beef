# SPDX-License-Identifier: BSD-3-Clause
"""Memory and output at 1024 simulated ranks x 1000 repetitions, --raw full
against --raw reduced; writes one JSON object. Not a test.

    .venv/bin/python bench/simulate_memory.py [--p 1024] [--nreps 10,100,1000] [--also-p 256]
        [--out bench/results/simulate_memory.json]

Each case (p, nrep, raw mode) is one launch of `build/smpi/bin/mpimeter-bench --ops allreduce
--sizes 8 --nrep N --warmup 0 --procsync barrier --clocksync none --raw MODE` on the simulated
cluster of bench/sim_platform.py, run twice:
- plainly: the simulator's peak RSS (os.wait4), the real and the simulated time, and the sizes
  of raw.csv, meta.json and sync.csv. Under SMPI every rank lives in the one simulator process,
  so the RSS is the sum over all ranks plus the simulator, not rank 0's memory;
- under bench/heap_by_rank.c (LD_PRELOAD): every heap block charged to the simulated rank that
  allocated it, so rank 0's peak heap and every other rank's are measured, not inferred.
Next to them, the binary's own accounting of its repetition arrays (mm_rep_arrays_bytes, from
`mpimeter-bench --validate P`): rank 0's (its own arrays plus the space it receives rows in: a
chunk of ranks with full rows, one rank's worth with reduced ones) and another rank's.
"growth" puts the per-rank figures side by side over nrep (at the largest p) and over p (at the
largest nrep): a non-root rank's heap must follow nrep and not p x nrep; rank 0's repetition
memory must stay bounded with full rows and follow nrep with reduced ones (its heap also holds
O(p) of provenance and meta.json, whatever nrep); raw.csv must follow p x nrep with full rows
and nrep with reduced ones.

Cost (2 shared cores, nice 15): 1024 ranks x 1000 repetitions take 1.5-4 min per launch (the
whole study ~20 min), because
SMPI_SCALE_CFG replaces SMPI's linear default barrier, reduce and allreduce, which make every
call at 1024 ranks cost the simulator 0.3-1.4 s (docs/ALGORITHMS.md, "Simulated clusters").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_platform  # noqa: E402
import simulate  # noqa: E402

HEAP_SOURCE = Path(__file__).resolve().parent / "heap_by_rank.c"
FILES = ("raw.csv", "meta.json", "sync.csv")


def bench_args(nrep: int, raw: str, out: Path) -> list[str]:
    return ["--ops", "allreduce", "--sizes", "8", "--nrep", str(nrep), "--warmup", "0",
            "--procsync", "barrier", "--clocksync", "none", "--raw", raw, "--out", str(out)]


def smpirun(p: int, workdir: Path, args: list[str]) -> list[str]:
    xml, hosts = sim_platform.write(p, workdir)
    return ["nice", "-n", "15", "smpirun", "-np", str(p), "-platform", str(xml), "-hostfile", str(hosts),
            *simulate.SMPI_CFG, *simulate.SMPI_SCALE_CFG, "--cfg=smpi/display-timing:yes",
            str(simulate.BENCH), *args]


def accounted(p: int, nrep: int, raw: str, workdir: Path) -> dict:
    """The binary's own figures: `--validate P` under smpirun -np 1 (the SMPI build runs only
    inside the simulator; --validate needs no MPI, so one simulated rank suffices)."""
    cmd = smpirun(1, workdir, ["--validate", str(p), *bench_args(nrep, raw, workdir / "unused")[:-2]])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    doc = next((json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")), None)
    if proc.returncode != 0 or doc is None:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return doc["rep_arrays_bytes"]


def run(cmd: list[str], logdir: Path, env: dict | None = None) -> tuple[str, float, int]:
    """Runs cmd; its stderr, real seconds and peak RSS in bytes. smpirun is a shell script:
    wait4's usage covers the process and its reaped descendants, so the largest, the simulator."""
    logdir.mkdir(parents=True, exist_ok=True)
    with open(logdir / "stdout", "w") as out, open(logdir / "stderr", "w") as err:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        real = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = (logdir / "stderr").read_text(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{stderr[-3000:]}")
    return stderr, real, usage.ru_maxrss * 1024


def heap_library(workdir: Path) -> Path:
    so = workdir / "heap_by_rank.so"
    if not so.exists() or so.stat().st_mtime < HEAP_SOURCE.stat().st_mtime:
        workdir.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(so), str(HEAP_SOURCE), "-ldl"], check=True)
    return so


def seconds(pattern: str, text: str) -> float | None:
    m = re.search(pattern, text)
    return float(m[1]) if m else None


def per_rank_heap(report: dict, p: int) -> dict:
    """heap_by_rank's report by simulated rank (SMPI 3.32 gives rank r the actor pid r + 1; pid
    0 is the simulator itself)."""
    by_pid = {a[0]: {"peak_bytes": a[1], "live_at_exit_bytes": a[2], "allocated_bytes": a[3], "blocks": a[4]}
              for a in report["actors"]}
    ranks = [by_pid.get(r + 1) for r in range(p)]
    if any(r is None for r in ranks) or max(by_pid) != p:
        raise RuntimeError(f"heap report has actors {sorted(by_pid)[:5]}...{max(by_pid)}, expected 0..{p}")
    others = [r["peak_bytes"] for r in ranks[1:]]
    return {"rank0": ranks[0], "rank1": ranks[1], "last_rank": ranks[-1],
            "other_ranks_peak_bytes": {"min": min(others), "median": int(statistics.median(others)),
                                       "max": max(others)},
            "simulator": by_pid.get(0), "untracked_blocks": report["untracked_blocks"],
            "live_blocks_max": report["live_blocks_max"]}


def launch(p: int, nrep: int, raw: str, workdir: Path) -> dict:
    """One case: a plain launch (RSS, times, files) and one under heap_by_rank (per-rank heap)."""
    row = {"p": p, "nrep": nrep, "raw": raw, "rep_arrays_bytes": accounted(p, nrep, raw, workdir)}
    out = workdir / f"launch-{p}-{nrep}-{raw}"
    shutil.rmtree(out, ignore_errors=True)
    stderr, real, rss = run(smpirun(p, workdir, bench_args(nrep, raw, out)), workdir / "logs" / out.name)
    files = {name: (out / name).stat().st_size if (out / name).exists() else 0 for name in FILES}
    with (out / "raw.csv").open() as f:
        rows = sum(1 for _ in f) - 1  # the header
    row.update({"real_s": round(real, 1), "simulated_s": seconds(r"Simulated time: ([\d.e+-]+)", stderr),
                "simulator_s": seconds(r"The simulation took ([\d.e+-]+) seconds", stderr),
                "process_peak_rss_bytes": rss, "file_bytes": files, "raw_csv_rows": rows})
    heap_out = workdir / f"heap-{p}-{nrep}-{raw}.json"
    heap_out.unlink(missing_ok=True)
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, LD_PRELOAD=str(heap_library(workdir)), MM_HEAP_OUT=str(heap_out))
    _, real_heap, _ = run(smpirun(p, workdir, bench_args(nrep, raw, out)), workdir / "logs" / (out.name + "-heap"), env)
    row["heap"] = per_rank_heap(json.loads(heap_out.read_text()), p)
    row["heap_real_s"] = round(real_heap, 1)
    shutil.rmtree(out, ignore_errors=True)  # up to ~50 MB of raw.csv per case: not kept
    print(f"simulate_memory: p={p} nrep={nrep} {raw}: {real:.0f} s real, rank 0 heap peak "
          f"{row['heap']['rank0']['peak_bytes']} B, raw.csv {files['raw.csv']} B", file=sys.stderr)
    return row


def growth(runs: list[dict]) -> dict:
    """Per raw mode: the per-rank figures over nrep at the largest p, and over p at the largest
    nrep."""
    out = {}
    p_max = max(r["p"] for r in runs)
    nrep_max = max(r["nrep"] for r in runs)
    for raw in ("full", "reduced"):
        mine = [r for r in runs if r["raw"] == raw]

        def pick(r):
            return {"rank0_heap_peak_bytes": r["heap"]["rank0"]["peak_bytes"],
                    "rank0_accounted_bytes": r["rep_arrays_bytes"]["rank0"],
                    "other_rank_heap_peak_max_bytes": r["heap"]["other_ranks_peak_bytes"]["max"],
                    "other_rank_accounted_bytes": r["rep_arrays_bytes"]["other_rank"],
                    "raw_csv_bytes": r["file_bytes"]["raw.csv"],
                    "process_peak_rss_bytes": r["process_peak_rss_bytes"]}

        out[raw] = {"by_nrep_at_p": {str(r["nrep"]): pick(r) for r in sorted(mine, key=lambda r: r["nrep"])
                                     if r["p"] == p_max},
                    "by_p_at_nrep": {str(r["p"]): pick(r) for r in sorted(mine, key=lambda r: r["p"])
                                     if r["nrep"] == nrep_max}}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--p", type=int, default=1024, help="ranks of the main cases")
    ap.add_argument("--nreps", default="10,100,1000", help="repetition counts at --p")
    ap.add_argument("--also-p", default="256", help="more rank counts, at the largest nrep (empty: none)")
    ap.add_argument("--workdir", type=Path, default=simulate.ROOT / "build" / "sim-memory")
    ap.add_argument("--out", type=Path, default=simulate.ROOT / "bench" / "results" / "simulate_memory.json")
    a = ap.parse_args(argv)
    why = simulate.smpi_missing()
    if why:
        print(f"simulate_memory: {why}", file=sys.stderr)
        return 1
    nreps = [int(x) for x in a.nreps.split(",") if x]
    cases = [(a.p, n) for n in nreps] + [(int(p), max(nreps)) for p in a.also_p.split(",") if p]
    runs = [launch(p, n, raw, a.workdir) for p, n in cases for raw in ("full", "reduced")]
    doc = {"runs": runs, "growth": growth(runs),
           "bench_args": bench_args(0, "MODE", Path("DIR")), "smpi_cfg": [*simulate.SMPI_CFG, *simulate.SMPI_SCALE_CFG],
           "platform": {"generator": "bench/sim_platform.py", "seed": 1},
           "notes": {"process_peak_rss_bytes": "the whole simulator: every rank, SimGrid and SMPI (one process)",
                     "heap": "per simulated rank, every heap block it allocated while live (bench/heap_by_rank.c); "
                             "not stacks, privatized globals or mmap",
                     "rep_arrays_bytes": "the binary's own accounting (mm_rep_arrays_bytes via --validate P)",
                     "real_s": "wall time of the plain launch on 2 shared cores at nice 15 (noisy)",
                     "simulated_s": "simulated time of the whole launch (SMPI's display-timing)",
                     "simulator_s": "SimGrid's own count of the simulation's time after platform setup"}}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps(doc["growth"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
