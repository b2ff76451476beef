# SPDX-License-Identifier: BSD-3-Clause
"""Campaigns: N launches of mpimeter-bench per alternative, interleaved, with timeouts, retries,
resume and progress (Hunold & Carpen-Amarie 2016 §4.2, §5.1; SKaMPI §3.3).

    plan        the seeded, interleaved order of launches and the alternatives
    nplist      --np LIST: the process counts of a campaign (lists, ranges)
    benchopts   the bench options passed on, their defaults and validation
    benchargs   the bench arguments of a campaign as typed values (made once, argv once)
    launcher    launcher templates (local, srun, any with {np} and {cmd}) and the bench binaries
    executor    running one launch (real: subprocess in its own session, dying with us)
    procs       a launch's processes from /proc: identity, finding them again, stopping them
    fake        a fake executor for tests (no MPI)
    state       campaign.json, written atomically, read back as untrusted input
    lock        one writer per campaign folder (flock)
    limits      the bounds of every campaign-level number
    secrets     which variables are secret; redacting their values
    slurm       the Slurm job, nodes and binding a session and a launch ran with
    runner      the campaign loop: failures, retries, Ctrl-C, resume, never overwriting
    resume      what a campaign read back may run (templates, binaries, links, secrets)
    progress    rich bar on a terminal, plain lines otherwise
    spec        user request -> validated campaign record
    reproducibility   the outcome's reproducibility across trials (§5.3, Fig. 12)
"""

from mpimeter.campaign.executor import ExecResult, Executor, SubprocessExecutor
from mpimeter.campaign.fake import FakeExecutor
from mpimeter.campaign.plan import Alternative, PlanError, interleave
from mpimeter.campaign.runner import CampaignRunner, RunOutcome
from mpimeter.campaign.spec import CampaignRequest, prepare
from mpimeter.campaign.state import (CampaignFileError, CampaignState, CampaignWriteError,
                                     load, save)

__all__ = [
    "Alternative", "CampaignFileError", "CampaignRequest", "CampaignRunner", "CampaignState",
    "CampaignWriteError",
    "ExecResult", "Executor", "FakeExecutor", "PlanError", "RunOutcome", "SubprocessExecutor",
    "interleave", "load", "prepare", "save",
]
