# SPDX-License-Identifier: BSD-3-Clause
"""Nonblocking collectives on real ranks (NBCBench, Hoefler, Schneider & Lumsdaine 2010 §4): every
nonblocking operation on 2 and 4 ranks with both libraries, its components consistent with the
window-measured total, the time- and work-based schemes with MPI_Test calls, and the options'
bad input."""

from __future__ import annotations

import json

import pytest
from conftest import NO_EXTRA_CALLS, assert_refused, described, read_launch, run_bench

COMPONENTS = ["init_ns", "test_ns", "wait_ns", "compute_ns", "blocking_ns"]


def _nbc_ops(lib: str) -> list[str]:
    """The nonblocking collectives the binary describes (its own table, not a copy here); the
    neighborhood ones, on a Cartesian topology, are test_persistent_neighbor.py's."""
    return [o["name"] for o in described(lib)["operations"]
            if o["kind"] == "nonblocking" and "neighbor" not in o["name"]]


def test_the_binary_lists_the_sixteen_nonblocking_collectives(lib):
    assert sorted(_nbc_ops(lib)) == sorted(
        ["ibarrier", "ibcast", "igather", "igatherv", "iscatter", "iscatterv", "iallgather", "iallgatherv",
         "ialltoall", "ialltoallv", "ireduce", "iallreduce", "ireduce_scatter", "ireduce_scatter_block",
         "iscan", "iexscan"])


