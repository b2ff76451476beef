# SPDX-License-Identifier: BSD-3-Clause
"""Regenerates the golden launch and campaign folders under python/tests/data/golden/.

    .venv/bin/python python/tests/data/make_golden.py

Each folder is small (2 ranks, 20 repetitions) and seeded, so the output is the same every
time. The bad-input cases are the good ones with one thing broken, as a killed launch, a
hand-edited file or a newer mpimeter-bench would leave them.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import synth  # noqa: E402

GOLDEN = HERE / "golden"
SMALL = dict(nrep=20, nprocs=2, ops=("allreduce", "bcast"), sizes=(8, 1024))


def _edit_meta(folder: Path, **changes) -> None:
    meta = json.loads((folder / "meta.json").read_text())
    meta.update(changes)
    (folder / "meta.json").write_text(json.dumps(meta, indent=1))


def main() -> None:
    if GOLDEN.exists():
        shutil.rmtree(GOLDEN)
    GOLDEN.mkdir()
    # good: campaigns of one alternative, a folder of two alternatives, a lone launch
    synth.write_campaign(GOLDEN / "campaign_a", 4, seed=11, **SMALL)
    synth.write_campaign(GOLDEN / "campaign_b", 4, seed=12, shift=1.3, **SMALL)
    synth.write_campaign(GOLDEN / "alternatives" / "openmpi", 3, seed=13, **SMALL)
    synth.write_campaign(GOLDEN / "alternatives" / "mpich", 3, seed=14, shift=1.2, **SMALL)
    (GOLDEN / "alternatives" / "campaign.json").write_text(json.dumps({
        "schema_version": 1, "command": "mpimeter run (synthetic)", "bench_args": [], "launcher": "local", "np": 2,
        "launches_per_alternative": 3, "seed": 1,
        "alternatives": [{"name": "openmpi", "mpi": "openmpi", "env": {}}, {"name": "mpich", "mpi": "mpich", "env": {}}],
        "launches": []}, indent=1))
    # re-synced clock with drift: online global times are off, re-synced ones are right
    synth.write_campaign(GOLDEN / "resync", 3, seed=15, syncs=4, drift_ppm=200.0, **SMALL)
    # local clock only (no clock sync, barrier process sync)
    synth.write_campaign(GOLDEN / "local_only", 3, seed=16, clocksync="none", procsync="barrier", **SMALL)
    # point-to-point: bandwidth by the harmonic mean
    synth.write_campaign(GOLDEN / "pingpong", 3, seed=17, nrep=20, nprocs=2, ops=("pingpong",), sizes=(1024, 65536),
                         schema=2)

    # --- bad input ---------------------------------------------------------------------------
    (GOLDEN / "not_a_campaign").mkdir()
    (GOLDEN / "not_a_campaign" / "notes.txt").write_text("just some notes\n")
    (GOLDEN / "empty_launches" / "launches").mkdir(parents=True)
    (GOLDEN / "empty_launches" / "launches" / ".keep").write_text("")

    # a launch killed while writing raw.csv: last line cut, meta.json still says running/incomplete
    f = synth.write_launch(GOLDEN / "truncated_raw" / "launches" / "000", seed=21, finished=3, status="incomplete",
                           **SMALL)
    raw = (f / "raw.csv").read_bytes()
    (f / "raw.csv").write_bytes(raw + b"3,bcast,1024,0,0,1004")

    # a malformed line in the middle of raw.csv
    f = synth.write_launch(GOLDEN / "malformed_raw" / "launches" / "000", seed=22, **SMALL)
    lines = (f / "raw.csv").read_text().splitlines(keepends=True)
    lines[6] = lines[6].replace(",1,", ",x,", 1) if ",1," in lines[6] else "0,allreduce,8,0,5,abc,1,1,,\n"
    (f / "raw.csv").write_text("".join(lines))

    # meta.json that does not parse
    f = synth.write_launch(GOLDEN / "bad_meta_json" / "launches" / "000", seed=23, **SMALL)
    text = (f / "meta.json").read_text()
    (f / "meta.json").write_text(text[: len(text) // 2])

    # meta.json from a newer format
    f = synth.write_launch(GOLDEN / "unknown_schema" / "launches" / "000", seed=24, **SMALL)
    _edit_meta(f, schema_version=99)

    # a launch marked incomplete: 2 of 4 tests finished (used, with a warning)
    synth.write_campaign(GOLDEN / "incomplete" , 2, seed=25, **SMALL)
    synth.write_launch(GOLDEN / "incomplete" / "launches" / "002", seed=26, finished=2, status="incomplete", **SMALL)

    # raw.csv whose op does not match meta.json's test
    f = synth.write_launch(GOLDEN / "raw_meta_mismatch" / "launches" / "000", seed=27, **SMALL)
    lines = (f / "raw.csv").read_text().splitlines(keepends=True)
    parts = lines[3].split(",")
    parts[1] = "alltoall"
    lines[3] = ",".join(parts)
    (f / "raw.csv").write_text("".join(lines))

    # raw.csv missing although meta.json lists finished tests
    f = synth.write_launch(GOLDEN / "missing_raw" / "launches" / "000", seed=28, **SMALL)
    (f / "raw.csv").unlink()

    # --- corrupt, yet parsing: caught by checking the data against meta.json (FORMAT.md, reader rules)
    def raw_lines(folder: Path) -> list[str]:
        return (folder / "raw.csv").read_text().splitlines(keepends=True)

    def write_raw(folder: Path, lines: list[str]) -> None:
        (folder / "raw.csv").write_text("".join(lines))

    # rank 1's rows of test 2 deleted
    f = synth.write_launch(GOLDEN / "missing_rank_rows" / "launches" / "000", seed=31, **SMALL)
    write_raw(f, [ln for ln in raw_lines(f) if not ln.startswith("2,") or ln.split(",")[3] != "1"])
    # half the repetitions of test 1 deleted (every rank)
    f = synth.write_launch(GOLDEN / "missing_reps" / "launches" / "000", seed=32, **SMALL)
    write_raw(f, [ln for ln in raw_lines(f) if not ln.startswith("1,") or int(ln.split(",")[4]) < 10])
    # meta.json says 3 ranks (and lists them), raw.csv holds 2
    f = synth.write_launch(GOLDEN / "nprocs_mismatch" / "launches" / "000", seed=33, **SMALL)
    meta = json.loads((f / "meta.json").read_text())
    meta["ranks"].append(dict(meta["ranks"][-1], rank=2, pid=1002))
    _edit_meta(f, nprocs=3, ranks=meta["ranks"])
    # a repetition written twice, the copy with a wild end time (the mean would jump ~1000 ×)
    f = synth.write_launch(GOLDEN / "duplicate_rep" / "launches" / "000", seed=34, **SMALL)
    lines = raw_lines(f)
    parts = lines[6].rstrip("\n").split(",")
    parts[6] = str(int(parts[6]) + 10**9)
    parts[9] = str(int(parts[9]) + 10**9)
    write_raw(f, lines[:7] + [",".join(parts) + "\n"] + lines[7:])
    # timestamps so far apart that end − start overflows 64 bits to a negative run time
    f = synth.write_launch(GOLDEN / "overflow_times" / "launches" / "000", seed=35, **SMALL)
    lines = raw_lines(f)
    parts = lines[3].rstrip("\n").split(",")
    parts[5], parts[6] = str(-(2**62) - 1), str(2**63 - 1)
    write_raw(f, lines[:3] + [",".join(parts) + "\n"] + lines[4:])
    # a launch copied in from another campaign: campaign.json planned launch 001 with another seed
    synth.write_campaign(GOLDEN / "foreign_launch", 3, seed=36, **SMALL)
    (GOLDEN / "foreign_launch" / "campaign.json").write_text(json.dumps({
        "schema_version": 1, "command": "mpimeter run (synthetic)", "bench_args": [], "launcher": "local", "np": 2,
        "launches_per_alternative": 3, "seed": 36, "alternatives": [{"name": "openmpi", "mpi": "openmpi", "env": {}}],
        "launches": [{"alternative": "openmpi", "index": i, "folder": f"launches/{i:03d}", "status": "complete",
                      "seed": 36000 + i} for i in range(3)]}, indent=1))
    shutil.rmtree(GOLDEN / "foreign_launch" / "launches" / "001")
    synth.write_launch(GOLDEN / "foreign_launch" / "launches" / "001", seed=99001, **SMALL)
    # a launch of another MPI library among Open MPI's (no campaign.json)
    synth.write_campaign(GOLDEN / "foreign_library", 3, seed=37, **SMALL)
    _edit_meta(GOLDEN / "foreign_library" / "launches" / "002",
               mpi={"library": "mpich", "version": "MPI 4.0", "library_version": "MPICH Version: 4.0.2",
                    "library_version_full": "MPICH Version: 4.0.2"})
    # raw.csv cut in half after the launch completed
    f = synth.write_launch(GOLDEN / "cut_complete" / "launches" / "000", seed=38, **SMALL)
    data = (f / "raw.csv").read_bytes()
    (f / "raw.csv").write_bytes(data[: len(data) // 2])
    # a re-synced launch whose sync.csv is gone: its global times cannot be recomputed
    f = synth.write_launch(GOLDEN / "resync_no_sync" / "launches" / "000", seed=39, syncs=3, **SMALL)
    (f / "sync.csv").unlink()
    # schema version 2, as the current mpimeter-bench writes it, with a condition
    synth.write_campaign(GOLDEN / "schema2", 3, seed=40, schema=2, conditions=[{
        "code": "oversubscribed", "message": "2 ranks share 1 CPU on host synthetic-host",
        "hint": "run at most one rank per core", "where": "synthetic-host"}], **SMALL)

    # two campaigns with no (op, size) in common
    synth.write_campaign(GOLDEN / "disjoint_a", 3, seed=29, nrep=20, nprocs=2, ops=("allreduce",), sizes=(8,))
    synth.write_campaign(GOLDEN / "disjoint_b", 3, seed=30, nrep=20, nprocs=2, ops=("bcast",), sizes=(16,))
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
