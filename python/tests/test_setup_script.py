# SPDX-License-Identifier: BSD-3-Clause
"""scripts/setup.sh's pip step (`make demo`, `make test`): minutes the first time, so a line
before it and one after it with its duration. Run on a copy of the script in a scratch tree whose
.venv/bin/pip only records its arguments (the system parts find everything installed)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALLED = ("mpicc.openmpi", "mpicc.mpich", "cmake", "cc", "papi_avail")

pytestmark = pytest.mark.skipif(
    not all(shutil.which(p) for p in INSTALLED) or not Path("/usr/include/papi.h").is_file(),
    reason="needs what scripts/setup.sh installs already installed (make build installs it)")


def test_the_pip_step_says_when_it_starts_and_how_long_it_took(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "pyproject.toml").write_text("")
    (tmp_path / "python" / "constraints.txt").write_text("")
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    for name, body in (("python", "exit 0"), ("pip", f'echo "$*" >> {tmp_path / "pip.log"}')):
        (venv_bin / name).write_text(f"#!/bin/sh\n{body}\n")
        (venv_bin / name).chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MM_WITH_")}
    done = subprocess.run(["bash", str(tmp_path / "scripts" / "setup.sh")], capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    before = [i for i, line in enumerate(lines) if line.startswith("setup: installing the Python package")]
    after = [i for i, line in enumerate(lines)
             if re.fullmatch(r"setup: installed the Python package into \.venv in \d+ s", line)]
    assert len(before) == 1 and len(after) == 1 and before[0] < after[0], done.stdout
    assert "-e python" in (tmp_path / "pip.log").read_text()  # the step ran between the two lines
