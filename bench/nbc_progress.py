# SPDX-License-Identifier: BSD-3-Clause
"""Progression of nonblocking collectives (NBCBench, Hoefler, Schneider & Lumsdaine 2010 §4.1
Figure 11 and §4.2): the overlap a caller gets back with no help, with MPI_Test calls inside the
computation, and with the library's progress thread, per library, side by side. Not a test.

    nice -n 19 .venv/bin/python bench/nbc_progress.py [--rounds 3] [--np 2] [--nrep 30]
        [--test-interval 1024] [--procsync NAME] [--dir /tmp/mm-nbc-progress]
        [--out bench/results/nbc_progress.json] [--plot bench/results/nbc_progress.png]
    .venv/bin/python bench/nbc_progress.py --from-json bench/results/nbc_progress.json   # table and figure again

The strategies are the shipped variant set examples/suites/nbc-progress.toml (the one source of
what each runs): each round runs `mpimeter run --suite` that file twice, `--launches 1` each, once
as it is (none; the thread variants) and once with `--test-interval` (tests; thread + tests), the
two in an order shuffled per round (seeded), so that a drift of the machine hits every strategy
alike; each campaign interleaves its alternatives (the libraries as they are, MPICH's progress
thread, Open MPI over TCP without and with its TCP progress thread) as every campaign does.

Each launch is read with mpimeter.analysis (analysis.nbc: per launch the medians over
repetitions of the overhead init + test + wait, the blocking time and the NBCBench overlap
1 − overhead/blocking, with IMB's and OSU's beside it) and the computation's stretch: the
computation actually spent over the time the same work took alone (tests[].nbc.calibrated_ns,
--nbc-scheme work), which is where a progress thread that steals the caller's core shows (§4.1).
The table and the figure give per (library, op, size, strategy) the median over launches and the
spread (lowest and highest launch).

Timings on a loaded 2-core machine are noisy: compare within one run, never across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python" / "src"))

from mpimeter.atomic import write_atomic  # noqa: E402

SUITE = ROOT / "examples" / "suites" / "nbc-progress.toml"
NONE, TESTS = "none", "tests"
# the order strategies are listed and drawn in (a strategy not named here follows, sorted)
STRATEGY_ORDER = ("none", "tests", "thread", "thread+tests", "tcp", "tcp+tests", "tcp-thread", "tcp-thread+tests")
CAMPAIGN_TIMEOUT_S = 1800.0
FLOOR = -1.0  # the figure's lowest overlap: the overhead twice the blocking time


def strategy_of(alternative: str, library: str, tests_per_rep: int) -> str:
    """The strategy an alternative of the suite ran: its variant name without the library
    (`mpich-thread` → thread; the library as it is → none), `+tests` when the launch called
    MPI_Test during the computation (`tests` alone for the library as it is)."""
    if alternative == library:
        base = NONE
    elif alternative.startswith(library + "-"):
        base = alternative[len(library) + 1:]
    else:
        base = alternative
    if tests_per_rep <= 0:
        return base
    return TESTS if base == NONE else f"{base}+{TESTS}"


def _order(strategy: str) -> tuple[int, str]:
    return (STRATEGY_ORDER.index(strategy), "") if strategy in STRATEGY_ORDER else (len(STRATEGY_ORDER), strategy)


def launch_records(campaign_dir: Path, *, round_: int, test_interval: int | None) -> list[dict]:
    """One record per (alternative, launch, op, size) of a campaign of the suite: what analysis.nbc
    makes of its repetitions, the computation's stretch, the library and the strategy."""
    from mpimeter import analysis
    from mpimeter.analysis import nbc
    from mpimeter.campaign import state as st

    library_of = {alt.name: alt.mpi for alt in st.load(campaign_dir).alternatives}
    campaign = analysis.load_campaign(campaign_dir, cache=False, store=False)
    calibrated = {(li.alternative, li.index, t.op, t.size): t.nbc.calibrated_ns
                  for li in campaign.launches for t in li.meta.tests if t.nbc is not None}
    reps = nbc.per_repetition(campaign)
    out = []
    for launch in sorted(set(zip(reps["alternative"], reps["launch"]))):
        mine = reps[(reps["alternative"] == launch[0]) & (reps["launch"] == launch[1])]
        for row in nbc.nbc_rows(campaign, reps=mine):
            lib = library_of[row.alternative]
            alone = calibrated.get((row.alternative, int(launch[1]), row.op, row.size))
            out.append({
                "round": round_, "test_interval": test_interval, "library": lib, "alternative": row.alternative,
                "launch": int(launch[1]), "strategy": strategy_of(row.alternative, lib, row.tests_per_rep),
                "op": row.op, "size": row.size, "tests_per_rep": row.tests_per_rep, "scheme": row.scheme,
                "repetitions": row.repetitions, "overlap": round(row.overlap, 4),
                "overlap_imb": round(row.overlap_imb, 4), "overlap_osu": round(row.overlap_osu, 4),
                "overhead_ns": round(row.overhead_ns), "blocking_ns": round(row.blocking_ns),
                "init_ns": round(row.init_ns), "test_ns": round(row.test_ns), "wait_ns": round(row.wait_ns),
                "compute_ns": round(row.compute_ns), "calibrated_ns": alone,
                "stretch": round(row.compute_ns / alone, 4) if alone else None})
    return out


