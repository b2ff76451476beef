# SPDX-License-Identifier: BSD-3-Clause
"""The progression variant set (examples/suites/nbc-progress.toml) without MPI: its progress-thread
switches pass the one allow-list of variables from files, the suite runs its strategies as the
campaign's alternatives (the fake bench; the real binary answers --describe) and --resume
--trust-recorded runs them again; bench/nbc_progress.py names each launch's strategy and puts the
strategies side by side, and its recorded run is what that table makes of its launches."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from data.fakebench import cli, fake_env, one_line_error, template  # noqa: F401 (fake_env: a fixture)

from mpimeter import launch_vars

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "examples" / "suites" / "nbc-progress.toml"
RECORDED = REPO / "bench" / "results" / "nbc_progress.json"
_spec = importlib.util.spec_from_file_location("bench_nbc_progress", REPO / "bench" / "nbc_progress.py")
study = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(study)

THREAD_ENV = {
    "mpich-thread": {"MPIR_CVAR_ASYNC_PROGRESS": "1"},
    "openmpi-tcp": {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "tcp,self"},
    "openmpi-tcp-thread": {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "tcp,self", "OMPI_MCA_btl_tcp_progress_thread": "1"},
}


# ---- the allow-list ---------------------------------------------------------------------------

@pytest.mark.parametrize("name,value", [("MPIR_CVAR_ASYNC_PROGRESS", "1"), ("MPIR_CVAR_ASYNC_PROGRESS", "0"),
                                        ("OMPI_MCA_btl_tcp_progress_thread", "1"),
                                        ("OMPI_MCA_btl_tcp_progress_thread", "0")])
def test_the_progress_thread_switches_pass_the_list(name, value):
    assert launch_vars.refusal(name, value) is None


@pytest.mark.parametrize("name,value,words", [
    ("MPIR_CVAR_ASYNC_PROGRESS", "2", "0 or 1"),
    ("MPIR_CVAR_ASYNC_PROGRESS", "yes", "0 or 1"),
    ("OMPI_MCA_btl_tcp_progress_thread", "1;id", "0 or 1"),
    ("MPIR_CVAR_ASYNC_PROGRESS_X", "1", "allow-list"),
    ("OMPI_MCA_btl_sm_progress_thread", "1", "allow-list"),
    ("MPICH_ASYNC_PROGRESS", "1", "allow-list"),
])
def test_a_progress_switch_of_another_value_or_name_is_refused(name, value, words):
    why = launch_vars.refusal(name, value)
    assert why is not None and words in why, why


# ---- the suite: the strategies as alternatives ------------------------------------------------

def _run(tmp: Path, out: Path, *extra: str, env: dict | None = None):
    return cli(["--launcher", template(tmp), "--suite", str(SUITE), "--np", "2", "--launches", "1", "--nrep", "2",
                "--retries", "0", "--no-analyze", "--out", str(out), *extra], env=env)


def test_the_suite_runs_none_and_the_threads_and_with_test_interval_the_tests(fake_env):
    tmp, _ = fake_env
    result = _run(tmp, tmp / "c", env={"FAKE_BENCH_ECHO": "MPIR_CVAR_ASYNC_PROGRESS"})
    assert result.exit_code == 0, result.output
    disk = json.loads((tmp / "c" / "campaign.json").read_text())
    alternatives = {a["name"]: (a["mpi"], a["env"]) for a in disk["alternatives"]}
    assert alternatives == {"openmpi": ("openmpi", {}), "mpich": ("mpich", {}),
                            "mpich-thread": ("mpich", THREAD_ENV["mpich-thread"]),
                            "openmpi-tcp": ("openmpi", THREAD_ENV["openmpi-tcp"]),
                            "openmpi-tcp-thread": ("openmpi", THREAD_ENV["openmpi-tcp-thread"])}
    args = disk["bench_args"]
    assert args[args.index("--nbc-scheme") + 1] == "work" and "--test-interval" not in args
    assert args[args.index("--ops") + 1] == "iallreduce,ibcast,ialltoall"
    # the launch of MPICH's thread variant, and it alone, ran with the switch in its environment
    echoed = {alt: json.loads((tmp / "c" / alt / "launches" / "000" / "meta.json").read_text())["env_echo"]
              for alt in alternatives}
    assert echoed == {"openmpi": None, "mpich": None, "mpich-thread": "1", "openmpi-tcp": None,
                      "openmpi-tcp-thread": None}
    result = _run(tmp, tmp / "t", "--test-interval", "1024")
    assert result.exit_code == 0, result.output
    args = json.loads((tmp / "t" / "campaign.json").read_text())["bench_args"]
    assert args[args.index("--test-interval") + 1] == "1024"


def test_resume_with_trust_recorded_runs_the_thread_variants_again(fake_env):
    tmp, _ = fake_env
    out = tmp / "c"
    assert _run(tmp, out, env={"FAKE_BENCH_MODE": "fail"}).exit_code == 1
    result = cli(["--resume", str(out), "--launcher", template(tmp), "--trust-recorded", "--no-analyze"],
                 env={"FAKE_BENCH_MODE": "ok", "FAKE_BENCH_ECHO": "OMPI_MCA_btl_tcp_progress_thread"})
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "openmpi-tcp-thread" / "launches" / "000" / "meta.json").read_text())
    assert meta["env_echo"] == "1"
    # without --trust-recorded the recorded variables are refused, not dropped
    assert _run(tmp, tmp / "d", env={"FAKE_BENCH_MODE": "fail"}).exit_code == 1
    line = one_line_error(cli(["--resume", str(tmp / "d"), "--launcher", template(tmp), "--no-analyze"]))
    assert "--trust-recorded" in line, line


# ---- the study's table ------------------------------------------------------------------------

@pytest.mark.parametrize("alternative,library,tests,strategy", [
    ("mpich", "mpich", 0, "none"), ("mpich", "mpich", 3, "tests"), ("mpich-thread", "mpich", 0, "thread"),
    ("mpich-thread", "mpich", 2, "thread+tests"), ("openmpi-tcp-thread", "openmpi", 0, "tcp-thread"),
    ("openmpi-tcp", "openmpi", 1025, "tcp+tests"), ("mine", "openmpi", 0, "mine")])
def test_a_launch_is_named_by_its_strategy(alternative, library, tests, strategy):
    assert study.strategy_of(alternative, library, tests) == strategy


def _record(lib, strategy, size, overlap, launch, stretch=1.0):
    return {"library": lib, "op": "iallreduce", "size": size, "strategy": strategy, "launch": launch,
            "tests_per_rep": 2 if "tests" in strategy else 0, "overlap": overlap, "overlap_imb": overlap / 2,
            "overlap_osu": overlap / 4, "overhead_ns": 1000 * (1 - overlap), "blocking_ns": 1000,
            "stretch": stretch}


def test_the_table_puts_the_strategies_side_by_side_with_the_launch_spread():
    records = [_record("mpich", s, size, v, n) for s, size, values in (
        ("thread", 8, (0.1, 0.3, 0.2)), ("none", 8, (-0.5, 0.1, 0.0)), ("tests", 8, (0.4, 0.6, 0.5)),
        ("none", 65536, (0.0, 0.1, 0.2))) for n, v in enumerate(values)]
    records += [_record("openmpi", "none", 8, 0.25, 0, stretch=None), _record("openmpi", "none", 8, 0.75, 1, 2.0)]
    table = study.side_by_side(records)
    assert [(r["library"], r["size"], r["strategy"]) for r in table] == [
        ("mpich", 8, "none"), ("mpich", 8, "tests"), ("mpich", 8, "thread"), ("mpich", 65536, "none"),
        ("openmpi", 8, "none")]
    none8, tests8 = table[0], table[1]
    assert (none8["launches"], none8["overlap"], none8["overlap_low"], none8["overlap_high"]) == (3, 0.0, -0.5, 0.1)
    assert (tests8["overlap"], tests8["overlap_imb"], tests8["tests_per_rep"]) == (0.5, 0.25, 2)
    # an even count: the middle two averaged; a launch without a stretch (time scheme) left out
    assert (table[4]["overlap"], table[4]["stretch"]) == (0.5, 2.0)
    lines = [line.split() for line in study.format_table(table).splitlines()]
    assert lines[3][:6] == ["mpich", "iallreduce", "8", "thread", "3", "0.200"], lines[3]


def test_the_recorded_study_is_its_launches_tabled_with_every_strategy_of_the_suite():
    doc = json.loads(RECORDED.read_text())
    assert doc["table"] == study.side_by_side(doc["launches"])
    assert doc["settings"]["suite_text"] == SUITE.read_text(), "the suite changed since the study ran: run it again"
    strategies = {(r["library"], r["op"], r["size"]): set() for r in doc["table"]}
    for r in doc["table"]:
        strategies[(r["library"], r["op"], r["size"])].add(r["strategy"])
        assert r["launches"] == doc["settings"]["rounds"], r
    want = {"mpich": {"none", "tests", "thread", "thread+tests"},
            "openmpi": {"none", "tests", "tcp", "tcp+tests", "tcp-thread", "tcp-thread+tests"}}
    assert all(seen == want[key[0]] for key, seen in strategies.items()), strategies
    assert {key[1] for key in strategies} == {"iallreduce", "ibcast", "ialltoall"}
    assert RECORDED.with_suffix(".png").is_file()
