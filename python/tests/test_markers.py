# SPDX-License-Identifier: BSD-3-Clause
"""The markers conftest.py sets (`mpi`, `bench`) and the fast tier's guard: a test that `make check`
runs but that starts an MPI launcher or runs the built binary for more than a question (--describe)
fails there, naming what it started."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import conftest

HERE = Path(__file__).resolve().parent


def item(module: str, test: str = "test_x", fixtures: tuple[str, ...] = ()) -> SimpleNamespace:
    return SimpleNamespace(path=HERE / module, originalname=test, name=f"{test}[1]", fixturenames=list(fixtures))


def test_the_tier_follows_the_module_name_the_lists_and_the_fixtures():
    assert conftest.tier_of(item("test_whatever_mpi.py")) == "mpi"
    assert conftest.tier_of(item("test_tune.py", "test_a_campaign_without_the_default_is_refused")) == "mpi"
    assert conftest.tier_of(item("test_tune.py", "test_a_pure_one")) is None
    assert conftest.tier_of(item("test_cli_sync_check.py")) == "mpi"
    assert conftest.tier_of(item("test_adaptive_golden.py", "test_c_unit_test_of_the_rule_passes_against_this_header")) \
        == "bench"
    assert conftest.tier_of(item("test_adaptive_golden.py", "test_committed_header_is_what_the_generator_prints_now")) \
        is None
    assert conftest.tier_of(item("test_stats_exact.py", fixtures=("tmp_path",))) is None


def test_what_the_fast_tier_does_not_have():
    built = str(conftest.REPO / "build" / "openmpi" / "bin" / "mpimeter-bench")
    assert conftest._forbidden([built, "--ops", "bcast"]) == f"the built {built} --ops bcast"
    assert conftest._forbidden([built]) == f"the built {built}"
    assert conftest._forbidden([built, "--describe"]) is None  # a question, not a launch
    assert conftest._forbidden([built, "--validate", "2", "--nrep", "5"]) is None
    assert conftest._forbidden(["/nonexistent/mpirun", "-np", "2"]) is None  # starts nothing
    assert conftest._forbidden([sys.executable, "-c", "pass"]) is None
    launcher = shutil.which("mpirun") or shutil.which("mpiexec.mpich")
    if launcher:
        assert conftest._forbidden([launcher, "-np", "2", built]) == f"the MPI launcher {launcher}"


def test_a_stand_in_launcher_in_the_sessions_temporary_folder_starts_no_mpi(tmp_path):
    stand_in = tmp_path / "intel" / "mpiexec"
    stand_in.parent.mkdir()
    stand_in.write_text("#!/bin/sh\nexit 0\n")
    stand_in.chmod(0o755)
    assert conftest._forbidden([str(stand_in), "-n", "2"], stand_ins=tmp_path) is None
    # the same script outside the session's temporary folder is taken for a launcher
    assert conftest._forbidden([str(stand_in), "-n", "2"], stand_ins=tmp_path / "elsewhere") \
        == f"the MPI launcher {stand_in}"


INNER_TEST = '''
import subprocess
from pathlib import Path

BUILT = Path(__file__).resolve().parents[2] / "build" / "openmpi" / "bin" / "mpimeter-bench"


def test_starts_the_binary():
    try:
        subprocess.run([str(BUILT), "--ops", "bcast"], timeout=60)
    except OSError:
        pass  # not built here: the guard saw the attempt


def test_asks_the_binary():
    try:
        subprocess.run([str(BUILT), "--describe"], timeout=60)
    except OSError:
        pass


def test_starts_nothing():
    assert subprocess.run(["true"], timeout=60).returncode == 0
'''


def run_inner(tmp_path: Path, tier: str | None) -> subprocess.CompletedProcess:
    """conftest.py beside a module of tests that start the binary, ask it, start nothing, run by
    pytest in TIER."""
    shutil.copy(HERE / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_inner.py").write_text(INNER_TEST)
    env = {k: v for k, v in os.environ.items() if k != "MPIMETER_TEST_TIER"}
    # the guard is conftest.py's own: the installed plugins (xdist, hypothesis) it does not need
    # would cost the inner pytest most of its start-up
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    if tier:
        env["MPIMETER_TEST_TIER"] = tier
    # its own temporary folder: the default one would have the inner pytest remove the oldest of
    # the user's numbered temporary folders (pytest keeps three), which took seconds
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--basetemp", str(tmp_path / "inner-tmp"), str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_the_fast_tier_fails_a_test_that_starts_the_binary_naming_it(tmp_path):
    done = run_inner(tmp_path, "check")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 2 passed" in done.stdout, done.stdout
    assert "test_inner.py::test_starts_the_binary started the built " in done.stdout, done.stdout
    assert "which the fast tier (make check) does not have" in done.stdout


def test_outside_the_fast_tier_nothing_is_guarded(tmp_path):
    done = run_inner(tmp_path, None)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout, done.stdout


# --- c/tests/mpi: which MPI tests may run beside another (make test-mpi) -------------------------

MPI_TESTS_DIR = conftest.REPO / "c" / "tests" / "mpi"
# What a test uses when it checks accuracy or timing (c/tests/mpi/conftest.py): such a test runs alone.
QUIET_HELPERS = ("on_a_quiet_machine", "QuietRuns", "LoadMeter")


def _mpi_conftest():
    import importlib.util

    spec = importlib.util.spec_from_file_location("mpi_conftest", MPI_TESTS_DIR / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _test_sources(module: str) -> dict[str, str]:
    import ast

    text = (MPI_TESTS_DIR / module).read_text(encoding="utf-8")
    return {f.name: ast.get_source_segment(text, f) for f in ast.parse(text).body
            if isinstance(f, ast.FunctionDef) and f.name.startswith("test_")}


def test_an_mpi_test_runs_alone_unless_listed():
    mpi = _mpi_conftest()

    def alone(module: str, test: str) -> bool:
        return mpi.runs_alone(SimpleNamespace(path=MPI_TESTS_DIR / module, originalname=test, name=f"{test}[1]"))

    assert alone("test_clocksync.py", "test_anything")  # not listed: serial
    assert not alone("test_rma.py", "test_every_window_kind")
    assert alone("test_rma.py", "test_the_check_counts_the_pilots_calls_too")
    assert not alone("test_adaptive.py", "test_bad_input_is_refused_on_every_rank")
    assert alone("test_adaptive.py", "test_the_maximum_and_the_time_budget_end_a_test")


def test_the_mpi_tests_listed_as_parallel_exist_and_check_no_accuracy():
    """A renamed test would silently fall back to serial; a listed one that measures on a quiet
    machine would be skipped as busy beside another launch."""
    mpi = _mpi_conftest()
    parallel = {module: set(_test_sources(module)) - mpi.SERIAL_TESTS.get(module, set())
                for module in mpi.PARALLEL_MODULES}
    for module, names in mpi.PARALLEL_TESTS.items():
        assert module not in mpi.PARALLEL_MODULES, module
        assert names <= set(_test_sources(module)), (module, names - set(_test_sources(module)))
        parallel[module] = names
    for module, names in mpi.SERIAL_TESTS.items():
        assert module in mpi.PARALLEL_MODULES and names <= set(_test_sources(module)), module
    for module, names in parallel.items():
        sources = _test_sources(module)
        for name in names:
            used = [h for h in QUIET_HELPERS if h in sources[name]]
            assert not used, f"{module}::{name} uses {used}: it must run alone"


# --- python/tests: the MPI tests that run beside others (make test-python) ----------------------

def test_an_mpi_test_of_these_runs_alone_unless_listed():
    assert conftest.runs_alone(item("test_campaign_testretry_mpi.py",
                                    "test_a_hanging_test_is_stopped_at_its_timeout_and_the_next_tests_run"))
    assert conftest.runs_alone(item("test_cli_sync_check.py", "test_sync_check_json_on_virtual_timer"))
    assert not conftest.runs_alone(item("test_tune_mpi.py", "test_verify_runs_default_against_tuned_and_gates"))
    assert conftest.runs_alone(item("test_slurm_mpi.py", "test_sigterm_from_slurm_stops_the_campaign_and_the_next_job_resumes_it"))
    assert not conftest.runs_alone(item("test_slurm_mpi.py", "test_the_sbatch_example_submits_no_more_jobs_than_allowed"))


def test_the_python_mpi_tests_listed_as_parallel_exist_and_are_mpi_tests():
    """A renamed test would silently fall back to serial; a listed test that is not an `mpi` test
    would not need the list."""
    import ast

    for module, names in conftest.MPI_PARALLEL_TESTS.items():
        text = (HERE / module).read_text(encoding="utf-8")
        defined = {f.name for f in ast.parse(text).body if isinstance(f, ast.FunctionDef)}
        assert names <= defined, (module, names - defined)
        for name in names:
            assert conftest.tier_of(item(module, name)) == "mpi", (module, name)