def side_by_side(records: Iterable[dict]) -> list[dict]:
    """Per (library, op, size, strategy), over the launches: the median and the lowest and highest
    launch of the NBCBench overlap; the medians of the other figures. Sorted by library, op, size,
    then strategy in STRATEGY_ORDER."""
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        groups.setdefault((r["library"], r["op"], r["size"], r["strategy"]), []).append(r)

    def median(rows: list[dict], key: str) -> float | None:
        values = [r[key] for r in rows if r[key] is not None]
        return statistics.median(values) if values else None

    table = []
    for (lib, op, size, strategy), rows in sorted(groups.items(), key=lambda kv: (*kv[0][:3], _order(kv[0][3]))):
        overlaps = [r["overlap"] for r in rows]
        table.append({"library": lib, "op": op, "size": size, "strategy": strategy, "launches": len(rows),
                      "tests_per_rep": rows[0]["tests_per_rep"], "overlap": median(rows, "overlap"),
                      "overlap_low": min(overlaps), "overlap_high": max(overlaps),
                      "overlap_imb": median(rows, "overlap_imb"), "overlap_osu": median(rows, "overlap_osu"),
                      "overhead_ns": median(rows, "overhead_ns"), "blocking_ns": median(rows, "blocking_ns"),
                      "stretch": median(rows, "stretch")})
    return table


def format_table(table: list[dict]) -> str:
    head = (f"{'library':<8} {'op':<11} {'size':>8} {'strategy':<17} {'n':>2} {'overlap [low, high]':>22} "
            f"{'IMB':>6} {'OSU':>6} {'overhead':>10} {'blocking':>10} {'stretch':>7}")
    lines = [head]
    for r in table:
        stretch = "" if r["stretch"] is None else f"{r['stretch']:.3f}"
        lines.append(f"{r['library']:<8} {r['op']:<11} {r['size']:>8} {r['strategy']:<17} {r['launches']:>2} "
                     f"{r['overlap']:>7.3f} [{r['overlap_low']:6.3f}, {r['overlap_high']:6.3f}] "
                     f"{r['overlap_imb']:>6.3f} {r['overlap_osu']:>6.3f} {r['overhead_ns'] / 1e3:>8.1f}µs "
                     f"{r['blocking_ns'] / 1e3:>8.1f}µs {stretch:>7}")
    return "\n".join(lines)


