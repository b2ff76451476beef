# SPDX-License-Identifier: BSD-3-Clause
"""The campaign loop with a fake executor (no MPI): order, failures and retries, hangs, Ctrl-C,
resume, never overwriting a launch folder, bad input."""

import io
import json
import os
from pathlib import Path

import pytest

from mpimeter.campaign import plan
from mpimeter.campaign import state as st
from mpimeter.campaign.benchargs import BenchArgs
from mpimeter.campaign.fake import FakeExecutor
from mpimeter.campaign.progress import PlainProgress, RichProgress
from mpimeter.campaign.runner import CampaignRunner, new_state


def make_state(alternatives=("openmpi", "mpich"), launches=3, seed=11, env=None):
    alts = [plan.Alternative(a, a if a in ("openmpi", "mpich") else "openmpi",
                             dict((env or {}).get(a, {}))) for a in alternatives]
    order = plan.interleave([a.name for a in alts], launches, seed)
    return new_state(command="mpimeter run (test)", bench_args=BenchArgs.parse(["--ops", "bcast,allreduce",
                     "--sizes", "8,1024", "--nrep", "20"]), launcher="local", np=2,
                     launches=launches, seed=seed, alternatives=alts,
                     templates={a.name: "fakempirun -np {np} {cmd}" for a in alts},
                     binaries={a.name: f"/bench/{a.mpi}/bin/mpimeter-bench" for a in alts},
                     timeout_s=60.0, order=order)


def run(state, folder, executor, **kw):
    return CampaignRunner(state, folder, executor, base_env={"PATH": "/usr/bin"}, **kw).run()


def on_disk(folder) -> dict:
    return json.loads((Path(folder) / "campaign.json").read_text())


def planned(state):
    return [(r.alternative, r.index) for r in state.launches]


def called(fake, folder):
    return [str(c.out.relative_to(folder)) for c in fake.calls]


def test_all_launches_run_in_the_planned_order_with_their_seed_and_folder(tmp_path):
    state = make_state(env={"mpich": {"MPIR_CVAR_X": "1"}})
    fake = FakeExecutor()
    outcome = run(state, tmp_path, fake)
    assert outcome.status == "complete"
    assert called(fake, tmp_path) == [r.folder for r in state.launches]
    assert [r.folder for r in state.launches][:2] != ["mpich/launches/000"] * 2
    for call, rec in zip(fake.calls, state.launches):
        assert call.argv[:3] == ["fakempirun", "-np", "2"]
        assert call.argv[3] == f"/bench/{rec.alternative}/bin/mpimeter-bench"
        assert call.seed == rec.seed
        assert call.argv[-4:] == ["--seed", str(rec.seed), "--out", str(tmp_path / rec.folder)]
        assert call.env.get("MPIR_CVAR_X") == ("1" if rec.alternative == "mpich" else None)
        assert call.timeout_s == 60.0
    disk = on_disk(tmp_path)
    assert disk["status"] == "complete" and disk["schema_version"] == 1
    assert [(x["alternative"], x["index"]) for x in disk["launches"]] == planned(state)
    for x in disk["launches"]:
        assert x["status"] == "complete" and x["exit_code"] == 0 and x["retries"] == 0
        assert (tmp_path / x["folder"] / "meta.json").is_file()
        assert x["duration_s"] == 1.0 and set(x) >= {"alternative", "index", "status", "seed",
                                                     "exit_code", "duration_s"}
    assert disk["counts"]["complete"] == 6
    assert len(disk["history"]) == 6 and disk["sessions"][0]["outcome"] == "complete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign.json", "mpich", "openmpi"]


def test_one_alternative_keeps_launches_at_the_top(tmp_path):
    state = make_state(alternatives=("openmpi",), launches=2)
    run(state, tmp_path, FakeExecutor())
    assert [r.folder for r in state.launches] == ["launches/000", "launches/001"]
    assert (tmp_path / "launches" / "001" / "raw.csv").is_file()


