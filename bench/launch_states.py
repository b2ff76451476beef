# SPDX-License-Identifier: BSD-3-Clause
"""The launch study: the cost of a launch, phase by phase, beside IMB's, and this machine's
two speed states (as measured on the test machine: the VM is fast or slow from launch to launch, and the cache-line
probe, meta.json probes.cacheline_rtt_ns, tells which) with each method's spread inside a state.

    .venv/bin/python bench/launch_states.py --rounds 20 [--imb PATH/IMB-MPI1] [--lib openmpi]
        [--out bench/results/launch_states.json]

First one plain default launch (`first`: it runs the copy probe and reads the MPI_T control
variables, as the first launch of a campaign does). Then every round runs each configuration
once, in an order shuffled per round (seeded), on 2 ranks, allreduce 8 B / 1 KiB / 64 KiB, each
mpimeter launch with `--copy-probe-from` and `--mpit-from` that first launch, as `mpimeter run`
starts every launch after an alternative's first:

- default:    mpimeter-bench as it comes (window + hca3 with --fit-target-ns auto: the fit stops,
              after 8 points, once its predicted error 5 s ahead is within the window's start
              tolerance, 1 us here)
- hca3_full:  the default with --fit-target-ns 1 (every one of the 32 fit points over 0.2 s, the
              default before the quiet study; results/launch_states_quiet.json calls it
              "default" and the early stop "hca3_early")
- hca3o:     --clocksync hca3o (window; offset-only sync, re-synced every second)
- barrier:   --procsync barrier (MS1, no clock sync)
- imb:       IMB-MPI1 Allreduce -msglen (8, 1024, 65536) -npmin 2, when --imb is given
- mpirun:    mpirun -np 2 /bin/true: the launcher's own start-up and teardown

Per launch: the wall time around the launcher (perf_counter), meta.json's phases, the cache-line
round trip, and each size's median run time (valid repetitions; window and hca3o: global end
max minus global start min over the ranks, barrier: the longest rank's local end minus start;
IMB: its t_avg). A launch is "fast" when its cache-line round trip is below --fast-below-ns
(as measured on the test machine: 49-111 ns fast, 344-414 ns slow), "slow" above, "unknown" when the probe gave
none (it gives up after 20 ms without an answer: a loaded machine). Per state and method: the
per-launch max/min of the medians per size (the "per-state spread") and the median wall
time. IMB records no probe: its launches are assigned the state of the mpimeter launch run just
before it in the same round (stated in the output). The load is recorded per launch: the load
average, and the other processes' CPU share during the launch (the machine's busy CPU time from
/proc/stat minus the CPU time of this script's children, over wall time x CPUs); on a shared
2-core machine every number grows with it. "trials": the rounds' first and second halves as two
trials (the reproducibility target: per-state medians within 3 % at every size, the pooled ratio
beside it). Not a test.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import tempfile
from pathlib import Path

import pandas as pd

from _launches import NCPUS, REPO, launch_argv, launch_facts, state as _state, timed as _timed

SIZES = [8, 1024, 65536]
BASE = ["--ops", "allreduce", "--sizes", ",".join(map(str, SIZES))]
METHODS = {
    "default": [],
    "hca3_full": ["--fit-target-ns", "1"],
    "hca3o": ["--clocksync", "hca3o"],
    "barrier": ["--procsync", "barrier"],
}
def _medians(folder: Path, method: str) -> dict[int, float]:
    raw = pd.read_csv(folder / "raw.csv")
    raw = raw[raw["valid"] == 1]
    out = {}
    for size, rows in raw.groupby("size"):
        if method == "barrier":
            rt = (rows["end_ns"] - rows["start_ns"]).groupby(rows["rep"]).max()
        else:
            g = rows.groupby("rep")
            rt = g["gend_ns"].max() - g["gstart_ns"].min()
        out[int(size)] = float(rt.median())
    return out


def _run_mpimeter(lib: str, method: str, folder: Path, first: Path | None) -> dict:
    args = list(METHODS.get(method, []))
    if first:
        args += ["--copy-probe-from", str(first), "--mpit-from", str(first)]
    cmd = launch_argv(lib, [str(REPO / "build" / lib / "bin" / "mpimeter-bench"), *BASE, *args, "--out", str(folder)])
    done, wall, load = _timed(cmd)
    if done.returncode != 0:
        return {"method": method, "error": done.stderr.strip()[-400:], "wall_s": wall, **load}
    return {"method": method, "wall_s": wall, **load, **launch_facts(folder), "invalid_share": _invalid_share(folder),
            "medians_ns": _medians(folder, "barrier" if method == "barrier" else "window")}


def _invalid_share(folder: Path) -> float | None:
    raw = pd.read_csv(folder / "raw.csv", usecols=["valid"])
    return round(float((raw["valid"] == 0).mean()), 4) if len(raw) else None


def _run_true(lib: str) -> dict:
    done, wall, load = _timed(launch_argv(lib, ["/bin/true"]))
    return {"method": "mpirun", "wall_s": wall, **load, "medians_ns": {},
            **({"error": done.stderr.strip()[-400:]} if done.returncode else {})}


def _run_imb(lib: str, imb: str, tmp: Path) -> dict:
    lens = tmp / "msglen.txt"
    lens.write_text("".join(f"{s}\n" for s in SIZES))
    cmd = launch_argv(lib, [imb, "Allreduce", "-msglen", str(lens), "-npmin", "2"])
    done, wall, load = _timed(cmd)
    medians = {}
    for line in done.stdout.splitlines():  # #bytes #repetitions t_min t_max t_avg
        m = re.match(r"\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", line)
        if m and int(m.group(1)) in SIZES:
            medians[int(m.group(1))] = float(m.group(5)) * 1e3  # t_avg in us
    return {"method": "imb", "wall_s": wall, **load, "medians_ns": medians,
            **({"error": done.stderr.strip()[-400:]} if done.returncode else {})}


def _state(rtt: float | None, fast_below_ns: float) -> str:
    if rtt is None or rtt < 0:
        return "unknown"
    return "fast" if rtt < fast_below_ns else "slow"


def _summary(launches: list[dict]) -> dict:
    out: dict = {}
    ok = [x for x in launches if "error" not in x]
    for method in sorted({x["method"] for x in ok}):
        for state in ("fast", "slow", "unknown", "all"):
            rows = [x for x in ok if x["method"] == method and (state == "all" or x["state"] == state)]
            if not rows:
                continue
            entry = {"launches": len(rows), "wall_s_median": round(statistics.median(x["wall_s"] for x in rows), 4),
                     "load1_median": round(statistics.median(x["load1"] for x in rows), 2),
                     "other_cpu_share_median": statistics.median(x["other_cpu_share"] for x in rows)}
            for key in ("sync_edge_points", "residual_start_ns", "residual_end_ns", "invalid_share"):
                got = [x[key] for x in rows if x.get(key) is not None]
                if got:
                    entry[key + "_median"] = statistics.median(got)
            spread, med = {}, {}
            for size in SIZES:
                values = [x["medians_ns"].get(size) for x in rows]
                values = [v for v in values if v and v > 0]
                if values:
                    spread[str(size)] = round(max(values) / min(values), 3)
                    med[str(size)] = round(statistics.median(values), 1)
            entry["spread_max_over_min"] = spread
            entry["median_of_medians_ns"] = med
            phases = [x.get("phases") for x in rows if x.get("phases")]
            if phases:
                entry["phases_s_median"] = {k: round(statistics.median(p[k] for p in phases if p.get(k) is not None), 4)
                                            for k in phases[0]}
            rtts = [x["cacheline_rtt_ns"] for x in rows if x.get("cacheline_rtt_ns")]
            if rtts:
                entry["cacheline_rtt_ns_range"] = [min(rtts), max(rtts)]
            out.setdefault(method, {})[state] = entry
    return out


def _trials(launches: list[dict], rounds_done: int) -> dict:
    """The reproducibility target: the rounds' first and second halves as two trials; per method,
    state and size the ratio of their medians of per-launch medians (second / first), and the
    pooled ratio (all states together) beside it."""
    half = rounds_done // 2
    ok = [x for x in launches if "error" not in x and x.get("medians_ns") and x["round"] >= 0]
    out: dict = {}
    for method in sorted({x["method"] for x in ok}):
        entry: dict = {"first_rounds": [0, half - 1], "second_rounds": [half, rounds_done - 1]}
        for state in ("fast", "slow", "pooled"):
            ratios, counts = {}, None
            for size in SIZES:
                sides = []
                for lo, hi in ((0, half), (half, rounds_done)):
                    vals = [x["medians_ns"].get(size) for x in ok if x["method"] == method and lo <= x["round"] < hi
                            and (state == "pooled" or x["state"] == state)]
                    sides.append([v for v in vals if v and v > 0])
                counts = [len(v) for v in sides]
                if all(sides):
                    ratios[str(size)] = round(statistics.median(sides[1]) / statistics.median(sides[0]), 4)
            entry[state] = {"launches": counts, "ratio_second_over_first": ratios,
                            "within_3_percent": bool(ratios) and all(abs(r - 1) <= 0.03 for r in ratios.values())}
        out[method] = entry
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--lib", default="openmpi", choices=["openmpi", "mpich"])
    parser.add_argument("--imb", help="an IMB-MPI1 binary built for --lib (none: no IMB launches)")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--fast-below-ns", type=float, default=200.0)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "launch_states.json")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    launches: list[dict] = []
    tmp = Path(tempfile.mkdtemp(prefix="launch_states."))
    try:
        first = tmp / "first"
        rec = _run_mpimeter(args.lib, "first", first, None)
        rec.update(state=_state(rec.get("cacheline_rtt_ns"), args.fast_below_ns), round=-1)
        launches.append(rec)
        print(json.dumps(rec), flush=True)
        for round_ in range(args.rounds):
            order = list(METHODS) + ["mpirun"] + (["imb"] if args.imb else [])
            rng.shuffle(order)
            last_state = "unknown"
            for k, method in enumerate(order):
                folder = tmp / f"{round_:03d}-{k}-{method}"
                if method == "imb":
                    rec = _run_imb(args.lib, args.imb, tmp)
                    rec["state"] = last_state
                elif method == "mpirun":
                    rec = _run_true(args.lib)
                    rec["state"] = last_state
                else:
                    rec = _run_mpimeter(args.lib, method, folder, first)
                    rec["state"] = _state(rec.get("cacheline_rtt_ns"), args.fast_below_ns)
                    last_state = rec["state"]
                    shutil.rmtree(folder, ignore_errors=True)
                rec["round"] = round_
                launches.append(rec)
                print(json.dumps(rec), flush=True)
            _write(args, launches, round_ + 1)  # after every round: a stopped study keeps its rounds
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(_summary(launches), indent=1))


def _write(args: argparse.Namespace, launches: list[dict], rounds_done: int) -> None:
    result = {"rounds_asked": args.rounds, "rounds_done": rounds_done, "lib": args.lib, "ranks": 2,
              "op": "allreduce", "sizes": SIZES, "seed": args.seed, "fast_below_ns": args.fast_below_ns,
              "imb": bool(args.imb),
              "imb_state": "the state of the mpimeter launch run just before it in the round",
              "cpus": NCPUS, "summary": _summary(launches), "trials": _trials(launches, rounds_done),
              "launches": launches}
    args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
