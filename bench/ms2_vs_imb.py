# SPDX-License-Identifier: BSD-3-Clause
"""The IMB benchmark: IMB's number for allreduce reproduced under IMB's own measurement
scheme (MS2) with mpimeter's binary, next to a real IMB-MPI1 run and to the window method, all
in one run; writes bench/results/ms2_vs_imb.json. Not a test.

    .venv/bin/python bench/ms2_vs_imb.py --imb PATH/IMB-MPI1 [--rounds 5] [--iters 1000] [--batch 100]

2 ranks, allreduce of 8 B, 1 KiB and 64 KiB (MPI_FLOAT, MPI_SUM: IMB's reduction datatype and
op). The library is the one IMB-MPI1 is linked with (read from the dynamic loader's list; a
binary of the other library is refused). Per round, in a seeded random order:

- imb: IMB-MPI1 Allreduce with exactly these sizes (-msglen), --iters calls per size
  (-iter N -iter_policy off: IMB's own reduction of the count for large messages is off);
  read with mpimeter's IMB importer (mpimeter.io.peers, what `mpimeter import imb` uses):
  t_min/t_avg/t_max, the minimum, mean and maximum over ranks of each rank's mean per call.
- ms2: mpimeter-bench --procsync none --batch B --nrep iters/B: the same number of calls back to
  back per rank, timed B at a time (Hunold & Carpen-Amarie 2016, Table 3, MS2); processed by the
  analysis's IMB scheme (mpimeter.analysis.schemes, PS6: each rank's mean, then min/mean/max over
  ranks), so its t_min/t_avg/t_max are IMB's numbers computed by mpimeter.
- window: mpimeter-bench with its defaults (--procsync window, clock sync hca3): one call per
  repetition from a common start; its own number (the median run time, "ours") and the same IMB
  processing of its rows. mpimeter's median is given for the MS2 rows too: IMB's means take in
  every slow batch (a rank descheduled on a loaded machine), the median does not.

MS2 pipelines calls (NBCBench, Hoefler et al. 2010 §1.2): the next call starts while the other
rank still finishes the last, so its per-call time can be below one call's latency; the window
method times each call alone. At the end every IMB output is imported as one campaign with
`mpimeter import imb` and the IMB scheme's medians over rounds are taken from it, as `mpimeter
schemes` would show them. The machine is shared: each launch carries the 1-minute load average
before and after it, and `load` their range. The VM has two speed states (as measured on the test machine): each
round's `state` is that of its two mpimeter launches' cache-line probe (IMB records none and is
given its round's state; "mixed" when they differ), and `summary_by_state` repeats the summary
over the fast and over the slow rounds. Compare within a round and the medians over rounds,
never across runs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from mpimeter import analysis
from mpimeter.analysis.schemes import scheme_rows
from mpimeter.campaign.launcher import bench_binary, build_argv, default_bench_dir, local_template
from mpimeter.io.peers import read_peer

ROOT = Path(__file__).resolve().parents[1]
SIZES = (8, 1024, 65536)
OP = "allreduce"
METHODS = ("imb", "ms2", "window")
STATS = ("t_min", "t_avg", "t_max")
# the reduction IMB-MPI1 uses (its header: "MPI_Datatype for reductions: MPI_FLOAT, MPI_Op: MPI_SUM")
REDUCTION = ["--datatype", "float", "--reduce-op", "sum"]


def load() -> float:
    return round(os.getloadavg()[0], 2)


def library_of(binary: Path) -> str:
    """openmpi or mpich: the MPI library the binary is linked with."""
    linked = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    if "libmpich" in linked or "libmpi.so.12" in linked:
        return "mpich"
    if "libopen-pal" in linked or "libmpi.so.40" in linked:
        return "openmpi"
    sys.exit(f"{binary}: linked with neither Open MPI nor MPICH; allowed: a dynamically linked IMB-MPI1 of either")


def run_imb(lib: str, imb: Path, lengths: Path, iters: int, out: Path) -> dict:
    before = load()
    argv = build_argv(local_template(lib), 2, [str(imb), "Allreduce", "-msglen", str(lengths), "-iter", str(iters),
                                               "-iter_policy", "off", "-npmin", "2", "-time", "600"])
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}", "load": [before, load()]}
    out.write_text(proc.stdout)
    run = read_peer("imb", out)
    sizes = {t.size: {s: t.aggregates_ns[s] for s in STATS} for t in run.tests if t.op == OP}
    return {"sizes": sizes, "repetitions": {t.size: t.repetitions for t in run.tests if t.op == OP},
            "version": run.tool_version, "load": [before, load()], "seconds": round(time.monotonic() - t0, 1)}


def run_mpimeter(lib: str, args: list[str], out: Path, seed: int) -> dict:
    if out.exists():
        shutil.rmtree(out)
    before = load()
    argv = build_argv(local_template(lib), 2, [str(bench_binary(default_bench_dir(), lib)), "--ops", OP, "--sizes",
                                               ",".join(map(str, SIZES)), *REDUCTION, *args, "--seed", str(seed),
                                               "--out", str(out)])
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}", "load": [before, load()]}
    seconds = round(time.monotonic() - t0, 1)
    campaign = analysis.load_campaign(out, cache=False, store=False, schemes=True)
    probes = campaign.launches[0].meta.cacheline_probes if campaign.launches else ()
    rows, _ = scheme_rows(campaign, ("ours", "imb"), analysis.analyze(campaign))
    sizes: dict[int, dict] = {}
    for r in rows:
        if r.op != OP:
            continue
        got = sizes.setdefault(r.size, {})
        if r.scheme == "imb":
            got.update({s: r.stats_ns.get(s) for s in STATS})
        else:
            got["median"] = r.headline_ns
    return {"sizes": sizes, "load": [before, load()], "seconds": seconds,
            "cacheline_rtt_ns": probes[0].rtt_ns if probes else None}


def imb_campaign(files: list[Path], out: Path) -> dict[int, dict[str, float]]:
    """Every IMB output imported as one campaign (`mpimeter import imb`): the IMB scheme's medians
    over its launches (the rounds), per size."""
    if out.exists():
        shutil.rmtree(out)
    subprocess.run([str(Path(sys.executable).with_name("mpimeter")), "import", "imb", "--out", str(out),
                    *map(str, files)], check=True, capture_output=True, text=True)
    campaign = analysis.load_campaign(out, cache=False, store=False, schemes=True)
    rows, _ = scheme_rows(campaign, ("imb",), None)
    return {r.size: {"launches": r.launches, **{s: r.stats_ns.get(s) for s in STATS}} for r in rows if r.op == OP}


def summary(rounds: list[dict], imported: dict[int, dict]) -> list[dict]:
    """Per size: each method's median over rounds of t_min/t_avg/t_max (and of mpimeter's own
    median on the MS2 and window rows), and MS2's t_avg and the window's median over IMB's t_avg."""
    table = []
    for size in SIZES:
        row: dict = {"size": size}
        for method in METHODS:
            keys = STATS if method == "imb" else (*STATS, "median")
            for k in keys:
                vals = [r[method]["sizes"][size][k] for r in rounds
                        if size in r[method].get("sizes", {}) and r[method]["sizes"][size].get(k) is not None]
                row[f"{method}_{k}_ns"] = round(float(np.median(vals)), 1) if vals else None
        row["imb_imported_t_avg_ns"] = imported.get(size, {}).get("t_avg")
        imb_avg, ms2_avg = row["imb_t_avg_ns"], row["ms2_t_avg_ns"]
        row["ms2_over_imb_t_avg"] = round(ms2_avg / imb_avg, 3) if imb_avg and ms2_avg else None
        win = row["window_median_ns"]
        row["window_median_over_imb_t_avg"] = round(win / imb_avg, 3) if imb_avg and win else None
        table.append(row)
    return table


