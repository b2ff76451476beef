# SPDX-License-Identifier: BSD-3-Clause
"""A campaign in a (pretend) Slurm job, end to end with real MPI: `--launcher srun` with a fake
srun on PATH (tests/data/fakeslurm.py) that starts real ranks; SIGTERM from "Slurm" mid-launch
stops the campaign cleanly (exit 130, nothing of the launch left running, campaign.json says what
to redo); `--resume` in the next job completes it; provenance holds each job's id, node list and
binding. Then the same through examples/slurm/mpimeter-campaign.sbatch, which passes the SIGTERM
on, submits itself again (fake sbatch) and resumes in the next job."""

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from data.fakeslurm import (calls, install, job_env, processes_of,
                            wait_for_running_launch)

from mpimeter.campaign import launcher
from mpimeter.io import slurm

BENCH_DIR = launcher.default_bench_dir()
LIBS = [lib for lib in ("openmpi", "mpich") if launcher.bench_binary(BENCH_DIR, lib).is_file()]
pytestmark = pytest.mark.skipif(LIBS != ["openmpi", "mpich"],
                                reason=f"needs mpimeter-bench for openmpi and mpich under "
                                       f"{BENCH_DIR} (run `make build`)")
SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "slurm" / "mpimeter-campaign.sbatch"
# A launch that is still measuring when the signal comes (if it is not, another launch is still
# to run: the checks hold either way) and takes about as long under load as on a quiet machine:
# ten repetitions of a 100 ms busy wait on the timer, no warm-up. (20000 repetitions of allreduce
# took seconds per launch under load, minutes for Open MPI's oversubscribed ranks, which yield
# at every barrier; the next job measures each launch the signal stopped again.)
BENCH = ["--ops", "delay", "--sizes", "100000000", "--nrep", "10", "--warmup", "0", "--clocksync", "none",
         "--procsync", "barrier"]
EXIT_INTERRUPTED = 130


def mpimeter(*args) -> list[str]:
    return [sys.executable, "-m", "mpimeter", "run", *args]


def stop_with_sigterm(proc: subprocess.Popen, out: Path) -> str:
    wait_for_running_launch(out, proc)
    proc.send_signal(signal.SIGTERM)
    output, _ = proc.communicate(timeout=120)
    return output


def check_stopped_cleanly(out: Path) -> dict:
    assert processes_of(out) == []  # srun, mpirun and the ranks are gone
    disk = json.loads((out / "campaign.json").read_text())
    assert disk["status"] == "interrupted"
    todo = [x for x in disk["launches"] if x["status"] != "complete"]
    assert todo, "nothing left to redo: the signal came after the campaign"
    for rec in todo:
        assert rec["status"] in ("incomplete", "pending")
        if rec["status"] == "incomplete":
            assert rec["reason"] == "interrupted (Ctrl-C, SIGTERM or SIGHUP)"
    return disk


def check_complete_with_provenance(out: Path, jobs: list[str]) -> dict:
    disk = json.loads((out / "campaign.json").read_text())
    assert disk["status"] == "complete"
    assert [s["slurm"]["job_id"] for s in disk["sessions"]] == jobs
    for session in disk["sessions"]:
        assert session["slurm"]["nodelist"] == "node[01-02]"
        assert session["slurm"]["tasks_per_node"] == "1(x2)"
        assert session["slurm"]["cpu_bind"] == "cores"
    assert {x["slurm_job"] for x in disk["launches"]} <= set(jobs)
    assert disk["launches"][0]["slurm_job"] in jobs
    for rec in disk["launches"]:
        assert rec["status"] == "complete"
        meta = json.loads((out / rec["folder"] / "meta.json").read_text())
        facts = slurm.launch_facts(meta["environment"])
        assert facts["job_id"] == rec["slurm_job"]  # the job of the attempt that completed
        assert facts["nodelist"] == "node[01-02]" and facts["step_id"].isdigit()
        assert facts["cpu_bind_type"] == "mask_cpu:"
        # srun's binding held: each rank on one CPU of the list
        assert all(len(r["cpus"]) == 1 for r in meta["ranks"]), meta["ranks"]
    return disk


