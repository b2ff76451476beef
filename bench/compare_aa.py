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
trials.json; per campaign also the share of the CPUs others used, where it was recorded). A
trial that did not complete is left out with its pair (named in `left_out`).

Separate campaigns are judged with their tests widened by the launches' serial dependence
(analysis.separate_campaigns); each pair also says what the same rows' p before the widening
would have decided (`significant_unwidened`, `unwidened`: the rule before it, on the same
pairs) and the pair's f. --consecutive judges every two campaigns that ran one after the other
(pair k's A–B and pair k's B with pair k+1's A), `disjoint_pairs` the A–B pairs alone.
--control-source runs the whole `compare` of another source tree on the same pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from statsmodels.stats.proportion import proportion_confint

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "src"))
from mpimeter.stats import hypothesis  # noqa: E402  (Holm, as compare applies it)


def compare(a: Path, b: Path, timeout_s: float, one_folder: bool = False, source: Path | None = None) -> dict:
    """`mpimeter compare A B` (or `compare A`, one folder of alternatives) as a user runs it;
    ``source``: the package's python/src to run it from (another build's rule, as a control)."""
    paths = [str(a)] if one_folder else [str(a), str(b)]
    env = None if source is None else dict(os.environ, PYTHONPATH=str(source))
    done = subprocess.run([sys.executable, "-m", "mpimeter", "compare", *paths, "--format", "json"],
                          capture_output=True, text=True, timeout=timeout_s, env=env)
    if done.returncode != 0:
        return {"error": done.stderr.strip()[-400:], "exit": done.returncode}
    doc = json.loads(done.stdout)
    rows = doc["rows"]
    significant = [f"{r['op']} {r['size']}" for r in rows if r.get("significant")]
    # the same rows without the widening for separate campaigns: the rule before it, exactly
    plain = [r["p_unwidened"] if r.get("p_unwidened") is not None else r["p_value"] for r in rows]
    adjusted = hypothesis.holm(np.array(plain, dtype=float)) if rows else []
    unwidened = [f"{r['op']} {r['size']}" for r, p in zip(rows, adjusted) if p <= doc["alpha"]]
    return {"rows": len(rows), "significant": significant, "significant_unwidened": unwidened,
            "stratified_rows": sum(1 for r in rows if r.get("stratified")),
            "designs": sorted({r.get("design") or "unpaired" for r in rows}),
            "warnings": sorted({w.get("code") for w in doc.get("warnings", [])}),
            "inflation": [d.get("inflation") for d in doc.get("separate_campaigns", [])],
            "rho": [d.get("rho") for d in doc.get("separate_campaigns", [])],
            "launches_needed": [d.get("launches_needed") for d in doc.get("separate_campaigns", [])]}


def imb_campaign(folder: Path, entry: dict, out: Path, timeout_s: float) -> Path | None:
    """One IMB trial (its runs' outputs) imported as a campaign, as a user would import it."""
    files = [str(folder / entry["folder"] / r["file"]) for r in entry["launches"] if r["returncode"] == 0]
    if len(files) < 3:
        return None
    done = subprocess.run([sys.executable, "-m", "mpimeter", "import", "imb", *files, "--out", str(out)],
                          capture_output=True, text=True, timeout=timeout_s)
    return out if done.returncode == 0 else None


def share(pairs: list[dict], key: str = "significant") -> dict:
    """How many judged pairs had a significant row (``key``: by compare's rule, or
    ``significant_unwidened``: the same p before the widening), with the Wilson 95 % interval."""
    judged = [p for p in pairs if "error" not in p]
    called = sum(1 for p in judged if p.get(key))
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


def _pairs_to_judge(manifest: dict, consecutive: bool) -> list[tuple]:
    """(name, trial a, trial b) to judge: each pair's A and B, or every two campaigns in the
    order they ran (trials.json's order): "3 A-B", "3B-4A"."""
    trials = {(t["pair"], t["side"]): t for t in manifest["trials"]}
    if not consecutive:
        return [(pair, trials.get((pair, "A")), trials.get((pair, "B"))) for pair in sorted({p for p, _ in trials})]
    ran = manifest["trials"]
    return [(f"{a['pair']} A-B" if a["pair"] == b["pair"] else f"{a['pair']}{a['side']}-{b['pair']}{b['side']}", a, b)
            for a, b in zip(ran, ran[1:])]