def test_a_failed_launch_is_retried_once_at_the_end(tmp_path):
    state = make_state()
    fake = FakeExecutor({"mpich/launches/001": ["fail", "ok"]})
    outcome = run(state, tmp_path, fake)
    assert outcome.status == "complete"
    order = called(fake, tmp_path)
    assert order[:6] == [r.folder for r in state.launches]
    assert order[6:] == ["mpich/launches/001"]  # the retry, after everything else
    rec = state.launch("mpich", 1)
    assert (rec.status, rec.retries, rec.attempts) == ("complete", 1, 2)
    prev = rec.previous_attempts[0]
    assert (prev.status, prev.reason, prev.exit_code) == ("failed", "exit code 1", 1)
    assert "segmentation fault" in prev.stderr_tail
    assert prev.folder == "mpich/attempts/001.1"
    moved = json.loads((tmp_path / prev.folder / "meta.json").read_text())
    assert moved["status"] == "running"  # the failed attempt's data, kept aside
    assert json.loads((tmp_path / rec.folder / "meta.json").read_text())["status"] == "complete"
    assert [h["status"] for h in on_disk(tmp_path)["history"]].count("failed") == 1


def test_a_launch_failing_twice_stays_failed_and_the_campaign_goes_on(tmp_path):
    state = make_state()
    fake = FakeExecutor({"openmpi/launches/000": ["crash"]})
    outcome = run(state, tmp_path, fake)
    assert outcome.status == "failed"
    assert called(fake, tmp_path).count("openmpi/launches/000") == 2
    assert len(fake.calls) == 7
    rec = state.launch("openmpi", 0)
    assert (rec.status, rec.retries, rec.reason) == ("failed", 1, "exit code 1")
    assert rec.previous_attempts[0].folder is None  # the crash wrote nothing
    assert sum(r.status == "complete" for r in state.launches) == 5
    assert on_disk(tmp_path)["status"] == "failed"


@pytest.mark.parametrize("outcome, reason", [
    ("hang", "timed out after 60 s (terminated)"),
    ("killed", "killed by SIGKILL"),
    ("empty", "exit code 0 but no meta.json in the launch folder"),
])
def test_hangs_kills_and_missing_results_are_failures_with_a_reason(tmp_path, outcome, reason):
    state = make_state(alternatives=("openmpi",), launches=2)
    fake = FakeExecutor({"launches/001": [outcome, "ok"]})
    assert run(state, tmp_path, fake).status == "complete"
    rec = state.launch("openmpi", 1)
    # a timeout's reason goes on with what the launch was doing (campaign.timeout)
    assert rec.previous_attempts[0].reason.split(";")[0] == reason
    assert rec.previous_attempts[0].status == "failed"


def test_no_retries_when_asked(tmp_path):
    state = make_state(alternatives=("openmpi",), launches=2)
    fake = FakeExecutor({"launches/000": ["fail", "ok"]})
    assert run(state, tmp_path, fake, retries=0).status == "failed"
    assert len(fake.calls) == 2


def test_ctrl_c_mid_launch_stops_and_leaves_campaign_json_consistent(tmp_path):
    state = make_state()
    stop_at = state.launches[2].folder
    fake = FakeExecutor({stop_at: ["interrupt"]})
    outcome = run(state, tmp_path, fake)
    assert outcome.status == "interrupted"
    assert called(fake, tmp_path) == [r.folder for r in state.launches[:3]]  # nothing after
    disk = on_disk(tmp_path)
    assert disk["status"] == "interrupted"
    statuses = [x["status"] for x in disk["launches"]]
    assert statuses == ["complete", "complete", "incomplete", "pending", "pending", "pending"]
    assert disk["launches"][2]["reason"] == "interrupted (Ctrl-C, SIGTERM or SIGHUP)"
    assert disk["launches"][2]["ended"] is not None
    assert disk["sessions"][-1]["outcome"] == "interrupted"
    assert not list(tmp_path.glob(".campaign.*.tmp"))


