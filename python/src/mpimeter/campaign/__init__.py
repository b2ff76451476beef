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
    launch_record    one launch's entry of campaign.json: its record, its folder, read back
    record_reader    typed access to a parsed campaign.json, each failure naming the key
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

# Imported when first asked for (module __getattr__): the runner loads scipy and the fake executor
# pyarrow, which `mpimeter SUBCOMMAND --help` must not wait for.
def _executor():
    from mpimeter.campaign import executor
    return executor


def _fake():
    from mpimeter.campaign import fake
    return fake


def _plan():
    from mpimeter.campaign import plan
    return plan


def _runner():
    from mpimeter.campaign import runner
    return runner


def _spec():
    from mpimeter.campaign import spec
    return spec


def _state():
    from mpimeter.campaign import state
    return state


_LAZY = {
    **dict.fromkeys(("ExecResult", "Executor", "SubprocessExecutor"), _executor),
    "FakeExecutor": _fake,
    **dict.fromkeys(("Alternative", "PlanError", "interleave"), _plan),
    **dict.fromkeys(("CampaignRunner", "RunOutcome"), _runner),
    **dict.fromkeys(("CampaignRequest", "prepare"), _spec),
    **dict.fromkeys(("CampaignFileError", "CampaignState", "CampaignWriteError", "load", "save"), _state),
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(_LAZY[name](), name)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "Alternative", "CampaignFileError", "CampaignRequest", "CampaignRunner", "CampaignState",
    "CampaignWriteError",
    "ExecResult", "Executor", "FakeExecutor", "PlanError", "RunOutcome", "SubprocessExecutor",
    "interleave", "load", "prepare", "save",
]
