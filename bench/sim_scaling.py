"""Issue 27, SimGrid study: bcast and allreduce at 8 B and 64 KiB against the number of processes
p = 2, 4, ..., 256 on a simulated cluster, then `mpimeter model` on the result; writes one JSON
object. Not a test.

    .venv/bin/python bench/sim_scaling.py [--p 2,4,8,16,32,64,128,256] [--launches 3]
        [--out bench/results/sim_scaling.json]

What: LAUNCHES launches (smpirun), each of max(p) simulated ranks on the cluster of
bench/sim_platform.py (1 us +-0.5 us links of 1.25 GB/s per direction, a 100 GB/s backbone),
each measuring every p inside the launch (`mpimeter-bench --nprocs P_LIST`: the first k ranks,
SKaMPI's and NBCBench's way) with its own seed (its own shuffled test order), written as one
campaign folder (launches/000 ...). Then `mpimeter model CAMPAIGN --format json`: the models in
m and p (alpha*ceil(log2 p) + beta*m, alpha*(p-1) + beta*m*(p-1)/p, ...; chosen by the data) per
operation with their fit per (p, size). The JSON holds, per launch, the simulated and real
time; per (op, size, p) the median over launches of the per-launch medians (simulated ns); and
the chosen model, its parameters and the verdict of each operation.
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


def bench_args(p_list: list[int], nrep: int, warmup: int, seed: int, out: Path) -> list[str]:
    return ["--ops", ",".join(OPS), "--sizes", ",".join(map(str, SIZES)),
            "--nprocs", ",".join(map(str, p_list)), "--nrep", str(nrep), "--warmup", str(warmup),
            "--procsync", "barrier", "--clocksync", "none", "--copy-probe-bytes", "0", "--quiet",
            "--seed", str(seed), "--out", str(out)]


def run_launch(p_list: list[int], nrep: int, warmup: int, seed: int, workdir: Path, out: Path,
               timeout: float) -> dict:
    """One smpirun of max(p_list) ranks; its real and simulated seconds."""
    p = max(p_list)
    xml, hosts = sim_platform.write(p, workdir)
    cmd = ["nice", "-n", "10", "smpirun", "-np", str(p), "-platform", str(xml), "-hostfile", str(hosts),
           *simulate.SMPI_CFG, *simulate.SMPI_SCALE_CFG, "--cfg=smpi/display-timing:yes",
           str(simulate.BENCH), *bench_args(p_list, nrep, warmup, seed, out)]
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
            by.setdefault((t["op"], t["size"], t["nprocs"]), []).append(float(per_test[t["test"]]))
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--p", default="2,4,8,16,32,64,128,256")
    ap.add_argument("--launches", type=int, default=3)
    ap.add_argument("--nrep", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=1500.0, help="real seconds per launch")
    ap.add_argument("--workdir", type=Path, default=ROOT / "build" / "sim-scaling")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "sim_scaling.json")
    a = ap.parse_args()
    missing = simulate.smpi_missing()
    if missing:
        print(missing, file=sys.stderr)
        return 2
    p_list = [int(x) for x in a.p.split(",")]
    stopped_below = []
    campaign = a.workdir / "campaign"
    while True:
        subprocess.run(["rm", "-rf", str(campaign)], check=True)
        launches = []
        try:
            for k in range(a.launches):
                out = campaign / "launches" / f"{k:03d}"
                launches.append(run_launch(p_list, a.nrep, a.warmup, 1000 + k, a.workdir, out, a.timeout))
                print(f"launch {k}: p up to {max(p_list)}: {launches[-1]}", file=sys.stderr)
            break
        except subprocess.TimeoutExpired:
            stopped_below.append({"p": max(p_list), "why": f"a launch took more than {a.timeout:g} s of real time"})
            p_list = [p for p in p_list if p < max(p_list)]
            if len(p_list) < 3:
                raise
    doc = model(campaign)
    result = {
        "what": "bcast and allreduce at 8 B and 64 KiB against p on a simulated cluster (SimGrid SMPI), "
                "p varied inside each launch (--nprocs), then `mpimeter model`",
        "platform": {"generator": "bench/sim_platform.py", "link_latency_us": sim_platform.BASE_LATENCY_US,
                     "link_asymmetry_us": sim_platform.ASYM_US, "link_bandwidth": "1.25GBps",
                     "backbone": "100GBps, 0.1us"},
        "smpi_cfg": [*simulate.SMPI_CFG, *simulate.SMPI_SCALE_CFG],
        "bench_args": bench_args(p_list, a.nrep, a.warmup, 0, Path("OUT"))[:-4],
        "p": p_list, "stopped_below": stopped_below, "launches": launches,
        "medians": medians(campaign),
        "scaling_models": summary(doc),
        "scaling_skipped": doc.get("scaling_skipped", []),
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=1) + "\n")
    for m in result["scaling_models"]:
        print(f"{m['op']}: {m['family']} ({m['formula']}) alpha {m['alpha_ns']:.0f} ns, "
              f"beta {m['beta_ns_per_byte']:.4f} ns/B — {m['verdict_text']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
