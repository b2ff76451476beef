# SPDX-License-Identifier: BSD-3-Clause
"""Reproducibility on this machine: two trials of 10 launches each, per-state medians within
3 % at every size (the pooled ratio beside it) — how OFTEN does that hold, and with how many
launches per trial would it? Not a test.

    .venv/bin/python bench/state_trials.py run --dir DIR [--pairs K] [--until HH:MM] [--launches 10]
        [--lib openmpi] [--imb PATH/IMB-MPI1]
    .venv/bin/python bench/state_trials.py report --dir DIR [--out bench/results/launch_states_trials.json]
    .venv/bin/python bench/state_trials.py join --dir NEW [--build REV] RUN_DIR...

run: K pairs of trials, one after the other, nothing in parallel. A trial is a default campaign:
`mpimeter run --mpi LIB --launches N --no-analyze` with nothing else given (the default
operations and sizes, 2 ranks on this 2-core machine, the default method: window + hca3, the copy
probe in the trial's first launch only, as `run` does), each with its own seed. Before and
after every trial the load average and the machine's /proc/stat counters (busy, steal) are kept
in DIR/trials.json, written after each trial, with the trial's own CPU seconds (its launcher's
and ranks' rusage) and the share of the machine's CPUs everything else used meanwhile. No new trial starts when the last one's duration
would end it after --until (UTC); a trial still running then is stopped with SIGINT (`mpimeter
run` stops cleanly; its finished launches count).

join: the trials of several runs that ran one after the other as one run folder (see join()).

With --imb, each trial is followed by an IMB trial: as many IMB-MPI1 runs (mpiruns) of the
operations and sizes the trial measured (-msglen; IMB's own iteration policy), one after the
other; `report` then gives IMB's pairs and blocks beside mpimeter's, on IMB's t_avg (IMB prints
it in µs with two decimals: a 10 ns grid), pooled (IMB records no probe), and the per-launch
spread of both (the normal-scaled MAD of log per-launch values, per (op, size)).

report: every trial folder read with the package's analysis (load_campaign + analyze: the
per-launch medians the headline is made of, and what analyze says of states); per launch the
cache-line probe (fast below --fast-below-ns; on the test machine 49-111 ns fast, 344-414 ns slow) and
the other recorded properties. Then:

- pairs: per (op, size) and state, trial B's median of per-launch medians over trial A's (the
  analysis's per-state median), only where both trials have at least --min-state-launches
  launches of the state, and the pooled ratio (all launches); a pair is "within 3 %" for a state
  when every (op, size) of it is. The share of pairs within 3 % is the answer to "how often".
- launches per trial: all launches in time order cut into adjacent blocks of n (10, 20, 40;
  consecutive trials joined), block 2i against block 2i+1 — the time-faithful answer; and 2000
  random draws of two disjoint sets of n launches from all of them — what independent launches
  would give. The gap between the two is what time-clustered machine states cost.
- lagging launches inside the fast state (bench/state_within.py's score: the mean over the rows
  of log(median / the row's lower quartile)) against every recorded property of the launches, as
  bench/state_within.py does for launch_states*.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
MPIMETER = Path(sys.executable).with_name("mpimeter")
TOLERANCE = 0.03
BLOCKS = (10, 20, 40)
STATES = ("pooled", "fast", "slow")


def _utc() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


def _proc_stat() -> dict:
    """The machine's CPU seconds so far: busy (all but idle and iowait) and steal."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    return {"busy_s": (sum(v) - v[3] - v[4]) / hz, "steal_s": v[7] / hz}


