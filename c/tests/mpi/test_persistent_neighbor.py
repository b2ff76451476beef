# SPDX-License-Identifier: BSD-3-Clause
"""MPI-4 persistent collectives and MPI-3 neighborhood collectives.

Persistent rows exist in every build's table; the binary says per library whether it has them
(--list-ops, --describe) and refuses them where it does not. Neighborhood collectives run on the
periodic Cartesian topology of --cart-dims (or MPI_Dims_create's); a topology that does not
hold the ranks is refused. Launches are short: they check shape and availability, not timings."""

from __future__ import annotations

import subprocess

import pytest
from conftest import NO_EXTRA_CALLS, assert_refused, bench_path, described, read_launch, run_bench

QUICK = ["--nrep", "4", *NO_EXTRA_CALLS, "--procsync", "barrier", "--copy-probe-bytes", "0"]
PERSISTENT = ["persistent-allreduce", "persistent-allreduce-init", "persistent-bcast",
              "persistent-bcast-init", "persistent-barrier", "persistent-alltoall",
              "persistent-allgather-init", "persistent-reduce"]
# built with them: MPICH 4.0; without: Open MPI 4.1 (CMake's check, MM_HAVE_PERSISTENT_COLL)
HAS_PERSISTENT = {"mpich": True, "openmpi": False}


def test_each_library_says_whether_it_has_persistent_collectives(lib):
    ops = {o["name"]: o for o in described(lib)["operations"]}
    for name in PERSISTENT:
        assert ops[name]["kind"] == "persistent"
        assert ops[name]["available"] is HAS_PERSISTENT[lib]
        assert (ops[name]["unavailable_reason"] is None) is HAS_PERSISTENT[lib]
    assert ops["allreduce"]["available"] is True
    listed = subprocess.run([str(bench_path(lib)), "--list-ops"], capture_output=True, text=True,
                            timeout=60, check=True).stdout.splitlines()
    line = next(x for x in listed if x.startswith("persistent-allreduce "))
    assert ("[not available:" in line) is not HAS_PERSISTENT[lib]


def test_persistent_collectives_where_the_library_has_them(lib, tmp_path):
    if not HAS_PERSISTENT[lib]:
        assert_refused(lib, ["--ops", "persistent-allreduce,allreduce"],
                       "--ops persistent-allreduce: not available: this MPI library", tmp_path)
        return
    out = tmp_path / "o"
    run_bench(lib, 4, QUICK + ["--ops", ",".join(PERSISTENT + ["allreduce"]), "--sizes", "8,4096",
                               "--out", out], timeout=120)
    meta, raw = read_launch(out)
    assert all(t["status"] == "complete" for t in meta["tests"]), meta["tests"]
    assert set(raw["op"]) == set(PERSISTENT + ["allreduce"])
    # the use and the init are separate rows, each with the blocking twin's bound
    assert meta["operations"]["persistent-allreduce"]["bound_volume"] == \
        meta["operations"]["allreduce"]["bound_volume"]
    assert meta["operations"]["persistent-allreduce-init"]["bound_volume"] is None


@pytest.mark.parametrize("np,dims", [(2, None), (4, "2,1,2")])
def test_neighborhood_collectives_on_a_cartesian_topology(lib, np, dims, tmp_path):
    ops = ["neighbor_allgather", "neighbor_alltoall", "neighbor_alltoallv", "ineighbor_allgather",
           "ineighbor_alltoallv"]
    out = tmp_path / "o"
    cart = ["--cart-dims", dims] if dims else []
    run_bench(lib, np, QUICK + ["--ops", ",".join(ops), "--sizes", "64"] + cart + ["--out", out],
              timeout=120)
    meta, raw = read_launch(out)
    assert all(t["status"] == "complete" for t in meta["tests"]), meta["tests"]
    assert set(raw["op"]) == set(ops)
    ndims = 3 if dims else 2
    assert meta["config"]["cart_dims"] == ([2, 1, 2] if dims else None)
    assert meta["operations"]["neighbor_alltoall"]["bound_volume"] == \
        {"formula": "in-neighbours x size", "bytes_per_size": 2 * ndims}


@pytest.mark.parametrize("args,needle", [
    (["--ops", "neighbor_allgather", "--cart-dims", "3,2"],
     "--cart-dims: the topology holds 6 ranks, the launch has 2"),
    (["--ops", "neighbor_allgather", "--cart-dims", "2,x"], "--cart-dims: '2,x' is not dimensions"),
    (["--ops", "allreduce", "--cart-dims", "2"], "--cart-dims applies only to neighborhood collectives"),
])
def test_bad_topology_is_refused(args, needle, tmp_path):
    assert_refused("mpich", args, needle, tmp_path)
