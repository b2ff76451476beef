# SPDX-License-Identifier: BSD-3-Clause
"""No orphans: a launch dies with the `mpimeter run` that started it (parent-death signal), a
launch that outlived it anyway is stopped by `--resume` before the launch is redone, and SIGHUP
stops a campaign like SIGTERM unless the campaign was started ignoring it (nohup). A stand-in bench that sleeps and writes (no MPI)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

from data.fakebench import (alive, cli, fake_env, interruptible, kill_quietly, later_wins,  # noqa: F401
                            on_disk, start_campaign, template, wait_for_pid, wait_for_record,
                            wait_for_text, wait_until_dead)


def test_a_sigkilled_driver_takes_its_launch_with_it_and_resume_redoes_it(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    driver, bench = start_campaign(tmp, [*opts, "--launches", "1", "--out", str(out)])
    try:
        wait_for_record(out, bench)
        driver.kill()
        driver.communicate(timeout=60)
        assert wait_until_dead(bench), "the launch outlived the SIGKILLed mpimeter run"
    finally:
        kill_quietly(bench)
    disk = on_disk(out)
    first = disk["launches"][0]
    assert first["status"] == "incomplete"
    assert first["process"]["pid"] == bench  # the launch's session, recorded once it started
    assert first["process"]["session"] == bench
    result = cli(["--resume", str(out), "--launcher", template(tmp), "--no-analyze"],
                 env={"FAKE_BENCH_MODE": "ok"})
    assert result.exit_code == 0, result.output
    assert "still running" not in result.output
    assert all(x["status"] == "complete" for x in on_disk(out)["launches"])


def test_resume_stops_a_launch_that_outlived_its_driver_before_redoing_it(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    driver, orphan = start_campaign(tmp, [*opts, "--mpi", "openmpi", "--launches", "1",
                                          "--out", str(out)], mode="orphan")
    terms = tmp / "bench.pid.terms"
    try:
        wait_for_record(out, orphan)
        driver.kill()
        driver.communicate(timeout=60)
        # the parent-death signal reached it (once per thread of the driver), and it ignored it
        assert wait_for_text(terms).split()[:2] == ["TERM", str(driver.pid)]
        assert alive(orphan)
        # a copy of its campaign.json elsewhere (a forged one) does not reach it
        shutil.copytree(out, tmp / "copy", ignore=shutil.ignore_patterns("launches"))
        copy = cli(["--resume", str(tmp / "copy"), "--launcher", template(tmp), "--no-analyze"],
                   env={"FAKE_BENCH_MODE": "ok"})
        assert copy.exit_code == 0 and "still running" not in copy.output, copy.output
        assert alive(orphan)
        result = cli(["--resume", str(out), "--launcher", template(tmp), "--no-analyze"],
                     env={"FAKE_BENCH_MODE": "ok"})
        assert result.exit_code == 0, result.output
        assert not alive(orphan)
    finally:
        kill_quietly(orphan)
    senders = [line.split()[1] for line in terms.read_text().splitlines()]
    assert set(senders[:-1]) == {str(driver.pid)}
    assert senders[-1] == str(os.getpid())  # resume's SIGTERM ended it, no SIGKILL needed
    said = [line for line in result.output.splitlines() if "still running" in line]
    assert len(said) == 1 and f"pid {orphan}" in said[0] and "stopped" in said[0], result.output
    disk = on_disk(out)
    rec = disk["launches"][0]
    assert rec["status"] == "complete" and rec["attempts"] == 2
    assert json.loads((out / rec["folder"] / "meta.json").read_text())["status"] == "complete"
    assert "orphan_wrote" in json.loads((out / "attempts" / "000.1" / "meta.json").read_text())


def test_sighup_stops_the_campaign_cleanly(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    driver, bench = start_campaign(tmp, [*opts, "--launches", "2", "--out", str(out)])
    try:
        driver.send_signal(signal.SIGHUP)
        output, _ = driver.communicate(timeout=60)
        assert wait_until_dead(bench)
    finally:
        kill_quietly(bench)
    assert driver.returncode == 130, output
    disk = on_disk(out)
    assert disk["status"] == "interrupted"
    assert disk["launches"][0]["reason"] == "interrupted (Ctrl-C, SIGTERM or SIGHUP)"


def _nohup() -> None:
    interruptible()
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as `nohup mpimeter run ...` starts it


def test_a_campaign_under_nohup_outlives_a_hangup(fake_env):
    """Started ignoring SIGHUP (nohup), a campaign keeps running through one, while it starts
    a launch and while the launch runs; SIGTERM still stops it."""
    tmp, opts = fake_env
    out = tmp / "c"
    pidfile = tmp / "bench.pid"
    driver = subprocess.Popen([sys.executable, "-m", "mpimeter", "run",
                               *later_wins([*opts, "--launches", "2", "--out", str(out)])],
                              env={**os.environ, "FAKE_BENCH_MODE": "sleep", "FAKE_BENCH_PIDFILE": str(pidfile)},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=_nohup)
    bench = wait_for_pid(pidfile)
    try:
        driver.send_signal(signal.SIGHUP)
        time.sleep(2)  # a hangup it obeyed would have stopped the launch and ended the driver by now
        assert driver.poll() is None and alive(bench)
        driver.send_signal(signal.SIGTERM)
        output, _ = driver.communicate(timeout=60)
        assert wait_until_dead(bench)
    finally:
        kill_quietly(bench)
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 130, output
    assert on_disk(out)["status"] == "interrupted"


def test_the_executor_reports_the_launch_session_as_it_starts(tmp_path):
    from mpimeter.campaign.executor import SubprocessExecutor

    seen = []
    result = SubprocessExecutor(grace_s=1).run(
        ["sh", "-c", "echo $$ > " + str(tmp_path / "pid")], env=dict(os.environ), timeout_s=30,
        stdout_path=tmp_path / "o", stderr_path=tmp_path / "e", on_start=seen.append)
    assert result.exit_code == 0
    pid = int((tmp_path / "pid").read_text())
    assert len(seen) == 1 and seen[0]["pid"] == seen[0]["session"] == pid
    assert seen[0]["start_ticks"] > 0 and seen[0]["host"] and seen[0]["boot_id"]
