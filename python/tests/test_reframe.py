# SPDX-License-Identifier: BSD-3-Clause
"""mpimeter under ReFrame (mpimeter.reframe_checks): the check run by ReFrame's local scheduler with
the example configuration, once with a reference it meets and once with one it cannot meet
(it must fail in the performance phase, never crash), twice in a row without a warning; and the
reference tuples judged by ReFrame's own assert_reference (its threshold checks included).

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
    tolerance = 0.05
    upper_tolerance = 1000.0  # a loaded machine may slow the busy wait: this check asserts no timing


@rfm.simple_test
class CannotMeetReference(Tiny):
    references_us = {'delay_200000': 20.0}  # a busy wait of 200 us never takes 20 us
    tolerance = 1.0  # the widest ReFrame allows below: still a failure, not a crash
"""


def _reframe_passes(value: float, ref_tuple) -> bool:
    """ReFrame's own judgement of a value against a reference tuple (what its performance stage
    calls): False on a miss; its ValueError on thresholds it refuses propagates."""
    from reframe.core.exceptions import SanityError
    from reframe.utility import sanity as sn

    ref, low, high, unit = ref_tuple
    assert unit == "us"
    try:
        return sn.evaluate(sn.assert_reference(value, ref, low, high))
    except SanityError:
        return False


def test_reference_tuple_is_judged_by_reframe_as_reference_plus_minus_tolerance():
    ten = reframe_checks.reference_tuple(10.0, 0.1)
    assert _reframe_passes(10.0, ten) and _reframe_passes(9.0, ten) and _reframe_passes(11.0, ten)
    assert not _reframe_passes(8.9, ten) and not _reframe_passes(11.1, ten)


def test_reference_tuple_is_valid_for_reframe_whatever_the_measurement():
    # The measured case of a reference far below the median (the thresholds the interval gave
    # were (median - high) / ref = -1.135, which ReFrame refuses with a ValueError): now a miss.
    for ref in (0.01, 0.5, 2.1, 10.0, 1e6):
        for tolerance in (0.0, 0.05, 0.5, 1.0):
            ref_tuple = reframe_checks.reference_tuple(ref, tolerance)
            assert -1 <= ref_tuple[1] <= 0 <= ref_tuple[2]
            for value in (0.0, ref / 3, ref, 3 * ref, 1e9):
                _reframe_passes(value, ref_tuple)  # judged, never a ValueError
    assert not _reframe_passes(200.0, reframe_checks.reference_tuple(20.0, 1.0))


def test_the_tolerance_is_the_users_not_the_measurements():
    # the same tuple whatever a run measured: the tuple has no argument from the measurement
    assert reframe_checks.reference_tuple(2.1, 0.1) == (2.1, -0.1, 0.1, "us")
    assert reframe_checks.reference_tuple(2.1, 0.1, 0.5) == (2.1, -0.1, 0.5, "us")
    assert _reframe_passes(3.15, reframe_checks.reference_tuple(2.1, 0.1, 0.5))
    assert not _reframe_passes(1.8, reframe_checks.reference_tuple(2.1, 0.1, 0.5))


@pytest.mark.parametrize("ref, tolerance, says", [
    (0.0, 0.1, "a finite number > 0"), (-2.0, 0.1, "a finite number > 0"),
    (float("nan"), 0.1, "a finite number > 0"), (2.0, 1.5, "from 0 to 1"), (2.0, -0.1, "from 0 to 1"),
    (2.0, (0.1, -0.5), "finite and >= 0"), (2.0, (0.1, float("inf")), "finite and >= 0")])
def test_reference_tuple_refuses_what_reframe_cannot_judge(ref, tolerance, says):
    below, above = tolerance if isinstance(tolerance, tuple) else (tolerance, None)
    with pytest.raises(ValueError, match=says):
        reframe_checks.reference_tuple(ref, below, above)


