# SPDX-License-Identifier: BSD-3-Clause
"""examples/slurm/mpimeter-campaign.sbatch submitted with sbatch to a real Slurm cluster.

- Time limit with warning: the first job runs with the shortest limit Slurm takes (1 minute) and
  `--signal=B:TERM@30`; Slurm signals the batch shell while a launch runs, the campaign stops
  cleanly, the script submits itself again (`--dependency=afterany`, found through `scontrol show
  job`), and the next job resumes and completes it.
- Killed without warning: SIGKILL from Slurm (`scancel --signal=KILL --batch --full`) to the
  batch shell and its children while a launch runs (the job ends, and its steps with it) leaves
  a campaign that the script, submitted again, resumes.
Either way every launch completes once (the count is exact) and campaign.json records both jobs.

The script is submitted as a copy edited for this cluster, as its README asks: each test node
gives jobs one CPU (scripts/slurm-test-cluster), so one task per node. One library, MPICH through
srun's pmi2: no plugin of srun starts both libraries (docs/INSTALL.md, "Slurm")."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from mpimeter.campaign import launcher

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python" / "tests"))
from data.fakeslurm import processes_of  # noqa: E402

SCRIPT = REPO / "examples" / "slurm" / "mpimeter-campaign.sbatch"
MPI, PLUGIN = "mpich", "pmi2"
# Launches of a few seconds whatever the machine's load (the delay operation busy-waits 50 ms
# per repetition): 10 take more than 35 s, and Slurm sends the first job's signal within its
# first 30 s (it checks time limits every 30 s and warns early by up to that; 23 to 27 s in
# here). Few rows, and no analysis in the jobs (MPIMETER_RUN_ARGS), keep the test short.
BENCH = "--ops delay --sizes 50000000 --nrep 60 --clocksync none --procsync barrier"
EXIT_INTERRUPTED = 130
JOBS_TIMEOUT_S = 300


@pytest.fixture
def script(tmp_path) -> Path:
    """The example, its #SBATCH lines edited for the test cluster (one task per node)."""
    text = SCRIPT.read_text()
    assert "#SBATCH --ntasks-per-node=2\n" in text
    copy = tmp_path / "mpimeter-campaign.sbatch"
    copy.write_text(text.replace("#SBATCH --ntasks-per-node=2\n", "#SBATCH --ntasks-per-node=1\n"))
    return copy


def settings(cluster, out: Path, launches: int) -> dict[str, str]:
    if not launcher.bench_binary(launcher.default_bench_dir(), MPI).is_file():
        pytest.fail(f"no mpimeter-bench for {MPI}: run `make build`")
    return cluster.env(MPIMETER=str(Path(sys.executable).with_name("mpimeter")),
                       MPIMETER_OUT=str(out), MPIMETER_MPI=MPI, MPIMETER_LAUNCHES=str(launches),
                       MPIMETER_BENCH_ARGS=BENCH, MPIMETER_RUN_ARGS="--no-analyze",
                       MPIMETER_MAX_JOBS="3", SLURM_MPI_TYPE=PLUGIN)