def test_resume_skips_complete_launches_and_redoes_the_others(tmp_path):
    state = make_state()
    interrupted_at = state.launches[2]
    run(state, tmp_path, FakeExecutor({interrupted_at.folder: ["interrupt"]}))
    resumed = st.load(tmp_path)
    fake = FakeExecutor()
    outcome = run(resumed, tmp_path, fake, resumed=True)
    assert outcome.status == "complete"
    assert called(fake, tmp_path) == [r.folder for r in state.launches[2:]]
    rec = resumed.launch(interrupted_at.alternative, interrupted_at.index)
    assert rec.attempts == 2 and rec.previous_attempts[0].status == "incomplete"
    aside = tmp_path / rec.previous_attempts[0].folder
    assert aside.parent.name == "attempts" and (aside / "meta.json").is_file()
    disk = on_disk(tmp_path)
    assert all(x["status"] == "complete" for x in disk["launches"])
    assert [s["resumed"] for s in disk["sessions"]] == [False, True]
    assert [s["outcome"] for s in disk["sessions"]] == ["interrupted", "complete"]


def test_resume_redoes_failed_launches_too(tmp_path):
    state = make_state(alternatives=("mpich",), launches=3)
    run(state, tmp_path, FakeExecutor({"launches/001": ["fail"]}))
    assert state.launch("mpich", 1).status == "failed"
    fake = FakeExecutor()
    assert run(st.load(tmp_path), tmp_path, fake, resumed=True).status == "complete"
    assert called(fake, tmp_path) == ["launches/001"]
    rec = st.load(tmp_path).launch("mpich", 1)
    assert rec.attempts == 3
    assert [a.folder for a in rec.previous_attempts] == ["attempts/001.1", "attempts/001.2"]


def test_resume_after_the_runner_itself_was_killed(tmp_path):
    """A SIGKILLed `mpimeter run` leaves its running launch `incomplete` on disk (it is marked
    so before it starts) and possibly a half-written folder."""
    state = make_state(alternatives=("openmpi",), launches=2)

    class DieDuringSecondLaunch(FakeExecutor):
        def run(self, argv, **kw):
            if len(self.calls) == 1:
                disk = on_disk(tmp_path)
                assert disk["launches"][1]["status"] == "incomplete"
                (tmp_path / "launches" / "001").mkdir()
                (tmp_path / "launches" / "001" / "meta.json").write_text('{"status": "running"}')
                raise SystemExit("killed")  # nothing after this line runs in the runner
            return super().run(argv, **kw)

    with pytest.raises(SystemExit):
        run(state, tmp_path, DieDuringSecondLaunch())
    resumed = st.load(tmp_path)
    assert [r.status for r in resumed.launches] == ["complete", "incomplete"]
    fake = FakeExecutor()
    assert run(resumed, tmp_path, fake, resumed=True).status == "complete"
    assert called(fake, tmp_path) == ["launches/001"]
    assert (tmp_path / "attempts" / "001.1" / "meta.json").read_text() == '{"status": "running"}'


def test_a_launch_folder_is_never_overwritten(tmp_path):
    """The fake bench refuses a non-empty --out (as mpimeter-bench does); a folder already at
    the place an attempt would be moved to is not overwritten either."""
    state = make_state(alternatives=("openmpi",), launches=1)
    (tmp_path / "attempts" / "000.1").mkdir(parents=True)
    (tmp_path / "attempts" / "000.1" / "keep").write_text("mine")
    fake = FakeExecutor({"launches/000": ["fail", "fail", "ok"]})
    run(state, tmp_path, fake)
    run(st.load(tmp_path), tmp_path, fake, resumed=True)
    assert (tmp_path / "attempts" / "000.1" / "keep").read_text() == "mine"
    rec = st.load(tmp_path).launch("openmpi", 0)
    assert rec.status == "complete"
    assert [a.folder for a in rec.previous_attempts] == ["attempts/000.1-1", "attempts/000.2"]
    for a in rec.previous_attempts:
        assert json.loads((tmp_path / a.folder / "meta.json").read_text())["status"] == "running"


