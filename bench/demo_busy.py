# SPDX-License-Identifier: BSD-3-Clause
"""The default campaign (`make demo`'s `mpimeter run`) on a quiet machine and with CPU
hogs running (one busy-loop per core, started and stopped here); prints one JSON object.

    .venv/bin/python bench/demo_busy.py [--hogs 2] [--seed 1] [--out FILE]

Per load (quiet, hogs): the campaign's wall time and exit code; per library, the launches whose
meta.json says complete; per (library, op, size): the repetitions the launches recorded and how
many were invalid, the start method each test ended with (the last switch's target, else the
launch's method) counted over launches, and the across-launch median from `mpimeter analyze`
(its interval too), so the two loads' medians stand side by side. The CPU share other processes
used is the load meter's (c/tests/mpi/conftest.py LoadMeter); the hogs count as other processes.
Not a test: figures for the closing note.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "c" / "tests" / "mpi"))
from conftest import LoadMeter  # noqa: E402

PY = str(REPO / ".venv" / "bin" / "python")


def hogs(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(n)]


def launch_facts(campaign: Path) -> dict:
    per_lib: dict = {}
    for meta_path in sorted(campaign.glob("*/launches/*/meta.json")):
        lib = meta_path.parts[-4]
        meta = json.loads(meta_path.read_text())
        entry = per_lib.setdefault(lib, {"launches": 0, "complete": 0, "tests": defaultdict(
            lambda: {"recorded": 0, "invalid": 0, "ended_with": Counter(), "status": Counter()})})
        entry["launches"] += 1
        entry["complete"] += meta.get("status") == "complete"
        method = meta.get("proc_sync", {}).get("method")
        for t in meta.get("tests", []):
            row = entry["tests"][f"{t['op']}/{t['size']}"]
            row["recorded"] += t.get("nrep") or 0
            row["invalid"] += t.get("invalid") or 0
            switches = t.get("procsync_switches") or []
            row["ended_with"][switches[-1]["to"] if switches else method] += 1
            row["status"][t.get("status")] += 1
    for entry in per_lib.values():
        entry["tests"] = {k: {**v, "ended_with": dict(v["ended_with"]), "status": dict(v["status"])}
                          for k, v in entry["tests"].items()}
    return per_lib


def medians(campaign: Path) -> dict:
    proc = subprocess.run([PY, "-m", "mpimeter", "analyze", str(campaign), "--format", "json"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip()[-400:]}
    rows = json.loads(proc.stdout)["rows"]
    return {f"{r['alternative']}:{r['op']}/{r['size']}":
            [r["median_ns"], r["median_ci_low_ns"], r["median_ci_high_ns"], r["launches"]] for r in rows}


def one(load: str, n_hogs: int, seed: int, work: Path) -> dict:
    out = work / load
    started = hogs(n_hogs)
    t0 = time.monotonic()
    try:
        with LoadMeter() as meter:  # the hogs still run (unreaped): they count as others
            proc = subprocess.run([PY, "-m", "mpimeter", "run", "--seed", str(seed), "--no-analyze",
                                   "--out", str(out)], capture_output=True, text=True)
    finally:
        wall = time.monotonic() - t0
        other = meter.share
        for p in started:
            p.kill()
            p.wait()
    return {"load": load, "hogs": n_hogs, "wall_s": round(wall, 1), "exit": proc.returncode,
            "other_cpu_share": other, "stderr_tail": proc.stderr.strip()[-300:],
            "libraries": launch_facts(out), "medians_ns": medians(out)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hogs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = {"runs": [one("quiet", 0, args.seed, Path(tmp)),
                           one("hogs", args.hogs, args.seed, Path(tmp))]}
    text = json.dumps(result, indent=1, sort_keys=True)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
