# SPDX-License-Identifier: BSD-3-Clause
"""One writer per campaign folder: `mpimeter run`, `run --resume` and `reproducibility --trials`
hold an exclusive lock on the folder; a second writer is refused in one line that names the
holder (pid, host). Real concurrent processes with a stand-in bench (no MPI)."""

import json
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest
from data.fakebench import (PATIENCE_S, cli, fake_env, kill_quietly, on_disk,  # noqa: F401
                            one_line_error, start, start_campaign, template, wait_for_pid,
                            wait_for_record)

from mpimeter.campaign import lock


def stop(proc: subprocess.Popen) -> str:
    """Ctrl-C to a running `mpimeter run`; its output."""
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=PATIENCE_S)
    return out


def test_the_lock_is_exclusive_between_processes_and_names_its_holder(tmp_path):
    folder = tmp_path / "c"
    with lock.CampaignLock.acquire(folder, create=True):
        code = textwrap.dedent(f"""
            from pathlib import Path
            from mpimeter.campaign import lock
            try:
                lock.CampaignLock.acquire(Path({str(folder)!r}))
            except lock.CampaignLocked as exc:
                print(exc)
            else:
                print("acquired")
        """)
        said = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=PATIENCE_S).stdout.strip()
        assert said.startswith(f"{folder} is in use by another mpimeter")
        assert f"pid {__import__('os').getpid()} on {socket.gethostname()}" in said
    # released: the next one gets it
    with lock.CampaignLock.acquire(folder):
        pass


def test_a_second_run_into_the_same_out_and_a_resume_are_refused_while_it_runs(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    first, bench = start_campaign(tmp, [*opts, "--launches", "2", "--out", str(out)])
    try:
        wait_for_record(out, bench)  # the record the refused runs must leave as it is
        before = (out / "campaign.json").read_text()
        holder = f"pid {first.pid} on {socket.gethostname()}"
        second = cli([*opts, "--launches", "2", "--out", str(out)], env={"FAKE_BENCH_MODE": "ok"})
        assert holder in one_line_error(second)
        resume = cli(["--resume", str(out), "--launcher", template(tmp), "--no-analyze"],
                     env={"FAKE_BENCH_MODE": "ok"})
        assert holder in one_line_error(resume)
        assert (out / "campaign.json").read_text() == before  # still the first one's record
    finally:
        output = stop(first)
        kill_quietly(bench)
    assert first.returncode == 130, output
    disk = on_disk(out)
    assert [s["pid"] for s in disk["sessions"]] == [first.pid]
    assert not list(out.glob("*/attempts"))


def test_two_runs_started_together_one_runs_the_other_names_it(fake_env):
    tmp, opts = fake_env
    out, pidfile = tmp / "c", tmp / "bench.pid"
    env = {"FAKE_BENCH_MODE": "sleep", "FAKE_BENCH_PIDFILE": str(pidfile)}
    procs = [start([*opts, "--launches", "1", "--out", str(out)], env) for _ in range(2)]
    try:
        bench = wait_for_pid(pidfile)
        deadline = time.monotonic() + PATIENCE_S
        while all(p.poll() is None for p in procs) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        outputs = {p.pid: stop(p) if p.poll() is None else p.communicate()[0] for p in procs}
        kill_quietly(bench)
    losers = [p for p in procs if p.returncode == 2]
    assert len(losers) == 1, outputs
    winner = next(p for p in procs if p is not losers[0])
    lost = outputs[losers[0].pid].strip().splitlines()
    assert len(lost) == 1 and lost[0].startswith("mpimeter run: error: "), lost
    assert f"pid {winner.pid} on {socket.gethostname()}" in lost[0]
    assert [s["pid"] for s in on_disk(out)["sessions"]] == [winner.pid]


def test_a_trial_of_reproducibility_is_locked_while_it_runs(fake_env):
    tmp, opts = fake_env
    out = tmp / "r"
    opts = [o for o in opts if o != "--no-analyze"]
    proc, bench = start_campaign(tmp, [*opts, "--mpi", "openmpi", "--trials", "2", "--launches",
                                       "1", "--out", str(out)], command="reproducibility")
    try:
        resume = cli(["--resume", str(out / "trial-00"), "--launcher", template(tmp),
                      "--no-analyze"], env={"FAKE_BENCH_MODE": "ok"})
        assert f"pid {proc.pid} on " in one_line_error(resume)
        again = cli([*opts, "--mpi", "openmpi", "--trials", "2", "--launches", "1",
                     "--out", str(out)], env={"FAKE_BENCH_MODE": "ok"}, command="reproducibility")
        assert f"pid {proc.pid} on " in one_line_error(again, "reproducibility")
    finally:
        stop(proc)
        kill_quietly(bench)
    assert json.loads((out / "trial-00" / "campaign.json").read_text())["launches"][0][
        "status"] == "incomplete"


@pytest.mark.parametrize("content", ["file", "dir"])
def test_a_non_empty_out_without_a_lock_file_is_left_untouched(fake_env, content):
    tmp, opts = fake_env
    out = tmp / "c"
    out.mkdir()
    (out / "x").mkdir() if content == "dir" else (out / "x").write_text("")
    assert "exists and is not empty" in one_line_error(cli([*opts, "--out", str(out)]))
    assert [p.name for p in out.iterdir()] == ["x"]
