# SPDX-License-Identifier: BSD-3-Clause
"""scripts/run-groups, the runner of `make test`'s groups: every target runs after a failure, a
stage's lanes really run side by side (a target that waits for its neighbour's file ends), their
outputs come out whole, the table names every target, a bad stage exits 2, and SIGINT reaches the
running targets. Each case on a small Makefile of its own."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "run-groups"
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")

# `waiter` ends only once `writer` (in another lane) has written its file: one after the other it
# would time out after 60 s and fail.
MAKEFILE = """\
writer:
\t@echo writer-line-1; touch written; echo writer-line-2
waiter:
\t@echo waiter-start; for i in $$(seq 600); do [ -e written ] && break; sleep 0.1; done; \\
\t  [ -e written ] && echo waiter-saw-it
broken:
\t@echo broken-line; false
after:
\t@echo after-ran
"""


def run(folder: Path, *stages: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "test", *stages], cwd=folder, capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "Makefile").write_text(MAKEFILE)
    return tmp_path


def table(stdout: str) -> dict[str, str]:
    lines = stdout.split("make test: time per group\n", 1)[1].splitlines()
    return {line.split()[0]: line.split()[-1] for line in lines if line.startswith("  ")}


def test_lanes_run_side_by_side_and_print_whole(folder):
    done = run(folder, "waiter | writer", "after")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "waiter-saw-it" in done.stdout
    # each target's output is one block under its own header, never interleaved
    blocks = dict(re.findall(r"── make (\w+): passed in \d+ s ──\n(.*?)\n(?=\n|$)", done.stdout, re.S))
    assert blocks == {"writer": "writer-line-1\nwriter-line-2", "waiter": "waiter-start\nwaiter-saw-it"}
    assert table(done.stdout) == {"waiter": "passed", "writer": "passed", "after": "passed",
                                  "(wall)": "s"}
    assert done.stdout.rstrip().endswith("make test: all passed")


def test_a_failure_does_not_stop_the_rest_and_is_named(folder):
    done = run(folder, "broken after", "writer")
    assert done.returncode == 1
    assert "after-ran" in done.stdout and "writer-line-1" in done.stdout
    assert table(done.stdout)["broken"] == "FAILED" and table(done.stdout)["after"] == "passed"
    assert done.stdout.rstrip().endswith("make test: failed: broken")


def test_one_at_a_time_when_asked(folder):
    # one after another, the waiter would wait for a file nobody writes yet: it fails after 60 s,
    # so give it the file first to keep the test short, and check the order of the outputs
    done = run(folder, "writer | after", env={"MM_TEST_LANES": "1"})
    assert done.returncode == 0
    assert "side by side" not in done.stdout
    assert done.stdout.index("writer-line-2") < done.stdout.index("after-ran")


@pytest.mark.parametrize("stages,env,message", [
    (("writer |",), {}, "has an empty lane"),
    ((), {}, "usage: scripts/run-groups"),
    (("writer",), {"MM_TEST_LANES": "2"}, "MM_TEST_LANES='2': give 1"),
])
def test_bad_input_exits_2_with_one_line(folder, stages, env, message):
    done = run(folder, *stages, env=env)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_sigint_reaches_the_running_targets(tmp_path):
    slow = "\t@trap 'echo got-int > interrupted-{0}; exit 130' INT; touch started-{0}; sleep 60 & wait\n"
    (tmp_path / "Makefile").write_text(f"one:\n{slow.format(1)}two:\n{slow.format(2)}next:\n\t@touch next-ran\n")
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "test", "one | two", "next"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while not ((tmp_path / "started-1").exists() and (tmp_path / "started-2").exists())\
            and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 1, out
    assert (tmp_path / "interrupted-1").exists() and (tmp_path / "interrupted-2").exists()
    assert not (tmp_path / "next-ran").exists()  # the stage after a stop does not start
    assert "make test: stopped" in out
