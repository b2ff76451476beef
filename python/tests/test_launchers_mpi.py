# SPDX-License-Identifier: BSD-3-Clause
"""The `srun` launcher and a user's own template, end to end with real MPI. There is no Slurm on
a test machine, so `srun` is a stand-in script on PATH that starts the ranks the way srun would
(one PMI job of -n processes), through MPICH's Hydra: the test checks what mpimeter does with the
launcher (the command line it builds, the environment it forwards, the folders it writes), which
is the same whoever starts the ranks."""

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from mpimeter.campaign import launcher

BENCH_DIR = launcher.default_bench_dir()
HAVE_MPICH = (launcher.bench_binary(BENCH_DIR, "mpich").is_file()
              and shutil.which("mpiexec.mpich") is not None)
pytestmark = pytest.mark.skipif(not HAVE_MPICH, reason=f"no mpimeter-bench for mpich under "
                                f"{BENCH_DIR} or no mpiexec.mpich (run `make build`)")

SRUN_STANDIN = """#!/bin/sh
# srun stand-in: records its arguments, then starts -n ranks with Hydra.
printf "%s\n" "$*" >> "$SRUN_LOG"
[ "$1" = "-n" ] || { echo "srun stand-in: expected -n N first, got $1" >&2; exit 2; }
np="$2"; shift 2
exec mpiexec.mpich -np "$np" "$@"
"""


def run_campaign(out, launcher_arg, env, variant=None):
    argv = [sys.executable, "-m", "mpimeter", "run", "--np", "2", "--launches", "2",
            "--mpi", "mpich", "--launcher", launcher_arg, "--ops", "allreduce",
            "--sizes", "8", "--nrep", "10", "--clocksync", "none", "--procsync", "barrier",
            "--seed", "7", "--out", str(out), "--no-analyze"]
    if variant:
        argv += ["--variant", variant]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env)


def check_complete(out, alternatives):
    disk = json.loads((out / "campaign.json").read_text())
    assert sorted({x["alternative"] for x in disk["launches"]}) == sorted(alternatives)
    for x in disk["launches"]:
        assert x["status"] == "complete", x
        meta = json.loads((out / x["folder"] / "meta.json").read_text())
        assert meta["status"] == "complete" and meta["nprocs"] == 2
    return disk


def test_srun_launcher_runs_every_launch_through_srun(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    srun = bindir / "srun"
    srun.write_text(SRUN_STANDIN)
    srun.chmod(srun.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "srun.log"
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", SRUN_LOG=str(log))
    out = tmp_path / "srun"
    done = run_campaign(out, "srun", env)
    assert done.returncode == 0, done.stdout + done.stderr
    disk = check_complete(out, ["mpich"])
    assert disk["alternatives"][0]["launch_template"] == "srun -n {np} {cmd}"
    calls = log.read_text().splitlines()
    assert len(calls) == len(disk["launches"]) == 2
    for call in calls:
        words = call.split()
        assert words[:2] == ["-n", "2"]
        assert words[2].endswith("mpich/bin/mpimeter-bench")
        assert "--out" in words and "--seed" in words


def test_own_template_with_a_shell_wrapper_and_a_variant(tmp_path):
    # {cmd} inside a longer word becomes the quoted command line; the variant's variable must
    # reach the ranks through the template (Hydra forwards the environment).
    out = tmp_path / "own"
    template = "sh -c 'exec mpiexec.mpich -np {np} {cmd}'"
    done = run_campaign(out, template, dict(os.environ),
                        variant="eager='MPIR_CVAR_CH4_EAGER_THRESHOLD=1024'")
    assert done.returncode == 0, done.stdout + done.stderr
    disk = check_complete(out, ["mpich", "eager"])
    for x in disk["launches"]:
        meta = json.loads((out / x["folder"] / "meta.json").read_text())
        env_seen = json.dumps(meta)
        # the variant's variable reaches the ranks; the baseline runs without it
        assert ("MPIR_CVAR_CH4_EAGER_THRESHOLD" in env_seen) == (x["alternative"] == "eager")
