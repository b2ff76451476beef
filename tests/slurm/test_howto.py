# SPDX-License-Identifier: BSD-3-Clause
"""docs/SLURM.md as a test: every command block of the how-to runs against the test cluster, in
order, as written, on the cluster's login host, in one scratch folder (examples/ and build/ linked
from the repository), with this checkout's `mpimeter` first on PATH. The blocks are read by the
docs' own test (tests/readme/test_readme.py: command blocks, continuation lines, marks); no
rewrite shortens them, and none may be marked not run. After the last block no job is left, and
the campaigns the page makes are complete — the spread one with its allocation components."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "readme"))
from test_readme import blocks  # noqa: E402

PAGE = "docs/SLURM.md"
COMMAND_TIMEOUT_S = 600


def test_every_command_of_the_slurm_howto_runs_on_the_cluster(cluster, tmp_path):
    scratch = tmp_path / "howto"
    scratch.mkdir()
    for name in ("build", "examples"):
        (scratch / name).symlink_to(REPO / name)
    env = cluster.env(PATH=f"{REPO / '.venv' / 'bin'}:{cluster.env()['PATH']}",
                      MPIMETER_BENCH_DIR=str(REPO / "build"))
    found = blocks(PAGE)
    assert len(found) >= 4 and not [b.line for b in found if b.skip], "every block of the page runs"
    for block in found:
        for command in block.commands:
            done = cluster.run("bash", "-e", "-o", "pipefail", "-c", command, env=env, cwd=scratch,
                               timeout=COMMAND_TIMEOUT_S)
            assert done.returncode in block.exit_codes, (
                f"{PAGE} line {block.line}: {command}\nexit code {done.returncode}\n"
                f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    left = cluster.run("squeue", "--noheader", timeout=30)
    assert left.returncode == 0 and left.stdout.strip() == "", left.stdout + left.stderr
    for name, launches in (("quick", 3), ("libs", 6), ("batch", 3), ("spread", 6)):
        disk = json.loads((scratch / "results" / name / "campaign.json").read_text())
        assert disk["status"] == "complete" and len(disk["launches"]) == launches, name
    done = cluster.run(sys.executable, "-m", "mpimeter", "analyze", "--format", "json",
                       str(scratch / "results" / "spread"), env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    spread = json.loads(done.stdout)["allocations"]
    assert spread and all(len(row["allocations"]) == 3 for row in spread), spread
