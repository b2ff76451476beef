# SPDX-License-Identifier: BSD-3-Clause
"""Synthetic campaigns of a library's collective algorithms, as `mpimeter run --variant` writes
them: one alternative per algorithm (its environment in campaign.json), the library as it is
named by the library, launches at one or several process counts, run times with a known truth."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
from data.synth import write_launch

# (alternative, op, size, nprocs) → factor on the base time (1: as fast as the default)
Truth = Callable[[str, str, int, int], float]


def _base(op: str, size: int) -> float:
    return 3000.0 + 0.8 * size


def algorithm_campaign(root: Path, envs: Mapping[str, Mapping[str, str]], truth: Truth, *, library: str = "openmpi",
                       ops: Sequence[str] = ("allreduce",), sizes: Sequence[int] = (8, 64, 512, 4096),
                       nprocs: Sequence[int] = (2,), launches: int = 10, seed: int = 7, record: bool = True,
                       algorithms: Mapping[str, Mapping[str, Mapping[str, str]]] | None = None,
                       slow_state: Callable[[str, int], bool] | None = None, state_ratio: float = 2.5,
                       probe: bool = True) -> Path:
    """``envs``: alternative → the environment it set (empty: the library's default). Each launch
    draws a launch factor lognormal(0, 0.02) and repetitions with 1 % noise; ``record`` writes
    campaign.json (without it the environments go into each launch's meta.json only);
    ``algorithms``: campaign.json's ``alternatives[].algorithms`` record per alternative;
    ``slow_state(alternative, launch)``: the launch ran in the slow machine state (× ``state_ratio``,
    the cache-line probe recorded in every launch telling the states apart, as on the test
    machine: 49–111 ns fast, 344–414 ns slow; not recorded without ``probe``: then nothing explains
    the states)."""
    root = Path(root)
    rng = np.random.default_rng(seed)
    entries, k = [], 0
    for alt, env in envs.items():
        for i in range(launches):
            p = nprocs[i % len(nprocs)]
            factor = float(rng.lognormal(0.0, 0.02))
            slow = slow_state is not None and slow_state(alt, i)
            factor *= state_ratio if slow else 1.0

            def time_fn(op, size, r, n, alt=alt, p=p):
                return _base(op, size) * truth(alt, op, size, p) * (1 + r.lognormal(-4.6, 0.3, n))

            folder = root / alt / "launches" / f"{i:03d}"
            s = seed * 10_000 + k
            write_launch(folder, seed=s, ops=ops, sizes=sizes, nrep=30, nprocs=p, time_fn=time_fn,
                         launch_factor=factor, schema=2)
            meta = json.loads((folder / "meta.json").read_text())
            meta["mpi"]["library"] = library
            if library == "mpich":
                meta["mpi"]["library_version"] = meta["mpi"]["library_version_full"] = "MPICH Version: 4.0.2 (synthetic)"
            meta["environment"] = dict(env)
            if slow_state is not None and probe:
                rtt = float(rng.uniform(344, 414) if slow else rng.uniform(49, 111))
                meta["probes"] = {"cacheline_rtt_ns": [{"ranks": [0, 1], "host": "h", "cpus": [0, 1], "rtt_ns": rtt}]}
            (folder / "meta.json").write_text(json.dumps(meta, indent=1))
            entries.append({"alternative": alt, "index": i, "folder": f"{alt}/launches/{i:03d}", "status": "complete",
                            "seed": s, "np": p})
            k += 1
    if record:
        alternatives = []
        for alt, env in envs.items():
            entry = {"name": alt, "mpi": library, "env": dict(env)}
            if algorithms and alt in algorithms:
                entry["algorithms"] = {op: dict(v) for op, v in algorithms[alt].items()}
            alternatives.append(entry)
        doc = {"schema_version": 1, "id": f"synthetic-{seed}", "seed": seed, "np": max(nprocs),
               "np_list": list(nprocs), "launches_per_alternative": launches, "alternatives": alternatives,
               "launches": entries}
        (root / "campaign.json").write_text(json.dumps(doc, indent=1))
    return root


def ompi(op: str, value: int, **params: str) -> dict[str, str]:
    env = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1", f"OMPI_MCA_coll_tuned_{op}_algorithm": str(value)}
    env.update({f"OMPI_MCA_coll_tuned_{op}_algorithm_{k}": v for k, v in params.items()})
    return env


def mpich(op: str, name: str) -> dict[str, str]:
    return {f"MPIR_CVAR_{op.upper()}_INTRA_ALGORITHM": name}
