# SPDX-License-Identifier: BSD-3-Clause
"""Synthetic campaign folders for the report and fingerprint tests (and bench/report_large.py).

Writes launch folders exactly as docs/FORMAT.md (schema version 1) describes them: meta.json with
every key, raw.csv with one row per rank per repetition, sync.csv, and campaign.json. The run
times follow a simple model with the features the fingerprint must show (Roth 2021 §4.5): a slow
first repetition, a warm-up phase, rare outliers, a launch-to-launch factor and one slower rank.
Nothing here is statistics of the tool; it only makes data with a known shape.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

RAW_HEADER = "test,op,size,rank,rep,start_ns,end_ns,valid,gstart_ns,gend_ns"
SYNC_HEADER = "rank,phase,kind,peer,local_ns,offset_ns,rtt_ns"

LIBRARY_VERSIONS = {
    "openmpi": ("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022",),
    "mpich": ("MPICH Version:      4.0.2", "MPICH Release date: Thu Apr  7 12:34:45 CDT 2022",
              "MPICH ABI:          14:2:2", "MPICH Device:       ch4:ucx"),
}


@dataclass(frozen=True)
class LaunchSpec:
    """What one synthetic launch looks like."""

    ops: tuple[str, ...] = ("allreduce", "bcast")
    sizes: tuple[int, ...] = (8, 1024, 65536)
    nprocs: int = 2
    nrep: int = 200
    library: str = "openmpi"
    clocksync: str = "skampi"
    procsync: str = "window"
    slowdown: float = 1.0          # multiplies every run time (for a second alternative)
    warmup_reps: int = 12          # elevated repetitions after the first
    outlier_rate: float = 0.01     # share of repetitions at 3–6 × the run time
    invalid_rate: float = 0.0      # share of repetitions marked valid=0
    launch_sd: float = 0.03        # log-sd of the per-launch factor
    slow_rank: int | None = 1      # a rank that is 10 % slower
    hosts: tuple[str, ...] = ("node1",)
    status: str = "complete"
    raw: str = "full"              # "reduced": one row per repetition, rank -1 (FORMAT.md)
    load_other_cpu_s: float = 0.0   # CPU seconds other processes used (machine-load warning)
    residual_ns: int = 40
    environment: dict = field(default_factory=lambda: {"OMPI_MCA_btl": "self,vader"})
    extra_meta: dict = field(default_factory=dict)  # merged into meta.json last (tests of escaping)


def base_run_time_ns(op: str, size: int) -> float:
    """A latency + bandwidth model with a different latency per operation."""
    latency = 800.0 + 150.0 * (sum(map(ord, op)) % 17)
    return latency + 0.35 * size


def write_launch(folder: Path, spec: LaunchSpec, *, seed: int, index: int = 0) -> Path:
    """Write one launch folder (meta.json, raw.csv, sync.csv) and return it."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    plan = [(op, size) for op in spec.ops for size in spec.sizes]
    order = rng.permutation(len(plan))
    launch_factor = float(np.exp(rng.normal(0.0, spec.launch_sd))) * spec.slowdown
    ranks = np.arange(spec.nprocs)
    rank_factor = np.ones(spec.nprocs)
    if spec.slow_rank is not None and spec.slow_rank < spec.nprocs:
        rank_factor[spec.slow_rank] = 1.10

    chunks = []
    tests_meta = []
    clock = 1_000_000  # ns since the launch epoch
    invalid_total = 0
    for test, plan_index in enumerate(order):
        op, size = plan[plan_index]
        nrep = spec.nrep
        base = base_run_time_ns(op, size) * launch_factor
        rep_time = base * np.exp(rng.normal(0.0, 0.05, nrep))
        rep_time[1:1 + spec.warmup_reps] *= 1.6
        rep_time[0] *= 4.0
        outliers = rng.random(nrep) < spec.outlier_rate
        rep_time[outliers] *= rng.uniform(3.0, 6.0, outliers.sum())
        valid = (rng.random(nrep) >= spec.invalid_rate).astype(np.int64)
        invalid_total += int((valid == 0).sum())
        window = int(rep_time.max() * 1.5) + 2000
        rep_start = clock + np.arange(nrep, dtype=np.int64) * window
        # per rank: start jitter, duration = rep time × rank factor × small noise
        start = rep_start[:, None] + rng.integers(0, 60, (nrep, spec.nprocs))
        dur = (rep_time[:, None] * rank_factor[None, :]
               * np.exp(rng.normal(0.0, 0.02, (nrep, spec.nprocs)))).astype(np.int64) + 1
        end = start + dur
        offset = rng.integers(-20, 20, spec.nprocs)
        gstart = start + offset[None, :]
        gend = end + offset[None, :]
        if spec.raw == "reduced":  # min start, min start + max local duration, min/max global
            rows = np.column_stack([
                np.arange(nrep), np.full(nrep, -1), start.min(axis=1),
                start.min(axis=1) + dur.max(axis=1), valid, gstart.min(axis=1), gend.max(axis=1),
            ])
        else:
            rows = np.column_stack([
                np.repeat(np.arange(nrep), spec.nprocs),         # rep
                np.tile(ranks, nrep),                             # rank
                start.ravel(), end.ravel(),
                np.repeat(valid, spec.nprocs),
                gstart.ravel(), gend.ravel(),
            ])
        prefix = f"{test},{op},{size},"
        lines = [
            f"{prefix}{r[1]},{r[0]},{r[2]},{r[3]},{r[4]},{r[5]},{r[6]}" for r in rows.tolist()
        ]
        chunks.append("\n".join(lines))
        duration_ns = nrep * window
        tests_meta.append({
            "test": test, "op": op, "size": size, "status": "complete", "nrep": nrep,
            "invalid": int((valid == 0).sum()), "redone": 0, "window_ns": window,
            "started_s": clock / 1e9, "duration_s": duration_ns / 1e9,
        })
        clock += duration_ns + 10_000
    (folder / "raw.csv").write_text(RAW_HEADER + "\n" + "\n".join(chunks) + "\n")

    sync_rows = [SYNC_HEADER]
    for r in ranks[1:]:
        for phase in (0, -1, -2):
            kind, peer = ("model", -1) if phase == 0 else ("residual", 0)
            sync_rows.append(f"{r},{phase},{kind},{peer},{clock if phase == -2 else 0},"
                             f"{int(rng.integers(-spec.residual_ns, spec.residual_ns + 1))},0")
    (folder / "sync.csv").write_text("\n".join(sync_rows) + "\n")

    host_of = [spec.hosts[r * len(spec.hosts) // spec.nprocs] for r in ranks]
    residuals = [int(rng.integers(-spec.residual_ns, spec.residual_ns + 1)) for _ in ranks[1:]]
    lib_lines = LIBRARY_VERSIONS.get(spec.library, (spec.library,))
    meta = {
        "schema_version": 1,
        "tool": {"name": "mpimeter-bench", "version": "0.1.0", "git_revision": "synthetic"},
        "status": spec.status,
        "pid": 1000 + index,
        "host_of_rank0": host_of[0],
        "argv": ["mpimeter-bench", "--ops", ",".join(spec.ops),
                 "--sizes", ",".join(map(str, spec.sizes)), "--nrep", str(spec.nrep)],
        "config": {
            "ops": list(spec.ops), "sizes": list(spec.sizes), "nrep": spec.nrep, "warmup": 10,
            "timer": "monotonic", "clocksync": spec.clocksync, "procsync": spec.procsync,
            "window_us": None, "seed": seed, "cold_cache_bytes": 0, "root": 0,
            "datatype": "byte", "reduce_op": "sum", "raw": spec.raw, "out": str(folder),
            "force": False, "virtual": {"base": "monotonic", "offset_s": 0.0, "skew_ppm": 0.0},
            "clocksync_params": {}, "procsync_params": {}, "resync_s": None,
        },
        "nprocs": spec.nprocs,
        "mpi": {"library": spec.library, "version": "MPI 3.1",
                "library_version": lib_lines[0], "library_version_full": "\n".join(lib_lines)},
        "build": {"compiler": "gcc 12.2.0", "flags": "-O2 -std=c11", "mpicc": f"mpicc.{spec.library}"},
        "system": {"kernel": "Linux 6.18.0", "cpu_model": "AMD EPYC (synthetic)",
                   "tsc_flags": ["constant_tsc", "nonstop_tsc", "rdtscp"], "governor": None,
                   "ncpus": 2},
        "ranks": [{"rank": int(r), "host": host_of[r], "cpus": [int(r) % 2], "pid": 1000 + int(r)}
                  for r in ranks],
        "environment": dict(spec.environment),
        "load": {"loadavg_start": [0.1, 0.2, 0.3], "loadavg_end": [0.2, 0.2, 0.3],
                 "other_cpu_s": spec.load_other_cpu_s, "own_cpu_s": 5.0 * spec.nprocs,
                 "wall_s": 5.0},
        "timer": {"name": "monotonic", "resolution_ns": 1.0, "overhead_ns": 20.5,
                  "tsc_hz": None, "virtual": None},
        "clock_sync": {
            "method": spec.clocksync,
            "model": "identity" if spec.clocksync == "none" else "offset",
            "duration_s": 0.01, "params": {}, "parents": [-1] + [0] * (spec.nprocs - 1),
            "models": [{"rank": int(r), "anchor_ns": 0, "slope": 0.0, "intercept_ns": 0.0}
                       for r in ranks],
            "resyncs": 0,
            "residual_start": {"ranks": [int(r) for r in ranks[1:]], "residual_ns": residuals,
                               "max_abs_ns": max([abs(v) for v in residuals], default=0)},
            "residual_end": None, "warning": None,
        },
        "proc_sync": {"method": spec.procsync, "window_ns_by_test":
                      {str(t["test"]): t["window_ns"] for t in tests_meta},
                      "invalid": {"total": invalid_total, "late_start": invalid_total,
                                  "overrun": 0, "round_late": 0},
                      "redone": {"total": 0, "reasons": {}}},
        "launch_epoch_local_ns_rank0": 123_456_789 + index,
        "wall_start": f"2026-11-22T05:{index % 60:02d}:00Z",
        "wall_end": f"2026-11-22T05:{index % 60:02d}:30Z",
        "tests": tests_meta,
        "warnings": [],
    }
    _deep_merge(meta, spec.extra_meta)
    (folder / "meta.json").write_text(json.dumps(meta, indent=1))
    return folder


def _deep_merge(into: dict, extra: dict) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = value


def write_campaign(root: Path, alternatives: dict[str, LaunchSpec] | LaunchSpec, *,
                   launches: int = 5, seed: int = 42) -> Path:
    """Write a campaign: one alternative (a LaunchSpec) or several (name → LaunchSpec)."""
    root = Path(root)
    several = isinstance(alternatives, dict)
    specs = alternatives if several else {"default": alternatives}
    entries = []
    for index in range(launches):
        for alt_index, (name, spec) in enumerate(specs.items()):
            sub = f"{name}/launches/{index:03d}" if several else f"launches/{index:03d}"
            launch_seed = seed * 1000 + alt_index * 100 + index
            write_launch(root / sub, spec, seed=launch_seed, index=index)
            entries.append({"alternative": name, "index": index, "folder": sub,
                            "status": spec.status, "seed": launch_seed, "exit_code": 0,
                            "duration_s": 1.0, "retries": 0, "stderr_tail": ""})
    first = next(iter(specs.values()))
    campaign = {
        "schema_version": 1, "command": "mpimeter run (synthetic)",
        "bench_args": ["--ops", ",".join(first.ops)], "launcher": "local",
        "np": first.nprocs, "launches_per_alternative": launches, "seed": seed,
        "alternatives": [{"name": n, "mpi": s.library, "env": {}} for n, s in specs.items()],
        "launches": entries,
    }
    # A campaign of several alternatives keeps one campaign.json at its root.
    (root / "campaign.json").write_text(json.dumps(campaign, indent=1))
    return root


# The golden campaigns of the report and fingerprint tests: written by a fixture into
# a temporary folder, never into the repository.
SCRIPT_VALUE = "<script>alert('mpimeter')</script>"


def golden(name: str, root: Path) -> Path:
    """Writes the golden campaign `name` under root/name and returns its folder.

    - one_library: one MPI library, 6 launches, 2 ops × 3 sizes
    - two_alternatives: openmpi and mpich (5 % slower), 8 launches each
    - one_launch: a single launch of 4 ranks on 2 hosts
    - warnings: 2 launches with invalid repetitions, machine load, a large sync residual,
      a reduced raw file (no per-rank rows) and a `<script>` in meta.json values
    """
    folder = Path(root) / name
    if folder.exists():
        return folder
    if name == "one_library":
        return write_campaign(folder, LaunchSpec(), launches=6, seed=1)
    if name == "two_alternatives":
        return write_campaign(folder, {"openmpi": LaunchSpec(),
                                       "mpich": LaunchSpec(library="mpich", slowdown=1.3)},
                              launches=8, seed=2)
    if name == "one_launch":
        return write_campaign(folder, LaunchSpec(nprocs=4, hosts=("node1", "node2"), slow_rank=3),
                              launches=1, seed=3)
    if name == "warnings":
        spec = LaunchSpec(ops=("bcast",), sizes=(8, 4096), raw="reduced", invalid_rate=0.1,
                          load_other_cpu_s=6.0, residual_ns=3000,
                          environment={"OMPI_MCA_evil": SCRIPT_VALUE},
                          extra_meta={"host_of_rank0": SCRIPT_VALUE,
                                      "argv": ["mpimeter-bench", SCRIPT_VALUE]})
        return write_campaign(folder, spec, launches=2, seed=4)
    raise ValueError(f"no golden campaign {name!r}")