def test_bad_input_refused_by_the_first_launch_stops_the_campaign(tmp_path):
    state = make_state()
    fake = FakeExecutor(lambda out, attempt: "refuse")
    outcome = run(state, tmp_path, fake)
    assert outcome.status == "refused"
    assert "unknown operation 'allredux'" in outcome.message
    assert len(fake.calls) == 1
    assert on_disk(tmp_path)["status"] == "refused"


def test_exit_2_after_a_complete_launch_is_an_ordinary_failure(tmp_path):
    state = make_state(alternatives=("openmpi",), launches=3)
    fake = FakeExecutor({"launches/001": ["refuse", "ok"]})
    assert run(state, tmp_path, fake).status == "complete"
    assert len(fake.calls) == 4


def test_campaign_json_is_consistent_while_a_launch_runs(tmp_path):
    seen = []

    class Peek(FakeExecutor):
        def run(self, argv, **kw):
            disk = on_disk(tmp_path)
            seen.append([x["status"] for x in disk["launches"]])
            return super().run(argv, **kw)

    run(make_state(alternatives=("a",), launches=3), tmp_path, Peek())
    assert seen == [["incomplete", "pending", "pending"],
                    ["complete", "incomplete", "pending"],
                    ["complete", "complete", "incomplete"]]


def test_unknown_schema_version_is_refused(tmp_path):
    run(make_state(alternatives=("a",), launches=1), tmp_path, FakeExecutor())
    disk = on_disk(tmp_path)
    disk["schema_version"] = 99
    (tmp_path / "campaign.json").write_text(json.dumps(disk))
    with pytest.raises(st.CampaignFileError, match="schema_version 99"):
        st.load(tmp_path)
    (tmp_path / "campaign.json").write_text("{")
    with pytest.raises(st.CampaignFileError, match="does not parse as JSON"):
        st.load(tmp_path)


# --- the progress display agrees with campaign.json ------------------------------------------

def progress_lines(stream) -> list[str]:
    return stream.getvalue().splitlines()


def record_counts(folder) -> tuple[str, str]:
    """What the display must end on, from campaign.json itself."""
    c = on_disk(folder)["counts"]
    return (f"[{c['complete'] + c['failed']}/{sum(c.values())}]",
            f"complete {c['complete']}, failed {c['failed']}" + (
                f", incomplete {c['incomplete']}" if c["incomplete"] else ""))


def test_progress_after_a_ctrl_c_ends_on_the_counts_of_campaign_json(tmp_path):
    state = make_state()  # 6 launches
    fake = FakeExecutor({state.launches[1].folder: ["fail"],
                         state.launches[3].folder: ["interrupt"]})
    out = io.StringIO()
    assert run(state, tmp_path, fake, progress=PlainProgress(out)).status == "interrupted"
    lines = progress_lines(out)
    assert lines[0] == "campaign: 6 launch(es) to run of 6"
    assert len(lines) == 5  # the start line and one per launch that ran, nothing after
    done, problems = record_counts(tmp_path)
    assert (done, problems) == ("[3/6]", "complete 2, failed 1, incomplete 1")
    # every launch that ended moves the count, the failed one too
    assert [line.split()[0] for line in lines[1:]] == ["[1/6]", "[2/6]", "[3/6]", "[3/6]"]
    assert lines[-1].startswith(f"{done} {state.launches[3].alternative} #")
    assert "incomplete: interrupted" in lines[-1] and lines[-1].endswith(problems)


def test_progress_of_a_resumed_campaign_counts_what_is_already_complete(tmp_path):
    state = make_state()
    run(state, tmp_path, FakeExecutor({state.launches[1].folder: ["fail"],
                                       state.launches[3].folder: ["interrupt"]}))
    out = io.StringIO()
    fake = FakeExecutor()
    assert run(st.load(tmp_path), tmp_path, fake, resumed=True,
               progress=PlainProgress(out)).status == "complete"
    lines = progress_lines(out)
    assert lines[0] == "campaign: 4 launch(es) to run of 6 (2 already complete)"
    assert [line.split()[0] for line in lines[1:]] == ["[3/6]", "[4/6]", "[5/6]", "[6/6]"]
    # the launch that failed in the first session is redone first; until the interrupted one
    # is redone, campaign.json still counts it incomplete
    assert lines[1].endswith("failed 0, incomplete 1")
    assert lines[-1].endswith("failed 0") and record_counts(tmp_path) == ("[6/6]", "complete 6, failed 0")


