# SPDX-License-Identifier: BSD-3-Clause
"""The memory check before a launch (bench/memcheck.c) counts what the options multiply: a
one-sided -bw row's --rma-burst blocks and window (on the pair's two ranks only, whatever the
number of ranks), and a neighborhood collective's block per neighbour of the --cart-dims torus.
Sizes beyond memory are refused with one line, exit 2, nothing written; the figure in the
message is what the ops' setups allocate (ops_memory.c), which the table's blocks alone (a burst
of 1, 4 neighbours) understate by the burst and the degree.

The requests are sized from this host's MemAvailable (read here as the check reads it): what
they need is at least MARGIN times MemAvailable, so that the check refuses them however the free
memory moves while the test runs, and the test never allocates. Sizes stay within MPI's count
(SIZE: 2^30 doubles); the factor that grows with the memory is the option under test, --rma-burst
or the number of ranks on the torus. Only where MemAvailable cannot be read is a test skipped:
the binary then skips its check too (memcheck.c), so there is nothing to refuse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import LIBS, run_bench

GIB = 1 << 30
SIZE = 8 * GIB  # 2^30 doubles: the largest power of two of them within MPI's int count
MARGIN = 4
BURST_MAX = 65536  # --rma-burst's bound (mpimeter-bench --describe)


def _mem_available() -> int | None:
    try:
        m = re.search(r"^MemAvailable:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
    except OSError:
        return None
    return int(m.group(1)) * 1024 if m else None


def _available_or_skip() -> int:
    available = _mem_available()
    if available is None:
        pytest.skip("MemAvailable cannot be read from /proc/meminfo: mpimeter-bench skips its memory "
                    "check then (memcheck.c), so no request is refused")
    return available


def _human(nbytes: float) -> str:
    """A figure as the binary's messages write it (memcheck.c): 1024-steps up to PiB, one decimal."""
    units = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB")
    u = 0
    while nbytes >= 1024 and u < len(units) - 1:
        nbytes /= 1024
        u += 1
    return f"{nbytes:.1f} {units[u]}" if u else f"{nbytes:.0f} {units[u]}"


def _burst_need(burst: int) -> int:
    """rma-put-bw at SIZE, per rank of the pair: send, compare, result, the burst read into and
    the check's block, and the window of burst blocks; on the two ranks of the pair only."""
    return 2 * ((3 + burst + 1) * SIZE + burst * SIZE)


def _torus_need(np: int) -> int:
    """neighbor_alltoall at SIZE on 8 dimensions: 16 neighbours in and out, a block each way (the
    table: 8 blocks), and two words, on each of the np ranks."""
    return np * (32 * SIZE + 2 * 8)


def test_the_requests_grow_with_the_memory():
    small, large = 22 * GIB, 64 << 40
    assert _smallest_burst(small) == 64 and _burst_need(64) >= MARGIN * small
    assert _smallest_burst(large) == 8192 and _burst_need(8192) >= MARGIN * large > _burst_need(4096)
    assert _torus_ranks(small) == 2 and _torus_need(2) >= MARGIN * small
    assert _torus_ranks(large) == 1024 and _torus_need(1024) >= MARGIN * large > _torus_need(512)
    assert _human(2112 * GIB) == "2.1 TiB" and _human(512 * GIB + 32) == "512.0 GiB" and _human(900) == "900 bytes"


def _smallest_burst(available: int) -> int:
    """The smallest power-of-two --rma-burst from 64 on whose buffers need MARGIN x available."""
    burst = 64
    while _burst_need(burst) < MARGIN * available:
        burst *= 2
    assert burst <= BURST_MAX, f"MemAvailable {available} beyond what --rma-burst {BURST_MAX} asks"
    return burst


def _torus_ranks(available: int) -> int:
    """The fewest ranks (a power of two from 2 on) whose torus buffers need MARGIN x available."""
    np = 2
    while _torus_need(np) < MARGIN * available:
        np *= 2
    return np


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
    burst = _smallest_burst(_available_or_skip())
    message = _refused(lib, np, ["--ops", "rma-put-bw", "--rma-sync", "lock-all-flush", "--rma-burst", burst,
                                 "--datatype", "double", "--sizes", SIZE], tmp_path / "o")
    assert f"--sizes {SIZE}: the buffers of rma-put-bw at {SIZE} bytes with --rma-burst {burst} need" in message
    # on the two ranks of the pair only, also on 4 ranks
    assert f"need {_human(_burst_need(burst))} on host" in message, message
    assert f"({np} rank(s))" in message and "a smaller --rma-burst" in message


@pytest.mark.parametrize("lib", LIBS)
def test_a_degree_beyond_memory_is_refused_with_the_topology(lib, tmp_path):
    np = _torus_ranks(_available_or_skip())
    # 8 dimensions, the last one over every rank: 16 neighbours in and out
    message = _refused(lib, np, ["--ops", "neighbor_alltoall", "--cart-dims", f"1,1,1,1,1,1,1,{np}", "--datatype",
                                 "double", "--sizes", SIZE], tmp_path / "o")
    assert "the buffers of neighbor_alltoall" in message and "a block per neighbour of the --cart-dims torus" in message
    assert f"need {_human(_torus_need(np))} on host" in message, message
    assert f"({np} rank(s))" in message and "fewer neighbours" in message
