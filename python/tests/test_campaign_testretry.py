# SPDX-License-Identifier: BSD-3-Clause
"""Measurement-level retry without MPI (campaign.testretry): which test a launch died in, the
continuation launches, the hang watch, the runner's pieces and retries with a fake executor,
--resume, and campaign.json's new keys read back as untrusted input. The same with real launches:
test_campaign_testretry_mpi.py."""

import json
from pathlib import Path

import pytest

from mpimeter.campaign import limits, plan, testretry
from mpimeter.campaign import state as st
from mpimeter.campaign.benchargs import BenchArgs
from mpimeter.campaign.executor import ExecResult
from mpimeter.campaign.fake import FakeExecutor, arg_value
from mpimeter.campaign.launch_record import LaunchRecord
from mpimeter.campaign.runner import CampaignRunner, new_state

OPS = ["allreduce", "barrier"]


def write_meta(folder: Path, tests: list[tuple[str, int, str]], *, probes_began: bool = True) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"status": "running", "phases": {"probes": {"start_s": 0.7 if probes_began else -1, "seconds": -1}},
            "tests": [{"test": i, "op": op, "size": size, "status": status}
                      for i, (op, size, status) in enumerate(tests)]}
    (folder / "meta.json").write_text(json.dumps(meta))


# --- which test a launch died in -----------------------------------------------------------------

def test_the_culprit_is_the_first_test_not_finished_and_the_rest_follow_it(tmp_path):
    write_meta(tmp_path, [("allreduce", 8, "complete"), ("barrier", 0, "failed"), ("allreduce", 64, "pending"),
                          ("allreduce", 1024, "pending"), ("barrier", 8, "pending")])
    cut = testretry.find_cut(tmp_path, OPS)
    assert (cut.test, cut.op, cut.size, cut.finished) == (2, "allreduce", 64, 2)
    assert cut.rest == (("allreduce", 1024), ("barrier", 8))


def test_the_first_test_is_the_culprit_once_the_probes_began_and_not_before(tmp_path):
    write_meta(tmp_path, [("allreduce", 8, "pending"), ("barrier", 0, "pending")])
    assert testretry.find_cut(tmp_path, OPS).op == "allreduce"
    write_meta(tmp_path, [("allreduce", 8, "pending"), ("barrier", 0, "pending")], probes_began=False)
    assert testretry.find_cut(tmp_path, OPS) is None  # died in the clock sync: retried whole


@pytest.mark.parametrize("tests, why", [
    ([("allreduce", 8, "complete"), ("allreduce", 8, "pending")], "two tests of one pair (roots)"),
    ([("allreduce", 8, "complete"), ("alltoall", 8, "pending")], "an op the launch was not given"),
    ([("allreduce", 8, "complete"), ("barrier", -1, "pending")], "a negative size"),
    ([("allreduce", 8, "complete"), ("barrier", 0, "complete")], "every test finished"),
])
def test_a_launch_is_retried_whole_when_its_folder_cannot_name_one_test(tmp_path, tests, why):
    write_meta(tmp_path, tests)
    assert testretry.find_cut(tmp_path, OPS) is None, why


def test_an_unreadable_meta_json_retries_the_launch_whole(tmp_path):
    (tmp_path / "meta.json").write_text("{cut")
    assert testretry.find_cut(tmp_path, OPS) is None


def test_continuation_launches_run_exactly_the_tests_left():
    rest = (("allreduce", 1024), ("barrier", 0), ("bcast", 8), ("allreduce", 8), ("bcast", 1024))
    launches = testretry.rest_launches(rest, ["bcast", "allreduce", "barrier"])
    assert launches == [{"ops": ["bcast", "allreduce"], "sizes": [8, 1024]}, {"ops": ["barrier"], "sizes": [0]}]
    launches = testretry.rest_launches((("allreduce", 8), ("bcast", 1024)), ["allreduce", "bcast"])
    assert sorted((o, s) for x in launches for o in x["ops"] for s in x["sizes"]) == [("allreduce", 8), ("bcast", 1024)]


