# SPDX-License-Identifier: BSD-3-Clause
"""What a busy machine does to the accuracy the MPI tests used to assert (a 200 us
delay measured within 5 %), on 2 ranks and on 3 (more ranks than this machine's 2 cores), for
both libraries, without and with two CPU hogs (other users of the machine not under its control); prints one JSON object. Not a test: the MPI tests
assert correctness on any machine and accuracy only where the machine was quiet
(c/tests/mpi/conftest.py, QuietRuns); these are the figures.

    .venv/bin/python bench/busy.py [--libs openmpi,mpich] [--nps 2,3] [--nrep 200] [--out FILE]

Per (library, ranks, load): the launch's wall time, the test's status and the start methods it
used (the window's own policy: window, then roundtime, then barrier), the valid repetitions (valid on every rank,
as the binary judged them), the median of their global run times (max end - min start), the
median local duration, how many valid repetitions started more than 1 us apart (the analysis's
start-spread check), what the launcher set for oversubscription (mpimeter.campaign.oversub), and
the CPU share other processes used during the launch (/proc/stat minus this process's children;
the hogs are counted as other processes). The hogs are started and stopped by this script (by
their process ids); other users of the machine are not under its control: the share says how
busy it was.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "c" / "tests" / "mpi"))
from conftest import LoadMeter, launcher  # noqa: E402

sys.path.insert(0, str(REPO / "python" / "src"))
from mpimeter.campaign import oversub  # noqa: E402

DELAY_NS = 200_000
TOLERANCE_NS = 1000


def hogs(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(n)]


def stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.kill()
        p.wait()


def one(lib: str, np_: int, nrep: int, work: Path) -> dict:
    out = work / f"{lib}-{np_}"
    settings = oversub.settings(np_, oversub.local_cores(), lib, dict(os.environ))
    env = {**os.environ, **(settings or {}).get("set", {})}
    cmd = launcher(lib, np_) + [str(REPO / "build" / lib / "bin" / "mpimeter-bench"), "--ops", "delay",
                                "--sizes", str(DELAY_NS), "--nrep", str(nrep), "--procsync", "window",  # the default

                                "--copy-probe-bytes", "0", "--out", str(out), "--force"]
    start = time.monotonic()
    with LoadMeter() as load:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
    wall = time.monotonic() - start
    result = {"ranks": np_, "exit_code": proc.returncode, "wall_s": round(wall, 2),
              "other_cpu_share": None if load.share is None else round(load.share, 3),
              "oversubscription": settings}
    if proc.returncode != 0 or not (out / "raw.csv").exists():
        result["stderr_tail"] = proc.stderr[-500:]
        return result
    meta = json.loads((out / "meta.json").read_text())
    (test,) = meta["tests"]
    # the window's own policy: the method the test ended with, and from which repetition
    result.update({"status": test["status"], "error": (test["error"] or {}).get("code"),
                   "methods": " -> ".join([meta["proc_sync"]["method"]] +
                                          [s["to"] for s in test["procsync_switches"]]),
                   "switches": [{k: s[k] for k in ("to", "why", "from_rep")} for s in test["procsync_switches"]],
                   "start_tolerance_ns": test["start_tolerance_ns"]})
    raw = pd.read_csv(out / "raw.csv")
    if raw.empty:
        result.update({"repetitions": 0, "valid": 0})
        return result
    by_rep = raw.groupby("rep")
    valid = by_rep["valid"].min() == 1
    run = by_rep["gend_ns"].max() - by_rep["gstart_ns"].min()
    spread = by_rep["gstart_ns"].max() - by_rep["gstart_ns"].min()
    local = (raw["end_ns"] - raw["start_ns"]).groupby(raw["rep"]).max()
    result.update({
        "repetitions": int(valid.size), "valid": int(valid.sum()),
        "median_valid_us": round(float(run[valid].median()) / 1e3, 2) if valid.any() else None,
        "median_local_us": round(float(local.median()) / 1e3, 2),
        "valid_started_apart_over_1us": int((spread[valid] > TOLERANCE_NS).sum()),
        "within_5_percent": bool(valid.sum() >= 20 and abs(run[valid].median() - DELAY_NS) <= 0.05 * DELAY_NS),
    })
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--libs", default="openmpi,mpich")
    ap.add_argument("--nps", default="2,3")
    ap.add_argument("--nrep", type=int, default=200)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    report: dict = {"delay_ns": DELAY_NS, "cores": oversub.local_cores(), "runs": []}
    with tempfile.TemporaryDirectory() as tmp:
        for load in ("no hogs", "two hogs"):
            running = hogs(2) if load == "two hogs" else []
            try:
                report["loadavg_before_" + load.replace(" ", "_")] = Path("/proc/loadavg").read_text().split()[:3]
                for lib in args.libs.split(","):
                    for np_ in (int(n) for n in args.nps.split(",")):
                        report["runs"].append({"library": lib, "load": load, **one(lib, np_, args.nrep, Path(tmp))})
            finally:
                stop(running)
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
