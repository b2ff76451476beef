"""The memory check before a launch (bench/memcheck.c) counts what the options multiply: a
one-sided -bw row's --rma-burst blocks and window (on the pair's two ranks only, whatever the
number of ranks), and a neighborhood collective's block per neighbour of the --cart-dims torus.
Sizes beyond memory are refused with one line, exit 2, nothing written; the figure in the
message is what the ops' setups allocate (ops_memory.c), which the table's blocks alone (a burst
of 1, 4 neighbours) understate by the burst and the degree.

The sizes are chosen so that even the table's blocks alone would not fit in this host's memory:
the test never allocates, whatever the check says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import LIBS, run_bench

GIB = 1 << 30


def _mem_available() -> int | None:
    try:
        m = re.search(r"^MemAvailable:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
    except OSError:
        return None
    return int(m.group(1)) * 1024 if m else None


def _refused(lib: str, np: int, args: list, out: Path) -> str:
    proc = run_bench(lib, np, args + ["--out", out], timeout=60, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("mpimeter-bench:")]
    assert len(lines) == 1, proc.stderr
    assert not out.exists()
    return lines[0]


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("np", [2, 4])
def test_a_burst_beyond_memory_is_refused_with_its_burst(lib, np, tmp_path):
    size, burst = 8 * GIB, 64
    available = _mem_available()
    # the table's 2 blocks on each of 2 ranks must not fit either (nothing is ever allocated)
    if available is None or available >= 4 * size:
        pytest.skip("MemAvailable unknown or above 32 GiB")
    message = _refused(lib, np, ["--ops", "rma-put-bw", "--rma-sync", "lock-all-flush", "--rma-burst", burst,
                                 "--datatype", "double", "--sizes", size], tmp_path / "o")
    assert f"--sizes {size}: the buffers of rma-put-bw at {size} bytes with --rma-burst {burst} need" in message
    # per rank of the pair: send, compare, result, the burst read into and the check's block,
    # and the window of burst blocks; on the two ranks of the pair only, also on 4 ranks
    need = 2 * ((3 + burst + 1) * size + burst * size)
    assert f"need {need / GIB / 1024:.1f} TiB" in message, message
    assert f"({np} rank(s))" in message and "a smaller --rma-burst" in message


@pytest.mark.parametrize("lib", LIBS)
def test_a_degree_beyond_memory_is_refused_with_the_topology(lib, tmp_path):
    size = 4 * GIB
    available = _mem_available()
    if available is None or available >= 2 * 8 * size:
        pytest.skip("MemAvailable unknown or above 64 GiB")
    # 8 dimensions on 2 ranks: 16 neighbours in and out, a block each way (the table: 4)
    message = _refused(lib, 2, ["--ops", "neighbor_alltoall", "--cart-dims", "1,1,1,1,1,1,1,2", "--datatype",
                                "double", "--sizes", size], tmp_path / "o")
    assert "the buffers of neighbor_alltoall" in message and "a block per neighbour of the --cart-dims torus" in message
    need = 2 * (32 * size + 2 * 8)
    assert f"need {need / GIB:.1f} GiB" in message, message
    assert "fewer neighbours" in message
