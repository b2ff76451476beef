# SPDX-License-Identifier: BSD-3-Clause
"""Machine states: what explains the launch-to-launch variation *within* one speed state of this VM?
Reads what bench/launch_states.py recorded (no measuring) and writes
bench/results/launch_states_within.json. Not a test.

    .venv/bin/python bench/state_within.py [bench/results/launch_states_quiet.json ...]
        [--out bench/results/launch_states_within.json]

The cache-line probe splits the launches into the VM's fast and slow state (as measured on the test machine), but
inside the fast state of the quiet study the per-launch medians still varied up to 2.7x. Per
file and probe state (at least --min-launches launches of mpimeter and IMB together):

- sub-states: a launch's score is the mean over the sizes of log(its median / the lower
  quartile of its method's medians in that state): 0 for a launch as fast as the method's faster
  launches. A launch is "lagging" when its score is above log(--lag-factor): its medians are on
  average that much slower than the method's lower quartile. Per method: the spread (max/min per
  size), the lagging share and the median per size of the lagging and the other launches.
- properties: every per-launch property launch_states.py recorded, against the score (Spearman
  rho, pooled over the methods) and against the lagging/other split (the rank-sum AUC, and
  whether the property's ranges in the two groups are disjoint, i.e. whether it *separates*
  them as the analysis's launch-effect check requires). Properties measured during or after the
  tests (the invalid share, the end residual, the tests/write phases, the wall time) are marked
  "after": a slower launch makes them larger, so they are effects, not explanations.
- time: launch_states.py records no start time; the order of launches and the rounds are the
  time axis (a round runs every configuration once, a few seconds). The lagging count per round,
  with the permutation p-value of its variance across rounds (are lagging launches clustered in
  rounds?), and the lag-1 autocorrelation of the score in launch order with its permutation
  p-value. An approximate time per launch (the sum of the earlier launches' wall times) gives the
  lagging episodes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
SIZES = ("8", "1024", "65536")
SKIP = ("mpirun", "first")
# (key in the launch record, measured before the tests?)
PROPERTIES = {
    "cacheline_rtt_ns": True, "load1": True, "other_cpu_share": False, "residual_start_ns": True,
    "residual_end_ns": False, "invalid_share": False, "sync_edge_points": True, "clock_sync_s": True,
    "phase_init": True, "phase_sync": True, "phase_probes": True, "phase_tests": False, "phase_write": False,
    "wall_s": False, "order": True,
}


def launches_of(path: Path) -> pd.DataFrame:
    data = json.loads(path.read_text())
    rows, clock = [], 0.0
    for order, x in enumerate(data["launches"]):
        start = clock
        clock += x.get("wall_s") or 0.0
        if x["method"] in SKIP or "error" in x or not x.get("medians_ns"):
            continue
        row = {"order": order, "round": x["round"], "method": x["method"], "state": x["state"], "t_s": start,
               **{k: x.get(k) for k in PROPERTIES if k in x}}
        row.update({f"phase_{k}": v for k, v in (x.get("phases") or {}).items()})
        row.update({f"m{s}": x["medians_ns"].get(s) for s in SIZES})
        rows.append(row)
    return pd.DataFrame(rows)


def score(df: pd.DataFrame) -> pd.Series:
    logs = [np.log(df[f"m{s}"] / df.groupby("method")[f"m{s}"].transform(lambda v: v.quantile(0.25)))
            for s in SIZES]
    return sum(logs) / len(logs)


def per_method(df: pd.DataFrame) -> dict:
    out = {}
    for method, g in df.groupby("method"):
        lag, other = g[g.lagging], g[~g.lagging]
        out[method] = {"launches": len(g), "lagging": int(g.lagging.sum()),
                       "spread_max_over_min": {s: round(float(g[f"m{s}"].max() / g[f"m{s}"].min()), 3) for s in SIZES},
                       "median_ns_other": {s: float(other[f"m{s}"].median()) for s in SIZES} if len(other) else None,
                       "median_ns_lagging": {s: float(lag[f"m{s}"].median()) for s in SIZES} if len(lag) else None,
                       "spread_other": {s: round(float(other[f"m{s}"].max() / other[f"m{s}"].min()), 3)
                                        for s in SIZES} if len(other) > 1 else None}
    return out


def properties(df: pd.DataFrame) -> dict:
    out = {}
    mm = df[df.method != "imb"]  # IMB records none of them
    for key, before in PROPERTIES.items():
        g = mm.dropna(subset=[key]) if key in mm else mm.iloc[:0]
        if len(g) < 6 or g[key].nunique() < 2:
            continue
        rho, p = stats.spearmanr(g[key], g["score"])
        lag, other = g[g.lagging][key], g[~g.lagging][key]
        entry = {"measured": "before the tests" if before else "after",
                 "launches": len(g), "spearman_rho": round(float(rho), 3), "spearman_p": float(p)}
        if len(lag) and len(other):
            u = stats.mannwhitneyu(lag, other)
            entry.update(auc_lagging_higher=round(float(u.statistic / (len(lag) * len(other))), 3),
                         rank_sum_p=float(u.pvalue),
                         range_other=[float(other.min()), float(other.max())],
                         range_lagging=[float(lag.min()), float(lag.max())],
                         separates=bool(lag.min() > other.max() or lag.max() < other.min()))
        out[key] = entry
    return out


def permutation_p(values: np.ndarray, statistic, rng: np.random.Generator, n: int = 20000) -> float:
    observed = statistic(values)
    null = np.array([statistic(rng.permutation(values)) for _ in range(n)])
    return float((1 + np.sum(null >= observed)) / (n + 1))


def time_structure(df: pd.DataFrame, rng: np.random.Generator) -> dict:
    by_round = df.groupby("round").lagging
    rounds = pd.factorize(df["round"])[0]
    flags = df.lagging.to_numpy().astype(float)
    ordered = df.sort_values("order")

    def round_var(v):
        return np.bincount(rounds, weights=v).var(ddof=1)

    def lag1(v):
        return np.corrcoef(v[:-1], v[1:])[0, 1]

    episodes, current = [], None
    for t, lagging, wall in zip(ordered.t_s, ordered.lagging, ordered.wall_s.fillna(0)):
        if lagging and current is not None:
            current[1] = round(float(t + wall), 1)
        elif lagging:
            current = [round(float(t), 1), round(float(t + wall), 1)]
            episodes.append(current)
        else:
            current = None
    return {"lagging_per_round": [int(x) for x in by_round.sum()], "launches_per_round": [int(x) for x in by_round.count()],
            "round_count_variance_permutation_p": permutation_p(flags, round_var, rng),
            "score_lag1_autocorrelation": round(float(lag1(ordered.score.to_numpy())), 3),
            "score_lag1_permutation_p": permutation_p(ordered.score.to_numpy(), lag1, rng),
            "lagging_sequence": "".join("L" if x else "." for x in ordered.lagging),
            "lagging_episodes_s": episodes,
            "time_axis": "the sum of the earlier launches' wall times (launch_states.py records no start time; "
                         "the script's own time between launches, ~0.05 s each, is not in it)"}


def halves(df: pd.DataFrame) -> dict:
    """The rounds' halves as two trials (launch_states.py's trials), with their lagging counts."""
    half = (df["round"].max() + 1) // 2
    out = {}
    for method, g in df.groupby("method"):
        a, b = g[g["round"] < half], g[g["round"] >= half]
        out[method] = {"lagging": [int(a.lagging.sum()), int(b.lagging.sum())], "launches": [len(a), len(b)],
                       "ratio_second_over_first": {s: round(float(b[f"m{s}"].median() / a[f"m{s}"].median()), 3)
                                                   for s in SIZES}}
    return out


def study(path: Path, args: argparse.Namespace, rng: np.random.Generator) -> dict:
    df = launches_of(path)
    out = {}
    for state, g in df.groupby("state"):
        if len(g) < args.min_launches:
            continue
        g = g.copy()
        g["score"] = score(g)
        g["lagging"] = g.score > np.log(args.lag_factor)
        out[state] = {"launches": len(g), "methods": per_method(g), "properties": properties(g),
                      "time": time_structure(g, rng), "halves": halves(g)}
    return out


def print_tables(name: str, result: dict) -> None:
    for state, r in result.items():
        print(f"\n## {name}: {state} state ({r['launches']} launches)")
        print("| method | launches | lagging | max/min 8 B / 1 KiB / 64 KiB | other: median (ns) | lagging: median (ns) "
              "| other: max/min |")
        print("|---|---|---|---|---|---|---|")
        for m, e in r["methods"].items():
            def f(d, fmt="{:.0f}"):
                return " / ".join(fmt.format(d[s]) for s in SIZES) if d else "–"
            print(f"| {m} | {e['launches']} | {e['lagging']} | {f(e['spread_max_over_min'], '{:.2f}')} "
                  f"| {f(e['median_ns_other'])} | {f(e['median_ns_lagging'])} | {f(e['spread_other'], '{:.2f}')} |")
        print("\n| property | measured | rho vs score (p) | AUC lagging > other (p) | range other | range lagging "
              "| separates |")
        print("|---|---|---|---|---|---|---|")
        for k, e in r["properties"].items():
            rng_o = "–".join(f"{v:.4g}" for v in e.get("range_other", []))
            rng_l = "–".join(f"{v:.4g}" for v in e.get("range_lagging", []))
            print(f"| {k} | {e['measured']} | {e['spearman_rho']:+.2f} ({e['spearman_p']:.2g}) "
                  f"| {e.get('auc_lagging_higher', float('nan')):.2f} ({e.get('rank_sum_p', float('nan')):.2g}) "
                  f"| {rng_o} | {rng_l} | {e.get('separates')} |")
        t = r["time"]
        print(f"\nlagging per round: {t['lagging_per_round']} of {t['launches_per_round']}; "
              f"clustered in rounds: permutation p = {t['round_count_variance_permutation_p']:.2g}; "
              f"lag-1 autocorrelation of the score {t['score_lag1_autocorrelation']} "
              f"(p = {t['score_lag1_permutation_p']:.2g})")
        print(f"sequence: {t['lagging_sequence']}")
        print(f"episodes (s, approximate): {t['lagging_episodes_s']}")
        print("halves (lagging first/second, ratio second/first 8 B / 1 KiB / 64 KiB): " + "; ".join(
            f"{m} {h['lagging']} {'/'.join(str(v) for v in h['ratio_second_over_first'].values())}"
            for m, h in r["halves"].items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path,
                        default=[REPO / "bench" / "results" / "launch_states_quiet.json",
                                 REPO / "bench" / "results" / "launch_states.json"])
    parser.add_argument("--lag-factor", type=float, default=1.3)
    parser.add_argument("--min-launches", type=int, default=20)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "launch_states_within.json")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    result = {"lag_factor": args.lag_factor, "seed": args.seed,
              "score": "mean over 8 B / 1 KiB / 64 KiB of log(median / the method's lower quartile in the state)",
              "files": {}}
    for path in args.files:
        result["files"][path.name] = study(path, args, rng)
        print_tables(path.name, result["files"][path.name])
    args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