def test_median_interval_is_the_interval_else_the_range_of_launch_medians():
    row = {"median_ns": 2000.0, "median_ci_low_ns": 1900.0, "median_ci_high_ns": 2300.0, "confidence": 0.95,
           "per_launch_medians_ns": [1800.0, 2000.0, 2500.0]}
    assert reframe_checks.median_interval(row)[:2] == (1.9, 2.3)
    row.update(median_ci_low_ns=None, median_ci_high_ns=None)
    low, high, what = reframe_checks.median_interval(row)
    assert (low, high) == (1.8, 2.5) and "range of 3 launch medians" in what
    assert reframe_checks.perf_name({"op": "allreduce", "size": 8, "alternative": "mpich"}, True) == \
        "mpich_allreduce_8"


@pytest.mark.skipif(not have_openmpi, reason=f"no Open MPI build of mpimeter-bench under {BENCH_DIR} (make build)")
def test_reframe_runs_the_check_and_fails_the_unreachable_reference(tmp_path):
    checks = tmp_path / "checks.py"
    checks.write_text(CHECKS)
    env = dict(os.environ, RFM_CONFIG_FILES="", PYTHONPATH=os.pathsep.join(sys.path))
    for attempt in (1, 2):  # the example runs clean twice in a row: same tolerance, no warning
        report = tmp_path / f"report{attempt}.json"
        done = subprocess.run(
            [str(Path(sys.executable).parent / "reframe"), "-C", str(SETTINGS), "-c", str(checks), "-r",
             "--prefix", str(tmp_path / f"rfm{attempt}"), "--report-file", str(report), "--nocolor"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
        assert done.returncode != 0, done.stdout  # one check fails on purpose
        assert "WARNING" not in done.stdout + done.stderr, done.stdout + done.stderr
        assert "Traceback" not in done.stdout + done.stderr and "invalid low threshold" not in done.stdout
        cases = {c["name"]: c for c in json.loads(report.read_text())["runs"][0]["testcases"]}
        ok, bad = cases["MeetsReference"], cases["CannotMeetReference"]
        assert ok["result"] == "pass", ok["fail_reason"]
        assert bad["result"] == "fail" and bad["fail_phase"] == "performance", bad["fail_reason"]
        assert "failed to meet reference" in bad["fail_reason"] and "delay_200000" in bad["fail_reason"]
        for case, ref, below, above in ((ok, 200.0, 0.05, 1000.0), (bad, 20.0, 1.0, 1.0)):
            value = case["perfvalues"]["local:default:delay_200000"]
            assert value[0] >= 200.0 and value[4] == "us"  # the median of launch medians, a 200 us busy wait
            assert value[1:4] == [ref, -below, above]  # the user's tolerances, in every run
        kept = Path(ok["outputdir"])  # a check that passed keeps the analysis and the campaign
        assert (kept / reframe_checks.CAMPAIGN / "campaign.json").is_file()
        rows = json.loads((kept / reframe_checks.ANALYZE_JSON).read_text())["rows"]
        assert rows[0]["launches"] == 2 and rows[0]["op"] == "delay"
        assert "range of 2 launch medians" in done.stdout and "reference 200 us -5 % +100000 %" in done.stdout


def test_a_bad_reference_fails_the_check_at_set_up_in_one_line(tmp_path):
    checks = tmp_path / "checks.py"
    checks.write_text(CHECKS.split("@rfm.simple_test")[0] + """
@rfm.simple_test
class NegativeReference(Tiny):
    references_us = {'delay_200000': -5.0}
""")
    report = tmp_path / "report.json"
    env = dict(os.environ, RFM_CONFIG_FILES="", PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [str(Path(sys.executable).parent / "reframe"), "-C", str(SETTINGS), "-c", str(checks), "-r",
         "--prefix", str(tmp_path / "rfm"), "--report-file", str(report), "--nocolor"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert done.returncode != 0, done.stdout
    (case,) = json.loads(report.read_text())["runs"][0]["testcases"]
    assert case["result"] == "fail" and case["fail_phase"] == "setup", case
    assert "references_us['delay_200000']: reference -5.0 us" in case["fail_reason"], case["fail_reason"]
    assert not (Path(case["outputdir"] or tmp_path / "none") / reframe_checks.CAMPAIGN).exists()  # nothing ran
