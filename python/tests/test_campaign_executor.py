# SPDX-License-Identifier: BSD-3-Clause
"""The real executor with real (non-MPI) processes: exit codes, stderr tail, timeouts that stop a
whole process tree, and a SIGINT (Ctrl-C) that stops the running launch."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from data.fakebench import interruptible

from mpimeter.campaign.executor import SubprocessExecutor


def run(argv, tmp_path, timeout_s=10.0, grace_s=2.0):
    return SubprocessExecutor(grace_s=grace_s).run(
        argv, env=dict(os.environ), timeout_s=timeout_s,
        stdout_path=tmp_path / "out.txt", stderr_path=tmp_path / "err.txt")


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def wait_for_file(path: Path, timeout_s=300.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


def test_exit_code_stdout_and_stderr_tail(tmp_path):
    script = "for i in $(seq 1 50); do echo line$i >&2; done; echo hello; exit 3"
    result = run(["sh", "-c", script], tmp_path)
    assert result.exit_code == 3 and not result.timed_out
    assert result.stderr_tail.splitlines() == [f"line{i}" for i in range(31, 51)]
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    assert (tmp_path / "err.txt").read_text().count("line") == 50


def test_a_missing_program_is_exit_127_with_a_message(tmp_path):
    result = run(["/nonexistent/mpirun", "-np", "2"], tmp_path)
    assert result.exit_code == 127
    assert "cannot start /nonexistent/mpirun" in result.stderr_tail


def test_killed_by_a_signal(tmp_path):
    result = run(["sh", "-c", "kill -9 $$"], tmp_path)
    assert result.exit_code == -9 and result.signal_name == "SIGKILL"


def test_timeout_terminates_the_whole_process_tree(tmp_path):
    pids = tmp_path / "pids"
    # a child in its own process group, as an MPI launcher's ranks may be
    script = (f"setsid sleep 60 & echo $! > {pids}; sleep 60 & echo $! >> {pids}; "
              "echo started >&2; wait")
    t0 = time.monotonic()
    result = run(["sh", "-c", script], tmp_path, timeout_s=1.0)
    assert result.timed_out and result.exit_code is None
    assert time.monotonic() - t0 < 30  # stopped, long before the sleeps end (a busy machine is slow)
    assert result.stderr_tail == "started"
    children = [int(p) for p in pids.read_text().split()]
    assert len(children) == 2
    time.sleep(0.2)
    assert not any(alive(p) for p in children)


def test_sigterm_ignored_then_killed_after_the_grace_period(tmp_path):
    t0 = time.monotonic()
    result = run(["sh", "-c", "trap '' TERM; sleep 60 & wait; sleep 60"], tmp_path,
                 timeout_s=0.5, grace_s=1.0)
    assert result.timed_out
    assert 1.4 < time.monotonic() - t0 < 30  # the grace, then killed long before the sleeps end


def test_sigint_stops_the_running_launch(tmp_path):
    """A real Ctrl-C: SIGINT to the process running the executor (as a terminal sends it);
    the launched `sleep` must be gone and KeyboardInterrupt must reach the caller."""
    pidfile = tmp_path / "sleep.pid"
    code = textwrap.dedent(f"""
        import os, sys
        from pathlib import Path
        from mpimeter.campaign.executor import SubprocessExecutor
        tmp = Path({str(tmp_path)!r})
        try:
            SubprocessExecutor(grace_s=2.0).run(
                ["sh", "-c", "echo $$ > {pidfile}; exec sleep 600"], env=dict(os.environ),
                timeout_s=600, stdout_path=tmp / "o", stderr_path=tmp / "e")
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(42)
        print("not interrupted")
    """)
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                             preexec_fn=interruptible)
    sleep_pid = int(wait_for_file(pidfile))
    assert alive(sleep_pid)
    t0 = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=300)
    assert (child.returncode, out.strip()) == (42, "interrupted")
    assert time.monotonic() - t0 < 300  # the launch was stopped, long before its sleep ended
    assert not alive(sleep_pid)


def test_a_log_file_that_is_a_symbolic_link_is_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("mine")
    (tmp_path / "out.txt").symlink_to(victim)
    try:
        run(["sh", "-c", "echo overwritten"], tmp_path)
    except OSError:
        pass
    else:
        raise AssertionError("the launch ran with its log a symbolic link")
    assert victim.read_text() == "mine"
