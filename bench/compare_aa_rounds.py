# SPDX-License-Identifier: BSD-3-Clause
"""One build against itself inside one campaign: how often does `mpimeter compare` call the two
sides different when they ran in the same rounds? Not a test.

    .venv/bin/python bench/compare_aa_rounds.py --dir DIR --campaigns 40 [--launches 10]
        [--out bench/results/compare_aa_rounds.json]

Each campaign is `mpimeter run --mpi openmpi --variant same='MPIMETER_AA_SIDE=b' --launches N`:
two alternatives of one binary that differ only by an environment variable nothing reads, run
interleaved in a seeded random order per round, as a user compares two libraries or two settings.
`mpimeter compare CAMPAIGN --format json` then judges it as a user would (alternatives that ran in
the same rounds are paired by round when the rounds allow it). Both sides measured the same
thing, so a significant row is a false one; a campaign counts as called different when any row
is. Beside bench/compare_aa.py (two campaigns one after the other): the machine's drift between
campaigns cannot enter here, since every round holds both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_aa import compare, share  # noqa: E402  (the same judging as for separate campaigns)

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, required=True, help="a new folder for the campaigns")
    ap.add_argument("--campaigns", type=int, default=40)
    ap.add_argument("--launches", type=int, default=10, help="launches per side (rounds)")
    ap.add_argument("--seed", type=int, default=50)
    ap.add_argument("--timeout-s", type=float, default=900.0)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "compare_aa_rounds.json")
    args = ap.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=False)
    judged = []
    for i in range(args.campaigns):
        folder = args.dir / f"c{i:03d}"
        load_before = os.getloadavg()[0]
        t0 = time.monotonic()
        run = subprocess.run([sys.executable, "-m", "mpimeter", "run", "--mpi", "openmpi", "--variant",
                              "same=MPIMETER_AA_SIDE=b", "--launches", str(args.launches),
                              "--seed", str(args.seed + i), "--out", str(folder), "--no-analyze"],
                             capture_output=True, text=True, timeout=args.timeout_s)
        wall_s = round(time.monotonic() - t0, 1)
        if run.returncode != 0:
            judged.append({"campaign": i, "error": run.stderr.strip()[-400:]})
            continue
        got = compare(folder, folder, args.timeout_s, one_folder=True)
        got.update(campaign=i, load_before=load_before, load_after=os.getloadavg()[0], wall_s=wall_s)
        judged.append(got)
        print(f"campaign {i}: {len(got.get('significant', []))} significant of {got.get('rows')} rows "
              f"({', '.join(sorted(set(got.get('designs', []))))}), load {load_before:.2f}", flush=True)
    out = {"lib": "openmpi", "launches_per_side": args.launches, **share(judged), "campaigns": judged}
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{out['pairs_called_different']} of {out['pairs_judged']} campaigns called different; "
          f"Wilson 95 % {out['wilson95']}; wrote {args.out}")


if __name__ == "__main__":
    main()
