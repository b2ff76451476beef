# SPDX-License-Identifier: BSD-3-Clause
"""Two campaigns of one build: how often does `mpimeter compare` call them different? Not a test.

    .venv/bin/python bench/state_trials.py run --dir DIR --pairs 40     # the campaigns (A, B per pair)
    .venv/bin/python bench/compare_aa.py --dir DIR [--out bench/results/compare_aa.json]

With trials run with `state_trials.py run --imb`, IMB's trials beside each pair are imported
(`mpimeter import imb`, one campaign per trial) and go through the same `mpimeter compare`: the
control, the same decision rule on the numbers of the tool users would otherwise pick, measured in
the same minutes.

Every pair of trials state_trials.py ran (two default campaigns, `mpimeter run --launches N`, one
after the other, same binary, each with its own seed) goes through `mpimeter compare A B
--format json` exactly as a user would run it (its defaults: per-launch medians, Wilcoxon
rank-sum, Holm over the rows, states where the probe explains them). Both campaigns measured the
same thing, so every significant row is a false one; a pair counts as "called different" when
any of its rows is significant (the family-wise error the Holm correction controls). Reported:
the share of pairs called different with its Wilson 95 % interval, per pair the significant rows
and the warnings compare gave, and the machine's load before and after each trial (from
trials.json). A trial that did not complete is left out with its pair (named in `left_out`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from statsmodels.stats.proportion import proportion_confint

REPO = Path(__file__).resolve().parents[1]


def compare(a: Path, b: Path, timeout_s: float, one_folder: bool = False) -> dict:
    """`mpimeter compare A B` (or `compare A`, one folder of alternatives) as a user runs it."""
    paths = [str(a)] if one_folder else [str(a), str(b)]
    done = subprocess.run([sys.executable, "-m", "mpimeter", "compare", *paths, "--format", "json",
                           "--no-cache"], capture_output=True, text=True, timeout=timeout_s)
    if done.returncode != 0:
        return {"error": done.stderr.strip()[-400:], "exit": done.returncode}
    doc = json.loads(done.stdout)
    rows = doc["rows"]
    significant = [f"{r['op']} {r['size']}" for r in rows if r.get("significant")]
    return {"rows": len(rows), "significant": significant,
            "stratified_rows": sum(1 for r in rows if r.get("stratified")),
            "designs": sorted({r.get("design") or "unpaired" for r in rows}),
            "warnings": sorted({w.get("code") for w in doc.get("warnings", [])})}


def imb_campaign(folder: Path, entry: dict, out: Path, timeout_s: float) -> Path | None:
    """One IMB trial (its runs' outputs) imported as a campaign, as a user would import it."""
    files = [str(folder / entry["folder"] / r["file"]) for r in entry["launches"] if r["returncode"] == 0]
    if len(files) < 3:
        return None
    done = subprocess.run([sys.executable, "-m", "mpimeter", "import", "imb", *files, "--out", str(out)],
                          capture_output=True, text=True, timeout=timeout_s)
    return out if done.returncode == 0 else None


def share(pairs: list[dict]) -> dict:
    """How many judged pairs had a significant row, with the Wilson 95 % interval of the share."""
    judged = [p for p in pairs if "error" not in p]
    called = sum(1 for p in judged if p["significant"])
    low, high = proportion_confint(called, len(judged), alpha=0.05, method="wilson") if judged else (None, None)
    return {"pairs_judged": len(judged), "pairs_called_different": called,
            "share": round(called / len(judged), 4) if judged else None,
            "wilson95": [round(low, 4), round(high, 4)] if judged else None}


def imb_pairs(args: argparse.Namespace, manifest: dict) -> list[dict]:
    trials = {(t["pair"], t["side"]): t for t in manifest.get("imb_trials", [])}
    imported = args.dir / "imb-imported"
    imported.mkdir(exist_ok=True)
    pairs = []
    for pair in sorted({p for p, _ in trials}):
        a, b = trials.get((pair, "A")), trials.get((pair, "B"))
        if not a or not b:
            continue
        ca = imb_campaign(args.dir, a, imported / f"p{pair:03d}-A", args.timeout_s)
        cb = imb_campaign(args.dir, b, imported / f"p{pair:03d}-B", args.timeout_s)
        if ca is None or cb is None:
            pairs.append({"pair": pair, "error": "import failed or fewer than 3 runs"})
            continue
        got = compare(ca, cb, args.timeout_s)
        got.update(pair=pair, load_before=[a["load_before"][0], b["load_before"][0]],
                   load_after=[a["load_after"][0], b["load_after"][0]])
        pairs.append(got)
        print(f"IMB pair {pair}: {len(got.get('significant', []))} significant of {got.get('rows')} rows", flush=True)
    return pairs


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, required=True, help="state_trials.py's run folder")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "compare_aa.json")
    ap.add_argument("--timeout-s", type=float, default=600.0)
    args = ap.parse_args(argv)
    manifest = json.loads((args.dir / "trials.json").read_text())
    trials = {(t["pair"], t["side"]): t for t in manifest["trials"]}
    pairs, left_out = [], []
    for pair in sorted({p for p, _ in trials}):
        a, b = trials.get((pair, "A")), trials.get((pair, "B"))
        if not a or not b or a["returncode"] != 0 or b["returncode"] != 0 or a.get("stopped_at_deadline") \
                or b.get("stopped_at_deadline"):
            left_out.append(pair)
            continue
        got = compare(args.dir / a["folder"], args.dir / b["folder"], args.timeout_s)
        got.update(pair=pair, load_before=[a["load_before"][0], b["load_before"][0]],
                   load_after=[a["load_after"][0], b["load_after"][0]], wall_s=[a["wall_s"], b["wall_s"]])
        pairs.append(got)
        print(f"pair {pair}: {len(got.get('significant', []))} significant of {got.get('rows')} rows"
              + (f" ({got['error']})" if "error" in got else ""), flush=True)
    judged = [p for p in pairs if "error" not in p]
    loads = [x for p in judged for x in p["load_before"] + p["load_after"]]
    out = {"lib": manifest.get("lib"), "launches_per_trial": manifest.get("launches_per_trial"), **share(pairs),
           "load1_range": [min(loads), max(loads)] if loads else None,
           "left_out": left_out, "errors": [p for p in pairs if "error" in p], "pairs": judged}
    if manifest.get("imb_trials"):
        control = imb_pairs(args, manifest)
        out["imb"] = {**share(control), "pairs": control}
        print(f"IMB: {out['imb']['pairs_called_different']} of {out['imb']['pairs_judged']} pairs called different; "
              f"Wilson 95 % {out['imb']['wilson95']}")
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{out['pairs_called_different']} of {out['pairs_judged']} pairs called different; "
          f"Wilson 95 % {out['wilson95']}; wrote {args.out}")


if __name__ == "__main__":
    main()
