# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for the MPI tests: run build/<lib>/bin/mpimeter-bench under the right launcher."""

from __future__ import annotations

import functools
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[3]
LIBS = ("openmpi", "mpich")


def bench_path(lib: str) -> Path:
    """build/<lib>/bin/mpimeter-bench, or under $MPIMETER_BENCH_DIR (a build of one's own)."""
    path = Path(os.environ.get("MPIMETER_BENCH_DIR") or REPO / "build") / lib / "bin" / "mpimeter-bench"
    assert path.exists(), f"{path} is missing: run `make build` first"
    return path


def launcher(lib: str, np: int) -> list[str]:
    """The launcher this machine needs (root and oversubscription flags for Open MPI)."""
    if lib == "openmpi":
        cmd = ["mpirun.openmpi", "--oversubscribe", "-np", str(np)]
        if os.geteuid() == 0:
            cmd.insert(1, "--allow-run-as-root")
        return cmd
    return ["mpiexec.mpich", "-np", str(np)]


def run_bench(lib: str, np: int, args: list[str], *, timeout: float = 300,
              check: bool = True, copy_probe: bool = False) -> subprocess.CompletedProcess:
    """A launch on np ranks. One that writes a folder (--out) and says nothing of the copy probe
    runs without it (--copy-probe-bytes 0, as the quick launches here always did): its 32 MiB of
    copies on every rank took 1 s of a 2-rank launch's 2 to 4 s at load 17 (0.2 to 0.7 s of CPU),
    and no assertion of such a test reads them; the probe's own tests (test_bound_probes.py, test_launch_phases.py) name its size,
    and copy_probe=True keeps the default. A refusal (check=False) is run as given."""
    args = [str(a) for a in args]
    if check and not copy_probe and "--out" in args and not any(a.startswith("--copy-probe") for a in args):
        args += ["--copy-probe-bytes", "0"]
    cmd = launcher(lib, np) + [str(bench_path(lib))] + args
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd)} exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


# A launch whose assertions read neither the warm-up repetitions nor the back-to-back companion
# (tests[].back_to_back) runs neither: on 4 MPICH ranks sharing 2 cores every blocking call lasts
# scheduler slices (MPICH busy-polls, docs/GUIDE.md "Ranks outnumbering cores"), and the default
# 10 warm-up calls and the companion's timed call were half of such a launch's CPU time
# (test_adaptive.py's size refinement: 28.6 CPU-s with them, 15.0 without). The warm-up's own
# effect is a timing matter (serial tests); the companion's tests are test_back_to_back.py's.
NO_EXTRA_CALLS = ["--warmup", "0", "--back-to-back", "0"]


def workpieces_campaign(lib: str, campaign: Path, ops: str, first_seed: int) -> Path:
    """Two quick 2-rank launches of OPS with ``--workpieces 1,32`` as a campaign folder."""
    fast = ["--nrep", "15", "--warmup", "2", "--procsync", "barrier", "--copy-probe-bytes", "0", "--quiet"]
    for i in range(2):
        run_bench(lib, 2, ["--ops", ops, "--sizes", "64", "--workpieces", "1,32", "--seed", str(first_seed + i),
                           *fast, "--out", campaign / "launches" / f"{i:03d}"])
    return campaign


def assert_verify_failed(meta: dict, op: str, needle: str) -> dict:
    """The test of ``op`` failed the check after the test (--inject-error changed a byte of its
    data): status failed, code verify-failed, a message saying so and holding ``needle`` (what
    points at the cause). Returns the launch's tests by op, for what the caller checks next."""
    by_op = {t["op"]: t for t in meta["tests"]}
    assert by_op[op]["status"] == "failed"
    assert by_op[op]["error"]["code"] == "verify-failed"
    message = by_op[op]["error"]["message"]
    assert "wrong data after the test" in message and needle in message, message
    return by_op


