# SPDX-License-Identifier: BSD-3-Clause
"""examples/slurm/srun-over-allocations, the launcher template that spreads a campaign's launches
over several Slurm allocations (docs/SLURM.md, "Allocations"), with an `srun` on PATH that prints
its arguments: launch NNN becomes a job step of job NNN mod the number of jobs, the command passed
on unchanged; bad arguments are refused in one line with exit code 2, and nothing runs. Against
a real cluster: tests/slurm/test_allocations.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

WRAPPER = Path(__file__).resolve().parents[2] / "examples" / "slurm" / "srun-over-allocations"


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    fake = tmp_path / "bin" / "srun"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\necho "srun $*"\n')
    fake.chmod(0o755)
    return {**os.environ, "PATH": f"{fake.parent}:{os.environ['PATH']}"}


def run(env, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(WRAPPER), *args], capture_output=True, text=True, env=env, timeout=30)


@pytest.mark.parametrize("number, job", [("000", "101"), ("001", "102"), ("002", "103"), ("007", "102"),
                                         ("012", "101")])
def test_launch_nnn_runs_in_job_nnn_mod_n(env, number, job):
    done = run(env, "101,102,103", "4", "/x/mpimeter-bench", "--seed", "9", "--out", f"/c/b/launches/{number}")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (f"srun --jobid={job} -n 4 /x/mpimeter-bench --seed 9 --out "
                           f"/c/b/launches/{number}\n")


@pytest.mark.parametrize("args, said", [
    (("101",), "usage: srun-over-allocations JOB[,JOB...] NP COMMAND..."),
    (("101,x7", "2", "bench", "--out", "l/000"), "job id 'x7': digits only"),
    (("101,,102", "2", "bench", "--out", "l/000"), "job id '': digits only"),
    (("", "2", "bench", "--out", "l/000"), "no job id given"),
    (("101", "two", "bench", "--out", "l/000"), "NP 'two': a whole number"),
    (("101", "2", "bench"), "no launch number in the command"),
    (("101", "2", "bench", "--out", "l/first"), "no launch number in the command"),
])
def test_bad_arguments_are_refused_in_one_line(env, args, said):
    done = run(env, *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and said in done.stderr, done.stderr
