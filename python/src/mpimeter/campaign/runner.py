# SPDX-License-Identifier: BSD-3-Clause
"""Running a campaign: every launch in the planned order, failures retried at the end, Ctrl-C
stopping cleanly, and `--resume` continuing where a campaign stopped.

Rules (SKaMPI §3.3 - a crash must not lose what was measured, and a restart redoes only what is
missing - applied to whole launches):
- a launch that exits non-zero, hangs past the time limit or is killed is recorded (exit code,
  reason, stderr tail), never stops the campaign, and is retried once after all other launches;
  when its folder says which test it died in, only that test is lost: the launch is `cut`, the
  tests it did not reach run at once in continuation launches, and the culprit is retried last,
  alone (SKaMPI's measurement-level retry: campaign.testretry);
- a Ctrl-C (KeyboardInterrupt) stops the running launch, marks it `incomplete` and leaves a
  consistent campaign.json; `--resume` skips complete launches and redoes all others, after
  stopping whatever still runs of a launch whose `mpimeter run` was killed (the executor finds
  it by the launch id recorded in campaign.json before the launch started);
- a launch folder is never overwritten: before a launch is redone, the folder of its previous
  attempt is renamed aside to `<alternative>/attempts/NNN.K` (K = that attempt's number), so that
  `launches/` holds exactly one folder per launch - the latest attempt - and nothing is lost;
- the first launch of an alternative refused as bad input (exit 2, nothing written, as
  mpimeter-bench does for bad options) stops the campaign: all the others would be refused too.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mpimeter.campaign import adaptive as _adaptive
from mpimeter.campaign import describe as _describe
from mpimeter.campaign import pilot as _pilot
from mpimeter.campaign import simulation as _simulation
from mpimeter.campaign import oversub, procs, secrets, testretry
from mpimeter.campaign import state as st
from mpimeter.campaign.benchargs import BenchArgs
from mpimeter.campaign.executor import Executor, ExecResult, tail
from mpimeter.campaign.launch_record import DONE_STATUSES, Attempt, LaunchRecord, alternative_prefix, launch_folder
from mpimeter.campaign.launcher import build_argv, separate_jobs_message
from mpimeter.campaign.plan import Alternative, PlannedLaunch
from mpimeter.campaign.progress import NullProgress, ProgressSink
from mpimeter.campaign.timeout import timeout_reason
from mpimeter.errors import MpimeterError
from mpimeter.io.errors import InputError
from mpimeter.io.meta import read_document

BAD_INPUT_EXIT = 2
INTERRUPTED = "interrupted (Ctrl-C, SIGTERM or SIGHUP)"


@dataclass(frozen=True)
class RunOutcome:
    status: str  # complete | failed | interrupted | refused
    message: str = ""


def new_state(*, command: str, bench_args: BenchArgs, launcher: str, np: int, launches: int,
              seed: int, alternatives: list[Alternative], templates: dict[str, str],
              binaries: dict[str, str], timeout_s: float, order: list[PlannedLaunch],
              notes: list[str] | None = None,
              adaptive: _adaptive.AdaptiveLaunches | None = None,
              np_list: list[int] | None = None) -> st.CampaignState:
    """The record of a new campaign. With `adaptive` (--launches auto), `launches` is its max
    and `order` its first `min` launches per alternative; the rule adds the rest."""
    records = [LaunchRecord(alternative=p.alternative, index=p.index, seed=p.seed,
                            folder=launch_folder(alternatives, p.alternative, p.index),
                            np=p.np)  # None with one process count: the campaign's np
               for p in order]
    now = st.now_utc()
    return st.CampaignState(command=command, bench_args=bench_args, launcher=launcher,
                            np=np, launches_per_alternative=launches, seed=seed,
                            alternatives=list(alternatives), launch_templates=dict(templates),
                            bench_binaries=dict(binaries), launch_timeout_s=timeout_s,
                            launches=records, created=now, updated=now, notes=list(notes or []),
                            adaptive=adaptive, np_list=list(np_list) if np_list and len(np_list) > 1 else [])


class CampaignRunner:
    def __init__(self, state: st.CampaignState, campaign_dir: Path, executor: Executor, *,
                 progress: ProgressSink | None = None, retries: int = 1,
                 base_env: dict[str, str] | None = None, argv: list[str] | None = None,
                 resumed: bool = False, notify: Callable[[str], None] | None = None,
                 medians_of: _adaptive.MediansSource | None = None,
                 local_cores: Callable[[], int] | None = None):
        self.state = state
        self.dir = Path(campaign_dir)
        self.executor = executor
        self.progress = progress or NullProgress()
        self.retries = retries
        self.base_env = dict(os.environ if base_env is None else base_env)
        self.session = st.session_record(argv or [], resumed, self.base_env)
        self.notify = notify or (lambda line: None)
        # --launches auto: the per-launch medians the rule judges (those of `mpimeter analyze`)
        self.medians_of = medians_of or _adaptive.analysis_medians
        self.local_cores = local_cores or oversub.local_cores
        self._completed_in: set[str] = {r.alternative for r in state.launches
                                        if r.status == "complete"}
        self._pieces: list[LaunchRecord] = []  # continuation launches to run next
        self._ran: list[LaunchRecord] = []  # every launch attempted by this session
        self._test_retries: dict[tuple[str, int, str, int], int] = {}  # retry launches run per test
        if resumed:  # --resume gives a test that failed every attempt --retries more, as a launch
            for failed in state.failed_tests:
                failed.status = "retrying" if failed.status == "failed" else failed.status

    # --- the campaign ------------------------------------------------------------------------

    def run(self) -> RunOutcome:
        state = self.state
        self._stop_leftovers()
        self.dir.mkdir(parents=True, exist_ok=True)
        state.sessions.append(self.session)
        state.status = "running"
        st.save(state, self.dir)
        todo = [rec for rec in state.launches if rec.status not in DONE_STATUSES]
        self.progress.start(total=len(state.launches), todo=len(todo), counts=state.counts())
        try:
            outcome = self._run_todo(todo)
            if state.adaptive is not None and outcome.status in ("complete", "failed"):
                outcome = self._adaptive_rounds()
            state.status = outcome.status
            self.session["ended"] = st.now_utc()
            self.session["outcome"] = outcome.status
            st.save(state, self.dir)
        finally:  # the display ends on what campaign.json says, whatever stopped the campaign
            self.progress.close(state.counts())
        return outcome

    def _run_todo(self, todo: list[LaunchRecord]) -> RunOutcome:
        try:
            todo = self._pilot_first(todo)
            for rec in todo:
                self._attempt_with_pieces(rec)
            for _ in range(self.retries):
                for rec in [r for r in self._ran if r.status == "failed" and not _is_retry(r)]:
                    self._attempt_with_pieces(rec)
            self._retry_tests()
        except KeyboardInterrupt:
            return RunOutcome("interrupted", "interrupted; the running launch was stopped "
                              "and marked incomplete")
        except _Refused as refused:
            return RunOutcome("refused", refused.message)
        return self._outcome()

    def _outcome(self) -> RunOutcome:
        failed = sum(r.status not in DONE_STATUSES and not _is_retry(r) for r in self.state.launches)
        lost = sum(f.status == "failed" for f in self.state.failed_tests)
        said = ([f"{failed} launch(es) did not complete"] if failed else []) + (
            [f"{lost} test(s) crashed or hung in every attempt"] if lost else [])
        return RunOutcome("failed", "; ".join(said)) if said else RunOutcome("complete")

    # --- measurement-level retry (campaign.testretry) ---------------------------------------------

    def _attempt_with_pieces(self, rec: LaunchRecord) -> None:
        """One attempt, then at once the continuation launches of whatever test cut it."""
        queue = [rec]
        while queue:
            current = queue.pop(0)
            self._attempt(current)
            self._decide_sizes(current)
            self._ran.append(current)
            self._after_retry(current)
            queue.extend(self._pieces)
            self._pieces.clear()

    def _cut_of(self, rec: LaunchRecord) -> testretry.Cut | None:
        allowed = (rec.tests or {}).get("ops") or list(self.state.bench_args.ops)
        return testretry.find_cut(self.dir / rec.folder, allowed)

    def _split(self, rec: LaunchRecord, cut: testretry.Cut, how: str) -> None:
        """The cut launch's record, its culprit's, and its continuation launches (queued)."""
        rec.cut = {"test": cut.test, "op": cut.op, "size": cut.size, "how": how, "finished": cut.finished}
        of = rec.piece["of"] if rec.piece else rec.index
        failed = next((f for f in self.state.failed_tests
                       if f.matches(rec.alternative, of, cut.op, cut.size)), None)
        if failed is None:
            failed = testretry.FailedTest(alternative=rec.alternative, launch=of, op=cut.op, size=cut.size)
            self.state.failed_tests.append(failed)
        failed.attempts.append({"launch": rec.index, "how": how, "reason": rec.reason})
        for tests in testretry.rest_launches(cut.rest, list(self.state.bench_args.ops)):
            self._pieces.append(self._new_piece(rec, tests, "rest"))
        st.save(self.state, self.dir)
        self.notify(f"launch {rec.alternative} #{rec.index:03d}: test {cut.test} ({cut.op} {cut.size}) "
                    f"{how}; {cut.finished} test(s) finished are kept, {len(cut.rest)} go on in "
                    f"{len(self._pieces)} launch(es) of their own, and it is retried last")

    def _new_piece(self, parent: LaunchRecord, tests: dict, kind: str) -> LaunchRecord:
        state = self.state
        index = sum(r.alternative == parent.alternative for r in state.launches)
        piece = LaunchRecord(alternative=parent.alternative, index=index, seed=parent.seed,
                             folder=launch_folder(state.alternatives, parent.alternative, index),
                             tests=tests, np=parent.np,
                             piece={"of": parent.piece["of"] if parent.piece else parent.index, "kind": kind})
        state.launches.append(piece)
        self.progress.extend(1)
        return piece

    def _retry_tests(self) -> None:
        """Each test that cut a launch, alone in a launch of its own, until it passes or has had
        --retries retries; the ones left are `failed`."""
        state = self.state
        while True:
            due = [f for f in state.failed_tests if f.status == "retrying"
                   and self._test_retries.get(_key(f), 0) < self.retries]
            if not due:
                break
            for failed in due:
                self._test_retries[_key(failed)] = self._test_retries.get(_key(failed), 0) + 1
                parent = state.launch(failed.alternative, failed.launch)
                self._attempt_with_pieces(self._new_piece(
                    parent, {"ops": [failed.op], "sizes": [failed.size]}, "retry"))
        for failed in state.failed_tests:
            if failed.status == "retrying":
                failed.status = "failed"
        st.save(state, self.dir)

    def _after_retry(self, rec: LaunchRecord) -> None:
        """A retry launch's end in its test's record: passed, or one more attempt (a cut one
        was counted by _split)."""
        if not _is_retry(rec) or not rec.tests:
            return
        failed = next((f for f in self.state.failed_tests if f.matches(
            rec.alternative, rec.piece["of"], rec.tests["ops"][0], rec.tests["sizes"][0])), None)
        if failed is None:
            return
        if rec.status == "complete":
            failed.status = "passed"
        elif rec.status != "cut":
            failed.attempts.append({"launch": rec.index, "how": "crashed", "reason": rec.reason})
        st.save(self.state, self.dir)

    # --- --sizes auto: a pilot decides the sizes (pilot.py) --------------------------------------

    def _pilot_first(self, todo: list[LaunchRecord]) -> list[LaunchRecord]:
        """With --sizes auto and nothing decided: the pilot is the first launch of the campaign
        (recorded in campaign.json); it runs, with its retries, before any other."""
        state = self.state
        if not _pilot.wanted(state.bench_args) or not todo:
            return todo
        if state.sizes_pilot is None:
            first = state.launches[0]
            state.sizes_pilot = _pilot.SizesPilot(first.alternative, first.index)
            st.save(state, self.dir)
        if state.sizes_pilot.decided:
            return todo
        pilot = next((r for r in state.launches if (r.alternative, r.index) ==
                      (state.sizes_pilot.alternative, state.sizes_pilot.index)), None)
        if pilot is not None and pilot in todo:
            for _ in range(self.retries + 1):
                if pilot.status == "complete":
                    break
                self._attempt(pilot)
                self._decide_sizes(pilot)
            if pilot.status != "complete":
                raise _Refused(f"the --sizes auto pilot launch ({pilot.alternative} #{pilot.index:03d}) did not "
                               f"complete ({pilot.reason}): no sizes were decided and no other launch was run")
            return [r for r in todo if r is not pilot]
        return todo

    def _decide_sizes(self, rec: LaunchRecord) -> None:
        """After the pilot completed: its sizes become every other launch's (campaign.json)."""
        sp = self.state.sizes_pilot
        if sp is None or sp.decided or rec.status != "complete" or (rec.alternative, rec.index) != (
                sp.alternative, sp.index):
            return
        ops_order = list(self.state.bench_args.ops)
        try:
            sp.ops, sp.sizes = _pilot.decide(self.dir / rec.folder, ops_order)
        except (InputError, ValueError, OSError) as exc:
            raise _Refused(f"the --sizes auto pilot launch ({rec.alternative} #{rec.index:03d}): {exc}") from exc
        for other in self.state.launches:
            if other is not rec and other.status != "complete":
                other.tests = sp.tests()
        st.save(self.state, self.dir)
        self.notify(f"--sizes auto: the pilot launch {rec.alternative} #{rec.index:03d} decided "
                    f"{len(sp.sizes)} sizes; every other launch measures them")

    # --- --launches auto ----------------------------------------------------------------------

    def _adaptive_rounds(self) -> RunOutcome:
        """Judges every pair on the launches so far, adds a round of launches for the open
        ones and runs it, until no pair is open (campaign.adaptive)."""
        state, rule = self.state, self.state.adaptive
        names = [a.name for a in state.alternatives]
        while True:
            try:
                medians = self.medians_of(self.dir, names)
            except (InputError, ValueError, OSError) as exc:  # the folder as read (AnalysisError)
                self.notify(f"--launches auto: cannot judge the launches ({exc}); no launch added")
                st.save(state, self.dir)
                return RunOutcome("failed", f"--launches auto could not judge the launches: {exc}")
            _adaptive.update(rule, medians)
            new = self._plan_round()
            st.save(state, self.dir)
            if not new:
                break
            state.launches.extend(new)
            rule.rounds += 1
            st.save(state, self.dir)
            self.progress.extend(len(new))
            outcome = self._run_todo(new)
            if outcome.status in ("interrupted", "refused"):
                return outcome
        said = _adaptive.unmet(rule)
        if said:
            self.notify(said)
        failed = sum(r.status != "complete" for r in state.launches)
        return (RunOutcome("complete") if not failed else
                RunOutcome("failed", f"{failed} launch(es) did not complete"))

    def _plan_round(self) -> list[LaunchRecord]:
        """One more launch of every alternative with an open pair and launches left, running
        the tests of its open pairs; an alternative without launches left closes its open pairs
        as `max`."""
        state, rule = self.state, self.state.adaptive
        ops_order = list(state.bench_args.ops)
        new = []
        for name in _adaptive.round_order(state.seed, rule.rounds, [a.name for a in state.alternatives]):
            open_pairs = rule.open_pairs(name)
            count = sum(r.alternative == name and r.piece is None for r in state.launches)
            index = sum(r.alternative == name for r in state.launches)  # pieces hold indices too
            if not open_pairs:
                continue
            if count >= rule.max:
                for pair in open_pairs:
                    pair.status = "max"
                continue
            new.append(LaunchRecord(
                alternative=name, index=index, folder=launch_folder(state.alternatives, name, index),
                seed=_adaptive.round_seed(state.seed, name, count),
                tests=_adaptive.subset(open_pairs, rule.sizeless_ops, ops_order)))
        return new

    def _stop_leftovers(self) -> None:
        """A launch whose `mpimeter run` was killed may still run: stopped before anything is
        redone (it would write into the folder of the next attempt)."""
        for rec in self.state.launches:
            if rec.status != "complete" and rec.process and self.dir.is_dir():
                said = self.executor.stop_leftover(
                    rec.process, procs.marker(rec.process["launch_id"], self.dir))
                if said:
                    self.notify(f"launch {rec.alternative} #{rec.index:03d} (attempt "
                                f"{rec.attempts}, started {rec.started}) {said}")

    # --- one attempt -------------------------------------------------------------------------

    def _attempt(self, rec: LaunchRecord) -> None:
        state = self.state
        alt = state.alternative(rec.alternative)
        self._retire_previous(rec)
        folder = self.dir / rec.folder
        folder.parent.mkdir(parents=True, exist_ok=True)
        rec.attempts += 1
        rec.retries = rec.attempts - 1
        logs = self.dir / alternative_prefix(state.alternatives, alt.name) / "logs"
        stem = f"{rec.index:03d}.{rec.attempts}"
        stdout_path, stderr_path = logs / f"{stem}.stdout", logs / f"{stem}.stderr"
        bench_argv = [state.bench_binaries[alt.name],
                      *_pilot.launch_args(state.bench_args, rec.tests, self._op_scopes(alt.name, rec.tests)),
                      *self._copy_probe_args(alt.name), *self._mpit_args(alt.name), "--seed", str(rec.seed), "--out", str(folder)]
        rec.argv = build_argv(state.launch_templates[alt.name], state.np_of(rec), bench_argv)
        rec.status, rec.reason = "incomplete", "started, not finished"
        rec.exit_code = rec.duration_s = rec.ended = None
        rec.stderr_tail = ""
        rec.started = st.now_utc()
        rec.stdout_log = str(stdout_path.relative_to(self.dir))
        rec.stderr_log = str(stderr_path.relative_to(self.dir))
        rec.slurm_job = (self.session.get("slurm") or {}).get("job_id")
        # the id every process of the launch carries, recorded before it starts
        rec.process = {"launch_id": procs.new_launch_id(), **procs.where()}
        given = {**self.base_env, **alt.env}
        # every rank on this machine: yield when idle if the ranks outnumber its cores (oversub)
        rec.oversubscription = (oversub.settings(state.np_of(rec), self.local_cores(), alt.mpi, given)
                                if state.launcher == "local" else None)
        st.save(state, self.dir)  # a runner killed now leaves this launch `incomplete`
        self.progress.launch_started(rec)
        env = {**given, **(rec.oversubscription or {}).get("set", {}),
               **(_simulation.launch_env(state.simulation) if state.simulation else {}),
               procs.LAUNCH_ID_VAR: procs.marker(rec.process["launch_id"], self.dir)}
        started = time.monotonic()

        def on_start(identity: dict) -> None:
            rec.process = {**identity, "launch_id": rec.process["launch_id"]}
            st.save(state, self.dir)

        try:
            result = self.executor.run(rec.argv, env=env, timeout_s=state.launch_timeout_s,
                                       stdout_path=stdout_path, stderr_path=stderr_path,
                                       on_start=on_start, secret_words=state.secret_words,
                                       **self._watch(folder))
        except KeyboardInterrupt:
            self._finish(rec, "incomplete", INTERRUPTED, None, time.monotonic() - started,
                         tail(stderr_path, words=state.secret_words))
            _redact_outputs(folder, state.secret_words, stdout_path, stderr_path)
            raise
        status, reason = classify(result, folder, state.launch_timeout_s, state.np_of(rec))
        _redact_outputs(folder, state.secret_words, stdout_path, stderr_path)
        if result.timed_out:  # what it was doing, the machine's load, what to do
            reason = timeout_reason(state.launch_timeout_s, folder, state.np_of(rec),
                                    cores=self.local_cores() if state.launcher == "local" else None)
        cut = self._cut_of(rec) if status == "failed" else None
        self._finish(rec, "cut" if cut else status, reason, result.exit_code, result.duration_s,
                     result.stderr_tail)
        if cut:
            self._split(rec, cut, "hung" if result.timed_out or result.stopped_because else "crashed")
        if status == "complete":
            self._completed_in.add(alt.name)
        elif (result.exit_code == BAD_INPUT_EXIT and not folder.exists()
              and alt.name not in self._completed_in):
            rec.reason = "mpimeter-bench refused its options (exit 2, nothing written)"
            st.save(state, self.dir)
            raise _Refused(f"mpimeter-bench ({alt.name}) refused the options: "
                           f"{bench_message(rec.stderr_tail)}")

    def _watch(self, folder: Path) -> dict:
        """The executor's `watch` when --test-timeout is below the launch timeout (which stops
        a hanging test anyway)."""
        limit = self.state.test_timeout_s
        if limit is None or limit >= self.state.launch_timeout_s:
            return {}
        return {"watch": testretry.HangWatch(folder, limit)}

    def _copy_probe_args(self, alternative: str) -> list[str]:
        """`--copy-probe-from <folder>` once a complete launch of the alternative ran the copy
        probe: the machine's copy rates are the same from launch to launch, the probe cost a
        launch ~0.07 s of its ~0.8 s (docs/ALGORITHMS.md, "A launch's cost"), and the analysis
        takes each probe's best over the launches anyway. Nothing when the campaign turned the probe off, or when the binary
        does not offer the option (its --describe says)."""
        if self.state.bench_args.value("--copy-probe-bytes") == "0":
            return []
        return self._from_earlier_launch(alternative, "copy-probe-from")

    def _mpit_args(self, alternative: str) -> list[str]:
        """`--mpit-from <folder>` once a complete launch of the alternative read the MPI library's
        control variables: one binary with one environment and launch command has the same
        settings from launch to launch, and reading them opened an MPI_T session that cost a
        launch ~0.2 s of its ~0.8 s with Open MPI 4.1. Nothing when the binary does
        not offer the option (its --describe says)."""
        return self._from_earlier_launch(alternative, "mpit-from")

    def _op_scopes(self, alternative: str, tests: dict[str, list] | None) -> dict[str, frozenset[str]]:
        """The op-scoped options of the alternative's binary (its --describe), for a launch of a
        subset of the tests; none for a launch of all of them, or a binary that does not say."""
        if not tests:
            return {}
        try:
            return _describe.describe(self.state.bench_binaries[alternative]).op_scopes()
        except _describe.DescribeError:
            return {}

    def _from_earlier_launch(self, alternative: str, option: str) -> list[str]:
        """`--<option> <folder>` of the alternative's first complete launch that measured the
        thing itself (its argv has no --<option>), when the binary offers the option."""
        state = self.state
        try:
            if not _describe.describe(state.bench_binaries[alternative]).has_option(option):
                return []
        except _describe.DescribeError:
            return []
        for r in state.launches:
            itself = r.alternative == alternative and r.status == "complete" and f"--{option}" not in r.argv
            if itself and (self.dir / r.folder / "meta.json").is_file():
                return [f"--{option}", str(self.dir / r.folder)]
        return []

    def _finish(self, rec: LaunchRecord, status: str, reason: str, exit_code: int | None,
                duration_s: float, stderr_tail: str) -> None:
        rec.status, rec.reason, rec.exit_code = status, reason, exit_code
        rec.duration_s = round(duration_s, 3)
        # whatever the executor: printed and kept
        rec.stderr_tail = secrets.redact_text(stderr_tail, self.state.secret_words)
        rec.ended = st.now_utc()
        entry = {"alternative": rec.alternative, "index": rec.index, "attempt": rec.attempts,
                 "status": status, "reason": reason, "exit_code": exit_code,
                 "started": rec.started, "duration_s": rec.duration_s}
        if rec.slurm_job is not None:
            entry["slurm_job"] = rec.slurm_job
        self.state.history.append(entry)
        st.save(self.state, self.dir)
        self.progress.launch_finished(rec, self.state.counts())

    def _retire_previous(self, rec: LaunchRecord) -> None:
        """Moves the previous attempt's folder aside and keeps its record."""
        if rec.attempts == 0:
            return
        folder = self.dir / rec.folder
        moved_to = None
        if folder.exists():
            prefix = alternative_prefix(self.state.alternatives, rec.alternative)
            dest = self.dir / prefix / "attempts" / f"{rec.index:03d}.{rec.attempts}"
            suffix = 0
            while dest.exists():  # never overwrite, even a folder left by hand
                suffix += 1
                dest = dest.with_name(f"{rec.index:03d}.{rec.attempts}-{suffix}")
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.rename(folder, dest)
            moved_to = str(dest.relative_to(self.dir))
        rec.previous_attempts.append(Attempt(
            attempt=rec.attempts, status=rec.status, reason=rec.reason, exit_code=rec.exit_code,
            duration_s=rec.duration_s, started=rec.started, folder=moved_to,
            stderr_tail=rec.stderr_tail))


