# SPDX-License-Identifier: BSD-3-Clause
"""Markers of the Python tests, set here so that no test file has to: `mpi` (launches MPI ranks),
`bench` (runs something `make build` built - a launch of mpimeter-bench without a launcher, a C
unit test), and none for the rest: `make check` runs those (`pytest -m "not mpi and not bench"`),
`make test` runs every test. Unmarked tests may still ask the built binary about itself
(--describe, --validate, --list-algorithms: `mpimeter run` takes its options and their bounds from
it), as the fake bench of data/fakebench.py does: a question, not a launch, and `make check`
builds first.

In the fast tier (MPIMETER_TEST_TIER=check, set by `make check`) a guard fails a test that starts
an MPI launcher or runs the built binary for more than a question, naming what it started: a test
wrongly left unmarked cannot pass there by using what the tier promises not to need; list it
below. It sees the processes a test starts itself, not those its children start."""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# What starts MPI ranks or runs what `make build` built, besides every `*_mpi.py`: whole modules,
# or single tests (by function name, with all their parameters), found by reading them and by the
# fast tier's guard.
MPI_MODULES = frozenset({
    "test_cli_sync_check.py",    # the local launcher (mpirun) starts a stand-in for the binary
})
MPI_TESTS = {
    # a real campaign by `python -m mpimeter run`, in a process of its own
    "test_security_secrets.py": {"test_no_planted_secret_in_a_real_launch_its_report_store_and_site"},
    # `mpirun -np 1 mpimeter-bench --list-algorithms`
    "test_tune.py": {"test_a_campaign_without_the_default_is_refused",
                     "test_a_campaign_without_algorithm_alternatives_is_refused"},
    # ReFrame runs `mpimeter run`, whose launches start ranks (in processes the guard does not see)
    "test_reframe.py": {"test_reframe_runs_the_check_and_fails_the_unreachable_reference"},
}
# The `mpi` tests that may run beside others on the xdist workers (by function name, with all
# their parameters): each asserts correctness alone - a refusal, what a launch or a file holds, a
# launch complete - and no count of valid repetitions or timing. Every other `mpi` test is also
# `serial`: `make test-python` runs those one at a time, after the rest.
MPI_PARALLEL_TESTS = {
    # a reference no busy wait can meet fails, one it meets with any slowdown passes
    "test_reframe.py": {"test_reframe_runs_the_check_and_fails_the_unreachable_reference"},
    "test_tune_mpi.py": {"test_open_mpi_runs_with_the_rules_file_and_applies_it",
                         "test_mpich_runs_with_the_json_file_and_applies_it",
                         "test_verify_runs_default_against_tuned_and_gates"},
    "test_tune.py": {"test_a_campaign_without_the_default_is_refused",
                     "test_a_campaign_without_algorithm_alternatives_is_refused"},
    "test_security_secrets.py": {"test_no_planted_secret_in_a_real_launch_its_report_store_and_site"},
    # --procsync barrier: no repetition is invalid or dropped for its start spread, whatever the load
    "test_suite_mpi.py": {"test_the_sample_skampi_suite_runs_and_its_comparisons_are_drawn"},
    "test_cli_sync_check.py": {"test_bad_input_is_one_line_and_nothing_is_launched",
                               "test_valid_input_reaches_the_launcher_as_checked",
                               "test_a_refusal_of_the_bench_is_its_one_line",
                               "test_sync_check_table_and_bad_algorithm",
                               "test_a_failure_while_measuring_shows_the_bench_lines_and_exits_1"},
    # what a campaign wrote and how it ended: --launches auto ends a pair precise or at its maximum
    # launch, whichever the load allows, and the test accepts both
    "test_campaign_mpi.py": {"test_three_launches_of_two_ranks_with_both_libraries",
                             "test_launches_auto_adds_launches_only_for_open_pairs"},
    # a crash is a crash under any load (the hang's test waits for a timeout: it stays alone)
    "test_campaign_testretry_mpi.py": {"test_a_test_crashing_in_every_launch_is_retried_last_and_reported_failed",
                                       "test_a_test_failing_once_passes_on_its_retry"},
    "test_counters_mpi.py": {"test_run_passes_counters_to_every_launch_and_analyze_reports_them",
                             "test_bad_counter_options_are_refused_before_anything_runs"},
    "test_launchers_mpi.py": {"test_srun_launcher_runs_every_launch_through_srun",
                              "test_own_template_with_a_shell_wrapper_and_a_variant"},
    # barrier starts (no repetition invalid for its start spread), then what each launch recorded,
    # the study's table (an interval holds its estimate) and each rank's thread count, which a
    # slower launch under load only samples more often
    "test_nbc_progression_mpi.py": {"test_a_tiny_study_runs_every_strategy_with_its_variables_in_the_ranks"},
    # the library's own counts of routed calls, not times; a bad configuration's one line
    "test_pgmpi_mpi.py": {"test_a_campaign_with_the_library_runs_the_mockup_at_the_covered_sizes_only",
                          "test_a_bad_configuration_stops_the_launch_at_mpi_init_with_one_line"},
    "test_resume_installed_mpi.py": {"test_an_installed_mpimeter_resumes_a_bench_dir_campaign_with_its_real_arguments"},
    # stopped once a launch has started, resumed to its end; a syntax check. How a campaign stops
    # and resumes and what it records holds under any load, and their launches take about as
    # long under load as quiet (a busy wait on the timer, not thousands of repetitions whose
    # barriers wait for time slices). The sigterm test stays alone: test_markers.py's example of
    # an unlisted test
    "test_slurm_mpi.py": {"test_the_sbatch_example_refuses_to_run_outside_slurm_and_passes_the_syntax_check",
                          "test_the_sbatch_example_submits_no_more_jobs_than_allowed",
                          "test_the_sbatch_example_stops_at_the_time_limit_resubmits_and_resumes"},
}
BENCH_MODULES: frozenset[str] = frozenset()
BENCH_TESTS = {
    # runs build/<lib>/tests/test_adaptive (its module's other tests are pure)
    "test_adaptive_golden.py": {"test_c_unit_test_of_the_rule_passes_against_this_header"},
}

