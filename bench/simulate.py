# SPDX-License-Identifier: BSD-3-Clause
"""The clock syncs on simulated clusters (SimGrid SMPI); writes JSON and a plot.

    .venv/bin/python bench/simulate.py [--p 64,128,256,1024] [--algorithms skampi,netgauge,...]
        [--out bench/results/simulate.json] [--plot bench/results/simulate.png]

For each p: a platform of p hosts (bench/sim_platform.py: asymmetric up/down link latencies,
per-host clock offsets and skews), one smpirun of `build/smpi/bin/mpimeter-bench --sync-check
--timer virtual --check-at 0 --json` that runs every algorithm in turn, and per algorithm one
row: the simulated sync duration (max over ranks) and the largest true error over all ranks
right after the sync (rank 0's global clock minus the rank's at one true instant: the
simulator's one clock is the truth, the platform's offsets and skews are what the algorithm
had to learn). Simulated time is deterministic: the same inputs give the same numbers.

The JSON is {"rows": [{"algorithm", "p", "sync_duration_s", "max_abs_true_error_ns"}], ...}
plus "growth" (per algorithm, duration at the largest p over the smallest, next to the ratios
of p and of log2 p: O(p) algorithms follow the first, O(log p) ones the second) and
"skampi_over_netgauge" per p (Hoefler, Schneider & Lumsdaine 2010 Fig. 8: 16 at 128 processes),
"skampi_over_netgauge_alone" (at --alone-at, each algorithm in a launch of its own, with the
binary's defaults and in the paper's setting: N = 100, SKaMPI's edges as many round trips;
--alone-only writes that alone, a minute or two)
and "hca_intercept_pass_s" (hca minus hca2: hca's O(p) pass, which its fit span hides in "growth").
Not a test; c/tests/simgrid/test_simulate.py runs a small case.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_platform  # noqa: E402

from mpimeter.campaign.simulation import SMPI_CFG  # noqa: E402,F401  (what `mpimeter run --mpi smpi` runs with)
from mpimeter.io.bench_binaries import SIMULATED_LIBRARY, bench_binary, default_bench_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# the SimGrid build of the bench dir ($MPIMETER_BENCH_DIR, else build/): `make build-smpi`
BENCH = bench_binary(default_bench_dir(), SIMULATED_LIBRARY)
ALGORITHMS = ("skampi", "netgauge", "jk", "hca", "hca2", "hca3", "hca3o")
# For launches that repeat collectives at scale (bench/simulate_memory.py): SMPI's default
# barrier, reduce and allreduce are linear (every rank messages the root at once), and every
# completion makes SimGrid re-solve the sharing of all those flows: at 1024 ranks a barrier took
# ~1 s of simulator time, a reduce of 8 B ~0.9 s, an allreduce ~0.3 s. With trees, as real
# libraries use: 0.09 s, 0.08 s, 0.04 s (docs/ALGORITHMS.md, "Simulated clusters"). The clock-sync
# study keeps SMPI_CFG alone, so that its committed results stay comparable.
SMPI_SCALE_CFG = ("--cfg=smpi/barrier:ompi_tree", "--cfg=smpi/reduce:binomial",
                  "--cfg=smpi/allreduce:redbcast")
PAPER_RATIO_128 = 16.0  # Hoefler et al. 2010 Fig. 8: SKaMPI-style O(p) vs Netgauge O(log p)
# The paper's setting for that figure (§3.1: N = 100 round trips that do not beat the minimum per
# offset measurement), with SKaMPI's edges held to as many round trips (its early stop after
# --min-rounds would otherwise end each edge after ~10): the sync-cost ratio then compares the
# schedules alone. Each algorithm in a launch of its own, so that neither starts after the other.
PAPER_SETTING = {"n_nonimproving": 100, "min_rounds": 101, "pingpongs": 1000}


def smpi_missing() -> str | None:
    """Why the simulation cannot run here, or None."""
    if shutil.which("smpirun") is None:
        return "libsimgrid-dev is not installed (smpirun not found; as root: apt-get install libsimgrid-dev)"
    if not BENCH.exists():
        return f"{BENCH} is missing: run `make build-smpi`"
    return None


def run_p(p: int, algorithms: list[str], workdir: Path, seed: int, timeout: float,
          extra: tuple[str, ...] = ()) -> dict:
    """One smpirun at p ranks: the binary's --sync-check JSON, plus the real time it took."""
    xml, hosts = sim_platform.write(p, workdir, seed)
    cmd = (["smpirun", "-np", str(p), "-platform", str(xml), "-hostfile", str(hosts), *SMPI_CFG,
            str(BENCH), "--sync-check", "--clocksync", ",".join(algorithms),
            "--timer", "virtual", "--check-at", "0", "--json", *extra])
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=workdir)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-4000:]}")
    out = json.loads(proc.stdout)
    out["real_s"] = time.monotonic() - start
    return out


