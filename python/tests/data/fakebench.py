# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run` without MPI: a stand-in for mpimeter-bench (a script that writes a launch
folder) behind a template launcher, shared by the campaign CLI tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mpimeter.cli import main

REAL_BENCH = Path(__file__).resolve().parents[3] / "build" / "openmpi" / "bin" / "mpimeter-bench"

FAKE_BENCH = r'''#!{python}
"""A stand-in for mpimeter-bench. FAKE_BENCH_MODE: ok | sleep | refuse | fail | orphan.
sleep: writes its pid to FAKE_BENCH_PIDFILE and sleeps; orphan: the same, rewriting its meta.json
every 0.1 s, and writing a line "TERM <sender pid>" to FAKE_BENCH_PIDFILE.terms for each SIGTERM:
one from its parent (the parent-death signal) is ignored, any other ends it.
FAKE_BENCH_LOG: a file that gets one line (--out) per start.
FAKE_BENCH_ECHO: the name of a variable whose value goes into meta.json.
FAKE_BENCH_ENVIRONMENT: meta.json gets "environment", the MPI_/SLURM_/HYDRA_ variables, nothing redacted."""
import json, os, signal, sys, time
args = sys.argv[1:]
if args and args[0] in ("--describe", "--validate", "--help", "--list-ops"):
    # what the tool asks before launching is answered by the real binary: the stand-in only
    # stands in for a launch
    os.execv("{real}", ["{real}", *args])
def value(flag):
    return args[args.index(flag) + 1] if flag in args else None
mode = os.environ.get("FAKE_BENCH_MODE", "ok")
out = value("--out")
if os.environ.get("FAKE_BENCH_LOG"):
    with open(os.environ["FAKE_BENCH_LOG"], "a") as f:
        f.write(f"{out}\n")
if mode == "refuse":
    print("mpimeter-bench: --timer: unknown timer 'sundial'", file=sys.stderr)
    sys.exit(2)
os.makedirs(out)
meta = {"schema_version": 1, "status": "running", "pid": os.getpid(),
        "argv": args, "env_variant": os.environ.get("VARIANT_X"),
        "env_echo": os.environ.get(os.environ.get("FAKE_BENCH_ECHO", "-"))}
if os.environ.get("FAKE_BENCH_ENVIRONMENT"):  # as the binary records it, but redacting nothing
    meta["environment"] = {k: v for k, v in os.environ.items() if k.startswith(("MPI_", "SLURM_", "HYDRA_"))}
with open(os.path.join(out, "meta.json"), "w") as f:
    json.dump(meta, f)
parent = os.getppid()
if mode == "orphan":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
if mode in ("sleep", "orphan"):
    with open(os.environ["FAKE_BENCH_PIDFILE"], "w") as f:
        f.write(str(os.getpid()))
    # sleep: 10 minutes, so that a test's own steps on a busy machine (a minute or more at load
    # 25) never outlive the launch they interrupt; orphan: 1 minute of rewriting
    for _ in range(6000 if mode == "sleep" else 600):
        if mode == "sleep":
            time.sleep(0.1)
            continue
        try:
            with open(os.path.join(out, "meta.json"), "w") as f:
                json.dump({**meta, "orphan_wrote": time.time()}, f)
        except OSError:
            pass
        info = signal.sigtimedwait([signal.SIGTERM], 0.1)
        if info is not None:
            with open(os.environ["FAKE_BENCH_PIDFILE"] + ".terms", "a") as f:
                f.write(f"TERM {info.si_pid}\n")
            if info.si_pid != parent:
                sys.exit(143)
if mode == "fail":
    print("rank 1 exited on signal 11", file=sys.stderr)
    sys.exit(1)
with open(os.path.join(out, "raw.csv"), "w") as f:
    f.write("test,op,size,rank,rep,start_ns,end_ns,valid,gstart_ns,gend_ns\n")
    for rep in range(5):
        for rank in range(2):
            f.write(f"0,bcast,8,{rank},{rep},{rep*100},{rep*100+50+rank},1,{rep*100},{rep*100+50+rank}\n")
meta["status"] = "complete"
with open(os.path.join(out, "meta.json"), "w") as f:
    json.dump(meta, f)
'''


@pytest.fixture
def fake_env(tmp_path, monkeypatch):
    """A bench dir with a fake binary for both libraries, a launcher script, and the options
    that make `mpimeter run` use them."""
    return tmp_path, make_fake_env(tmp_path, monkeypatch)