@pytest.mark.parametrize("np_", [2, 4])
def test_every_nonblocking_op_records_consistent_components(lib, np_, tmp_path):
    ops = _nbc_ops(lib)
    nrep = 4 if (lib == "mpich" and np_ > 2) else 10  # MPICH busy-polls when oversubscribed
    out = tmp_path / "nbc"
    # barrier starts: the components are under test, and a start that cannot be late keeps a
    # loaded machine from failing a test for want of a valid repetition (no-valid-repetitions)
    run_bench(lib, np_, ["--ops", ",".join(ops), "--sizes", "8,4096", "--nrep", nrep, *NO_EXTRA_CALLS,
                         "--test-interval", 1024, "--seed", 3, "--procsync", "barrier", "--out", out],
              timeout=600)
    meta, raw = read_launch(out)
    assert meta["schema_version"] == 4
    assert all(t["status"] == "complete" for t in meta["tests"]), meta["tests"]
    assert set(raw["op"]) == set(ops)
    for t in meta["tests"]:
        nbc = t["nbc"]
        assert nbc is not None and nbc["compute_ns"] > 0 and nbc["blocking_nrep"] == nrep
        # ceil(size / 1024) + 1 MPI_Test calls (NBCBench §4.2)
        assert nbc["tests"] == -(-t["size"] // 1024) + 1
        assert nbc["work_units"] == 0 and nbc["calibrated_ns"] is None  # time-based by default
    assert raw[COMPONENTS].notna().all().all()
    assert (raw[COMPONENTS] >= 0).all().all()
    total = raw["end_ns"] - raw["start_ns"]
    assert (raw["init_ns"] + raw["wait_ns"] <= total).all()
    assert (raw["init_ns"] + raw["test_ns"] + raw["wait_ns"] + raw["compute_ns"] == total).all()
    # the time-based computation lasts at least t_b on every rank
    tb = raw["test"].map({t["test"]: t["nbc"]["compute_ns"] for t in meta["tests"]})
    assert (raw["compute_ns"] >= tb).all()
    # overlap = 1 - overhead / blocking never exceeds 1
    overhead = raw["init_ns"] + raw["test_ns"] + raw["wait_ns"]
    assert ((1 - overhead / raw["blocking_ns"].where(raw["blocking_ns"] > 0)).dropna() <= 1).all()


def test_work_scheme_calibrates_and_blocking_ops_have_no_components(lib, tmp_path):
    out = tmp_path / "work"
    # barrier starts: both tests have their rows whatever the load (see the test above)
    run_bench(lib, 2, ["--ops", "iallreduce,allreduce", "--sizes", "65536", "--nrep", 10, "--procsync", "barrier",
                       "--nbc-scheme", "work", "--nbc-compute-ns", 200000, "--seed", 5, "--out", out])
    meta, raw = read_launch(out)
    assert meta["config"]["nbc_scheme"] == "work" and meta["config"]["nbc_compute_ns"] == 200000
    by_op = {t["op"]: t for t in meta["tests"]}
    nbc = by_op["iallreduce"]["nbc"]
    assert nbc["compute_ns"] == 200000 and nbc["tests"] == 0 and nbc["work_units"] > 0
    assert nbc["calibrated_ns"] > 0
    assert by_op["allreduce"]["nbc"] is None
    blocking = raw[raw["op"] == "allreduce"]
    assert blocking[COMPONENTS].isna().all().all()
    nonblocking = raw[raw["op"] == "iallreduce"]
    assert (nonblocking["test_ns"] == 0).all()  # no --test-interval: no MPI_Test
    assert nonblocking["compute_ns"].median() > 0


BAD = [
    (["--ops", "allreduce", "--nbc-scheme", "work"], "--nbc-scheme applies only to nonblocking"),
    (["--ops", "bcast", "--test-interval", "1024"], "--test-interval applies only to nonblocking"),
    (["--ops", "ibcast", "--test-interval", "0"], "--test-interval"),
    (["--ops", "ibcast", "--test-interval", "-5"], "--test-interval"),
    (["--ops", "ibcast", "--nbc-scheme", "lazy"], "--nbc-scheme"),
    (["--ops", "ibcast", "--nbc-compute-ns", "0"], "--nbc-compute-ns"),
    (["--ops", "iallreduce", "--datatype", "char"], "--reduce-op"),
]


@pytest.mark.parametrize("args,needle", BAD, ids=[" ".join(b[0]) for b in BAD])
def test_bad_nonblocking_input_exits_2_everywhere(lib, args, needle, tmp_path):
    assert_refused(lib, args, needle, tmp_path)


def test_compare_and_gate_on_overhead_across_libraries(tmp_path):
    """One launch per library, compared on the overhead (per repetition: one launch each)."""
    from click.testing import CliRunner

    from mpimeter.cli.compare import command as compare_command
    from mpimeter.cli.gate import command as gate_command

    folders = []
    for lib in ("openmpi", "mpich"):
        out = tmp_path / lib
        # barrier starts: no repetition is lost to a late wake-up on a loaded machine, so both
        # sizes have valid repetitions to compare
        run_bench(lib, 2, ["--ops", "iallreduce", "--sizes", "64,65536", "--nrep", 30, "--procsync", "barrier",
                           "--seed", 9, "--out", out])
        folders.append(str(out))
    r = CliRunner().invoke(compare_command, folders + ["--metric", "overhead", "--per-repetition", "--format", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["metric"] == "overhead"
    assert sorted((row["op"], row["size"]) for row in doc["rows"]) == [("iallreduce", 64), ("iallreduce", 65536)]
    assert all(row["median_a_ns"] > 0 and row["median_b_ns"] > 0 for row in doc["rows"])
    r = CliRunner().invoke(gate_command, folders + ["--metric", "overhead", "--per-repetition"])
    assert r.exit_code in (0, 1), r.output  # whichever library is slower: the gate answered
    assert "medians are overheads" in " ".join(r.output.split())
    # a campaign without a nonblocking collective cannot be compared on the overhead: exit 2
    plain = tmp_path / "plain"
    run_bench("openmpi", 2, ["--ops", "allreduce", "--sizes", "64", "--nrep", 10, "--out", plain])
    r = CliRunner().invoke(compare_command, [folders[0], str(plain), "--metric", "overhead", "--per-repetition"])
    assert r.exit_code == 2 and "has no valid repetition of a nonblocking" in " ".join(r.output.split())