def rows_of(p: int, result: dict) -> list[dict]:
    rows = []
    for alg in result["algorithms"]:
        check = alg["checks"][0]
        rows.append({"algorithm": alg["name"], "p": p,
                     "sync_duration_s": alg["sync_duration_s"],
                     "max_abs_true_error_ns": check["max_abs_true_error_all_ns"]})
    return rows


def growth(rows: list[dict]) -> dict:
    """Per algorithm: duration(p_max) / duration(p_min) against p_max/p_min and log ratios."""
    out = {}
    for alg in dict.fromkeys(r["algorithm"] for r in rows):
        mine = sorted((r for r in rows if r["algorithm"] == alg), key=lambda r: r["p"])
        lo, hi = mine[0], mine[-1]
        if hi["p"] == lo["p"] or lo["sync_duration_s"] <= 0:
            continue
        out[alg] = {"p_min": lo["p"], "p_max": hi["p"],
                    "duration_ratio": hi["sync_duration_s"] / lo["sync_duration_s"],
                    "p_ratio": hi["p"] / lo["p"],
                    "log2_p_ratio": math.log2(hi["p"]) / math.log2(lo["p"])}
    return out


def ratios(rows: list[dict], num: str = "skampi", den: str = "netgauge") -> dict:
    by = {(r["algorithm"], r["p"]): r["sync_duration_s"] for r in rows}
    return {str(p): by[(num, p)] / by[(den, p)]
            for (a, p) in by if a == num and (den, p) in by and by[(den, p)] > 0}


def hca_intercept_pass(rows: list[dict]) -> dict:
    """hca minus hca2 per p: the same bottom-up fits, so the difference is hca's O(p) pass that
    re-measures every intercept against rank 0 (docs/ALGORITHMS.md, "The algorithms")."""
    by = {(r["algorithm"], r["p"]): r["sync_duration_s"] for r in rows}
    return {str(p): by[("hca", p)] - by[("hca2", p)] for (a, p) in by if a == "hca" and ("hca2", p) in by}