def make_fake_env(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """`fake_env` in ROOT (a module-scoped fixture gives its own folder and MonkeyPatch): the
    options of `mpimeter run`."""
    for lib in ("openmpi", "mpich"):
        binary = root / "bench" / lib / "bin" / "mpimeter-bench"
        binary.parent.mkdir(parents=True)
        binary.write_text(FAKE_BENCH.replace("{python}", sys.executable).replace("{real}", str(REAL_BENCH)))
        binary.chmod(0o755)
    launcher = root / "fakerun"
    launcher.write_text('#!/bin/sh\n[ "$1" = -np ] || exit 9\nshift 2\nexec "$@"\n')
    launcher.chmod(0o755)
    use_fake_env(root, monkeypatch)
    return ["--launcher", template(root), "--mpi", "openmpi,mpich",
            "--np", "2", "--ops", "bcast", "--sizes", "8", "--nrep", "5", "--no-analyze"]


def use_fake_env(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment that makes `mpimeter run` find the fake bench dir under ROOT."""
    monkeypatch.setenv("MPIMETER_BENCH_DIR", str(root / "bench"))
    monkeypatch.delenv("FAKE_HCA3", raising=False)


def template(tmp_path: Path) -> str:
    """The fixture's launcher template (a campaign with it is resumed with it given again)."""
    return f"{tmp_path / 'fakerun'} -np {{np}} {{cmd}}"


BASE_VALUED = ("--launcher", "--mpi", "--np", "--ops", "--sizes", "--nrep")


def later_wins(args):
    """A test overrides a fixture option by giving it again; mpimeter refuses an option given
    twice, so the fixture's earlier one is dropped here."""
    end = args.index("--") if "--" in args else len(args)
    keep, i = [], 0
    while i < end:
        flag = args[i].split("=", 1)[0]
        again = flag in BASE_VALUED and any(a.split("=", 1)[0] == flag for a in args[i + 1:end])
        step = 1 if "=" in args[i] else 2
        if not again:
            keep += args[i:i + step] if flag in BASE_VALUED else args[i:i + 1]
        i += step if flag in BASE_VALUED else 1
    return keep + args[end:]


def cli(args, env=None, command="run"):
    return CliRunner().invoke(main, [command, *later_wins(args)], env=env)


def one_line_error(result, command="run", *, after_output=False) -> str:
    """The error line of a refused command; fails the test unless it is one line and exit 2
    (`after_output`: a command that failed while it ran may have printed its progress before,
    on stdout)."""
    assert result.exit_code == 2, result.output
    lines = (result.stderr if after_output else result.output).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mpimeter {command}: error: "), result.output
    return lines[0]


def interruptible() -> None:
    """Popen's preexec_fn for a child a test will stop with a signal: SIGINT and SIGHUP back to
    their defaults. A shell without job control starts a background job (`make test &`, a CI
    step) with SIGINT ignored, `nohup make test` with SIGHUP ignored; children inherit that, and
    `mpimeter run` keeps a signal it was started ignoring ignored (as `nohup mpimeter run` needs):
    the test's signal would do nothing and the test would wait out its patience."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def start(args, env, command="run") -> subprocess.Popen:
    """`mpimeter <command> ARGS` as a real process of its own, which a SIGINT interrupts."""
    return subprocess.Popen([sys.executable, "-m", "mpimeter", command, *later_wins(args)],
                            env={**os.environ, **env}, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, preexec_fn=interruptible)


def start_campaign(tmp: Path, args, mode: str = "sleep", command: str = "run"):
    """`mpimeter <command> ARGS` in a process of its own whose first launch is the stand-in
    bench in `mode` (sleep, orphan); the process, and the stand-in's pid once it runs."""
    pidfile = tmp / "bench.pid"
    proc = start(args, {"FAKE_BENCH_MODE": mode, "FAKE_BENCH_PIDFILE": str(pidfile)}, command)
    return proc, wait_for_pid(pidfile)


# How long a test waits for a process to act before it fails saying so: a bound that ends a stuck
# test, not a speed check (a busy machine takes a minute or more where a quiet one takes a second)
PATIENCE_S = 300.0


def wait_for_text(path: Path, timeout_s: float = PATIENCE_S) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


def wait_for_pid(pidfile: Path, timeout_s: float = PATIENCE_S) -> int:
    return int(wait_for_text(pidfile, timeout_s))


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def wait_until_dead(pid: int, timeout_s: float = PATIENCE_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except OSError:
        pass


def on_disk(folder: Path) -> dict:
    return json.loads((Path(folder) / "campaign.json").read_text())


def wait_for_record(folder: Path, pid: int, timeout_s: float = PATIENCE_S) -> None:
    """Until campaign.json records the running launch `pid` as its first launch's process. The
    driver writes it right after the launch has started, so the stand-in's pid file can come
    first: a driver killed in between leaves nothing recorded to test (a busy machine widens that
    gap)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            launches = on_disk(folder).get("launches") or [{}]
        except (OSError, ValueError):  # not written yet
            launches = [{}]
        if (launches[0].get("process") or {}).get("pid") == pid:
            return
        time.sleep(0.05)
    raise AssertionError(f"{folder}/campaign.json never recorded the launch {pid}")


@pytest.fixture
def failed(fake_env):
    """(tmp, campaign folder): a campaign of one Open MPI launch that failed, to be resumed."""
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--launches", "1", "--mpi", "openmpi", "--retries", "0", "--out", str(out)],
                 env={"FAKE_BENCH_MODE": "fail"})
    assert result.exit_code == 1, result.output
    return tmp, out