def plot(table: list[dict], path: Path, title: str) -> None:
    """Overlap per size, one panel per (op, library), the strategies side by side: a dot at the
    median over launches, a bar from the lowest to the highest launch; a value below FLOOR is drawn
    at it (a triangle) with the value written below."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    libs = list(dict.fromkeys(r["library"] for r in table))
    ops = list(dict.fromkeys(r["op"] for r in table))
    fig, axes = plt.subplots(len(ops), len(libs), figsize=(5.2 * len(libs), 2.9 * len(ops)), squeeze=False)
    colours = plt.get_cmap("tab10")
    for i, op in enumerate(ops):
        for j, lib in enumerate(libs):
            ax = axes[i][j]
            mine = [r for r in table if r["op"] == op and r["library"] == lib]
            sizes = sorted({r["size"] for r in mine})
            strategies = sorted({r["strategy"] for r in mine}, key=_order)
            width = 0.8 / max(1, len(strategies))
            for k, strategy in enumerate(strategies):
                rows = {r["size"]: r for r in mine if r["strategy"] == strategy}
                xs = [n + (k - (len(strategies) - 1) / 2) * width for n, s in enumerate(sizes) if s in rows]
                got = [rows[s] for s in sizes if s in rows]
                # below FLOOR a launch paid more than twice the blocking time: drawn at the floor, its
                # value written beside (one descheduled launch would otherwise flatten every panel)
                low, mid, high = ([max(FLOOR, r[key]) for r in got]
                                  for key in ("overlap_low", "overlap", "overlap_high"))
                colour = colours(STRATEGY_ORDER.index(strategy) % 10 if strategy in STRATEGY_ORDER else 9)
                ax.errorbar(xs, mid, yerr=[[m - lo for m, lo in zip(mid, low)], [h - m for m, h in zip(mid, high)]],
                            fmt="o", ms=4, capsize=2, color=colour, label=strategy)
                for x, r in zip(xs, got):
                    if r["overlap_low"] < FLOOR:
                        ax.plot([x], [FLOOR], marker="v", color=colour, ms=5)
                        ax.annotate(f"{r['overlap_low']:.3g}", (x, FLOOR), textcoords="offset points", xytext=(0, -9),
                                    ha="center", fontsize=5, color=colour, rotation=90, va="top")
            ax.set_ylim(FLOOR - 0.9, 1.1)
            ax.axhline(0, color="grey", lw=0.6)
            ax.set_xticks(range(len(sizes)), [_size_label(s) for s in sizes])
            ax.set_title(f"{op}, {lib}", fontsize=9)
            ax.grid(True, axis="y", alpha=0.3)
            if j == 0:
                ax.set_ylabel("overlap 1 − overhead/blocking")
            if i == len(ops) - 1:
                ax.set_xlabel("message size")
            ax.legend(fontsize=6, loc="lower left")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _size_label(size: int) -> str:
    for unit, factor in (("MiB", 2**20), ("KiB", 2**10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} B"


PROBE_MARKER = "MPIMETER_NBC_PROGRESS_PROBE"  # in the environment of the probe's ranks (MPIMETER_: recorded)


def _rank_threads(marker: str) -> list[int]:
    """Threads of each running mpimeter-bench whose environment holds ``PROBE_MARKER=marker``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            if stat[stat.index("(") + 1:stat.rindex(")")] != "mpimeter-bench":
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"{PROBE_MARKER}={marker}".encode() not in f.read().split(b"\0"):
                    continue
        except (OSError, ValueError):  # gone meanwhile, or not ours to read
            continue
        found.append(int(stat.rsplit(")", 1)[1].split()[17]))  # field 20 of proc(5): num_threads
    return found