def _redact_outputs(folder: Path, words: secrets.Words, *logs: Path) -> None:
    """What the launch wrote, redacted once it has ended, whatever its status (campaign.secrets):
    its meta.json (what the binary did not redact) and its logs (what the launcher printed)."""
    secrets.redact_launch_meta(folder, words)
    for log in logs:
        try:
            secrets.redact_log(log, words)
        except OSError:  # a log that cannot be rewritten (a full disk) stays as printed
            pass


def _key(failed: testretry.FailedTest) -> tuple[str, int, str, int]:
    return (failed.alternative, failed.launch, failed.op, failed.size)


def _is_retry(rec: LaunchRecord) -> bool:
    return bool(rec.piece) and rec.piece["kind"] == "retry"


def bench_message(stderr_tail: str) -> str:
    """The bench's own lines of an error tail (without the launcher's banners), once each, on one
    line: it ends an error, which is said in one line (CONTRIBUTING.md, "The rules a review
    enforces"), where a newline would show as an escaped `\\x0a`."""
    own = [line for line in stderr_tail.splitlines() if line.startswith("mpimeter-bench")]
    lines = list(dict.fromkeys(own)) or [line.strip() for line in stderr_tail.splitlines() if line.strip()]
    return "; ".join(lines) or "(no message on stderr)"


