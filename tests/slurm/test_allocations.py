# SPDX-License-Identifier: BSD-3-Clause
"""A campaign spread over three Slurm allocations held at once (docs/SLURM.md, "Allocations"):
three `salloc --no-shell` jobs, and `mpimeter run` on the login host with the launcher
examples/slurm/srun-over-allocations, which runs launch NNN as a job step of job NNN mod 3.
Each launch's meta.json shows the job it ran in (its ranks' SLURM_JOB_ID) on both nodes, each job
ran the same number of launches, interleaved in time; `analyze` reports the variance between the
allocations beside the one between launches for every row, and the report's provenance names
each launch's job and step. The test cluster's partition lets jobs share its nodes' CPUs
(scripts/slurm-test-cluster), so that three allocations of both nodes run at once."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mpimeter.campaign import launcher

REPO = Path(__file__).resolve().parents[2]
WRAPPER = REPO / "examples" / "slurm" / "srun-over-allocations"
MPI, PLUGIN = "mpich", "pmi2"
BENCH = ["--ops", "allreduce", "--sizes", "8,1024", "--nrep", "30"]
CAMPAIGN_TIMEOUT_S = 300


def hold_allocation(cluster) -> str:
    done = cluster.run("salloc", "--no-shell", "--job-name=mpimeter-alloc", "--nodes=2", "--ntasks=2",
                       "--time=10", timeout=60)
    assert done.returncode == 0, done.stderr
    found = re.search(r"Granted job allocation (\d+)", done.stderr)
    assert found, done.stderr
    return found.group(1)


def test_a_campaign_over_three_allocations_records_and_analyses_each(cluster, tmp_path):
    if not launcher.bench_binary(launcher.default_bench_dir(), MPI).is_file():
        pytest.fail(f"no mpimeter-bench for {MPI}: run `make build`")
    jobs: list[str] = []
    try:
        jobs = [hold_allocation(cluster) for _ in range(3)]
        out = tmp_path / "spread"
        template = f"{WRAPPER} {','.join(jobs)} {{np}} {{cmd}}"
        done = cluster.run(sys.executable, "-m", "mpimeter", "run", "--launcher", template, "--mpi", MPI,
                           "--np", "2", "--launches", "6", "--seed", "5", "--out", str(out), *BENCH,
                           env=cluster.env(SLURM_MPI_TYPE=PLUGIN, COLUMNS="200"), timeout=CAMPAIGN_TIMEOUT_S)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "between Slurm allocations and between launches" in done.stdout, done.stdout
    finally:
        if jobs:
            cluster.run("scancel", *jobs, timeout=30)
    disk = json.loads((out / "campaign.json").read_text())
    assert disk["status"] == "complete" and len(disk["launches"]) == 6
    in_order = []  # the job of each launch, in the order they ran
    for rec in sorted(disk["launches"], key=lambda r: r["started"]):
        meta = json.loads((out / rec["folder"] / "meta.json").read_text())
        job = meta["environment"]["SLURM_JOB_ID"]
        assert job == jobs[rec["index"] % 3], (rec["folder"], job, jobs)
        assert sorted(r["host"] for r in meta["ranks"]) == ["node1", "node2"]
        assert meta["environment"]["SLURM_STEP_NODELIST"] == "node[1-2]"
        in_order.append(job)
    assert sorted(in_order) == sorted(jobs * 2)  # two launches in each allocation
    changes = sum(a != b for a, b in zip(in_order, in_order[1:]))
    assert changes >= 3, in_order  # interleaved: not one allocation's launches, then the next's

    done = subprocess.run([sys.executable, "-m", "mpimeter", "analyze", "--format", "json", str(out)],
                          capture_output=True, text=True, timeout=120, env=cluster.env())
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["allocations"]) == len(result["rows"]) == 2
    for row in result["allocations"]:
        assert row["allocations"] == [f"{job} on node[1-2]" for job in jobs]
        assert row["launches"] == [2, 2, 2]
        assert row["between_launches_ns2"] > 0 and 0 <= row["p_value"] <= 1
    report = (out / "report.html").read_text()
    slurm_part = report[report.index('id="prov-slurm"'):]
    slurm_part = slurm_part[:slurm_part.find("<h3", 1) % (len(slurm_part) + 1)]
    # the provenance's Slurm table: per launch (alternative, launch, job, step, ...)
    shown = dict(re.findall(r"<tr><td>[^<]*</td><td>(\d{3})</td><td>(\d+)</td>", slurm_part))
    assert shown == {f"{i:03d}": jobs[i % 3] for i in range(6)}, slurm_part
