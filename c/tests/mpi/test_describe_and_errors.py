# SPDX-License-Identifier: BSD-3-Clause
"""The binary describes itself, checks options without MPI, and records what goes wrong:

- `--describe` is one JSON document that needs no MPI_Init peers (plain process or mpirun, where
  only the first rank prints), whose shape is the golden one (data/describe_shape.json), and
  which lists exactly the options `--help` lists;
- `--validate NP` checks the options as a launch would and prints the resolved configuration;
- an MPI call that fails inside a test (injected: an invalid root or reduction) marks that test
  failed with the library's error string; the launch goes on and the other tests' rows are whole;
- a rank that oversleeps its planned start (injected) makes its repetitions invalid with the
  reason `late_wakeup` (window), or has them redone (roundtime, harmonize);
- the reduced raw mode gives the run times the analysis computes from the full rows.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import REPO, QuietRuns, bench_path, described, launcher, read_launch, run_bench

HERE = Path(__file__).resolve().parent


def _shape(value):
    """The schema of a JSON value: object keys with the shape of their values, the union of the
    shapes of a list's items, and type names for scalars (null is its own type)."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        merged: dict = {}
        scalars: set = set()
        for item in value:
            s = _shape(item)
            if isinstance(s, dict):
                for k, v in s.items():
                    kinds = v if isinstance(v, list) else [v]
                    merged.setdefault(k, set()).update(
                        json.dumps(x, sort_keys=True) if isinstance(x, (dict, list)) else x for x in kinds)
            else:
                scalars.add(s)
        if merged:
            return [{k: sorted(v) for k, v in sorted(merged.items())}]
        return sorted(scalars)
    return {bool: "bool", int: "number", float: "number", str: "string", type(None): "null"}[type(value)]


