# SPDX-License-Identifier: BSD-3-Clause
"""How long one clock sync holds: the long-term drift study (Hoefler, Schneider & Lumsdaine 2010
§2.2, Fig. 5; Hunold & Carpen-Amarie 2016 §3.2.1, §4.3); writes JSON and a figure.

    nice -n 19 .venv/bin/python bench/drift.py [--mpi openmpi,mpich] [--np 2,4]
        [--clocksync skampi,hca3,jk] [--check-at 0.01,...,100] [--tolerance-ns 1000]
        [--virtual-mpi openmpi] [--virtual-skew-ppm 10] [--fit-span-s S] [--jobs 2]
        [--out bench/results/drift.json] [--plot bench/results/drift.png]
    .venv/bin/python bench/drift.py --from bench/results/drift.json [--tolerance-ns NS] --out ...

Each run is one `mpimeter sync-check --json` (the command a user runs): per algorithm one sync,
then at each --check-at time after it rank 0 measures every rank's offset afresh (a min-RTT
ping-pong with both sides reading their global clocks): the residual, i.e. the model's error at
that moment. Between checks the ranks sleep. Runs: every --mpi × --np on the real timer
(monotonic: on one host all ranks read one clock, the true drift is 0, so the residual is the
sync's own error plus the check's), and --virtual-mpi × --np on the virtual timer with skews of
±--virtual-skew-ppm (rank 0: 0) and offsets within ±1 s, which stands for clocks of different
hosts and gives the exact error beside the residual.

Per run and algorithm: the hold (the last check time before the error went beyond the
tolerance for two checks in a row or at the last; a single check beyond it is a spike of the
check; 1000 ns: the least start tolerance of the window, `auto`), the error's growth per rank
(Theil–Sen: the drift the model did not learn, in ppm) and the time at which that growth reaches
the tolerance; per clock (real, virtual), library and model kind (offset, linear; from
`mpimeter-bench --describe`) the re-sync interval that every run supports. The analysis is
mpimeter.stats.clockdrift's, the one `mpimeter sync-check` prints its hold line with.

The JSON: {"tolerance_ns", "check_at_s", "clocksync", "fit_span_s", "runs": [{"clock": "real"|"virtual", "mpi", "np",
"timer_args", "wall_s", "load1", "other_cpu_share" (a run beside it counts as other CPU),
"sync_check" (the command's JSON as printed: every rank's residuals), "algorithms": [{"name", "model",
"sync_duration_s", "basis": "residual"|"true_error", "t_s": [...], "max_abs_error_ns": [...],
"max_abs_residual_ns": [...], "hold": {"held_s", "first_beyond_s", "spikes_s"}, "drift": [{"rank",
"rate_ppm", "rate_low_ppm", "rate_high_ppm", "intercept_ns", "projected_hold_s"}]}]}],
"resync": {"<clock>/<mpi>/<model>": {"interval_s", "kind", "runs"}}}. Not a test;
python/tests/test_bench_drift.py checks its analysis on recorded series.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _launches  # noqa: E402  (puts python/src on the path too)

from mpimeter.campaign import describe as _describe  # noqa: E402
from mpimeter.campaign import launcher as _launcher  # noqa: E402
from mpimeter.cli.sync_check import check_times_s  # noqa: E402
from mpimeter.io import jsonread  # noqa: E402
from mpimeter.stats import clockdrift  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# log-spaced from 10 ms to 100 s, four per decade: offset-only syncs under a skew go beyond a
# microsecond within milliseconds, linear ones only after seconds to minutes
CHECK_AT_S = (0.01, 0.018, 0.032, 0.056, 0.1, 0.18, 0.32, 0.56, 1, 1.8, 3.2, 5.6, 10, 18, 32, 56, 100)
TOLERANCE_NS = 1000.0  # the least start tolerance of the window (--start-tolerance-ns auto: 10 timer overheads, ≥ 1000 ns)
VIRTUAL_SEED = 11


def _csv(text: str) -> list[str]:
    return [x for x in text.split(",") if x]


def sync_check_argv(*, mpi: str, np_: int, clocksync: list[str], check_at: list[float],
                    timer_args: list[str], timeout_s: float) -> list[str]:
    """`mpimeter sync-check` for one run, as a user types it (with the interpreter running us)."""
    return [sys.executable, "-m", "mpimeter", "sync-check", "--np", str(np_), "--mpi", mpi,
            "--clocksync", ",".join(clocksync), "--check-at", ",".join(f"{t:g}" for t in check_at),
            "--timeout", f"{timeout_s:g}", *timer_args, "--json"]


def analyse_algorithm(alg: dict, *, model: str, tolerance_ns: float) -> dict:
    """One algorithm's checks (the sync-check JSON) into its series, hold and per-rank growth.
    The basis is the exact error when the run knew the truth, else the measured residual."""
    checks = alg["checks"]
    basis = "true_error" if all("true_error_ns" in c for c in checks) else "residual"
    per_rank_key = f"{basis}_ns"
    t = check_times_s(checks)  # when each check ran: a shared wait can make one late
    max_abs = [max((abs(v) for v in c[per_rank_key] if v is not None), default=0) for c in checks]
    hold = clockdrift.hold_time(t, max_abs, tolerance_ns=tolerance_ns)
    drift = []
    nranks = len(checks[0][per_rank_key])
    for rank in range(1, nranks):
        series = [(tt, c[per_rank_key][rank]) for tt, c in zip(t, checks) if c[per_rank_key][rank] is not None]
        if len({tt for tt, _ in series}) < 2:
            continue
        fit = clockdrift.drift_fit([s[0] for s in series], [s[1] for s in series], tolerance_ns=tolerance_ns)
        drift.append({"rank": rank, "rate_ppm": fit.rate_ppm,
                      "rate_low_ppm": fit.rate_low_ns_per_s / clockdrift.NS_PER_S_IN_PPM,
                      "rate_high_ppm": fit.rate_high_ns_per_s / clockdrift.NS_PER_S_IN_PPM,
                      "intercept_ns": fit.intercept_ns,
                      "projected_hold_s": fit.projected_hold_s if math.isfinite(fit.projected_hold_s) else None})
    return {"name": alg["name"], "model": model, "sync_duration_s": alg["sync_duration_s"], "basis": basis,
            "t_s": t, "max_abs_error_ns": max_abs,
            "max_abs_residual_ns": [c["max_abs_residual_ns"] for c in checks],
            "hold": {"held_s": hold.held_s, "first_beyond_s": hold.first_beyond_s, "spikes_s": list(hold.spikes_s)},
            "drift": drift}


def resync_advice(runs: list[dict], *, tolerance_ns: float) -> dict:
    """Per clock, library and model kind: the re-sync interval every run of that kind supports
    (per library: where one library's checks are noisier than the tolerance, the other's still
    say something)."""
    groups: dict[str, list[tuple[str, clockdrift.Hold, float]]] = {}
    for run in runs:
        for alg in run["algorithms"]:
            hold = clockdrift.Hold(tolerance_ns=tolerance_ns, held_s=alg["hold"]["held_s"],
                                   first_beyond_s=alg["hold"]["first_beyond_s"])
            label = f"np={run['np']} {alg['name']}"
            groups.setdefault(f"{run['clock']}/{run['mpi']}/{alg['model']}", []).append((label, hold, alg["t_s"][0]))
    out = {}
    for key, items in groups.items():
        advice = clockdrift.resync_interval([h for _, h, _ in items], min(t0 for _, _, t0 in items))
        out[key] = {"interval_s": advice.interval_s, "kind": advice.kind, "runs": [label for label, _, _ in items]}
    return out


def run_one(spec: dict, *, clocksync: list[str], check_at: list[float], models: dict[str, str],
            tolerance_ns: float) -> dict:
    """One sync-check launch and its analysis, with the command's JSON as it printed it; a run
    that failed has "error" (the command's last words) and no algorithms."""
    timeout = len(clocksync) * (check_at[-1] + 60) + 120
    argv = sync_check_argv(mpi=spec["mpi"], np_=spec["np"], clocksync=clocksync, check_at=check_at,
                           timer_args=spec["timer_args"], timeout_s=timeout)
    proc, wall, load = _launches.timed(argv, timeout + 30)
    done = {**spec, "wall_s": round(wall, 1), **load}
    print(f"drift: {spec['clock']} {spec['mpi']} np={spec['np']} ended ({proc.returncode}) after {wall:.0f} s",
          file=sys.stderr)
    try:
        result = json.loads(proc.stdout) if proc.returncode == 0 else None
    except json.JSONDecodeError:
        result = None
    if result is None:
        return {**done, "error": f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr[-2000:]}",
                "algorithms": []}
    algs = [analyse_algorithm(a, model=models[a["name"]], tolerance_ns=tolerance_ns) for a in result["algorithms"]]
    return {**done, "algorithms": algs, "sync_check": result}