def alone_ratios(p: int, workdir: Path, seed: int, timeout: float) -> dict:
    """SKaMPI over Netgauge at p, each in a launch of its own: with the binary's defaults, and in
    the paper's setting (PAPER_SETTING). What separates the defaults' ratio from the paper's 16:
    docs/ALGORITHMS.md, "Simulated clusters"."""
    out = {}
    for name, extra in (("defaults", ()),
                        ("paper_setting", tuple(f"--{k.replace('_', '-')}={v}" for k, v in PAPER_SETTING.items()))):
        d = {alg: run_p(p, [alg], workdir, seed, timeout, extra)["algorithms"][0]["sync_duration_s"]
             for alg in ("skampi", "netgauge")}
        out[name] = {"options": list(extra), "skampi_s": d["skampi"], "netgauge_s": d["netgauge"],
                     "ratio": d["skampi"] / d["netgauge"]}
    return out


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for alg in dict.fromkeys(r["algorithm"] for r in rows):
        mine = sorted((r for r in rows if r["algorithm"] == alg), key=lambda r: r["p"])
        ps = [r["p"] for r in mine]
        ax1.plot(ps, [r["sync_duration_s"] for r in mine], marker="o", label=alg)
        ax2.plot(ps, [r["max_abs_true_error_ns"] for r in mine], marker="o", label=alg)
    for ax, label in ((ax1, "simulated sync duration (s)"), (ax2, "max |true error| over ranks (ns)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("ranks p (simulated cluster)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=8)
    fig.suptitle("Clock sync on simulated clusters (SimGrid SMPI; asymmetric links, per-host offset and skew)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def print_table(rows: list[dict], file=sys.stdout) -> None:
    ps = sorted({r["p"] for r in rows})
    by = {(r["algorithm"], r["p"]): r for r in rows}
    print("sync duration (s) / max |true error| (ns)", file=file)
    print(f"{'algorithm':<10}" + "".join(f"{'p=' + str(p):>22}" for p in ps), file=file)
    for alg in dict.fromkeys(r["algorithm"] for r in rows):
        cells = []
        for p in ps:
            r = by.get((alg, p))
            cells.append(f"{r['sync_duration_s']:>12.6f} / {r['max_abs_true_error_ns']:>6d}" if r else " " * 22)
        print(f"{alg:<10}" + "".join(f"{c:>22}" for c in cells), file=file)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--p", default="64,128,256,1024", help="comma-separated rank counts")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument("--seed", type=int, default=1, help="seed of the platform (links and clocks)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "simulate.json")
    ap.add_argument("--plot", type=Path, default=None, help="PNG (default: --out with .png)")
    ap.add_argument("--workdir", type=Path, default=ROOT / "build" / "sim")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per smpirun")
    ap.add_argument("--alone-at", type=int, default=128,
                    help="p of the SKaMPI/Netgauge ratio with each alone, defaults and the paper's setting (0: none)")
    ap.add_argument("--alone-only", action="store_true",
                    help="only skampi_over_netgauge_alone at --alone-at (a minute or two), into --out")
    a = ap.parse_args(argv)
    why = smpi_missing()
    if why:
        print(f"simulate: {why}", file=sys.stderr)
        return 1
    if a.alone_only:
        doc = {"skampi_over_netgauge_alone": {"p": a.alone_at, **alone_ratios(a.alone_at, a.workdir, a.seed, a.timeout)},
               "paper_skampi_over_netgauge_128": PAPER_RATIO_128, "smpi_cfg": list(SMPI_CFG)}
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(doc, indent=1) + "\n")
        print(json.dumps(doc, indent=1))
        return 0
    algorithms = [x for x in a.algorithms.split(",") if x]
    rows, real = [], {}
    for p in (int(x) for x in a.p.split(",")):
        result = run_p(p, algorithms, a.workdir, a.seed, a.timeout)
        real[str(p)] = round(result["real_s"], 2)
        rows += rows_of(p, result)
        print(f"simulate: p={p} done in {real[str(p)]} s real", file=sys.stderr)
    doc = {"rows": rows, "growth": growth(rows), "skampi_over_netgauge": ratios(rows),
           "hca_intercept_pass_s": hca_intercept_pass(rows),
           "paper_skampi_over_netgauge_128": PAPER_RATIO_128,
           "skampi_over_netgauge_alone": ({"p": a.alone_at, **alone_ratios(a.alone_at, a.workdir, a.seed, a.timeout)}
                                          if a.alone_at else None),
           "platform": {"generator": "bench/sim_platform.py", "seed": a.seed,
                        "base_latency_us": sim_platform.BASE_LATENCY_US,
                        "asym_us": sim_platform.ASYM_US, "offset_s": sim_platform.OFFSET_S,
                        "skew_ppm": sim_platform.SKEW_PPM},
           "smpi_cfg": list(SMPI_CFG), "real_s_per_p": real}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    plot(rows, a.plot or a.out.with_suffix(".png"))
    print_table(rows)
    print(json.dumps({k: doc[k] for k in ("growth", "skampi_over_netgauge", "hca_intercept_pass_s")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