def campaigns(manifest: dict) -> list[dict]:
    """Every campaign in the order it ran: its load average before and after, wall and (where
    state_trials.py recorded them) its own CPU seconds and the share of the machine's CPUs that
    everything else used meanwhile."""
    keys = ("folder", "start", "wall_s", "returncode", "own_cpu_s", "other_cpu_share")
    return [{**{k: t.get(k) for k in keys}, "load1_before": round(t["load_before"][0], 2),
             "load1_after": round(t["load_after"][0], 2)} for t in manifest["trials"]]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, required=True, help="state_trials.py's run folder")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "compare_aa.json")
    ap.add_argument("--timeout-s", type=float, default=600.0)
    ap.add_argument("--consecutive", action="store_true",
                    help="judge every two campaigns run one after the other (A–B of a pair, and B of one pair "
                         "with A of the next), not only the pairs")
    ap.add_argument("--control-source", type=Path,
                    help="python/src of the rule to judge the same pairs with as a control (e.g. the build "
                         "before a change, exported with git archive)")
    ap.add_argument("--note", default="", help="what ran: the conditions, kept in the output's 'run'")
    ap.add_argument("--reuse", type=Path, help="an earlier output of the same --dir: its judged pairs are kept "
                                               "(a run judged while the trials went on)")
    args = ap.parse_args(argv)
    manifest = json.loads((args.dir / "trials.json").read_text())
    pairs, left_out, control = [], [], []
    earlier = {str(p["pair"]): p for p in json.loads(args.reuse.read_text())["pairs"]} if args.reuse else {}
    for pair, a, b in _pairs_to_judge(manifest, args.consecutive):
        if str(pair) in earlier and not args.control_source:
            pairs.append(earlier[str(pair)])
            continue
        if not a or not b or a["returncode"] != 0 or b["returncode"] != 0 or a.get("stopped_at_deadline") \
                or b.get("stopped_at_deadline"):
            left_out.append(pair)
            continue
        where = {"pair": pair, "load_before": [a["load_before"][0], b["load_before"][0]],
                 "load_after": [a["load_after"][0], b["load_after"][0]], "wall_s": [a["wall_s"], b["wall_s"]],
                 "other_cpu_share": [a.get("other_cpu_share"), b.get("other_cpu_share")]}
        got = compare(args.dir / a["folder"], args.dir / b["folder"], args.timeout_s)
        got.update(where)
        pairs.append(got)
        if args.control_source:
            old = compare(args.dir / a["folder"], args.dir / b["folder"], args.timeout_s, source=args.control_source)
            old.update(where)
            control.append(old)
        print(f"pair {pair}: {len(got.get('significant', []))} significant of {got.get('rows')} rows "
              f"({len(got.get('significant_unwidened', []))} unwidened)"
              + (f" ({got['error']})" if "error" in got else "")
              + (f"; f {got.get('inflation')}; control {len(control[-1].get('significant', []))}"
                 if args.control_source else ""), flush=True)
    judged = [p for p in pairs if "error" not in p]
    loads = [x for p in judged for x in p["load_before"] + p["load_after"]]
    out = {"run": args.note, "lib": manifest.get("lib"), "launches_per_trial": manifest.get("launches_per_trial"),
           "ops": manifest.get("ops"), "sizes": manifest.get("sizes"),
           "pairs_of": "every two consecutive campaigns" if args.consecutive else "the pairs state_trials ran",
           **share(pairs), "unwidened": share(pairs, "significant_unwidened"), "load1_range": [min(loads), max(loads)] if loads else None,
           "left_out": left_out, "errors": [p for p in pairs if "error" in p], "pairs": judged}
    out["campaigns"] = campaigns(manifest)
    if args.control_source:
        out["control"] = {"source": str(args.control_source), **share(control),
                          "pairs": [p for p in control if "error" not in p]}

    if args.consecutive:  # the disjoint pairs alone (A and B of each pair), both rules
        disjoint = [p for p in pairs if str(p["pair"]).endswith("A-B")]
        out["disjoint_pairs"] = {"widened": share(disjoint), "unwidened": share(disjoint, "significant_unwidened")}
    if manifest.get("imb_trials"):
        control = imb_pairs(args, manifest)
        out["imb"] = {**share(control), "pairs": control}
        print(f"IMB: {out['imb']['pairs_called_different']} of {out['imb']['pairs_judged']} pairs called different; "
              f"Wilson 95 % {out['imb']['wilson95']}")
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    if args.control_source:
        print(f"control ({args.control_source}): {out['control']['pairs_called_different']} of "
              f"{out['control']['pairs_judged']} pairs called different; Wilson 95 % {out['control']['wilson95']}")
    print(f"{out['pairs_called_different']} of {out['pairs_judged']} pairs called different; "
          f"Wilson 95 % {out['wilson95']} (unwidened: {out['unwidened']['pairs_called_different']}, "
          f"{out['unwidened']['wilson95']}); wrote {args.out}")


if __name__ == "__main__":
    main()
