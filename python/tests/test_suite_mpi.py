# SPDX-License-Identifier: BSD-3-Clause
"""The sample suite examples/suites/skampi.toml, run for real (Open MPI, 2 ranks, 3 launches, a few
repetitions, its small sizes): one campaign of every operation it names, and every comparison of
SKaMPI's report (Reussner et al. 1998 §6) between operations it measured drawn with `compare
--ops`' statistics. Skipped with a reason when the binary or the launcher is missing."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mpimeter import analysis
from mpimeter.analysis import opcomparisons
from mpimeter.campaign import launcher

BENCH_DIR = launcher.default_bench_dir()
SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "suites" / "skampi.toml"

pytestmark = pytest.mark.skipif(
    not launcher.bench_binary(BENCH_DIR, "openmpi").is_file()
    or not shutil.which(launcher.local_template("openmpi").split()[0]),
    reason=f"no mpimeter-bench or mpirun for openmpi under {BENCH_DIR} (run `make build`)")


def test_the_sample_skampi_suite_runs_and_its_comparisons_are_drawn(tmp_path):
    out = tmp_path / "skampi"
    done = subprocess.run(
        [sys.executable, "-m", "mpimeter", "run", "--suite", str(SAMPLE), "--mpi", "openmpi", "--np", "2",
         "--launches", "3", "--nrep", "5", "--warmup", "1", "--procsync", "barrier", "--seed", "2026",
         "--out", str(out), "--no-analyze"],
        capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout + done.stderr
    disk = json.loads((out / "campaign.json").read_text())
    ops = disk["suite"]["options"]["ops"].split(",")
    assert all(x["status"] == "complete" for x in disk["launches"]) and len(disk["launches"]) == 3
    result = analysis.analyze(analysis.load_campaigns([str(out)]))
    assert {r.op for r in result.rows} == set(ops)
    drawn = opcomparisons.draw(result)
    # the suite's two, then every pair of §6 whose both sides the suite measures (6.12 and 6.13 are the suite's)
    standard = [f"SKaMPI {s}" for s, a, b in opcomparisons.SKAMPI_COMPARISONS
                if a in ops and b in ops and {a, b} not in ({"mw-send", "mw-ssend"}, {"reduce", "scan"})]
    assert [d.name for d in drawn] == ["6.12 MPI_Send and MPI_Ssend", "6.13 MPI_Reduce and MPI_Scan", *standard]
    assert len(standard) == 10
    for d in drawn:
        assert d.result is not None, (d.name, d.problem)
        assert {r.size for r in d.result.rows} == {256, 4096}, d.name
        assert all(r.launches_a == r.launches_b == 3 for r in d.result.rows), d.name
