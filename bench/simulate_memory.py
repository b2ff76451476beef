"""Issue 13, scope 5: memory and output at 1024 simulated ranks x 1000 repetitions, --raw full
against --raw reduced; prints one JSON object. Not a test.

    .venv/bin/python bench/simulate_memory.py [--p 1024] [--nrep 1000] [--out FILE]

One launch per mode of `build/smpi/bin/mpimeter-bench --ops allreduce --sizes 8 --procsync
barrier --clocksync none --warmup 0` on the simulated cluster of bench/sim_platform.py, plus a
baseline launch with --nrep 1. Reported per launch: the size of raw.csv and of the whole launch
folder, and the simulator's peak RSS (os.wait4). Under SMPI every rank lives in the one simulator
process, so its peak RSS is the sum over ranks; rank 0's own share that grows with p x nrep is
its gather buffer (c/src/bench/launch_tests.c, mm__gathered_alloc: p x nrep x 76 bytes, four
int64 timestamps, one int32 flag and five int64 component durations, allocated whatever --raw
says), given as "rank0_gather_bytes" next to the measured RSS.
Cost, measured: 64 x 100 takes seconds; 1024 ranks take ~1 min at --nrep 1 but 204 s at --nrep 10
(so hours at 1000; the per-repetition cost at 1024 simulated ranks is not yet understood), and
SMPI's coll-selector ompi aborts at 1024 ranks in 3.32 (reduce pipeline: "Actor pid=-1 is gone").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_platform  # noqa: E402
import simulate  # noqa: E402

GATHER_BYTES_PER_ROW = 4 * 8 + 4 + 5 * 8  # mm__gathered: start/end/gstart/gend, invalid, components


def launch(p: int, nrep: int, raw: str, workdir: Path) -> dict:
    xml, hosts = sim_platform.write(p, workdir)
    out = workdir / f"launch-{p}-{nrep}-{raw}"
    shutil.rmtree(out, ignore_errors=True)
    cmd = ["smpirun", "-np", str(p), "-platform", str(xml), "-hostfile", str(hosts),
           *simulate.SMPI_CFG, str(simulate.BENCH),
           "--ops", "allreduce", "--sizes", "8", "--nrep", str(nrep), "--warmup", "0",
           "--procsync", "barrier", "--clocksync", "none", "--raw", raw, "--out", str(out),
           "--copy-probe-bytes", "0"]  # all simulated ranks share one process: no copy buffers each
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    stdout, stderr = proc.stdout.read(), proc.stderr.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{stderr[-3000:]}{stdout[-1000:]}")
    files = {f.name: f.stat().st_size for f in out.iterdir()}
    return {"p": p, "nrep": nrep, "raw": raw, "real_s": round(time.monotonic() - start, 1),
            "peak_rss_bytes": ru.ru_maxrss * 1024, "raw_csv_bytes": files.get("raw.csv", 0),
            "folder_bytes": sum(files.values()),
            "raw_csv_lines": sum(1 for _ in (out / "raw.csv").open()) if "raw.csv" in files else 0,
            "rank0_gather_bytes": p * nrep * GATHER_BYTES_PER_ROW}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--p", type=int, default=1024)
    ap.add_argument("--nrep", type=int, default=1000)
    ap.add_argument("--workdir", type=Path, default=simulate.ROOT / "build" / "sim-memory")
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    a = ap.parse_args(argv)
    why = simulate.smpi_missing()
    if why:
        print(f"simulate_memory: {why}", file=sys.stderr)
        return 1
    runs = [launch(a.p, 1, "full", a.workdir)]
    runs += [launch(a.p, a.nrep, raw, a.workdir) for raw in ("full", "reduced")]
    doc = {"runs": runs, "note": "peak_rss_bytes is the whole simulator (all ranks); "
                                 "rank0_gather_bytes is rank 0's p x nrep buffer from the code"}
    text = json.dumps(doc, indent=1)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