def _children_cpu() -> float:
    """CPU seconds of the finished children (the campaign, its launcher and ranks: each waits for
    its own, so their time reaches this process)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _other_cpu(entry: dict, own_s: float) -> dict:
    """The campaign's own CPU seconds and the share of the machine's CPUs that everything else
    used while it ran (the machine's busy seconds less the campaign's, over wall x CPUs)."""
    busy = entry["stat_after"]["busy_s"] - entry["stat_before"]["busy_s"]
    cpus = os.cpu_count() or 1
    return {"own_cpu_s": round(own_s, 2),
            "other_cpu_share": round(max(0.0, busy - own_s) / (entry["wall_s"] * cpus), 4) if entry["wall_s"] else None}


def _deadline(text: str | None) -> float | None:
    if not text:
        return None
    hh, mm = (int(x) for x in text.split(":"))
    now = dt.datetime.now(dt.timezone.utc)
    return now.replace(hour=hh, minute=mm, second=0, microsecond=0).timestamp()


def run(args: argparse.Namespace) -> None:
    args.dir.mkdir(parents=True, exist_ok=True)
    manifest = args.dir / "trials.json"
    record = {"lib": args.lib, "launches_per_trial": args.launches, "seed": args.seed, "ops": args.ops,
              "sizes": args.sizes, "trials": []}
    rng = np.random.default_rng(args.seed)
    until, last = _deadline(args.until), 0.0
    for pair in range(args.pairs):
        for side in ("A", "B"):
            if until is not None and time.time() + 1.2 * last > until:
                print(f"stopping: a trial of {last:.0f} s would end after {args.until} UTC", flush=True)
                return
            folder = args.dir / f"p{pair:03d}-{side}"
            seed = int(rng.integers(0, 2**31 - 1))
            cmd = [str(MPIMETER), "run", "--mpi", args.lib, "--launches", str(args.launches), "--seed", str(seed),
                   "--out", str(folder), "--no-analyze"]
            cmd += [x for opt in ("ops", "sizes") if getattr(args, opt) for x in (f"--{opt}", getattr(args, opt))]
            entry = {"pair": pair, "side": side, "folder": folder.name, "seed": seed, "start": _utc(),
                     "load_before": os.getloadavg(), "stat_before": _proc_stat()}
            t0, own0 = time.monotonic(), _children_cpu()
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:
                out, _ = proc.communicate(timeout=None if until is None else max(1.0, until - time.time()))
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGINT)  # mpimeter run stops cleanly on Ctrl-C
                out, _ = proc.communicate()
                entry["stopped_at_deadline"] = True
            last = time.monotonic() - t0
            entry.update(end=_utc(), wall_s=round(last, 2), returncode=proc.returncode, load_after=os.getloadavg(),
                         stat_after=_proc_stat(), output_tail=out.strip().splitlines()[-2:])
            entry.update(_other_cpu(entry, _children_cpu() - own0))
            record["trials"].append(entry)
            manifest.write_text(json.dumps(record, indent=1) + "\n")
            print(f"pair {pair} {side}: exit {proc.returncode} in {last:.1f} s, load {entry['load_after'][0]:.2f}",
                  flush=True)
            if entry.get("stopped_at_deadline"):
                return
            if args.imb:
                record.setdefault("imb_trials", []).append(run_imb_trial(args, folder, pair, side))
                manifest.write_text(json.dumps(record, indent=1) + "\n")


def join(args: argparse.Namespace) -> None:
    """The trials of several runs, one after the other, as one run folder (--dir: symlinks to
    the trials' folders, renamed cNNN, and one trials.json renumbered into pairs A, B): a run that
    went on after another. With --build, a trial any of whose launches names another build is
    left out (named in left_out); such trials may only stand at the ends, or the joined trials
    would not be consecutive."""
    trials, left = [], []
    for run_dir in args.runs:
        record = json.loads((run_dir / "trials.json").read_text())
        for t in record["trials"]:
            builds = sorted({json.loads(m.read_text())["tool"]["git_revision"]
                             for m in (run_dir / t["folder"]).glob("launches/*/meta.json")})
            entry = dict(t, builds=builds, ran_as=f"{run_dir.name}/{t['folder']}", folder_path=run_dir / t["folder"])
            (trials if args.build is None or builds == [args.build] else left).append(entry)
    kept = [i for i, t in enumerate(sorted(trials + left, key=lambda t: t["start"])) if t in trials]
    if kept != list(range(kept[0], kept[0] + len(kept))):
        sys.exit("a trial of another build ran between kept ones: the kept trials are not consecutive")
    args.dir.mkdir(parents=True)
    for n, t in enumerate(trials):
        (args.dir / f"c{n:03d}").symlink_to(t.pop("folder_path").resolve())
        t.update(folder=f"c{n:03d}", pair=n // 2, side="AB"[n % 2])
    first = json.loads((args.runs[0] / "trials.json").read_text())
    out = {k: v for k, v in first.items() if k != "trials"}
    out.update(joined_from=[str(r) for r in args.runs], build=args.build,
               left_out=[f"{t['ran_as']} ({', '.join(t['builds'])})" for t in left], trials=trials)
    (args.dir / "trials.json").write_text(json.dumps(out, indent=1, default=str) + "\n")
    print(f"{len(trials)} trials joined into {args.dir}; left out: {out['left_out']}")


# IMB-MPI1's names of the operations a default campaign measures; others have no IMB benchmark here
IMB_NAMES = {"allreduce": "Allreduce", "bcast": "Bcast", "alltoall": "Alltoall", "barrier": "Barrier",
             "reduce": "Reduce", "allgather": "Allgather", "gather": "Gather", "scatter": "Scatter"}


def run_imb_trial(args: argparse.Namespace, measured: Path, pair: int, side: str) -> dict:
    """IMB's trial beside a mpimeter trial: as many IMB-MPI1 runs (mpiruns) as the trial had
    launches, of the operations and sizes that trial measured (read from its first launch's
    meta.json, -msglen), IMB's own iteration policy, one after the other; each output kept."""
    from mpimeter.campaign.launcher import build_argv, local_template

    meta = json.loads((measured / "launches" / "000" / "meta.json").read_text())
    ops = [IMB_NAMES[o] for o in meta["config"]["ops"] if o in IMB_NAMES]
    folder = args.dir / f"imb-{measured.name}"
    folder.mkdir(exist_ok=True)
    lengths = folder / "msglen.txt"
    lengths.write_text("".join(f"{n}\n" for n in sorted(set(meta["config"]["sizes"]))))
    argv = build_argv(local_template(args.lib), 2, [str(args.imb), *ops, "-msglen", str(lengths), "-npmin", "2"])
    entry = {"pair": pair, "side": side, "folder": folder.name, "argv": argv, "start": _utc(),
             "load_before": os.getloadavg(), "launches": []}
    t0 = time.monotonic()
    for i in range(args.launches):
        t1, started = time.monotonic(), _utc()
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        out = folder / f"launch-{i:03d}.txt"
        out.write_text(proc.stdout)
        entry["launches"].append({"file": out.name, "start": started, "returncode": proc.returncode,
                                  "seconds": round(time.monotonic() - t1, 3)})
    entry.update(end=_utc(), wall_s=round(time.monotonic() - t0, 2), load_after=os.getloadavg())
    print(f"pair {pair} {side} IMB: {args.launches} runs in {entry['wall_s']:.1f} s", flush=True)
    return entry


def read_imb_trials(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """IMB's t_avg (the mean over ranks of each rank's mean per call, what IMB users quote) per
    (trial, launch, op, size), read with mpimeter's IMB importer, and one row per launch."""
    from mpimeter.io.peers import read_peer

    record = json.loads((folder / "trials.json").read_text())
    medians, launches = [], []
    for entry in record.get("imb_trials", []):
        for i, run_ in enumerate(entry["launches"]):
            if run_["returncode"] != 0:
                continue
            tests = read_peer("imb", folder / entry["folder"] / run_["file"]).tests
            launches.append({"pair": entry["pair"], "side": entry["side"], "launch": i, "wall_start": run_["start"],
                             "seconds": run_["seconds"]})
            medians += [{"pair": entry["pair"], "side": entry["side"], "launch": i, "op": t.op, "size": t.size,
                         "median_ns": t.aggregates_ns["t_avg"]} for t in tests]
    return pd.DataFrame(medians), pd.DataFrame(launches)


def _pair_table(med: pd.DataFrame, launches: pd.DataFrame, min_n: int, rng, draws: int,
                keep_medians: bool = False) -> tuple[list[dict], dict]:
    """Trial B over trial A per pair, and the same for adjacent blocks and random draws of n
    launches (BLOCKS), the launches in time order (pair, side, launch)."""
    m = Medians(med, launches)
    pairs = []
    for pair, g in launches.groupby("pair"):
        a, b = g.index[g.side == "A"].to_numpy(), g.index[g.side == "B"].to_numpy()
        if len(a) and len(b):
            pairs.append({"pair": int(pair), **m.compare(a, b, min_n, keep_medians=keep_medians)})
    blocks = {}
    for n in BLOCKS:
        adjacent = [m.compare(np.arange(2 * i * n, (2 * i + 1) * n), np.arange((2 * i + 1) * n, (2 * i + 2) * n),
                              min_n) for i in range(len(launches) // (2 * n))]
        drawn = []
        if len(launches) >= 2 * n:
            for _ in range(draws):
                pick = rng.choice(len(launches), 2 * n, replace=False)
                drawn.append(m.compare(pick[:n], pick[n:], min_n))
        blocks[str(n)] = {"adjacent_blocks": {s: _share(adjacent, s) for s in STATES},
                          "random_draws": {s: _share(drawn, s) for s in STATES}}
    return pairs, blocks


def _robust_sd(med: pd.DataFrame) -> dict[str, float]:
    """Per (op, size): the spread of the per-launch values across launches, as the normal-scaled
    MAD of their logarithms, in percent."""
    return {f"{op} {size}": round(float(stats.median_abs_deviation(np.log(g.median_ns), scale="normal") * 100), 2)
            for (op, size), g in med.groupby(["op", "size"])}


def imb_report(folder: Path, rng, draws: int) -> dict | None:
    """The pairs and blocks of IMB's trials, pooled (IMB records no probe to tell states apart)."""
    med, launches = read_imb_trials(folder)
    if launches.empty:
        return None
    launches["launch_key"] = list(zip(launches.pair, launches.side, launches.launch))
    launches["state"] = "unknown"
    launches = launches.sort_values(["pair", "side", "launch"]).reset_index(drop=True)
    med["launch_key"] = list(zip(med.pair, med.side, med.launch))
    pairs, blocks = _pair_table(med, launches, 1, rng, draws)
    return {"launches": len(launches), "statistic": "t_avg", "printed_grid_ns": 10,
            "launch_seconds_median": float(launches.seconds.median()),
            "pairs_summary": {"pooled": _share(pairs, "pooled")},
            "launches_per_trial": {n: {how: {"pooled": b[how]["pooled"]} for how in b} for n, b in blocks.items()},
            "per_launch_robust_sd_pct": _robust_sd(med),
            "pairs": [{"pair": p["pair"], "pooled": p["pooled"]} for p in pairs]}


# ---------------------------------------------------------------------------------------------- report

def _launch_props(li) -> dict:
    m = li.meta
    doc = m.document or {}
    probe = m.cacheline_probes[0].rtt_ns if m.cacheline_probes else None
    cs = m.clock_sync
    props = {"wall_start": m.wall_start, "cacheline_rtt_ns": probe, "empty_region_ns": m.empty_region_ns,
             "cpus": ";".join(",".join(map(str, r.cpus)) for r in m.ranks),
             "cpus_seen": ";".join(",".join(map(str, r.cpus_seen)) for r in m.ranks),
             "cpu_changes": sum(r.cpu_changes for r in m.ranks),
             "other_cpu_share": (m.load.other_cpu_s / (m.load.wall_s * (m.system.ncpus or 1))
                                 if m.load.other_cpu_s is not None and m.load.wall_s else None),
             "load1_start": m.load.loadavg_start[0] if m.load.loadavg_start else None,
             "residual_start_ns": cs.residual_start.max_abs_ns if cs.residual_start else None,
             "residual_end_ns": cs.residual_end.max_abs_ns if cs.residual_end else None,
             "copy_probe_run": m.copy_bandwidth is not None and not (doc.get("config") or {}).get("copy_probe_from")}
    for k, v in (doc.get("phases") or {}).items():
        props[f"phase_{k}"] = (v or {}).get("seconds")
    return props


def read_trials(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    """One row per (trial, launch, op, size) with the per-launch median, one row per launch with
    its properties, and per trial what analyze said (states, warning codes)."""
    from mpimeter import analysis  # the package's own reading and statistics

    record = json.loads((folder / "trials.json").read_text())
    medians, launches, said = [], [], []
    for entry in record["trials"]:
        path = folder / entry["folder"]
        if not (path / "campaign.json").is_file():
            continue
        campaign = analysis.load_campaign(path, cache=False, store=False, allow_mixed=True)
        result = analysis.analyze(campaign)
        said.append({"trial": entry["folder"], "states": [s.to_dict() for s in result.states],
                     "warnings": sorted({w.code for w in result.warnings})})
        key = (entry["pair"], entry["side"])
        for li in campaign.launches:
            if li.status != "complete":
                continue
            launches.append({"pair": key[0], "side": key[1], "launch": li.index, **_launch_props(li),
                             "trial_steal_s": entry["stat_after"]["steal_s"] - entry["stat_before"]["steal_s"],
                             "trial_load1": entry["load_before"][0]})
        for row in result.rows:
            for s in row.per_launch:
                if s.n > 0 and np.isfinite(s.median_ns):
                    medians.append({"pair": key[0], "side": key[1], "launch": s.launch, "op": row.op,
                                    "size": row.size, "median_ns": s.median_ns})
    return pd.DataFrame(medians), pd.DataFrame(launches), said


def _state(rtt, fast_below: float) -> str:
    if rtt is None or not np.isfinite(rtt) or rtt < 0:
        return "unknown"
    return "fast" if rtt < fast_below else "slow"


class Medians:
    """The per-launch medians as a matrix: one row per launch (in time order), one column per
    (op, size); ``states`` the launches' probe states."""

    def __init__(self, med: pd.DataFrame, launches: pd.DataFrame):
        table = med.pivot_table(index="launch_key", columns=["op", "size"], values="median_ns")
        table = table.reindex(launches.launch_key)
        self.values = table.to_numpy()
        self.columns = [f"{op} {size}" for op, size in table.columns]
        self.states = launches.state.to_numpy()

    def ratios(self, a: np.ndarray, b: np.ndarray, min_n: int) -> dict[str, float] | None:
        """Per (op, size): the median of b's per-launch medians over a's; None when a side has
        fewer than min_n launches."""
        if len(a) < min_n or len(b) < min_n:
            return None
        with np.errstate(all="ignore"):
            r = np.nanmedian(self.values[b], axis=0) / np.nanmedian(self.values[a], axis=0)
        return {c: float(v) for c, v in zip(self.columns, r) if np.isfinite(v)}

    def medians(self, rows: np.ndarray) -> dict[str, float] | None:
        """Per (op, size): the median of the launches' medians (analyze's headline, per state)."""
        if not len(rows):
            return None
        with np.errstate(all="ignore"):
            m = np.nanmedian(self.values[rows], axis=0)
        return {c: float(v) for c, v in zip(self.columns, m) if np.isfinite(v)}

    def compare(self, a: np.ndarray, b: np.ndarray, min_n: int, keep_medians: bool = False) -> dict:
        out = {}
        for state in STATES:
            sa = a if state == "pooled" else a[self.states[a] == state]
            sb = b if state == "pooled" else b[self.states[b] == state]
            r = self.ratios(sa, sb, min_n if state != "pooled" else 1)
            out[state] = {"launches": [len(sa), len(sb)], "ratios": r, "within_3_percent": _within(r),
                          "max_abs_log_ratio": _max_dev(r)}
            if keep_medians:
                out[state]["medians_ns"] = {"A": self.medians(sa), "B": self.medians(sb)}
        return out


def _within(r: dict[str, float] | None) -> bool | None:
    return None if not r else all(abs(v - 1) <= TOLERANCE for v in r.values())


def _max_dev(r: dict[str, float] | None) -> float | None:
    return None if not r else float(max(abs(np.log(v)) for v in r.values()))


def _share(results: list[dict], state: str) -> dict:
    judged = [x[state]["within_3_percent"] for x in results if x[state]["within_3_percent"] is not None]
    devs = [x[state]["max_abs_log_ratio"] for x in results if x[state]["max_abs_log_ratio"] is not None]
    return {"judged": len(judged), "within_3_percent": int(sum(judged)),
            "share": round(sum(judged) / len(judged), 3) if judged else None,
            "max_ratio_median": round(float(np.exp(np.median(devs))), 4) if devs else None,
            "max_ratio_p90": round(float(np.exp(np.quantile(devs, 0.9))), 4) if devs else None}


def lagging(med: pd.DataFrame, launches: pd.DataFrame, lag_factor: float) -> dict:
    fast = med[med.state == "fast"].copy()
    if fast.empty:
        return {}
    fast["log"] = np.log(fast.median_ns / fast.groupby(["op", "size"]).median_ns.transform(lambda v: v.quantile(0.25)))
    score = fast.groupby("launch_key").log.mean().rename("score")
    df = launches.set_index("launch_key").join(score, how="inner")
    df["lagging"] = df.score > np.log(lag_factor)
    out = {"launches": len(df), "lagging": int(df.lagging.sum()), "properties": {}}
    for key in ("cacheline_rtt_ns", "empty_region_ns", "cpus", "cpus_seen", "cpu_changes", "other_cpu_share",
                "load1_start", "residual_start_ns", "residual_end_ns", "phase_init", "phase_probes", "phase_sync",
                "phase_tests", "trial_steal_s", "order"):
        g = df.dropna(subset=[key]) if key in df else df.iloc[:0]
        if len(g) < 6 or g[key].nunique() < 2:
            out["properties"][key] = {"too_few_or_constant": True,
                                      "values": sorted(map(str, g[key].unique()))[:5] if key in g else []}
            continue
        rho, p = stats.spearmanr(g[key], g.score)
        lag, other = g[g.lagging][key], g[~g.lagging][key]
        entry = {"spearman_rho": round(float(rho), 3), "spearman_p": float(p)}
        if len(lag) and len(other):
            auc = stats.mannwhitneyu(lag, other).statistic / (len(lag) * len(other))
            entry.update(auc_lagging_higher=round(float(auc), 3), range_other=[float(other.min()), float(other.max())],
                         range_lagging=[float(lag.min()), float(lag.max())],
                         separates=bool(lag.min() > other.max() or lag.max() < other.min()))
        out["properties"][key] = entry
    s = df.sort_values("order").score.to_numpy()
    out["score_lag1_autocorrelation"] = round(float(np.corrcoef(s[:-1], s[1:])[0, 1]), 3) if len(s) > 2 else None
    out["lagging_sequence"] = "".join("L" if x else "." for x in df.sort_values("order").lagging)
    return out


def report(args: argparse.Namespace) -> None:
    med, launches, said = read_trials(args.dir)
    launches["launch_key"] = list(zip(launches.pair, launches.side, launches.launch))
    launches["state"] = [_state(x, args.fast_below_ns) for x in launches.cacheline_rtt_ns]
    launches = launches.sort_values(["pair", "side", "launch"]).reset_index(drop=True)  # the trials ran in this order
    launches["order"] = np.arange(len(launches))
    # a trial's first launch runs the copy probe (32 MiB) inside its probes phase: not comparable
    launches["phase_probes"] = launches.phase_probes.where(~launches.copy_probe_run.astype(bool))
    med["launch_key"] = list(zip(med.pair, med.side, med.launch))
    med = med.merge(launches[["launch_key", "state", "order"]], on="launch_key")
    rng = np.random.default_rng(args.seed)
    pairs, blocks = _pair_table(med, launches, args.min_state_launches, rng, args.draws, keep_medians=True)
    per_state = (med.groupby(["state", "op", "size"]).median_ns.median().rename("median_ns").reset_index()
                 .to_dict("records"))
    result = {"lib": json.loads((args.dir / "trials.json").read_text())["lib"], "tolerance": TOLERANCE,
              "fast_below_ns": args.fast_below_ns, "min_state_launches": args.min_state_launches,
              "launches": len(launches), "states": launches.state.value_counts().to_dict(),
              "first_launch": launches.wall_start.min(), "last_launch": launches.wall_start.max(),
              "pairs_summary": {s: _share(pairs, s) for s in STATES},
              "launches_per_trial": blocks, "per_state_medians_ns": per_state,
              "per_launch_robust_sd_pct": {s: _robust_sd(med[med.state == s]) for s in ("fast", "slow")},
              "lagging_in_fast_state": lagging(med, launches, args.lag_factor), "analyze_said": said,
              "imb": imb_report(args.dir, rng, args.draws),
              "pairs": pairs,
              "launch_table": launches.drop(columns=["launch_key"]).to_dict("records")}
    args.out.write_text(json.dumps(result, indent=1, default=str) + "\n")
    print_report(result)


def print_report(r: dict) -> None:
    print(f"{r['launches']} launches, states {r['states']}, {r['first_launch']} .. {r['last_launch']}")
    print("\n| pair | launches A/B (fast) | pooled: within 3 % (max ratio) | fast: within 3 % (max ratio) |")
    print("|---|---|---|---|")
    for p in r["pairs"]:
        def cell(s):
            x = p[s]
            return "–" if x["within_3_percent"] is None else f"{x['within_3_percent']} ({np.exp(x['max_abs_log_ratio']):.3f})"
        print(f"| {p['pair']} | {p['pooled']['launches']} ({p['fast']['launches']}) | {cell('pooled')} | {cell('fast')} |")
    print("\n| launches per trial | how | state | pairs judged | within 3 % | share | max ratio median / p90 |")
    print("|---|---|---|---|---|---|---|")
    rows = [("10", "trials (mpimeter run)", r["pairs_summary"])]
    for n, b in r["launches_per_trial"].items():
        rows += [(n, "adjacent blocks", b["adjacent_blocks"]), (n, "random draws", b["random_draws"])]
    for n, how, d in rows:
        for s in STATES:
            x = d[s]
            if x["judged"]:
                print(f"| {n} | {how} | {s} | {x['judged']} | {x['within_3_percent']} | {x['share']} "
                      f"| {x['max_ratio_median']} / {x['max_ratio_p90']} |")
    imb = r.get("imb")
    if imb:
        print(f"\nIMB beside it ({imb['launches']} runs, t_avg, printed on a {imb['printed_grid_ns']} ns grid), pooled:")
        print("| launches per trial | how | pairs judged | within 3 % | max ratio median / p90 |")
        print("|---|---|---|---|---|")
        rows = [("10", "trials", imb["pairs_summary"])]
        rows += [(n, how, d) for n, b in imb["launches_per_trial"].items() for how, d in b.items()]
        for n, how, d in rows:
            x = d["pooled"]
            if x["judged"]:
                print(f"| {n} | {how} | {x['judged']} | {x['within_3_percent']} | {x['max_ratio_median']} / {x['max_ratio_p90']} |")
        print("per-launch spread (robust sd of log, %): mpimeter fast", r["per_launch_robust_sd_pct"]["fast"])
        print("                                          IMB          ", imb["per_launch_robust_sd_pct"])
    lag = r["lagging_in_fast_state"]
    if lag:
        print(f"\nlagging in the fast state: {lag['lagging']} of {lag['launches']}; lag-1 autocorrelation "
              f"{lag['score_lag1_autocorrelation']}; sequence {lag['lagging_sequence']}")
        for k, e in lag["properties"].items():
            print(f"  {k}: {e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run")
    p_run.add_argument("--dir", type=Path, required=True)
    p_run.add_argument("--pairs", type=int, default=20)
    p_run.add_argument("--launches", type=int, default=10)
    p_run.add_argument("--lib", default="openmpi", choices=["openmpi", "mpich"])
    p_run.add_argument("--until", help="HH:MM UTC: no trial may run past it")
    p_run.add_argument("--seed", type=int, default=31)
    p_run.add_argument("--ops", help="the operations of every trial (default: run's default)")
    p_run.add_argument("--sizes", help="the sizes of every trial (default: run's default)")
    p_run.add_argument("--imb", type=Path, help="IMB-MPI1 of --lib: after each trial, an IMB trial of as many runs")
    p_join = sub.add_parser("join")
    p_join.add_argument("--dir", type=Path, required=True, help="a new folder")
    p_join.add_argument("--build", help="keep only the trials whose every launch names this build (git_revision)")
    p_join.add_argument("runs", type=Path, nargs="+", help="run folders, in the order they ran")
    p_rep = sub.add_parser("report")
    p_rep.add_argument("--dir", type=Path, required=True)
    p_rep.add_argument("--fast-below-ns", type=float, default=200.0)
    p_rep.add_argument("--min-state-launches", type=int, default=3)
    p_rep.add_argument("--lag-factor", type=float, default=1.3)
    p_rep.add_argument("--draws", type=int, default=2000)
    p_rep.add_argument("--seed", type=int, default=31)
    p_rep.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "launch_states_trials.json")
    args = parser.parse_args()
    if args.command == "run":
        if args.pairs < 1 or args.launches < 1:
            sys.exit("--pairs and --launches must be at least 1")
        run(args)
    elif args.command == "join":
        join(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
