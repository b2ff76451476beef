# SPDX-License-Identifier: BSD-3-Clause
"""Why two campaigns of one build differ more than their launches' spread admits. Not a test.

    .venv/bin/python bench/compare_aa_drift.py --dir DIR [--out bench/results/compare_aa_drift.json]

DIR is a `bench/state_trials.py run` folder (campaigns one after the other, in the order of
trials.json). Per (op, size), on the log per-launch medians in time order (the package's own
analysis: what `compare` tests), with every campaign centred on its own mean:

- between against within: the variance of the difference of two consecutive campaigns' means,
  against what independent launches predict (var_A / n_A + var_B / n_B), as a ratio (1 when the
  launches explain the campaigns); the same prediction with each campaign's own serial
  dependence (the long-run variance of a mean, Bartlett weights: stats.campaign_drift) beside it;
- the variogram: half the mean squared difference of two launches h apart, for pairs inside one
  campaign and for pairs across a campaign boundary at the same h: a campaign-level shift (a
  thing fixed once per campaign) makes the across-boundary pairs differ more at equal h; an
  episode longer than a campaign does not;
- the launch's place in its campaign (mean residual by index: the first launch runs the probes);
- the rank-sum z of every consecutive pair (what compare tests): its variance across pairs
  (1 when the test is calibrated), before and after dividing by the campaigns' own inflation.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
from scipy.stats import rankdata

sys.path.insert(0, str(Path(__file__).resolve().parent))
from state_trials import read_trials  # noqa: E402  (the package's own reading of the trials)

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "src"))
from mpimeter.stats import campaign_drift as drift  # noqa: E402


def campaigns_of(folder: Path) -> tuple[list[str], dict[str, list[np.ndarray]], list[dict]]:
    """Per (op, size): the log per-launch medians of every campaign in time order (a list of
    arrays, one per campaign, launches in their order); the campaigns' names and loads."""
    med, launches, _ = read_trials(folder)
    record = json.loads((folder / "trials.json").read_text())
    order = [(t["pair"], t["side"]) for t in record["trials"] if t["returncode"] == 0]
    rows: dict[str, list[np.ndarray]] = {}
    for (op, size), g in med.groupby(["op", "size"]):
        series = []
        for key in order:
            c = g[(g.pair == key[0]) & (g.side == key[1])].sort_values("launch")
            series.append(np.log(c.median_ns.to_numpy(float)))
        rows[f"{op} {size}"] = series
    info = [{"campaign": f"p{p:03d}-{s}", "load1": t["load_before"][0]} for (p, s), t in
            zip(order, [t for t in record["trials"] if t["returncode"] == 0])]
    return [f"p{p:03d}-{s}" for p, s in order], rows, info


def rank_sum_z(a: np.ndarray, b: np.ndarray) -> float:
    """The rank-sum statistic of b against a standardized (mid-ranks, tie-corrected variance):
    positive when b tends to be larger."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    m, n = len(a), len(b)
    both = np.concatenate([a, b])
    r = rankdata(both)
    u_b = r[m:].sum() - n * (n + 1) / 2
    _, counts = np.unique(both, return_counts=True)
    big_n = m + n
    var = m * n / 12 * ((big_n + 1) - float((counts ** 3 - counts).sum()) / (big_n * (big_n - 1)))
    return 0.0 if var <= 0 else float((u_b - m * n / 2) / math.sqrt(var))


def between_within(series: list[np.ndarray]) -> dict:
    """Consecutive campaigns: observed variance of the difference of their means against the
    prediction of independent launches and of each campaign's own dependence."""
    d, iid, dep = [], [], []
    for a, b in zip(series, series[1:]):
        if len(a) < 3 or len(b) < 3:
            continue
        d.append(b.mean() - a.mean())
        iid.append(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        dep.append((a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b)) * drift.inflation([a, b]))
    d = np.array(d)
    obs = float(np.mean(d ** 2))
    return {"pairs": len(d), "observed_var_of_difference": obs, "iid_prediction": float(np.mean(iid)),
            "dependence_prediction": float(np.mean(dep)), "ratio_to_iid": obs / float(np.mean(iid)),
            "ratio_to_dependence": obs / float(np.mean(dep))}