def plot(runs: list[dict], tolerance_ns: float, path: Path) -> None:
    """|error| against time since the sync, log-log, one panel per clock; colour by algorithm,
    line style by library and rank count; the tolerance as a dashed line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    clocks = list(dict.fromkeys(r["clock"] for r in runs))
    fig, axes = plt.subplots(1, len(clocks), figsize=(6.4 * len(clocks), 4.8), squeeze=False, sharey=True)
    names = list(dict.fromkeys(a["name"] for r in runs for a in r["algorithms"]))
    colours = {n: f"C{i}" for i, n in enumerate(names)}
    styles = ["-", "--", ":", "-."]
    for ax, clock in zip(axes[0], clocks):
        mine = [r for r in runs if r["clock"] == clock]
        configs = list(dict.fromkeys((r["mpi"], r["np"]) for r in mine))
        for run in mine:
            style = styles[configs.index((run["mpi"], run["np"])) % len(styles)]
            for alg in run["algorithms"]:
                y = [max(v, 1.0) for v in alg["max_abs_error_ns"]]  # 0 ns cannot be drawn on a log axis
                ax.plot(alg["t_s"], y, style, marker=".", color=colours[alg["name"]],
                        label=f"{alg['name']} ({alg['model']}), {run['mpi']} np={run['np']}")
        ax.axhline(tolerance_ns, color="k", linestyle=(0, (4, 3)), linewidth=1)
        ax.text(mine[0]["algorithms"][0]["t_s"][0], tolerance_ns * 1.15,
                f"start tolerance {tolerance_ns:g} ns", fontsize=8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("time since the sync (s)")
        basis = mine[0]["algorithms"][0]["basis"].replace("_", " ")
        title = {"real": "one host, real timer (shared clock: true drift 0)",
                 "virtual": f"virtual timer, skews ±{mine[0].get('virtual_skew_ppm', 0):g} ppm"}[clock]
        ax.set_title(f"{title}\nmax over ranks of |{basis}|", fontsize=10)
        ax.legend(fontsize=6, loc="upper left")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("|error| of the global clock (ns)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def print_table(runs: list[dict], resync: dict) -> None:
    print(f"{'clock':8} {'mpi':8} {'np':>3} {'algorithm':10} {'model':7} {'held':>8} {'beyond':>8} "
          f"{'spikes':>6} {'drift ppm (max |.|)':>20} {'projected':>10}")
    for run in runs:
        for alg in run["algorithms"]:
            worst = max(alg["drift"], key=lambda d: abs(d["rate_ppm"]), default=None)
            proj = [d["projected_hold_s"] for d in alg["drift"] if d["projected_hold_s"] is not None]
            held, beyond = alg["hold"]["held_s"], alg["hold"]["first_beyond_s"]
            cells = ["-" if held is None else f"{held:g} s", "-" if beyond is None else f"{beyond:g} s",
                     "-" if worst is None else f"{worst['rate_ppm']:.4f}", f"{min(proj):.3g} s" if proj else "-"]
            print(f"{run['clock']:8} {run['mpi']:8} {run['np']:>3} {alg['name']:10} {alg['model']:7} "
                  f"{cells[0]:>8} {cells[1]:>8} {len(alg['hold']['spikes_s']):>6} {cells[2]:>20} {cells[3]:>10}")
    for key, advice in resync.items():
        print(f"re-sync {key}: {advice['kind']} {advice['interval_s']:g} s")


def reanalyse_doc(doc: dict, *, tolerance_ns: float) -> dict:
    """The analysis of a recorded study redone from its runs' sync-check outputs (every
    reduction is offline and repeatable); the models as recorded."""
    runs = []
    for run in doc["runs"]:
        if "error" in run:
            runs.append(run)
            continue
        models = {alg["name"]: alg["model"] for alg in run["algorithms"]}
        algs = [analyse_algorithm(a, model=models[a["name"]], tolerance_ns=tolerance_ns)
                for a in run["sync_check"]["algorithms"]]
        runs.append({**run, "algorithms": algs})
    ok = [r for r in runs if "error" not in r]
    return {**doc, "tolerance_ns": tolerance_ns, "runs": runs, "resync": resync_advice(ok, tolerance_ns=tolerance_ns)}


def reanalyse(recorded: Path, *, tolerance_ns: float, out: Path, plot_path: Path | None) -> int:
    doc = reanalyse_doc(jsonread.load_json(recorded), tolerance_ns=tolerance_ns)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    ok = [r for r in doc["runs"] if "error" not in r]
    if ok:
        plot(ok, tolerance_ns, plot_path or out.with_suffix(".png"))
    print_table(ok, doc["resync"])
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mpi", default="openmpi,mpich", help="libraries on the real timer")
    ap.add_argument("--np", default="2,4", help="rank counts")
    ap.add_argument("--clocksync", default="skampi,hca3,jk", help="clock syncs, each synced once per run")
    ap.add_argument("--check-at", default=",".join(f"{t:g}" for t in CHECK_AT_S),
                    help="seconds after each sync to measure the offsets (non-decreasing)")
    ap.add_argument("--tolerance-ns", type=float, default=TOLERANCE_NS)
    ap.add_argument("--virtual-mpi", default="openmpi", help="libraries on the virtual timer ('' for none)")
    ap.add_argument("--virtual-skew-ppm", type=float, default=10.0)
    ap.add_argument("--fit-span-s", type=float, default=None,
                    help="the linear syncs' fit span (default: the binary's); the slope error is noise / span")
    ap.add_argument("--jobs", type=int, default=2, help="runs at once (they sleep between checks)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "drift.json")
    ap.add_argument("--plot", type=Path, default=None, help="PNG (default: --out with .png)")
    ap.add_argument("--from", dest="recorded", type=Path, default=None,
                    help="re-analyse the sync-check outputs recorded in this file (a drift.json) instead of running")
    a = ap.parse_args(argv)
    if a.recorded is not None:
        return reanalyse(a.recorded, tolerance_ns=a.tolerance_ns, out=a.out, plot_path=a.plot)
    try:
        clocksync, check_at = _csv(a.clocksync), [float(x) for x in _csv(a.check_at)]
        nps = [int(x) for x in _csv(a.np)]
    except ValueError as exc:
        ap.error(f"--check-at takes numbers, --np whole numbers ({exc})")
    if not (math.isfinite(a.tolerance_ns) and a.tolerance_ns > 0) or a.jobs < 1 or not clocksync or not check_at:
        ap.error("--tolerance-ns must be > 0, --jobs ≥ 1, --clocksync and --check-at not empty")
    bench_dir = _launcher.default_bench_dir()
    libs = list(dict.fromkeys(_csv(a.mpi) + _csv(a.virtual_mpi)))
    desc = _describe.describe(_launcher.check_binary(bench_dir, libs[0]))
    models = {c["name"]: c["model"] for c in desc.clock_syncs}
    unknown = [c for c in clocksync if c not in models]
    if unknown:
        ap.error(f"--clocksync: unknown {','.join(unknown)}; allowed: {','.join(models)}")
    span = [] if a.fit_span_s is None else ["--fit-span-s", f"{a.fit_span_s:g}"]
    specs = [{"clock": "real", "mpi": m, "np": n, "timer_args": [*span]} for m in _csv(a.mpi) for n in nps]
    specs += [{"clock": "virtual", "mpi": m, "np": n, "virtual_skew_ppm": a.virtual_skew_ppm, "seed": VIRTUAL_SEED,
               "timer_args": ["--timer", "virtual", "--virtual-offset-s", "1", "--virtual-skew-ppm",
                              f"{a.virtual_skew_ppm:g}", "--seed", str(VIRTUAL_SEED), *span]}
              for m in _csv(a.virtual_mpi) for n in nps]
    # the runs start `python -m mpimeter` from this checkout's package, whatever is installed
    src = str(ROOT / "python" / "src")
    os.environ["PYTHONPATH"] = src + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        runs = list(pool.map(lambda s: run_one(s, clocksync=clocksync, check_at=check_at, models=models,
                                               tolerance_ns=a.tolerance_ns), specs))
    failed = [r for r in runs if "error" in r]
    for run in failed:
        print(f"drift: {run['error']}", file=sys.stderr)
    runs_ok = [r for r in runs if "error" not in r]
    resync = resync_advice(runs_ok, tolerance_ns=a.tolerance_ns)
    doc = {"tolerance_ns": a.tolerance_ns, "check_at_s": check_at, "clocksync": clocksync,
           "fit_span_s": a.fit_span_s if a.fit_span_s is not None else desc.option("fit-span-s").default,
           "cpus": os.cpu_count(), "runs": runs, "resync": resync}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    if runs_ok:
        plot(runs_ok, a.tolerance_ns, a.plot or a.out.with_suffix(".png"))
    print_table(runs_ok, resync)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