# --- the hang watch ------------------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_the_hang_watch_counts_a_test_from_the_last_rewrite_and_not_before_the_tests(tmp_path):
    clock = Clock()
    watch = testretry.HangWatch(tmp_path, 5.0, clock=clock)
    assert watch() is None  # no meta.json yet
    write_meta(tmp_path, [("allreduce", 8, "pending")], probes_began=False)
    assert watch() is None
    clock.now = 100.0
    assert watch() is None  # the clock sync may take its time: the launch timeout's business
    write_meta(tmp_path, [("allreduce", 8, "complete"), ("barrier", 0, "pending")])
    assert watch() is None  # a rewrite: the current test starts now
    clock.now = 104.0
    assert watch() is None
    clock.now = 105.5
    said = watch()
    assert said.startswith("hung: test 1 (barrier 0) ran past --test-timeout 5 s")


# --- the runner, with a fake bench that dies inside a test ----------------------------------------

class DyingBench(FakeExecutor):
    """A fake executor whose launches die (crash: exit 137; hang: the timeout) inside the test
    `dies` while `dies_in(out, attempt)` says so, after the tests before it finished."""

    def __init__(self, dies: tuple[str, int], dies_in, how: str = "crash"):
        super().__init__()
        self.dies, self.dies_in, self.how = dies, dies_in, how

    def run(self, argv, *, env, timeout_s, stdout_path, stderr_path, on_start=None, secret_words=None, watch=None):
        out = Path(arg_value(argv, "--out"))
        ops, sizes = arg_value(argv, "--ops").split(","), [int(s) for s in arg_value(argv, "--sizes").split(",")]
        tests = [(op, s if op != "barrier" else 0) for op in ops for s in (sizes if op != "barrier" else [0])]
        key = out.as_posix()
        attempt = self._attempts.get(key, 0) + 1
        if self.dies not in tests or not self.dies_in(out, attempt):
            return super().run(argv, env=env, timeout_s=timeout_s, stdout_path=stdout_path,
                               stderr_path=stderr_path, on_start=on_start, secret_words=secret_words)
        self._attempts[key] = attempt
        self.calls.append(out)
        stdout_path.parent.mkdir(parents=True, exist_ok=True)
        stdout_path.write_text("")
        stderr_path.write_text("")
        at = tests.index(self.dies)
        write_meta(out, [(op, s, "complete" if i < at else "pending") for i, (op, s) in enumerate(tests)])
        if self.how == "hang":
            return ExecResult(None, 1.0, True, "")
        return ExecResult(137, 1.0, False, "")


def make_state(launches=2):
    alts = [plan.Alternative("openmpi", "openmpi", {})]
    order = plan.interleave(["openmpi"], launches, 3)
    return new_state(command="mpimeter run (test)", bench_args=BenchArgs.parse(
        ["--ops", "allreduce,barrier", "--sizes", "8,64,1024", "--nrep", "5"]), launcher="local", np=2,
        launches=launches, seed=3, alternatives=alts, templates={"openmpi": "fakempirun -np {np} {cmd}"},
        binaries={"openmpi": "/bench/openmpi/bin/mpimeter-bench"}, timeout_s=60.0, order=order)


def runner(state, folder, fake, **kw):
    return CampaignRunner(state, folder, fake, base_env={"PATH": "/usr/bin"}, local_cores=lambda: 4, **kw)


def measured(folder: Path, rec: LaunchRecord) -> set[tuple[str, int]]:
    meta = json.loads((folder / rec.folder / "meta.json").read_text())
    return {(t["op"], t["size"]) for t in meta["tests"] if t["status"] == "complete"}


ALL = {("allreduce", 8), ("allreduce", 64), ("allreduce", 1024), ("barrier", 0)}


