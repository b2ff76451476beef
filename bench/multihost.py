# SPDX-License-Identifier: BSD-3-Clause
"""A campaign across network namespaces over TCP (the test bed of tests/multihost), kept and
analysed; prints JSON: the analyze rows and the clock-sync residuals of every launch.

    .venv/bin/python bench/multihost.py [--hosts 2] [--launches 3] [--nrep 100] [--keep DIR]

Needs root (network namespaces) and build/openmpi. One rank per host. The hosts share this
machine's cores, so run times are those of ranks that may be preempted: read them as what the
method gives over a real TCP stack, not as network figures. Not a test: no pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "multihost"))

from conftest import WINDOW_ARGS, running_bed  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=2)
    ap.add_argument("--launches", type=int, default=3)
    ap.add_argument("--nrep", type=int, default=100)
    ap.add_argument("--clocksync", default="hca3")
    ap.add_argument("--keep", type=Path, help="folder for the campaign (default: a temporary one)")
    args = ap.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="mm-multihost-"))
    base.mkdir(parents=True, exist_ok=True)
    out = base / "across"
    with running_bed(args.hosts, f"b{os.getpid()}") as bed:
        hostfile = bed.write_hostfile(base / "hostfile", [1] * args.hosts)
        subprocess.run([sys.executable, "-m", "mpimeter", "run", "--mpi", "openmpi", "--np", str(args.hosts),
                        "--launcher", bed.launcher_template(hostfile), "--launches", str(args.launches),
                        "--ops", "allreduce,bcast", "--sizes", "8,1024,65536", "--nrep", str(args.nrep),
                        "--clocksync", args.clocksync, *WINDOW_ARGS, "--no-analyze", "--out", str(out)],
                       env=bed.env(), check=True, capture_output=True, text=True, timeout=900)
    analyzed = subprocess.run([sys.executable, "-m", "mpimeter", "analyze", str(out), "--format", "json"],
                              check=True, capture_output=True, text=True)
    result = json.loads(analyzed.stdout)
    residuals = []
    for meta_path in sorted(out.glob("launches/*/meta.json")):
        meta = json.loads(meta_path.read_text())
        cs = meta["clock_sync"]
        residuals.append({"launch": meta_path.parent.name, "hosts": sorted({r["host"] for r in meta["ranks"]}),
                          "sync_duration_s": cs.get("duration_s"),
                          "residual_start_max_abs_ns": (cs.get("residual_start") or {}).get("max_abs_ns"),
                          "residual_end_max_abs_ns": (cs.get("residual_end") or {}).get("max_abs_ns")})
    rows = [{k: r.get(k) for k in ("op", "size", "launches", "median_ns", "median_ci_low_ns", "median_ci_high_ns",
                                   "invalid", "repetitions", "clock")} for r in result["rows"]]
    print(json.dumps({"benchmark": "multihost", "hosts": args.hosts, "clocksync": args.clocksync,
                      "campaign": str(out), "rows": rows, "clock": result.get("clock"),
                      "launches": residuals}, indent=2))


if __name__ == "__main__":
    main()