class _Refused(MpimeterError):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def classify(result: ExecResult, folder: Path, timeout_s: float, np: int | None = None) -> tuple[str, str]:
    """complete | failed, and why. Complete needs exit code 0 *and* a launch folder whose
    meta.json says complete with the launch's `np` ranks: an mpirun that exits 0 without results
    is not a launch, and neither is a one-rank job of a launcher that did not wire the ranks up."""
    meta_path = folder / "meta.json"
    meta, unreadable = None, None
    if meta_path.exists():
        try:  # meta.json's one read (io.meta; the analysis types the rest)
            meta = read_document(meta_path)
        except InputError as exc:
            unreadable = exc.what
    nprocs = meta.get("nprocs") if meta is not None else None
    split = separate_jobs_message(np, nprocs, f"meta.json nprocs {nprocs}") if np is not None else ""
    if result.timed_out:
        return "failed", f"timed out after {timeout_s:g} s (terminated)"
    if split:
        return "failed", split
    if result.stopped_because:
        return "failed", result.stopped_because
    if result.exit_code is None or result.exit_code != 0:
        if result.signal_name:
            return "failed", f"killed by {result.signal_name}"
        return "failed", f"exit code {result.exit_code}"
    if unreadable is not None:
        return "failed", f"exit code 0 but meta.json is unreadable ({unreadable})"
    if meta is None:
        return "failed", "exit code 0 but no meta.json in the launch folder"
    if meta.get("status") != "complete":
        return "failed", f"exit code 0 but meta.json says status {meta.get('status')!r}"
    return "complete", ""
