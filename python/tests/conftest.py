"""Markers of the Python tests, set here so that no test file has to: `mpi` (launches MPI ranks),
`bench` (needs a built mpimeter-bench: the fake bench of data/fakebench.py forwards --describe and
the like to the real one), and none for the rest, which need neither: `make check` runs those
(`pytest -m "not mpi and not bench"`), `make test` runs every test.

In the fast tier (MPIMETER_TEST_TIER=check, set by `make check`) a guard fails a test that starts
the built binary or an MPI launcher after all, naming it: a test wrongly left unmarked cannot pass
there by using what the tier promises not to need: list it below."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# What starts MPI ranks or runs what `make build` built, besides every `*_mpi.py` and every test
# that uses a fixture below: whole modules, or single tests (by function name, all their
# parameters), found by reading them and by the fast tier's guard.
MPI_MODULES: frozenset[str] = frozenset()
MPI_TESTS = {
    "test_security_secrets.py": {"test_no_planted_secret_in_a_real_launch_its_report_store_and_site"},
    "test_tune.py": {"test_a_campaign_without_the_default_is_refused",
                     "test_a_campaign_without_algorithm_alternatives_is_refused"},
}
BENCH_MODULES = frozenset({
    "test_adaptive_golden.py",   # runs build/<lib>/tests/test_adaptive
    "test_bench_describe.py",    # the binary's --describe, the source of every option's bounds
    "test_cli_lazy.py",          # the binary's option groups in `mpimeter run --help`
    "test_cli_sync_check.py",    # a wrapper that execs the real binary
    "test_guidelines.py",        # the binary's --describe
})
BENCH_TESTS = {
    "test_analysis.py": {"test_per_launch_medians_match_a_hand_computation"},
    "test_analysis_streaming.py": {"test_rank_medians_of_the_fast_path_equal_duckdbs"},
    "test_campaign_plan.py": {"test_resolve_writes_the_campaign_defaults_out_from_the_binary",
                              "test_resolve_refuses_in_the_binarys_words",
                              "test_default_launch_timeout_grows_with_the_plan_and_has_a_floor",
                              "test_default_launch_timeout_with_adaptive_repetitions_and_sizes",
                              "test_default_launch_timeout_leaves_room_for_the_cold_cache_overwrite"},
    "test_cli_main.py": {"test_a_bad_command_line_is_one_line_and_exit_2"},
}
# The fixtures that bring the built binary in (data/fakebench.py's stand-in forwards to it).
BENCH_FIXTURES = frozenset({"fake_env"})

TIER_VARIABLE = "MPIMETER_TEST_TIER"
# Programs that start MPI ranks.
LAUNCHERS = frozenset({"mpirun", "mpiexec", "mpirun.openmpi", "mpiexec.openmpi", "mpirun.mpich",
                       "mpiexec.mpich", "mpiexec.hydra", "orterun", "prterun", "srun"})


def tier_of(item: pytest.Item) -> str | None:
    module, test = item.path.name, getattr(item, "originalname", item.name)
    if module.endswith("_mpi.py") or module in MPI_MODULES or test in MPI_TESTS.get(module, ()):
        return "mpi"
    if (module in BENCH_MODULES or test in BENCH_TESTS.get(module, ())
            or BENCH_FIXTURES & set(getattr(item, "fixturenames", ()))):
        return "bench"
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = tier_of(item)
        if tier:
            item.add_marker(tier)


# --- the fast tier's guard ----------------------------------------------------------------------

def _built(path: str) -> bool:
    """A program under the build folder (build/ is a link in some checkouts: both sides count)."""
    try:
        real = Path(path).resolve()
    except (OSError, RuntimeError):
        return False
    return any(real.is_relative_to(root) for root in {REPO / "build", (REPO / "build").resolve()})


def _forbidden(argv0: str) -> str | None:
    name = os.path.basename(argv0)
    if name in LAUNCHERS and shutil.which(argv0):  # a launcher that is not there starts nothing
        return f"the MPI launcher {argv0}"
    if os.sep in argv0 and _built(argv0):
        return f"the built {argv0}"
    return None


class _Guard:
    """Collects what a test of the fast tier started that the tier does not have: processes this
    one starts (an audit hook sees them), and the real binary the fake bench would forward to (it
    logs that instead). A child `mpimeter` finds no binary: the tier's MPIMETER_BENCH_DIR is
    empty. A launcher that a script starts is not seen."""

    def __init__(self, log: Path):
        self.log = log
        self.seen: list[str] = []
        os.environ["MPIMETER_FORBIDDEN_LOG"] = str(log)
        no_build = log.parent / "the-fast-tier-has-no-build"
        no_build.mkdir()
        os.environ["MPIMETER_BENCH_DIR"] = str(no_build)
        sys.addaudithook(self.audit)

    def audit(self, event: str, args: tuple) -> None:
        if event == "subprocess.Popen":
            executable, argv = args[0], args[1]
            if executable:
                first = os.fsdecode(executable)
            elif isinstance(argv, (str, bytes, os.PathLike)):
                first = os.fsdecode(argv).split(maxsplit=1)[0] if os.fsdecode(argv).strip() else ""
            else:
                first = os.fsdecode(list(argv)[0]) if argv else ""
        elif event in ("os.exec", "os.posix_spawn"):
            first = os.fsdecode(args[0])
        else:
            return
        what = _forbidden(first)
        if what:
            self.seen.append(what)

    def take(self) -> list[str]:
        seen, self.seen = self.seen, []
        if self.log.exists():
            seen += [line for line in self.log.read_text().splitlines() if line]
            self.log.unlink()
        return seen


_guard: _Guard | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _guard
    if os.environ.get(TIER_VARIABLE) == "check" and _guard is None:
        _guard = _Guard(Path(tempfile.mkdtemp(prefix="mpimeter-check-")) / "forbidden.log")


def pytest_unconfigure(config: pytest.Config) -> None:
    if _guard is not None:
        shutil.rmtree(_guard.log.parent, ignore_errors=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    if _guard is None:
        return (yield)
    _guard.take()
    try:
        return (yield)
    finally:
        seen = _guard.take()
        if seen:  # replaces the test's own failure, which this one explains
            pytest.fail(f"{item.nodeid} started {'; '.join(dict.fromkeys(seen))}, which the fast tier "
                        f"(make check) does not have: mark it (python/tests/conftest.py)", pytrace=False)