def state_of(got: dict, fast_below_ns: float) -> str:
    """The VM's speed state in a round (as measured on the test machine: the cache-line probe is 49-111 ns in a fast
    launch, 344-414 ns in a slow one): that of its two mpimeter launches when they agree, else
    "mixed"; IMB records no probe and is given the round's state."""
    states = set()
    for method in ("ms2", "window"):
        rtt = got.get(method, {}).get("cacheline_rtt_ns")
        states.add("unknown" if rtt is None or rtt < 0 else "fast" if rtt < fast_below_ns else "slow")
    return states.pop() if len(states) == 1 else "mixed"


def load_summary(rounds: list[dict]) -> dict:
    values = [v for r in rounds for m in METHODS for v in r.get(m, {}).get("load", [])]
    return {"launches": sum(1 for r in rounds for m in METHODS if m in r), "min": min(values, default=None),
            "median": float(np.median(values)) if values else None, "max": max(values, default=None),
            "what": "the 1-minute load average before and after every launch"}


def print_table(table: list[dict]) -> None:
    head = ["size", "IMB t_min/t_avg/t_max", "MS2 t_min/t_avg/t_max", "MS2 median", "window median", "window IMB t_max",
            "MS2/IMB", "window/IMB"]
    print(" | ".join(head))

    def us(v: float | None) -> str:
        return "–" if v is None else f"{v / 1000:.2f}"

    for r in table:
        print(" | ".join([str(r["size"]), "/".join(us(r[f"imb_{s}_ns"]) for s in STATS),
                          "/".join(us(r[f"ms2_{s}_ns"]) for s in STATS), us(r["ms2_median_ns"]),
                          us(r["window_median_ns"]), us(r["window_t_max_ns"]), str(r["ms2_over_imb_t_avg"]),
                          str(r["window_median_over_imb_t_avg"])]))
    print("(times in µs; medians over rounds)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--imb", type=Path, required=True, help="the IMB-MPI1 binary")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--iters", type=int, default=1000, help="calls per size of IMB and of each MS2 test")
    p.add_argument("--batch", type=int, default=100, help="MS2: calls per recorded repetition (divides --iters)")
    p.add_argument("--window-nrep", type=int, default=200)
    p.add_argument("--seed", type=int, default=27)
    p.add_argument("--dir", type=Path, default=Path("/tmp/mm-bench-ms2"))
    p.add_argument("--until", help="HH:MM UTC: no round starts after it (the rounds done are summarized)")
    p.add_argument("--fast-below-ns", type=float, default=200.0, help="cache-line round trip of a fast launch")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ms2_vs_imb.json")
    a = p.parse_args()
    if a.rounds < 1 or a.iters < 1 or a.batch < 1 or a.iters % a.batch:
        sys.exit("--rounds, --iters and --batch must be at least 1, and --batch must divide --iters")
    lib = library_of(a.imb)
    a.dir.mkdir(parents=True, exist_ok=True)
    lengths = a.dir / "lengths.txt"
    lengths.write_text("".join(f"{s}\n" for s in SIZES))
    rng = np.random.default_rng(a.seed)
    out = {"np": 2, "lib": lib, "op": OP, "sizes": list(SIZES), "datatype": "float", "reduce_op": "sum",
           "iters": a.iters, "ms2_batch": a.batch, "ms2_nrep": a.iters // a.batch, "window_nrep": a.window_nrep,
           "seed": a.seed, "cpus": os.cpu_count(),
           "imb_command": f"IMB-MPI1 Allreduce -msglen LENGTHS -iter {a.iters} -iter_policy off -npmin 2 -time 600",
           "rounds": []}
    imb_files = []
    until = None
    if a.until:
        hh, mm = (int(x) for x in a.until.split(":"))
        until = dt.datetime.now(dt.timezone.utc).replace(hour=hh, minute=mm, second=0, microsecond=0)
    for rnd in range(a.rounds):
        if until is not None and dt.datetime.now(dt.timezone.utc) >= until:
            print(f"stopping after {rnd} rounds: it is past {a.until} UTC", flush=True)
            break
        order = [METHODS[i] for i in rng.permutation(len(METHODS))]
        got: dict = {"round": rnd, "order": order}
        for method in order:
            seed = a.seed * 1000 + rnd
            if method == "imb":
                imb_out = a.dir / f"imb-{rnd}.txt"
                got["imb"] = run_imb(lib, a.imb, lengths, a.iters, imb_out)
                if "error" not in got["imb"]:
                    imb_files.append(imb_out)
                    out["imb_version"] = got["imb"].pop("version")
            elif method == "ms2":
                got["ms2"] = run_mpimeter(lib, ["--procsync", "none", "--batch", str(a.batch), "--nrep",
                                                str(a.iters // a.batch)], a.dir / f"ms2-{rnd}", seed)
            else:
                got["window"] = run_mpimeter(lib, ["--nrep", str(a.window_nrep)], a.dir / f"window-{rnd}", seed)
        got["state"] = state_of(got, a.fast_below_ns)
        out["rounds"].append(got)
        print(f"round {rnd}: {order}", {m: got[m].get("error", "ok") for m in METHODS}, flush=True)
        a.out.write_text(json.dumps(out, indent=1) + "\n")  # kept as it grows
    imported = imb_campaign(imb_files, a.dir / "imb-campaign") if imb_files else {}
    out["imb_imported"] = imported
    out["summary"] = summary(out["rounds"], imported)
    out["load"] = load_summary(out["rounds"])
    out["states"] = {s: sum(1 for r in out["rounds"] if r["state"] == s) for s in sorted({r["state"] for r in out["rounds"]})}
    out["summary_by_state"] = {s: summary([r for r in out["rounds"] if r["state"] == s], {})
                               for s in ("fast", "slow") if out["states"].get(s)}
    a.out.write_text(json.dumps(out, indent=1) + "\n")
    print_table(out["summary"])
    for s, table in out["summary_by_state"].items():
        print(f"\n{s} rounds ({out['states'][s]}):")
        print_table(table)
    print(f"load average: {out['load']}; rounds per state: {out['states']}")


if __name__ == "__main__":
    main()
