# SPDX-License-Identifier: BSD-3-Clause
"""A timed-out launch's reason says what it was doing (from the meta.json it rewrote after each
test), the machine's load and what to do."""

import json
import os

from mpimeter.campaign import timeout
from mpimeter.campaign.fake import FakeExecutor
from mpimeter.campaign.runner import CampaignRunner

from test_campaign_runner import make_state


def write_meta(folder, tests, age_s=0.0):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "meta.json").write_text(json.dumps({"schema_version": 3, "status": "running", "tests": tests}))
    t = os.path.getmtime(folder / "meta.json") - age_s
    os.utime(folder / "meta.json", (t, t))
    return t + age_s


TESTS = [
    {"test": 0, "op": "allreduce", "size": 8, "status": "complete", "started_s": 0.1, "nrep": 300,
     "invalid": 12, "window_ns": 10000},
    {"test": 1, "op": "delay", "size": 200000, "status": "complete", "started_s": 3.0, "nrep": 300,
     "invalid": 299, "window_ns": 12_700_000},
    {"test": 2, "op": "bcast", "size": 1024, "status": "running", "window_ns": 22_000_000},
    {"test": 3, "op": "bcast", "size": 8, "status": "pending"},
]


def test_the_reason_names_the_last_test_the_one_in_progress_the_load_and_what_to_do(tmp_path):
    now = write_meta(tmp_path, TESTS, age_s=290)
    reason = timeout.timeout_reason(300, tmp_path, 3, cores=2, loadavg=(11.5, 9.0, 4.25), now=now)
    assert reason.startswith("timed out after 300 s (terminated); 2 of 4 tests finished")
    assert "the last one, test 1 (delay 200000): window 12.7 ms, 299 of 300 repetitions invalid" in reason
    assert "in progress: test 2 (bcast 1024), window 22.0 ms" in reason
    assert "meta.json last rewritten 290 s before the stop" in reason
    assert "load average 11.5 / 9.0 / 4.2 (1/5/15 min) on its 2 cores" in reason
    assert "--launch-timeout" in reason and "--procsync roundtime" in reason
    assert "3 ranks share 2 cores: --np 2" in reason
    assert "\n" not in reason


def test_ranks_within_the_cores_are_not_told_to_fit_them_and_a_pending_test_is_the_next(tmp_path):
    tests = [dict(TESTS[0]), {"test": 1, "op": "bcast", "size": 8, "status": "pending"}]
    write_meta(tmp_path, tests)
    reason = timeout.timeout_reason(60, tmp_path, 2, cores=2, loadavg=(0.5, 0.5, 0.5))
    assert "in progress: test 1 (bcast 8)" in reason and "load average 0.5 / 0.5 / 0.5" in reason
    assert "share" not in reason and "fewer ranks or on a quieter machine" in reason


def test_a_launch_without_meta_json_or_with_a_forged_one_still_gets_a_reason(tmp_path):
    reason = timeout.timeout_reason(60, tmp_path / "none", 2, cores=None, loadavg=(1.0, 1.0, 1.0))
    assert "no readable meta.json" in reason and "on the machine of mpimeter run" in reason
    write_meta(tmp_path, [{"test": "x", "status": 5, "window_ns": "big", "nrep": True}, 7])
    reason = timeout.timeout_reason(60, tmp_path, 2, cores=2, loadavg=None)
    assert reason.startswith("timed out after 60 s (terminated); 0 of 1 tests finished")
    (tmp_path / "meta.json").write_text("{cut")
    assert "no readable meta.json" in timeout.timeout_reason(60, tmp_path, 2, cores=2)


def test_the_runner_records_the_reason_in_campaign_json(tmp_path):
    state = make_state(alternatives=("openmpi",), launches=1)
    state.np = 3
    CampaignRunner(state, tmp_path, FakeExecutor({"launches/000": ["hang", "ok"]}), base_env={"PATH": "/usr/bin"},
                   local_cores=lambda: 2).run()
    reason = json.loads((tmp_path / "campaign.json").read_text())["launches"][0]["previous_attempts"][0]["reason"]
    assert reason.startswith("timed out after 60 s (terminated); ")
    assert "--np 2" in reason and "--launch-timeout" in reason


def test_machine_load_reads_proc_loadavg_and_tolerates_garbage(tmp_path):
    f = tmp_path / "loadavg"
    f.write_text("0.50 1.25 2.00 3/120 999\n")
    assert timeout.machine_load(f) == (0.5, 1.25, 2.0)
    f.write_text("x")
    assert timeout.machine_load(f) is None
    assert timeout.machine_load(tmp_path / "missing") is None