def test_a_crash_cuts_the_launch_its_rest_runs_next_and_the_culprit_last(tmp_path):
    state = make_state()
    fake = DyingBench(("allreduce", 64), lambda out, attempt: out.name == "000")
    outcome = runner(state, tmp_path, fake).run()
    assert outcome.status == "complete", outcome
    kinds = [(r.index, r.status, (r.piece or {}).get("kind")) for r in state.launches]
    assert kinds[0] == (0, "cut", None) and kinds[1] == (1, "complete", None)
    first = state.launches[0]
    assert first.cut == {"test": 1, "op": "allreduce", "size": 64, "how": "crashed", "finished": 1}
    rest = [r for r in state.launches if (r.piece or {}).get("kind") == "rest"]
    retry = [r for r in state.launches if (r.piece or {}).get("kind") == "retry"]
    assert len(retry) == 1 and retry[0].tests == {"ops": ["allreduce"], "sizes": [64]}
    # the rest ran right after the cut launch, before launch 1; the culprit after everything
    ran = [c if isinstance(c, Path) else c.out for c in fake.calls]
    assert ran.index(tmp_path / rest[0].folder) < ran.index(tmp_path / state.launches[1].folder)
    assert ran[-1] == tmp_path / retry[0].folder
    assert set().union(measured(tmp_path, first), *(measured(tmp_path, r) for r in rest)) == ALL - {("allreduce", 64)}
    assert measured(tmp_path, retry[0]) == {("allreduce", 64)}
    assert [(f.launch, f.status, len(f.attempts)) for f in state.failed_tests] == [(0, "passed", 1)]
    disk = json.loads((tmp_path / "campaign.json").read_text())
    assert disk["counts"]["cut"] == 1 and disk["failed_tests"][0]["status"] == "passed"


def test_a_test_that_crashes_every_time_fails_after_its_retries(tmp_path):
    state = make_state(launches=1)
    fake = DyingBench(("barrier", 0), lambda out, attempt: True)
    outcome = runner(state, tmp_path, fake, retries=2).run()
    assert outcome.status == "failed" and "1 test(s) crashed or hung in every attempt" in outcome.message
    retries = [r for r in state.launches if (r.piece or {}).get("kind") == "retry"]
    assert len(retries) == 2 and all(r.status == "cut" for r in retries)
    (failed,) = state.failed_tests
    assert failed.status == "failed" and [a["launch"] for a in failed.attempts] == [0] + [r.index for r in retries]


def test_a_hang_is_recorded_as_hung(tmp_path):
    state = make_state(launches=1)
    fake = DyingBench(("allreduce", 8), lambda out, attempt: out.name == "000", how="hang")
    assert runner(state, tmp_path, fake).run().status == "complete"
    assert state.launches[0].cut["how"] == "hung" and state.failed_tests[0].attempts[0]["how"] == "hung"


def test_resume_keeps_the_retry_state(tmp_path):
    state = make_state(launches=1)
    stop_at_retry = DyingBench(("barrier", 0), lambda out, attempt: True)
    original_run = stop_at_retry.run

    def run(argv, **kw):
        if arg_value(argv, "--ops") == "barrier":  # the retry launch: Ctrl-C
            raise KeyboardInterrupt
        return original_run(argv, **kw)

    stop_at_retry.run = run
    assert runner(state, tmp_path, stop_at_retry).run().status == "interrupted"
    loaded = st.load(tmp_path)
    assert [(f.op, f.status, len(f.attempts)) for f in loaded.failed_tests] == [("barrier", "retrying", 1)]
    retry = loaded.launches[-1]
    assert retry.piece == {"of": 0, "kind": "retry"} and retry.status == "incomplete"
    assert loaded.launches[0].status == "cut" and loaded.launches[0].cut["op"] == "barrier"
    # resumed: the retry launch runs (and passes now); the cut launch and its rest are not redone
    fake = FakeExecutor()
    assert runner(loaded, tmp_path, fake, resumed=True).run().status == "complete"
    assert [c.out for c in fake.calls] == [tmp_path / retry.folder]
    assert loaded.failed_tests[0].status == "passed"


def test_resume_gives_a_failed_test_more_retries(tmp_path):
    state = make_state(launches=1)
    runner(state, tmp_path, DyingBench(("barrier", 0), lambda out, attempt: True), retries=0).run()
    assert state.failed_tests[0].status == "failed"
    loaded = st.load(tmp_path)
    assert runner(loaded, tmp_path, FakeExecutor(), resumed=True).run().status == "complete"
    assert loaded.failed_tests[0].status == "passed"


# --- campaign.json read back -------------------------------------------------------------------

def _written(tmp_path) -> dict:
    state = make_state(launches=1)
    runner(state, tmp_path, DyingBench(("allreduce", 64), lambda out, attempt: out.name == "000")).run()
    return json.loads((tmp_path / "campaign.json").read_text())


