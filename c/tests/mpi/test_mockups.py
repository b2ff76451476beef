# SPDX-License-Identifier: BSD-3-Clause
"""The mock-up operations (c/src/ops/ops_mockups.c): each gives the result of the collective it
mocks up, on both libraries and 2, 3 and 4 ranks (c/tests/tools/mm_mockup_check.c compares them
byte for byte over datatypes, reduction ops, sizes divisible by nprocs and not, and roots), and the
binary describes each as the mock-up of its original."""

from __future__ import annotations

import subprocess

import pytest

from conftest import REPO, described, launcher, read_launch, run_bench

CATALOGUE = {  # the guidelines' right-hand sides: mock-up -> (original, calls)
    "allreduce-as-reduce-bcast": ("allreduce", ["reduce", "bcast"]),
    "allreduce-as-rsb-allgather": ("allreduce", ["reduce_scatter_block", "allgather"]),
    "allreduce-as-rs-allgatherv": ("allreduce", ["reduce_scatter", "allgatherv"]),
    "allgather-as-gather-bcast": ("allgather", ["gather", "bcast"]),
    "allgather-as-alltoall": ("allgather", ["alltoall"]),
    "allgather-as-allreduce": ("allgather", ["allreduce"]),
    "bcast-as-scatter-allgather": ("bcast", ["scatter", "allgather"]),
    "gather-as-allgather": ("gather", ["allgather"]),
    "gather-as-reduce": ("gather", ["reduce"]),
    "reduce-as-allreduce": ("reduce", ["allreduce"]),
    "reduce-as-rsb-gather": ("reduce", ["reduce_scatter_block", "gather"]),
    "rs-as-allreduce": ("reduce_scatter", ["allreduce"]),
    "rs-as-reduce-scatterv": ("reduce_scatter", ["reduce", "scatterv"]),
    "rsb-as-reduce-scatter": ("reduce_scatter_block", ["reduce", "scatter"]),
    "scan-as-exscan-reduce_local": ("scan", ["exscan", "reduce_local"]),
    "scatter-as-bcast": ("scatter", ["bcast"]),
}


def _checker(lib: str):
    path = REPO / "build" / lib / "tests" / "mm_mockup_check"
    assert path.exists(), f"{path} is missing: run `make build` first"
    return path


@pytest.mark.parametrize("np", [2, 3, 4])
def test_every_mockup_gives_its_originals_result(lib, np):
    proc = subprocess.run(launcher(lib, np) + [str(_checker(lib))], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    cases = int(last.split()[1])
    # 15 mock-ups x 6 datatypes x up to 2 reduction ops x 4 counts (x 2 roots for rooted ones)
    assert cases >= 15 * 4 and last.endswith("0 mismatches, 0 failed"), proc.stdout


def test_checker_refuses_an_unknown_name(lib):
    proc = subprocess.run(launcher(lib, 2) + [str(_checker(lib)), "no-such-mockup"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0 and "no mock-up named no-such-mockup" in proc.stdout


def test_describe_lists_the_catalogue(lib):
    doc = described(lib)
    ops = {o["name"]: o for o in doc["operations"]}
    mockups = {name: (o["mockup"]["of"], o["mockup"]["calls"]) for name, o in ops.items() if "mockup" in o}
    assert mockups == CATALOGUE
    for name, (of, _) in CATALOGUE.items():
        assert ops[name]["kind"] == "mock-up" and of in ops
        # the mock-up has its original's size semantics, and so its bound
        assert ops[name]["bound_volume"] == ops[of]["bound_volume"]
        assert ops[name]["uses_reduce_op"] == ops[of]["uses_reduce_op"]
    assert not any("mockup" in o for o in doc["operations"] if o["kind"] != "mock-up")


def test_a_launch_records_what_a_mockup_mocks_up(lib, tmp_path):
    out = tmp_path / "launch"
    # barrier starts: what is checked here is the record, and a window test of 5 repetitions can
    # end with none valid on a busy machine (it then has no rows: 2 of 72 tests, quiet)
    run_bench(lib, 2, ["--ops", "allreduce,allreduce-as-reduce-bcast,bcast-as-scatter-allgather",
                       "--sizes", "8,24", "--nrep", "5", "--procsync", "barrier", "--out", out])
    meta, raw = read_launch(out)
    assert meta["operations"]["allreduce-as-reduce-bcast"]["mockup_of"] == "allreduce"
    assert meta["operations"]["bcast-as-scatter-allgather"]["mockup_of"] == "bcast"
    assert "mockup_of" not in meta["operations"]["allreduce"]
    assert set(raw["op"]) == {"allreduce", "allreduce-as-reduce-bcast", "bcast-as-scatter-allgather"}
    assert set(zip(raw["op"], raw["size"])) == {(op, size) for op in set(raw["op"]) for size in (8, 24)}
