# SPDX-License-Identifier: BSD-3-Clause
"""Campaigns from faked machines for the results store and site tests: written with the report
tests' synthetic launches (``data.report.synth_campaign``), each machine its own host name, CPU
model and bound probes (meta.json probes.copy_bandwidth and probes.latency_floor, operations'
bound_volume), and campaign.json given an id as ``mpimeter run`` writes one."""

from __future__ import annotations

import json
from pathlib import Path

from data.report.synth_campaign import LaunchSpec, write_campaign

# per machine: host, CPU, least round trip (ns), copy rates (bytes/s) at 4 KiB and the largest buffers
MACHINES = {"alpha": ("alpha-node", "Fake CPU A", 400.0, 8e10, 1e10),
            "beta": ("beta-node", "Fake CPU B", 1000.0, 4e10, 5e9)}
VOLUMES = {"allreduce": ("2(p-1)/p x size", 1.0), "bcast": ("size", 1.0)}


def probes(machine: str) -> dict:
    _, _, rtt, fast, large = MACHINES[machine]
    return {
        "cacheline_rtt_ns": [], "empty_region_ns": 20, "pingpong_pair": None,
        "copy_bandwidth": {"max_bytes": 1 << 25, "ranks_at_once": 2, "batches": 5, "batch_bytes": 1 << 20,
                           "sizes": [{"bytes": 4096, "copies_per_batch": 256, "ranks": 2, "min_Bps": fast / 2,
                                      "median_Bps": fast * 0.9, "max_Bps": fast},
                                     {"bytes": 1 << 25, "copies_per_batch": 1, "ranks": 2, "min_Bps": large * 0.9,
                                      "median_Bps": large, "max_Bps": large * 1.1}]},
        "latency_floor": {"pairs_by": "sampled", "message_bytes": 1, "round_trips": 51,
                          "pairs": [{"ranks": [0, 1], "min_rtt_ns": rtt, "median_rtt_ns": rtt * 1.5}]},
    }


def spec(machine: str, library: str = "openmpi", *, slowdown: float = 1.0, probes_on: bool = True,
         ops=("allreduce", "bcast")) -> LaunchSpec:
    host, cpu, *_ = MACHINES[machine]
    extra = {"system": {"cpu_model": cpu}}
    if probes_on:
        extra["probes"] = probes(machine)
        extra["operations"] = {op: {"kind": "collective", "ranks_finish_apart": op == "bcast", "size_unit": "bytes",
                                    "round_trip": False,
                                    "bound_volume": {"formula": VOLUMES[op][0], "bytes_per_size": VOLUMES[op][1]}}
                               for op in ops}
    return LaunchSpec(ops=tuple(ops), sizes=(8, 1024, 65536), nrep=60, library=library, hosts=(host,),
                      slowdown=slowdown, slow_rank=None, warmup_reps=0, extra_meta=extra)


def with_id(root: Path, campaign_id: str, wall_day: int | None = None) -> Path:
    """Gives campaign.json the id ``mpimeter run`` would have written; ``wall_day`` moves every
    launch's wall clock to that day of November 2026 (so that campaigns have an order in time)."""
    cj = json.loads((root / "campaign.json").read_text())
    cj["id"] = campaign_id
    (root / "campaign.json").write_text(json.dumps(cj))
    if wall_day is not None:
        for meta_path in root.rglob("meta.json"):
            meta = json.loads(meta_path.read_text())
            meta["wall_start"] = f"2026-11-{wall_day:02d}" + meta["wall_start"][10:]
            meta["wall_end"] = f"2026-11-{wall_day:02d}" + meta["wall_end"][10:]
            meta_path.write_text(json.dumps(meta))
    return root


def alpha_two_libraries(root: Path) -> Path:
    """Machine alpha, Open MPI and MPICH (MPICH 1.3× slower), 6 launches, on 2026-11-10."""
    folder = write_campaign(root / "alpha1", {"openmpi": spec("alpha"), "mpich": spec("alpha", "mpich", slowdown=1.3)},
                            launches=6, seed=11)
    return with_id(folder, "a1" * 16, wall_day=10)


def alpha_later(root: Path, slowdown: float = 1.5) -> Path:
    """Machine alpha again on 2026-11-20: Open MPI only, ``slowdown`` × slower (a regression)."""
    folder = write_campaign(root / "alpha2", {"openmpi": spec("alpha", slowdown=slowdown)}, launches=6, seed=12)
    return with_id(folder, "a2" * 16, wall_day=20)


def beta_one_library(root: Path) -> Path:
    """Machine beta, Open MPI, 5 launches, no id in campaign.json (the fallback hash names it)."""
    return write_campaign(root / "beta1", {"openmpi": spec("beta")}, launches=5, seed=13)