@pytest.mark.parametrize("change, key", [
    (lambda d: d["launches"][-1].update(piece={"of": 0, "kind": "whole"}), "piece"),
    (lambda d: d["launches"][-1].update(piece={"of": -1, "kind": "retry"}), "piece"),
    (lambda d: d["launches"][0].update(cut={"test": 1, "op": "allreduce", "size": 64, "how": "slow", "finished": 1}), "cut"),
    (lambda d: d["failed_tests"][0].update(status="maybe"), "failed_tests[0].status"),
    (lambda d: d["failed_tests"][0].update(alternative="mpich"), "failed_tests[0].alternative"),
    (lambda d: d["failed_tests"][0]["attempts"].append({"launch": 0, "how": "crashed"}), "failed_tests[0].attempts"),
    (lambda d: d.update(test_timeout_s=0), "test_timeout_s"),
    (lambda d: d.update(test_timeout_s="5"), "test_timeout_s"),
    (lambda d: d["launches"][-1].update(piece=None), "index"),  # a piece's index beyond the plan
])
def test_resume_refuses_a_forged_retry_record(tmp_path, change, key):
    disk = _written(tmp_path)
    change(disk)
    (tmp_path / "campaign.json").write_text(json.dumps(disk))
    with pytest.raises(st.CampaignFileError, match=key.replace("[", r"\[").replace("]", r"\]")):
        st.load(tmp_path)


def test_the_record_reads_back_as_written(tmp_path):
    disk = _written(tmp_path)
    loaded = st.load(tmp_path)
    assert loaded.to_json()["launches"] == disk["launches"]
    assert loaded.to_json()["failed_tests"] == disk["failed_tests"]


def test_the_test_timeout_is_above_0_and_at_most_the_launch_timeout():
    assert limits.check_test_timeout(30, 60.0) == 30.0
    for bad in (0, -1, 61, float("nan"), True):
        with pytest.raises(plan.PlanError, match="--test-timeout"):
            limits.check_test_timeout(bad, 60.0)


def test_the_analysis_warns_about_a_test_that_failed_every_attempt(tmp_path):
    from mpimeter.io.campaign import load

    state = make_state(launches=2)
    runner(state, tmp_path, FakeExecutor()).run()
    assert [w for w in load(tmp_path).warnings if w.code == "test-failed-every-attempt"] == []
    disk = json.loads((tmp_path / "campaign.json").read_text())
    disk["failed_tests"] = [{"alternative": "openmpi", "launch": 1, "op": "barrier", "size": 0, "status": "failed",
                             "attempts": [{"launch": 1, "how": "crashed", "reason": "exit code 137"},
                                          {"launch": 2, "how": "hung", "reason": "hung: …"}]},
                            {"alternative": "openmpi", "launch": 0, "op": "bcast", "size": 8, "status": "passed",
                             "attempts": [{"launch": 0, "how": "crashed", "reason": "exit code 137"}]}]
    (tmp_path / "campaign.json").write_text(json.dumps(disk))
    (found,) = [w for w in load(tmp_path).warnings if w.code == "test-failed-every-attempt"]
    assert "openmpi barrier 0" in found.message and "(2: crashed, hung)" in found.message
    assert "launch 001" in found.message


def test_the_executor_stops_a_launch_its_watch_says_to_stop(tmp_path):
    """The real executor polls `watch` while the command runs and stops it when told, saying why
    (no MPI: a sleeping Python process stands for a launch whose test hangs)."""
    import os
    import sys

    from mpimeter.campaign.executor import SubprocessExecutor

    polls = []

    def watch():
        polls.append(1)
        return "hung: test 0 (allreduce 8) ran past --test-timeout 1 s (stopped)" if len(polls) >= 3 else None

    result = SubprocessExecutor(grace_s=2.0).run(
        [sys.executable, "-c", "import time; time.sleep(120)"], env=dict(os.environ), timeout_s=100.0,
        stdout_path=tmp_path / "out", stderr_path=tmp_path / "err", watch=watch)
    assert result.stopped_because.startswith("hung: test 0") and not result.timed_out
    assert result.exit_code is None and len(polls) == 3