def variogram(series: list[np.ndarray], lags: range) -> dict:
    """Half the mean squared difference of launches h apart: inside a campaign, across one
    boundary (the campaigns concatenated in time order, each centred on the grand mean)."""
    inside = {h: [] for h in lags}
    across = {h: [] for h in lags}
    flat = np.concatenate(series)
    owner = np.concatenate([np.full(len(s), i) for i, s in enumerate(series)])
    for h in lags:
        same = owner[h:] == owner[:-h]
        nxt = owner[h:] == owner[:-h] + 1
        diff2 = (flat[h:] - flat[:-h]) ** 2 / 2
        inside[h], across[h] = diff2[same], diff2[nxt]
    return {str(h): {"inside": float(np.mean(inside[h])) if len(inside[h]) else None,
                     "across": float(np.mean(across[h])) if len(across[h]) else None,
                     "pairs_inside": int(len(inside[h])), "pairs_across": int(len(across[h]))} for h in lags}


def place_effect(series: list[np.ndarray], n: int) -> list[float | None]:
    """Mean residual (log, from the campaign's own mean) of the launch at each place."""
    res = [[] for _ in range(n)]
    for s in series:
        if len(s) == n:
            for i, v in enumerate(s - s.mean()):
                res[i].append(v)
    return [round(float(np.mean(r)), 4) if r else None for r in res]


def pair_z(series: list[np.ndarray], adjacent_only: bool = True) -> dict:
    """The rank-sum z of each pair (A, B as state_trials ran them: campaigns 2k, 2k+1) and of
    every consecutive pair, plain and divided by the square root of the pair's own inflation."""
    out = {}
    for name, step in (("pairs", 2), ("consecutive", 1)):
        z, zc = [], []
        for i in range(0, len(series) - 1, step):
            a, b = series[i], series[i + 1]
            if len(a) < 3 or len(b) < 3:
                continue
            zi = rank_sum_z(a, b)
            z.append(zi)
            zc.append(zi / np.sqrt(drift.inflation([a, b])))
        z, zc = np.array(z), np.array(zc)
        out[name] = {"n": len(z), "var_z": float(np.var(z)), "var_z_corrected": float(np.var(zc)),
                     "share_abs_z_over_1.96": float(np.mean(np.abs(z) > 1.96)),
                     "share_corrected_over_1.96": float(np.mean(np.abs(zc) > 1.96))}
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "compare_aa_drift.json")
    args = ap.parse_args(argv)
    names, rows, info = campaigns_of(args.dir)
    n = max(len(s) for series in rows.values() for s in series)
    out = {"campaigns": len(names), "launches_per_campaign": n, "load1": [min(i["load1"] for i in info),
                                                                           max(i["load1"] for i in info)],
           "rows": {}}
    for row, series in rows.items():
        out["rows"][row] = {"between_within": between_within(series), "variogram": variogram(series, range(1, n)),
                            "place_effect": place_effect(series, n), "rank_sum_z": pair_z(series),
                            "within_lag1_autocorrelation": drift.lag1([s for s in series if len(s) >= 3]),
                            "rho_bias_corrected": drift.serial_rho(series)}
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    for row, r in out["rows"].items():
        bw, z = r["between_within"], r["rank_sum_z"]["consecutive"]
        vg = r["variogram"]
        print(f"{row:14s} between/iid {bw['ratio_to_iid']:.2f} between/dep {bw['ratio_to_dependence']:.2f} "
              f"lag1 {r['within_lag1_autocorrelation']:+.2f} var z {z['var_z']:.2f} -> {z['var_z_corrected']:.2f} "
              f"|z|>1.96 {z['share_abs_z_over_1.96']:.2f} -> {z['share_corrected_over_1.96']:.2f} "
              f"vario h1 in/across {vg['1']['inside']:.4f}/{vg['1']['across']:.4f} "
              f"h5 {vg['5']['inside']:.4f}/{vg['5']['across']:.4f} place {r['place_effect'][:3]}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
