# SPDX-License-Identifier: BSD-3-Clause
"""Other processes' CPU share per block of repetitions (meta.json tests[].other_cpu): the reader
checks the blocks, the analysis pools them into spans of 20 ticks of /proc/stat (a block shorter
than a tick reads 0 or a whole tick) and warns busy-blocks-slower when a test's repetitions in busy
spans are slower than in its quiet ones; it keeps every repetition (report only)."""

import json

import numpy as np
import pytest
from data.synth import write_campaign

from mpimeter import analysis
from mpimeter.analysis.block_load import MIN_SPAN_TICKS, spans
from mpimeter.io.errors import InputError
from mpimeter.io.meta import read_meta
from mpimeter.io.meta_tests import OtherCpu

BLOCK = 32
NREP = 32 * 80  # 80 blocks: 4 spans of 20 blocks of 1 ms at a tick of 1 ms
TICK_S = 0.001


def two_speeds(slow_blocks):
    """Run times of ~2 µs, doubled in the blocks ``slow_blocks(k)`` says."""
    def time_fn(op, size, rng, n):
        x = 2000.0 * (1 + rng.lognormal(-3.0, 0.3, n))
        slow = np.array([slow_blocks(i // BLOCK) for i in range(n)])
        return np.where(slow, 2 * x, x)
    return time_fn


def blocks(other_cpu_s, *, wall_s=0.001, ncpus=2, tick_s=TICK_S):
    """tests[].other_cpu as the binary writes it, one block of BLOCK repetitions per entry."""
    n = len(other_cpu_s)
    return {"block_reps": BLOCK, "tick_s": tick_s, "first_rep": [BLOCK * k for k in range(n)], "nrep": [BLOCK] * n,
            "wall_s": [wall_s] * n, "other_cpu_s": list(other_cpu_s),
            "share": [min(1.0, max(0.0, o / (wall_s * ncpus))) for o in other_cpu_s]}


def campaign(tmp_path, time_fn, other_cpu_s, launches=2):
    folder = write_campaign(tmp_path / "c", launches, seed=3, nrep=NREP, ops=("allreduce",), sizes=(8,),
                            time_fn=time_fn, invalid_fraction=0.0)
    for p in sorted(folder.glob("launches/*/meta.json")):
        m = json.loads(p.read_text())
        for t in m["tests"]:
            t["other_cpu"] = blocks(other_cpu_s)
        p.write_text(json.dumps(m))
    return folder


def codes(folder):
    result = analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))
    return {w.code: w for w in result.warnings}, result


def test_slower_repetitions_in_busy_spans_warn_and_are_kept(tmp_path):
    # the second half of the test ran beside a process using half the machine (2 CPUs x 1 ms x 0.5
    # per block) and its repetitions took twice as long
    other = [0.0] * 40 + [0.001] * 40
    folder = campaign(tmp_path, two_speeds(lambda k: k >= 40), other)
    found, result = codes(folder)
    w = found["busy-blocks-slower"]
    assert w.count == 2  # one per launch, merged
    assert "50 % on average, 1280 repetitions" in w.message and "(1280 repetitions;" in w.message
    assert "allreduce 8" in w.message and "tests[].other_cpu" in w.hint
    # report only: the slow repetitions stay in (Roth 2021 §4.4 leaves nothing out for load)
    kept = result.repetitions[result.repetitions.kept]
    assert (kept.rep >= 40 * BLOCK).sum() > 0.9 * 2 * 40 * BLOCK


def test_load_beside_fast_repetitions_does_not_warn(tmp_path):
    # the load fell on the first half, whose repetitions are the fast ones
    other = [0.001] * 40 + [0.0] * 40
    found, _ = codes(campaign(tmp_path, two_speeds(lambda k: k >= 40), other))
    assert "busy-blocks-slower" not in found


def test_ticks_falling_on_slow_blocks_are_not_load(tmp_path):
    # a quiet machine: every other block is slow, and being longer each caught a whole tick its
    # ranks did not account for (+1 ms), the fast ones a tick short (-1 ms); block by block the
    # slow ones read busy (share 0.5), but a span of 20 blocks sums to 0: no load, no warning
    other = [0.001 if k % 2 else -0.001 for k in range(80)]
    folder = campaign(tmp_path, two_speeds(lambda k: k % 2 == 1), other)
    found, _ = codes(folder)
    assert "busy-blocks-slower" not in found
    assert read_meta(next(folder.glob("launches/*/meta.json"))).tests[0].other_cpu.share[1] == 0.5


def record(other, wall, tick_s=0.01, nrep=None):
    n = len(other)
    return OtherCpu(block_reps=BLOCK, tick_s=tick_s, first_rep=tuple(BLOCK * k for k in range(n)),
                    nrep=tuple(nrep or [BLOCK] * n), wall_s=tuple(wall), other_cpu_s=tuple(other), share=(0.0,) * n)


def test_spans_pool_blocks_to_twenty_ticks():
    # a tick of 10 ms: a span needs 0.2 s; blocks of 0.05 s -> 4 per span
    oc = record([0.01] * 8 + [0.0] * 2, [0.05] * 10)
    got = spans(oc)
    assert MIN_SPAN_TICKS == 20
    assert [(s.first_rep, s.end_rep) for s in got] == [(0, 4 * BLOCK), (4 * BLOCK, 10 * BLOCK)]  # the rest joins
    assert got[0].wall_s == pytest.approx(0.2) and got[1].wall_s == pytest.approx(0.3)
    assert got[0].share(2) == pytest.approx(0.04 / 0.4) and got[1].share(2) == pytest.approx(0.04 / 0.6)
    # a signed sum: a tick short is negative, the span's share clamped only at the end
    assert spans(record([-0.5, 0.0, 0.0, 0.0], [0.05] * 4))[0].share(2) == 0.0
    # a test shorter than one span: too short to tell
    assert spans(record([0.01] * 3, [0.05] * 3)) == []


def write_meta_with(tmp_path, edit):
    folder = write_campaign(tmp_path / "c", 1, seed=1, nrep=64, ops=("allreduce",), sizes=(8,))
    path = next(folder.glob("launches/*/meta.json"))
    m = json.loads(path.read_text())
    m["tests"][0]["other_cpu"] = blocks([0.0, 0.0])
    edit(m["tests"][0]["other_cpu"])
    path.write_text(json.dumps(m))
    return path


@pytest.mark.parametrize("edit, says", [
    (lambda oc: oc.update(share=[0.0, 1.5]), r"other_cpu.share\[1\] is 1.5; a share of the machine's CPU time is 0 to 1"),
    (lambda oc: oc.update(wall_s=[0.001]), r"other_cpu.share has 2 blocks, first_rep 2, nrep 2, wall_s 1"),
    (lambda oc: oc.update(first_rep=[0, 40]), r"other_cpu.first_rep\[1\] is 40; the blocks follow one another"),
    (lambda oc: oc.update(nrep=[32, 31]), r"other_cpu.nrep sums to 63; the blocks hold the test's 64 repetitions"),
    (lambda oc: oc.update(block_reps=0), r"other_cpu.block_reps is 0"),
    (lambda oc: oc.update(wall_s=[0.001, -1.0]), r"other_cpu.wall_s\[1\] is -1.0; a block's length cannot be negative"),
])
def test_the_reader_refuses_blocks_that_do_not_add_up(tmp_path, edit, says):
    path = write_meta_with(tmp_path, edit)
    with pytest.raises(InputError, match=says):
        read_meta(path)


def test_the_reader_reads_the_blocks(tmp_path):
    oc = read_meta(write_meta_with(tmp_path, lambda oc: None)).tests[0].other_cpu
    assert oc.block_reps == BLOCK and oc.first_rep == (0, 32) and oc.nrep == (32, 32) and oc.tick_s == TICK_S
