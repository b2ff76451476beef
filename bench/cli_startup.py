# SPDX-License-Identifier: BSD-3-Clause
"""Issue 30's benchmark: how long the `mpimeter` command takes to start, for what needs none of
the statistics libraries: `--version`, `--help`, and shell completion of the command names (one
TAB: click's bash_complete). Prints one JSON object. Not a test (timings depend on the load).

    .venv/bin/python bench/cli_startup.py [--mpimeter PATH] [--runs 15]

--mpimeter times another installation's entry point (e.g. a checkout from before the lazy group),
default this environment's `mpimeter` beside sys.executable. Per case: the median, minimum and
maximum wall time of --runs fresh processes (the first run, which fills the file cache, is
discarded), and the load average at the start, since on a busy 2-core machine every number grows
with it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

CASES = {
    "version": (["--version"], {}),
    "help": (["--help"], {}),
    "complete_commands": ([], {"_MPIMETER_COMPLETE": "bash_complete", "COMP_WORDS": "mpimeter ",
                               "COMP_CWORD": "1"}),
}


def _time(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit code {done.returncode}: {done.stderr.strip()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpimeter", default=str(Path(sys.executable).parent / "mpimeter"))
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs: at least 1")
    result = {"mpimeter": args.mpimeter, "runs": args.runs, "loadavg_1min": os.getloadavg()[0],
              "cases": {}}
    for name, (extra, env) in CASES.items():
        argv = [args.mpimeter, *extra]
        _time(argv, env)  # the file cache
        times = [_time(argv, env) for _ in range(args.runs)]
        result["cases"][name] = {"median_s": round(statistics.median(times), 4),
                                 "min_s": round(min(times), 4), "max_s": round(max(times), 4)}
    result["loadavg_1min_end"] = os.getloadavg()[0]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
