# SPDX-License-Identifier: BSD-3-Clause
"""Writes synthetic launch folders exactly as docs/FORMAT.md describes them.

Used by the golden-folder script (make_golden.py), by tests that need campaigns with known
truth, and by bench/load_analyze.py. Times are drawn per repetition from a known distribution;
each rank has a clock offset (and optionally a drift), so local, online-global and re-synced
global times differ in known ways.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

RAW_HEADER = "test,op,size,rank,rep,start_ns,end_ns,valid,gstart_ns,gend_ns"
SYNC_HEADER = "rank,phase,kind,peer,local_ns,offset_ns,rtt_ns"


def ar1_runtimes(rng: np.random.Generator, n: int, phi: float, sd: float) -> np.ndarray:
    """Run times around 1 µs whose log is a stationary AR(1) with coefficient ``phi`` and marginal
    standard deviation ``sd`` (the dependence of repetitions the warm-up tests must tolerate)."""
    e = rng.normal(0, sd * np.sqrt(1 - phi**2), n)
    x = np.empty(n)
    x[0] = rng.normal(0, sd)
    for i in range(1, n):
        x[i] = phi * x[i - 1] + e[i]
    return 1000 * np.exp(x)


def default_time(op: str, size: int, rng: np.random.Generator, n: int) -> np.ndarray:
    """Skewed run times (ns): base + lognormal noise + rare 3× outliers."""
    base = 2000.0 + 0.5 * size + (500.0 if op == "bcast" else 0.0)
    x = base * (1 + rng.lognormal(-3.0, 0.6, n))
    x[rng.random(n) < 0.01] *= 3
    return x


def meta_template(nprocs: int, *, clocksync: str, procsync: str, tests: list[dict], status: str,
                  raw_mode: str = "full", resyncs: int = 0, residual_ns: int = 40, nrep: int = 100,
                  load_other_cpu_s: float = 0.1, schema: int = 1, conditions: Sequence[dict] = (),
                  seed: int = 1) -> dict:
    """meta.json of schema version ``schema`` (1 or 2, docs/FORMAT.md)."""
    meta = _meta_v1(nprocs, clocksync=clocksync, procsync=procsync, tests=tests, status=status, raw_mode=raw_mode,
                    resyncs=resyncs, residual_ns=residual_ns, nrep=nrep, load_other_cpu_s=load_other_cpu_s)
    meta["config"]["seed"] = seed
    if schema == 1:
        return meta
    # what version 2 changed: conditions instead of warnings, no clock_sync.warning, new keys
    del meta["warnings"], meta["clock_sync"]["warning"]
    meta["schema_version"] = 2
    meta["config"]["start_tolerance_ns"] = None
    kinds = {"bcast": "rooted-collective", "pingpong": "point-to-point"}  # what the fixtures use
    meta["operations"] = {op: {"kind": kinds.get(op, "collective"),
                               "ranks_finish_apart": op == "bcast", "size_unit": "bytes"}
                          for op in meta["config"]["ops"]}
    meta["mpi"]["mpi_t"] = {"cvars": 3, "digest": "9f3c", "selected": {"coll_tuned_priority": "30"}}
    for r in meta["ranks"]:
        r.update(cpus_seen=r["cpus"], cpu_changes=0, cpu_khz=None)
    meta["probes"] = {"cacheline_rtt_ns": []}
    meta["clock_sync"]["failed_syncs"] = 0
    meta["proc_sync"]["invalid"]["late_wakeup"] = 0
    meta["proc_sync"]["redone"]["reasons"] = {"late_start": 0, "late_wakeup": 0, "overrun": 0, "round_late": 0}
    tolerance = 1000 if procsync in ("window", "roundtime", "harmonize") else None
    for t in meta["tests"]:
        t.update(invalid_late_wakeup=0, start_tolerance_ns=tolerance, error=None)
    meta["conditions"] = list(conditions)
    return meta


def _meta_v1(nprocs: int, *, clocksync: str, procsync: str, tests: list[dict], status: str, raw_mode: str,
             resyncs: int, residual_ns: int, nrep: int, load_other_cpu_s: float) -> dict:
    return {
        "schema_version": 1,
        "tool": {"name": "mpimeter-bench", "version": "0.1.0", "git_revision": "synthetic"},
        "status": status,
        "pid": 2**22 + 12345,  # no such process
        "host_of_rank0": "synthetic-host",
        "argv": ["mpimeter-bench", "--synthetic"],
        "config": {"ops": sorted({t["op"] for t in tests}), "sizes": sorted({t["size"] for t in tests}),
                   "nrep": nrep, "warmup": 10, "timer": "monotonic", "clocksync": clocksync,
                   "procsync": procsync, "window_us": None, "seed": 1, "cold_cache_bytes": 0, "root": 0,
                   "datatype": "byte", "reduce_op": "sum", "raw": raw_mode, "out": "x", "force": False,
                   "virtual": {"base": "monotonic", "offset_s": 0.0, "skew_ppm": 0.0},
                   "clocksync_params": {}, "procsync_params": {}, "resync_s": 1.0 if resyncs else None},
        "nprocs": nprocs,
        "mpi": {"library": "openmpi", "version": "MPI 3.1", "library_version": "Open MPI v4.1.4 (synthetic)",
                "library_version_full": "Open MPI v4.1.4 (synthetic)"},
        "build": {"compiler": "gcc 12.2.0", "flags": "-O2", "mpicc": "mpicc.openmpi"},
        "system": {"kernel": "Linux", "cpu_model": "synthetic", "tsc_flags": [], "governor": None, "ncpus": 2},
        "ranks": [{"rank": r, "host": "synthetic-host", "cpus": [r % 2], "pid": 1000 + r} for r in range(nprocs)],
        "environment": {},
        "load": {"loadavg_start": [0.1, 0.1, 0.1], "loadavg_end": [0.1, 0.1, 0.1],
                 "other_cpu_s": load_other_cpu_s, "own_cpu_s": 2.0, "wall_s": 5.0},
        "timer": {"name": "monotonic", "resolution_ns": 1.0, "overhead_ns": 20.0, "tsc_hz": None, "virtual": None},
        "clock_sync": {"method": clocksync, "model": "offset" if clocksync != "none" else "identity",
                       "duration_s": 0.01, "params": {}, "parents": [-1] + [0] * (nprocs - 1),
                       "models": [{"rank": r, "anchor_ns": 0, "slope": 0.0, "intercept_ns": 0.0} for r in range(nprocs)],
                       "resyncs": resyncs,
                       "residual_start": {"ranks": list(range(1, nprocs)), "residual_ns": [residual_ns] * (nprocs - 1),
                                          "max_abs_ns": residual_ns},
                       "residual_end": None, "warning": None},
        "proc_sync": {"method": procsync, "window_ns_by_test": {}, "invalid": {"total": 0, "late_start": 0,
                      "overrun": 0, "round_late": 0}, "redone": {"total": 0, "reasons": {}}},
        "launch_epoch_local_ns_rank0": 123456789,
        "wall_start": "2026-11-22T05:10:00Z", "wall_end": None,
        "tests": tests,
        "warnings": [],
    }


def write_launch(
    folder: str | Path,
    *,
    seed: int,
    ops: Sequence[str] = ("allreduce", "bcast"),
    sizes: Sequence[int] = (8, 1024),
    nrep: int = 100,
    nprocs: int = 2,
    time_fn: Callable[[str, int, np.random.Generator, int], np.ndarray] = default_time,
    launch_factor: float = 1.0,
    warmup_reps: int = 0,
    invalid_fraction: float = 0.0,
    clocksync: str = "skampi",
    procsync: str = "window",
    syncs: int = 1,
    drift_ppm: float = 0.0,
    finished: int | None = None,
    status: str = "complete",
    raw_mode: str = "full",
    residual_ns: int = 40,
    load_other_cpu_s: float = 0.1,
    schema: int = 1,
    conditions: Sequence[dict] = (),
    late_start_fraction: float = 0.0,
    longest_rank: int | None = None,
) -> Path:
    """One launch folder. ``finished`` tests (default all) are complete; ``syncs`` ≥ 2 writes
    re-sync model rows; ``drift_ppm`` makes rank r's offset drift by r·drift_ppm, which the online
    clock (offset from the first sync only) does not follow but the re-synced clock does. The
    ranks start each repetition within 400 ns of each other; in ``late_start_fraction`` of the
    repetitions the last rank starts 5 µs late (it was not running at the planned start).
    ``schema`` 2 writes meta.json as version 2, with ``conditions``. ``longest_rank`` (default the
    last) takes the whole run time, the others 0.7–1.0 of it (a ping-pong's: its initiator, 0)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    late_rng = np.random.default_rng(seed + 10**6)  # its own stream: the other draws stay as they were
    plan = [(op, size) for op in ops for size in sizes]
    order = rng.permutation(len(plan))
    plan = [plan[i] for i in order]
    nfin = len(plan) if finished is None else finished
    offsets = np.array([0.0] + [float(rng.integers(-50_000, 50_000)) for _ in range(nprocs - 1)])
    drift = np.arange(nprocs) * drift_ppm * 1e-6

    def true_offset(rank: int, local: np.ndarray) -> np.ndarray:  # global − local
        return offsets[rank] + drift[rank] * local

    cols: dict[str, list] = {k: [] for k in RAW_HEADER.split(",")}
    t_global = 1_000_000.0
    tests = []
    for ti, (op, size) in enumerate(plan):
        x = time_fn(op, size, rng, nrep) * launch_factor
        if warmup_reps:
            x[:warmup_reps] *= 1.6
            x[0] *= 1.5
        valid = (rng.random(nrep) >= invalid_fraction).astype(np.int8)
        starts = t_global + np.arange(nrep) * (x.max() * 2 + 5000)
        t_global = starts[-1] + x.max() * 3
        tests.append({"test": ti, "op": op, "size": size, "status": "complete" if ti < nfin else "pending",
                      "nrep": nrep, "invalid": int((valid == 0).sum()), "redone": 0,
                      # as the binary writes it: a window (or start slack) for planned starts only
                      "window_ns": 20000 if procsync in ("window", "roundtime", "harmonize") else None,
                      "started_s": 0.0, "duration_s": 0.1})
        if ti >= nfin:
            continue
        for r in range(nprocs if raw_mode == "full" else 1):
            skew = np.minimum(rng.uniform(0, 0.05, nrep) * x, 400.0)
            late = np.zeros(nrep)
            if late_start_fraction and r == nprocs - 1:
                late = np.where(late_rng.random(nrep) < late_start_fraction, 5000.0, 0.0)
            gs = starts + skew + late
            longest = nprocs - 1 if longest_rank is None else longest_rank
            ge = starts + x * (1.0 if r == longest else rng.uniform(0.7, 1.0, nrep)) + late
            # local clock: global = local + offset(local) → solve approximately (drift tiny)
            ls = gs - true_offset(r, gs)
            le = ge - true_offset(r, ge)
            online = offsets[r] if syncs >= 1 else 0.0  # the online model: first sync only
            g_s = np.rint(ls + online).astype(np.int64)
            g_e = np.rint(le + online).astype(np.int64)
            cols["test"].append(np.full(nrep, ti))
            cols["op"].append(np.full(nrep, op, dtype=object))
            cols["size"].append(np.full(nrep, size))
            cols["rank"].append(np.full(nrep, r if raw_mode == "full" else -1))
            cols["rep"].append(np.arange(nrep))
            cols["start_ns"].append(np.rint(ls).astype(np.int64))
            cols["end_ns"].append(np.rint(le).astype(np.int64))
            cols["valid"].append(valid)
            if clocksync == "none" and procsync not in ("window", "roundtime", "harmonize"):
                cols["gstart_ns"].append(np.full(nrep, None, dtype=object))
                cols["gend_ns"].append(np.full(nrep, None, dtype=object))
            else:
                cols["gstart_ns"].append(g_s)
                cols["gend_ns"].append(g_e)
    if nfin:
        table = pa.table({k: pa.array(np.concatenate(v), type=pa.string() if k == "op" else pa.int64())
                          for k, v in cols.items()})
        with open(folder / "raw.csv", "wb") as f:
            f.write((RAW_HEADER + "\n").encode())
            pacsv.write_csv(table, f, pacsv.WriteOptions(quoting_style="none", include_header=False))
    # sync.csv: model rows at each sync (phase 0 at the start, k at the k-th re-sync)
    with open(folder / "sync.csv", "w") as f:
        f.write(SYNC_HEADER + "\n")
        if clocksync != "none":
            points = np.linspace(0.0, max(t_global, 1.0), max(syncs, 1))
            for phase, lt in enumerate(points if syncs >= 2 else points[:1]):
                for r in range(nprocs):
                    off = true_offset(r, np.array([lt]))[0]
                    if r:
                        f.write(f"{r},{phase},edge,0,{int(lt)},{int(round(off))},900\n")
                    f.write(f"{r},{phase},model,-1,{int(lt)},{int(round(off))},0\n")
            for r in range(1, nprocs):
                f.write(f"{r},-1,residual,0,1000,{residual_ns},800\n")
    meta = meta_template(nprocs, clocksync=clocksync, procsync=procsync, tests=tests, status=status,
                         raw_mode=raw_mode, resyncs=max(syncs - 1, 0), residual_ns=residual_ns, nrep=nrep,
                         load_other_cpu_s=load_other_cpu_s, schema=schema, conditions=conditions, seed=seed)
    tmp = folder / "meta.json.tmp"
    tmp.write_text(json.dumps(meta, indent=1))
    os.replace(tmp, folder / "meta.json")
    return folder


def write_campaign(root: str | Path, launches: int, *, seed: int = 0, launch_sigma: float = 0.02,
                   shift: float = 1.0, **kw) -> Path:
    """A one-alternative campaign: ``launches`` launch folders, each with a launch factor drawn
    lognormal(0, launch_sigma) times ``shift``."""
    root = Path(root)
    rng = np.random.default_rng(seed)
    for i in range(launches):
        factor = shift * float(rng.lognormal(0.0, launch_sigma))
        write_launch(root / "launches" / f"{i:03d}", seed=seed * 1000 + i, launch_factor=factor, **kw)
    return root


def write_state_campaign(root: str | Path, fast: int, slow: int, *, seed: int = 0, slowdown: float = 1.0,
                         fast_factor: float = 0.4, launch_sigma: float = 0.02, probe: bool = True, **kw) -> Path:
    """A one-alternative campaign on a machine with two speed states: ``fast`` launches
    run everything ``fast_factor`` times as long as the ``slow`` ones, in a seeded random order,
    each with a lognormal(0, launch_sigma) launch factor, all times × ``slowdown``; with
    ``probe`` meta.json records the cache-line round trip that tells the states apart (49–111 ns
    fast, 344–414 ns slow, as measured on the test machine)."""
    root = Path(root)
    rng = np.random.default_rng(seed)
    states = np.array([True] * fast + [False] * slow)
    rng.shuffle(states)
    kw.setdefault("nrep", 60)
    for i, is_fast in enumerate(states):
        factor = (fast_factor if is_fast else 1.0) * slowdown * float(rng.lognormal(0.0, launch_sigma))
        folder = write_launch(root / "launches" / f"{i:03d}", seed=seed * 1000 + i, launch_factor=factor, schema=2,
                              **kw)
        rtt = float(rng.uniform(49, 111) if is_fast else rng.uniform(344, 414))
        if probe:
            meta = json.loads((folder / "meta.json").read_text())
            meta["probes"] = {"cacheline_rtt_ns": [{"ranks": [0, 1], "host": "h", "cpus": [0, 1], "rtt_ns": rtt}]}
            (folder / "meta.json").write_text(json.dumps(meta, indent=1))
    return root


def memory_campaign(samples: dict[str, np.ndarray], tests: Sequence[tuple[str, int]], *,
                    probes: dict[str, Sequence[float | None]] | None = None,
                    nprocs: dict[str, Sequence[int]] | None = None):
    """An in-memory :class:`mpimeter.analysis.Campaign` (no files) for simulations:
    ``samples[alternative]`` has shape (launches, tests, repetitions) of run times in ns, written
    as ``--raw reduced`` rows (rank −1) on the local clock; ``probes[alternative]`` the cache-line
    round trip each launch recorded (None: not recorded), ``nprocs[alternative]`` each launch's p
    (a ``--np LIST`` campaign; default 1)."""
    from mpimeter import analysis
    from mpimeter.io.meta import parse_meta

    parts, infos = [], []
    for alt, x in samples.items():
        n_l, n_t, n_r = x.shape
        for li in range(n_l):
            dur = np.rint(x[li]).astype(np.int64)  # (tests, reps)
            start = np.arange(n_t * n_r, dtype=np.int64).reshape(n_t, n_r) * 10_000_000
            parts.append(pa.table({
                "alternative": pa.array([alt] * (n_t * n_r), pa.string()),
                "launch": pa.array(np.full(n_t * n_r, li, dtype=np.int32)),
                "test": pa.array(np.repeat(np.arange(n_t, dtype=np.int32), n_r)),
                "op": pa.array([op for op, _ in tests for _ in range(n_r)], pa.string()),
                "size": pa.array(np.repeat([s for _, s in tests], n_r).astype(np.int64)),
                "rank": pa.array(np.full(n_t * n_r, -1, dtype=np.int32)),
                "rep": pa.array(np.tile(np.arange(n_r, dtype=np.int32), n_t)),
                "start_ns": pa.array(start.ravel()),
                "end_ns": pa.array((start + dur).ravel()),
                "valid": pa.array(np.ones(n_t * n_r, dtype=np.int8)),
                "gstart_ns": pa.nulls(n_t * n_r, pa.int64()),
                "gend_ns": pa.nulls(n_t * n_r, pa.int64()),
                "rgstart_ns": pa.nulls(n_t * n_r, pa.int64()),
                "rgend_ns": pa.nulls(n_t * n_r, pa.int64()),
            }))
            folder = Path(f"/memory/{alt}/launches/{li:03d}")
            rtt = None if probes is None else probes[alt][li]
            meta = parse_meta({"schema_version": 2, "status": "complete",
                               "nprocs": 1 if nprocs is None else int(nprocs[alt][li]),
                               **({} if rtt is None else {"probes": {"cacheline_rtt_ns": [
                                   {"ranks": [0, 1], "host": "h", "cpus": [0, 1], "rtt_ns": float(rtt)}]}}),
                               "config": {"raw": "reduced", "nrep": n_r},
                               "tests": [{"test": i, "op": op, "size": size, "status": "complete", "nrep": n_r}
                                         for i, (op, size) in enumerate(tests)]}, folder / "meta.json")
            infos.append(analysis.LaunchInfo(alternative=alt, index=li, folder=folder, status="complete",
                                             meta=meta, clock="local", clock_reason="local (in memory)",
                                             finished_tests=tuple(range(n_t)), raw_rows=n_t * n_r, syncs=0,
                                             has_global_times=False))
    return analysis.Campaign(path=Path("/memory"), kind="several", alternatives=tuple(samples),
                             launches=tuple(infos), raw_table=pa.concat_tables(parts), sync=pa.table({}),
                             warnings=())
