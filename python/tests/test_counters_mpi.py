# SPDX-License-Identifier: BSD-3-Clause
"""Counters end to end through `mpimeter run` (its pass-through options come from the binary's
--describe) with the real binary: `--mpit-pvars` reaches every launch and `mpimeter analyze`
reports the counters; bad counter options are refused up front in the binary's words. Skipped
with a reason when the Open MPI binary is missing (pytest by hand before `make build`)."""

import json
import subprocess
import sys

import pytest

from mpimeter.campaign import launcher

BENCH = launcher.bench_binary(launcher.default_bench_dir(), "openmpi")
pytestmark = pytest.mark.skipif(not BENCH.is_file(), reason=f"no {BENCH} (run `make build`)")


def _mpimeter(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "mpimeter", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def test_run_passes_counters_to_every_launch_and_analyze_reports_them(tmp_path):
    out = tmp_path / "why"
    done = _mpimeter("run", "--mpi", "openmpi", "--np", "2", "--launches", "2", "--ops", "bcast", "--sizes",
                     "8,4096", "--nrep", "30", "--mpit-pvars", "all", "--seed", "7", "--no-analyze",
                     "--procsync", "barrier", "--warmup", "1",  # the counters, not timings: a short launch
                     "--variant", "mon=OMPI_MCA_pml_monitoring_enable=1 OMPI_MCA_osc=^monitoring", "--out", out)
    assert done.returncode == 0, done.stdout + done.stderr
    disk = json.loads((out / "campaign.json").read_text())
    assert "--mpit-pvars" in disk["bench_args"]
    for x in disk["launches"]:
        meta = json.loads((out / x["folder"] / "meta.json").read_text())
        assert meta["config"]["mpit_pvars"] == "all"
        names = {m["name"] for m in meta["counters"]["metrics"]}
        assert ("coll_monitoring_messages_size" in names) == (x["alternative"] == "mon")
        assert (out / x["folder"] / "counters.csv").exists()
    done = _mpimeter("analyze", out, "--format", "json")
    assert done.returncode == 0, done.stderr
    counters = json.loads(done.stdout)["counters"]
    assert counters["launches"] == 4 and {c["alternative"] for c in counters["costs"]} == {"openmpi", "mon"}
    mon = [r for r in counters["rows"] if r["alternative"] == "mon" and r["metric"] == "coll_monitoring_messages_size"]
    assert {r["size"] for r in mon} == {8, 4096}


def test_bad_counter_options_are_refused_before_anything_runs(tmp_path):
    done = _mpimeter("run", "--mpi", "openmpi", "--np", "2", "--launches", "1", "--ops", "bcast", "--sizes", "8",
                     "--papi", "NOT_AN_EVENT", "--out", tmp_path / "x", timeout=120)
    assert done.returncode == 2 and "--papi" in done.stderr and not (tmp_path / "x").exists()
    done = _mpimeter("run", "--mpi", "openmpi", "--np", "2", "--launches", "1", "--ops", "bcast", "--sizes", "8",
                     "--mpit-pvars", "a,,b", "--out", tmp_path / "y", timeout=120)
    assert done.returncode == 2 and "--mpit-pvars: empty item" in done.stderr and not (tmp_path / "y").exists()