def test_progress_forgets_a_failure_once_its_retry_completes(tmp_path):
    state = make_state(alternatives=("mpich",), launches=2)
    out = io.StringIO()
    run(state, tmp_path, FakeExecutor({"launches/000": ["fail", "ok"]}),
        progress=PlainProgress(out))
    lines = progress_lines(out)
    assert lines[1].startswith("[1/2] mpich #000 failed") and lines[1].endswith("complete 0, failed 1")
    assert lines[2].startswith("[2/2] mpich #001 complete")
    assert lines[-1].startswith("[2/2] mpich #000 (attempt 2) complete")
    assert lines[-1].endswith("failed 0")


def test_progress_after_a_ctrl_c_between_two_launches(tmp_path):
    """A Ctrl-C after a launch was marked started but before it ran: no launch line shows it,
    so the display ends with a line of the record's counts."""
    state = make_state(alternatives=("mpich",), launches=3)

    class CtrlCAtThirdStart(PlainProgress):
        def launch_started(self, rec):
            if rec.index == 2:
                raise KeyboardInterrupt

    out = io.StringIO()
    assert run(state, tmp_path, FakeExecutor(), progress=CtrlCAtThirdStart(out)).status == \
        "interrupted"
    done, problems = record_counts(tmp_path)
    assert (done, problems) == ("[2/3]", "complete 2, failed 0, incomplete 1")
    last = progress_lines(out)[-1]
    assert last.startswith(f"{done} stopped |") and last.endswith(f"{problems}, pending 0")


def test_rich_progress_ends_on_the_counts_of_campaign_json(tmp_path):
    from rich.console import Console

    state = make_state()
    stream = io.StringIO()
    progress = RichProgress(Console(file=stream, width=200, force_terminal=False))
    fake = FakeExecutor({state.launches[1].folder: ["fail"],
                         state.launches[3].folder: ["interrupt"]})
    assert run(state, tmp_path, fake, progress=progress).status == "interrupted"
    final = stream.getvalue().strip().splitlines()[-1]
    assert "3/6" in final and "complete 2, failed 1, incomplete 1" in final


# --- what a resume needs to stop a launch that outlived its runner --------------------------------

def test_each_launch_is_marked_with_an_id_recorded_before_it_starts(tmp_path):
    seen = []

    class Peek(FakeExecutor):
        def run(self, argv, **kw):
            seen.append((on_disk(tmp_path)["launches"][len(self.calls)]["process"],
                         kw["env"]["MPIMETER_LAUNCH_ID"]))
            return super().run(argv, **kw)

    run(make_state(alternatives=("a",), launches=2), tmp_path, Peek())
    folder = os.stat(tmp_path)
    assert [f"{process['launch_id']}@{folder.st_dev}:{folder.st_ino}" for process, _ in seen] == \
        [marker for _, marker in seen]  # the recorded id, bound to this campaign folder
    assert len({marker for _, marker in seen}) == 2
    assert all(process["host"] and "pid" not in process for process, _ in seen)


def test_resume_asks_about_every_unfinished_launch_before_running_any(tmp_path):
    state = make_state()
    run(state, tmp_path, FakeExecutor({state.launches[1].folder: ["fail"],
                                       state.launches[3].folder: ["interrupt"]}))
    said = []

    class Leftover(FakeExecutor):
        def stop_leftover(self, process, marker):
            super().stop_leftover(process, marker)
            assert not self.calls  # before anything is redone
            return "was still running (pid 1): stopped it (SIGTERM)"

    fake = Leftover()
    resumed = st.load(tmp_path)
    unfinished = [r.process["launch_id"] for r in resumed.launches
                  if r.status != "complete" and r.process]
    assert run(resumed, tmp_path, fake, resumed=True, notify=said.append).status == "complete"
    assert [p["launch_id"] for p in fake.leftover_checks] == unfinished and len(unfinished) == 2
    assert all(p["marker"].startswith(p["launch_id"] + "@") for p in fake.leftover_checks)
    rec = state.launches[3]
    assert said[1] == (f"launch {rec.alternative} #{rec.index:03d} (attempt 1, started "
                       f"{resumed.launch(rec.alternative, rec.index).previous_attempts[0].started}"
                       ") was still running (pid 1): stopped it (SIGTERM)")


