# SPDX-License-Identifier: BSD-3-Clause
"""SimGrid study: bcast and allreduce at 8 B and 64 KiB against the number of processes
p = 2, 4, ..., 256 on a simulated cluster, p varied two ways, each then given to `mpimeter model`;
writes one JSON object. Not a test.

    .venv/bin/python bench/sim_scaling.py [--p 2,4,8,16,32,64,128,256] [--launches 3]
        [--ways inside,across] [--keep EARLIER.json,...] [--out bench/results/sim_scaling.json]

What: on the cluster of bench/sim_platform.py (1 us +-0.5 us links of 1.25 GB/s per direction, a
100 GB/s backbone; the first k hosts of the p-host platform are the k-host platform's hosts),
- inside one launch (SKaMPI's and NBCBench's way): LAUNCHES launches (smpirun) of max(p) ranks,
  each measuring every p on sub-communicators (`mpimeter-bench --nprocs P_LIST`: the first k
  ranks), each with its own seed (its own shuffled test order): campaign `inside/`;
- across launches (`mpimeter run --np LIST`'s way): LAUNCHES launches at each p, one p per
  launch, in a seeded random order over (p, launch), each with its own seed, laid out and
  recorded in campaign.json as `mpimeter run --np LIST` records them (np per launch): campaign
  `across/`.
Then `mpimeter model CAMPAIGN --format json` on each: the models in m and p (alpha*ceil(log2 p) +
beta*m, alpha*(p-1) + beta*m*(p-1)/p, ...; chosen by the data) per operation with their fit per
(p, size). The JSON holds, per way, per launch the simulated and real time; per (op, size, p)
the median over launches of the per-launch medians (simulated ns); the chosen model, its
parameters and the verdict of each operation; and the two ways side by side per (op, size, p).
Why the script starts the launches itself and not `mpimeter run --np LIST --launcher 'smpirun
... {cmd}'`: `mpimeter run` asks the binary for `--describe` and `--validate NP` by running it
directly, not through the launcher template, and the SimGrid build (build/smpi, smpicc) cannot
run outside smpirun: `--describe` dies with SIGSEGV (`mpimeter run: error: .../build/smpi/bin/
mpimeter-bench --describe exited -11`, SimGrid 3.32). The launches are therefore run here, one
smpirun each, and written as the campaign `mpimeter run` would have written.
How it is measured: --procsync barrier --clocksync none (SimGrid has one perfect clock: the
run time is the slowest rank's local duration), SMPI's tree algorithms for barrier, reduce and
allreduce (bench/simulate.py SMPI_SCALE_CFG: its linear defaults cost the simulator seconds per
call at scale), --nrep and --warmup small: simulated time is deterministic up to the order of
the tests, so repetitions differ little.
If the largest p does not finish within --timeout real seconds, the study stops one p lower
(halving max(p)) and says so in "stopped_below".
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_platform  # noqa: E402
import simulate  # noqa: E402

ROOT = simulate.ROOT
MPIMETER = ROOT / ".venv" / "bin" / "mpimeter"
OPS = ("bcast", "allreduce")
SIZES = (8, 65536)


def bench_args(p_list: list[int] | None, nrep: int, warmup: int, seed: int, out: Path) -> list[str]:
    """The bench's arguments; ``p_list`` None: the launch's own p only (no sub-communicators)."""
    return ["--ops", ",".join(OPS), "--sizes", ",".join(map(str, SIZES)),
            *(["--nprocs", ",".join(map(str, p_list))] if p_list else []), "--nrep", str(nrep), "--warmup", str(warmup),
            "--procsync", "barrier", "--clocksync", "none", "--copy-probe-bytes", "0", "--quiet",
            "--seed", str(seed), "--out", str(out)]


def run_launch(p_list: list[int], nrep: int, warmup: int, seed: int, workdir: Path, out: Path,
               timeout: float, *, inside: bool = True) -> dict:
    """One smpirun of max(p_list) ranks (``inside``: measuring every p of ``p_list`` on
    sub-communicators; else its own p only); its real and simulated seconds."""
    p = max(p_list)
    xml, hosts = sim_platform.write(p, workdir)
    cmd = ["nice", "-n", "10", "smpirun", "-np", str(p), "-platform", str(xml), "-hostfile", str(hosts),
           *simulate.SMPI_CFG, *simulate.SMPI_SCALE_CFG, "--cfg=smpi/display-timing:yes",
           str(simulate.BENCH), *bench_args(p_list if inside else None, nrep, warmup, seed, out)]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=workdir)
    real_s = time.monotonic() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    simulated = None
    for line in proc.stderr.splitlines():  # "Simulated time: 1.2345 seconds."
        if "Simulated time" in line:
            simulated = float(line.split(":")[1].split()[0])
    return {"seed": seed, "p": p, "real_s": round(real_s, 2), "simulated_s": simulated}


def medians(campaign: Path) -> list[dict]:
    """Per (op, size, p): the per-launch medians of the run time (simulated ns) from raw.csv."""
    import pandas as pd

    by: dict[tuple[str, int, int], list[float]] = {}
    for launch in sorted((campaign / "launches").iterdir()):
        meta = json.loads((launch / "meta.json").read_text())
        raw = pd.read_csv(launch / "raw.csv")
        run = (raw["end_ns"] - raw["start_ns"]).groupby([raw["test"], raw["rep"]]).max()
        per_test = run.groupby(level=0).median()
        for t in meta["tests"]:
            p = t.get("nprocs") or meta["nprocs"]  # a test on the launch's whole communicator
            by.setdefault((t["op"], t["size"], p), []).append(float(per_test[t["test"]]))
    return [{"op": op, "size": size, "p": p, "launch_medians_ns": v,
             "median_ns": sorted(v)[len(v) // 2]} for (op, size, p), v in sorted(by.items())]


def model(campaign: Path) -> dict:
    proc = subprocess.run([str(MPIMETER), "model", str(campaign), "--format", "json", "--no-cache"],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"mpimeter model exited {proc.returncode}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def summary(doc: dict) -> list[dict]:
    """The scaling model per operation: family, formula, parameters, verdict, worst error."""
    out = []
    for m in doc.get("scaling_models", []):
        ch = m["chosen"]
        out.append({"op": m["op"], "family": ch["family"], "formula": ch["formula"],
                    "alpha_ns": ch["alpha_ns"], "beta_ns_per_byte": ch["beta_ns_per_byte"],
                    "alpha_ci_ns": ch["alpha_ci_ns"], "beta_ci": ch["beta_ci"],
                    "verdict": m["verdict"], "verdict_text": m["verdict_text"],
                    "max_rel_error": m["max_rel_error"],
                    "others": [{"family": f["family"], "bic": f["bic"]} for f in m["others"]],
                    "chosen_bic": ch["bic"],
                    "points": [{k: e[k] for k in ("nprocs", "size", "median_ns", "predicted_ns", "rel_error", "missed")}
                               for e in m["points"]]})
    return out


def inside_one_launch(a, p_list: list[int], campaign: Path) -> dict:
    """LAUNCHES launches of max(p) ranks, each measuring every p on sub-communicators."""
    stopped_below = []
    while True:
        subprocess.run(["rm", "-rf", str(campaign)], check=True)
        launches = []
        try:
            for k in range(a.launches):
                out = campaign / "launches" / f"{k:03d}"
                launches.append(run_launch(p_list, a.nrep, a.warmup, 1000 + k, a.workdir, out, a.timeout))
                print(f"inside, launch {k}: p up to {max(p_list)}: {launches[-1]}", file=sys.stderr)
            break
        except subprocess.TimeoutExpired:
            stopped_below.append({"p": max(p_list), "why": f"a launch took more than {a.timeout:g} s of real time"})
            p_list = [p for p in p_list if p < max(p_list)]
            if len(p_list) < 3:
                raise
    return {"how": "p varied inside each launch (--nprocs P_LIST, the first k ranks)",
            "bench_args": bench_args(p_list, a.nrep, a.warmup, 0, Path("OUT"))[:-4],
            "p": p_list, "stopped_below": stopped_below, "launches": launches}


def across_launches(a, p_list: list[int], campaign: Path) -> dict:
    """LAUNCHES launches at each p, one p per launch, in a seeded random order, recorded in
    campaign.json as `mpimeter run --np LIST` records them (docstring: why not through it)."""
    plan = [(p, k) for k in range(a.launches) for p in p_list]
    random.Random(a.seed).shuffle(plan)  # p interleaved with the launches, as mpimeter run plans them
    stopped_below, done, records = [], [], []
    subprocess.run(["rm", "-rf", str(campaign)], check=True)
    too_long: set[int] = set()
    for index, (p, k) in enumerate(plan):
        if any(p >= q for q in too_long):
            continue
        folder = f"launches/{index:03d}"
        seed = 2000 + index
        try:
            rec = run_launch([p], a.nrep, a.warmup, seed, a.workdir, campaign / folder, a.timeout, inside=False)
        except subprocess.TimeoutExpired:
            too_long.add(p)
            stopped_below.append({"p": p, "why": f"a launch took more than {a.timeout:g} s of real time"})
            subprocess.run(["rm", "-rf", str(campaign / folder)], check=True)
            continue
        done.append({**rec, "index": index})
        records.append({"alternative": "smpi", "index": index, "folder": folder, "seed": seed,
                        "status": "complete", "np": p})
        print(f"across, launch {index} (p = {p}): {rec}", file=sys.stderr)
    used = sorted({r["np"] for r in records})
    (campaign / "campaign.json").write_text(json.dumps({
        "schema_version": 1, "command": "bench/sim_scaling.py (smpirun per launch; see its docstring)",
        "bench_args": bench_args(None, a.nrep, a.warmup, 0, Path("OUT"))[:-4], "launcher": "smpirun",
        "np": max(used), "np_list": used, "launches_per_alternative": a.launches, "seed": a.seed,
        "alternatives": [{"name": "smpi", "mpi": "smpi", "env": {}}], "launches": records}, indent=1) + "\n")
    return {"how": "one p per launch, LAUNCHES launches at each p in a seeded random order (campaign.json as "
                   "`mpimeter run --np LIST` writes it)",
            "bench_args": bench_args(None, a.nrep, a.warmup, 0, Path("OUT"))[:-4], "plan_seed": a.seed,
            "p": used, "stopped_below": stopped_below, "launches": done}


def analysed(part: dict, campaign: Path) -> dict:
    doc = model(campaign)
    return {**part, "medians": medians(campaign), "scaling_models": summary(doc),
            "scaling_skipped": doc.get("scaling_skipped", [])}


def side_by_side(inside: dict, across: dict) -> list[dict]:
    """Per (op, size, p) measured both ways: the two medians and across / inside."""
    a = {(m["op"], m["size"], m["p"]): m["median_ns"] for m in across["medians"]}
    out = []
    for m in inside["medians"]:
        key = (m["op"], m["size"], m["p"])
        if key in a:
            out.append({"op": key[0], "size": key[1], "p": key[2], "inside_ns": m["median_ns"],
                        "across_ns": a[key], "across_over_inside": a[key] / m["median_ns"]})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--p", default="2,4,8,16,32,64,128,256")
    ap.add_argument("--launches", type=int, default=3)
    ap.add_argument("--nrep", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--seed", type=int, default=27, help="the order of the launches across p")
    ap.add_argument("--ways", default="inside,across", help="inside (one launch, --nprocs), across (one p per "
                    "launch), both, or none ('': only --keep)")
    ap.add_argument("--keep", default="", help="comma-separated JSON files this script wrote: their sections of "
                    "the ways not run now are taken over (the two ways run as two processes, then joined)")
    ap.add_argument("--timeout", type=float, default=1500.0, help="real seconds per launch")
    ap.add_argument("--workdir", type=Path, default=ROOT / "build" / "sim-scaling")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "sim_scaling.json")
    a = ap.parse_args()
    a.workdir = a.workdir.resolve()  # smpirun runs in it: the platform paths must not be relative
    missing = simulate.smpi_missing()
    if missing:
        print(missing, file=sys.stderr)
        return 2
    ways = [w for w in a.ways.split(",") if w]
    if any(w not in ("inside", "across") for w in ways):
        print(f"--ways: {a.ways!r}; allowed: inside, across, or inside,across", file=sys.stderr)
        return 2
    p_list = [int(x) for x in a.p.split(",")]
    result = {
        "what": "bcast and allreduce at 8 B and 64 KiB against p on a simulated cluster (SimGrid SMPI), p varied "
                "inside each launch (--nprocs) and across launches (one p per launch), each then `mpimeter model`",
        "platform": {"generator": "bench/sim_platform.py", "link_latency_us": sim_platform.BASE_LATENCY_US,
                     "link_asymmetry_us": sim_platform.ASYM_US, "link_bandwidth": "1.25GBps",
                     "backbone": "100GBps, 0.1us"},
        "smpi_cfg": [*simulate.SMPI_CFG, *simulate.SMPI_SCALE_CFG],
        "why_not_mpimeter_run": "mpimeter run runs `mpimeter-bench --describe` (and --validate) directly, not "
                                "through the launcher template; the SimGrid build dies outside smpirun "
                                "(--describe exits -11, SIGSEGV), so the script runs one smpirun per launch and "
                                "writes campaign.json as mpimeter run --np LIST would",
    }
    if "inside" in ways:
        result["inside_one_launch"] = analysed(inside_one_launch(a, p_list, a.workdir / "inside"), a.workdir / "inside")
    if "across" in ways:
        result["across_launches"] = analysed(across_launches(a, p_list, a.workdir / "across"), a.workdir / "across")
    for kept in filter(None, a.keep.split(",")):
        earlier = json.loads(Path(kept).read_text())
        for way in ("inside_one_launch", "across_launches"):
            if way in earlier and way not in result:
                result[way] = earlier[way]
    if "inside_one_launch" in result and "across_launches" in result:
        result["side_by_side"] = side_by_side(result["inside_one_launch"], result["across_launches"])
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=1) + "\n")
    for way in ("inside_one_launch", "across_launches"):
        for m in result.get(way, {}).get("scaling_models", []):
            print(f"{way}: {m['op']}: {m['family']} ({m['formula']}) alpha {m['alpha_ns']:.0f} ns, "
                  f"beta {m['beta_ns_per_byte']:.4f} ns/B — {m['verdict_text']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
