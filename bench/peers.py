# SPDX-License-Identifier: BSD-3-Clause
"""mpimeter's number beside the tools users would otherwise pick: IMB, OSU and ReproMPI (built by
the user from their sources, paths given) run interleaved with mpimeter's methods on 2 ranks;
writes bench/results/peers.json. Not a test. Re-run it after every change to the measurement.

    nice -n 19 .venv/bin/python bench/peers.py --rounds 20 --imb PATH/IMB-MPI1
        --osu-latency PATH/osu_latency --osu-allreduce PATH/osu_allreduce
        [--osu-latency-p50 PATH/osu_latency]
        --reprompi PATH/mpibenchmark [--lib openmpi] [--seed 40] [--load N [--load-nice K]]
        [--methods default,barrier,...] [--ops allreduce,pingpong]
        [--bench PATH/mpimeter-bench] [--baseline-bench PATH/mpimeter-bench [--baseline-source DIR]]
        [--out bench/results/peers.json]

A change to mpimeter-bench is measured before and after in the same rounds: --bench the new
build, --baseline-bench the old one, whose launches run every chosen method again as
configuration `METHOD@baseline` (ratio_to.baseline: the new one's value and wall time over the
old one's, paired by round). The output names the commit of each (bench_commit,
baseline_commit: --baseline-source's `git describe`, else what the binary's --describe says).

Operations: allreduce, and the ping-pong `pingpong-send-recv` (MPI_Send, MPI_Recv: what IMB's
PingPong and osu_latency time), each at 8 B, 1 KiB and 64 KiB. A configuration is one launch of
one operation at the three sizes:

- mpimeter's METHODS (the table below, to be extended): `default` (window + hca3), `barrier`
  (--procsync barrier), `batch` (--procsync none --batch 50 --nrep 20: 1000 calls back to back,
  timed 50 at a time, IMB's scheme MS2), `single` (--procsync none --nrep 1000: every call
  timed alone, back to back, as osu_latency times its round trips). A first plain launch runs the copy probe and reads the
  MPI_T variables; every later one takes them from it (--copy-probe-from, --mpit-from), as
  `mpimeter run` starts every launch after an alternative's first.
- imb: IMB-MPI1 Allreduce | PingPong -msglen (the three sizes) -npmin 2, IMB's own repetitions.
- osu: osu_allreduce -m 8:65536 -f, osu_latency -m 8:65536 (OSU runs every power of two in
  between: its wall time covers 14 sizes, not 3).
- osu_p50: osu_latency -m 8:65536 -z50, valued by its P50 column: the median of the same
  individually timed round trips whose mean is OSU's average. It isolates what OSU's average
  carries of its own method, the round trips preempted by other processes (docs/ALGORITHMS.md,
  "Agreement where the quantity is the same").
- reprompi: mpibenchmark --calls-list=MPI_Allreduce --msizes-list=8,1024,65536 --nrep=300 (its
  default process sync, MPI_Barrier, and local run times); allreduce only.

Every round runs each configuration once, in an order shuffled per round (seeded); each launch's
folder or output is read right after it, then deleted (or moved into --keep DIR, named
<round>-<position>-<configuration>-<op>, and `first`). One value per launch and size:

- mpimeter: the per-launch median that `mpimeter analyze` reports (mpimeter.analysis: valid
  repetitions, Tukey filter, the launch's own clock: global for the window method, local for
  barrier and batch); for launches on a global clock also on the ranks' local clocks (`local_ns`);
  and the per-launch mean of the same repetitions (`means_ns`, the statistic IMB and OSU print;
  `ratio_of_means_to`: mpimeter's mean over the peer's value, paired by round).
- ping-pongs are one-way: mpimeter's repetition is one round trip a → b → a, which the analysis
  halves (docs/FORMAT.md, `operations[op].round_trip`); IMB PingPong's `t` and osu_latency's
  average are the same quantity, half the mean of back-to-back round trips.
- imb: t_avg (mean over ranks of each rank's mean per call; ping-pong: t); osu: its average
  latency; reprompi: the median of its valid per-repetition run times. Read with mpimeter's
  importers (mpimeter.io.peers, what `mpimeter import` uses); `aggregates_ns` keeps the rest.

Machine state: an mpimeter launch's own cache-line probe (bench/_launches.py); a peer's launch,
which has no probe, takes the state of the mpimeter launch run just before it in its round (the
one just after when it ran first). Per state (fast, slow, unknown, all), operation and
configuration: the per-launch spread (normal-scaled MAD of the log per-launch values, in %; null
below 3 launches), the median of the per-launch values, wall time per launch, meta.json phases
(mpimeter), load; for mpimeter's methods the ratio of its value (and wall time) to each peer's
in the same round, paired by round where both launches are in that state (median and quartiles
over rounds). --load N starts N CPU hogs for the whole run, each in a session of its own at nice K
(--load-nice, also the session's autogroup nice value: 19 takes only what the launches leave, 0
shares the CPUs equally with them); every launch's load (load average, other processes' CPU share)
is recorded either way.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy import stats

from _launches import NCPUS, REPO, cpu_hogs, hog_record, launch_argv, launch_facts, state as machine_state, timed

from mpimeter import atomic
from mpimeter.campaign import describe as _describe
from mpimeter.io.bench_binaries import DescribeError
from mpimeter.io.errors import InputError
from mpimeter.io.peers import PeerRun, read_peer

SIZES = (8, 1024, 65536)
OPS = {"allreduce": "allreduce", "pingpong": "pingpong-send-recv"}  # the study's name → mpimeter's operation
# mpimeter's methods: name → mpimeter-bench options
METHODS: dict[str, list[str]] = {
    "default": [],
    "barrier": ["--procsync", "barrier"],
    "batch": ["--procsync", "none", "--batch", "50", "--nrep", "20"],
    # OSU's scheme: every call timed alone, back to back (osu_latency reads the clock around each
    # round trip and prints the mean)
    "single": ["--procsync", "none", "--nrep", "1000"],
    # the automatic window without its doubling after a late batch: every repetition after the
    # pilot's idle time (docs/ALGORITHMS.md, "The idle time before a call")
    "pilotwindow": ["--window-growth-max", "1"],
}
DEFAULT_METHODS = ("default", "barrier", "batch", "single")
PEERS = ("imb", "osu", "osu_p50", "reprompi")
# the importer (mpimeter.io.peers) that reads each peer's output
READ_AS = {"imb": "imb", "osu": "osu", "osu_p50": "osu", "reprompi": "reprompi"}
BASELINE = "@baseline"  # a method run by --baseline-bench: "default@baseline"
# the command-line option naming each peer binary, per operation it measures
PEER_OPTIONS = {("imb", "allreduce"): "imb", ("imb", "pingpong"): "imb", ("osu", "allreduce"): "osu_allreduce",
                ("osu", "pingpong"): "osu_latency", ("osu_p50", "pingpong"): "osu_latency_p50",
                ("reprompi", "allreduce"): "reprompi"}
REPROMPI_NREP = 300  # mpimeter's default --nrep
STATES = ("fast", "slow", "unknown", "all")
MIN_SPREAD_LAUNCHES = 3
assert not set(METHODS) & set(PEERS), "a method named like a peer would merge their rows"


def method_of(config: str) -> str | None:
    """The mpimeter method a configuration runs (``default@baseline``: default), None for a peer."""
    method = config.removesuffix(BASELINE)
    return method if method in METHODS else None


def peer_argv(peer: str, op: str, binary: str, lengths: Path) -> list[str]:
    """The peer's command for ``op`` at SIZES (``lengths``: IMB's -msglen file)."""
    if peer == "imb":
        return [binary, {"allreduce": "Allreduce", "pingpong": "PingPong"}[op], "-msglen", str(lengths), "-npmin", "2"]
    if peer in ("osu", "osu_p50"):  # -z's percentiles only attached (OSU's getopt "z::")
        extra = {"allreduce": ["-f"], "pingpong": ["-z50"] if peer == "osu_p50" else []}[op]
        return [binary, "-m", f"{min(SIZES)}:{max(SIZES)}", *extra]
    return [binary, "--calls-list=MPI_Allreduce", "--msizes-list=" + ",".join(map(str, SIZES)),
            f"--nrep={REPROMPI_NREP}"]


def peer_values(run: PeerRun, op: str, peer: str | None = None) -> tuple[dict[int, float], dict[int, dict[str, int]]]:
    """Per size of SIZES, the peer's value for ``op`` (ns; ping-pongs one-way) and the aggregates
    it printed. IMB: t_avg, ping-pong t (its half round trip; the importer's raw row doubles it);
    OSU: the average; ReproMPI: the median of the valid repetitions (or --summary's median_sec);
    ``peer`` osu_p50 (a configuration that is not the run's tool): OSU's P50 of its round trips.
    A size whose value the output lacks is left out."""
    values: dict[int, float] = {}
    aggregates: dict[int, dict[str, int]] = {}
    for t in run.tests:
        if t.op != OPS[op] or t.size not in SIZES:
            continue
        if run.tool == "reprompi" and run.data == "repetitions":
            kept = [x for x, ok in zip(t.run_times_ns, t.valid) if ok]
            value = statistics.median(kept) if kept else None
        else:  # the one aggregate that is this value; a table without it gives none (a missing size)
            key = {"imb": "t" if t.round_trip else "t_avg", "osu": "avg", "osu_p50": "p50",
                   "reprompi": "median"}[peer or run.tool]
            value = t.aggregates_ns.get(key)
        if value is None:
            continue
        values[t.size] = float(value)
        aggregates[t.size] = dict(t.aggregates_ns)
    return values, aggregates


def mpimeter_values(folder: Path) -> dict:
    """The per-launch medians (per size) as `mpimeter analyze` computes them; on the local clocks
    too when the launch ran on a global one; the share of invalid repetitions; the codes of the
    analysis's warnings (machine-load, ...)."""
    from mpimeter import analysis  # the package's own reading and statistics (slow to import)

    campaign = analysis.load_campaign(folder, cache=False, store=False)
    result = analysis.analyze(campaign)
    summaries = [s for row in result.rows for s in row.per_launch]
    out = {"values_ns": _medians(summaries), "means_ns": {int(s.size): float(s.mean_ns) for s in summaries},
           "clock": sorted({s.clock for s in summaries}),
           "warnings": sorted({w.code for w in result.warnings})}
    if any(s.clock != "local" for s in summaries):
        out["local_ns"] = _medians([s for row in analysis.analyze(campaign, clock="local").rows
                                    for s in row.per_launch])
    total = sum(s.n_total for s in summaries)
    out["invalid_share"] = round(sum(s.n_invalid for s in summaries) / total, 4) if total else None
    return out


def _medians(summaries) -> dict[int, float]:
    return {int(s.size): float(s.median_ns) for s in summaries
            if s.n > 0 and math.isfinite(s.median_ns) and int(s.size) in SIZES}


def assign_peer_states(records: list[dict]) -> None:
    """A round's records in the order run: each peer launch gets the state of the mpimeter launch
    just before it, else the one just after it; "unknown" when the round has none."""
    own = [(k, r["state"]) for k, r in enumerate(records) if r["tool"] == "mpimeter"]
    for k, r in enumerate(records):
        if r["tool"] == "mpimeter":
            r["state_from"] = "own probe"
            continue
        before = [s for j, s in own if j < k]
        after = [s for j, s in own if j > k]
        if before:
            r["state"], r["state_from"] = before[-1], "the mpimeter launch before it"
        elif after:
            r["state"], r["state_from"] = after[0], "the mpimeter launch after it"
        else:
            r["state"], r["state_from"] = "unknown", "no mpimeter launch in its round"


# IMB and OSU print microseconds with two decimals: their per-launch values lie on a 10 ns grid, and
# where most launches print the same value their spread is 0. spread_on_grid_pct rounds every
# configuration's values to that grid first, so that a spread is compared at the peers' resolution.
PRINT_GRID_NS = 10.0


def on_grid(values: list[float], grid_ns: float = PRINT_GRID_NS) -> list[float]:
    """``values`` rounded to the nearest multiple of ``grid_ns`` (half away from zero, as printf)."""
    return [float(np.floor(x / grid_ns + 0.5) * grid_ns) for x in values]


def spread_pct(values: list[float]) -> float | None:
    """Normal-scaled median absolute deviation of the log values, in % (≈ the coefficient of
    variation for small spreads, robust to a stray launch); None below MIN_SPREAD_LAUNCHES."""
    v = [x for x in values if x and x > 0]
    if len(v) < MIN_SPREAD_LAUNCHES:
        return None
    return round(float(stats.median_abs_deviation(np.log(v), scale="normal")) * 100, 2)


def _quartiles(ratios: list[float]) -> dict:
    q1, med, q3 = np.quantile(ratios, [0.25, 0.5, 0.75])
    return {"median": round(float(med), 4), "q1": round(float(q1), 4), "q3": round(float(q3), 4),
            "rounds": len(ratios)}


def paired_ratios(launches: list[dict], config: str, peer: str, op: str, state: str,
                  key: str = "values_ns") -> dict:
    """Per size, ``config``'s value (``key``: its per-launch median, or ``means_ns``) over
    ``peer``'s in the same round, over the rounds where both ran without error and (unless state
    is "all") both launches were in ``state``; and the same for their wall times (``wall``)."""
    rounds: dict[int, dict[str, dict]] = {}
    for x in launches:
        if x["round"] >= 0 and x["op"] == op and x["config"] in (config, peer) and "error" not in x:
            rounds.setdefault(x["round"], {})[x["config"]] = x
    pairs = [(r[config], r[peer]) for _, r in sorted(rounds.items()) if config in r and peer in r
             and (state == "all" or r[config]["state"] == r[peer]["state"] == state)]
    out: dict = {}
    for size in SIZES:
        ratios = [a[key][size] / b["values_ns"][size] for a, b in pairs
                  if a.get(key, {}).get(size) and b["values_ns"].get(size)]
        if ratios:
            out[str(size)] = _quartiles(ratios)
    if pairs and key == "values_ns":
        out["wall"] = _quartiles([a["wall_s"] / b["wall_s"] for a, b in pairs])
    return out


def _median(values) -> float | None:
    v = [x for x in values if x is not None]
    return round(float(statistics.median(v)), 4) if v else None


def summarize(launches: list[dict]) -> dict:
    """summary[state][op][configuration]: launches, spread_pct and median_ns per size (and their
    local-clock twins), wall time, phases and load medians, and for mpimeter's methods ratio_to
    each peer (paired by round; ``baseline``: the same method run by --baseline-bench)."""
    ok = [x for x in launches if x["round"] >= 0 and "error" not in x]
    configs = [c for c in [*METHODS, *(m + BASELINE for m in METHODS), *PEERS] if any(x["config"] == c for x in ok)]
    out: dict = {}
    for state in STATES:
        for op in OPS:
            for config in configs:
                rows = [x for x in ok if x["op"] == op and x["config"] == config and state in ("all", x["state"])]
                if not rows:
                    continue
                entry: dict = {"launches": len(rows)}
                for key, name in (("values_ns", ""), ("local_ns", "_local"), ("means_ns", "_of_means")):
                    if any(key in x for x in rows):
                        got = {size: [x[key][size] for x in rows if x.get(key, {}).get(size)] for size in SIZES}
                        entry["spread" + name + "_pct"] = {str(s): spread_pct(v) for s, v in got.items() if v}
                        if key == "values_ns":
                            entry["spread_on_grid_pct"] = {str(s): spread_pct(on_grid(v)) for s, v in got.items() if v}
                        entry["median" + name + "_ns"] = {str(s): round(statistics.median(v), 1)
                                                          for s, v in got.items() if v}
                entry["wall_s_median"] = _median(x["wall_s"] for x in rows)
                entry["load1_median"] = _median(x["load1"] for x in rows)
                entry["other_cpu_share_median"] = _median(x["other_cpu_share"] for x in rows)
                phases = [x["phases"] for x in rows if x.get("phases")]
                if phases:
                    entry["phases_s_median"] = {k: _median(p.get(k) for p in phases) for k in phases[0]}
                if method_of(config):
                    entry["invalid_share_median"] = _median(x.get("invalid_share") for x in rows)
                    ratios = {peer: paired_ratios(ok, config, peer, op, state) for peer in PEERS}
                    if not config.endswith(BASELINE):
                        ratios["baseline"] = paired_ratios(ok, config, config + BASELINE, op, state)
                    entry["ratio_to"] = {peer: r for peer, r in ratios.items() if r}
                    means = {peer: paired_ratios(ok, config, peer, op, state, key="means_ns") for peer in PEERS}
                    entry["ratio_of_means_to"] = {peer: r for peer, r in means.items() if r}
                out.setdefault(state, {}).setdefault(op, {})[config] = entry
    return out


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints the whole usage first)
        self.exit(2, f"peers.py: {message}; see --help\n")


def _whole(low: int, high: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (allowed: {low} to {high})") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range (allowed: {low} to {high})")
        return value
    return parse


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number above 0")
    return value


def _executable(text: str) -> str:
    path = Path(text)
    if not path.is_file() or not os.access(path, os.X_OK):
        raise argparse.ArgumentTypeError(f"{text!r} is not an executable file (give the binary the peer's build made)")
    return str(path.resolve())


def _subset(option: str, allowed):
    def parse(text: str) -> list[str]:
        names = [x.strip() for x in text.split(",")]
        wrong = [x for x in names if x not in allowed]
        if wrong:
            raise argparse.ArgumentTypeError(f"{text!r} names {', '.join(map(repr, wrong)) or 'nothing'} "
                                             f"(allowed: {', '.join(allowed)}, comma-separated)")
        return [x for x in allowed if x in names]  # the table's order, each once
    return parse


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = _Parser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=_whole(1, 10000), default=20)
    p.add_argument("--seed", type=_whole(0, 2**31 - 1), default=40)
    p.add_argument("--load", type=_whole(0, 64), default=0, metavar="N",
                   help="start N CPU hogs for the whole run [0]")
    p.add_argument("--load-nice", type=_whole(0, 19), default=19, metavar="K",
                   help="the hogs' nice value, also their session's (autogroup): 19 takes what "
                        "the launches leave, 0 shares the CPUs equally with them [19]")
    p.add_argument("--lib", default="openmpi", choices=["openmpi", "mpich"],
                   help="the MPI library of mpimeter's build and of the peers' [openmpi]")
    p.add_argument("--imb", type=_executable, help="IMB-MPI1 (not given: no IMB launches)")
    p.add_argument("--osu-latency", type=_executable, help="OSU's osu_latency (not given: no OSU ping-pong launches)")
    p.add_argument("--osu-allreduce", type=_executable, help="OSU's osu_allreduce (not given: no OSU allreduce launches)")
    p.add_argument("--osu-latency-p50", type=_executable,
                   help="OSU 7.x's osu_latency run again with -z50 as configuration osu_p50, valued by its median "
                        "of the per-round-trip times (not given: no such launches)")
    p.add_argument("--reprompi", type=_executable, help="ReproMPI's mpibenchmark (not given: no ReproMPI launches)")
    p.add_argument("--methods", type=_subset("--methods", METHODS), default=list(DEFAULT_METHODS),
                   help=f"mpimeter's methods to run, comma-separated, of {','.join(METHODS)} "
                        f"[{','.join(DEFAULT_METHODS)}]")
    p.add_argument("--ops", type=_subset("--ops", OPS), default=list(OPS),
                   help=f"the operations, comma-separated [{','.join(OPS)}]")
    p.add_argument("--bench", type=_executable,
                   help="the mpimeter-bench to measure [build/LIB/bin/mpimeter-bench]")
    p.add_argument("--baseline-bench", type=_executable,
                   help="a second mpimeter-bench (the build before a change): its launches run every method "
                        "again as METHOD@baseline in the same rounds (not given: no such launches)")
    p.add_argument("--baseline-source", type=Path, metavar="DIR",
                   help="the source tree --baseline-bench was built from: its `git describe --always --dirty` is "
                        "kept as baseline_commit (default: the commit the binary's --describe names)")
    p.add_argument("--fast-below-ns", type=_positive, default=200.0,
                   help="a cache-line round trip below this is the fast state [200]")
    p.add_argument("--timeout-s", type=_positive, default=300.0, help="a launch running longer is killed [300]")
    p.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "peers.json")
    p.add_argument("--keep", type=Path, metavar="DIR",
                   help="keep every launch folder and peer output in DIR, a new folder (default: deleted once read)")
    args = p.parse_args(argv)
    if not args.out.parent.is_dir():
        p.error(f"--out {args.out}: the folder {args.out.parent} does not exist")
    try:
        atomic.check_file_target(args.out, "--out")
    except OSError as exc:
        p.error(str(exc))
    if args.keep is not None and (args.keep.exists() or args.keep.is_symlink()):
        p.error(f"--keep {args.keep}: already exists; give a new folder (nothing kept is ever replaced)")
    if args.keep is not None and not args.keep.parent.is_dir():
        p.error(f"--keep {args.keep}: the folder {args.keep.parent} does not exist")
    if args.bench is None:
        args.bench = REPO / "build" / args.lib / "bin" / "mpimeter-bench"
        if not args.bench.is_file():
            p.error(f"{args.bench} does not exist: build mpimeter for {args.lib} first (make build)")
    return args


