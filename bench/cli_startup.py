# SPDX-License-Identifier: BSD-3-Clause
"""How long the `mpimeter` command takes to answer what needs none of the statistics libraries:
`--version`, `--help`, shell completion of the command names (one TAB: click's bash_complete) and
every sub-command's `--help` (`store add` included). Prints one JSON object, and writes it with
--output. Not a test (timings depend on the load; the tests check what is imported instead).

    .venv/bin/python bench/cli_startup.py [--mpimeter PATH] [--src DIR] [--before-src DIR]
                                          [--runs 10] [--note TEXT] [--output FILE]

--mpimeter times another installation's entry point, default this environment's `mpimeter`
beside sys.executable. --src puts a source tree first on its PYTHONPATH (a checkout whose
package the environment does not install); --before-src times a second tree the same way (e.g.
the code before a change) and records it under "before", its runs alternating with the
other's. Per case: the median, minimum and maximum wall time of --runs fresh processes and their
median CPU time (user + system, which a busy machine stretches far less than the wall time; one
more run first, which fills the file cache, is discarded; it also writes the bytecode cache,
which an installed package has: the runs ignore PYTHONDONTWRITEBYTECODE). The load average (1, 5,
15 min) is recorded at the start and at the end, and the 1-minute one before each case, since on
a busy 2-core machine every number grows with it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
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

# every sub-command as typed, the sub-commands of a group included (imports every command once)
_LIST_COMMANDS = """
import click, importlib, json
from mpimeter.cli import COMMANDS
lines = []
for module in COMMANDS:
    command = importlib.import_module(f"mpimeter.cli.{module}").command
    lines.append([command.name])
    if isinstance(command, click.Group):
        lines += [[command.name, sub] for sub in command.list_commands(None)]
print(json.dumps(lines))
"""


def _env(src: str | None, extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(src).resolve()), os.environ.get("PYTHONPATH"))
                                            if p)
    return env


def _time(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system: what the load stretches least) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          timeout=300)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit code {done.returncode}: {done.stderr.strip()}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _command_lines(src: str | None) -> list[list[str]]:
    done = subprocess.run([sys.executable, "-c", _LIST_COMMANDS], env=_env(src, {}), capture_output=True,
                          text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise SystemExit(f"listing the sub-commands failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def _summary(runs: list[tuple[float, float]], load: float) -> dict[str, float]:
    walls = [w for w, _ in runs]
    return {"median_s": round(statistics.median(walls), 4), "min_s": round(min(walls), 4),
            "max_s": round(max(walls), 4), "cpu_median_s": round(statistics.median(c for _, c in runs), 4),
            "loadavg_1min_before": load}


def _cases(mpimeter: str, srcs: list[str | None], runs: int) -> list[dict[str, dict[str, float]]]:
    """Per source tree, every case; the trees' runs alternate within a case, so that a load
    that changes meanwhile weighs on each alike."""
    cases = dict(CASES)
    cases.update({f"help {' '.join(line)}": ([*line, "--help"], {}) for line in _command_lines(srcs[0])})
    out: list[dict[str, dict[str, float]]] = [{} for _ in srcs]
    for name, (extra, env) in cases.items():
        argv = [mpimeter, *extra]
        envs = [_env(src, env) for src in srcs]
        load = round(os.getloadavg()[0], 2)
        for full_env in envs:
            _time(argv, full_env)  # the file cache
        times: list[list[tuple[float, float]]] = [[] for _ in srcs]
        for _ in range(runs):
            for i, full_env in enumerate(envs):
                times[i].append(_time(argv, full_env))
        for i in range(len(srcs)):
            out[i][name] = _summary(times[i], load)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpimeter", default=str(Path(sys.executable).parent / "mpimeter"))
    parser.add_argument("--src", default=None, help="source tree first on PYTHONPATH")
    parser.add_argument("--before-src", default=None, help="a second source tree, recorded under 'before'")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--note", default=None, help="recorded as is (say how busy the machine was)")
    parser.add_argument("--output", type=Path, default=None, help="also write the JSON to this file")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs: at least 1")
    result = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "mpimeter": args.mpimeter, "src": args.src, "runs": args.runs,
              "loadavg_start": [round(x, 2) for x in os.getloadavg()]}
    srcs = [args.src] + ([args.before_src] if args.before_src is not None else [])
    measured = _cases(args.mpimeter, srcs, args.runs)
    result["cases"] = measured[0]
    if args.before_src is not None:
        result["before"] = {"src": args.before_src, "cases": measured[1]}
    result["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    if args.note is not None:
        result["note"] = args.note
    text = json.dumps(result, indent=1)
    print(text)
    if args.output is not None:
        args.output.write_text(text + "\n")


if __name__ == "__main__":
    main()
