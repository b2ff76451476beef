# SPDX-License-Identifier: BSD-3-Clause
"""mpimeter under ReFrame (mpimeter.reframe_checks): the check run by ReFrame's local scheduler with
the example configuration, once with a reference it meets and once with one it cannot meet
(it must fail in the performance phase); and the reference arithmetic on its own.

The campaigns are tiny (2 ranks, 2 launches, 50 repetitions of `delay` 200 µs, barrier starts and
local clocks, so that the shared machine's load cannot invalidate repetitions). Skipped with the
reason when ReFrame (``pip install 'mpimeter[reframe]'``; `make test` installs it) or the Open MPI
build is missing."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mpimeter.campaign import launcher

reframe = pytest.importorskip("reframe", reason="ReFrame is not installed (pip install 'mpimeter[reframe]')")
from mpimeter import reframe_checks  # noqa: E402  (needs reframe)

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ROOT / "examples" / "reframe" / "settings.py"
BENCH_DIR = launcher.default_bench_dir()
have_openmpi = (launcher.bench_binary(BENCH_DIR, "openmpi").is_file()
                and shutil.which(launcher.local_template("openmpi").split()[0]) is not None)

CHECKS = """
import reframe as rfm
from mpimeter.reframe_checks import MpimeterCampaign


class Tiny(MpimeterCampaign):
    ops = 'delay'
    sizes = '200000'  # a busy wait of 200 us: its run time is known
    np = 2
    launches = 2
    nrep = 50
    mpi = 'openmpi'
    extra_args = ['--procsync', 'barrier', '--clocksync', 'none', '--seed', '7']


@rfm.simple_test
class MeetsReference(Tiny):
    references_us = {'delay_200000': 200.0}
    min_tolerance = 0.05


@rfm.simple_test
class CannotMeetReference(Tiny):
    references_us = {'delay_200000': 100.0}  # a busy wait of 200 us never takes 100 us
"""


def test_reference_tuple_passes_exactly_when_the_reference_is_in_the_interval():
    def passes(ref, median, low, high, floor=0.0):
        r, lo, hi, unit = reframe_checks.reference_tuple(ref, median, low, high, floor)
        assert unit == "us"
        return r * (1 + lo) <= median <= r * (1 + hi)  # ReFrame's rule (assert_reference)

    assert passes(10.0, 10.5, 9.8, 11.0)
    assert passes(9.8, 10.5, 9.8, 11.0) and passes(11.0, 10.5, 9.8, 11.0)  # the ends belong to it
    assert not passes(9.7, 10.5, 9.8, 11.0) and not passes(11.1, 10.5, 9.8, 11.0)
    assert passes(9.7, 10.5, 9.8, 11.0, floor=0.1)  # |10.5/9.7 − 1| = 8 % ≤ 10 %
    assert not passes(9.0, 10.5, 9.8, 11.0, floor=0.1)


def test_tolerance_is_the_interval_else_the_range_of_launch_medians():
    row = {"median_ns": 2000.0, "median_ci_low_ns": 1900.0, "median_ci_high_ns": 2300.0, "confidence": 0.95,
           "per_launch_medians_ns": [1800.0, 2000.0, 2500.0]}
    assert reframe_checks.tolerance(row)[:2] == (1.9, 2.3)
    row.update(median_ci_low_ns=None, median_ci_high_ns=None)
    low, high, what = reframe_checks.tolerance(row)
    assert (low, high) == (1.8, 2.5) and "range of 3 launch medians" in what
    assert reframe_checks.perf_name({"op": "allreduce", "size": 8, "alternative": "mpich"}, True) == \
        "mpich_allreduce_8"


@pytest.mark.skipif(not have_openmpi, reason=f"no Open MPI build of mpimeter-bench under {BENCH_DIR} (make build)")
def test_reframe_runs_the_check_and_fails_the_unreachable_reference(tmp_path):
    checks = tmp_path / "checks.py"
    checks.write_text(CHECKS)
    report = tmp_path / "report.json"
    env = dict(os.environ, RFM_CONFIG_FILES="", PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [str(Path(sys.executable).parent / "reframe"), "-C", str(SETTINGS), "-c", str(checks), "-r",
         "--prefix", str(tmp_path / "rfm"), "--report-file", str(report), "--nocolor"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert done.returncode != 0, done.stdout  # one check fails on purpose
    cases = {c["name"]: c for c in json.loads(report.read_text())["runs"][0]["testcases"]}
    ok, bad = cases["MeetsReference"], cases["CannotMeetReference"]
    assert ok["result"] == "pass", ok["fail_reason"]
    assert bad["result"] == "fail" and bad["fail_phase"] == "performance", bad["fail_reason"]
    assert "failed to meet reference" in bad["fail_reason"] and "delay_200000" in bad["fail_reason"]
    for case in (ok, bad):
        value = case["perfvalues"]["local:default:delay_200000"]
        assert value[0] >= 200.0 and value[4] == "us"  # the median of launch medians, a 200 us busy wait
    kept = Path(ok["outputdir"])  # a check that passed keeps the analysis and the campaign
    assert (kept / reframe_checks.CAMPAIGN / "campaign.json").is_file()
    rows = json.loads((kept / reframe_checks.ANALYZE_JSON).read_text())["rows"]
    assert rows[0]["launches"] == 2 and rows[0]["op"] == "delay"
    assert "tolerance [" in done.stdout and "range of 2 launch medians" in done.stdout