def test_sizes_auto_a_pilot_decides_the_sizes_of_every_launch(tmp_path):
    """--sizes auto in a campaign (issue 25): the first launch refines, campaign.json records the
    sizes it measured, and every other launch of every alternative measures exactly those (the fake
    bench adds a different size in each launch it lets refine)."""
    state = make_state(launches=3)
    state.bench_args = BenchArgs.parse(["--ops", "bcast,allreduce", "--sizes", "auto:8:1024", "--sizes-budget", "4", "--nrep", "20"])
    fake = FakeExecutor()
    assert run(state, tmp_path, fake).status == "complete"
    doc = on_disk(tmp_path)
    pilot = doc["sizes_pilot"]
    first = doc["launches"][0]
    assert (pilot["alternative"], pilot["index"]) == (first["alternative"], first["index"])
    assert pilot["ops"] == ["bcast", "allreduce"] and len(pilot["sizes"]) == 9  # 8 … 1024 and one added
    measured = []
    for c in fake.calls:
        meta = json.loads((c.out / "meta.json").read_text())
        measured.append(sorted({t["size"] for t in meta["tests"]}))
    assert all(m == pilot["sizes"] for m in measured) and len(measured) == 6
    later = [c.argv for c in fake.calls[1:]]
    assert all("--sizes-budget" not in a and "auto:8:1024" not in " ".join(a) for a in later)
    assert all(r["tests"] == {"ops": pilot["ops"], "sizes": pilot["sizes"]} for r in doc["launches"][1:])
    # campaign.json reads back (the tests of the later launches are the pilot's, not --launches auto's)
    assert st.CampaignState.from_json(doc, tmp_path / "campaign.json").sizes_pilot.sizes == pilot["sizes"]


def test_sizes_auto_a_failing_pilot_runs_nothing_else(tmp_path):
    state = make_state(launches=2)
    state.bench_args = BenchArgs.parse(["--ops", "bcast", "--sizes", "auto:8:64", "--nrep", "20"])
    first = state.launches[0].folder
    fake = FakeExecutor({first: ["crash", "crash"]})
    outcome = run(state, tmp_path, fake)
    assert outcome.status == "refused" and "pilot" in outcome.message
    assert len(fake.calls) == 2 and on_disk(tmp_path)["sizes_pilot"]["sizes"] is None


class _SeparateJobs(FakeExecutor):
    """srun without an MPI plugin the library understands (or another library's mpirun): each
    of the launch's processes is a one-rank MPI job writing to the same --out; the first writes
    a complete one-rank folder, the next is refused by the bench ("--out exists")."""

    def __init__(self, exit_code: int):
        super().__init__(nranks=1)
        self.exit_code = exit_code

    def run(self, argv, **kw):
        done = super().run(argv, **kw)
        if self.exit_code == 0:
            return done
        message = "mpimeter-bench: --out x exists and is not empty; choose a new folder or pass --force"
        return type(done)(self.exit_code, done.duration_s, False, message)


@pytest.mark.parametrize("exit_code", [2, 0])
def test_a_launch_whose_ranks_ran_as_separate_one_rank_jobs_fails_and_says_why(tmp_path, exit_code):
    state = make_state(alternatives=("mpich",), launches=1)
    outcome = run(state, tmp_path, _SeparateJobs(exit_code))
    assert outcome.status != "complete"
    (rec,) = state.launches
    assert rec.status == "failed"
    # the cause and what helps, not the bench's "--out exists" (whose --force cannot help)
    assert "separate 1-rank MPI jobs" in rec.reason and "SLURM_MPI_TYPE" in rec.reason, rec.reason
