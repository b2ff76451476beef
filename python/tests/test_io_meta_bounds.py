# SPDX-License-Identifier: BSD-3-Clause
"""The bound probes in meta.json (io/meta_bounds.py): copy rates and the pairs' latency floor
typed, with the peak, large-buffer and floor values the bound uses; operations' bound volume;
older launches without them read as None; wrong values refused naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from data.store_campaigns import probes
from data.synth import meta_template

from mpimeter.io.errors import InputError
from mpimeter.io.meta import parse_meta

TESTS = [{"test": 0, "op": "allreduce", "size": 8, "status": "complete", "nrep": 10}]


def doc(**extra):
    meta = meta_template(2, clocksync="hca3", procsync="window", tests=[dict(t) for t in TESTS], status="complete",
                         schema=2)
    meta.update(extra)
    return meta


def parse(d):
    return parse_meta(d, Path("/x/meta.json"))


def test_probes_and_volumes_are_typed():
    ops = {"allreduce": {"kind": "collective", "bound_volume": {"formula": "2(p-1)/p x size", "bytes_per_size": 1.5}},
           "iallreduce": {"kind": "nonblocking", "bound_volume": None}}
    m = parse(doc(probes=probes("alpha"), operations=ops))
    c = m.copy_bandwidth
    assert c.max_bytes == 1 << 25 and c.ranks_at_once == 2 and [s.bytes for s in c.sizes] == [4096, 1 << 25]
    assert c.peak_Bps == 8e10 and c.large_Bps == 1e10
    f = m.latency_floor
    assert f.pairs_by == "sampled" and f.pairs[0].ranks == (0, 1) and f.floor_ns == 200.0
    assert m.operation("allreduce").bound_formula == "2(p-1)/p x size"
    assert m.operation("allreduce").bound_bytes_per_size == 1.5
    assert m.operation("iallreduce").bound_bytes_per_size is None


def test_older_launches_have_none():
    m = parse(doc())
    assert m.copy_bandwidth is None and m.latency_floor is None
    assert m.operation("allreduce").bound_bytes_per_size is None
    p = dict(probes("alpha"), copy_bandwidth=None)  # --copy-probe-bytes 0
    assert parse(doc(probes=p)).copy_bandwidth is None and parse(doc(probes=p)).latency_floor is not None


@pytest.mark.parametrize("change, key", [
    (lambda p: p["copy_bandwidth"]["sizes"][0].update(max_Bps=-1.0), "max_Bps"),
    (lambda p: p["copy_bandwidth"]["sizes"][0].update(bytes="4096"), "bytes"),
    (lambda p: p["latency_floor"]["pairs"][0].update(min_rtt_ns=-5), "min_rtt_ns"),
    (lambda p: p["latency_floor"]["pairs"][0].update(ranks=["a"]), "ranks"),
    (lambda p: p.update(latency_floor=[1]), "latency_floor"),
])
def test_wrong_values_are_refused(change, key):
    p = probes("alpha")
    change(p)
    with pytest.raises(InputError, match=key):
        parse(doc(probes=p))


def test_a_negative_volume_is_refused():
    ops = {"allreduce": {"kind": "collective", "bound_volume": {"formula": "x", "bytes_per_size": -1}}}
    with pytest.raises(InputError, match="bytes_per_size"):
        parse(doc(operations=ops))
