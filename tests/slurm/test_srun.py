# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --launcher srun` on a real Slurm cluster of two nodes: each launch a job step of
one allocation (salloc), 2 ranks on two nodes wired up by srun's MPI plugin (Open MPI through
pmix, MPICH through pmi2: docs/INSTALL.md, "Slurm"). The campaign completes; each launch's
meta.json shows two hosts, the job step and the binding srun applied; campaign.json the
allocation; and the results are of the same kind as those of the mpirun path (the same files,
columns, records and analysis rows)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mpimeter.campaign import launcher
from mpimeter.io import slurm

BENCH_DIR = launcher.default_bench_dir()
# library -> the srun MPI plugin that starts it (Debian 12's builds)
PLUGIN = {"openmpi": "pmix", "mpich": "pmi2"}
BENCH = ["--ops", "allreduce,bcast", "--sizes", "8,1024", "--nrep", "50"]
CAMPAIGN_TIMEOUT_S = 240


def mpimeter(*args: str) -> list[str]:
    return [sys.executable, "-m", "mpimeter", *args]


def launch_folders(out: Path) -> list[Path]:
    disk = json.loads((out / "campaign.json").read_text())
    assert disk["status"] == "complete", disk["status"]
    assert all(rec["status"] == "complete" for rec in disk["launches"])
    return [out / rec["folder"] for rec in disk["launches"]]


def analysis_rows(cluster, out: Path) -> list[dict]:
    done = subprocess.run(mpimeter("analyze", "--format", "json", str(out)), capture_output=True,
                          text=True, timeout=120, env=cluster.env())
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["rows"]


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_an_srun_campaign_runs_on_two_nodes_and_records_step_and_binding(cluster, mpi, tmp_path):
    if not launcher.bench_binary(BENCH_DIR, mpi).is_file():
        pytest.fail(f"no mpimeter-bench for {mpi} under {BENCH_DIR}: run `make build`")
    out = tmp_path / "srun"
    done = cluster.run("salloc", "--nodes=2", "--ntasks=2", "--time=5",
                       *mpimeter("run", "--launcher", "srun", "--mpi", mpi, "--np", "2",
                                 "--launches", "2", "--seed", "7", "--out", str(out),
                                 "--no-analyze", *BENCH),
                       env=cluster.env(SLURM_MPI_TYPE=PLUGIN[mpi], SLURM_CPU_BIND="cores"),
                       timeout=CAMPAIGN_TIMEOUT_S)
    assert done.returncode == 0, done.stdout + done.stderr
    disk = json.loads((out / "campaign.json").read_text())
    (session,) = disk["sessions"]
    allocation = session["slurm"]
    assert allocation["nodelist"] == "node[1-2]" and allocation["num_nodes"] == "2"
    assert allocation["partition"] == "test" and allocation["ntasks"] == "2"
    steps = set()
    for folder in launch_folders(out):
        meta = json.loads((folder / "meta.json").read_text())
        assert meta["nprocs"] == 2
        assert sorted(r["host"] for r in meta["ranks"]) == ["node1", "node2"]
        facts = slurm.launch_facts(meta["environment"])
        assert facts["job_id"] == allocation["job_id"]
        assert facts["nodelist"] == "node[1-2]" and facts["tasks_per_node"] == "1(x2)"
        assert facts["cpu_bind_type"] == "mask_cpu:" and facts["cpu_bind"].endswith(
            facts["cpu_bind_list"])
        steps.add(facts["step_id"])
        # srun's binding held: each rank on the one CPU its node gives jobs, not the same CPU
        cpus = [tuple(r["cpus"]) for r in meta["ranks"]]
        assert all(len(c) == 1 for c in cpus) and cpus[0] != cpus[1], cpus
        assert meta["environment"]["SLURM_MPI_TYPE"] == PLUGIN[mpi]
        # The two nodes are network namespaces of one kernel, so their ranks read one clock:
        # auto syncs none, and says why (docs/FORMAT.md, `clock_sync.chosen`).
        assert meta["clock_sync"]["chosen"] == "auto, one clock", meta["clock_sync"]
        assert meta["clock_sync"]["method"] == "none"
    assert len(steps) == 2  # one job step per launch

    # the same campaign through the library's own mpirun on this machine
    local = tmp_path / "local"
    done = subprocess.run(mpimeter("run", "--mpi", mpi, "--np", "2", "--launches", "1",
                                   "--seed", "7", "--out", str(local), "--no-analyze", *BENCH),
                          capture_output=True, text=True, timeout=CAMPAIGN_TIMEOUT_S,
                          env=cluster.env())
    assert done.returncode == 0, done.stdout + done.stderr
    (local_folder,) = launch_folders(local)
    srun_folder = launch_folders(out)[0]
    assert sorted(p.name for p in srun_folder.iterdir()) == \
        sorted(p.name for p in local_folder.iterdir())
    header = (srun_folder / "raw.csv").open().readline()
    assert header == (local_folder / "raw.csv").open().readline()
    srun_meta = json.loads((srun_folder / "meta.json").read_text())
    local_meta = json.loads((local_folder / "meta.json").read_text())
    assert srun_meta.keys() == local_meta.keys()
    srun_rows, local_rows = analysis_rows(cluster, out), analysis_rows(cluster, local)
    assert {(r["op"], r["size"]) for r in srun_rows} == {(r["op"], r["size"]) for r in local_rows}
    assert len(srun_rows) == 4 and srun_rows[0].keys() == local_rows[0].keys()