def threads_per_rank(alternatives: list, np_: int, scratch: Path) -> dict[str, int | None]:
    """Per alternative, the most threads one rank process had while it ran iallreduce at 64 KiB
    (/proc read every 10 ms): a progress thread is one thread more than its library as it is. None
    when no rank was seen (a launch too short to catch)."""
    from mpimeter.campaign.launcher import bench_binary, build_argv, default_bench_dir, local_template

    out: dict[str, int | None] = {}
    for alt in alternatives:
        env = {**alt.env, PROBE_MARKER: alt.name}
        argv = build_argv(local_template(alt.mpi, list(env)), np_,
                          [str(bench_binary(default_bench_dir(), alt.mpi)), "--ops", "iallreduce", "--sizes",
                           "65536", "--nrep", "50", "--nbc-scheme", "work", "--quiet", "--copy-probe-bytes", "0",
                           "--out", str(scratch / f"threads-{alt.name}")])
        proc = subprocess.Popen(argv, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        most = None
        try:
            while proc.poll() is None:
                seen = _rank_threads(alt.name)
                if seen:
                    most = max(most or 0, *seen)
                time.sleep(0.01)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
        out[alt.name] = most
    return out


def run_campaign(out: Path, *, np_: int, nrep: int, seed: int, test_interval: int | None,
                 procsync: str | None) -> dict:
    """One `mpimeter run --suite` of one launch per alternative; what it ran."""
    argv = [sys.executable, "-m", "mpimeter", "run", "--suite", str(SUITE), "--np", str(np_), "--launches", "1",
            "--nrep", str(nrep), "--seed", str(seed), "--copy-probe-bytes", "0", "--no-analyze", "--out", str(out)]
    if test_interval is not None:
        argv += ["--test-interval", str(test_interval)]
    if procsync is not None:
        argv += ["--procsync", procsync]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=CAMPAIGN_TIMEOUT_S,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "python" / "src")})
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {(done.stdout + done.stderr).strip()[-2000:]}")
    return {"folder": str(out), "test_interval": test_interval, "seed": seed}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="launches per alternative and strategy")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--nrep", type=int, default=30)
    ap.add_argument("--test-interval", type=int, default=1024, help="bytes (the paper's best interval: 1024)")
    ap.add_argument("--seed", type=int, default=2010)
    ap.add_argument("--procsync", default=None, help="passed to mpimeter run [default: its own]")
    ap.add_argument("--dir", type=Path, default=Path("/tmp/mm-nbc-progress"), help="a new folder for the campaigns")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "nbc_progress.json")
    ap.add_argument("--plot", type=Path, default=None, help="PNG (default: --out with .png)")
    ap.add_argument("--from-json", type=Path, default=None, help="draw the table and figure of a recorded run")
    a = ap.parse_args(argv)
    if a.from_json is not None:
        doc = json.loads(a.from_json.read_text())
    else:
        if a.rounds < 1 or a.np < 2 or a.nrep < 1 or a.test_interval < 1:
            ap.error("--rounds and --nrep at least 1, --np at least 2, --test-interval at least 1")
        if a.dir.exists():
            ap.error(f"--dir {a.dir} exists: give a new folder")
        rng = random.Random(a.seed)
        campaigns, records = [], []
        for round_ in range(a.rounds):
            kinds = [None, a.test_interval]
            rng.shuffle(kinds)
            for interval in kinds:
                out = a.dir / f"round{round_}-{TESTS if interval else NONE}"
                campaigns.append(run_campaign(out, np_=a.np, nrep=a.nrep, seed=rng.randint(1, 2**31 - 1),
                                              test_interval=interval, procsync=a.procsync))
                records += launch_records(out, round_=round_, test_interval=interval)
                print(f"nbc_progress: round {round_}, {TESTS if interval else NONE}: done", file=sys.stderr)
        from mpimeter.campaign import state as st

        alternatives = st.load(Path(campaigns[0]["folder"])).alternatives
        doc = {"settings": {"suite": str(SUITE.relative_to(ROOT)), "suite_text": SUITE.read_text(),
                            "rounds": a.rounds, "np": a.np, "nrep": a.nrep, "test_interval": a.test_interval,
                            "seed": a.seed, "procsync": a.procsync},
               "threads_per_rank": threads_per_rank(alternatives, a.np, a.dir),
               "campaigns": campaigns, "launches": records}
    doc["table"] = side_by_side(doc["launches"])
    if a.from_json is None:
        write_atomic(a.out, (json.dumps(doc, indent=1) + "\n").encode())
    s = doc["settings"]
    plot(doc["table"], a.plot or (a.from_json or a.out).with_suffix(".png"),
         f"NBCBench overlap by progression strategy (--nbc-scheme work, {s['np']} ranks, {s['rounds']} launches "
         f"each, --test-interval {s['test_interval']})\nmedian, lowest and highest launch; ▼ a launch below −1")
    print(format_table(doc["table"]))
    print("threads per rank process: " + ", ".join(f"{k} {v}" for k, v in doc["threads_per_rank"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