def test_sigterm_from_slurm_stops_the_campaign_and_the_next_job_resumes_it(tmp_path):
    bindir = install(tmp_path)
    log, out = tmp_path / "slurm.log", tmp_path / "c"
    first = subprocess.Popen(
        mpimeter("--launcher", "srun", "--mpi", "openmpi,mpich", "--np", "2", "--launches", "2",
                 "--seed", "3", "--out", str(out), "--no-analyze", *BENCH),
        env=job_env("4242", log, bindir), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    output = stop_with_sigterm(first, out)
    assert first.returncode == EXIT_INTERRUPTED, output
    assert f"continue with: mpimeter run --resume {out}" in output
    check_stopped_cleanly(out)
    done = subprocess.run(mpimeter("--resume", str(out), "--no-analyze"), capture_output=True,
                          text=True, timeout=600, env=job_env("4243", log, bindir))
    assert done.returncode == 0, done.stdout + done.stderr
    disk = check_complete_with_provenance(out, ["4242", "4243"])
    assert "4243" in {x["slurm_job"] for x in disk["launches"]}  # the rest ran in the next job
    srun_calls = calls(log, "srun")
    attempts = sum(x["attempts"] for x in disk["launches"])
    assert len(srun_calls) == attempts  # every attempt, and nothing else, went through srun
    for call in srun_calls:
        assert call["argv"][:2] == ["-n", "2"]
        assert call["env"]["SLURM_CPU_BIND"] == "cores"  # the job's binding reached every srun


def run_script(env: dict, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(["bash", str(SCRIPT)], env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def test_the_sbatch_example_stops_at_the_time_limit_resubmits_and_resumes(tmp_path):
    bindir = install(tmp_path)
    log, out = tmp_path / "slurm.log", tmp_path / "c"
    settings = {"MPIMETER_OUT": str(out), "MPIMETER_LAUNCHES": "2",
                "MPIMETER_BENCH_ARGS": " ".join(BENCH), "MPIMETER_SBATCH_SCRIPT": str(SCRIPT)}
    first = run_script(job_env("5001", log, bindir, **settings), tmp_path)
    output = stop_with_sigterm(first, out)  # Slurm's --signal=B:TERM reaches the batch shell
    assert first.returncode == EXIT_INTERRUPTED, output
    assert "SIGTERM (time limit near): stopping the campaign" in output
    assert "submitted the next job" in output
    disk = check_stopped_cleanly(out)
    assert [a["mpi"] for a in disk["alternatives"]] == ["openmpi", "mpich"]  # --mpi of the script
    assert disk["launcher"] == "srun" and disk["np"] == 2
    (submitted,) = calls(log, "sbatch")
    assert submitted["argv"] == ["--export=ALL", "--dependency=afterany:5001", str(SCRIPT)]
    assert submitted["cwd"] == str(tmp_path)
    nxt = submitted["env"]
    assert nxt["MPIMETER_JOB_NUMBER"] == "2" and nxt["MPIMETER_OUT"] == str(out)
    # the next job: the environment sbatch was given, in a new job
    second = run_script(job_env("5002", log, bindir, **nxt), tmp_path)
    output, _ = second.communicate(timeout=600)
    assert second.returncode == 0, output
    assert f"resuming {out}: its settings come from its campaign.json" in output
    assert len(calls(log, "sbatch")) == 1  # complete: nothing submitted again
    check_complete_with_provenance(out, ["5001", "5002"])
    assert processes_of(out) == []


def test_the_sbatch_example_refuses_to_run_outside_slurm_and_passes_the_syntax_check(tmp_path):
    assert subprocess.run(["bash", "-n", str(SCRIPT)]).returncode == 0
    env = {k: v for k, v in job_env("1", tmp_path / "log", install(tmp_path)).items()
           if k != "SLURM_JOB_ID"}
    done = subprocess.run(["bash", str(SCRIPT)], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert "not inside a Slurm job" in done.stderr
    assert not (tmp_path / "results").exists()


def test_the_sbatch_example_submits_no_more_jobs_than_allowed(tmp_path):
    bindir = install(tmp_path)
    log, out = tmp_path / "slurm.log", tmp_path / "c"
    settings = {"MPIMETER_OUT": str(out), "MPIMETER_MPI": "openmpi", "MPIMETER_LAUNCHES": "2",
                "MPIMETER_BENCH_ARGS": " ".join(BENCH), "MPIMETER_SBATCH_SCRIPT": str(SCRIPT),
                "MPIMETER_JOB_NUMBER": "3", "MPIMETER_MAX_JOBS": "3"}
    last = run_script(job_env("6003", log, bindir, **settings), tmp_path)
    output = stop_with_sigterm(last, out)
    assert last.returncode == EXIT_INTERRUPTED, output
    assert f"3 jobs done, not submitting another; continue with: mpimeter run --resume {out}" \
        in output
    assert calls(log, "sbatch") == []
    check_stopped_cleanly(out)


def test_the_sbatch_example_refuses_a_misspelt_setting_before_it_runs_anything(tmp_path):
    """A misspelt MPIMETER_* name left its default in force for the whole job, silently."""
    bindir = install(tmp_path)
    env = job_env("7001", tmp_path / "slurm.log", bindir, MPIMETER_OUT=str(tmp_path / "c"),
                  MPIMETER_LAUNHCES="2")
    done = subprocess.run(["bash", str(SCRIPT)], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "MPIMETER_LAUNHCES is not a setting of this script" in done.stderr
    assert "MPIMETER_LAUNCHES" in done.stderr  # what is allowed
    assert not (tmp_path / "c").exists() and calls(tmp_path / "slurm.log", "srun") == []


def test_the_sbatch_example_after_a_refused_setting_does_not_advise_resume(tmp_path):
    """Exit 2 of mpimeter run: nothing was made, so `--resume` has nothing to continue."""
    bindir = install(tmp_path)
    out = tmp_path / "c"
    env = job_env("7002", tmp_path / "slurm.log", bindir, MPIMETER_OUT=str(out),
                  MPIMETER_LAUNCHES="two")
    done = subprocess.run(["bash", str(SCRIPT)], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--launches" in done.stderr and "--resume" not in done.stderr, done.stderr
    assert "submit again" in done.stderr and not out.exists()
