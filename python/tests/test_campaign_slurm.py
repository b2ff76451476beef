# SPDX-License-Identifier: BSD-3-Clause
"""The Slurm facts of a session (campaign.json `sessions[].slurm`) and of a launch (meta.json's
environment), and campaign.json files written before them. No Slurm needed: the environment is
given."""

import json
import os

import pytest

from mpimeter.campaign import FakeExecutor, spec
from mpimeter.io import slurm
from mpimeter.campaign import state as st
from mpimeter.campaign.benchargs import BenchArgs
from mpimeter.campaign.launch_record import LaunchRecord
from mpimeter.campaign.plan import PlanError
from mpimeter.campaign.runner import CampaignRunner

JOB = {"SLURM_JOB_ID": "4242", "SLURM_JOB_NODELIST": "node[01-02]", "SLURM_JOB_NUM_NODES": "2",
       "SLURM_NTASKS": "4", "SLURM_TASKS_PER_NODE": "2(x2)", "SLURM_CPU_BIND": "cores",
       "SLURM_RESTART_COUNT": "1", "HOME": "/root", "SLURM_JOB_PARTITION": ""}


def test_outside_slurm_there_is_no_allocation():
    assert slurm.allocation({"HOME": "/root", "SLURM_JOB_NODELIST": "n1"}) is None
    assert slurm.launch_facts({}) is None


def test_the_allocation_keeps_what_slurm_set_as_it_spelled_it():
    assert slurm.allocation(JOB) == {
        "job_id": "4242", "nodelist": "node[01-02]", "num_nodes": "2", "ntasks": "4",
        "tasks_per_node": "2(x2)", "cpu_bind": "cores", "restart_count": "1"}  # empty: not set


def test_older_spellings_are_read_when_the_new_ones_are_missing():
    got = slurm.allocation({"SLURM_JOBID": "7", "SLURM_NODELIST": "a,b", "SLURM_NNODES": "2"})
    assert got == {"job_id": "7", "nodelist": "a,b", "num_nodes": "2"}


def test_a_launch_says_its_step_and_binding():
    env = {"SLURM_JOB_ID": "9", "SLURM_STEP_ID": "3", "SLURM_JOB_NODELIST": "n[1-4]",
           "SLURM_STEP_NODELIST": "n[1-2]", "SLURM_CPU_BIND_TYPE": "mask_cpu:",
           "SLURM_CPU_BIND_LIST": "0x1,0x2", "OMPI_MCA_x": "1"}
    assert slurm.launch_facts(env) == {"job_id": "9", "step_id": "3", "nodelist": "n[1-2]",
                                       "cpu_bind_type": "mask_cpu:", "cpu_bind_list": "0x1,0x2"}


def test_a_record_read_back_keeps_known_string_values_only():
    assert slurm.from_mapping({"job_id": "1", "nodelist": 3, "evil": "x"}) == {"job_id": "1"}
    assert slurm.from_mapping({"nodelist": "n1"}) is None
    assert slurm.from_mapping("4242") is None
    assert len(slurm.from_mapping({"job_id": "x" * 10**5})["job_id"]) == slurm.MAX_VALUE_CHARS


def _state(tmp_path):
    from mpimeter.campaign.plan import Alternative
    alt = Alternative("openmpi", "openmpi", {})
    launches = [LaunchRecord(alternative="openmpi", index=i, folder=f"launches/{i:03d}", seed=i) for i in range(2)]
    return st.CampaignState(
        command="mpimeter run", bench_args=BenchArgs.parse(["--ops", "bcast"]), launcher="srun", np=2,
        launches_per_alternative=2, seed=1, alternatives=[alt],
        launch_templates={"openmpi": "srun -n {np} {cmd}"}, bench_binaries={"openmpi": "/b"},
        launch_timeout_s=60.0, launches=launches)


def test_each_session_and_attempt_records_its_job_and_reads_back(tmp_path):
    state = _state(tmp_path)
    runner = CampaignRunner(state, tmp_path, FakeExecutor(), base_env=JOB)
    assert runner.run().status == "complete"
    disk = json.loads((tmp_path / "campaign.json").read_text())
    assert disk["sessions"][0]["slurm"]["job_id"] == "4242"
    assert disk["sessions"][0]["slurm"]["cpu_bind"] == "cores"
    assert [x["slurm_job"] for x in disk["launches"]] == ["4242", "4242"]
    assert [x["slurm_job"] for x in disk["history"]] == ["4242", "4242"]
    back = st.load(tmp_path)
    assert back.sessions[0]["slurm"]["nodelist"] == "node[01-02]"
    assert back.launches[0].slurm_job == "4242"


def test_a_campaign_outside_slurm_and_an_old_file_have_no_slurm_keys(tmp_path):
    state = _state(tmp_path)
    CampaignRunner(state, tmp_path, FakeExecutor(), base_env={"HOME": "/root"}).run()
    disk = json.loads((tmp_path / "campaign.json").read_text())
    assert "slurm" not in disk["sessions"][0]
    assert all("slurm_job" not in h for h in disk["history"])
    for rec in disk["launches"]:  # a file written before the keys existed
        del rec["slurm_job"]
    (tmp_path / "campaign.json").write_text(json.dumps(disk))
    assert [r.slurm_job for r in st.load(tmp_path).launches] == [None, None]


def test_without_np_an_srun_launch_has_the_allocations_tasks_not_this_machines_cores(monkeypatch):
    """salloc runs mpimeter on the login node: its cores say nothing of the allocation, whose
    tasks srun starts; a launch of more ranks failed every time, of fewer measured less."""
    cores = max(2, len(os.sched_getaffinity(0)))
    monkeypatch.setenv("SLURM_JOB_ID", "4242")
    monkeypatch.setenv("SLURM_NTASKS", str(cores + 5))
    np, note = spec.default_np("srun")
    assert np == cores + 5 and "SLURM_NTASKS" in note
    assert spec.default_np("srun --mpi=pmix -n {np} {cmd}")[0] == cores + 5  # srun's template too
    assert spec.default_np("local") == (cores, "")  # mpirun starts them on this machine
    monkeypatch.setenv("SLURM_NTASKS", "1")
    with pytest.raises(PlanError, match="allocation has 1 task"):
        spec.default_np("srun")
    monkeypatch.delenv("SLURM_JOB_ID")  # outside an allocation: this machine's cores
    assert spec.default_np("srun") == (cores, "")


def test_srun_outside_an_allocation_is_said_to_allocate_a_job_per_launch(monkeypatch):
    """Outside salloc/sbatch each `srun -n N` is a job of its own: not the one allocation the
    how-to describes, and it said nothing."""
    for name in [k for k in os.environ if k.startswith("SLURM_")]:
        monkeypatch.delenv(name)
    assert "allocates a job for each launch" in spec.outside_allocation_note("srun")
    assert "allocates a job" in spec.outside_allocation_note("/usr/bin/srun -n {np} {cmd}")
    assert spec.outside_allocation_note("examples/slurm/srun-over-allocations 1,2 {np} {cmd}") == ""
    assert spec.outside_allocation_note("local") == ""
    monkeypatch.setenv("SLURM_JOB_ID", "4242")
    assert spec.outside_allocation_note("srun") == ""
