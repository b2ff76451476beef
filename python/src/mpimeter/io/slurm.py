# SPDX-License-Identifier: BSD-3-Clause
"""The Slurm allocation a campaign runs in, from the environment Slurm gives a batch job.

Why: a campaign's launches are comparable only when they ran temporally close, on the same nodes,
with the same pinning (Hunold & Carpen-Amarie 2016, §7). A campaign resumed after a job's time
limit runs in several jobs, possibly on other nodes: each `mpimeter run` session records the job
it ran in (campaign.json `sessions[].slurm`) and each launch the job id of its attempt
(`launches[].slurm_job`), so that the analysis can tell launches of different allocations apart.
What srun did inside one launch (the binding it applied, the step) is what the ranks see: rank 0
records it in meta.json `environment` (SLURM_*), and `launch_facts` reads it back from there.

The values are taken as Slurm spells them (a node list stays compressed: `node[01-04]`); they are
facts for people, never parsed into decisions. Values read back from a file are untrusted:
`from_mapping` keeps only known keys with string values of bounded length.
"""

from __future__ import annotations

from collections.abc import Mapping

# key in the record -> the variables that give it, first found wins (older Slurm spells some
# without the underscore). SLURM_CPU_BIND is srun's input (set in a batch script or by
# `sbatch --cpu-bind`); SLURM_CPU_BIND_TYPE/LIST are what srun sets in each task it binds.
ALLOCATION_VARS: dict[str, tuple[str, ...]] = {
    "job_id": ("SLURM_JOB_ID", "SLURM_JOBID"),
    "job_name": ("SLURM_JOB_NAME",),
    "cluster": ("SLURM_CLUSTER_NAME",),
    "partition": ("SLURM_JOB_PARTITION",),
    "nodelist": ("SLURM_JOB_NODELIST", "SLURM_NODELIST"),
    "num_nodes": ("SLURM_JOB_NUM_NODES", "SLURM_NNODES"),
    "ntasks": ("SLURM_NTASKS", "SLURM_NPROCS"),
    "tasks_per_node": ("SLURM_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE"),
    "cpus_on_node": ("SLURM_CPUS_ON_NODE",),
    "cpu_bind": ("SLURM_CPU_BIND",),
    "cpu_bind_type": ("SLURM_CPU_BIND_TYPE",),
    "cpu_bind_list": ("SLURM_CPU_BIND_LIST",),
    "distribution": ("SLURM_DISTRIBUTION",),
    "restart_count": ("SLURM_RESTART_COUNT",),
}
# Of a launch (rank 0's environment in meta.json): the job step srun made and its binding.
LAUNCH_VARS: dict[str, tuple[str, ...]] = {
    "job_id": ("SLURM_JOB_ID", "SLURM_JOBID"),
    "step_id": ("SLURM_STEP_ID", "SLURM_STEPID"),
    "nodelist": ("SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"),
    "tasks_per_node": ("SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"),
    "cpu_bind": ("SLURM_CPU_BIND",),
    "cpu_bind_type": ("SLURM_CPU_BIND_TYPE",),
    "cpu_bind_list": ("SLURM_CPU_BIND_LIST",),
}
MAX_VALUE_CHARS = 4096  # a node list of thousands of nodes stays compressed well below this


def _pick(environ: Mapping[str, str], table: dict[str, tuple[str, ...]]) -> dict[str, str] | None:
    """The table's keys with the first variable found of each; None outside Slurm (no job id)."""
    facts = {}
    for key, names in table.items():
        for name in names:
            value = environ.get(name)
            if isinstance(value, str) and value != "":
                facts[key] = value[:MAX_VALUE_CHARS]
                break
    return facts if "job_id" in facts else None


def allocation(environ: Mapping[str, str]) -> dict[str, str] | None:
    """The allocation `mpimeter run` runs in, or None when it does not run inside Slurm."""
    return _pick(environ, ALLOCATION_VARS)


def launch_facts(environment: Mapping[str, str]) -> dict[str, str] | None:
    """Job, step, nodes and binding of one launch from meta.json's `environment` (rank 0's)."""
    return _pick(environment, LAUNCH_VARS)


def from_mapping(value: object) -> dict[str, str] | None:
    """A `slurm` record read back from a file: known keys with string values, else None."""
    if not isinstance(value, Mapping):
        return None
    kept = {k: v[:MAX_VALUE_CHARS] for k, v in value.items()
            if k in ALLOCATION_VARS and isinstance(v, str)}
    return kept if isinstance(kept.get("job_id"), str) else None
