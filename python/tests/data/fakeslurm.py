# SPDX-License-Identifier: BSD-3-Clause
"""A Slurm stand-in for tests: `srun`, `sbatch` and `mpimeter` scripts on PATH, and a job's
environment. There is no Slurm on a test machine; what mpimeter does with it (the command lines,
the environment it passes on, what it records, how it stops) is the same.

- `srun` records each call (argv, SLURM_* environment) as a JSON line in $FAKE_SLURM_LOG, sets
  in the tasks what srun sets (the step id and node list, and the binding it applied:
  SLURM_CPU_BIND_TYPE/LIST from --cpu-bind or SLURM_CPU_BIND), and starts the ranks with the real
  launcher of the binary's library, bound to cores as srun would (Hydra and Open MPI both see
  Slurm's variables and would start their daemons through `srun`: told not to).
- `sbatch` records its call and the MPIMETER_* variables the next job would get, and says what
  Slurm says; it runs nothing (the test runs the next job itself).
- `mpimeter` runs this package's CLI with this interpreter.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

from mpimeter.campaign import procs

FAKE_SRUN = r'''#!{python}
import json, os, sys
args = sys.argv[1:]
np, bind, i = None, os.environ.get("SLURM_CPU_BIND", ""), 0
while i < len(args) and args[i].startswith("-"):
    if args[i] in ("-n", "--ntasks"):
        np, i = int(args[i + 1]), i + 2
        continue
    if args[i].startswith("--ntasks="):
        np = int(args[i].split("=", 1)[1])
    elif args[i].startswith("--cpu-bind="):
        bind = args[i].split("=", 1)[1]
    else:
        sys.exit(f"fake srun: unknown option {args[i]}")
    i += 1
cmd = args[i:]
if np is None or not cmd:
    sys.exit("fake srun: expected -n N and a command")
log = os.environ["FAKE_SLURM_LOG"]
with open(log, "a") as f:
    steps = sum(1 for line in open(log) if '"srun"' in line)
    f.write(json.dumps({"prog": "srun", "argv": args, "pid": os.getpid(),
                        "env": {k: v for k, v in os.environ.items()
                                if k.startswith(("SLURM_", "MPIMETER_"))}}) + "\n")
env = dict(os.environ, SLURM_STEP_ID=str(steps), SLURM_STEP_NUM_TASKS=str(np),
           SLURM_STEP_NODELIST=os.environ.get("SLURM_JOB_NODELIST", ""),
           SLURM_STEP_TASKS_PER_NODE=str(np))
binding = []
if bind and bind.split(",")[-1] in ("cores", "threads"):
    masks = ",".join(hex(1 << (r % os.cpu_count())) for r in range(np))
    env.update(SLURM_CPU_BIND=f"quiet,mask_cpu:{masks}", SLURM_CPU_BIND_TYPE="mask_cpu:",
               SLURM_CPU_BIND_LIST=masks, SLURM_CPU_BIND_VERBOSE="quiet")
    binding = ["-bind-to", "core"] if "/mpich/" in cmd[0] else ["--bind-to", "core"]
if "/mpich/" in cmd[0]:
    launcher = ["mpiexec.mpich", "-launcher", "fork", "-rmk", "user", *binding]
else:
    launcher = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--mca", "plm",
                "isolated", "--mca", "ras", "^slurm", *binding]
os.execvpe(launcher[0], [*launcher, "-np", str(np), *cmd], env)
'''

FAKE_SBATCH = r'''#!{python}
import json, os, sys
with open(os.environ["FAKE_SLURM_LOG"], "a") as f:
    f.write(json.dumps({"prog": "sbatch", "argv": sys.argv[1:], "cwd": os.getcwd(),
                        "env": {k: v for k, v in os.environ.items()
                                if k.startswith("MPIMETER")}}) + "\n")
print("Submitted batch job 99999")
'''

FAKE_MPIMETER = r'''#!/bin/sh
exec {python} -m mpimeter "$@"
'''


def job_env(job_id: str, log: Path, bindir: Path, **extra: str) -> dict[str, str]:
    """The environment of a batch job of two tasks on two (pretend) nodes, with the fakes first
    on PATH."""
    # MPIMETER_BENCH_DIR stays: where the binaries are when the package is installed, not run
    # from a checkout (scripts/check-oldest-deps)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_", "MPIMETER_")) or k == "MPIMETER_BENCH_DIR"}
    env.update(PATH=f"{bindir}:{os.environ['PATH']}", FAKE_SLURM_LOG=str(log),
               SLURM_JOB_ID=job_id, SLURM_JOB_NAME="mpimeter", SLURM_JOB_NODELIST="node[01-02]",
               SLURM_JOB_NUM_NODES="2", SLURM_NTASKS="2", SLURM_TASKS_PER_NODE="1(x2)",
               SLURM_CPU_BIND="cores", **extra)
    return env


def install(tmp: Path) -> Path:
    bindir = tmp / "fakebin"
    bindir.mkdir(exist_ok=True)
    for name, text in (("srun", FAKE_SRUN), ("sbatch", FAKE_SBATCH), ("mpimeter", FAKE_MPIMETER)):
        path = bindir / name
        path.write_text(text.replace("{python}", sys.executable))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return bindir


def calls(log: Path, prog: str) -> list[dict]:
    if not log.exists():
        return []
    return [c for c in map(json.loads, log.read_text().splitlines()) if c["prog"] == prog]


def wait_for_running_launch(out: Path, driver, timeout_s: float = 120.0) -> Path:
    """The folder of a launch whose mpimeter-bench has started (meta.json written), so that a
    signal now reaches a campaign with a launch in flight. A guard against a hang, not a check."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert driver.poll() is None, "the campaign ended before any launch ran"
        for meta in out.glob("**/launches/*/meta.json"):
            return meta.parent
        time.sleep(0.05)
    raise AssertionError(f"no launch of {out} started within {timeout_s:g} s")


def processes_of(out: Path) -> list[int]:
    """Processes that carry the launch marker of any launch of the campaign in `out` (whatever
    runs of them: srun, mpirun, ranks)."""
    st = os.stat(out)
    suffix = f"@{st.st_dev}:{st.st_ino}".encode()
    prefix = f"{procs.LAUNCH_ID_VAR}=".encode()
    found = []
    for pid, *_ in procs.scan():
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                entries = f.read().split(b"\0")
        except OSError:
            continue
        if any(e.startswith(prefix) and e.endswith(suffix) for e in entries):
            found.append(pid)
    return found