def configurations(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(configuration, op) of one round, in a fixed order before the shuffle."""
    out = [(m, op) for op in args.ops for m in args.methods]
    if args.baseline_bench:
        out += [(m + BASELINE, op) for op in args.ops for m in args.methods]
    return out + [(peer, op) for (peer, op), option in PEER_OPTIONS.items()
                  if getattr(args, option) and op in args.ops]


def run_mpimeter(args: argparse.Namespace, method: str, op: str, folder: Path, first: Path | None,
                 seed: int) -> dict:
    """One launch of configuration ``method`` (METHOD@baseline: by --baseline-bench), read."""
    return read_mpimeter(args, launch_mpimeter(args, method, op, folder, first, seed), folder)


def launch_mpimeter(args: argparse.Namespace, method: str, op: str, folder: Path, first: Path | None,
                    seed: int) -> dict:
    """One launch of configuration ``method``, not yet read: its wall time and the load around it."""
    binary = args.baseline_bench if method.endswith(BASELINE) else args.bench
    bench = [str(binary), "--ops", OPS[op], "--sizes", ",".join(map(str, SIZES)), *METHODS[method_of(method)],
             "--seed", str(seed), "--out", str(folder)]
    if first is not None:
        bench += ["--copy-probe-from", str(first), "--mpit-from", str(first)]
    done, wall, load = timed(launch_argv(args.lib, bench), args.timeout_s)
    rec = {"tool": "mpimeter", "config": method, "op": op, "wall_s": round(wall, 4), **load}
    if done.returncode != 0:
        return {**rec, "state": "unknown", "error": done.stderr.strip()[-400:]}
    return rec


def read_mpimeter(args: argparse.Namespace, rec: dict, folder: Path) -> dict:
    """A launch's state (its cache-line probe) and values (the package's analysis), added to ``rec``."""
    if "error" in rec:
        return rec
    try:
        facts = launch_facts(folder)
    except (InputError, OSError) as exc:
        return {**rec, "state": "unknown", "error": f"launch folder: {exc}"}
    rec = {**rec, **facts, "state": machine_state(facts["cacheline_rtt_ns"], args.fast_below_ns)}
    try:
        rec.update(mpimeter_values(folder))
    except Exception as exc:  # noqa: BLE001 — a launch the analysis refuses is recorded, not fatal
        rec["error"] = f"analysis: {exc}"
    return rec


def run_peer(args: argparse.Namespace, peer: str, op: str, output: Path, lengths: Path) -> dict:
    binary = getattr(args, PEER_OPTIONS[(peer, op)])
    done, wall, load = timed(launch_argv(args.lib, peer_argv(peer, op, binary, lengths)), args.timeout_s)
    rec = {"tool": peer, "config": peer, "op": op, "wall_s": round(wall, 4), **load}
    if done.returncode != 0:
        return {**rec, "error": (done.stderr.strip() or done.stdout.strip())[-400:]}
    output.write_text(done.stdout)
    try:
        run = read_peer(READ_AS[peer], output, nprocs=2 if READ_AS[peer] == "osu" else None)
    except InputError as exc:
        return {**rec, "error": f"output: {exc}"}
    values, aggregates = peer_values(run, op, peer)
    missing = [s for s in SIZES if s not in values]
    rec.update(values_ns=values, aggregates_ns=aggregates, tool_version=run.tool_version)
    if missing:
        rec["error"] = f"no value at sizes {missing}"
    return rec


def _json_ready(x):
    """Size keys as strings (JSON object keys); tuples as lists."""
    if isinstance(x, dict):
        return {str(k): _json_ready(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_ready(v) for v in x]
    return x


def write(args: argparse.Namespace, header: dict, launches: list[dict], rounds: list[dict]) -> None:
    by_state: dict[str, int] = {}
    for r in rounds:
        by_state[r["state"]] = by_state.get(r["state"], 0) + 1
    result = {**header, "rounds_done": len(rounds), "rounds_by_state": by_state, "ended_utc": _utc(),
              "summary": summarize(launches),
              "rounds": rounds, "launches": launches}
    atomic.write_atomic(args.out, (json.dumps(_json_ready(result), indent=1) + "\n").encode())


def _utc() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def build_commit(binary: str | Path, source: Path | None = None) -> str | None:
    """The commit a mpimeter-bench was built from: `git describe --always --dirty` of its
    ``source`` tree when given (says whether the tree held changes), else the revision its
    --describe names (CMake's `git rev-parse` at build time); None when neither is known."""
    if source is not None:
        done = subprocess.run(["git", "-C", str(source), "describe", "--always", "--dirty"], capture_output=True,
                              text=True, check=False)
        return done.stdout.strip() or None
    try:
        revision = _describe.describe(binary).tool.get("git_revision")
    except (OSError, DescribeError):
        return None
    return None if revision in (None, "", "unknown") else str(revision)


def _header(args: argparse.Namespace, configs: list[tuple[str, str]], hogs: list[int]) -> dict:
    given = {key: getattr(args, option) for key, option in PEER_OPTIONS.items() if getattr(args, option)}
    return {
        "rounds_asked": args.rounds, "seed": args.seed, "lib": args.lib, "ranks": 2, "cpus": NCPUS,
        "sizes": list(SIZES), "ops": {op: OPS[op] for op in args.ops},
        "methods": {m: METHODS[m] for m in args.methods}, "configurations": [f"{c} {op}" for c, op in configs],
        "bench": str(args.bench), "baseline_bench": str(args.baseline_bench) if args.baseline_bench else None,
        "bench_commit": build_commit(args.bench),
        "baseline_commit": build_commit(args.baseline_bench, args.baseline_source) if args.baseline_bench else None,
        "peer_binaries": {f"{peer} {op}": binary for (peer, op), binary in given.items()},
        "peer_commands": {f"{peer} {op}": peer_argv(peer, op, Path(binary).name, Path("msglen.txt"))
                          for (peer, op), binary in given.items()},
        "fast_below_ns": args.fast_below_ns, "started_utc": _utc(),
        "load": hog_record(len(hogs), args.load_nice),
        "value": {"mpimeter": "per-launch median of analyze (valid repetitions, Tukey filter, the launch's clock)",
                  "imb": "t_avg; ping-pong t (one-way)", "osu": "average latency (ping-pong: one-way)",
                  "osu_p50": "osu_latency -z50's P50: the median of its per-round-trip one-way times",
                  "reprompi": "median of the valid per-repetition run times (max over ranks of local durations)",
                  "pingpong": "one-way: half the round trip (mpimeter halves each repetition's; IMB and OSU print "
                              "half the mean back-to-back round trip)"},
        "state_rule": "mpimeter launches: their cache-line probe (fast below fast_below_ns); peers: the mpimeter "
                      "launch just before them in the round, else just after; a round's state: that of all its "
                      "mpimeter launches, mixed when they differ",
        "wall": "seconds around the launcher; OSU's launches run every power of two from 8 B to 64 KiB (14 sizes), "
                "the others the 3 sizes",
        "spread": "normal-scaled MAD of the log per-launch values, in % (null below 3 launches); "
                  "spread_on_grid_pct: the same of the values rounded to the 10 ns grid IMB and OSU print on",
        "ratio_to": "per round, mpimeter's value (or wall time) over the peer's, where both launches are in the "
                    "state; median and quartiles over rounds",
    }


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    rng = random.Random(args.seed)
    configs = configurations(args)
    launches: list[dict] = []
    rounds: list[dict] = []
    tmp = Path(tempfile.mkdtemp(prefix="peers."))
    try:
        with cpu_hogs(args.load, args.load_nice) as hogs:
            header = _header(args, configs, hogs)
            lengths = tmp / "msglen.txt"
            lengths.write_text("".join(f"{s}\n" for s in SIZES))
            first = tmp / "first"
            rec = run_mpimeter(args, "default", "allreduce", first, None, rng.randrange(2**31))
            launches.append({**rec, "round": -1, "position": 0, "state_from": "own probe"})
            if "error" in rec:
                sys.exit(f"peers.py: the first mpimeter launch failed: {rec['error']}")
            header["mpimeter"] = _mpimeter_build(first)
            for round_ in range(args.rounds):
                order = list(configs)
                rng.shuffle(order)
                records, launched = [], []
                for k, (config, op) in enumerate(order):
                    where = tmp / f"{round_:03d}-{k:02d}-{config}-{op}"
                    if method_of(config):
                        rec = launch_mpimeter(args, config, op, where, first, rng.randrange(2**31))
                    else:
                        where = where.with_suffix(".txt")
                        rec = run_peer(args, config, op, where, lengths)
                        _done_with(args, where)
                    launched.append((k, config, op, where, rec))
                # The round's launches run back to back and are read after it: the analysis (seconds a
                # launch) between them would spread a round over a longer stretch of machine states.
                for k, config, op, where, rec in launched:
                    if method_of(config):
                        rec = read_mpimeter(args, rec, where)
                        _done_with(args, where)
                    records.append({**rec, "round": round_, "position": k})
                    print(f"round {round_} {k + 1}/{len(order)} {config} {op}: {rec['wall_s']:.2f} s"
                          f"{' ERROR ' + rec['error'][:120] if 'error' in rec else ''}", file=sys.stderr, flush=True)
                assign_peer_states(records)
                launches += records
                states = {r["state"] for r in records if r["tool"] == "mpimeter" and "error" not in r}
                rounds.append({"round": round_, "order": [f"{c} {op}" for c, op in order],
                               "state": states.pop() if len(states) == 1 else ("mixed" if states else "unknown")})
                write(args, header, launches, rounds)  # after every round: a stopped run keeps its rounds
    finally:
        _done_with(args, tmp / "first")
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"peers.py: wrote {args.out} ({len(rounds)} rounds)", file=sys.stderr)


def _done_with(args: argparse.Namespace, output: Path) -> None:
    """A launch's folder or output file, once read: into --keep, else deleted."""
    if not output.exists():
        return
    if args.keep is not None:
        args.keep.mkdir(exist_ok=True)
        shutil.move(str(output), str(args.keep / output.name))
    elif output.is_dir():
        shutil.rmtree(output, ignore_errors=True)
    else:
        output.unlink()


def _mpimeter_build(first: Path) -> dict:
    from mpimeter.io import jsonread

    meta = jsonread.load_json(first / "meta.json")
    return {"binary": str(Path(meta.get("argv", ["?"])[0])), "tool": meta.get("tool"), "build": meta.get("build"),
            "mpi": (meta.get("mpi") or {}).get("library_version", "")[:200]}


if __name__ == "__main__":
    main()