def assert_refused(lib: str, args: list, needle: str, tmp_path: Path, np: int = 2) -> None:
    """Bad input: exit 2 on every rank before any measurement (a refusal that ran the launch
    would write its folder; one that hung ends at the timeout with the reason), one line from
    the binary naming the problem (mpirun may add its own report below it), and no launch
    folder written. No bound on the time: a loaded machine starts MPI slowly."""
    out = tmp_path / "never"
    proc = run_bench(lib, np, list(args) + ["--out", out], timeout=180, check=False)
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr
    assert sum(line.startswith("mpimeter-bench:") for line in proc.stderr.splitlines()) == 1, proc.stderr
    assert "wrote" not in proc.stdout, proc.stdout
    assert not out.exists(), "nothing may be written on bad input"


def read_launch(folder: Path) -> tuple[dict, pd.DataFrame]:
    meta = json.loads((folder / "meta.json").read_text())
    raw = pd.read_csv(folder / "raw.csv")
    return meta, raw


@functools.cache
def described(lib: str) -> dict:
    """The binary's own description of itself (``--describe``: its options, operations and
    registries), read once per library and process; callers must not change it."""
    out = subprocess.run([str(bench_path(lib)), "--describe"], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return json.loads(out)


def planned_start_methods(lib: str) -> frozenset[str]:
    """The process syncs that plan each repetition's start, as the binary flags them
    (``--describe``: process_syncs[].has_planned_start)."""
    return frozenset(p["name"] for p in described(lib)["process_syncs"] if p["has_planned_start"])


def unplanned_from(lib: str, t: dict) -> int:
    """The first repetition of meta.json test `t` measured by a method without a planned start (a
    switch to barrier or none, tests[].procsync_switches), or its nrep."""
    planned = planned_start_methods(lib)
    starts = [s["from_rep"] for s in t["procsync_switches"] if s["to"] not in planned]
    return min(starts) if starts else t["nrep"]


def rule_runtimes(lib: str, meta: dict, raw: pd.DataFrame, test: int) -> np.ndarray:
    """The valid run times of a test in repetition order, as the binary's rule (bench/decide.c) and
    the analysis take them: on the global clock (max gend - min gstart over ranks) for repetitions
    with a planned start, valid on every rank and started within the test's start tolerance; from
    a switch to a method without a planned start on, the longest local duration over the ranks of
    every valid repetition."""
    rows = raw[raw["test"] == test]
    rows = rows.assign(local=rows["end_ns"] - rows["start_ns"])
    g = rows.groupby("rep")
    planned = g.size().index.to_numpy() < unplanned_from(lib, meta["tests"][test])
    run = np.where(planned, (g["gend_ns"].max() - g["gstart_ns"].min()).to_numpy(float),
                   g["local"].max().to_numpy(float))
    valid = (g["valid"].min() == 1).to_numpy().copy()
    tol = meta["tests"][test]["start_tolerance_ns"]
    if tol:
        valid &= ~planned | ((g["gstart_ns"].max() - g["gstart_ns"].min()) <= tol).to_numpy()
    return run[valid]



@pytest.fixture(params=LIBS)
def lib(request) -> str:
    return request.param


# --- checks that need a quiet machine ---------------------------------------------------------
# Accuracy (a delay measured within 5 %, a clock synced within 200 us) holds on a quiet machine
# only: with other processes on the cores a rank misses its start or a ping-pong waits for a time
# slice. Such a check measures how quiet the machine was while its launch ran - the CPU time
# other processes used, from /proc/stat minus this process's and its children's - and is
# retried while the machine was busy. A failure on a quiet machine fails the test; when every
# attempt ran on a busy machine, the test is skipped saying how busy (its correctness checks
# have been asserted before). The accuracy figures themselves are in bench/busy.py.

BUSY_SHARE = 0.10  # other processes used more than a tenth of the machine's CPU time: busy
QUIET_ATTEMPTS = 3


def _busy_cpu_s() -> float | None:
    """CPU time all processes used since boot (user, nice, system, irq, softirq, steal)."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    jiffies = [int(x) for x in fields[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = jiffies
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _own_cpu_s() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class LoadMeter:
    """``with LoadMeter() as m: ...`` then ``m.share``: the share of the machine's CPU time that
    other processes used during the block (None where /proc/stat cannot be read)."""

    def __enter__(self) -> LoadMeter:
        import time

        self._t0, self._busy0, self._own0 = time.monotonic(), _busy_cpu_s(), _own_cpu_s()
        self.share: float | None = None
        return self

    def __exit__(self, *exc) -> None:
        import time

        wall = time.monotonic() - self._t0
        busy1 = _busy_cpu_s()
        if self._busy0 is None or busy1 is None or wall <= 0:
            return
        foreign = (busy1 - self._busy0) - (_own_cpu_s() - self._own0)
        self.share = max(0.0, foreign) / (wall * len(os.sched_getaffinity(0)))


def busy(share: float | None) -> bool:
    return share is not None and share > BUSY_SHARE


def describe(shares: list[float | None]) -> str:
    return ", ".join("unknown" if s is None else f"{100 * s:.0f} %" for s in shares)


class QuietRuns:
    """A launch whose result several accuracy checks read, re-run while the machine was busy.
    ``check(assertions)`` calls ``assertions(result)``; when it fails and the run was busy, the
    launch runs again (at most ``attempts`` runs in all, shared by every check of this object, so
    that a machine that stays busy costs one run per attempt, not per check); a failure on a
    quiet run fails; when the runs are used up and the last was busy, the check is skipped."""

    def __init__(self, run, what: str, attempts: int = QUIET_ATTEMPTS):
        self.run_fn, self.what, self.attempts = run, what, attempts
        self.shares: list[float | None] = []
        self.result = self._run()

    def _run(self):
        with LoadMeter() as m:
            result = self.run_fn()
        self.shares.append(m.share)
        return result

    def check(self, assertions) -> None:
        while True:
            try:
                assertions(self.result)
                return
            except AssertionError as exc:
                if not busy(self.shares[-1]):
                    raise AssertionError(f"{exc}\n(on a quiet machine: other processes used "
                                         f"{describe(self.shares[-1:])} of the CPU time during the run)") from None
                if len(self.shares) >= self.attempts:
                    pytest.skip(f"{self.what}: accuracy not checkable on this busy machine: other processes used "
                                f"{describe(self.shares)} of the CPU time during the {len(self.shares)} run(s) "
                                f"(busy above {100 * BUSY_SHARE:.0f} %); last failure: {str(exc).splitlines()[0]}")
                self.result = self._run()


# --- markers ---------------------------------------------------------------------------------
# Every test here runs the built binary, nearly all under mpirun: the group is `mpi`, as the
# Python tests that launch MPI are (python/tests/conftest.py); `make check` runs none of them.
#
# `serial`: the test runs alone (make test-mpi: the others first, on pytest-xdist workers). Two
# launches side by side oversubscribe the cores: the window process sync then invalidates
# repetitions and a timing or accuracy check fails or is skipped as busy. So a test is serial
# unless it is listed here, and it is listed only when each of its launches asserts correctness
# alone: barrier process sync (every repetition valid whatever the load), a refusal
# (assert_refused), a checker program's verdict, or window starts whose checks hold whatever
# repetitions load makes late (lower bounds on late ones, files against each other); no count
# of valid repetitions, no timing, and no roundtime/harmonize launch that redoes late rounds
# until a long budget.
PARALLEL_MODULES = frozenset({
    "test_rma.py", "test_rma_contention.py", "test_neighbor_graph.py", "test_persistent_neighbor.py",
    "test_mockups.py",
    # barrier starts, or a busy machine's test without a valid repetition allowed for
    "test_raw_format.py", "test_progress.py",
    # refusals before anything is allocated
    "test_memcheck_options.py",
    # listings, a checker program's verdict, the variables a launch read
    "test_algorithms.py",
    # barrier starts and the virtual timer: every byte but the masked ones is the same under load
    "test_byte_identity.py",
    # barrier starts: the companion's fields, the probes' presence and order, the bound's terms,
    # the work pieces' rows kept apart by value (never by speed), a refusal
    "test_back_to_back.py", "test_bound_probes.py", "test_workpieces_analysis.py", "test_workpieces_store.py",
    # barrier starts: the table's numbers against the launch's own rows, its order and columns
    "test_quick_table.py",
    # a failure made on one rank before any repetition: the exit code and the one line it ends
    # with, which no load changes (a rank that waits forever ends at the run's timeout)
    "test_one_rank_failures.py",
    # refusals, --validate, and barrier starts whose counters are checked against raw.csv's rows
    "test_likwid.py",
})
# Tests of those modules that stay serial all the same (by function name, with all parameters).
SERIAL_TESTS = {
    # window and roundtime process syncs: a busy machine may leave a test without a valid start
    "test_rma.py": {"test_the_check_counts_the_pilots_calls_too"},
}
# Tests of the other modules that assert correctness alone (as above), by function name.
PARALLEL_TESTS = {
    "test_adaptive.py": {"test_sizes_are_added_where_interpolation_is_worst",
                         "test_bad_input_is_refused_on_every_rank", "test_sizes_beyond_memory_are_refused"},
    # the folder contract, the reduced rows and --out check no count (every op under window,
    # roundtime and harmonize stays alone: beside another launch their rounds start late and are
    # redone until each test's budget, minutes per launch; the other schemes: PARALLEL_CASES)
    "test_bench_engine.py": {"test_bad_option_exits_2_everywhere", "test_help_and_list_ops_without_mpirun",
                             "test_launch_folder_contract",
                             "test_reduced_raw_and_barrier_without_global_clock", "test_out_exists_and_not_empty",
                             "test_unwritable_out", "test_meta_json_that_cannot_be_written_says_why"},
    # lateness injected on every 4th start: load only adds late repetitions, and these assert
    # lower bounds on them, a given window kept, or a failure that every repetition must have
    "test_busy_machine.py": {"test_bad_values_are_refused", "test_window_goes_on_with_roundtime_then_barrier",
                             "test_no_switch_at_one_or_with_a_given_window",
                             "test_no_valid_repetition_is_a_failure_with_its_reason",
                             "test_late_start_check_stays_on_when_oversubscribed"},
    # a refusal (the residual check's failed calls stay alone: beside other tests, MPICH's launcher
    # once ended every rank on MPI_Abort before it had passed on the failed rank's one line)
    "test_clocksync.py": {"test_bad_clocksync_name_is_refused"},
    # listings, counters.csv's rows against raw.csv's, barrier starts (the counted bytes by size
    # too), refusals
    "test_counters.py": {"test_bad_pvars_are_refused", "test_list_pvars", "test_rows_match_raw",
                         "test_counter_grows_with_message_size",
                         "test_all_records_none_on_a_library_without_variables",
                         "test_papi_follows_papis_own_availability_check", "test_papi_refused_in_a_build_without_it"},
    # no MPI launch but --describe under mpirun; the reduced rows against the analysis's own; a
    # setup that cannot allocate under its own address-space cap (it fails before any repetition);
    # an injected MPI error under barrier starts (the other tests' rows whole whatever the load)
    "test_describe_and_errors.py": {"test_injected_mpi_error_fails_that_test_only","test_describe_without_mpi_and_under_mpirun",
                                    "test_describe_shape_is_the_golden_one",
                                    "test_help_and_describe_list_the_same_options",
                                    "test_every_registry_entry_is_usable", "test_validate_checks_without_mpi",
                                    "test_validate_tells_the_repetition_memory",
                                    "test_reduced_raw_matches_the_analysis_run_times",
                                    "test_a_setup_that_cannot_allocate_says_what"},
    # starts without a plan (none): every row gathered and valid whatever the load
    "test_gather.py": {"test_full_rows_gathered_in_chunks_of_ranks"},
    # a given window that cannot hold the overwrite (a warning from the configuration), refusals
    "test_launch_guards.py": {"test_cold_cache_longer_than_a_given_window_is_warned",
                              "test_virtual_clocks_apart_without_clock_sync_are_refused",
                              "test_sizes_beyond_memory_are_refused_before_writing",
                              "test_window_auto_accepted_and_empty_size_item_refused"},
    # the phases' order and the fit's points: lower bounds that load only raises
    "test_launch_phases.py": {"test_copy_probe_from_an_earlier_launch", "test_copy_probe_from_is_checked",
                              "test_mpit_from_an_earlier_launch", "test_fit_target_zero_is_refused",
                              "test_mpit_from_is_checked", "test_phases_are_ordered_and_fit_the_launch",
                              "test_auto_syncs_clocks_that_are_not_one", "test_sync_fit_stops_early_with_a_target",
                              "test_phases_without_a_sync", "test_describe_offers_copy_probe_from"},
    # a hog beside the launch only raises the share it must see
    "test_other_cpu.py": {"test_a_hog_on_every_core_shows_in_the_share"},
    # listings, refusals, barrier starts: the components against the total, the work scheme's
    # calibration and counts, the compare and gate answering
    "test_nonblocking.py": {"test_bad_nonblocking_input_exits_2_everywhere",
                            "test_work_scheme_calibrates_and_blocking_ops_have_no_components",
                            "test_the_binary_lists_the_sixteen_nonblocking_collectives",
                            "test_every_nonblocking_op_records_consistent_components",
                            "test_compare_and_gate_on_overhead_across_libraries"},
    "test_p2p_patterns.py": {"test_every_new_op_runs_on_2_and_4_ranks", "test_master_worker_on_3_ranks_with_master_1",
                             "test_communicators_made_in_the_timed_call_are_freed",
                             "test_bad_input_exits_2_and_writes_nothing", "test_pair_without_a_pingpong_is_refused",
                             "test_master_worker_needs_two_ranks", "test_list_ops_and_describe_list_the_new_ops",
                             "test_validate_refuses_odd_ranks_without_mpi"},
    "test_space.py": {"test_root_list_on_four_ranks", "test_bad_root_and_batch_are_refused",
                      "test_bad_nprocs_is_refused", "test_root_all_gives_one_test_per_root_shuffled_with_the_rest",
                      "test_nprocs_measures_each_test_on_the_first_k_ranks",
                      "test_simple_attach_times_attach_and_detach"},
    "test_workpieces_overhead.py": {"test_workpieces_the_op_cannot_use_are_refused",
                                    "test_subtract_overhead_records_each_tests_empty_region",
                                    "test_bound_volume_per_sub_communicator"},
}

# Tests of the other modules that assert correctness alone for some of their parameters only:
# module -> test -> parameter -> the values that do (a case runs beside others when each of its
# parameters named here has one of those values).
PARALLEL_CASES = {
    # barrier starts, and none and loop-barrier, which plan no start: every repetition is valid
    # whatever the load (window, roundtime and harmonize stay alone, as above)
    "test_bench_engine.py": {"test_every_op_under_every_procsync": {"procsync": {"barrier", "none", "loop-barrier"}}},
    # the blocks' bookkeeping, on every repetition the launch runs; the window's policy may
    # switch or fail a test under load
    "test_other_cpu.py": {"test_every_test_has_its_blocks": {"procsync": {"barrier", "none"}}},
}


def runs_alone(item) -> bool:
    module, test = item.path.name, getattr(item, "originalname", item.name)
    if module in PARALLEL_MODULES:
        return test in SERIAL_TESTS.get(module, ())
    if test in PARALLEL_TESTS.get(module, ()):
        return False
    cases = PARALLEL_CASES.get(module, {}).get(test)
    params = getattr(getattr(item, "callspec", None), "params", {})
    return not cases or not all(params.get(name) in values for name, values in cases.items())


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "mpi: launches MPI ranks (mpirun, mpiexec)")
    config.addinivalue_line("markers", "serial: runs alone, not beside another launch (asserts timing or "
                                       "valid repetitions under the window process sync)")


def pytest_collection_modifyitems(items) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if item.path.resolve().is_relative_to(here):
            item.add_marker("mpi")
            if runs_alone(item):
                item.add_marker("serial")
