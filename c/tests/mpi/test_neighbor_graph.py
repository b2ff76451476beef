# SPDX-License-Identifier: BSD-3-Clause
"""Neighborhood collectives on the distributed graph of --graph-file.

The file is checked on rank 0 before anything is written (one line, exit 2); a launch records the
graph's digest and degrees, runs every neighbor op on it, and checks after each test that every
received block holds what its source sent (a corrupted byte fails the test)."""

from __future__ import annotations

import pytest
from conftest import NO_EXTRA_CALLS, assert_refused, assert_verify_failed, read_launch, run_bench

QUICK = ["--nrep", "4", *NO_EXTRA_CALLS, "--procsync", "barrier", "--copy-probe-bytes", "0"]
OPS = ["neighbor_allgather", "neighbor_alltoall", "neighbor_alltoallv", "ineighbor_allgather",
       "ineighbor_alltoall", "ineighbor_alltoallv"]
# rank 1 names itself; 4 ranks: a ring with a chord, and rank 3 receives from two ranks
GRAPHS = {
    2: ("# two ranks\n0: 1\n1: 0 1\n", {"nodes": 2, "edges": 3, "out_degree": [1, 2], "in_degree": [1, 2]}),
    4: ("0: 1 3\n1: 2\n\n2: 3 0   # a comment\n3: 0\n",
        {"nodes": 4, "edges": 6, "out_degree": [1, 2], "in_degree": [1, 2]}),
}


def fnv1a64(data: bytes) -> str:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


@pytest.mark.parametrize("np", [2, 4])
def test_every_neighbor_op_runs_on_the_graph_and_receives_its_sources_blocks(lib, np, tmp_path):
    text, facts = GRAPHS[np]
    graph = tmp_path / "graph.txt"
    graph.write_text(text)
    out = tmp_path / "o"
    run_bench(lib, np, QUICK + ["--ops", ",".join(OPS), "--sizes", "8,1024", "--graph-file", graph,
                                "--out", out], timeout=180)
    meta, raw = read_launch(out)
    # every test complete: the check after each one found every block from its source
    assert [t["status"] for t in meta["tests"]] == ["complete"] * (len(OPS) * 2), meta["tests"]
    assert set(raw["op"]) == set(OPS)
    assert meta["config"]["graph"] == {"fnv1a64": fnv1a64(text.encode()), **facts}
    assert "cart_dims" not in meta["config"]  # one topology: the graph's
    # the bound's data term: the most in-neighbours a rank has
    assert meta["operations"]["neighbor_alltoall"]["bound_volume"] == \
        {"formula": "in-neighbours x size", "bytes_per_size": facts["in_degree"][1]}


@pytest.mark.parametrize("op", ["neighbor_alltoallv", "ineighbor_allgather"])
def test_a_corrupted_block_fails_the_check_after_the_test(lib, op, tmp_path):
    graph = tmp_path / "graph.txt"
    graph.write_text(GRAPHS[4][0])
    out = tmp_path / "o"
    # rank 0 changes the first byte it sends: ranks 1 and 3 receive it
    run_bench(lib, 4, QUICK + ["--ops", f"{op},neighbor_alltoall", "--sizes", "64", "--graph-file",
                               graph, "--inject-error", op, "--out", out], timeout=180)
    meta, raw = read_launch(out)
    by_op = assert_verify_failed(meta, op, "from rank 0")
    assert by_op["neighbor_alltoall"]["status"] == "complete"


def test_the_cartesian_check_holds_where_it_can_say_what_arrives(lib, tmp_path):
    # extents of 3 and more: each block of alltoall has one source and one place (with extent 1
    # or 2 the same rank is the neighbour on both sides and the check is skipped)
    out = tmp_path / "o"
    run_bench(lib, 3, QUICK + ["--ops", "neighbor_alltoall,neighbor_allgather", "--sizes", "64",
                               "--cart-dims", "3", "--inject-error", "neighbor_alltoall", "--out", out],
              timeout=180)
    meta, _ = read_launch(out)
    by_op = {t["op"]: t for t in meta["tests"]}
    assert by_op["neighbor_alltoall"]["error"]["code"] == "verify-failed"
    assert "Cartesian topology" in by_op["neighbor_alltoall"]["error"]["message"]
    assert by_op["neighbor_allgather"]["status"] == "complete"


BAD = [
    ("hello\n", "line 1: 'hello' is not a rank's line"),
    ("0: 1\n2: 0\n", "line 2: rank 2 where rank 1 was expected"),
    ("0: 1 7\n1: 0\n", "line 1: rank 0 names rank 7, which the graph does not hold"),
    ("0: 1 1\n1: 0\n", "line 1: rank 0 names rank 1 twice"),
    ("0: 1 x\n1: 0\n", "line 1: 'x' is not a rank"),
    ("# nothing\n\n", "no rank's line in the file"),
    ("0: 1\n1: 2\n2: 0\n", "the graph holds 3 ranks, the communicator 2"),
    ("0: 1\x00\n1: 0\n", "the file holds a NUL byte"),
    ("0: 1\n1: 0\n" + "#" * 70000 + "\n", "allowed: a graph file of at most 65536 bytes"),
]


@pytest.mark.parametrize("text,needle", BAD)
def test_a_file_that_is_not_a_graph_of_the_ranks_is_refused(text, needle, tmp_path):
    graph = tmp_path / "graph.txt"
    graph.write_bytes(text.encode())
    assert_refused("mpich", ["--ops", "neighbor_allgather", "--graph-file", graph], needle, tmp_path)


def test_paths_that_are_not_a_graph_file_are_refused(tmp_path):
    real = tmp_path / "graph.txt"
    real.write_text("0: 1\n1: 0\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    for path, needle in [(link, "is a symbolic link"), (tmp_path, "not a regular file"),
                         ("/dev/zero", "not a regular file"), (tmp_path / "absent", "cannot be opened")]:
        assert_refused("openmpi", ["--ops", "neighbor_alltoall", "--graph-file", path], needle, tmp_path)
    for dims in ("2", "auto"):  # even auto: the option would be ignored
        assert_refused("openmpi", ["--ops", "neighbor_alltoall", "--graph-file", real, "--cart-dims", dims],
                       "--graph-file and --cart-dims", tmp_path)
    assert_refused("openmpi", ["--ops", "allreduce", "--graph-file", real],
                   "--graph-file applies only to neighborhood collectives", tmp_path)