def submit(cluster, env, cwd: Path, *options: str) -> str:
    done = cluster.run("sbatch", "--parsable", *options, str(cwd / "mpimeter-campaign.sbatch"),
                       env=env, cwd=cwd, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().split(";")[0]


def job(cluster, job_id: str) -> dict[str, str]:
    """scontrol's record of a job (finished ones stay for MinJobAge)."""
    done = cluster.run("scontrol", "show", "job", "-o", job_id, timeout=30)
    assert done.returncode == 0, done.stderr
    return dict(word.split("=", 1) for word in done.stdout.split() if "=" in word)


def wait_until_no_jobs(cluster) -> None:
    deadline = time.monotonic() + JOBS_TIMEOUT_S
    while time.monotonic() < deadline:
        done = cluster.run("squeue", "-h", "-o", "%i %T", timeout=30)
        assert done.returncode == 0, done.stderr
        if not done.stdout.strip():
            return
        time.sleep(2)
    raise AssertionError(f"jobs still queued or running after {JOBS_TIMEOUT_S} s: {done.stdout}")


def wait_for_launch_in_flight(out: Path, cluster, job_id: str) -> None:
    """Until a second launch has started (one done, one running). A guard, not a check."""
    deadline = time.monotonic() + JOBS_TIMEOUT_S
    while time.monotonic() < deadline:
        if len(list(out.glob("launches/*/meta.json"))) >= 2:
            return
        assert job(cluster, job_id)["JobState"] in ("PENDING", "RUNNING"), job(cluster, job_id)
        time.sleep(0.2)
    raise AssertionError(f"no second launch of {out} started within {JOBS_TIMEOUT_S} s")


def check_complete_once(out: Path, launches: int, jobs: list[str]) -> dict:
    """Complete, each launch once, in the folders the plan gave it, run by these jobs."""
    disk = json.loads((out / "campaign.json").read_text())
    assert disk["status"] == "complete"
    assert len(disk["launches"]) == launches
    assert all(rec["status"] == "complete" for rec in disk["launches"])
    folders = sorted(rec["folder"] for rec in disk["launches"])
    assert len(set(folders)) == launches
    assert sorted(f"launches/{p.name}" for p in (out / "launches").iterdir()) == folders
    assert [s["slurm"]["job_id"] for s in disk["sessions"]] == jobs
    for session in disk["sessions"]:
        assert session["slurm"]["nodelist"] == "node[1-2]"
    for rec in disk["launches"]:
        meta = json.loads((out / rec["folder"] / "meta.json").read_text())
        assert meta["status"] == "complete"
        assert sorted(r["host"] for r in meta["ranks"]) == ["node1", "node2"]
        assert meta["environment"]["SLURM_JOB_ID"] == rec["slurm_job"]
    ran_in = {rec["slurm_job"] for rec in disk["launches"]}
    assert ran_in <= set(jobs) and jobs[-1] in ran_in, ran_in  # the last job measured the rest
    return disk


def test_the_time_limit_warning_stops_the_job_which_resubmits_itself_and_the_next_resumes(
        cluster, script, tmp_path):
    out, launches = tmp_path / "c", 10
    env = settings(cluster, out, launches)
    # the shortest limit Slurm takes; the signal 30 s before it (the next job: the script's own)
    first = submit(cluster, env, tmp_path, "--time=1", "--signal=B:TERM@30")
    wait_until_no_jobs(cluster)
    record = job(cluster, first)
    assert record["ExitCode"] == f"{EXIT_INTERRUPTED}:0", record  # stopped by the signal
    log = (tmp_path / f"mpimeter-{first}.out").read_text()
    assert "SIGTERM (time limit near): stopping the campaign" in log, log
    assert "campaign interrupted in" in log, log
    assert "submitted the next job, which resumes" in log, log
    second = str(int(first) + 1)
    record = job(cluster, second)
    assert record["JobState"] == "COMPLETED" and record["ExitCode"] == "0:0", record
    assert record["Command"] == str(script)  # found through scontrol, submitted again
    log = (tmp_path / f"mpimeter-{second}.out").read_text()
    assert f"resuming {out}" in log and "(job " + second + ", 2/3)" in log, log
    disk = check_complete_once(out, launches, [first, second])
    redone = [rec for rec in disk["launches"] if rec["attempts"] > 1]
    assert len(redone) <= 1  # at most the launch the signal stopped ran again
    assert all(rec["slurm_job"] == second for rec in redone)
    assert processes_of(out) == []


def test_a_job_killed_without_warning_leaves_a_campaign_the_next_job_resumes(
        cluster, script, tmp_path):
    out, launches = tmp_path / "c", 4
    env = settings(cluster, out, launches)
    first = submit(cluster, env, tmp_path)
    wait_for_launch_in_flight(out, cluster, first)
    # SIGKILL to the batch shell and its children (mpimeter run, srun). Not a plain scancel, nor
    # the time limit: those send SIGTERM first and SIGKILL only after KillWait (at least 5 s
    # with Slurm 22.05), time enough to stop cleanly, which the other test covers.
    done = cluster.run("scancel", "--signal=KILL", "--batch", "--full", first, timeout=30)
    assert done.returncode == 0, done.stderr
    wait_until_no_jobs(cluster)
    record = job(cluster, first)
    assert record["JobState"] == "FAILED" and record["ExitCode"] == "0:9", record  # SIGKILL
    assert processes_of(out) == []  # Slurm ended every process of the job, ranks too
    disk = json.loads((out / "campaign.json").read_text())
    assert disk["status"] != "complete"
    assert any(rec["status"] != "complete" for rec in disk["launches"])
    log = (tmp_path / f"mpimeter-{first}.out").read_text()
    assert "submitted the next job" not in log  # killed: no chance to resubmit

    second = submit(cluster, env, tmp_path)  # by hand, as the README says
    wait_until_no_jobs(cluster)
    record = job(cluster, second)
    assert record["JobState"] == "COMPLETED" and record["ExitCode"] == "0:0", record
    assert f"resuming {out}" in (tmp_path / f"mpimeter-{second}.out").read_text()
    disk = check_complete_once(out, launches, [first, second])
    assert first in {rec["slurm_job"] for rec in disk["launches"]}  # killed after one completed
