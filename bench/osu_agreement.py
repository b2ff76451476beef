# SPDX-License-Identifier: BSD-3-Clause
"""What separates osu_latency's average from mpimeter --batch's median at one size (8 B): OSU's
loop with one thing changed at a time (bench/osu_loop.c), interleaved with osu_latency itself and
mpimeter's back-to-back methods in the same rounds; writes bench/results/osu_agreement.json. Not
a test.

    nice -n 19 .venv/bin/python bench/osu_agreement.py --osu-latency PATH/osu_latency
        [--rounds 16] [--seed 40] [--size 8] [--lib openmpi] [--bench PATH/mpimeter-bench]
        [--out bench/results/osu_agreement.json]

Builds bench/osu_loop.c with the library's mpicc in a temporary folder. Every round runs each
configuration once (2 ranks, the project's launcher, as bench/peers.py), in an order shuffled per
round (seeded):

- osu: osu_latency -m SIZE:SIZE (its average: the mean of 10000 individually timed round trips,
  halved); osu_p50: the same with -z50 (OSU 7.x), whose P50 is the median of those round trips;
- batch, single: mpimeter-bench as bench/peers.py runs its methods (the per-launch median
  `analyze` reports, and the mean of the same repetitions);
- osu_loop (osu_loop.c's mode osu: OSU's loop, every round trip kept), osu_loop_cgt (its timer
  clock_gettime), osu_loop_1000 (1000 round trips), batch_loop and batch_loop_1000 (the clock
  only around blocks of 50: mpimeter --batch 50 in OSU's loop), batch_dup_loop_1000 (the same
  after one MPI_Comm_dup and MPI_Comm_free, as mpimeter and IMB make communicators: Open MPI's
  libnbc then stays polled), imb_loop (one clock read pair around all: IMB's), timer_cost (two
  reads, nothing between).

A launch of osu_loop.c or OSU takes the machine state (the cache-line probe) of the mpimeter
launch before it in its round (bench/peers.py's rule). Per configuration and quantity: the median
over rounds; per pair of quantities (PAIRS): their ratio per round, median and quartiles over the
rounds, in all rounds and where both launches were in the fast or slow state. Every launch's load
(load average before it, other processes' CPU share during it) is kept.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import peers
from _launches import NCPUS, REPO, launch_argv, timed

from mpimeter import atomic
from mpimeter.io.errors import InputError
from mpimeter.io.peers import read_peer

MPICC = {"openmpi": "mpicc.openmpi", "mpich": "mpicc.mpich"}
SKIP, BLOCK = 100, 50  # OSU 7.4's LAT_SKIP_SMALL; mpimeter's --batch in bench/peers.py
# osu_loop.c's configurations: name → (mode, round trips timed)
LOOPS = {"osu_loop": ("osu", 10000), "osu_loop_cgt": ("osu_cgt", 10000), "osu_loop_1000": ("osu", 1000),
         "batch_loop": ("batch", 10000), "batch_loop_1000": ("batch", 1000),
         "batch_dup_loop_1000": ("batch_dup", 1000), "imb_loop": ("loop", 10000),
         "timer_cost": ("timer_cost", 10000)}
CONFIGS = ("osu", "osu_p50", "batch", "single", *LOOPS)
# (numerator, denominator) as configuration.quantity; what each isolates is in docs/ALGORITHMS.md
PAIRS = (
    ("osu_loop.mean", "osu.avg"),  # the copy reproduces OSU's figure
    ("osu_loop.median", "osu_p50.p50"),  # ... and its median
    ("osu_p50.avg", "osu.avg"),  # -z50 leaves OSU's average as it was
    ("osu_p50.p50", "osu_p50.avg"),  # OSU's median over its mean, same round trips
    ("osu_loop.mean_below_10x_median", "osu_loop.mean"),  # the mean without the preempted round trips
    ("osu_loop.mean_below_10x_median", "osu_loop.median"),
    ("osu_loop.block_median", "osu_loop.median"),  # the statistic: median of block means vs of round trips
    ("osu_loop_cgt.median", "osu_loop.median"),  # the timer: clock_gettime vs MPI_Wtime
    ("batch_loop.block_median", "osu_loop.block_median"),  # a clock read per round trip vs per 50
    ("batch_loop_1000.block_median", "batch_loop.block_median"),  # 1000 round trips vs 10000
    ("batch_dup_loop_1000.block_median", "batch_loop_1000.block_median"),  # a communicator made first
    ("batch.median", "batch_dup_loop_1000.block_median"),  # mpimeter --batch vs a loop that made one too
    ("osu_loop_1000.mean", "osu_loop.mean"),
    ("imb_loop.mean", "batch_loop.mean"),
    ("batch.median", "batch_loop_1000.block_median"),  # mpimeter --batch vs the same loop in OSU's shape
    ("batch.median", "osu.avg"), ("batch.median", "osu_p50.p50"), ("batch.median", "osu_loop.median"),
    ("batch.median", "osu_loop.block_median"), ("batch.median", "osu_loop.mean_below_10x_median"),
    ("batch.mean", "osu.avg"), ("single.median", "osu_p50.p50"), ("single.median", "batch.median"),
)
STATES = ("all", "fast", "slow")


def build(lib: str, folder: Path) -> Path:
    binary = folder / "osu_loop"
    subprocess.run([MPICC[lib], "-O2", "-o", str(binary), str(REPO / "bench" / "osu_loop.c")], check=True,
                   timeout=300)
    return binary


def run_osu(args: argparse.Namespace, config: str, output: Path) -> dict:
    extra = ["-z50"] if config == "osu_p50" else []
    done, wall, load = timed(launch_argv(args.lib, [args.osu_latency, "-m", f"{args.size}:{args.size}", *extra]),
                             args.timeout_s)
    rec = {"tool": config, "wall_s": round(wall, 4), **load}
    if done.returncode != 0:
        return {**rec, "error": (done.stderr.strip() or done.stdout.strip())[-400:]}
    output.write_text(done.stdout)
    try:
        run = read_peer("osu", output, nprocs=2)
    except InputError as exc:
        return {**rec, "error": f"output: {exc}"}
    row = next((t for t in run.tests if t.size == args.size), None)
    if row is None:
        return {**rec, "error": f"no row of {args.size} B"}
    return {**rec, "ns": {k: float(v) for k, v in row.aggregates_ns.items()}, "tool_version": run.tool_version}


def run_loop(args: argparse.Namespace, binary: Path, config: str) -> dict:
    mode, iters = LOOPS[config]
    argv = [str(binary), mode, str(args.size), str(iters), str(SKIP), str(BLOCK)]
    done, wall, load = timed(launch_argv(args.lib, argv), args.timeout_s)
    rec = {"tool": "osu_loop", "wall_s": round(wall, 4), **load}
    try:
        out = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {**rec, "error": f"exit {done.returncode}: {(done.stderr.strip() or done.stdout.strip())[-400:]}"}
    rec["ns"] = {k.removesuffix("_ns"): v for k, v in out.items() if k.endswith("_ns")}
    rec["facts"] = {k: v for k, v in out.items() if not k.endswith("_ns") and k != "mode"}
    return rec


def run_mpimeter(args: argparse.Namespace, method: str, folder: Path, first: Path, seed: int) -> dict:
    rec = peers.run_mpimeter(args, method, "pingpong", folder, first, seed)
    size = args.size
    if "error" not in rec:
        rec["ns"] = {"median": rec["values_ns"].get(size), "mean": rec["means_ns"].get(size)}
    return {k: v for k, v in rec.items() if k not in ("values_ns", "means_ns", "local_ns")}


def _value(rec: dict, quantity: str) -> float | None:
    v = (rec.get("ns") or {}).get(quantity)
    return float(v) if v else None


def summarize(launches: list[dict]) -> dict:
    ok = [x for x in launches if "error" not in x and x["round"] >= 0]
    by_round: dict[int, dict[str, dict]] = {}
    for x in ok:
        by_round.setdefault(x["round"], {})[x["config"]] = x
    values: dict = {}
    for config in CONFIGS:
        rows = [x for x in ok if x["config"] == config]
        if not rows:
            continue
        keys = sorted({k for x in rows for k in (x.get("ns") or {})})
        values[config] = {"launches": len(rows),
                          "median_ns": {k: round(statistics.median(v), 2) for k in keys
                                        if (v := [_value(x, k) for x in rows if _value(x, k)])},
                          "load1_median": round(statistics.median(x["load1"] for x in rows), 2),
                          "other_cpu_share_median": round(statistics.median(x["other_cpu_share"] for x in rows), 3)}
    ratios: dict = {}
    for num, den in PAIRS:
        (a, qa), (b, qb) = num.split("."), den.split(".")
        for state in STATES:
            got = [_value(r[a], qa) / _value(r[b], qb) for r in by_round.values() if a in r and b in r
                   and _value(r[a], qa) and _value(r[b], qb)
                   and (state == "all" or r[a]["state"] == r[b]["state"] == state)]
            if got:
                q1, med, q3 = np.quantile(got, [0.25, 0.5, 0.75])
                ratios.setdefault(f"{num} / {den}", {})[state] = {
                    "median": round(float(med), 4), "q1": round(float(q1), 4), "q3": round(float(q3), 4),
                    "rounds": len(got)}
    loads = [x["load1"] for x in ok]
    return {"values": values, "ratios": ratios,
            "load1": {"median": round(statistics.median(loads), 2), "min": round(min(loads), 2),
                      "max": round(max(loads), 2)} if loads else None}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = peers._Parser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--osu-latency", type=peers._executable, required=True, help="OSU 7.x's osu_latency")
    p.add_argument("--rounds", type=peers._whole(1, 10000), default=16)
    p.add_argument("--seed", type=peers._whole(0, 2**31 - 1), default=40)
    p.add_argument("--size", type=peers._whole(1, 2**20), default=8, help="bytes per message [8]")
    p.add_argument("--lib", default="openmpi", choices=sorted(MPICC))
    p.add_argument("--bench", type=peers._executable, help="mpimeter-bench [build/LIB/bin/mpimeter-bench]")
    p.add_argument("--timeout-s", type=peers._positive, default=300.0, help="a launch running longer is killed [300]")
    p.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "osu_agreement.json")
    args = p.parse_args(argv)
    if args.size not in peers.SIZES:
        p.error(f"--size {args.size}: mpimeter's launches measure {', '.join(map(str, peers.SIZES))} B only")
    if not args.out.parent.is_dir():
        p.error(f"--out {args.out}: the folder {args.out.parent} does not exist")
    if args.bench is None:
        args.bench = REPO / "build" / args.lib / "bin" / "mpimeter-bench"
        if not args.bench.is_file():
            p.error(f"{args.bench} does not exist: build mpimeter for {args.lib} first (make build)")
    args.baseline_bench, args.fast_below_ns = None, 200.0  # what peers.run_mpimeter reads
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    rng = random.Random(args.seed)
    launches: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="osu_agreement.") as tmp_name:
        tmp = Path(tmp_name)
        binary = build(args.lib, tmp)
        first = tmp / "first"
        rec = peers.run_mpimeter(args, "default", "pingpong", first, None, rng.randrange(2**31))
        if "error" in rec:
            sys.exit(f"osu_agreement.py: the first mpimeter launch failed: {rec['error']}")
        header = {"size": args.size, "lib": args.lib, "ranks": 2, "cpus": NCPUS, "seed": args.seed,
                  "rounds_asked": args.rounds, "osu_latency": args.osu_latency, "bench": str(args.bench),
                  "mpimeter_methods": {m: peers.METHODS[m] for m in ("batch", "single")},
                  "osu_loop": {name: {"mode": m, "round_trips": n, "skip": SKIP, "block": BLOCK}
                               for name, (m, n) in LOOPS.items()},
                  "values": "one-way ns (half the round trip); osu: OSU's printed µs × 1000 (10 ns steps)",
                  "state_rule": "mpimeter launches: their cache-line probe; the others: the mpimeter launch "
                                "before them in the round, else after it (bench/peers.py)",
                  "started_utc": peers._utc()}
        for round_ in range(args.rounds):
            order = list(CONFIGS)
            rng.shuffle(order)
            records = []
            for k, config in enumerate(order):
                where = tmp / f"{round_:03d}-{k:02d}-{config}"
                if config in ("batch", "single"):
                    rec = run_mpimeter(args, config, where, first, rng.randrange(2**31))
                elif config in LOOPS:
                    rec = run_loop(args, binary, config)
                else:
                    rec = run_osu(args, config, where.with_suffix(".txt"))
                shutil.rmtree(where, ignore_errors=True)  # read: the values are in the record
                where.with_suffix(".txt").unlink(missing_ok=True)
                records.append({**rec, "config": config, "round": round_, "position": k})
                print(f"round {round_} {k + 1}/{len(order)} {config}: {rec['wall_s']:.2f} s"
                      f"{' ERROR ' + rec['error'][:120] if 'error' in rec else ''}", file=sys.stderr, flush=True)
            peers.assign_peer_states(records)
            launches += records
            result = {**header, "rounds_done": round_ + 1, "ended_utc": peers._utc(), "summary": summarize(launches),
                      "launches": launches}
            atomic.write_atomic(args.out, (json.dumps(peers._json_ready(result), indent=1) + "\n").encode())
    print(f"osu_agreement.py: wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