def test_describe_without_mpi_and_under_mpirun(lib):
    doc = described(lib)
    assert doc["describe_version"] == 1
    assert doc["tool"]["meta_schema_version"] == 4
    # under the launcher every process starts, but one document is printed
    proc = subprocess.run(launcher(lib, 2) + [str(bench_path(lib)), "--describe"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == doc


def _fits(shape, golden) -> bool:
    """``shape`` has the golden's keys everywhere, and each value takes no kind the golden lacks. A
    kind the golden has may be absent from one library's document (an op is unavailable with a
    reason in one library only: ``unavailable_reason`` is null everywhere in the other)."""
    if isinstance(golden, dict):
        return isinstance(shape, dict) and shape.keys() == golden.keys() and all(
            _fits(shape[k], golden[k]) for k in golden)
    if isinstance(golden, list) and golden and isinstance(golden[0], dict):
        return isinstance(shape, list) and len(shape) == 1 and _fits(shape[0], golden[0])
    if isinstance(golden, list):
        return isinstance(shape, list) and bool(shape) and set(shape) <= set(golden)
    return shape == golden


def test_describe_shape_is_the_golden_one(lib):
    shape = _shape(described(lib))
    golden = json.loads((HERE / "data" / "describe_shape.json").read_text())
    assert _fits(shape, golden), "the --describe document changed shape: update docs/FORMAT.md and " \
                                 "c/tests/mpi/data/describe_shape.json together"


def test_help_and_describe_list_the_same_options(lib):
    doc = described(lib)
    in_describe = {o["name"] for o in doc["options"] if not o["hidden"]}
    help_text = subprocess.run([str(bench_path(lib)), "--help"], capture_output=True, text=True,
                               timeout=30, check=True).stdout
    in_help = set(re.findall(r"^  --([a-z][a-z0-9-]*)", help_text, flags=re.M))
    assert in_help == in_describe, (in_help ^ in_describe)
    # the registries --help lists are the ones --describe has
    for line, key in (("timers", "timers"), ("clock syncs", "clock_syncs"),
                      ("process syncs", "process_syncs"), ("datatypes", "datatypes"),
                      ("reduce ops", "reduce_ops")):
        listed = re.search(rf"^{line}: (.*)$", help_text, flags=re.M).group(1).split(", ")
        assert listed == [e["name"] for e in doc[key]], line


def test_an_options_allowed_text_names_every_choice(lib):
    # `mpimeter run --help` and its refusals quote "allowed": a text cut short (it was, at
    # 1 KiB, after "mw-waitsome, m") hides the operations past the cut from the user
    doc = described(lib)
    for o in doc["options"]:
        for choice in o["choices"] or []:
            assert re.search(rf"(^|[ ,:]){re.escape(choice)}(,|$| )", o["allowed"]), (o["name"], choice)
    ops = next(o for o in doc["options"] if o["name"] == "ops")
    assert ops["allowed"].rstrip().endswith(doc["operations"][-1]["name"])


def test_every_registry_entry_is_usable(lib):
    doc = described(lib)
    ops = {o["name"]: o for o in doc["operations"]}
    assert ops["bcast"]["kind"] == "rooted-collective" and ops["bcast"]["ranks_finish_apart"]
    assert ops["allreduce"]["kind"] == "collective" and not ops["allreduce"]["ranks_finish_apart"]
    assert ops["delay"]["size_unit"] == "ns" and ops["barrier"]["size_unused"]
    syncs = {c["name"]: c for c in doc["clock_syncs"]}
    assert syncs["hca3o"]["model"] == "offset" and not syncs["hca3o"]["drift_aware"]
    assert syncs["hca3"]["drift_aware"] and syncs["skampi"]["cost"] == "O(p)"
    procs = {p["name"]: p for p in doc["process_syncs"]}
    assert procs["window"]["uses_global_clock"] and not procs["window"]["redoes_late_rounds"]
    assert procs["harmonize"]["redoes_late_rounds"] and not procs["barrier"]["has_planned_start"]
    reduce_ops = {r["name"]: r["datatypes"] for r in doc["reduce_ops"]}
    assert "byte" in reduce_ops["bor"] and "float" not in reduce_ops["bor"]
    assert "char" not in reduce_ops["sum"]
    assert "PASS" in doc["environment"]["secret_words"]
    assert "UCX_" in doc["environment"]["record_prefixes"]


def test_validate_checks_without_mpi(lib):
    b = str(bench_path(lib))
    ok = subprocess.run([b, "--validate", "4", "--ops", "bcast,barrier", "--sizes", "8,64",
                         "--out", "/nonexistent/c"], capture_output=True, text=True, timeout=30)
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["tests"] == 3 and doc["nprocs"] == 4
    # a campaign launch (--out): window starts, whose auto clock sync is hca3 for several clocks
    assert doc["config"]["ops"] == ["bcast", "barrier"] and doc["config"]["clocksync"] == "hca3"
    # without --out, the quick table's barrier starts need no global clock
    quick = subprocess.run([b, "--validate", "4", "--ops", "bcast"], capture_output=True, text=True, timeout=30)
    assert quick.returncode == 0, quick.stderr
    assert json.loads(quick.stdout)["config"]["clocksync"] == "none"
    assert doc["operations"]["bcast"]["kind"] == "rooted-collective"
    bad = subprocess.run([b, "--validate", "2", "--root", "2", "--ops", "bcast"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip() == ("mpimeter-bench: --root: 2 is not a rank of this launch; allowed: 0 to 1, "
                                   "comma-separated, or all")


def test_validate_tells_the_repetition_memory(lib):
    """--validate gives the bytes of the repetition arrays (memory at scale): at 1024
    ranks x 1000 repetitions rank 0 receives full rows a chunk of 55 ranks at a time (4.3 MB, not
    the 78 MB of every rank's rows), reduced rows in one rank's worth, whatever the ranks."""
    def rep_bytes(nprocs, raw):
        done = subprocess.run([str(bench_path(lib)), "--validate", str(nprocs), "--nrep", "1000", "--raw", raw],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["rep_arrays_bytes"]

    full, reduced = rep_bytes(1024, "full"), rep_bytes(1024, "reduced")
    own = 1000 * (80 + 20)  # every rank: its arrays and the reductions' scratch
    assert full == {"rank0": own + 1000 * 4 + 55 * 1000 * 76, "other_rank": own}
    assert reduced == {"rank0": own + 1000 * 4 + 1000 * 76, "other_rank": own}
    assert rep_bytes(4, "reduced") == reduced


@pytest.mark.parametrize("op", ["bcast", "allreduce"])
def test_injected_mpi_error_fails_that_test_only(lib, op, tmp_path):
    out = tmp_path / "err"
    # barrier starts: the other tests' rows are whole whatever the load (under a window a busy
    # machine may leave a test without a valid start, and such a test writes no rows)
    proc = run_bench(lib, 2, ["--ops", "allreduce,bcast,barrier", "--sizes", "8,1024", "--nrep", 30,
                              "--procsync", "barrier", "--inject-error", op, "--seed", 3, "--out", out],
                     timeout=300)
    assert proc.returncode == 0
    meta, raw = read_launch(out)
    assert meta["status"] == "complete"
    failed = [t for t in meta["tests"] if t["status"] == "failed"]
    assert {t["op"] for t in failed} == {op} and len(failed) == 2
    call = "MPI_Bcast" if op == "bcast" else "MPI_Allreduce"
    for t in failed:
        assert t["error"]["code"] == "mpi-error"
        assert t["error"]["message"].startswith(call + ": "), t["error"]
        assert t["nrep"] == 0 and not (raw["test"] == t["test"]).any()
    for t in meta["tests"]:
        if t["status"] == "complete":
            assert (raw["test"] == t["test"]).sum() == 2 * 30, t  # whole: every rank, every rep
    conditions = [c for c in meta["conditions"] if c["code"] == "test-failed"]
    assert len(conditions) == 2 and all(call in c["message"] for c in conditions)


@pytest.mark.parametrize("procsync", ["window", "roundtime", "harmonize"])
def test_a_rank_late_after_its_wait_is_caught(lib, procsync, tmp_path):
    """Every 4th repetition the last rank oversleeps its start by 300 us (a test hook). Caught on
    any machine: those repetitions are invalid (window) or redone (roundtime, harmonize). Quiet
    machine only (conftest.QuietRuns, retried while other processes held the cores): enough
    rounds recorded within the budget, and the valid starts within the tolerance on the online
    global clock - under load that clock's own sync error adds to the spread."""
    out = tmp_path / procsync
    # harmonize doubles its slack after each late round, up to 100 ms: with a late round in every
    # four its rounds come about 0.1 s apart, and 64 of them would take longer than the budget
    # (quiet: 36 to 44 in 30 s); 16 is the count the quiet check asks for
    nrep = 16 if procsync == "harmonize" else 64
    args = ["--ops", "delay", "--sizes", "2000", "--nrep", nrep, "--warmup", 0, "--procsync", procsync,
            "--inject-late-wakeup-us", 300, "--seed", 5, "--out", out, "--force"]
    if procsync != "window":
        args += ["--roundtime-budget-s", "30"]
    else:
        # the window's own check is under test: a 300 us oversleep makes the rest of its batch
        # late, so the window's policy would go on with roundtime after two such batches
        # (test_busy_machine.py tests that); --switch-late-fraction 1 keeps it the window
        args += ["--switch-late-fraction", "1"]

    def run():
        run_bench(lib, 2, args, timeout=300)
        return read_launch(out)

    runs = QuietRuns(run, f"{lib} {procsync}: late wake-ups caught")
    meta, raw = runs.result
    (t,) = meta["tests"]
    assert t["start_tolerance_ns"] >= 1000
    if procsync == "window":
        # every 4th repetition of the last rank oversleeps its start by 300 us: invalid, with the
        # new reason, and never counted valid
        assert t["invalid_late_wakeup"] >= nrep // 4 - 1, t
        # (every 4th start of the loop, which also runs the unrecorded first repetition of each
        # batch: at least a quarter of the last rank's recorded rows, less the few that fell on
        # such a first repetition)
        last = raw[raw["rank"] == 1]
        assert (last["valid"] == 0).sum() >= len(last) // 4 - 2, last
    else:
        # roundtime/harmonize redo those rounds: what is recorded started together. Every 4th
        # attempt (recorded or redone) of the last rank oversleeps; harmonize answers a late round
        # by doubling its slack, so under load its time budget may end the test first.
        attempts = t["nrep"] + t["redone"]
        late = meta["proc_sync"]["redone"]["reasons"]["late_wakeup"]
        assert late >= attempts // 4 - 2, meta["proc_sync"]

    def quiet(launch):
        meta, raw = launch
        (t,) = meta["tests"]
        if procsync != "window":
            # seen with two CPU hogs: 0 or 6 rounds in the budget, and under MPICH roundtime the
            # last 5 recorded rounds marked invalid on rank 1 (flagged, so never used)
            assert t["nrep"] >= 16 and (raw["valid"] == 1).all(), t
        # the valid repetitions that remain started within the tolerance of each other
        per_rep = raw[raw["valid"] == 1].groupby("rep")["gstart_ns"]
        spread = per_rep.max() - per_rep.min()
        assert (spread <= t["start_tolerance_ns"] + 2000).all(), spread.max()
    runs.check(quiet)


def test_reduced_raw_matches_the_analysis_run_times(lib, tmp_path):
    out = tmp_path / "full"
    run_bench(lib, 2, ["--ops", "allreduce,bcast,barrier", "--sizes", "8,4096", "--nrep", 40,
                       "--seed", 9, "--out", out])
    meta, raw = read_launch(out)
    tool = REPO / "build" / lib / "tests" / "mm_reduce_raw"
    reduced = subprocess.run([str(tool), str(out / "raw.csv"), "2"], capture_output=True,
                             text=True, check=True).stdout
    red = pd.read_csv(pd.io.common.StringIO(reduced))
    from mpimeter.io.runtimes import repetition_times

    table = pa.Table.from_pandas(raw, preserve_index=False)
    n = table.num_rows
    table = table.append_column("rgstart_ns", pa.nulls(n, pa.int64())).append_column(
        "rgend_ns", pa.nulls(n, pa.int64()))
    table = table.add_column(0, "launch", pa.array(np.zeros(n, dtype=np.int32)))
    table = table.add_column(0, "alternative", pa.array(["a"] * n))
    reps = repetition_times(table)
    assert len(red) == len(reps)
    red = red.sort_values(["test", "rep"]).reset_index(drop=True)
    order = np.lexsort((reps.rep, reps.test))
    assert (red["test"].to_numpy() == reps.test[order]).all()
    # the reduced row's local run time is the max local duration; its global one max end - min start
    assert np.array_equal((red["end_ns"] - red["start_ns"]).to_numpy(), reps.local_ns[order].astype(np.int64))
    assert np.array_equal((red["gend_ns"] - red["gstart_ns"]).to_numpy(), reps.online_ns[order].astype(np.int64))
    assert np.array_equal(red["valid"].to_numpy() == 1, reps.valid[order])


def test_a_setup_that_cannot_allocate_says_what(lib, tmp_path):
    """An address space capped below the buffers (ulimit -v: the memory check before a launch reads
    what the host has, not this cap) fails the test with the setup's own words: which buffer, how
    many bytes, why."""
    out = tmp_path / "capped"
    cmd = launcher(lib, 2) + ["sh", "-c", 'ulimit -v 1048576; exec "$0" "$@"', str(bench_path(lib)),
                              "--ops", "alltoall", "--sizes", str(512 << 20), "--datatype", "byte",
                              "--nrep", "3", "--quiet", "--out", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    meta, _ = read_launch(out)
    (t,) = meta["tests"]
    assert t["status"] == "failed" and t["error"]["code"] == "alloc-failed", t
    assert t["error"]["message"] == ("the setup of alltoall at 536870912 bytes on rank 0 failed: "
                                     "cannot allocate the send buffer (1073741824 bytes): out of memory")
