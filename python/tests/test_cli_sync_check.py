# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter sync-check` on real ranks (Open MPI, 2 ranks): the JSON shape and the truth of one
clock (the virtual timer's base, one kernel clock); bad input refused in the bench's own words before anything is launched."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from mpimeter.cli import main
from mpimeter.cli.sync_check import render_table


def test_sync_check_json_on_virtual_timer():
    result = CliRunner().invoke(main, [
        "sync-check", "--np", "2", "--mpi", "openmpi", "--clocksync", "skampi,hca3o",
        "--check-at", "0,0.5", "--timer", "virtual", "--virtual-offset-s", "1",
        "--virtual-skew-ppm", "100", "--seed", "11", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [a["name"] for a in data["algorithms"]] == ["skampi", "hca3o"]
    for alg in data["algorithms"]:
        assert alg["sync_duration_s"] >= 0
        assert [c["t_s"] for c in alg["checks"]] == [0, 0.5]
        for check in alg["checks"]:
            assert len(check["residual_ns"]) == len(check["true_error_ns"]) >= 1
            assert check["max_abs_residual_ns"] == max(abs(r) for r in check["residual_ns"])
        # right after the sync the truth is within 10 us; offset-only models then drift
        # by ~100 ppm x 0.5 s = 50 us on the skewed rank
        assert alg["checks"][0]["max_abs_true_error_ns"] < 10_000
        assert alg["checks"][1]["max_abs_true_error_ns"] > 20_000


def test_sync_check_table_and_bad_algorithm():
    ok = CliRunner().invoke(main, ["sync-check", "--np", "2", "--mpi", "openmpi",
                                   "--clocksync", "skampi", "--check-at", "0"])
    assert ok.exit_code == 0, ok.output
    assert "skampi" in ok.output and "max |residual|" in ok.output
    # two ranks on one host read one kernel clock (the default timer): the truth is known, and the
    # hold line goes by the true error, not by the residual check's own error
    assert "max |true error|" in ok.output and "one kernel clock" in " ".join(ok.output.split())
    assert "skampi: |true error| within 1000 ns " in ok.output  # the hold line, whatever the machine's load
    bad = CliRunner().invoke(main, ["sync-check", "--np", "2", "--mpi", "openmpi",
                                    "--clocksync", "sundial", "--check-at", "0"])
    assert bad.exit_code == 2


# --- inputs are checked before anything is launched ----------------------------------------

RECORDER = """import pathlib, sys
pathlib.Path(sys.argv[1]).write_text(" ".join(sys.argv[2:]))
sys.exit(3)
"""


@pytest.fixture
def recording_launcher(tmp_path):
    """A launcher template that only records that it ran (and fails)."""
    script = tmp_path / "launcher.py"
    script.write_text(RECORDER)
    marker = tmp_path / "launched"
    return f"{sys.executable} {script} {marker} {{np}} {{cmd}}", marker


@pytest.mark.parametrize("args, message", [
    (["--np", "1"], "--np 1: must be at least 2"),
    (["--timeout", "0"], "--timeout 0: must be a positive number of seconds"),
    (["--timeout", "-5"], "--timeout -5: must be a positive number of seconds"),
    (["--timeout", "nan"], "--timeout nan: must be a positive number of seconds"),
    # the bench's own options: in the bench's words (from --describe, or its --validate)
    (["--check-at", "5,1"], "--check-at: times must not decrease ('5,1')"),
    (["--check-at", "0,,1"], "--check-at: empty item in '0,,1'"),
    (["--check-at", "soon"], "--check-at: 'soon' is not a number; allowed: 0, or a number from 1e-09 to 3600"),
    (["--check-at", "4000"], "--check-at: 4000 is out of range; allowed: 0, or a number from 1e-09 to 3600"),
    (["--check-at", ",".join(["1"] * 33)], "--check-at: more than 32 items"),
    (["--clocksync", "sundial"], "--clocksync: unknown clock sync 'sundial'; allowed: none, skampi"),
    (["--clocksync", "skampi,skampi"], "--clocksync: 'skampi' is given twice"),
    (["--clocksync", "skampi,"], "--clocksync: empty item in 'skampi,'"),
    (["--timer", "sundial"], "--timer: unknown timer 'sundial'; allowed: monotonic"),
    (["--virtual-offset-s", "1"], "--virtual-offset-s/--virtual-skew-ppm apply only to --timer virtual "
                                  "(given: --timer monotonic)"),
    (["--seed", "3"], "--seed applies to --sync-check only with --timer virtual"),
    (["--timer", "virtual", "--virtual-offset-s", "-1"],
     "--virtual-offset-s: -1 is out of range; allowed: 0, or a number from 1e-09 to 1000000"),
    (["--timer", "virtual", "--virtual-skew-ppm", "inf"], "--virtual-skew-ppm: 'inf' is not a number"),
    (["--timer", "virtual", "--seed", "-1"], "--seed: '-1' is not a whole number; allowed: a whole number "
                                             "from 0 to 18446744073709551615"),
    (["--nfit", "0"], "--nfit: 0 is out of range; allowed: a whole number from 1 to 1000000"),
    (["--pingpongs", "0"], "--pingpongs: 0 is out of range; allowed: a whole number from 1 to 10000000"),
    (["--fit-span-s", "0"], "--fit-span-s: 0 is out of range; allowed: a number from 1e-09 to 3600"),
    (["--tolerance-ns", "0"], "--tolerance-ns 0: must be a positive number of nanoseconds"),
    (["--tolerance-ns", "nan"], "--tolerance-ns nan: must be a positive number of nanoseconds"),
    (["--tolerance-ns", "500", "--json"], "--tolerance-ns applies to the table; --json prints the checks"),
    (["--mpi", "lam"], "--mpi lam: no mpimeter-bench at "),
    (["--mpi", "lam/x"], "--mpi 'lam/x': a library name is a folder of the bench dir"),
])
def test_bad_input_is_one_line_and_nothing_is_launched(recording_launcher, args, message):
    template, marker = recording_launcher
    launcher = [] if "--mpi" in args else ["--mpi", "openmpi", "--launcher", template]
    r = CliRunner().invoke(main, ["sync-check", *launcher, *args])
    assert r.exit_code == 2
    assert r.stderr.startswith(f"mpimeter sync-check: error: {message}")
    assert r.stderr.count("\n") == 1 and not r.stdout
    assert not marker.exists()


def test_valid_input_reaches_the_launcher_as_checked(recording_launcher):
    template, marker = recording_launcher
    r = CliRunner().invoke(main, ["sync-check", "--mpi", "openmpi", "--launcher", template, "--np", "3",
                                  "--clocksync", "skampi,jk", "--check-at", "0,0.5,2", "--timer", "virtual",
                                  "--virtual-offset-s", "1", "--seed", "7", "--nfit", "4"])
    assert r.exit_code == 1  # the recorder fails on purpose, after recording
    args = marker.read_text().split()
    assert args[0] == "3"
    for flag, value in [("--clocksync", "skampi,jk"), ("--check-at", "0,0.5,2"), ("--timer", "virtual"),
                        ("--virtual-offset-s", "1"), ("--seed", "7"), ("--nfit", "4")]:
        assert args[args.index(flag) + 1] == value


def test_no_binary_says_both_ways_to_point_at_one(tmp_path):
    # A package installed outside a checkout has no `make build` of its own: the advice names
    # --bench-dir and $MPIMETER_BENCH_DIR (as `mpimeter run` does), and --help says the env default
    r = CliRunner().invoke(main, ["sync-check"], env={"MPIMETER_BENCH_DIR": str(tmp_path)})
    assert r.exit_code == 2 and not r.stdout
    assert r.stderr.startswith(f"mpimeter sync-check: error: no mpimeter-bench under {tmp_path} ")
    assert "--bench-dir" in r.stderr and "$MPIMETER_BENCH_DIR" in r.stderr and r.stderr.count("\n") == 1
    helped = CliRunner().invoke(main, ["sync-check", "--help"], env={"MPIMETER_BENCH_DIR": str(tmp_path)})
    assert helped.exit_code == 0 and "$MPIMETER_BENCH_DIR" in " ".join(helped.stdout.split())


# --- what the bench refuses anyway: its one line, not mpirun's abort block -------------------

FAKE_BENCH = """#!/bin/sh
# answers what the tool asks before launching as the real binary does, then fails as told
case "$1" in
  --describe) cat "$(dirname "$0")/describe.json"; exit 0 ;;
  --validate) echo '{{"describe_version": 1, "mode": "sync-check", "nprocs": 2, "tests": 0, "config": {{}}, "operations": {{}}}}'; exit 0 ;;
esac
echo "mpimeter-bench: {message}" >&2
exit {code}
"""


def fake_bench_dir(root: Path, message: str, code: int) -> Path:
    binary = root / "openmpi" / "bin" / "mpimeter-bench"
    binary.parent.mkdir(parents=True)
    real = Path(__file__).resolve().parents[2] / "build" / "openmpi" / "bin" / "mpimeter-bench"
    describe = subprocess.run([str(real), "--describe"], capture_output=True, text=True, check=True)
    (binary.parent / "describe.json").write_text(describe.stdout)
    binary.write_text(FAKE_BENCH.format(message=message, code=code))
    binary.chmod(0o755)
    return root


def test_a_refusal_of_the_bench_is_its_one_line(tmp_path):
    bench_dir = fake_bench_dir(tmp_path, "--timer monotonic: not available on this machine: no clock", 2)
    r = CliRunner().invoke(main, ["sync-check", "--mpi", "openmpi", "--bench-dir", str(bench_dir),
                                  "--check-at", "0"])
    assert r.exit_code == 2
    assert r.stderr == ("mpimeter sync-check: error: mpimeter-bench: --timer monotonic: not available on "
                        "this machine: no clock\n")


def test_a_failure_while_measuring_shows_the_bench_lines_and_exits_1(tmp_path):
    bench_dir = fake_bench_dir(tmp_path, "skampi: MPI_Recv failed", 1)
    r = CliRunner().invoke(main, ["sync-check", "--mpi", "openmpi", "--bench-dir", str(bench_dir),
                                  "--check-at", "0"])
    assert r.exit_code == 1
    assert r.stderr == "mpimeter sync-check: mpimeter-bench: skampi: MPI_Recv failed\n"


# --- how long each sync held: the lines under the table --------------------------------------

def _checks(times, residuals, truths=None):
    out = []
    for i, t in enumerate(times):
        check = {"t_s": t, "max_abs_residual_ns": residuals[i], "residual_ns": [0, residuals[i]]}
        if truths is not None:
            check.update(max_abs_true_error_ns=truths[i], true_error_ns=[0, truths[i]])
        out.append(check)
    return out


def _rendered(result: dict, **kwargs) -> str:
    out = io.StringIO()
    render_table(result, Console(file=out, width=300), **kwargs)
    return out.getvalue()


def test_the_table_says_how_long_each_sync_held():
    times = [0.1, 1, 10, 100]
    result = {"algorithms": [
        {"name": "skampi", "sync_duration_s": 0.001, "checks": _checks(times, [120, 1500, 1900, 800])},
        {"name": "hca3", "sync_duration_s": 0.2, "checks": _checks(times, [40, 60, 200, 950])},
        {"name": "hca3o", "sync_duration_s": 0.001, "checks": _checks(times, [4000, 9000, 20, 30])},
        {"name": "jk", "sync_duration_s": 0.2, "checks": _checks(times, [40, 5000, 20, 1100])}]}
    text = _rendered(result)
    # beyond at 1 and 10 s: two in a row end the hold, although 100 s is within again
    assert "skampi: |residual| within 1000 ns through 0.1 s after the sync, beyond it from 1 s: re-sync sooner" in text
    assert "hca3: |residual| within 1000 ns through the last check, 100 s after the sync" in text
    assert "hca3o: |residual| within 1000 ns at no check (beyond it from 0.1 s after the sync)" in text
    # one check beyond between two within is the check's spike; beyond at the last check ends it
    assert ("jk: |residual| within 1000 ns through 10 s after the sync, beyond it from 100 s: re-sync sooner "
            "(beyond it once at 1 s and within again at the next check: the check's spike, not the sync's)") in text
    assert "skampi: |residual| within 2000 ns through the last check" in _rendered(result, tolerance_ns=2000)


def test_with_the_truth_the_hold_goes_by_the_true_error():
    result = {"algorithms": [{"name": "skampi", "sync_duration_s": 0.001,
                              "checks": _checks([0.1, 1], [100, 100], truths=[300, 1200])}]}
    assert "skampi: |true error| within 1000 ns through 0.1 s after the sync, beyond it from 1 s" in _rendered(result)
    # the virtual timer's truth: the sync's drift grows, and re-syncing helps; one kernel clock's:
    # no sync is needed at all, which is the advice (re-syncing only adds the sync's own error)
    assert "beyond it from 1 s: re-sync sooner" in _rendered(result)
    one = _rendered(result, one_clock=True)
    assert "re-sync sooner" not in one and "every rank reads one clock here: a run needs no sync" in one
    # without the truth (several hosts) the residual decides, and the advice stays
    several = {"algorithms": [{"name": "skampi", "sync_duration_s": 0.001, "checks": _checks([0.1, 1], [100, 1500])}]}
    assert "re-sync sooner" in _rendered(several, one_clock=True)


def test_the_table_and_the_hold_go_by_when_each_check_ran():
    """A check another algorithm's sync made late says when it ran (since_sync_s): the table
    shows that time and the hold is judged at it, not at the time asked (t_s)."""
    checks = _checks([0.1, 1], [100, 1500], truths=None)
    checks[0]["since_sync_s"], checks[1]["since_sync_s"] = 0.4062, 1.0004
    text = _rendered({"algorithms": [{"name": "skampi", "sync_duration_s": 0.001, "checks": checks}]})
    assert "0.4062 s" in text and "0.1 s" not in text
    assert "skampi: |residual| within 1000 ns through 0.4062 s after the sync, beyond it from 1 s" in text


def test_ranks_started_as_separate_one_rank_jobs_are_said_so_not_blamed_on_np(tmp_path):
    """srun without an MPI plugin the library understands starts each process as its own
    one-rank MPI job: the bench's "needs at least 2 ranks (got 1)" blamed the --np 2 the user
    gave (exit 2, bad input), while the launcher is what failed."""
    bench_dir = fake_bench_dir(tmp_path, "--sync-check needs at least 2 ranks (got 1)", 2)
    r = CliRunner().invoke(main, ["sync-check", "--mpi", "openmpi", "--bench-dir", str(bench_dir),
                                  "--np", "2", "--check-at", "0"])
    assert r.exit_code == 1, r.stderr
    assert "ran as separate 1-rank MPI jobs" in r.stderr and "SLURM_MPI_TYPE" in r.stderr
    assert r.stderr.count("\n") == 1
