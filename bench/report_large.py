# SPDX-License-Identifier: BSD-3-Clause
"""Self-benchmark: the HTML report of a large synthetic campaign.

20 operations × 20 sizes × 30 launches (2 ranks, 100 repetitions per test: 2.4 million raw
rows), written under /tmp, then `mpimeter report` timed in two parts: load + analyze (the
analysis engine) and the report itself (figures + HTML); then, when Chromium is installed, the
time it takes to load the report and to open every fingerprint. Prints one JSON object. Not a
test.

    .venv/bin/python bench/report_large.py [--ops 20 --sizes 20 --launches 30 --nrep 100]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python" / "tests" / "data" / "report"))

import chromium  # noqa: E402
import synth_campaign  # noqa: E402

from mpimeter import analysis  # noqa: E402
from mpimeter.report.html_report import write_report  # noqa: E402


OPEN_ALL = """(async () => {
  const t0 = performance.now();
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.body.getBoundingClientRect();  // force layout
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  return (performance.now() - t0) / 1000;
})()"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=20)
    parser.add_argument("--sizes", type=int, default=20)
    parser.add_argument("--launches", type=int, default=30)
    parser.add_argument("--nrep", type=int, default=100)
    parser.add_argument("--nprocs", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the campaign and the report")
    parser.add_argument("--no-browser", action="store_true",
                        help="do not time the loading of the report in headless Chromium")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="mpimeter-report-large-", dir="/tmp"))
    ops = tuple(f"op{i:02d}" for i in range(args.ops))
    sizes = tuple(2 ** k for k in range(args.sizes))
    spec = synth_campaign.LaunchSpec(ops=ops, sizes=sizes, nprocs=args.nprocs, nrep=args.nrep,
                                     warmup_reps=5)
    t0 = time.perf_counter()
    synth_campaign.write_campaign(work / "campaign", spec, launches=args.launches)
    t_write = time.perf_counter() - t0

    t0 = time.perf_counter()
    campaign = analysis.load_campaign(work / "campaign", cache=False, store=False)
    result = analysis.analyze(campaign)
    t_analyze = time.perf_counter() - t0

    info = write_report(work / "report.html", result, None)
    out = {
        "campaign": {"ops": args.ops, "sizes": args.sizes, "launches": args.launches,
                     "nrep": args.nrep, "nprocs": args.nprocs,
                     "raw_rows": args.ops * args.sizes * args.launches * args.nrep * args.nprocs},
        "cpus": os.cpu_count(),
        "write_synthetic_s": round(t_write, 2),
        "load_and_analyze_s": round(t_analyze, 2),
        "report_s": round(info.seconds, 2),
        "total_s": round(t_analyze + info.seconds, 2),
        "report_bytes": info.bytes,
        "report_mib": round(info.bytes / 2**20, 1),
        "figures": info.figures,
        "fingerprints": info.fingerprints,
    }
    if not args.no_browser and chromium.find_chromium():
        # navigate → load event, then with every fingerprint opened (all SVGs laid out)
        visit = chromium.visit(info.path, expression=OPEN_ALL)
        out["chromium_load_s"] = round(visit.load_seconds, 2)
        out["chromium_open_all_s"] = round(visit.evaluated, 2)
        out["chromium_console_errors"] = len(visit.console_errors)
        out["chromium_requests_not_data_or_file"] = sum(
            1 for u in visit.requests if not u.startswith(("data:", "file:")))
    if args.keep:
        out["folder"] = str(work)
    else:
        shutil.rmtree(work)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