TIER_VARIABLE = "MPIMETER_TEST_TIER"
# Programs that start MPI ranks.
LAUNCHERS = frozenset({"mpirun", "mpiexec", "mpirun.openmpi", "mpiexec.openmpi", "mpirun.mpich",
                       "mpiexec.mpich", "mpiexec.hydra", "orterun", "prterun", "srun"})
# What the built binary answers without a launch (its first argument).
QUESTIONS = frozenset({"--describe", "--validate", "--list-algorithms", "--list-ops", "--help", "--version"})


def tier_of(item: pytest.Item) -> str | None:
    module, test = item.path.name, getattr(item, "originalname", item.name)
    if module.endswith("_mpi.py") or module in MPI_MODULES or test in MPI_TESTS.get(module, ()):
        return "mpi"
    if module in BENCH_MODULES or test in BENCH_TESTS.get(module, ()):
        return "bench"
    return None


def runs_alone(item: pytest.Item) -> bool:
    """An `mpi` test not listed in MPI_PARALLEL_TESTS."""
    return getattr(item, "originalname", item.name) not in MPI_PARALLEL_TESTS.get(item.path.name, ())


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under `-m serial` alone (make test-python's second run) a test module that tier_of can
    never mark `mpi` holds no `serial` test: it is not imported, which saves collecting every
    test of the suite a second time."""
    name = collection_path.name
    if config.getoption("markexpr", "") != "serial" or not (name.startswith("test_") and name.endswith(".py")):
        return None
    if name.endswith("_mpi.py") or name in MPI_MODULES or name in MPI_TESTS:
        return None
    return True


# Modules whose tests one xdist worker runs together (`--dist loadgroup`), by group: the two that
# share one analysis of the golden report campaigns per process (data/report/golden_results.py),
# and modules whose module-scoped fixture (a store, an analysed campaign) or cached reading of the
# package's sources (test_records, test_layering: about a second each) would otherwise be built
# once per worker. Every other test is its own unit of work, as with `--dist load`.
WORKER_GROUPS = {
    "test_report_html.py": "golden-report", "test_report_chromium.py": "golden-report",
    "test_fingerprint_data.py": "fingerprint-data", "test_cli_site.py": "cli-site",
    "test_security_site.py": "security-site", "test_records.py": "records", "test_layering.py": "layering",
    "test_cli_store.py": "cli-store", "test_campaign_adaptive.py": "campaign-adaptive",
    "test_report_cli.py": "report-cli", "test_release.py": "release", "test_campaign_untrusted.py": "untrusted",
    "test_security_tune.py": "security-tune", "test_cli_gate.py": "cli-gate",
}


def group_of(nodeid: str) -> str:
    """The unit of work of a test id under `--dist loadgroup`: its module's group, or itself."""
    return WORKER_GROUPS.get(nodeid.split("::", 1)[0].rpartition("/")[2], nodeid)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, which a run may not load
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadgroup` grouping by WORKER_GROUPS, read from the test ids themselves: pytest
    9.2 no longer takes the group suffix pytest-xdist 3.8 writes into an item's id for its
    `xdist_group` marker, so that marker alone groups nothing."""
    if config.getoption("dist", None) != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class ModuleGroupScheduling(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    return ModuleGroupScheduling(config, log)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session):
    """Collection with the cyclic garbage collector off. Importing the test modules (numpy,
    scipy, pandas, the package) and rewriting their asserts builds some 300,000 objects that live
    the whole session; as they grew, the collector's full passes over them took a quarter of
    collection's CPU (2.3 of 9.5 s per process, `gc.callbacks`). Collection makes little cyclic
    garbage (34,000 objects); the collector, back on, frees it. Not `gc.freeze`: cycles through
    the frozen test items then outlive their tests and are all freed at the worker's exit (3.4 s
    more for 384 tests, about 20 s for the check tier's)."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.enable()


@pytest.hookimpl(trylast=True)  # the worker's last act: every other plugin has unconfigured
def pytest_unconfigure(config: pytest.Config) -> None:
    """A pytest-xdist worker that has sent all its results leaves without tearing its interpreter
    down. Tearing down a worker's heap (numpy, scipy, pandas, matplotlib and its tests' objects)
    took 2.6 s after its last result, and the run waited for it: 4.4 s of the fast tier's wall
    (`make check`, two workers). The exit handlers still run (temporary folders, logging); only
    the module teardown and the final garbage collection are skipped, which free memory the
    process gives back anyway."""
    if not hasattr(config, "workerinput"):
        return
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = tier_of(item)
        if tier:
            item.add_marker(tier)
        if tier == "mpi" and runs_alone(item):
            item.add_marker("serial")


# --- the fast tier's guard ----------------------------------------------------------------------

def _built(path: str) -> bool:
    """A program under the build folder (build/ is a link in some checkouts: both sides count)."""
    try:
        real = Path(path).resolve()
    except (OSError, RuntimeError):
        return False
    return any(real.is_relative_to(root) for root in {REPO / "build", (REPO / "build").resolve()})


def _forbidden(argv: list[str], stand_ins: Path | None = None) -> str | None:
    """What the fast tier does not have in starting ARGV, or None. A launcher under STAND_INS (the
    session's temporary folder) is a test's own stand-in script, which starts no MPI."""
    program = argv[0] if argv else ""
    found = shutil.which(program) if os.path.basename(program) in LAUNCHERS else None
    if found and not (stand_ins and Path(found).resolve().is_relative_to(stand_ins)):  # one not there starts nothing
        return f"the MPI launcher {program}"
    if os.sep in program and _built(program) and (len(argv) < 2 or argv[1] not in QUESTIONS):
        return f"the built {' '.join(argv[:3])}"
    return None


class _Guard:
    """Collects, with an audit hook, what a test of the fast tier started that the tier does not
    have."""

    def __init__(self, stand_ins: Path):
        self.seen: list[str] = []
        self.stand_ins = stand_ins
        sys.addaudithook(self.audit)

    def audit(self, event: str, args: tuple) -> None:
        if event == "subprocess.Popen":  # (executable, args, cwd, env)
            argv = args[1]
            argv = [argv] if isinstance(argv, (str, bytes, os.PathLike)) else list(argv)
            argv = [os.fsdecode(a) for a in argv]
            if args[0] is not None and argv:
                argv[0] = os.fsdecode(args[0])
        elif event in ("os.exec", "os.posix_spawn"):  # (path, argv, env)
            argv = [os.fsdecode(args[0]), *[os.fsdecode(a) for a in list(args[1])[1:]]]
        else:
            return
        what = _forbidden(argv, self.stand_ins)
        if what:
            self.seen.append(what)

    def take(self) -> list[str]:
        seen, self.seen = self.seen, []
        return seen


_guard: _Guard | None = None


@pytest.hookimpl(trylast=True)  # after the tmp_path plugin has made its factory
def pytest_configure(config: pytest.Config) -> None:
    global _guard
    if os.environ.get(TIER_VARIABLE) == "check" and _guard is None:
        _guard = _Guard(config._tmp_path_factory.getbasetemp().resolve())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    if _guard is not None:
        _guard.take()  # what the test's fixtures start counts as the test's
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    if _guard is None:
        return (yield)
    try:
        return (yield)
    finally:
        seen = _guard.take()
        if seen:  # replaces the test's own failure, which this one explains
            pytest.fail(f"{item.nodeid} started {'; '.join(dict.fromkeys(seen))}, which the fast tier "
                        f"(make check) does not have: mark it (python/tests/conftest.py)", pytrace=False)


@pytest.fixture(autouse=True)
def _no_inherited_terminal_size(monkeypatch):
    """pytest-xdist's workers start with COLUMNS=80 and LINES=24 in their environment, which the
    CLI honours as the user's terminal width: a test sees the width it sets itself, else none."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
